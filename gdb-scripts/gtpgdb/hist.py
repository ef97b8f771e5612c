# SPDX-License-Identifier: GPL-2.0
"""Look at a trace rather than read it (docs/histograms.md).

  gtp-hist EXPR [if COND] [--tp N] [--linear MIN,MAX,STEP]
                          power-of-two (or linear) histogram of EXPR
  gtp-count KEYEXPR [if COND] [--tp N] [--top N]
                          frames per distinct value, most frequent first
  gtp-count $count_NAME [--top N] [--sym]
                          the kernel's counts; --sym names address keys
  gtp-stats EXPR [if COND] [--tp N]
                          count, min, max, mean, p50, p99
  $gtp_stat("EXPR", "WHAT"[, TP])
                          one of those numbers as a value, for scripts
                          and conditions (`if $gtp_stat("n", "p99") > 8`)

`gtp-hist $hist_NAME` and `gtp-count $count_NAME` read an aggregating
trace state variable's tables from the target instead (gtpctl/agg.py):
live, while the trace runs, with no frames.

EXPR and COND are gdb expressions, evaluated by gdb in every trace frame
with the frame's symbols, exactly as `tfind N` + `print EXPR` would.  A
frame where EXPR reads memory or registers the tracepoint did not
collect counts as <unavailable>; any other error (no such symbol, a
syntax error) stops the command with gdb's message.

Speed: one `tfind N` per frame.  Against /proc/gtp each tfind is a few
packets on a local file descriptor (about 1 ms in a TCG guest: 20 000
frames in ~20 s); with --tp the target itself finds the next frame of
that tracepoint.  On `target tfile` gdb walks the file from its start on
every tfind, so large files are quadratic there: look at the live target,
or use `gtp-ctl hist -f FILE` for plain registers and memory.
"""
from __future__ import annotations

import re
from typing import Optional

import gdb

from . import kstack, lazy

agg = lazy.module("gtpctl.agg")
summary = lazy.module("gtpctl.summary")
trace = lazy.module("gtpctl.trace")

_UNAVAIL_RE = re.compile(r"not available|unavailable|Cannot access memory|"
                         r"value has been optimized out", re.I)


def _hist_parse(cmd, arg, opts):
    """Split "EXPR [if COND] [--opt VAL]..." -> (expr, cond, {opt: val})."""
    found = {}
    rest = arg
    for name in opts:
        pat = re.compile(r"(?:^|\s)--%s(?:\s+|=)(\S+)" % name)
        m = pat.search(rest)
        if m:
            found[name] = m.group(1)
            rest = rest[:m.start()] + " " + rest[m.end():]
    stray = re.search(r"(?:^|\s)(--[a-z][\w-]*)", rest)
    if stray:
        raise gdb.GdbError("%s: unknown option %s (options: %s)" % (
            cmd, stray.group(1), ", ".join("--" + o for o in opts)))
    m = re.search(r"(?:^|\s)if\s", rest)
    expr, cond = (rest[:m.start()], rest[m.end():]) if m else (rest, None)
    expr = expr.strip()
    if cond is not None:
        cond = cond.strip()
        if not cond:
            raise gdb.GdbError("%s: 'if' without a condition" % cmd)
    if not expr:
        raise gdb.GdbError("%s: no expression given" % cmd)
    return expr, cond, found


def _flag(arg: str, name: str) -> tuple[str, bool]:
    """arg without the word --name, and whether it was there."""
    pat = re.compile(r"(?:^|\s)--%s(?=\s|$)" % name)
    rest, n = pat.subn(" ", arg)
    return rest, n > 0


def _symbol(key: int) -> str:
    """A count key as the kernel symbol+offset it is the address of
    (gtp-kstack's names: whatever symbols gdb has), or its number."""
    where = kstack.symbolize(agg.address(key), False)
    return str(key) if where.startswith("??") else where


def _int_opt(cmd, found, name):
    if name not in found:
        return None
    try:
        v = int(found[name], 0)
    except ValueError:
        raise gdb.GdbError("%s: --%s wants a number, got %r" % (cmd, name, found[name]))
    if v < 0:
        raise gdb.GdbError("%s: --%s must not be negative" % (cmd, name))
    return v


def _frame_count():
    out = gdb.execute("tstatus", to_string=True)
    if re.search(r"^Trace is running", out, re.M):
        raise gdb.GdbError("the trace is running: tstop first (gdb cannot look "
                           "at frames while tracing)")
    m = re.search(r"(?:Collected|Buffer contains|Looking at trace frame \d+, of) "
                  r"(\d+) trace frames?", out)
    if m:
        return int(m.group(1))
    m = re.search(r"(\d+) trace frames", out)
    return int(m.group(1)) if m else None


def _current_frame():
    try:
        return int(gdb.parse_and_eval("$trace_frame"))
    except gdb.error:
        return -1


def _select(n):
    """tfind N; True when frame N is now selected."""
    try:
        gdb.execute("tfind %d" % n, to_string=True)
    except gdb.error:
        return False
    return _current_frame() == n


