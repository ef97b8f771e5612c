# SPDX-License-Identifier: GPL-2.0
"""gtpctl/converter.py - the spool file to CTF, behind the copier.

The converter follows the spool the copier (copier.py) appends to, feeds
what it finds to a Streamer (streamer.py: the records -> CTF), and ends
when the copier said it is done (closed its end of a pipe) and the spool
has nothing more, or when the Streamer is done (--until-stop).  A raw
stream saved earlier (--from-file) goes the same way, read to its end.  It runs
as a child process at a lower priority than the copier: when both want
the CPU, the copier wins, so the ring keeps being drained while the
conversion falls behind; what it has not converted yet waits on disk.
"""
from __future__ import annotations

import argparse
import os
import select
import sys
import time
from typing import Callable, Optional

from .relay_trace import RelaySession
from .stream_ctf import Host
from .streamer import Streamer
from .trace import TraceError

READ = 1 << 20


def writer_done(fd: int) -> bool:
    """The copier closed its end of the pipe: the spool is complete."""
    return bool(select.select([fd], [], [], 0)[0])


def convert(args: argparse.Namespace, fd: int, origin: str, done_fd: Optional[int],
            host: Host, relay: Optional[RelaySession] = None) -> Streamer:
    """The records read from fd as CTF in args.ctf (and to relay), with
    the progress line on a terminal.  done_fd: the copier's pipe, while fd
    is a spool that grows until it closes; None: fd holds the whole stream
    (--from-file)."""
    st = Streamer(args.ctf, origin, args.duration is None, host, relay)
    progress = Progress(sys.stderr.isatty() and not args.quiet)
    try:
        follow(st, fd, done_fd, args.interval / 1000.0, progress.update)
    except OSError as e:                # the trace's files: disk full, ...
        raise TraceError("cannot write %s: %s" % (e.filename or args.ctf, e.strerror or e))
    finally:
        st.close()
        progress.clear()
    return st


def follow(st: Streamer, fd: int, done_fd: Optional[int], interval: float,
           progress: Callable[[Streamer], None]) -> None:
    """Convert what fd holds, following it as it grows while done_fd is
    open, to its end."""
    while not st.done:
        finished = done_fd is None or writer_done(done_fd)  # before the read: no byte missed
        data = os.read(fd, READ)
        if data:
            st.feed(data)
            progress(st)
            continue
        if finished:
            return
        st.flush()
        progress(st)
        time.sleep(interval)


class Progress:
    """The \\r progress line on a terminal, about twice a second."""

    def __init__(self, enabled):
        self.enabled = enabled
        self.start = time.monotonic()
        self.next = self.start
        self.width = 0

    def update(self, st):
        now = time.monotonic()
        if not self.enabled or now < self.next:
            return
        self.next = now + 0.5
        if st.runs:
            line = "%d events, %s, %d lost, %.1f s" % (
                st.events(), _size(st.bytes_written()), sum(st.lost_per_cpu().values()),
                now - self.start)
        else:
            line = "waiting for a run to start, %.1f s" % (now - self.start)
        sys.stderr.write("\r" + line.ljust(self.width))
        sys.stderr.flush()
        self.width = len(line)

    def clear(self):
        if self.enabled and self.width:
            sys.stderr.write("\r" + " " * self.width + "\r")
            sys.stderr.flush()


def _size(n):
    for unit in ("bytes", "KiB", "MiB"):
        if n < 1024 or unit == "MiB":
            return "%d %s" % (n, unit) if unit == "bytes" else "%.1f %s" % (n, unit)
        n /= 1024.0


def summary(st, out_dir, interrupted, relay=None):
    if st.rest and not st.done:
        print("gtp-ctl stream: the stream ended inside a record (%d bytes of it "
              "dropped)" % len(st.rest), file=sys.stderr)
    lost = st.lost_per_cpu()
    cpus = st.cpus() | {c for c, n in lost.items() if n}
    print("streamed %d events (%d bytes) from %d CPU(s) to %s; %d lost%s"
          % (st.events(), st.bytes_written(), len(cpus), out_dir, sum(lost.values()),
             " (interrupted)" if interrupted else ""))
    if any(lost.values()):
        print("lost per CPU: " + ", ".join("cpu%d %d" % (c, lost.get(c, 0)) for c in sorted(cpus)))
    if len(st.runs) > 1:
        print("runs: %s" % ", ".join("%d in %s" % (r.run, r.path) for r in st.runs))
    for note in st.notes:
        print(note)
    if relay is not None and st.runs:
        print("sent to %s%s" % (relay.where, " until it failed" if relay.failed else ""))
    if not st.runs:
        print("no run started (gtp-ctl start, or tstart in gdb): nothing written")
