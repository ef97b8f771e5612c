#!/usr/bin/env python3
"""`gtp-ctl fleet` on the host (no guest): four stand-in hosts into a real
lttng-relayd, read back with a real babeltrace2 on one timeline.

Each host is tests/fleet/standin.py reached by `--via` (gtpctl's real
host end, fleet_host.Agent, with a FIFO standing in for /proc/gtp_stream
and the saved records of tests/ctf/test_ctf_writer.py fed into it at
`start`).  The hosts' clocks are deliberately apart: each has its own
TSC base and rate and a CLOCK_REALTIME off by seconds, the way its
kernel would sample it for the DEFS record and the way it answers the
controller's clock probes.  Their events are interleaved in true time
20 ms apart, so only a mapping to within the stated uncertainty puts
them back in order.  Checked: every event of every host through relayd,
merged by babeltrace2 in true time order, each within its host's stated
uncertainty; one host killed mid-run, the others finishing and its trace
readable to its last packet; `gtp-ctl fleet stop`, `--duration`; and the
one-line errors for an unreachable host (ssh to a closed port), a host
without gtp-ctl, and a relayd the hosts cannot reach.

    python3 tests/fleet/test_fleet.py
"""
import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "lib"))
sys.path.insert(0, os.path.join(REPO, "tests", "relayd"))
sys.path.insert(0, os.path.join(REPO, "tests", "ctf"))
import tap  # noqa: E402
import test_ctf_writer as frames  # noqa: E402
import test_relayd as relayd  # noqa: E402  (a real lttng-relayd on free ports)

GTP_CTL = os.path.join(REPO, "gdb-scripts", "gtp-ctl")
STANDIN = os.path.join(HERE, "standin.py")
T0 = 1760000000 * 10**9         # true time of every host's clock sample
STEP_MS = 20                    # true time between two events (of different hosts)
PACKETS, PER = 8, 3             # per host; events per packet
# host number: (TSC at T0, kHz, CLOCK_REALTIME - true time)
CLOCKS = {1: (5 * 10**12, 2893123, 0),
          2: (7 * 10**9, 3400000, 3700 * 10**6),
          3: (10**15, 2100000, -2200 * 10**6),
          4: (10**6, 1000000, 11 * 10**9 + 345678)}

SESSION = """\
# gtp session (gtp-ctl save-session); replay: gtp-ctl start FILE
gtp-session 1
kernel 6.1.0-test build-id 0123456789abcdef0123456789abcdef01234567
boot 00000000-0000-0000-0000-000000000000
buffer size 0x100000 circular 0
disconnected 0
tracepoint 1 at vfs_read+0x0 enabled step 0 pass 0
  action R1ff
end
"""


