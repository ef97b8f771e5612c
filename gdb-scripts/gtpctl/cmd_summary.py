# SPDX-License-Identifier: GPL-2.0
"""gtpctl/cmd_summary.py - gtp-ctl hist, count, stats and agg.

The same pictures as gdb's gtp-hist/gtp-count/gtp-stats (summary.py
prints both), over a tsave'd file or the live target, with KEY in the
key language of keys.py instead of a gdb expression; `agg` reads an
aggregating variable's tables from the live target (agg.py).
"""
from __future__ import annotations

import argparse

from . import agg, keys, ksyms, remote, source, summary
from .trace import Trace, TraceError

EPILOG = keys.__doc__.split("\n", 2)[2]


def _frames(args, trace):
    if not trace.frames:
        raise TraceError("%s holds no trace frames" % trace.origin)
    tp = getattr(args, "tp", None)
    if tp is not None and tp not in trace.tracepoints and \
            not any(f.tpnum == tp for f in trace.frames):
        raise TraceError("%s has no tracepoint %d (tracepoints: %s)" % (
            trace.origin, tp, ", ".join(str(n) for n in sorted(trace.tracepoints)) or "none"))
    for f in trace.frames:
        if tp is None or f.tpnum == tp:
            yield f


def collect(args: argparse.Namespace, trace: Trace) -> tuple[summary.Collector, int]:
    """(Collector, frames seen) of args.key over the selected frames."""
    key = keys.Key(args.key, trace)
    cond = keys.Cond(args.cond, trace) if args.cond else None
    col = summary.Collector()
    seen = 0
    for f in _frames(args, trace):
        seen += 1
        if cond is None or cond(f):
            col.add(key(f))
    if not seen:
        raise TraceError("%s holds no frames of tracepoint %d" % (trace.origin, args.tp))
    return col, seen


def _header(name, args, col, seen):
    where = []
    if args.tp is not None:
        where.append("tracepoint %d" % args.tp)
    if args.cond:
        where.append("if %s" % args.cond)
    print("%s %s: %d of %d frame(s)%s, %d unavailable" % (
        name, args.key, col.total, seen, (" (" + ", ".join(where) + ")") if where else "",
        col.unavailable))


def run_hist(args: argparse.Namespace) -> None:
    linear = summary.linear_option(args.linear, TraceError)
    col, seen = collect(args, source.load(args))
    _header("gtp-hist", args, col, seen)
    print(summary.format_hist(col, linear), end="")


def run_count(args: argparse.Namespace) -> None:
    col, seen = collect(args, source.load(args))
    _header("gtp-count", args, col, seen)
    print(summary.format_count(col, args.top or None), end="")


def run_stats(args: argparse.Namespace) -> None:
    col, seen = collect(args, source.load(args))
    _header("gtp-stats", args, col, seen)
    print(summary.format_stats(col), end="")


def run_agg(args: argparse.Namespace) -> None:
    name = agg.agg_name(args.name if args.name.startswith("$") else "$" + args.name)
    if name is None:
        raise TraceError("%s is not an aggregating variable: its name starts with "
                         "$hist_ or $count_" % args.name)
    with remote.Remote(args.target) as rem:
        table = agg.read(rem.send, name)
    cmd = "gtp-hist" if table.kind == "h" else "gtp-count"
    key_text = None
    if args.sym:
        if table.kind != "c":
            raise TraceError("--sym names a count table's keys; $%s is a histogram" % name)
        key_text = _symbol_text(ksyms.Kallsyms())
    print(agg.format_agg(cmd, table, args.top or None, key_text), end="")


def _symbol_text(syms: ksyms.Kallsyms) -> agg.KeyText:
    """A key as `name+0xoff` from kallsyms, or its number where no
    symbol covers it (a key that is no address)."""
    def text(key: int) -> str:
        return syms.name(agg.address(key)) or str(key)
    return text


def _common(p):
    p.add_argument("key", metavar="KEY", help="what to look at (key language below)")
    p.add_argument("--if", dest="cond", metavar="'KEY OP NUMBER'",
                   help="only frames where this holds (OP: == != < <= > >=)")
    p.add_argument("--tp", type=int, metavar="N",
                   help="only frames of tracepoint N (the target's number)")
    source.add_arguments(p)


def register(sub: argparse._SubParsersAction, formatter: type[argparse.HelpFormatter]) -> None:
    p = sub.add_parser("hist", help="power-of-two (or linear) histogram of KEY",
                       description="Histogram of KEY over the trace frames, in "
                       "bpftrace's layout: [lo, hi) count |@@@@|.  Frames where KEY "
                       "is unavailable get their own row.",
                       epilog=EPILOG, formatter_class=formatter)
    _common(p)
    p.add_argument("--linear", metavar="MIN,MAX,STEP",
                   help="linear buckets of STEP from MIN to MAX instead of powers of two")
    p.set_defaults(func=run_hist)

    p = sub.add_parser("count", help="frames per distinct value of KEY",
                       description="Frames per distinct value of KEY, most frequent "
                       "first.", epilog=EPILOG, formatter_class=formatter)
    _common(p)
    p.add_argument("--top", type=int, default=20, metavar="N",
                   help="show the N most frequent values (default 20, 0: all)")
    p.set_defaults(func=run_count)

    p = sub.add_parser("stats", help="count, min, max, mean, p50, p99 of KEY",
                       description="count, min, max, mean, p50 and p99 (nearest "
                       "rank) of KEY; unavailable frames are counted apart.",
                       epilog=EPILOG, formatter_class=formatter)
    _common(p)
    p.set_defaults(func=run_stats)

    p = sub.add_parser("agg", help="an aggregating variable's tables, live",
                       description="The histogram of a $hist_NAME or the per-key "
                       "counts of a $count_NAME trace state variable, as the kernel "
                       "aggregated them (no frames): read from the target while the "
                       "trace runs or after it stopped, until the next tstart.",
                       formatter_class=formatter)
    p.add_argument("name", metavar="NAME", help="$hist_NAME or $count_NAME ('$' optional)")
    p.add_argument("--top", type=int, default=20, metavar="N",
                   help="count tables: show the N most frequent keys (default 20, 0: all)")
    p.add_argument("--sym", action="store_true",
                   help="count tables: show each key as the kernel symbol+offset it is the "
                   "address of (from /proc/kallsyms), for keys such as $caller or $pc")
    remote.add_target_argument(p)
    p.set_defaults(func=run_agg)
