# SPDX-License-Identifier: GPL-2.0
"""gtpctl/cmd_stream.py - the stream subcommand: the live trace as CTF,
while it runs.

    gtp-ctl stream --ctf DIR [--until-stop | --duration S]

Two processes.  This one reads /proc/gtp_stream (stream_defs.py) and only
copies what it reads to a spool file, DIR/.gtp-stream.spool (copier.py:
per event, its share of a read and a write); a child at a lower priority
converts the spool into a CTF 1.8 trace for babeltrace2 (converter.py,
streamer.py, stream_ctf.py, ctf.py) as it grows, and may fall behind a
burst without losing anything.  The first run goes into DIR, later ones
into DIR/run-N.  The proc file never blocks and never wakes anyone from
the probe path, so we poll it: read while it gives records, sleep
--interval when it has none.

--until-stop ends when the first run has stopped and every CPU's END
record arrived; --duration S just stops reading after S seconds, at a
record boundary (what was not read stays in the target, gdb can still
see it).  Ctrl-C or SIGTERM stop the same way, so the trace on disk is
always whole; a second Ctrl-C stops at once.  The converter then finishes
the spool, prints the summary and the spool is removed (kept if the
conversion failed, and with --save-raw FILE, which is then the spool).

--from-file replays a raw record stream saved with --save-raw (the proc
file cannot be copied with cat: its reads never wait).

--clock-offset NS puts the trace's clock on another machine's timeline
(gtp-ctl fleet: fleet_clock.py); --ready-fd, for gtp-ctl fleet host too,
says when the stream file is open and relayd has the session.

--relayd HOST sends the trace to an LTTng relay daemon too, as a live
session (relay_trace.py, relayd.py): the converter hands relayd every
packet and metadata update it writes to DIR, so DIR stays whole whatever
becomes of relayd, and keeps the spool too if sending failed.  The
connection and the session are made before the first read, so a relayd
that cannot be reached or speaks another protocol costs nothing.
"""
from __future__ import annotations

import argparse
import os
import signal
import sys
import time

from .converter import READ, convert, summary, writer_done
from .copier import Copier
from .relay_trace import RelaySession
from .relayd import MIN_MINOR, PROTOCOL
from .stream_ctf import ClockMapping, Host
from .stream_defs import DEFAULT_STREAM, open_stream
from .streamer import prepare_dir
from .trace import TraceError

SPOOL = ".gtp-stream.spool"        # a dot file: CTF readers skip it


class Stop:
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


def _finish_record(cp, fd, out):
    """Read exactly the rest of a record split by the last read: the
    target has it ready, and what we do not take now is lost to both."""
    give_up = time.monotonic() + 2.0
    while cp.missing() and time.monotonic() < give_up:
        try:
            data = os.read(fd, cp.missing())
        except BlockingIOError:
            time.sleep(0.001)
            continue
        except OSError as e:
            raise TraceError("reading %s: %s" % (cp.origin, e.strerror))
        if not data:
            return
        _write(out, cp.take(memoryview(data)))


def _write(out, pieces):
    for piece in pieces:
        piece = memoryview(piece)
        while piece:
            piece = piece[os.write(out, piece):]


def _copy(cp, fd, out, over, interval, converting):
    """The hot loop: read the proc file and append what it gives to the
    spool, until the copier is done, over() says so (the duration passed,
    or a signal) or the converter died.  Reads again at once after a read
    that gave something (a burst is being drained), else sleeps."""
    buf = bytearray(READ)               # read into, again and again: no allocation
    view = memoryview(buf)
    while not cp.done:
        if over():
            _finish_record(cp, fd, out)
            return
        try:
            n = os.readv(fd, (buf,))
        except BlockingIOError:
            n = 0
        except OSError as e:
            raise TraceError("reading %s: %s" % (cp.origin, e.strerror))
        if n:
            _write(out, cp.take(view[:n]))
            continue
        if not converting():
            return
        time.sleep(interval)


def run_stream(args: argparse.Namespace) -> None:
    if args.duration is not None and args.duration <= 0:
        raise TraceError("--duration must be more than 0 seconds")
    if args.interval <= 0:
        raise TraceError("--interval must be more than 0 ms")
    if not args.relayd and (args.session or args.relayd_protocol):
        raise TraceError("--session and --relayd-protocol name a relayd session: give --relayd")
    live = args.from_file is None
    offer = _protocol(args.relayd_protocol)
    fd = open_stream(args.target_stream) if live else _open_saved(args.from_file)
    status = 1
    created = False
    relay = None
    try:
        created = prepare_dir(args.ctf, args.force)
        host = Host(args.hostname or os.uname().nodename, live, _mapping(args))
        if args.relayd:
            relay = RelaySession(args.relayd, args.session or _session_name(args.ctf),
                                 host.name, args.ctf, offer)
        _ready(args.ready_fd)
        status = _live(args, fd, host, relay) if live else _replay(args, fd, host, relay)
    finally:
        if relay is not None:
            relay.close()
        os.close(fd)
        if created:
            try:
                os.rmdir(args.ctf)      # no run came: leave nothing behind
            except OSError:
                pass
    if status:
        raise SystemExit(status)


def _mapping(args):
    """--clock-offset: the trace's clock on another machine's timeline."""
    if args.clock_offset is None:
        if args.clock_uncertainty is not None:
            raise TraceError("--clock-uncertainty goes with --clock-offset")
        return None
    if (args.clock_uncertainty or 0) < 0:
        raise TraceError("--clock-uncertainty must be 0 or more nanoseconds")
    return ClockMapping(args.clock_offset, args.clock_uncertainty or 0)


