# SPDX-License-Identifier: GPL-2.0
"""gtpctl/summary.py - histograms, per-key counts and statistics.

Pure Python, shared by gdb's gtp-hist/gtp-count/gtp-stats (gtpgdb/hist.py)
and by `gtp-ctl hist/count/stats`, so both print the same layout.

Values are fed one frame at a time: add(value) or add(UNAVAILABLE) for a
frame where the expression could not be evaluated (memory or registers the
tracepoint did not collect).  Unavailable frames are counted and shown as
their own row, never dropped.

Power-of-two buckets are bpftrace's hist(): (..., 0) for negatives, [0],
[1], then [2^k, 2^(k+1)) for k >= 1, labelled with K/M/G/T/P/E suffixes
for multiples of 1024 ("[256, 512)", "[1K, 2K)").  Linear buckets are
lhist(MIN, MAX, STEP): (..., MIN), [MIN, MIN+STEP), ..., [MAX, ...).
Percentiles use the nearest-rank method: pN is the smallest value with at
least N% of the values at or below it.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Iterable, Optional, Sequence, Tuple, Union

Number = Union[int, float]
Range = Tuple[Optional[Number], Optional[Number]]   # [lo, hi), None: open

UNAVAILABLE = object()
BAR_WIDTH = 52
UNAVAILABLE_LABEL = "<unavailable>"


def _suffix(v):
    """1024 -> "1K", 3 -> "3": bpftrace's hist label numbers."""
    for i, s in reversed(list(enumerate(("", "K", "M", "G", "T", "P", "E")))):
        if i and v % (1 << (10 * i)) == 0:
            return "%d%s" % (v >> (10 * i), s)
    return "%d" % v


def log2_bucket(v: int) -> int:
    """Bucket index of an integer value: -1 negative, 0 for 0, 1 for 1,
    k+1 for [2^k, 2^(k+1))."""
    if v < 0:
        return -1
    if v == 0:
        return 0
    return int(v).bit_length()


def log2_label(b: int) -> str:
    if b == -1:
        return "(..., 0)"
    if b == 0:
        return "[0]"
    if b == 1:
        return "[1]"
    lo = 1 << (b - 1)
    return "[%s, %s)" % (_suffix(lo), _suffix(lo * 2))


def log2_range(b: int) -> Range:
    """[lo, hi) of bucket b (None for an open end)."""
    if b == -1:
        return (None, 0)
    if b == 0:
        return (0, 1)
    return (1 << (b - 1), 1 << b)