def _frames(tp):
    """Yield frame numbers, selecting each one in turn."""
    if tp is None:
        total = _frame_count()
        if total is None:
            raise gdb.GdbError("no trace frames: is a trace target connected "
                               "(target remote /proc/gtp or target tfile)?")
        for n in range(total):
            if not _select(n):
                break
            yield n
        return
    gdb.execute("tfind none", to_string=True)
    last = -1
    while True:
        try:
            gdb.execute("tfind tracepoint %d" % tp, to_string=True)
        except gdb.error:
            return
        cur = _current_frame()
        if cur <= last:
            return
        last = cur
        yield cur


def _hist_value(v):
    """A gdb.Value as a Python number (or string for other types)."""
    t = v.type.strip_typedefs()
    code = t.code
    if code == gdb.TYPE_CODE_FLT:
        return float(v)
    if code in (gdb.TYPE_CODE_INT, gdb.TYPE_CODE_PTR, gdb.TYPE_CODE_ENUM,
                gdb.TYPE_CODE_BOOL, gdb.TYPE_CODE_CHAR):
        return int(v)
    if code == gdb.TYPE_CODE_REF:
        return _hist_value(v.referenced_value())
    return str(v)


def _evaluate(cmd, expr, n):
    """EXPR in the selected frame, or UNAVAILABLE; other errors stop."""
    try:
        v = gdb.parse_and_eval(expr)
        if v.is_optimized_out:
            return summary.UNAVAILABLE
        return _hist_value(v)
    except (gdb.MemoryError, gdb.error) as e:
        if _UNAVAIL_RE.search(str(e)):
            return summary.UNAVAILABLE
        raise gdb.GdbError("%s: cannot evaluate '%s' in trace frame %d: %s"
                           % (cmd, expr, n, e))


def _true(cmd, cond, n):
    v = _evaluate(cmd, cond, n)
    if v is summary.UNAVAILABLE:
        return False
    return bool(v)


def hist_collect(cmd: str, expr: str, cond: Optional[str], tp: Optional[int]
                 ) -> tuple[summary.Collector, int]:
    """Walk the frames; return (Collector, frames seen); restore the frame
    the user was looking at."""
    col = summary.Collector()
    before = _current_frame()
    seen = 0
    try:
        for n in _frames(tp):
            seen += 1
            if cond is not None and not _true(cmd, cond, n):
                continue
            col.add(_evaluate(cmd, expr, n))
    finally:
        try:
            gdb.execute("tfind %d" % before if before >= 0 else "tfind none",
                        to_string=True)
        except gdb.error:
            pass
    if not seen:
        raise gdb.GdbError("%s: no trace frames%s" % (
            cmd, " of tracepoint %d" % tp if tp is not None else ""))
    return col, seen


def _hist_header(cmd, expr, cond, tp, col, seen):
    where = []
    if tp is not None:
        where.append("tracepoint %d" % tp)
    if cond is not None:
        where.append("if %s" % cond)
    gdb.write("%s %s: %d of %d frame(s)%s, %d unavailable\n" % (
        cmd, expr, col.total, seen, (" (" + ", ".join(where) + ")") if where else "",
        col.unavailable))


def _require_numbers(cmd, col):
    for v in col.values:
        if not isinstance(v, (int, float)):
            raise gdb.GdbError("%s: '%s' is not a number (%s); use gtp-count"
                               % (cmd, v, type(v).__name__))


def _maint_send(pkt: str) -> str:
    """One packet to the target through `maint packet`; its reply."""
    try:
        out = gdb.execute("maint packet %s" % pkt, to_string=True)
    except gdb.error as e:
        raise trace.TraceError("cannot ask the target (target remote /proc/gtp?): %s" % e)
    m = re.search(r'received: "(.*)"', out)
    if not m:
        raise trace.TraceError("no reply to %s in %r" % (pkt, out[:80]))
    return m.group(1)


def _live_agg(cmd: str, expr: str, cond: Optional[str], found: dict,
              allowed: tuple[str, ...]) -> Optional[agg.Agg]:
    """The tables of EXPR when it is an aggregating variable ($hist_X,
    $count_X), read from the target; None for any other EXPR."""
    name = agg.agg_name(expr)
    if name is None:
        return None
    stray = [o for o in found if o not in allowed]
    if cond is not None or stray:
        raise gdb.GdbError("%s: %s is aggregated in the kernel, there are no frames "
                           "to select: no %s" % (cmd, expr, "if" if cond is not None
                                                  else "--" + stray[0]))
    try:
        return agg.read(_maint_send, name)
    except trace.TraceError as e:
        raise gdb.GdbError("%s: %s" % (cmd, e))


