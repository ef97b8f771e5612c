# SPDX-License-Identifier: GPL-2.0
"""gtpctl/cmd_fleet.py - the fleet subcommand: one saved session on N
hosts at once, into one relay daemon, on one timeline.

    gtp-ctl fleet run SESSION --relayd HOST[:PORTS] [--via 'ssh {host}'] HOST...
    gtp-ctl fleet stop

run reaches each host with --via (ssh by default) running `gtp-ctl fleet
host` there (fleet_host.py), and speaks to it on that channel's stdin and
stdout (fleet_wire.py), every host at once:

  1. each host says hello (or the command's exit status and last stderr
     line say why not: ssh's 255 is an unreachable host, 127 no gtp-ctl);
  2. its CLOCK_REALTIME is measured against ours over the same channel
     (fleet_clock.py): offset and uncertainty, half the best round trip;
  3. it starts `gtp-ctl stream --relayd ... --clock-offset OFFSET`, which
     connects to relayd and opens the stream file, downloads the session
     to the target (all of `gtp-ctl start SESSION` but its QTStart) and
     says ready;
  4. once every host answered, "start" goes to each ready one back to
     back: each sends its QTStart;
  5. on Ctrl-C, SIGTERM (`gtp-ctl fleet stop`) or after --duration, "stop"
     goes to each: `gtp-ctl stop`, and its stream ends once drained; each
     hands back the stream's exit status and summary.

A host that fails at any step, or whose channel closes mid-run, is said
at once on stderr and in the report, and the others go on.  The exit
status is 0 only if every host streamed its whole run.  The via commands
run in sessions of their own, so a Ctrl-C reaches this process only, and
becomes a stop of every host.
"""
from __future__ import annotations

import argparse
import collections
import os
import queue
import shlex
import signal
import subprocess
import sys
import threading
import time
from typing import Any, Optional

from . import fleet_clock, fleet_host
from . import fleet_wire as wire
from .cmd_stream import Stop
from .session import Session
from .trace import TraceError


class HostFailed(Exception):
    pass


class Host:
    """One host: the via command's process, its replies as they come."""

    def __init__(self, name: str, argv: list[str]) -> None:
        self.name = name
        self.argv = argv
        self.failure: Optional[str] = None
        self.hello = False
        self.ready = False
        self.started_at: Optional[int] = None
        self.done: Optional[dict[str, Any]] = None
        self.offset: Optional[fleet_clock.Offset] = None
        self.replies: queue.Queue = queue.Queue()
        self.stderr = collections.deque(maxlen=20)
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, start_new_session=True)
        except OSError as e:
            self.proc = None
            self.failure = "cannot run %s: %s" % (argv[0], e.strerror)
            return
        for target, f in ((self._read_replies, self.proc.stdout),
                          (self._read_stderr, self.proc.stderr)):
            threading.Thread(target=target, args=(f,), daemon=True).start()

    def _read_replies(self, f):
        try:
            for line in f:
                try:
                    self.replies.put(wire.parse(line))
                except wire.WireError as e:
                    self.replies.put({"error": str(e)})
        except (OSError, ValueError):
            pass
        self.replies.put(None)

    def _read_stderr(self, f):
        try:
            for line in f:
                text = line.decode(errors="replace").rstrip()
                if text:
                    self.stderr.append(text)
        except (OSError, ValueError):
            pass

    @property
    def alive(self) -> bool:
        return self.failure is None

    def send(self, **msg: Any) -> None:
        try:
            wire.send(self.proc.stdin, **msg)
        except (OSError, ValueError):
            raise HostFailed(self._gone())

    def reply(self, timeout: float) -> dict[str, Any]:
        """The next reply; HostFailed if the host went or said an error."""
        try:
            msg = self.replies.get(timeout=timeout)
        except queue.Empty:
            raise HostFailed("no answer within %g s" % timeout)
        if msg is None:
            raise HostFailed(self._gone())
        if "error" in msg:
            raise HostFailed(msg["error"])
        return msg

    def _gone(self) -> str:
        """Why the channel closed, in a line."""
        try:
            code = self.proc.wait(5)
        except subprocess.TimeoutExpired:
            code = None
        time.sleep(0.05)                # the stderr reader's last lines
        last = self.stderr[-1] if self.stderr else ""
        if code is not None and code < 0:
            how = "killed by signal %d" % -code
        else:
            how = "exit status %s" % code
        if not self.hello:
            if code == 255:
                return "unreachable (%s)" % (last or how)
            if code == 127:
                return ("no gtp-ctl there (%s); install it, or give --remote-ctl PATH"
                        % (last or how))
            if code == 2 and "invalid choice: 'fleet'" in last:
                return "its gtp-ctl has no fleet subcommand: install this one there"
            return "%s before it answered%s" % (how, ": " + last if last else "")
        return "the connection closed (%s)%s" % (how, ": " + last if last else "")

    def fail(self, why: str) -> None:
        if self.failure is None:
            self.failure = why
            print("gtp-ctl fleet: %s: %s" % (self.name, why), file=sys.stderr)
            sys.stderr.flush()

    def close(self) -> None:
        if self.proc is None:
            return
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait()


