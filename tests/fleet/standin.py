#!/usr/bin/env python3
"""tests/fleet/standin.py - a host of `gtp-ctl fleet run` on this machine,
for tests/fleet/test_fleet.py, which runs the fleet with

    --via 'python3 tests/fleet/standin.py DIR {host}'

so that each "host" is this script, run as `standin.py DIR HOST gtp-ctl
fleet host`: gtpctl's real host end (fleet_host.Agent) on the pipes,
with what needs a gtptrace.ko replaced from DIR/HOST.json:

  - its CLOCK_REALTIME is this machine's plus skew_ns;
  - its `gtp-ctl stream` is the real one reading a FIFO (DIR/HOST/fifo)
    in place of /proc/gtp_stream, under the host's name, its trace in
    DIR/HOST/ctf, its boot id (the CTF clock's UUID) its own;
  - the session is not downloaded anywhere (the test's file is for no
    kernel), only refused if `refuse` says why; the start writes the
    saved records (DEFS and PACKETs) into the
    FIFO a few milliseconds apart, the first `hold` of them only if hold
    is set (the test kills that host); `gtp-ctl stop` writes the rest and
    every CPU's END record.

Its pid goes to DIR/HOST.pid (its process group: the fleet runs each host
in a session of its own).

    standin.py --gtp-ctl BOOT_ID ARGS...   gtp-ctl ARGS with that boot id
"""
import json
import os
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "gdb-scripts"))
from gtpctl import fleet_host, ksyms, main  # noqa: E402

PACE = 0.01                     # seconds between two records


class StandIn(fleet_host.Agent):
    def __init__(self, tmp, host):
        super().__init__(sys.stdin.buffer, sys.stdout.buffer)
        with open(os.path.join(tmp, host + ".json")) as f:
            self.conf = json.load(f)
        self.dir = os.path.join(tmp, host)
        os.makedirs(self.dir, exist_ok=True)
        self.fifo = os.path.join(self.dir, "fifo")
        if not os.path.exists(self.fifo):
            os.mkfifo(self.fifo)
        self.stopping = threading.Event()
        self.feeder = None

    def clock(self):
        return time.time_ns() + self.conf["skew_ns"]

    def gtp_ctl(self):
        return [sys.executable, os.path.abspath(__file__), "--gtp-ctl", self.conf["boot_id"]]

    def _cmd_stream(self, msg):
        msg = dict(msg, ctf=os.path.join(self.dir, "ctf"),
                   extra=["--target-stream", self.fifo, "--hostname", self.conf["hostname"],
                          "--interval", "2"])
        return super()._cmd_stream(msg)

    def trace_arm(self, session_file, discard):
        return self.conf.get("refuse")

    def trace_go(self):
        self.feeder = threading.Thread(target=self._feed, daemon=True)
        self.feeder.start()
        return None

    def trace_stop(self):
        self.stopping.set()
        if self.feeder is not None:
            self.feeder.join()
        return 0, ""

    def _feed(self):
        recs = [bytes.fromhex(r) for r in self.conf["records"]]
        hold = self.conf.get("hold")
        with open(self.fifo, "wb", buffering=0) as w:
            for k, rec in enumerate(recs):
                if hold is not None and k == hold:
                    threading.Event().wait()    # until the test kills us
                w.write(rec)
                time.sleep(PACE)
            self.stopping.wait()
            for rec in self.conf["ends"]:
                w.write(bytes.fromhex(rec))


def gtp_ctl(boot_id, argv):
    ksyms.boot_id = lambda: boot_id
    return main.main(argv)


if __name__ == "__main__":
    if sys.argv[1] == "--gtp-ctl":
        sys.exit(gtp_ctl(sys.argv[2], sys.argv[3:]))
    tmp, host = sys.argv[1:3]
    with open(os.path.join(tmp, host + ".pid"), "w") as f:
        f.write("%d\n" % os.getpid())
    sys.exit(StandIn(tmp, host).serve())
