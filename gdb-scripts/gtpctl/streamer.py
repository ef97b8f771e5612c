# SPDX-License-Identifier: GPL-2.0
"""gtpctl/streamer.py - the record stream, parsed as it arrives, into
one CTF trace per run (stream_ctf.RunTrace).

Reads may end anywhere: the part of a record a read ends inside waits for
the next read (missing() says how much of it is still to come).

Runs: DEFS records start each run (the target numbers them): its
definitions in pieces, seq 0, 1, ... until the one whose last line is
`end` (stream_defs.DefsPieces); any other record before that is out of
sync.  A piece 0 drops the pieces of a run whose definitions a QTStart
cut short: the target starts over with the new run's.  The first run seen
goes into DIR itself; each later one into DIR/run-N, a trace of its own
(`babeltrace2 DIR/run-N`; `babeltrace2 DIR` reads the first run only).
until_stop ends the stream when the first run has stopped and every
CPU's END record arrived (it waits for a run to start if none has), or
when a new run begins before that.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Optional

from . import ctf
from .stream_ctf import RunTrace
from .stream_defs import DEFS, END, PACKET, REC, Defs, DefsPieces, check_record
from .trace import TraceError

if TYPE_CHECKING:
    from .relay_trace import RelaySession
    from .stream_ctf import Host

class Streamer:
    """The record stream -> one RunTrace per run, and the counts the
    progress line and the summary show."""

    def __init__(self, out_dir: str, origin: str, until_stop: bool, host: Host,
                 relay: Optional[RelaySession] = None) -> None:
        self.out_dir = out_dir
        self.relay = relay            # each run's trace also goes there (--relayd)
        self.origin = origin
        self.until_stop = until_stop
        self.host = host
        self.rest = b""
        self.pos = 0                  # stream offset of self.rest
        self.runs = []                # RunTrace, oldest first
        self.current = None
        self.pieces = None            # DefsPieces of a run not yet defined
        self.done = False
        self.notes = []               # for the summary

    def feed(self, data: bytes) -> None:
        """Bytes read from the stream: handle every whole record."""
        buf = self.rest + data if self.rest else data
        o, n = 0, len(buf)
        while n - o >= REC.size and not self.done:
            magic, typ, cpu, ln, run, tsb, tse, seq, lost = REC.unpack_from(buf, o)
            check_record(self.origin, self.pos + o, magic, ln)
            if n - o - REC.size < ln:
                break
            p = o + REC.size
            self._record(typ, cpu, run, tsb, tse, seq, lost, buf, p, p + ln)
            o = p + ln
        self.pos += o
        self.rest = buf[o:] if not self.done else b""

    def missing(self) -> int:
        """Bytes still to read to end the record begun in the last read."""
        r = self.rest
        if not r or self.done:
            return 0
        if len(r) < REC.size:
            return REC.size - len(r)
        return REC.size + REC.unpack_from(r)[3] - len(r)

    def _record(self, typ, cpu, run, tsb, tse, seq, lost, buf, start, end):
        if typ == DEFS:
            self._defs(run, seq, tsb, bytes(buf[start:end]))
            return
        cur = self.current
        if self.pieces is not None:
            raise TraceError("%s: a record of run %d before the end of the DEFS of run %d: "
                             "the stream is out of sync" % (self.origin, run, self.pieces.run))
        if cur is None or run != cur.run:
            raise TraceError("%s: a record of run %d %s: the stream is out of sync"
                             % (self.origin, run, "without its DEFS" if cur is None
                                else "inside run %d" % cur.run))
        if typ == PACKET:
            cur.packet(cpu, tsb, tse, lost, buf, start, end)
        elif typ == END:
            cur.end(cpu, lost)
            if cur.complete():
                cur.close()
                self.current = None
                if self.until_stop:
                    self.done = True
        # other types: a newer target's records, skipped

    def _defs(self, run, seq, ts_begin, payload):
        if seq == 0:
            self.pieces = DefsPieces(run, self.origin)
        elif self.pieces is None or self.pieces.run != run:
            raise TraceError("%s: DEFS piece %d of run %d without its first: the stream is "
                             "out of sync" % (self.origin, seq, run))
        defs = self.pieces.add(seq, payload)
        if defs is None:
            return
        self.pieces = None
        self._run_defined(run, ts_begin, defs)

    def _run_defined(self, run: int, ts_begin: int, defs: Defs) -> None:
        if defs.run != run:
            raise TraceError("%s: the DEFS record of run %d says run %d"
                             % (self.origin, run, defs.run))
        if self.current is not None:
            if self.current.run == run:
                return
            self.notes.append("run %d was restarted (run %d) before all its CPUs ended"
                              % (self.current.run, run))
            self.current.close()
            self.current = None
        if self.until_stop and self.runs:
            self.done = True
            return
        path = self.out_dir if not self.runs else os.path.join(self.out_dir, "run-%d" % defs.run)
        if self.runs:
            prepare_dir(path, force=True)
        rt = RunTrace(defs, path, self.host,
                      self.relay.trace(defs.run) if self.relay is not None else None)
        rt.start_ts = ts_begin
        self.runs.append(rt)
        self.current = rt

    # -- counts ------------------------------------------------------------
    def events(self) -> int:
        return sum(r.events for r in self.runs)

    def bytes_written(self) -> int:
        return sum(r.ctf.bytes_written for r in self.runs)

    def lost_per_cpu(self) -> dict[int, int]:
        out = {}
        for r in self.runs:
            for cpu, n in r.lost.items():
                out[cpu] = out.get(cpu, 0) + n
        return out

    def cpus(self) -> set[int]:
        return {cpu for r in self.runs for cpu in r.ctf.streams}

    def flush(self) -> None:
        if self.current is not None:
            self.current.flush()

    def close(self) -> None:
        if self.current is not None:
            self.current.close()
            self.current = None


def prepare_dir(path: str, force: bool) -> bool:
    """Create path, or make sure it holds nothing we would mix with.
    True if we created it."""
    try:
        names = os.listdir(path)
    except FileNotFoundError:
        try:
            os.makedirs(path)
        except OSError as e:
            raise TraceError("cannot create %s: %s" % (path, e.strerror or e))
        return True
    except NotADirectoryError:
        raise TraceError("%s exists and is not a directory" % path)
    except OSError as e:
        raise TraceError("cannot read %s: %s" % (path, e.strerror or e))
    if names and not force:
        raise TraceError("%s exists and is not empty (give --force to write "
                         "over a trace there)" % path)
    ctf.clear(path)
    for n in names:
        sub = os.path.join(path, n)
        if n.startswith("run-") and os.path.isdir(sub):
            ctf.clear(sub)
    return False