class HistCmd(gdb.Command):
    """Histogram of an expression over the trace frames.

Usage: gtp-hist EXPR [if COND] [--tp N] [--linear MIN,MAX,STEP]
       gtp-hist $hist_NAME
Evaluates EXPR in every trace frame (those where COND is true; those of
tracepoint N) and prints a power-of-two histogram, or linear buckets of
STEP from MIN to MAX.  Frames where EXPR is unavailable are shown as their
own row.  A $hist_NAME variable's histogram is read from the target as
the kernel aggregated it, while the trace runs or after."""

    def __init__(self) -> None:
        super().__init__("gtp-hist", gdb.COMMAND_TRACEPOINTS, gdb.COMPLETE_EXPRESSION)

    def invoke(self, arg: str, from_tty: bool) -> None:
        expr, cond, found = _hist_parse("gtp-hist", arg, ("tp", "linear"))
        live = _live_agg("gtp-hist", expr, cond, found, ())
        if live is not None:
            if live.kind != "h":
                raise gdb.GdbError("gtp-hist: %s counts keys: use gtp-count" % expr)
            gdb.write(agg.format_agg("gtp-hist", live))
            return
        tp = _int_opt("gtp-hist", found, "tp")
        linear = summary.linear_option(found.get("linear"),
                                       lambda why: gdb.GdbError("gtp-hist: " + why))
        col, seen = hist_collect("gtp-hist", expr, cond, tp)
        _require_numbers("gtp-hist", col)
        _hist_header("gtp-hist", expr, cond, tp, col, seen)
        gdb.write(summary.format_hist(col, linear))


class CountCmd(gdb.Command):
    """Frames per distinct value of an expression, most frequent first.

Usage: gtp-count KEYEXPR [if COND] [--tp N] [--top N]
       gtp-count $count_NAME [--top N] [--sym]
Shows the --top most frequent values (20 by default, 0 for all).  A
$count_NAME variable's counts are read from the target as the kernel
aggregated them, while the trace runs or after.  --sym shows its keys as
the kernel symbols they are addresses in (func+off, as gtp-kstack names
them): for keys such as $caller or $pc."""

    def __init__(self) -> None:
        super().__init__("gtp-count", gdb.COMMAND_TRACEPOINTS, gdb.COMPLETE_EXPRESSION)

    def invoke(self, arg: str, from_tty: bool) -> None:
        arg, sym = _flag(arg, "sym")
        expr, cond, found = _hist_parse("gtp-count", arg, ("tp", "top"))
        tp = _int_opt("gtp-count", found, "tp")
        top = _int_opt("gtp-count", found, "top")
        live = _live_agg("gtp-count", expr, cond, found, ("top",))
        if sym and live is None:
            raise gdb.GdbError("gtp-count: --sym is for the keys of a $count_NAME variable")
        if live is not None:
            if live.kind != "c":
                raise gdb.GdbError("gtp-count: %s is a histogram: use gtp-hist" % expr)
            gdb.write(agg.format_agg("gtp-count", live, 20 if top is None else (top or None),
                                     _symbol if sym else None))
            return
        col, seen = hist_collect("gtp-count", expr, cond, tp)
        _hist_header("gtp-count", expr, cond, tp, col, seen)
        gdb.write(summary.format_count(col, 20 if top is None else (top or None)))


class StatsCmd(gdb.Command):
    """count, min, max, mean, p50 and p99 of an expression over the frames.

Usage: gtp-stats EXPR [if COND] [--tp N]
Percentiles are nearest-rank; unavailable frames are counted apart."""

    def __init__(self) -> None:
        super().__init__("gtp-stats", gdb.COMMAND_TRACEPOINTS, gdb.COMPLETE_EXPRESSION)

    def invoke(self, arg: str, from_tty: bool) -> None:
        expr, cond, found = _hist_parse("gtp-stats", arg, ("tp",))
        tp = _int_opt("gtp-stats", found, "tp")
        col, seen = hist_collect("gtp-stats", expr, cond, tp)
        _require_numbers("gtp-stats", col)
        _hist_header("gtp-stats", expr, cond, tp, col, seen)
        gdb.write(summary.format_stats(col))


class StatFunction(gdb.Function):
    """$gtp_stat("EXPR", "WHAT"[, TP]): a statistic of EXPR over the frames.

WHAT is count, unavailable, min, max, mean, p50 or p99, as gtp-stats
prints them; TP restricts it to the frames of tracepoint TP.  Walks the
frames like gtp-stats (and restores the frame you were looking at)."""

    WHATS = ("count", "unavailable", "min", "max", "mean", "p50", "p99")

    def __init__(self) -> None:
        super().__init__("gtp_stat")

    def invoke(self, expr: gdb.Value, what: gdb.Value, tp: Optional[gdb.Value] = None
               ) -> gdb.Value:
        try:
            expr, what = expr.string(), what.string()
        except gdb.error:
            raise gdb.GdbError('$gtp_stat: EXPR and WHAT are strings: '
                               '$gtp_stat("count1", "p99")')
        if what not in self.WHATS:
            raise gdb.GdbError("$gtp_stat: WHAT is one of %s, not %r"
                               % (", ".join(self.WHATS), what))
        col, _ = hist_collect("$gtp_stat", expr, None,
                              None if tp is None else int(tp))
        if what not in ("count", "unavailable"):
            _require_numbers("$gtp_stat", col)
        v = summary.stats(col)[what]
        if v is None:
            raise gdb.GdbError("$gtp_stat: no available value of '%s'" % expr)
        return gdb.Value(v)


def register() -> None:
    HistCmd()
    CountCmd()
    StatsCmd()
    StatFunction()
