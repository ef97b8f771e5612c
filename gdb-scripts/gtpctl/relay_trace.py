# SPDX-License-Identifier: GPL-2.0
"""gtpctl/relay_trace.py - the CTF traces gtp-ctl stream writes, sent to
an LTTng relay daemon as they are written (`--relayd`).

RelaySession is one live session on relayd (relayd.py speaks the
protocol), named after the traced host and --session; each run's CTF
trace (ctf.Trace) gets a RelayTrace as its tap, which sees the same bytes
the trace writes to disk: the metadata text, appended to as event classes
come (relayd's metadata stream is append-only, so only what was added is
sent), and each packet, sent on the data connection and followed by its
index (offset and sizes, timestamps, discarded events, sequence number)
on the control one, which is what lets a live viewer find packets as
they arrive.  A CPU's stream is added with its first packet, as the local
trace's stream file is created, so no stream is ever empty.

No live beacons (an index of packet size 0 saying a stream has nothing
up to a time) are sent.  A viewer takes a stream's beacon as leave to go
on with the other streams past that time, and a CPU's next sub-buffer
may hold events older than the other CPUs' newer packets: between its
sub-buffers gtp-ctl knows nothing of a CPU (the ring has no timer that
would hand out a partial one), so it cannot promise a time.  Without
beacons relayd tells a viewer to retry, and it shows an event once every
CPU's stream has a later packet or has ended
(tests/relayd: test_a_late_cpu_keeps_the_order).

When a run ends (every CPU's END) its streams are closed, after relayd
said it has written them (DATA_PENDING) and, from protocol 2.11, after
they left their trace chunk for none (as lttng-sessiond does before it
destroys a session: otherwise relayd drops the chunk with the streams,
and a live viewer loses the packets it had not fetched yet; before 2.11
there is no such command, and it does).  Closing the connections ends
the session.  The first failure (relayd gone, a command refused) is reported
once and ends the sending: the local trace goes on, nothing read is lost,
and the exit status says it failed.
"""
from __future__ import annotations

import sys
import time
from typing import Optional

from .relayd import Relayd, RelaydError

LIVE_TIMER_US = 1000000                 # the session's live timer (viewers' poll period), lttng's
METADATA = "metadata"                   # relayd knows the metadata stream by this name
CLOSE_METADATA = 2**64 - 1              # no data on the data connection: nothing to wait for


class RelaySession:
    """The session on relayd and the runs' traces sent to it."""

    def __init__(self, address: str, session: str, hostname: str, out_dir: str,
                 offer: Optional[tuple[int, int]] = None) -> None:
        self.out_dir = out_dir
        self.failed: Optional[str] = None
        self.traces = 0
        self.relayd = Relayd(address)
        try:
            self.version = self.relayd.negotiate(*([offer] if offer else []))
            self.relayd.create_session(session, hostname, LIVE_TIMER_US)
        except RelaydError:
            self.relayd.close()
            raise
        self.where = "%s, %s" % (self.relayd.where, self.relayd.output_path)

    def trace(self, run: int) -> Optional["RelayTrace"]:
        """The tap of the next run's trace: the first run is the session's
        `kernel` trace, a later run N's is `run-N` beside it (as the local
        DIR/run-N)."""
        if self.failed:
            return None
        self.traces += 1
        return RelayTrace(self, "kernel" if self.traces == 1 else "run-%d" % run)

    def fail(self, e: RelaydError) -> None:
        """Stop sending, say why once; the local trace goes on."""
        if not self.failed:
            self.failed = str(e)
            print("gtp-ctl stream: %s; the trace goes on in %s only" % (e, self.out_dir),
                  file=sys.stderr)
            self.relayd.close()

    def close(self) -> None:
        if not self.failed:
            self.relayd.close()


class _Stream:
    __slots__ = ("handle", "seq", "packet_seq")

    def __init__(self, handle):
        self.handle = handle
        self.seq = 0                    # the next packet's network sequence number
        self.packet_seq = 0             # the next packet's packet_seq_num (CTF)


class RelayTrace:
    """One run's trace on relayd: the tap ctf.Trace calls."""

    def __init__(self, session: RelaySession, path: str) -> None:
        self.session = session
        self.path = path
        self.meta = None                # the metadata stream's handle
        self.sent = ""                  # the metadata text sent so far
        self.streams = {}               # instance -> _Stream

    def _do(self, fn, *a):
        """fn(*a) unless sending failed before; a failure ends it."""
        s = self.session
        if s.failed:
            return None
        try:
            return fn(*a)
        except RelaydError as e:
            s.fail(e)
            return None

    # -- the ctf.Trace tap ---------------------------------------------------
    def metadata(self, text: str) -> None:
        self._do(self._metadata, text)

    def _metadata(self, text):
        r = self.session.relayd
        if self.meta is None:
            self.meta = r.add_stream(METADATA, self.path)
            r.streams_sent()
        if not text.startswith(self.sent):
            raise RelaydError("%s: the metadata of %s changed, not only grew: relayd's "
                              "metadata stream only appends" % (r.where, self.path))
        if len(text) > len(self.sent):
            r.metadata(self.meta, text[len(self.sent):].encode())
            self.sent = text

    def packet(self, instance: int, data: bytes, ts_begin: int, ts_end: int,
               content_bits: int, packet_bits: int, packet_seq: int, discarded: int) -> None:
        self._do(self._packet, instance, data, ts_begin, ts_end, content_bits, packet_bits,
                 packet_seq, discarded)

    def _packet(self, instance, data, ts_begin, ts_end, content_bits, packet_bits,
                packet_seq, discarded):
        r = self.session.relayd
        s = self.streams.get(instance)
        if s is None:
            s = self.streams[instance] = _Stream(r.add_stream("stream_%d" % instance,
                                                              self.path))
            r.streams_sent()
        r.packet(s.handle, s.seq, data)
        r.index(s.handle, s.seq, packet_bits, content_bits, ts_begin, ts_end, discarded,
                instance, packet_seq)
        s.seq += 1
        s.packet_seq = packet_seq + 1

    def close(self) -> None:
        """The run is over: its streams end once relayd has them all."""
        self._do(self._close)

    def _close(self):
        r = self.session.relayd
        give_up = time.monotonic() + r.timeout
        pending = dict(self.streams)
        while pending:
            for k, s in list(pending.items()):
                if not r.data_pending(s.handle, s.seq - 1):
                    del pending[k]
            if pending and time.monotonic() > give_up:
                raise RelaydError("%s has not written %s's packets after %g s"
                                  % (r.where, self.path, r.timeout))
            if pending:
                time.sleep(0.01)
        if r.version[1] >= 11 and self.streams:
            r.rotate_to_no_chunk([(s.handle, s.packet_seq) for s in self.streams.values()])
        for s in self.streams.values():
            r.close_stream(s.handle, s.seq - 1)
        if self.meta is not None:
            r.quiescent(self.meta)
            r.close_stream(self.meta, CLOSE_METADATA)
            self.meta = None
        self.streams.clear()
