# SPDX-License-Identifier: GPL-2.0
"""gtpctl/copier.py - the stream consumer's hot path: records are moved,
never decoded.

The probes write faster than any per-event conversion in Python keeps up
with (the CTF conversion saturates at tens of thousands of events a second
in the guest, a burst arrives several times faster).  So the process that
reads /proc/gtp_stream only copies what it reads to a spool file, and a
second process (streamer.py, at a lower priority) converts the spool to CTF
and may fall behind without costing an event: what it has not converted yet
is on disk, not in the ring.  LTTng's consumer daemon works the same way.

The copier looks at record headers only (one per sub-buffer, not one per
event), to know where records end (a read may end anywhere, and --duration
or Ctrl-C stop at a record boundary) and when the first run is over
(--until-stop: every CPU's END came, or a newer run's DEFS did).
"""
from __future__ import annotations

import re

from .stream_defs import DEFS, END, REC, check_record

_CPUS = re.compile(rb"(?:^|\n)cpus (\d+)\n")


class Copier:
    """Follows the record boundaries of the bytes that go through it.

    take(data) gives the bytes to write: data, less a record header that
    the read split (held back until its end comes, so the spool never ends
    inside a header) and, with until_stop, less what follows the first run.
    """

    def __init__(self, origin: str, until_stop: bool) -> None:
        self.origin = origin
        self.until_stop = until_stop
        self.pos = 0                  # stream offset of the next byte read
        self.head = b""               # a header split by a read, not written yet
        self.left = 0                 # payload bytes of the current record to come
        self.defs = b""               # the current DEFS record's payload so far
        self.in_defs = False
        self.run = None               # the first run (until_stop)
        self.cpus = None
        self.ended = set()
        self.done = False

    def missing(self) -> int:
        """Bytes still to read to end the record a read ended inside."""
        if self.head:
            return REC.size - len(self.head)
        return self.left

    def take(self, data: bytes) -> list:
        """Walk the headers in data; the pieces of it to write, in order."""
        out = []
        o, n, kept = 0, len(data), 0
        while o < n and not self.done:
            if self.left:
                step = min(self.left, n - o)
                if self.in_defs:
                    self.defs += data[o:o + step]
                self.left -= step
                o += step
                if not self.left and self.in_defs:
                    self._defs_done()
                continue
            need = REC.size - len(self.head)
            if n - o < need:                # hold the partial header back
                if o > kept:
                    out.append(data[kept:o])
                self.head += data[o:]
                o = kept = n
                break
            held = self.head
            hdr = held + data[o:o + need] if held else data[o:o + need]
            magic, typ, cpu, ln, run = REC.unpack_from(hdr)[:5]
            check_record(self.origin, self.pos + o - len(held), magic, ln)
            self.head = b""
            if self.until_stop and self._stops_before(run):
                self.done = True
                break
            if held:                        # its start was held back: write it now
                out.append(held)
                kept = o
            o += need
            self.left = ln
            self.in_defs = typ == DEFS
            self.defs = b""
            if typ == END:
                self.ended.add(cpu)
            if not ln and self.in_defs:
                self._defs_done()
            if self.until_stop and self.cpus is not None and len(self.ended) >= self.cpus:
                self.done = not self.left
        if o > kept:
            out.append(data[kept:o])
        self.pos += n
        return out

    def _stops_before(self, run: int) -> bool:
        """until_stop: a record of a later run ends the stream before it."""
        if self.run is None:
            self.run = run
        return run != self.run

    def _defs_done(self) -> None:
        self.in_defs = False
        m = _CPUS.search(self.defs)
        if m and self.cpus is None:
            self.cpus = int(m.group(1))
        self.defs = b""