def host_argv(via: str, host: str, remote_ctl: str) -> list[str]:
    """--via with {host} replaced (the host appended if it has none), then
    the remote command."""
    words = shlex.split(via)
    if not any("{host}" in w for w in words):
        words.append("{host}")
    return [w.replace("{host}", host) for w in words] + [remote_ctl, "fleet", "host"]


def _each(hosts, step, what):
    """step(host) for every live host at once (a thread each: their
    replies come in their own time); a host whose step fails is out."""
    def one(h):
        try:
            step(h)
        except HostFailed as e:
            h.fail("%s: %s" % (what, e) if what else str(e))
    threads = [threading.Thread(target=one, args=(h,), daemon=True) for h in hosts if h.alive]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def _hello(h, timeout):
    said = h.reply(timeout)
    h.hello = True
    if said.get("hello") != wire.VERSION:
        raise HostFailed("its gtp-ctl speaks fleet protocol %s, this one %d: install the "
                         "same gtp-ctl on both" % (said.get("hello"), wire.VERSION))


def _clock(h, timeout):
    def ask():
        h.send(cmd="clock")
        return int(h.reply(timeout)["clock"])
    h.offset = fleet_clock.measure(ask)


def run_fleet(args: argparse.Namespace) -> None:
    if args.duration is not None and args.duration <= 0:
        raise TraceError("--duration must be more than 0 seconds")
    session = Session.read(args.session)            # its grammar, before any host
    with open(args.session) as f:
        text = f.read()
    name = args.name or os.path.splitext(os.path.basename(args.session))[0]
    ctf = args.host_dir or "/var/tmp/gtp-fleet/%s" % name
    _claim_pidfile(args.pidfile)
    hosts = []
    try:
        with Stop() as stop:
            hosts = [Host(h, host_argv(args.via, h, args.remote_ctl)) for h in args.hosts]
            for h in hosts:
                if h.failure:
                    print("gtp-ctl fleet: %s: %s" % (h.name, h.failure), file=sys.stderr)
            t = args.connect_timeout
            _each(hosts, lambda h: _hello(h, t), "")
            _each(hosts, lambda h: _clock(h, t), "clock")
            req = {"cmd": "stream", "relayd": args.relayd, "session": name, "ctf": ctf,
                   "session_text": text, "stop_timeout": args.stop_timeout, "extra": [],
                   "discard": args.discard}

            def stream(h):
                h.send(offset_ns=h.offset.offset_ns, uncertainty_ns=h.offset.uncertainty_ns,
                       **req)
                h.ready = bool(h.reply(t).get("ready"))
            _each(hosts, stream, "")
            ready = [h for h in hosts if h.alive]
            if not ready:
                raise TraceError("no host is ready: nothing started")
            _clocks(ready)
            if not stop.requested:
                _start(ready, t)
                _run(hosts, args.duration, stop)
            _each(hosts, lambda h: _stop(h, args.stop_timeout), "")
    except KeyboardInterrupt:
        raise TraceError("interrupted twice: the hosts' channels are closed, and each "
                         "host stops its trace by itself")
    finally:
        for h in hosts:
            h.close()
        _release_pidfile(args.pidfile)
    ok = _report(hosts, len(session.tps))
    if not ok:
        raise SystemExit(1)


