# SPDX-License-Identifier: GPL-2.0
"""What an earlier session left on the target, for gtp-connect.

gtp keeps the tracepoints, trace state variables and frames of a session
after its gdb goes (detached, quit, or died on an error), and on connect
gdb uploads them (qTfV, qTfP) and re-creates each tracepoint from its
source strings.  One it cannot re-create fails the whole `target remote`,
and so every later connect: a tstart that failed part-way (gdb refused to
translate one tracepoint) has already sent the tracepoints before it, but
not the trace state variables, which gdb sends after the last tracepoint;
the next gdb then reads `collect $current_task_pid` with no such variable
and refuses it as a convenience variable.

So gtp-connect first reads the target on a short connection of its own
(gtp-ctl's client, gtpctl/remote.py: status, variables and definitions,
nothing that changes them; closing it does to a trace what any gdb's
closing does, and the previous connection's closing already did it),
declares in gdb the built-in variables those definitions use and the
target lacks, and after connecting says what it found and how to keep or
discard it.  Names here are the target's: its tracepoint numbers, its
source strings.
"""
from __future__ import annotations

import re
from typing import List, Optional

import gdb

from gtpctl import abi, remote
from gtpctl.trace import Trace, TraceError, status_number

from . import collectable

# what the qTStatus stop reasons mean for the user (gtp-ctl status words
# them alike)
_REASONS = {
    "tnotrun": "not started (its tstart did not complete)",
    "tstop": "stopped",
    "tfull": "stopped: the buffer filled up",
    "tdisconnected": "stopped when its gdb went",
    "tpasscount": "stopped: a tracepoint reached its pass count",
    "terror": "stopped by an error",
}

_VAR = re.compile(r"\$([A-Za-z_]\w*)")
_TVAR_ROW = re.compile(r"^\$(\w+)\s")
# gdb's words when an uploaded action names a variable the target lacks
NOT_A_TSV = re.compile(r"^\$(\w+) is not a trace state variable", re.M)
# A peek must not hang gtp-connect for long (gtp answers at once, but a
# debug kernel under TCG is slow).
PEEK_TIMEOUT = 30.0


class Found:
    """The target's state as gtp-connect read it before connecting."""

    def __init__(self, trace: Trace, running: bool) -> None:
        self.running = running
        self.status = trace.status
        self.frames = status_number(trace.status, "tframes")
        self.tsvs = sorted(trace.tsvs.values())
        self.tracepoints = [trace.tracepoints[n] for n in sorted(trace.tracepoints)]

    def empty(self) -> bool:
        return not (self.running or self.frames or self.tsvs or self.tracepoints)

    def names_used(self) -> List[str]:
        """Every $NAME in the tracepoints' conditions and actions, once."""
        seen: List[str] = []
        for tp in self.tracepoints:
            for text in [tp.cond or ""] + tp.commands:
                for name in _VAR.findall(text):
                    if name not in seen:
                        seen.append(name)
        return seen

    def state(self) -> str:
        if self.running:
            return "running (disconnected tracing)"
        for key, why in _REASONS.items():
            if key in self.status:
                return why
        return "stopped"


def peek(path: str) -> Optional[Found]:
    """The target at path as it is now, or None when it cannot be read
    (busy, missing, not gtp): then `target remote` says why itself."""
    try:
        with remote.Remote(path, timeout=PEEK_TIMEOUT) as rem:
            st = rem.send("qTStatus")
            if not st.startswith("T"):
                return None
            tr = Trace(path)
            tr.add_status(st[1:])
            for v in remote.list_pieces(rem, "qTfV", "qTsV"):
                tr.add_tsv(v)
            for p in remote.list_pieces(rem, "qTfP", "qTsP"):
                tr.add_piece(p)
            return Found(tr, st.startswith("T1"))
    except (TraceError, OSError, ValueError):
        return None


def gdb_tvariables() -> List[str]:
    """The trace state variables gdb has (names without '$')."""
    out = gdb.execute("info tvariables", to_string=True)
    return [m.group(1) for m in map(_TVAR_ROW.match, out.splitlines()) if m]


def gdb_tracepoints() -> List[int]:
    return [tp.number for tp in collectable.tracepoints()]


