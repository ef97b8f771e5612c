# SPDX-License-Identifier: GPL-2.0
"""gtpctl/stream_defs.py - what /proc/gtp_stream says: its records and
the DEFS text that starts each run.

The proc file (module/stream.c; the format is in module/core/stream.h) is
a byte stream of records (DEFS, PACKET, END), each a struct
gtp_stream_rec header and its payload.  The DEFS records of a run (its
pieces, seq 0, 1, ... each whole lines; the last one's last line `end`)
hold text: the run, its clock, CPUs, buffer, trace state variables,
tracepoints and $_sdata field names.  Version 1 streams (raw files saved
by an older module) have one DEFS record and no `end` line.  A PACKET's
payload is one ring sub-buffer of one CPU: ring records, each holding one
gdb trace-file frame.
"""
from __future__ import annotations

import os
import struct

from . import abi
from .remote import open_proc
from .trace import Trace, TraceError

DEFAULT_STREAM = "/proc/gtp_stream"
# the records and their ring records, as the module writes them (abi.py)
REC = abi.STREAM_REC
MAGIC = abi.STREAM_MAGIC
DEFS, PACKET, END = abi.STREAM_DEFS, abi.STREAM_PACKET, abi.STREAM_END
FORMAT_VERSION = abi.STREAM_VERSION
# version 1 is version 2 without pieces or `end`, version 2 is version 3
# without 'r' blocks: their saved files still read
FIRST_VERSION = 1
PIECES_VERSION = 2                    # the first in DEFS pieces ending in `end`
RING_REC = abi.RING_REC
RING_DATA = abi.RING_REC_DATA
# gdb's trace file frame
FRAME_HEAD = struct.Struct("<hI")       # tracepoint number, size of the blocks
REGSIZE = 164                           # gdb's amd64 'g' block


MAX_RECORD = 1 << 30                    # a longer record means we lost sync


def check_record(origin: str, pos: int, magic: int, length: int) -> None:
    """A record header at stream byte pos: TraceError unless it is one."""
    if magic != MAGIC or length % 8 or length > MAX_RECORD:
        raise TraceError("%s: no record at stream byte %d (magic 0x%x, length %d): "
                         "not a gtp record stream, or out of sync"
                         % (origin, pos, magic, length))


def open_stream(path: str) -> int:
    """A non-blocking descriptor of the proc file, or TraceError saying
    why not."""
    return open_proc(path, os.O_RDONLY | os.O_NONBLOCK,
                     "another consumer has %s open",
                     "gtptrace.ko is not loaded or too old (no %s)")


class DefsPieces:
    """The DEFS pieces of one run, in seq order, until the last one."""

    def __init__(self, run: int, origin: str) -> None:
        self.run = run
        self.origin = origin
        self.texts = []               # the pieces' text so far

    def add(self, seq: int, payload: bytes) -> Defs | None:
        """Piece seq of the run: the run's Defs once this one ends them,
        else None."""
        if seq != len(self.texts):
            raise TraceError("%s: DEFS piece %d of run %d where piece %d was due: the stream "
                             "is out of sync" % (self.origin, seq, self.run, len(self.texts)))
        text = payload.rstrip(b"\0").decode(errors="replace")
        self.texts.append(text)
        if seq == 0 and not PIECES_VERSION <= (_version(text) or 0) <= FORMAT_VERSION:
            # version 1: one record, no `end`; any other: Defs says why not
            return Defs(text, self.origin)
        if text.endswith("\nend\n") or text == "end\n":
            return Defs("".join(self.texts), self.origin)
        return None


def _version(text: str) -> int | None:
    """The version a run's definitions start with (None: not there)."""
    first, _, _ = text.partition("\n")
    kind, _, rest = first.partition(" ")
    try:
        return int(rest) if kind == "gtp-stream" else None
    except ValueError:
        return None


class Defs:
    """A run's definitions (its DEFS records' text): the run's clock, CPUs,
    buffer, trace state variables, tracepoints (a trace.Trace without
    frames) and $_sdata field names."""

    def __init__(self, text: str, origin: str) -> None:
        self.run = self.cpus = self.clock = None
        self.version = FIRST_VERSION  # what a text without the line means
        self.buffer = {}
        self.trace = Trace(origin)
        self.sdata = {}               # tracepoint number -> [(name, size, signed)]
        for line in text.splitlines():
            try:
                self._line(line)
            except (ValueError, IndexError):
                raise TraceError("%s: malformed DEFS line %r" % (origin, line))
        if self.clock is None or self.cpus is None or self.run is None:
            raise TraceError("%s: a DEFS record without its run, clock or cpus line" % origin)

    def _line(self, line):
        kind, _, rest = line.partition(" ")
        if kind == "gtp-stream":
            if not FIRST_VERSION <= int(rest) <= FORMAT_VERSION:
                raise TraceError("stream format %s; this gtp-ctl reads %d to %d (update gtp-ctl)"
                                 % (rest, FIRST_VERSION, FORMAT_VERSION))
            self.version = int(rest)
        elif kind == "end" and not rest:
            pass                      # DefsPieces saw it: the text is whole
        elif kind == "run":
            self.run = int(rest)
        elif kind == "clock":
            self.clock = _key_values(rest)
            if self.clock.get("tsc_khz", 0) <= 0 or "tsc" not in self.clock \
                    or "real_ns" not in self.clock:
                raise ValueError(line)
        elif kind == "cpus":
            self.cpus = int(rest)
        elif kind == "buffer":
            self.buffer = _key_values(rest)
        elif kind == "tsv":
            self.trace.add_tsv(rest)
        elif kind == "tp":
            self.trace.add_piece(rest)
        elif kind == "sdata":
            num, *fields = rest.split()
            out = []
            for f in fields:
                name, size, sign = f.split(":")
                out.append((name, int(size), sign == "s"))
            self.sdata[int(num, 16)] = out


def _key_values(text):
    """"a=1 b=2" -> {"a": 1, "b": 2}"""
    return {k: int(v) for k, _, v in (f.partition("=") for f in text.split())}
