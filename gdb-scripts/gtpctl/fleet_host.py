# SPDX-License-Identifier: GPL-2.0
"""gtpctl/fleet_host.py - the host end of gtp-ctl fleet: `gtp-ctl fleet
host`, which the controller runs on each host over ssh and speaks to on
its stdin and stdout (fleet_wire.py).

It answers clock probes (fleet_clock.py) with this machine's
CLOCK_REALTIME, the clock the kernel samples for the run's DEFS record;
starts `gtp-ctl stream --relayd ... --clock-offset ...` as a child and
says ready once the child has the stream file open and relayd's session
(--ready-fd) and the session the controller sent is downloaded to the
target, everything `gtp-ctl start FILE` does but QTStart (cmd_session.arm),
or why not; on "start" sends that QTStart (cmd_session.go), so that every
host's start is one packet away once all are ready; on
"stop" runs `gtp-ctl stop` and waits for the stream, which ends by
itself once every CPU is drained (--until-stop), and hands back its exit
status and summary.  The stream's output goes to temporary files, never
to stdout, which is the channel.  If the controller goes away (the
channel closes) it stops the trace the same way and exits.

Agent's trace_arm, trace_go, trace_stop, clock and gtp_ctl are what a test
stand-in replaces (tests/fleet) to run without a gtptrace.ko.
"""
from __future__ import annotations

import argparse
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any, BinaryIO, Optional

from . import cmd_session, remote
from . import fleet_wire as wire
from .trace import TraceError

STREAM_READY_TIMEOUT = 60.0     # relayd's connection and session, the stream file