def _clocks(ready):
    print("fleet: %d host(s) ready; clock offsets (host - here): %s" % (
        len(ready), ", ".join("%s %+.6f s +-%.3f ms" % (h.name, h.offset.offset_ns / 1e9,
                                                        h.offset.uncertainty_ns / 1e6)
                              for h in ready)))
    sys.stdout.flush()


def _start(ready, timeout):
    """"start" to every ready host back to back, then their replies."""
    for h in ready:
        try:
            h.send(cmd="start")
        except HostFailed as e:
            h.fail("start: %s" % e)

    def started(h):
        h.started_at = int(h.reply(timeout)["started"]) - h.offset.offset_ns
    _each(ready, started, "start")
    at = [h.started_at for h in ready if h.alive]
    if at:
        print("fleet: started on %d host(s) within %.1f ms (their clocks, mapped)"
              % (len(at), (max(at) - min(at)) / 1e6))
        sys.stdout.flush()


def _run(hosts, duration, stop):
    """Until a stop is asked for (or every host is gone); a host whose
    channel closes meanwhile is out, the others go on."""
    deadline = None if duration is None else time.monotonic() + duration
    while not stop.requested and (deadline is None or time.monotonic() < deadline):
        live = [h for h in hosts if h.alive]
        if not live:
            return
        for h in live:
            try:
                msg = h.replies.get_nowait()
            except queue.Empty:
                continue
            h.fail("mid-run: %s" % (h._gone() if msg is None else
                                    msg.get("error", "unexpected %r" % msg)))
        time.sleep(0.05)


def _stop(h, timeout):
    h.send(cmd="stop")
    h.done = h.reply(timeout + 60)
    if h.done.get("done") != 0:
        err = (h.done.get("err") or "").strip().splitlines()
        h.fail("stream: %s" % (err[-1] if err else "exit status %s" % h.done.get("done")))


def _report(hosts, ntps):
    print("fleet: %d tracepoint(s) on %d host(s)" % (ntps, len(hosts)))
    ok = 0
    for h in hosts:
        out = (h.done or {}).get("out", "").strip().splitlines()
        if h.alive:
            ok += 1
            print("%s: ok" % h.name)
        else:
            print("%s: failed: %s" % (h.name, h.failure))
        for line in out:
            print("%s:   %s" % (h.name, line))
    print("fleet: %d of %d host(s) ok" % (ok, len(hosts)))
    return ok == len(hosts)


def _default_pidfile():
    d = os.environ.get("XDG_RUNTIME_DIR") or "/tmp"
    return os.path.join(d, "gtp-fleet-%d.pid" % os.getuid())


def _pid_in(path):
    try:
        with open(path) as f:
            pid = int(f.read().split()[0])
        os.kill(pid, 0)
        return pid
    except (OSError, ValueError, IndexError):
        return None


def _claim_pidfile(path):
    pid = _pid_in(path)
    if pid is not None and pid != os.getpid():
        raise TraceError("a fleet run is going on (pid %d, %s): gtp-ctl fleet stop, or "
                         "give another --pidfile" % (pid, path))
    try:
        with open(path, "w") as f:
            f.write("%d\n" % os.getpid())
    except OSError as e:
        raise TraceError("cannot write %s: %s" % (path, e.strerror))


def _release_pidfile(path):
    if _pid_in(path) in (os.getpid(), None):
        try:
            os.unlink(path)
        except OSError:
            pass


def run_fleet_stop(args: argparse.Namespace) -> None:
    pid = _pid_in(args.pidfile)
    if pid is None:
        raise TraceError("no fleet run is going on (%s)" % args.pidfile)
    os.kill(pid, signal.SIGTERM)
    give_up = time.monotonic() + args.timeout
    while _pid_in(args.pidfile) == pid:
        if time.monotonic() > give_up:
            raise TraceError("the fleet run (pid %d) has not ended after %g s; its "
                             "hosts may still be stopping" % (pid, args.timeout))
        time.sleep(0.05)
    print("the fleet run (pid %d) stopped every host; its report is on its terminal" % pid)


