# SPDX-License-Identifier: GPL-2.0
"""Static tracepoints on kernel TRACE_EVENTs (docs/static-tracepoints.md).

  gtp-markers [REGEX]              list the markers whose SYSTEM:EVENT id
                                   matches REGEX (all ~1500 otherwise)
  gtp-strace SYSTEM:EVENT [if COND]
                                   create a static tracepoint on an event
                                   without tripping gdb's strace crash

Why gtp-strace exists: every gdb from 13 to 18 crashes in `strace` when the
target reports a marker at the probed address (the tracepoint constructor
writes the marker id into a std::string member that is not constructed
yet), and `strace -m ID` is broken in other ways.  gtp answers qTSTMat
with "no marker" except between QTinit and QTStart, so `strace *ADDR`
creates the tracepoint (with a warning gdb cannot be told to skip) and at
tstart gdb finds the marker and downloads it with the static flag.  If the
stub is ever found inside that window (a tstart that failed half-way), we
do not risk the crash: we make a plain `trace *ADDR`, which gtp also
treats as static because ADDR is a marker address.
"""
from __future__ import annotations

import re
from typing import Optional, Union

import gdb


def _marker_blocks():
    """[(id, addr, text)] from `info static-tracepoint-markers`."""
    out = gdb.execute("info static-tracepoint-markers", to_string=True)
    blocks = []
    for line in out.splitlines():
        m = re.match(r"^\d+\s+(\S+)\s+[yn]\s+(0x[0-9a-f]+)", line)
        if m:
            blocks.append([m.group(1), int(m.group(2), 16), line])
        elif blocks and line.startswith(" "):
            blocks[-1][2] += "\n" + line
    return blocks


def marker_address(ident: str) -> Optional[int]:
    for mid, addr, _ in _marker_blocks():
        if mid == ident:
            return addr
    return None


def event_ids(prefix: str = "") -> list[str]:
    """SYSTEM:EVENT ids of the running kernel's events (tracefs), for
    completion: cheap and local, unlike asking the target for markers."""
    for d in ("/sys/kernel/tracing", "/sys/kernel/debug/tracing"):
        try:
            with open(d + "/available_events") as f:
                return sorted(e for e in f.read().split() if e.startswith(prefix))
        except OSError:
            continue
    return []


def complete_event(text: str, word: Optional[str]) -> Optional[list[str]]:
    """Complete the SYSTEM:EVENT id being typed at the end of text.  gdb
    breaks words at ':', so @word is only the part after it: match the
    whole token, answer with what replaces @word."""
    if word is None:
        return None
    token = "" if text.endswith(" ") else (text.split() or [""])[-1]
    cut = len(token) - len(word)
    return [e[cut:] for e in event_ids(token)]


def _stmat_open(addr):
    """True if the stub would report a marker at addr (the unsafe window)."""
    out = gdb.execute("maint packet qTSTMat:%x" % addr, to_string=True)
    m = re.search(r'received: "(.*)"', out)
    return bool(m and m.group(1).startswith("m"))


class Markers(gdb.Command):
    """List static tracepoint markers (kernel TRACE_EVENTs).

Usage: gtp-markers [REGEX]
Shows the markers whose SYSTEM:EVENT id matches REGEX (Python syntax,
searched anywhere in the id), with their address and argument list."""

    def __init__(self) -> None:
        super().__init__("gtp-markers", gdb.COMMAND_TRACEPOINTS)

    def complete(self, text: str, word: Optional[str]) -> Union[list[str], int, None]:
        return complete_event(text, word)

    def invoke(self, arg: str, from_tty: bool) -> None:
        try:
            rx = re.compile(arg.strip())
        except re.error as e:
            raise gdb.GdbError("gtp-markers: bad regex: %s" % e)
        n = 0
        for mid, _, text in _marker_blocks():
            if rx.search(mid):
                gdb.write(text + "\n")
                n += 1
        gdb.write("%d marker%s\n" % (n, "" if n == 1 else "s"))


class Strace(gdb.Command):
    """Create a static tracepoint on a kernel TRACE_EVENT.

Usage: gtp-strace SYSTEM:EVENT [if COND]
Finds the event's marker (its __traceiter_EVENT address) and creates the
tracepoint there in a way stock gdb survives.  COND is compiled at that
address: with the module's DWARF loaded (gtp-load-module NAME) the event's
argument names work (`if counter1 > 0`), otherwise use registers: the
arguments are in $rsi, $rdx, $rcx, $r8, $r9.  Add actions as usual, e.g.
`actions` / `collect $_sdata` / `end`."""

    def __init__(self) -> None:
        super().__init__("gtp-strace", gdb.COMMAND_TRACEPOINTS)

    def complete(self, text: str, word: Optional[str]) -> Union[list[str], int, None]:
        words = text.split()
        if len(words) > 1 or (words and text.endswith(" ")):
            return gdb.COMPLETE_EXPRESSION
        return complete_event(text, word)

    def invoke(self, arg: str, from_tty: bool) -> None:
        m = re.match(r"^\s*(\S+)\s*(?:\bif\b\s*(.*))?$", arg)
        if not m or ":" not in m.group(1):
            raise gdb.GdbError("usage: gtp-strace SYSTEM:EVENT [if COND]")
        ident, cond = m.group(1), m.group(2)
        addr = marker_address(ident)
        if addr is None:
            raise gdb.GdbError("gtp-strace: no marker %s (see gtp-markers)" % ident)
        kind = "trace" if _stmat_open(addr) else "strace"
        cmd = "%s *0x%x" % (kind, addr)
        if cond:
            cmd += " if " + cond
        out = gdb.execute(cmd, from_tty=False, to_string=True)
        # The "Couldn't determine the static tracepoint marker" warning is
        # the expected effect of the gating: keep the rest.
        for line in out.splitlines():
            if "Couldn't determine the static tracepoint marker" not in line:
                gdb.write(line + "\n")
        gdb.write("gtp: %s tracepoint on %s at 0x%x\n"
                  % ("static" if kind == "strace" else "plain", ident, addr))


def register() -> None:
    Markers()
    Strace()
