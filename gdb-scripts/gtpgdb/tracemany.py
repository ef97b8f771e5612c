# SPDX-License-Identifier: GPL-2.0
"""gtp-trace-many: a tracepoint on each kernel function whose name matches
a regular expression (docs/tracing.md "Many functions at once").

Each is gdb's own `trace FUNC [if COND]`, so the condition is compiled
against that function's own arguments from whatever symbols gdb has
(gtp-connect's BTF, gtp-load-vmlinux's DWARF).  Names come from the
target's /proc/kallsyms (gdb runs on the traced box: /proc/gtp); what
cannot be probed is left out first, and the reasons are counted:

  not in kallsyms   gdb has a function of that name but the kernel has no
                    symbol for it (inlined everywhere)
  kprobe blacklist  /sys/kernel/debug/kprobes/blacklist lists it
  notrace           not in ftrace's available_filter_functions: no ftrace
                    location (gtp's entry probes are carried by ftrace,
                    module/probes/ftrace_probe.c)
  gdb: ...          `trace` failed: the condition does not compile there,
                    or gdb has no such function (gdb's message)

A list that cannot be read is not applied, and the summary says so.
"""
from __future__ import annotations

import re
from typing import Dict, Iterable, List, NamedTuple, Optional, Set

import gdb

from . import errsites, lazy

kallsyms = lazy.module("gtpctl.kallsyms")

DEFAULT_MAX = 2000
FILTER_FUNCTIONS = ("/sys/kernel/tracing/available_filter_functions",
                    "/sys/kernel/debug/tracing/available_filter_functions")
KPROBE_BLACKLIST = "/sys/kernel/debug/kprobes/blacklist"
SHOW = 5                        # names shown per skip reason


class Request(NamedTuple):
    regex: "re.Pattern[str]"
    cond: Optional[str]
    max: int
    collect: List[str]
    actions: List[str]


def parse(arg: str) -> Request:
    """`[--max N] [-c EXPR]... [-a ACTION]... REGEX [if COND]`: everything
    after the first word `if` is the condition, as in `trace`."""
    m = re.match(r"(.*?)(?:\s+if\s+(.*))?$", arg.strip(), re.S)
    argv = gdb.string_to_argv(m.group(1))
    cond = m.group(2).strip() if m.group(2) else None
    limit, collect, actions, rx = DEFAULT_MAX, [], [], None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--max", "-c", "--collect", "-a", "--action") and i + 1 >= len(argv):
            raise gdb.GdbError("gtp-trace-many: %s needs a value" % a)
        if a == "--max":
            if not argv[i + 1].isdigit():
                raise gdb.GdbError("gtp-trace-many: --max %s: not a number" % argv[i + 1])
            limit = int(argv[i + 1])
            i += 2
        elif a in ("-c", "--collect"):
            collect.append(argv[i + 1])
            i += 2
        elif a in ("-a", "--action"):
            actions.append(argv[i + 1])
            i += 2
        elif rx is None:
            rx = a
            i += 1
        else:
            raise gdb.GdbError("gtp-trace-many: one REGEX only (%r, then %r)" % (rx, a))
    if rx is None:
        raise gdb.GdbError("usage: gtp-trace-many [--max N] [-c EXPR]... [-a ACTION]... "
                           "REGEX [if COND]")
    try:
        return Request(re.compile(rx), cond, limit, collect, actions)
    except re.error as e:
        raise gdb.GdbError("gtp-trace-many: %s: %s" % (rx, e))


def _lines(paths: Iterable[str]) -> Optional[List[str]]:
    """The first of paths that can be read, as lines; None if none can."""
    for p in paths:
        try:
            with open(p) as f:
                return f.read().splitlines()
        except OSError:
            continue
    return None


def ftrace_names() -> Optional[Set[str]]:
    """Functions with an ftrace location ("name" or "name [module]")."""
    lines = _lines(FILTER_FUNCTIONS)
    return None if lines is None else {ln.split()[0] for ln in lines if ln.strip()}


def blacklist_names() -> Optional[Set[str]]:
    """Functions on the kprobe blacklist ("0xSTART-0xEND\tname [module]")."""
    lines = _lines([KPROBE_BLACKLIST])
    if lines is None:
        return None
    return {ln.split()[1] for ln in lines if len(ln.split()) >= 2}


def kallsyms_functions() -> Set[str]:
    try:
        syms = kallsyms.read()
    except kallsyms.AddressesHidden:
        raise gdb.GdbError("gtp-trace-many: /proc/kallsyms hides addresses: run gdb as root")
    except OSError as e:
        raise gdb.GdbError("gtp-trace-many: %s" % e)
    return {s.name for s in syms if s.type in "tT"}


def literal_prefix(rx: str) -> str:
    """What every match of rx starts with, as far as plain characters go
    ("^vfs_(read|write)" -> "vfs_"): gdb's `info functions` takes POSIX
    regular expressions, so it is given only that much."""
    m = re.match(r"\^?([A-Za-z0-9_]*)", rx)
    prefix = m.group(1)
    rest = rx[m.end():]
    # a quantifier applies to the prefix's last character
    if rest[:1] in ("*", "?", "{"):
        prefix = prefix[:-1]
    return prefix


def gdb_functions(prefix: str) -> Set[str]:
    """Function names gdb's debug info (not its minimal symbols) has,
    starting with prefix."""
    out = gdb.execute("info functions -q -n ^%s" % prefix, to_string=True)
    found = (re.search(r"([A-Za-z_]\w*)\(", ln) for ln in out.splitlines())
    return {m.group(1) for m in found if m}