def _ready(fd):
    """--ready-fd (gtp-ctl fleet host): say that the stream file is open
    and relayd took the session, before the first read."""
    if fd is None:
        return
    try:
        os.write(fd, b"ready\n")
        os.close(fd)
    except OSError as e:
        raise TraceError("--ready-fd %d: %s" % (fd, e.strerror))


def _open_saved(path):
    try:
        return os.open(path, os.O_RDONLY)
    except OSError as e:
        raise TraceError("cannot read %s: %s" % (path, e.strerror))


def _session_name(ctf_dir):
    """The relayd session's default name: the trace directory's."""
    return os.path.basename(os.path.normpath(os.path.abspath(ctf_dir)))


def _protocol(text):
    """--relayd-protocol 2.N -> (2, N), within what relayd.py speaks."""
    if text is None:
        return None
    major, _, minor = text.partition(".")
    if not (major.isdigit() and minor.isdigit() and int(major) == PROTOCOL[0]
            and MIN_MINOR <= int(minor) <= PROTOCOL[1]):
        raise TraceError("--relayd-protocol %s: gtp-ctl speaks %d.%d to %d.%d"
                         % (text, PROTOCOL[0], MIN_MINOR, *PROTOCOL))
    return int(major), int(minor)


def _replay(args, fd, host, relay):
    """--from-file: a saved record stream, converted in this process."""
    st = convert(args, fd, args.from_file, None, host, relay)
    summary(st, args.ctf, False, relay)
    return 1 if relay is not None and relay.failed else 0


def _live(args, fd, host, relay):
    """The proc file: the spool, then the two processes."""
    spool = args.save_raw or os.path.join(args.ctf, SPOOL)
    try:
        out = os.open(spool, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    except OSError as e:
        raise TraceError("cannot write %s: %s" % (spool, e.strerror))
    return _stream(args, fd, out, spool, host, relay)


def _stream(args, fd, out, spool, host, relay):
    """Copy in this process, convert in a child; the child's exit status.
    The spool goes once the child converted it."""
    rfd, wfd = os.pipe()
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        os.close(fd)
        os.close(out)
        os.close(wfd)
        _converter(args, spool, rfd, host, relay)       # never returns
    os.close(rfd)
    if relay is not None:
        relay.close()                   # our copy: the connections are the child's
    cp = Copier(args.target_stream, args.duration is None)
    deadline = None if args.duration is None else time.monotonic() + args.duration
    state = {"status": None}

    def converting():
        if state["status"] is None:
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                state["status"] = os.waitstatus_to_exitcode(st)
        return state["status"] is None

    try:
        with Stop() as stop:
            def over():
                return stop.requested or (deadline is not None and
                                           time.monotonic() >= deadline)
            try:
                _copy(cp, fd, out, over, args.interval / 1000.0, converting)
            except KeyboardInterrupt:
                raise TraceError("interrupted twice: %s may end in a partial packet" % args.ctf)
            except OSError as e:
                raise TraceError("cannot write %s: %s" % (e.filename or spool, e.strerror or e))
            finally:
                os.close(out)
                if stop.requested:
                    os.write(wfd, b"i")         # the summary says "interrupted"
                os.close(wfd)
                if state["status"] is None:
                    state["status"] = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    finally:
        if state["status"] is None:
            os.kill(pid, signal.SIGKILL)
            state["status"] = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        # converted (even if reading failed later): the spool has served
        if state["status"] == 0 and not args.save_raw:
            _unlink(spool)
    if state["status"] and not args.save_raw:
        print("gtp-ctl stream: the records read are kept in %s (gtp-ctl stream "
              "--from-file)" % spool, file=sys.stderr)
    return state["status"]


def _converter(args, spool, done_fd, host, relay):
    """The child: the spool to CTF (and to relayd), the progress line and
    the summary."""
    stop = Stop()
    stop.__enter__()                    # Ctrl-C reaches the whole group: the copier decides
    try:
        os.nice(10)
    except OSError:
        pass
    code = 0
    try:
        fd = _open_saved(spool)
        st = convert(args, fd, args.target_stream, done_fd, host, relay)
        interrupted = writer_done(done_fd) and os.read(done_fd, 1) == b"i"
        summary(st, args.ctf, interrupted, relay)
        if relay is not None:
            code = 1 if relay.failed else 0
            relay.close()
    except KeyboardInterrupt:
        code = 1
    except TraceError as e:
        print("gtp-ctl stream: %s" % e, file=sys.stderr)
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _unlink(path):
    try:
        os.unlink(path)
    except OSError:
        pass


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
    p.add_argument("--relayd", metavar="HOST[:PORT[:DATA_PORT]]",
                   help="also send the trace to an LTTng relay daemon (lttng-relayd) as "
                        "a live session, HOST/SESSION (control port 5342, data port "
                        "5343 unless given); DIR is written all the same")
    p.add_argument("--session", metavar="NAME",
                   help="the relayd session's name (default: DIR's name)")
    p.add_argument("--relayd-protocol", metavar="2.N",
                   help="offer relayd protocol 2.N rather than %d.%d (it speaks the "
                        "lower of both; 2.%d at least)" % (PROTOCOL + (MIN_MINOR,)))
    p.add_argument("--clock-offset", type=int, metavar="NS",
                   help="this machine's CLOCK_REALTIME minus a reference machine's, in "
                        "nanoseconds: the trace's clock is put on the reference's "
                        "timeline (gtp-ctl fleet measures and passes it)")
    p.add_argument("--clock-uncertainty", type=int, metavar="NS",
                   help="how far --clock-offset may be off (the metadata's clock "
                        "precision and env)")
    p.add_argument("--ready-fd", type=int, help=argparse.SUPPRESS)  # gtp-ctl fleet host
    p.set_defaults(func=run_stream)
