# SPDX-License-Identifier: GPL-2.0
"""gtp-watch EXPR [if COND]: a watch tracepoint on a kernel variable;
gtp-watch -d LEN: one that another tracepoint points ($watch_arm_N).

gdb has watchpoints for a stopped program but no watch tracepoint; gtp's
is a plain `trace *ADDR` whose actions set the built-in `$watch` (writes)
or `$awatch` (reads and writes) to the number of bytes watched, which gtp
reads at tstart and carries on a hardware breakpoint (docs/tracing.md,
"Watch tracepoints").  This command writes that tracepoint for the common
case: EXPR's address and size taken now, as `watch -l` takes them, and
the actions that record who accessed it and the value before and after.
"""
import re

import gdb

from . import errsites

_USAGE = "usage: gtp-watch [-a] [-s] EXPR [if COND] | gtp-watch [-a] [-s] -d LEN [if COND]"


def parse(arg: str) -> tuple[bool, bool, int, str, str]:
    """(reads, stack, LEN of -d or 0, EXPR, COND or "") of gtp-watch's
    argument; with -d, EXPR is empty."""
    reads = stack = False
    dynamic = 0
    rest = arg.strip()
    while rest.startswith("-"):
        flag, _, rest = rest.partition(" ")
        rest = rest.lstrip()
        if flag == "-a":
            reads = True
        elif flag == "-s":
            stack = True
        elif flag == "-l":
            pass                # gdb's watch -l: an address is always taken now
        elif flag == "-d":
            n, _, rest = rest.partition(" ")
            rest = rest.lstrip()
            if n not in ("1", "2", "4", "8"):
                raise gdb.GdbError("gtp-watch: -d takes the length watched: 1, 2, 4 or 8")
            dynamic = int(n)
        elif flag == "--":
            break
        else:
            raise gdb.GdbError("gtp-watch: unknown option %s (%s)" % (flag, _USAGE))
    m = re.match(r"^(.*?)(?:(?:^|\s+)if\b\s*(.*))?$", rest, re.S)
    expr, cond = m.group(1).strip(), (m.group(2) or "").strip()
    if (not expr) != bool(dynamic) or (m.group(2) is not None and not cond):
        raise gdb.GdbError(_USAGE)
    return reads, stack, dynamic, expr, cond


class Watch(gdb.Command):
    """Trace each access to a kernel variable: a watch tracepoint.

Usage: gtp-watch [-a] [-s] EXPR [if COND]
       gtp-watch [-a] [-s] -d LEN [if COND]
EXPR: what to watch, 1, 2, 4 or 8 bytes aligned to its size: a global, or
a field of an object at a known address (`((struct sock *)0x...)->sk_state`);
its address is taken now, as `watch -l` does.  Each write to it, on any
CPU, in any context, is a hit at the instruction after the write, which
records $regs (so tfind shows who wrote) and $watch_prev and $watch_val,
the value before and after.  -a: reads are hits too ($awatch), -s: record
the kernel stack too ($kstack).  COND may test both values
(`if $watch_val == 0`).  Then tstart; tfind reads the frames, print
their values ($watch_addr is where).  The CPU has four debug registers: a
few watches at once.
-d LEN: a dynamic watch of LEN bytes, at no address until a hit of
another tracepoint sets $watch_arm_N (N: this one's number) to one, e.g.
at an allocation's return: `teval $watch_arm_3 = $kret + 16`; 0 parks
it again.  It moves a moment after that hit (from process context)."""

    def __init__(self) -> None:
        super().__init__("gtp-watch", gdb.COMMAND_TRACEPOINTS, gdb.COMPLETE_EXPRESSION)

    def invoke(self, arg: str, from_tty: bool) -> None:
        reads, stack, dynamic, expr, cond = parse(arg)
        if dynamic:
            self.define(reads, stack, 0, dynamic, cond, "")
            return
        try:
            val = gdb.parse_and_eval(expr)
        except gdb.error as e:
            raise gdb.GdbError("gtp-watch: %s" % e)
        if val.type.strip_typedefs().code == gdb.TYPE_CODE_FUNC:
            raise gdb.GdbError("gtp-watch: %s is a function: trace it, watch data" % expr)
        if val.address is None:
            raise gdb.GdbError("gtp-watch: %s is not in memory (an lvalue: a variable, "
                               "a field, *POINTER)" % expr)
        addr, size = int(val.address), val.type.sizeof
        if size not in (1, 2, 4, 8):
            raise gdb.GdbError("gtp-watch: %s is %d bytes; a debug register watches 1, 2, 4 "
                               "or 8 (watch a field of it)" % (expr, size))
        if addr % size:
            raise gdb.GdbError("gtp-watch: %s at 0x%x is not aligned to its %d bytes, which "
                               "a debug register needs" % (expr, addr, size))
        self.define(reads, stack, addr, size, cond, expr)

    @staticmethod
    def define(reads: bool, stack: bool, addr: int, size: int, cond: str, expr: str) -> None:
        mark = "$awatch" if reads else "$watch"
        items = ["$regs", "$watch_prev", "$watch_val"]
        items += ["$watch_addr"] if not addr else []
        items += ["$kstack"] if stack else []
        for var in [mark] + items[1:]:
            gdb.execute("tvariable %s" % var, to_string=True)
        gdb.execute("trace *0x%x%s" % (addr, " if " + cond if cond else ""), to_string=True)
        num = int(gdb.parse_and_eval("$tpnum"))
        dropped = errsites.set_actions(num, items, ("teval %s = %d" % (mark, size),))
        for item, why in dropped:
            gdb.write("gtp-watch: tracepoint %d does not collect %s: %s\n" % (num, item, why))
        what = "reads and writes" if reads else "writes"
        if addr:
            gdb.write("Watch tracepoint %d: %s of %s (%d byte%s at 0x%x)\n"
                      % (num, what, expr, size, "s" if size > 1 else "", addr))
            return
        gdb.execute("tvariable $watch_arm_%d" % num, to_string=True)
        gdb.write("Watch tracepoint %d: %s of %d byte%s wherever $watch_arm_%d points "
                  "(nowhere yet)\n" % (num, what, size, "s" if size > 1 else "", num))


def register() -> None:
    Watch()
