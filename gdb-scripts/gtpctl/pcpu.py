# SPDX-License-Identifier: GPL-2.0
"""gtpctl/pcpu.py - a per-CPU trace state variable's values, CPU by CPU.

A variable named $p_NAME has one value per CPU on the target
(module/core/tsv.c): a hit reads and sets its own CPU's, and gdb's
`print $p_NAME` (qTV) shows their sum.  The qGtpPcpu packet
(module/core/tsv_packets.c) gives each CPU's, in pages: "p;CPU=VALUE;...;l"
(or ";m": ask again from the CPU after the last one).  gtp-percpu
(gtpgdb/percpu.py) prints them.
"""
from __future__ import annotations

import re
from typing import Callable, List, Optional, Tuple

from .agg import tsv_number
from .trace import TraceError

Send = Callable[[str], str]

NAME_RE = re.compile(r"^\$(p_\w+)$")

# qGtpPcpu's error replies (module/core/tsv_packets.c)
_ERRORS = {
    "E01": "malformed request",
    "E02": "no such trace state variable on the target (tstart downloads them)",
    "E03": "not a per-CPU variable (name it $p_NAME)",
}


def pcpu_name(expr: str) -> Optional[str]:
    """"$p_calls" -> "p_calls"; None when expr is not such a name."""
    m = NAME_RE.match(expr.strip())
    return m.group(1) if m else None


def _shex(text: str) -> int:
    return -int(text[1:], 16) if text.startswith("-") else int(text, 16)


def _parse(name: str, reply: str) -> Tuple[List[Tuple[int, int]], bool]:
    """One reply's (cpu, value) pairs, and whether more follow."""
    if reply in _ERRORS:
        raise TraceError("qGtpPcpu for $%s: %s (%s)" % (name, _ERRORS[reply], reply))
    fields = reply.split(";")
    if len(fields) < 2 or fields[0] != "p" or fields[-1] not in ("l", "m"):
        raise TraceError("qGtpPcpu for $%s: unexpected reply %r" % (name, reply[:80]))
    vals = []
    for f in fields[1:-1]:
        cpu, _, v = f.partition("=")
        vals.append((int(cpu, 16), _shex(v)))
    return vals, fields[-1] == "m"


def read(send: Send, name: str) -> List[Tuple[int, int]]:
    """Variable $name's (cpu, value) for every CPU, every page of them."""
    num = tsv_number(send, name)
    vals: List[Tuple[int, int]] = []
    pkt = "qGtpPcpu:%x" % num
    while True:
        page, more = _parse(name, send(pkt))
        vals += page
        if not more:
            return vals
        if not page:
            raise TraceError("qGtpPcpu for $%s: an empty page says more follow" % name)
        pkt = "qGtpPcpu:%x:%x" % (num, page[-1][0] + 1)


def format_pcpu(name: str, vals: List[Tuple[int, int]]) -> str:
    """The sum, then one line per CPU, as gtp-percpu prints them."""
    total = sum(v for _, v in vals)
    out = ["gtp-percpu $%s: %d on %d CPU(s)" % (name, total, len(vals))]
    out += ["cpu %d: %d" % (cpu, v) for cpu, v in vals]
    return "\n".join(out) + "\n"
