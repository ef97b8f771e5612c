# SPDX-License-Identifier: GPL-2.0
"""gtp-watch EXPR [if COND]: a watch tracepoint on a kernel variable.

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

_USAGE = "usage: gtp-watch [-a] [-s] EXPR [if COND]"


def parse(arg: str) -> tuple[bool, bool, str, str]:
    """(reads, stack, EXPR, COND or "") of gtp-watch's argument."""
    reads = stack = False
    rest = arg.strip()
    while rest.startswith("-"):
        flag, _, rest = rest.partition(" ")
        rest = rest.lstrip()
        if flag == "-a":
            reads = True
        elif flag == "-s":
            stack = True
        elif flag == "--":
            break
        else:
            raise gdb.GdbError("gtp-watch: unknown option %s (%s)" % (flag, _USAGE))
    m = re.match(r"^(.*?)(?:\s+if\b\s*(.*))?$", rest, re.S)
    expr, cond = m.group(1).strip(), (m.group(2) or "").strip()
    if not expr or (m.group(2) is not None and not cond):
        raise gdb.GdbError(_USAGE)
    return reads, stack, expr, cond


class Watch(gdb.Command):
    """Trace each access to a kernel variable: a watch tracepoint.

Usage: gtp-watch [-a] [-s] EXPR [if COND]
EXPR: what to watch, 1, 2, 4 or 8 bytes aligned to its size: a global, or
a field of an object at a known address (`((struct sock *)0x...)->sk_state`);
its address is taken now, as `watch -l` does.  Each write to it, on any
CPU, in any context, is a hit at the instruction after the write, which
records $regs (so tfind shows who wrote) and $watch_prev and $watch_val,
the value before and after.  -a: reads are hits too ($awatch), -s: record
the kernel stack too ($kstack).  COND may test both values
(`if $watch_val == 0`).  Then tstart; tfind and tdump read the frames as
any other.  The CPU has four debug registers: a few watches at once."""

    def __init__(self) -> None:
        super().__init__("gtp-watch", gdb.COMMAND_TRACEPOINTS, gdb.COMPLETE_EXPRESSION)

    def invoke(self, arg: str, from_tty: bool) -> None:
        reads, stack, expr, cond = parse(arg)
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
        mark = "$awatch" if reads else "$watch"
        items = ["$regs", "$watch_prev", "$watch_val"] + (["$kstack"] if stack else [])
        for var in [mark] + items[1:]:
            gdb.execute("tvariable %s" % var, to_string=True)
        gdb.execute("trace *0x%x%s" % (addr, " if " + cond if cond else ""), to_string=True)
        num = int(gdb.parse_and_eval("$tpnum"))
        dropped = errsites.set_actions(num, items, ("teval %s = %d" % (mark, size),))
        for item, why in dropped:
            gdb.write("gtp-watch: tracepoint %d does not collect %s: %s\n" % (num, item, why))
        gdb.write("Watch tracepoint %d: %s of %s (%d bytes at 0x%x)\n"
                  % (num, "reads and writes" if reads else "writes", expr, size, addr))


def register() -> None:
    Watch()
