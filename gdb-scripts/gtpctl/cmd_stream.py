# SPDX-License-Identifier: GPL-2.0
"""gtpctl/cmd_stream.py - the stream subcommand: the live trace as CTF,
while it runs.

    gtp-ctl stream --ctf DIR [--until-stop | --duration S]

reads /proc/gtp_stream (stream_defs.py) and writes a CTF 1.8 trace
(stream_ctf.py, ctf.py) for babeltrace2 (and other CTF readers); the
first run goes into DIR, later ones into DIR/run-N (streamer.py).  The
proc file never blocks and never wakes anyone from the probe path, so we
poll it: read until EAGAIN, sleep --interval, again.

--until-stop ends when the first run has stopped and every CPU's END
record arrived; --duration S just stops reading after S seconds, at a
record boundary (what was not read stays in the target, gdb can still
see it).  Ctrl-C or SIGTERM stop the same way, so the trace on disk is
always whole; a second Ctrl-C stops at once.

--from-file replays a raw record stream saved with --save-raw (the proc
file cannot be copied with cat: its reads never wait).
"""
from __future__ import annotations

import argparse
import os
import signal
import sys
import time

from .stream_ctf import Host
from .stream_defs import DEFAULT_STREAM, open_stream
from .streamer import Streamer, prepare_dir
from .trace import TraceError


class _Progress:
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


def _read(st, fd, raw, count):
    """One read into the streamer: False at the end of the data, None if
    nothing is there now."""
    try:
        data = os.read(fd, count)
    except BlockingIOError:
        return None
    except OSError as e:
        raise TraceError("reading %s: %s" % (st.origin, e.strerror))
    if not data:
        return False
    if raw is not None:
        raw.write(data)
    st.feed(data)
    return True


def _pump(st, fd, raw, over, interval, live, progress):
    """Read and convert until the streamer is done, over() says so (the
    duration passed, or Ctrl-C) or (a file) the data ends."""
    while not st.done:
        got = False
        while not st.done and not over():
            r = _read(st, fd, raw, 1 << 20)
            if r is False and not live:
                return
            if not r:
                break
            got = True
            progress.update(st)
        if got:
            st.flush()
        progress.update(st)
        if over():
            _finish_record(st, fd, raw)
            return
        if live and not st.done:
            time.sleep(interval)


class _Stop:
    """SIGINT/SIGTERM ask the loop to stop at a record boundary, so the
    trace on disk stays whole; a second Ctrl-C interrupts at once."""

    def __init__(self):
        self.requested = False
        self.old = {}

    def __enter__(self):
        for sig in (signal.SIGINT, signal.SIGTERM):
            self.old[sig] = signal.signal(sig, self._handler)
        return self

    def __exit__(self, *exc):
        for sig, h in self.old.items():
            signal.signal(sig, h)

    def _handler(self, signum, frame):
        if self.requested and signum == signal.SIGINT:
            raise KeyboardInterrupt
        self.requested = True


def _finish_record(st, fd, raw):
    """Read exactly the rest of a record split by the last read: the
    target has it ready, and what we do not take now is lost to both."""
    give_up = time.monotonic() + 2.0
    while st.missing() and time.monotonic() < give_up:
        r = _read(st, fd, raw, st.missing())
        if r is False:
            return
        if r is None:
            time.sleep(0.001)


def run_stream(args: argparse.Namespace) -> None:
    if args.duration is not None and args.duration <= 0:
        raise TraceError("--duration must be more than 0 seconds")
    if args.interval <= 0:
        raise TraceError("--interval must be more than 0 ms")
    live = args.from_file is None
    fd, origin = _open_source(args)
    raw = st = None
    created = False
    try:
        created = prepare_dir(args.ctf, args.force)
        if args.save_raw:
            try:
                raw = open(args.save_raw, "wb")
            except OSError as e:
                raise TraceError("cannot write %s: %s" % (args.save_raw, e.strerror))
        host = Host(args.hostname or os.uname().nodename, live)
        st = Streamer(args.ctf, origin, args.duration is None, host)
        interrupted = _run(st, fd, raw, args, live)
    finally:
        os.close(fd)
        if raw is not None:
            raw.close()
        if created and (st is None or not st.runs):
            try:
                os.rmdir(args.ctf)      # no run came: leave nothing behind
            except OSError:
                pass
    _summary(st, args.ctf, interrupted)