def builtins_to_declare(found: Found) -> List[str]:
    """gtp's built-in variables the found definitions use that neither the
    target nor gdb defines: on gtp those names are trace state variables,
    so that is what the session that wrote them meant.  The knobs are left
    out: declared, their initial value (0) would set the next run's CPU
    budget."""
    have = set(found.tsvs) | set(gdb_tvariables())
    return [n for n in found.names_used()
            if abi.builtin_tsv(n) and n not in abi.BUILTIN_KNOBS and n not in have]


def declare(name: str) -> None:
    gdb.execute("tvariable $%s" % name, to_string=True)


def undo(tps_before: List[int], tsvs_before: List[str]) -> None:
    """Delete the tracepoints and trace state variables gdb has now and did
    not have before: what a failed connect half made (gdb creates each
    uploaded tracepoint, then checks its actions, and keeps it when they
    fail) and what gtp-connect declared for it."""
    for n in gdb_tracepoints():
        if n not in tps_before:
            gdb.execute("delete %d" % n, to_string=True)
    for name in gdb_tvariables():
        if name not in tsvs_before:
            gdb.execute("delete tvariable $%s" % name, to_string=True)


def _count(n: int, what: str) -> str:
    return "%d %s%s" % (n, what, "" if n == 1 else "s")


def _describe(found: Found) -> List[str]:
    lines = ["the target holds what an earlier session left: the trace is %s, %s, %s"
             % (found.state(), _count(found.frames, "frame"),
                _count(len(found.tracepoints), "tracepoint"))]
    for tp in found.tracepoints:
        where = tp.at or "*0x%x" % tp.addr
        lines.append("  tracepoint %d at %s%s%s" % (
            tp.number, where, " if %s" % tp.cond if tp.cond else "",
            "" if tp.enabled else " (disabled)"))
        for c in tp.commands:
            lines.append("    " + c)
        if tp.actions and not tp.commands:
            lines.append("    (%s without source text)" % _count(len(tp.actions), "action"))
    if found.tsvs:
        lines.append("  trace state variables: %s" % ", ".join("$" + n for n in found.tsvs))
    return lines


def report(found: Optional[Found], taken: Optional[List[int]], declared: List[str],
           why: Optional[str]) -> None:
    """Say what was found and how to keep or discard it.  taken: gdb's
    numbers of the tracepoints it re-created (None: it could not, why says
    why); declared: the variables gtp-connect declared for them."""
    lines = _describe(found) if found else [
        "the target holds definitions of an earlier session"]
    n = len(found.tracepoints) if found else 2
    it = "it" if n == 1 else "them"
    stop = "tstop, then " if found is None or found.running else ""
    if taken is None:
        lines.append("gdb could not take %s (%s): this gdb does not know %s, and %s "
                     "on the target until a tstart replaces %s"
                     % (it, why, it, "it stays" if n == 1 else "they stay", it))
        lines.append("to keep %s: give gdb what it lacked, then disconnect and "
                     "gtp-connect again" % it)
        lines.append("to discard %s: %sdefine your tracepoints: your tstart "
                     "replaces %s and the frames on the target" % (it, stop, it))
    elif n:
        if declared:
            lines.append("declared %s (tvariable): gtp's built-in variables %s uses, "
                         "which its session had not sent to the target"
                         % (", ".join("$" + v for v in declared),
                            "it" if n == 1 else "they"))
        nums = " ".join(str(t) for t in taken)
        lines.append("gdb took %s: %s (info tracepoints)" % (
            it, ("tracepoint%s %s" % ("" if len(taken) == 1 else "s", nums))
            if taken else "as tracepoints it had"))
        lines.append("to keep %s: %s; tfind and tdump read the frames there "
                     "until tstart begins a new run"
                     % (it, "tstop stops the trace" if found.running
                        else "tstart runs %s again" % it))
        lines.append("to discard %s: %sdelete tracepoints%s, then define yours: "
                     "your tstart replaces %s and the frames on the target"
                     % (it, stop, " " + nums if taken else "", it))
    else:
        lines.append("to discard it: your tstart replaces it on the target")
    for line in lines:
        gdb.write("gtp: %s\n" % line)


def packet_setting() -> str:
    """`set remote trace-status-packet`'s value now (auto, on, off)."""
    out = gdb.execute("show remote trace-status-packet", to_string=True)
    m = re.search(r'is "(\w+)"', out)
    return m.group(1) if m else "auto"