class Agent:
    def __init__(self, rin: BinaryIO, wout: BinaryIO) -> None:
        self.rin, self.wout = rin, wout
        self.stream: Optional[subprocess.Popen] = None
        self.out = self.err = None        # the stream's stdout and stderr (temporary files)
        self.session_file: Optional[str] = None
        self.started = False
        self.stop_timeout = 120.0
        self.armed = self.start_args = None

    # -- what a stand-in replaces --------------------------------------------
    def clock(self) -> int:
        return time.time_ns()

    def gtp_ctl(self) -> list[str]:
        """The command that runs this gtp-ctl."""
        return [sys.executable, os.path.realpath(sys.argv[0])]

    def trace_arm(self, session_file: str, discard: bool) -> Optional[str]:
        """gtp-ctl start up to QTStart (cmd_session.arm); why not, or None."""
        self.start_args = argparse.Namespace(file=session_file, target=remote.DEFAULT_TARGET,
                                             timeout=remote.DEFAULT_TIMEOUT, discard=discard)
        try:
            self.armed = cmd_session.arm(self.start_args)[1]
        except TraceError as e:
            return "gtp-ctl start: %s" % e
        return None

    def trace_go(self) -> Optional[str]:
        """QTStart on the armed target; why not, or None."""
        try:
            cmd_session.go(self.armed, self.start_args)
        except TraceError as e:
            return "gtp-ctl start: %s" % e
        finally:
            self.armed.close()
            self.armed = None
        return None

    def trace_stop(self) -> tuple[int, str]:
        """gtp-ctl stop: its exit status and output."""
        return _run(self.gtp_ctl() + ["stop"])

    # -- the conversation ----------------------------------------------------
    def serve(self) -> int:
        wire.send(self.wout, hello=wire.VERSION)
        try:
            for line in self.rin:
                msg = wire.parse(line)
                reply = getattr(self, "_cmd_" + str(msg.get("cmd")), None)
                wire.send(self.wout, **(reply(msg) if reply else
                                        {"error": "unknown request %r" % msg.get("cmd")}))
        except (wire.WireError, BrokenPipeError, OSError):
            pass
        self._end()             # the controller is gone: stop what we started
        return 0

    def _cmd_clock(self, msg: dict[str, Any]) -> dict[str, Any]:
        return {"clock": self.clock()}

    def _cmd_stream(self, msg: dict[str, Any]) -> dict[str, Any]:
        if self.stream is not None:
            return {"error": "a stream is running already"}
        self.stop_timeout = float(msg.get("stop_timeout", self.stop_timeout))
        fd, self.session_file = tempfile.mkstemp(prefix="gtp-fleet-", suffix=".session")
        with os.fdopen(fd, "w") as f:
            f.write(msg["session_text"])
        argv = self.gtp_ctl() + [
            "stream", "--ctf", msg["ctf"], "--force", "--quiet", "--relayd", msg["relayd"],
            "--session", msg["session"], "--clock-offset", str(msg["offset_ns"]),
            "--clock-uncertainty", str(msg["uncertainty_ns"])] + list(msg.get("extra", []))
        said = self._spawn_stream(argv)
        if "ready" in said:
            why = self.trace_arm(self.session_file, bool(msg.get("discard")))
            if why:
                self._end_stream(drain=False)
                return {"error": why}
        return said

    def _spawn_stream(self, argv):
        rfd, wfd = os.pipe()
        self.out, self.err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
        try:
            self.stream = subprocess.Popen(argv + ["--ready-fd", str(wfd)], pass_fds=(wfd,),
                                           stdin=subprocess.DEVNULL, stdout=self.out,
                                           stderr=self.err)
        except OSError as e:
            os.close(rfd)
            return {"error": "cannot run %s: %s" % (argv[0], e.strerror)}
        finally:
            os.close(wfd)
        with os.fdopen(rfd, "rb") as r:
            said = _read_within(r, STREAM_READY_TIMEOUT)
        if said == b"ready\n":
            return {"ready": True}
        if self.stream.poll() is None:
            self.stream.kill()
        self.stream.wait()
        err = _text(self.err).strip().splitlines()
        self.stream = None
        return {"error": err[-1] if err else
                "gtp-ctl stream did not say it was ready within %g s" % STREAM_READY_TIMEOUT}

    def _cmd_start(self, msg: dict[str, Any]) -> dict[str, Any]:
        if self.stream is None or self.stream.poll() is not None:
            return {"error": "no stream is running to take the trace"}
        why = self.trace_go()
        at = self.clock()
        if why:
            self._end_stream(drain=False)
            return {"error": why}
        self.started = True
        return {"started": at}

    def _cmd_stop(self, msg: dict[str, Any]) -> dict[str, Any]:
        stop_code, stop_text = self.trace_stop() if self.started else (0, "")
        code = self._end_stream(drain=self.started)
        self.started = False
        err = _text(self.err) if self.err else ""
        if stop_code:
            err = stop_text + err
        return {"done": code, "out": _text(self.out) if self.out else "", "err": err}

    def _end_stream(self, drain: bool = True) -> Optional[int]:
        """With drain, wait for the stream to end by itself (the run
        drained); then ask it to stop (SIGTERM: at a record boundary); its
        exit status.  An armed target that was not started is let go."""
        if self.armed is not None and not self.started:
            self.armed.close()
            self.armed = None
        if self.stream is None:
            return None
        try:
            if drain:
                return self.stream.wait(self.stop_timeout)
        except subprocess.TimeoutExpired:
            pass
        if self.stream.poll() is None:
            self.stream.send_signal(signal.SIGTERM)
        try:
            return self.stream.wait(30)
        except subprocess.TimeoutExpired:
            self.stream.kill()
            return self.stream.wait()

    def _end(self):
        if self.started:
            self.trace_stop()
        self._end_stream(drain=self.started)
        if self.session_file:
            try:
                os.unlink(self.session_file)
            except OSError:
                pass


def _run(argv: list[str]) -> tuple[int, str]:
    """Exit status and output (stdout and stderr) of a gtp-ctl command."""
    try:
        p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    except OSError as e:
        return 1, "cannot run %s: %s" % (argv[0], e.strerror)
    return p.returncode, p.stdout


def _read_within(f: BinaryIO, timeout: float) -> bytes:
    if select.select([f], [], [], timeout)[0]:
        return f.readline()
    return b""


def _text(f) -> str:
    f.seek(0)
    return f.read().decode(errors="replace")


def run_host(args: Any) -> None:
    """gtp-ctl fleet host: serve the controller on stdin and stdout."""
    raise SystemExit(Agent(sys.stdin.buffer, sys.stdout.buffer).serve())