class Linear:
    """lhist(MIN, MAX, STEP) bucketing."""

    def __init__(self, lo: Number, hi: Number, step: Number) -> None:
        if step <= 0 or hi <= lo:
            raise ValueError("--linear MIN,MAX,STEP needs MIN < MAX and STEP > 0")
        if (hi - lo) / step > 10000:
            raise ValueError("--linear: more than 10000 buckets")
        self.lo, self.hi, self.step = lo, hi, step

    def bucket(self, v: Number) -> int:
        if v < self.lo:
            return -1
        if v >= self.hi:
            return int(math.ceil((self.hi - self.lo) / self.step))
        return int((v - self.lo) // self.step)

    def label(self, b: int) -> str:
        last = int(math.ceil((self.hi - self.lo) / self.step))
        if b == -1:
            return "(..., %s)" % _num(self.lo)
        if b >= last:
            return "[%s, ...)" % _num(self.hi)
        lo = self.lo + b * self.step
        return "[%s, %s)" % (_num(lo), _num(min(lo + self.step, self.hi)))

    def range(self, b: int) -> Range:
        last = int(math.ceil((self.hi - self.lo) / self.step))
        if b == -1:
            return (None, self.lo)
        if b >= last:
            return (self.hi, None)
        lo = self.lo + b * self.step
        return (lo, min(lo + self.step, self.hi))


def _num(v):
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return str(v)


def parse_linear(text: str) -> Linear:
    """"MIN,MAX,STEP" -> Linear; ValueError with the reason."""
    parts = text.split(",")
    if len(parts) != 3:
        raise ValueError("--linear wants MIN,MAX,STEP, got %r" % text)
    try:
        nums = [int(p, 0) for p in parts]
    except ValueError:
        try:
            nums = [float(p) for p in parts]
        except ValueError:
            raise ValueError("--linear wants three numbers, got %r" % text)
    return Linear(*nums)


def linear_option(text: Optional[str], error: Callable[[str], Any]) -> Optional[Linear]:
    """An optional --linear MIN,MAX,STEP: None when not given; a bad value
    raises error(reason) (each front end's own exception)."""
    if not text:
        return None
    try:
        return parse_linear(text)
    except ValueError as e:
        raise error(str(e))


class Collector:
    """Values of one expression over the frames."""

    def __init__(self) -> None:
        self.values = []
        self.unavailable = 0

    def add(self, v: Any) -> None:
        if v is UNAVAILABLE:
            self.unavailable += 1
        else:
            self.values.append(v)

    @property
    def total(self) -> int:
        return len(self.values) + self.unavailable


def _bar(n, peak):
    if peak <= 0:
        return " " * BAR_WIDTH
    k = int(n * BAR_WIDTH // peak)
    return "@" * k + " " * (BAR_WIDTH - k)


def _table(rows):
    """rows [(label, count)] -> bpftrace-style lines with bars."""
    if not rows:
        return []
    peak = max(n for _, n in rows)
    lw = max(len(l) for l, _ in rows)
    cw = max(8, max(len(str(n)) for _, n in rows))
    return ["%-*s %*d |%s|" % (lw, l, cw, n, _bar(n, peak)) for l, n in rows]


def hist_buckets(values: Iterable[Number], linear: Optional[Linear] = None) -> dict[int, int]:
    """{bucket: count} of numeric values."""
    counts = {}
    for v in values:
        if isinstance(v, float) and not linear:
            b = log2_bucket(int(math.floor(v))) if v >= 0 else -1
        else:
            b = linear.bucket(v) if linear else log2_bucket(v)
        counts[b] = counts.get(b, 0) + 1
    return counts


def hist_rows(col: Collector, linear: Optional[Linear] = None
              ) -> list[tuple[str, int, Range]]:
    """[(label, count, (lo, hi))] from the first to the last non-empty
    bucket (empty ones between are shown, as bpftrace does)."""
    return bucket_rows(hist_buckets(col.values, linear), linear)


def bucket_rows(counts: dict[int, int], linear: Optional[Linear] = None
                ) -> list[tuple[str, int, Range]]:
    """hist_rows() of counts already bucketed ({bucket: count})."""
    rows = []
    if counts:
        lo, hi = min(counts), max(counts)
        for b in range(lo, hi + 1):
            label = linear.label(b) if linear else log2_label(b)
            rng = linear.range(b) if linear else log2_range(b)
            rows.append((label, counts.get(b, 0), rng))
    return rows


def format_hist(col: Collector, linear: Optional[Linear] = None,
                title: Optional[str] = None) -> str:
    rows = [(l, n) for l, n, _ in hist_rows(col, linear)]
    if col.unavailable:
        rows.append((UNAVAILABLE_LABEL, col.unavailable))
    out = ["@%s:" % (title or "")] if title is not None else []
    return "\n".join(out + _table(rows)) + "\n"


def format_bucket_counts(counts: dict[int, int]) -> str:
    """format_hist() of log2 buckets counted elsewhere (the kernel's
    $hist_ variables, agg.py): {log2_bucket(): count}."""
    rows = [(l, n) for l, n, _ in bucket_rows(counts)]
    return "\n".join(_table(rows)) + "\n"


def _key_text(k):
    return k if isinstance(k, str) else str(k)


def count_rows(col: Collector, top: Optional[int] = None
               ) -> tuple[list[tuple[Any, int]], list[tuple[Any, int]]]:
    """[(key, count)] most frequent first, ties by key; (rows, others)."""
    counts = {}
    for v in col.values:
        counts[v] = counts.get(v, 0) + 1
    return order_counts(counts, top)


def order_counts(counts: dict[Any, int], top: Optional[int] = None
                 ) -> tuple[list[tuple[Any, int]], list[tuple[Any, int]]]:
    """count_rows() of keys counted elsewhere ({key: count})."""
    order = sorted(counts.items(), key=lambda kv: (-kv[1], _sort_key(kv[0])))
    if top is not None and len(order) > top:
        return order[:top], order[top:]
    return order, []


def _sort_key(k):
    if isinstance(k, (int, float)):
        return (0, k, "")
    return (1, 0, str(k))


def format_count(col: Collector, top: Optional[int] = None, title: Optional[str] = None) -> str:
    rows, rest = count_rows(col, top)
    table = [("[%s]" % _key_text(k), n) for k, n in rows]
    if col.unavailable:
        table.append((UNAVAILABLE_LABEL, col.unavailable))
    lines = ["@%s:" % (title or "")] if title is not None else []
    lines += _table(table)
    if rest:
        lines.append("... %d more key(s) with %d frame(s) not shown (--top)"
                     % (len(rest), sum(n for _, n in rest)))
    lines.append("%d distinct key(s), %d frame(s)" % (len(rows) + len(rest), col.total))
    return "\n".join(lines) + "\n"


OVERFLOW_LABEL = "<overflow>"


def format_key_counts(counts: dict[Any, int], top: Optional[int], total: int,
                      overflow: int = 0,
                      key_text: Optional[Callable[[Any], str]] = None) -> str:
    """format_count() of keys counted elsewhere (the kernel's $count_
    variables, agg.py); values whose key found the table full are their
    own row, never dropped.  key_text names a key (a symbol for an
    address) instead of its number."""
    rows, rest = order_counts(counts, top)
    table = [("[%s]" % (key_text or _key_text)(k), n) for k, n in rows]
    if overflow:
        table.append((OVERFLOW_LABEL, overflow))
    lines = _table(table)
    if rest:
        lines.append("... %d more key(s) with %d value(s) not shown (--top)"
                     % (len(rest), sum(n for _, n in rest)))
    lines.append("%d distinct key(s), %d value(s)" % (len(rows) + len(rest), total))
    return "\n".join(lines) + "\n"


def percentile(sorted_values: Sequence[Number], p: float) -> Optional[Number]:
    """Nearest rank: the smallest value with at least p% at or below it."""
    n = len(sorted_values)
    if not n:
        return None
    rank = max(1, int(math.ceil(p * n / 100.0)))
    return sorted_values[rank - 1]


def stats(col: Collector) -> dict[str, Any]:
    """dict count/unavailable/min/max/mean/p50/p99 (None when no values)."""
    vs = sorted(col.values)
    n = len(vs)
    return {
        "count": n,
        "unavailable": col.unavailable,
        "min": vs[0] if n else None,
        "max": vs[-1] if n else None,
        "mean": (sum(vs) / n) if n else None,
        "p50": percentile(vs, 50),
        "p99": percentile(vs, 99),
    }


def format_stats(col: Collector, title: Optional[str] = None) -> str:
    s = stats(col)
    lines = ["@%s:" % (title or "")] if title is not None else []
    for k in ("count", "unavailable", "min", "max", "mean", "p50", "p99"):
        v = s[k]
        if v is None:
            v = "-"
        elif k == "mean":
            v = "%.2f" % v
        lines.append("%-12s %s" % (k, v))
    return "\n".join(lines) + "\n"