def register(sub: argparse._SubParsersAction, formatter: type[argparse.HelpFormatter]) -> None:
    p = sub.add_parser("fleet", help="one saved session on N hosts at once, into one relayd",
                       description="Run a saved session (save-session) on several hosts "
                       "at once, each streaming to one LTTng relay daemon with its clock "
                       "mapped to this machine's, so that babeltrace2 reads all of them "
                       "on one timeline; stop them together.  See docs/streaming.md.",
                       formatter_class=formatter)
    fs = p.add_subparsers(dest="fleet_command", metavar="ACTION")
    fs.required = True
    r = fs.add_parser("run", help="start the session on every host, stop them together",
                      description="Reach each HOST with --via running `REMOTE_CTL fleet "
                      "host`, measure its clock against this one, start `gtp-ctl "
                      "stream --relayd` there and download SESSION to the target (all "
                      "of `gtp-ctl start SESSION` but QTStart), then QTStart on every "
                      "ready host at once; on Ctrl-C, SIGTERM (gtp-ctl fleet stop) or "
                      "after --duration, `gtp-ctl stop` on each, and report each host's "
                      "stream.  A host that fails is reported and the others go on.",
                      formatter_class=formatter)
    r.add_argument("session", metavar="SESSION", help="a session file from save-session")
    r.add_argument("hosts", metavar="HOST", nargs="+", help="the hosts, as --via names them")
    r.add_argument("--relayd", required=True, metavar="HOST[:PORT[:DATA_PORT]]",
                   help="the relay daemon, as the hosts reach it (gtp-ctl stream --relayd)")
    r.add_argument("--via", default="ssh {host}", metavar="CMD",
                   help="the command that reaches a host, {host} replaced by its name "
                        "(default %(default)r); `REMOTE_CTL fleet host` is appended")
    r.add_argument("--remote-ctl", default="gtp-ctl", metavar="PATH",
                   help="gtp-ctl on the hosts (default %(default)s)")
    r.add_argument("--name", metavar="NAME",
                   help="the relayd session's name on every host (default: SESSION's "
                        "file name without its extension)")
    r.add_argument("--host-dir", metavar="DIR",
                   help="each host's local CTF trace (gtp-ctl stream --ctf; written over "
                        "if it exists; default /var/tmp/gtp-fleet/NAME)")
    r.add_argument("--duration", type=float, metavar="S",
                   help="stop every host S seconds after the start")
    r.add_argument("--discard", action="store_true",
                   help="gtp-ctl start --discard on every host (drop a last trace's frames)")
    r.add_argument("--connect-timeout", type=float, default=60, metavar="S",
                   help="wait at most S seconds for each host's answers before the "
                        "start (default %(default)g)")
    r.add_argument("--stop-timeout", type=float, default=120, metavar="S",
                   help="give each host's stream S seconds to drain after the stop, then "
                        "stop reading (default %(default)g)")
    r.add_argument("--pidfile", default=_default_pidfile(), metavar="FILE",
                   help="where gtp-ctl fleet stop finds this run (default %(default)s)")
    r.set_defaults(func=run_fleet)

    s = fs.add_parser("stop", help="stop a fleet run (as Ctrl-C on its terminal)",
                      description="Ask the fleet run of --pidfile to stop every host "
                      "(SIGTERM) and wait until it has; it prints the report.",
                      formatter_class=formatter)
    s.add_argument("--pidfile", default=_default_pidfile(), metavar="FILE",
                   help="the run's pid file (default %(default)s)")
    s.add_argument("--timeout", type=float, default=300, metavar="S",
                   help="wait at most S seconds (default %(default)g)")
    s.set_defaults(func=run_fleet_stop)

    h = fs.add_parser("host", help="the host end of a fleet run, on stdin and stdout "
                      "(run by fleet run over ssh)", formatter_class=formatter)
    h.set_defaults(func=fleet_host.run_host)