def host_records(h):
    """(records up to the ENDs, the ENDs, [(true ns, host, event no.)])"""
    tsc, khz, skew = CLOCKS[h]
    recs = [frames.defs_record(tsc=tsc, khz=khz, real=T0 + skew)]
    want = []
    for j in range(PACKETS):
        fr = []
        for i in range(j * PER, (j + 1) * PER):
            ms = 50 + (i * 4 + h - 1) * STEP_MS
            fr.append((tsc + ms * khz, 1, frames.tp1(h * 1000 + i, 0)[0]))
            want.append((T0 + ms * 10**6, "box%d" % h, h * 1000 + i))
        recs.append(frames.packet(j % 2, fr, j // 2, 0))
    return recs, [frames.record(3, 0, 1), frames.record(3, 1, 1)], want


class Fleet(relayd.Tmp):
    def setUp(self):
        relayd.setUpModule()            # fails, naming lttng-relayd or babeltrace2 if missing
        super().setUp()
        self.session = os.path.join(self.tmp, "fleet.session")
        with open(self.session, "w") as f:
            f.write(SESSION)
        self.pidfile = os.path.join(self.tmp, "fleet.pid")

    def hosts(self, numbers, hold=None, refuse=None):
        """Write each stand-in's DIR/boxN.json; the events each will give."""
        want = {}
        for h in numbers:
            recs, ends, want[h] = host_records(h)
            conf = {"skew_ns": CLOCKS[h][2], "hostname": "box%d" % h,
                    "boot_id": str(uuid.uuid4()), "records": [r.hex() for r in recs],
                    "ends": [r.hex() for r in ends], "hold": (hold or {}).get(h),
                    "refuse": (refuse or {}).get(h)}
            with open(os.path.join(self.tmp, "box%d.json" % h), "w") as f:
                json.dump(conf, f)
        return want

    def fleet(self, relayd_address, hosts, *extra, via=None):
        via = via or "%s %s %s {host}" % (sys.executable, STANDIN, self.tmp)
        return subprocess.Popen(
            [sys.executable, GTP_CTL, "fleet", "run", self.session, "--relayd", relayd_address,
             "--via", via, "--name", "fleet", "--pidfile", self.pidfile,
             "--connect-timeout", "30", *extra] + list(hosts),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def merged(self, r, numbers):
        """babeltrace2 over every host's trace on relayd: [(ns, host,
        event no.)] in its order; each host's stated uncertainty."""
        dirs = [r.trace_dir("box%d" % h, "fleet") for h in numbers]
        got, err = frames.babeltrace(*dirs)
        ns = frames.seconds(*dirs)
        unc = {}
        for h, d in zip(numbers, dirs):
            with open(os.path.join(d, "metadata")) as f:
                unc["box%d" % h] = int(re.search(r"clock_offset_uncertainty_ns = (\d+);",
                                                 f.read()).group(1))
        return [(n, g[1], g[4]["rdi"]) for n, g in zip(ns, got)], unc


class TestFleet(Fleet):
    def test_four_hosts_one_timeline_one_killed(self):
        """Four hosts, one relayd; box3 is killed (its whole process group)
        once relayd has 4 of its packets; `gtp-ctl fleet stop` stops the
        others together.  box3 is reported, the others finish with every
        event; babeltrace2 merges the four traces in true time order, each
        event within its host's stated uncertainty, box3's up to its last
        packet."""
        r = self.relayd()
        want = self.hosts((1, 2, 3, 4), hold={3: 1 + 4})     # DEFS and 4 packets
        p = self.fleet(r.address, ["box1", "box2", "box3", "box4"])
        try:
            relayd.until(lambda: all(r.indexed("box%d" % h, "fleet") == PACKETS
                                     for h in (1, 2, 4)) and r.indexed("box3", "fleet") == 4,
                         "every host's packets on relayd", timeout=40)
            with open(os.path.join(self.tmp, "box3.pid")) as f:
                os.killpg(int(f.read()), signal.SIGKILL)
            time.sleep(0.3)
            stop = subprocess.run([sys.executable, GTP_CTL, "fleet", "stop", "--pidfile",
                                   self.pidfile], capture_output=True, text=True, timeout=60)
            so, se = p.communicate(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
        self.assertEqual(stop.returncode, 0, stop.stderr)
        self.assertRegex(stop.stdout, r"^the fleet run \(pid \d+\) stopped every host")
        self.assertEqual(p.returncode, 1, so + se)
        self.assertEqual(se.splitlines(), ["gtp-ctl fleet: box3: mid-run: the connection "
                                           "closed (killed by signal 9)"], se)
        offsets = re.search(r"^fleet: 4 host\(s\) ready; clock offsets \(host - here\): "
                            r"(.*)$", so, re.M)
        self.assertTrue(offsets, so)
        found = re.findall(r"box\d ([+-])(\d+\.\d{6}) s \+-(\d+\.\d{3}) ms",
                           offsets.group(1))
        self.assertEqual(len(found), 4, offsets.group(1))
        for h, (sign, s, ms) in enumerate(found, 1):
            measured = float(sign + s) * 1e9
            self.assertLessEqual(abs(measured - CLOCKS[h][2]), float(ms) * 1e6 + 1000, h)
        self.assertRegex(so, r"\nfleet: started on 4 host\(s\) within [\d.]+ ms")
        for h in (1, 2, 4):
            self.assertIn("box%d: ok\nbox%d:   streamed %d events" % (h, h, PACKETS * PER), so)
            self.assertRegex(so, r"box%d:   sent to relayd 127\.0\.0\.1:%d, box%d/fleet-"
                             % (h, r.ctrl, h))
        self.assertIn("box3: failed: mid-run: the connection closed (killed by signal 9)", so)
        self.assertTrue(so.endswith("fleet: 3 of 4 host(s) ok\n"), so)
        self.assertFalse(os.path.exists(self.pidfile))

        got, unc = self.merged(r, (1, 2, 3, 4))
        expected = sorted(e for h, evs in want.items()
                          for e in (evs[:4 * PER] if h == 3 else evs))
        self.assertEqual([(g[1], g[2]) for g in got], [(e[1], e[2]) for e in expected])
        for (ns, host, _), (true, _, _) in zip(got, expected):
            self.assertLessEqual(abs(ns - true), unc[host] + 2, host)
        # the hosts' own clocks would not have done it
        skewed = sorted(expected, key=lambda e: e[0] + CLOCKS[int(e[1][3:])][2])
        self.assertNotEqual(skewed, expected)
        self.assertLess(max(unc.values()), STEP_MS * 10**6 // 2)
        print("# clock uncertainty per host (ns): %s" % unc)
        self.assertIsNone(r.proc.poll())

    def test_duration_stops_together(self):
        """--duration 1: both hosts stop after a second, whole."""
        r = self.relayd()
        self.hosts((1, 4))
        p = self.fleet(r.address, ["box1", "box4"], "--duration", "1")
        so, se = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 0, so + se)
        self.assertEqual(se, "")
        self.assertIn("box1: ok\nbox1:   streamed %d events" % (PACKETS * PER), so)
        self.assertIn("box4: ok\nbox4:   streamed %d events" % (PACKETS * PER), so)
        got, _ = self.merged(r, (1, 4))
        self.assertEqual(len(got), 2 * PACKETS * PER)


    def test_a_host_refusing_the_session_is_left_out(self):
        """box2 refuses the session (another kernel build, say): one line,
        box2's stream ends, box1 starts and streams all the same."""
        r = self.relayd()
        why = ("gtp-ctl start: FILE:3: the kernel build differs (this boot: 6.1.0-other "
               "build-id 00)")
        self.hosts((1, 2), refuse={2: why})
        p = self.fleet(r.address, ["box1", "box2"], "--duration", "0.5")
        so, se = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 1, so + se)
        self.assertEqual(se, "gtp-ctl fleet: box2: %s\n" % why)
        self.assertRegex(so, r"fleet: 1 host\(s\) ready; clock offsets \(host - here\): box1 ")
        self.assertIn("box1: ok\nbox1:   streamed %d events" % (PACKETS * PER), so)
        self.assertIn("box2: failed: %s\n" % why, so)
        self.assertTrue(so.endswith("fleet: 1 of 2 host(s) ok\n"), so)


class TestErrors(Fleet):
    def one_line(self, p, host, pattern):
        so, se = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 1, so + se)
        self.assertEqual(len(se.splitlines()), 2, se)
        self.assertRegex(se.splitlines()[0], "^gtp-ctl fleet: %s: %s$" % (re.escape(host),
                                                                          pattern))
        self.assertEqual(se.splitlines()[1], "gtp-ctl fleet: no host is ready: nothing started")
        self.assertFalse(os.path.exists(self.pidfile))

    def test_unreachable(self):
        port, = relayd.free_ports(1)
        p = self.fleet("127.0.0.1", ["127.0.0.1"],
                       via="ssh -o BatchMode=yes -o StrictHostKeyChecking=no -p %d {host}" % port)
        self.one_line(p, "127.0.0.1", r"unreachable \(ssh: connect to host 127\.0\.0\.1 port "
                      r"%d: Connection refused\)" % port)

    def test_no_gtp_ctl_there(self):
        p = self.fleet("127.0.0.1", ["box1"], "--remote-ctl", "/nonexistent/gtp-ctl",
                       via="env GTP_FLEET_HOST={host}")
        self.one_line(p, "box1", r"no gtp-ctl there \(env: ./nonexistent/gtp-ctl.: No such "
                      r"file or directory\); install it, or give --remote-ctl PATH")

    def test_relayd_unreachable(self):
        self.hosts((1,))
        port, = relayd.free_ports(1)
        p = self.fleet("127.0.0.1:%d" % port, ["box1"])
        self.one_line(p, "box1", r"gtp-ctl stream: relayd 127\.0\.0\.1:%d \(control port\) "
                      r"unreachable: Connection refused" % port)

    def test_malformed_session(self):
        with open(self.session, "w") as f:
            f.write(SESSION.replace("gtp-session 1", "gtp-session 9"))
        p = self.fleet("127.0.0.1", ["box1"])
        so, se = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(len(se.splitlines()), 1, se)
        self.assertRegex(se, r"^gtp-ctl fleet: %s:2: " % re.escape(self.session))


if __name__ == "__main__":
    sys.exit(tap.main(globals()))
