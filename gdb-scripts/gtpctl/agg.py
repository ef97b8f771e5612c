# SPDX-License-Identifier: GPL-2.0
"""gtpctl/agg.py - aggregating trace state variables, read live.

A trace state variable named $hist_NAME or $count_NAME is aggregated in
the kernel (module/core/agg.c): every `teval $hist_NAME = VALUE` adds
VALUE to a per-CPU log2 histogram, every `teval $count_NAME = KEY` counts
KEY, and no frame is written.  The qGtpAgg packet reads the tables merged
over the CPUs, while the trace runs or after tstop (until the next
tstart/QTinit); docs/histograms.md, "In-kernel aggregation".

Pure Python over a `send(packet) -> reply` callable, shared by gdb's
gtp-hist/gtp-count (through `maint packet`, gtpgdb/hist.py) and
`gtp-ctl agg` (remote.Remote.send); both print summary.py's layout.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Optional

from . import summary
from .trace import TraceError

Send = Callable[[str], str]
KeyText = Callable[[int], str]

PREFIXES = ("hist_", "count_")
NAME_RE = re.compile(r"^\$((?:hist|count)_\w+)$")

# qGtpAgg's error replies (module/core/tsv_packets.c)
_ERRORS = {
    "E01": "malformed request",
    "E02": "no such trace state variable on the target (tstart downloads them)",
    "E03": "not an aggregating variable",
    "E04": "the target is out of memory",
}


@dataclass
class Agg:
    """One aggregating variable's merged tables."""
    name: str                   # without '$'
    kind: str                   # "h" histogram, "c" count table
    n: int = 0                  # values added (overflowed ones included)
    sum: int = 0
    min: int = 0
    max: int = 0
    overflow: int = 0           # count table: keys that found it full
    nkeys: int = 0
    counts: dict[int, int] = field(default_factory=dict)   # bucket/key -> n


def agg_name(expr: str) -> Optional[str]:
    """"$hist_lat" -> "hist_lat"; None when expr is not such a name."""
    m = NAME_RE.match(expr.strip())
    return m.group(1) if m else None


def _shex(text: str) -> int:
    return -int(text[1:], 16) if text.startswith("-") else int(text, 16)


def tsv_number(send: Send, name: str) -> int:
    """The target's number of variable $name (qTfV/qTsV)."""
    r = send("qTfV")
    while r and r != "l":
        if r.startswith("E"):
            raise TraceError("qTfV answered %s" % r)
        parts = r.split(":")
        if len(parts) == 4 and bytes.fromhex(parts[3]).decode(errors="replace") == name:
            return int(parts[0], 16)
        r = send("qTsV")
    raise TraceError("the target has no trace state variable $%s (define it with "
                     "tvariable, then tstart)" % name)


def _parse(reply: str, agg: Agg) -> tuple[Optional[int], bool]:
    """Fill agg from one qGtpAgg reply; (its last key, more follow)."""
    if reply in _ERRORS:
        raise TraceError("qGtpAgg for $%s: %s (%s)" % (agg.name, _ERRORS[reply], reply))
    fields = reply.split(";")
    if len(fields) < 2 or fields[0] not in ("h", "c") or fields[-1] not in ("l", "m"):
        raise TraceError("qGtpAgg for $%s: unexpected reply %r" % (agg.name, reply[:80]))
    agg.kind = fields[0]
    last = None
    for f in fields[1:-1]:
        if ":" in f:
            k, v = f.split(":", 1)
            if k == "keys":
                agg.nkeys = int(v, 16)
            elif k in ("n", "over"):
                setattr(agg, "overflow" if k == "over" else "n", int(v, 16))
            elif k in ("sum", "min", "max"):
                setattr(agg, k, _shex(v))
        else:
            k, v = f.split("=", 1)
            last = _shex(k)
            agg.counts[last] = agg.counts.get(last, 0) + int(v, 16)
    return last, fields[-1] == "m"


def read(send: Send, name: str) -> Agg:
    """Variable $name's tables, every page of them."""
    num = tsv_number(send, name)
    agg = Agg(name=name, kind="")
    pkt = "qGtpAgg:%x" % num
    while True:
        last, more = _parse(send(pkt), agg)
        if not more:
            return agg
        if last is None:
            raise TraceError("qGtpAgg for $%s: a page with no key says more follow" % name)
        pkt = "qGtpAgg:%x:%s%x" % (num, "-" if last < 0 else "", abs(last))


def address(key: int) -> int:
    """A count table's key as the kernel address it was: keys are signed
    64-bit, so a kernel address ($caller, $pc) comes back negative."""
    return key & ((1 << 64) - 1)


def format_agg(cmd: str, agg: Agg, top: Optional[int] = 20,
               key_text: Optional[KeyText] = None) -> str:
    """The header line and table, as gtp-hist/gtp-count print them;
    key_text names a count table's keys (--sym: kernel symbols)."""
    if agg.kind == "h":
        head = "%s $%s: %d value(s) aggregated in the kernel" % (cmd, agg.name, agg.n)
        if agg.n:
            head += ", sum %d, min %d, max %d" % (agg.sum, agg.min, agg.max)
        return head + "\n" + summary.format_bucket_counts(agg.counts)
    head = "%s $%s: %d value(s) aggregated in the kernel, %d overflowed" % (
        cmd, agg.name, agg.n, agg.overflow)
    if agg.overflow:
        head += " (a CPU's table was full: at most 1024 keys per CPU)"
    return head + "\n" + summary.format_key_counts(agg.counts, top, agg.n, agg.overflow,
                                                   key_text)