def _open_source(args):
    """(descriptor, name) of the proc file, or of --from-file."""
    if args.from_file is None:
        return open_stream(args.target_stream), args.target_stream
    try:
        return os.open(args.from_file, os.O_RDONLY), args.from_file
    except OSError as e:
        raise TraceError("cannot read %s: %s" % (args.from_file, e.strerror))


def _run(st, fd, raw, args, live):
    """The streaming loop with its progress line; True if a signal ended it."""
    progress = _Progress(sys.stderr.isatty() and not args.quiet)
    deadline = None if args.duration is None else time.monotonic() + args.duration
    with _Stop() as stop:
        def over():
            return stop.requested or (deadline is not None and time.monotonic() >= deadline)
        try:
            _pump(st, fd, raw, over, args.interval / 1000.0, live, progress)
        except KeyboardInterrupt:
            raise TraceError("interrupted twice: %s may end in a partial packet" % args.ctf)
        except OSError as e:            # the trace's files: disk full, ...
            raise TraceError("cannot write %s: %s" % (e.filename or args.ctf, e.strerror or e))
        finally:
            st.close()
            progress.clear()
    return stop.requested


def _summary(st, out_dir, interrupted):
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
    if not st.runs:
        print("no run started (gtp-ctl start, or tstart in gdb): nothing written")


def register(sub: argparse._SubParsersAction, formatter: type[argparse.HelpFormatter]) -> None:
    p = sub.add_parser("stream", help="write the running trace as CTF, live (babeltrace2)",
                       description="Read the live trace from %s while it runs and "
                       "write it as a CTF 1.8 trace for babeltrace2 (and other CTF "
                       "readers): one stream per CPU, one event class per tracepoint and "
                       "frame shape (registers, trace state variables, $_sdata fields, "
                       "$kstack and memory by name).  Lost frames are the packets' "
                       "discarded events.  Ends when the run stopped and was drained "
                       "(--until-stop, the default) or after --duration seconds; "
                       "later runs go to DIR/run-N." % DEFAULT_STREAM,
                       formatter_class=formatter)
    p.add_argument("--ctf", required=True, metavar="DIR",
                   help="the CTF trace directory to write (created; must be empty "
                        "unless --force)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--until-stop", action="store_true",
                   help="stream until the run stops and every CPU is drained; wait "
                        "for a run to start if none has (the default)")
    g.add_argument("--duration", type=float, metavar="S",
                   help="stream S seconds, then stop reading (frames not read yet "
                        "stay in the target)")
    p.add_argument("--target-stream", default=DEFAULT_STREAM, metavar="PATH",
                   help="the stream file (default %(default)s)")
    p.add_argument("--interval", type=float, default=20, metavar="MS",
                   help="poll period when nothing is ready (default %(default)g ms)")
    p.add_argument("--quiet", action="store_true", help="no progress line")
    p.add_argument("--force", action="store_true",
                   help="write into a non-empty DIR (an old trace there is removed)")
    p.add_argument("--hostname", metavar="NAME",
                   help="the host named in the trace (default: this machine's); for "
                        "--from-file replays of another machine's stream")
    p.add_argument("--save-raw", metavar="FILE",
                   help="also save the raw record stream to FILE (for --from-file)")
    p.add_argument("--from-file", metavar="FILE",
                   help="read a raw record stream saved earlier (--save-raw) instead "
                        "of the live file, to its end")
    p.set_defaults(func=run_stream)