def skip_reasons(names: Set[str], known: Set[str], ftrace: Optional[Set[str]],
                 blacklist: Optional[Set[str]]) -> Dict[str, str]:
    """{name: reason} for the names (kallsyms' and gdb's) left out."""
    out = {}
    for n in sorted(names):
        if n not in known:
            out[n] = "not in kallsyms (inlined everywhere)"
        elif blacklist is not None and n in blacklist:
            out[n] = "on the kprobe blacklist"
        elif ftrace is not None and n not in ftrace:
            out[n] = "notrace (not an ftrace location)"
    return out


def _gdb_reason(e: gdb.error, cond: Optional[str], what: str = "condition") -> str:
    msg = str(e).strip().splitlines()[-1] if str(e).strip() else "error"
    if re.match(r'Function ".*" not defined', msg):
        return "gdb has no such function"
    return "gdb: %s" % (msg if not cond and what == "condition" else what + ": " + msg)


def create(name: str, req: Request) -> int:
    """gdb's `trace name [if cond]`; the new tracepoint's number."""
    cmd = "trace %s" % name + (" if %s" % req.cond if req.cond else "")
    gdb.execute(cmd, to_string=True)
    return int(gdb.parse_and_eval("$tpnum"))


def summary(created: List[int], skipped: Dict[str, str], unchecked: List[str]) -> str:
    by: Dict[str, List[str]] = {}
    for n, why in skipped.items():
        by.setdefault(why, []).append(n)
    head = "gtp-trace-many: created %d, skipped %d" % (len(created), len(skipped))
    if by:
        head += " (%s)" % ", ".join("%d %s" % (len(v), k) for k, v in sorted(by.items()))
    if created:
        head += "; tracepoints %d-%d" % (created[0], created[-1])
    lines = [head]
    for why, v in sorted(by.items()):
        more = " ... (+%d more)" % (len(v) - SHOW) if len(v) > SHOW else ""
        lines.append("  %s: %s%s" % (why, " ".join(v[:SHOW]), more))
    lines += ["  %s" % u for u in unchecked]
    return "\n".join(lines) + "\n"


class TraceMany(gdb.Command):
    """A tracepoint on each kernel function whose whole name matches REGEX.

Usage: gtp-trace-many [--max N] [-c EXPR]... [-a ACTION]... REGEX [if COND]
REGEX: a Python regular expression matched against the whole name
("vfs_.*", "^(ksys|vfs)_(read|write)$"; ^ and $ change nothing), one word.
Names come from the target's /proc/kallsyms.  Each function gets gdb's
own `trace FUNC [if COND]`: COND is compiled against that function's own
arguments.  -c EXPR (repeatable): each tracepoint collects EXPR where it
compiles (`actions` takes one tracepoint number, so this is how many get
the same actions).  -a ACTION (repeatable, quoted): an action line as
`actions` takes it (`-a 'teval $kret = 0'`), after the collects; a
function where gdb refuses one is left out.  Left out, and counted by reason: no symbol in kallsyms
(inlined), on the kprobe blacklist, notrace (not in ftrace's
available_filter_functions), and what gdb's `trace` refuses (COND does not
compile there).  More than --max N (default 2000) left is refused before
anything is created; a REGEX that matches nothing is an error."""

    def __init__(self) -> None:
        super().__init__("gtp-trace-many", gdb.COMMAND_TRACEPOINTS)

    def invoke(self, arg: str, from_tty: bool) -> None:
        req = parse(arg)
        known = kallsyms_functions()
        prefix = literal_prefix(req.regex.pattern)
        gdb_names = gdb_functions(prefix) if prefix else set()
        names = {n for n in known | gdb_names if req.regex.fullmatch(n)}
        if not names:
            raise gdb.GdbError("gtp-trace-many: no kernel function matches %s (whole names, "
                               "from /proc/kallsyms)" % req.regex.pattern)
        ftrace, blacklist = ftrace_names(), blacklist_names()
        unchecked = []
        if ftrace is None:
            unchecked.append("notrace: unknown (%s unreadable)" % FILTER_FUNCTIONS[0])
        if blacklist is None:
            unchecked.append("kprobe blacklist: unknown (%s unreadable)" % KPROBE_BLACKLIST)
        skipped = skip_reasons(names, known, ftrace, blacklist)
        todo = sorted(n for n in names if n not in skipped)
        if len(todo) > req.max:
            raise gdb.GdbError("gtp-trace-many: %d functions match %s (%d more left out), more "
                               "than --max %d: nothing created; narrow the pattern or raise "
                               "--max" % (len(todo), req.regex.pattern, len(skipped), req.max))
        created: List[int] = []
        pending = gdb.parameter("breakpoint pending")
        # a name gdb cannot find must fail, not become a pending tracepoint
        gdb.execute("set breakpoint pending off", to_string=True)
        try:
            for n in todo:
                try:
                    num = create(n, req)
                except gdb.error as e:
                    skipped[n] = _gdb_reason(e, req.cond)
                    continue
                try:
                    dropped = (errsites.set_actions(num, req.collect, tuple(req.actions))
                               if req.collect or req.actions else [])
                except gdb.error as e:
                    # an -a line gdb refuses here: no tracepoint without its actions
                    gdb.execute("delete %d" % num, to_string=True)
                    skipped[n] = _gdb_reason(e, req.cond, "action")
                    continue
                created.append(num)
                for item, why in dropped:
                    gdb.write("tracepoint %d (%s): collect %s left out: %s\n" % (num, n, item, why))
        finally:
            gdb.execute("set breakpoint pending %s" % {True: "on", False: "off"}.get(
                pending, "auto"), to_string=True)
        gdb.write(summary(created, skipped, unchecked))


def register() -> None:
    TraceMany()
