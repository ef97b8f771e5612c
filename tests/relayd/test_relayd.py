#!/usr/bin/env python3
"""`gtp-ctl stream --relayd` against a real lttng-relayd, read back with a
real babeltrace2, on the host (no guest).

Each relayd listens on 127.0.0.1 on free ports and writes under a
temporary directory.  The record streams are check-ctf's (DEFS, PACKETs
of ring records holding gdb trace-file frames, END: tests/ctf/
test_ctf_writer.py builds them), given to gtp-ctl as a saved spool
(--from-file) or through a FIFO standing in for /proc/gtp_stream (the
live path: copier and converter processes).  It checks what relayd wrote
(every event, in order, with its values; the same bytes as the local
trace; one index entry per packet), a live viewer (babeltrace2's
lttng-live source) seeing events while the stream goes on and in time
order when a CPU's packet comes late, four senders
into one relayd with one killed mid-stream, and the errors: relayd
unreachable, of an incompatible version (a stand-in server answering
VERSION: no such relayd is at hand), refusing a command, dying mid-stream.

lttng-relayd (Debian: lttng-tools) and babeltrace2 are required: without
them the tests fail, saying so (`make deps` installs both).

    python3 tests/relayd/test_relayd.py
"""
import glob
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "lib"))
sys.path.insert(0, os.path.join(REPO, "tests", "ctf"))
import tap  # noqa: E402
import test_ctf_writer as frames  # noqa: E402  (the record streams, babeltrace2's output parsed)

GTP_CTL = os.path.join(REPO, "gdb-scripts", "gtp-ctl")
RELAYD = shutil.which("lttng-relayd")
BABELTRACE = shutil.which("babeltrace2")
INDEX_HEAD = struct.Struct(">IIII")     # ctf-index.h: magic, major, minor, entry size
INDEX_MAGIC = 0xC1F1DCC1
WAIT = 15.0                             # seconds for anything that should take well under one


def setUpModule():
    missing = [what for what, path in (("lttng-relayd (Debian package lttng-tools)", RELAYD),
                                       ("babeltrace2", BABELTRACE)) if not path]
    if missing:
        raise RuntimeError("tests/relayd needs %s, missing here: `make deps` installs "
                           "them" % " and ".join(missing))


def free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def until(cond, what, timeout=WAIT):
    give_up = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > give_up:
            raise AssertionError("timed out waiting for " + what)
        time.sleep(0.02)


class Relayd:
    """A real lttng-relayd on free ports of 127.0.0.1, writing under tmp."""

    def __init__(self, tmp):
        self.out = os.path.join(tmp, "relayd-out")
        self.log = os.path.join(tmp, "relayd.log")
        home = os.path.join(tmp, "home")
        os.makedirs(home, exist_ok=True)
        env = dict(os.environ, HOME=home, LTTNG_HOME=home)
        for attempt in range(3):        # a free port may be taken before relayd binds it
            self.ctrl, self.data, self.live = free_ports(3)
            with open(self.log, "ab") as log:
                self.proc = subprocess.Popen(
                    [RELAYD, "-o", self.out, "-C", "tcp://127.0.0.1:%d" % self.ctrl,
                     "-D", "tcp://127.0.0.1:%d" % self.data,
                     "-L", "tcp://127.0.0.1:%d" % self.live], env=env,
                    stdin=subprocess.DEVNULL, stdout=log, stderr=log)
            if self._listening():
                return
            self.stop()
        raise AssertionError("lttng-relayd did not start: " + self.logged())

    def _listening(self):
        give_up = time.monotonic() + WAIT
        while self.proc.poll() is None and time.monotonic() < give_up:
            try:
                socket.create_connection(("127.0.0.1", self.live), timeout=1).close()
                return True
            except OSError:
                time.sleep(0.02)
        return False

    @property
    def address(self):
        return "127.0.0.1:%d:%d" % (self.ctrl, self.data)

    def live_url(self, host, session):
        return "net://127.0.0.1:%d/host/%s/%s" % (self.live, host, session)

    def viewers(self, host, session):
        """How many live viewers relayd says the session has (None: it
        does not list the session)."""
        p = subprocess.run([BABELTRACE, "-i", "lttng-live", "net://127.0.0.1:%d" % self.live],
                           capture_output=True, text=True)
        m = re.search(r"^%s \(.*, (\d+) client\(s\) connected\)$"
                      % re.escape(self.live_url(host, session)), p.stdout, re.M)
        return int(m.group(1)) if m else None

    def trace_dir(self, host, session, path="kernel"):
        """The directory relayd wrote the session's trace to (HOST/
        SESSION-DATETIME/kernel)."""
        dirs = glob.glob(os.path.join(self.out, host, session + "-*", path))
        if len(dirs) != 1:
            raise AssertionError("relayd wrote %r for %s/%s" % (dirs, host, session))
        return dirs[0]

    def indexed(self, host, session):
        """Index entries relayd wrote for the session's packets so far."""
        n = 0
        for f in glob.glob(os.path.join(self.out, host, session + "-*", "kernel", "index",
                                        "*.idx")):
            n += len(read_index(f))
        return n

    def logged(self):
        with open(self.log, errors="replace") as f:
            return f.read()[-3000:]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(WAIT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def read_index(path):
    """[(offset, packet bits, content bits, ts_begin, ts_end, discarded,
    stream class id, ...)] of an index file."""
    with open(path, "rb") as f:
        data = f.read()
    if not data:
        return []
    magic, major, _minor, size = INDEX_HEAD.unpack_from(data)
    assert (magic, major) == (INDEX_MAGIC, 1), path
    body = data[INDEX_HEAD.size:]
    return [struct.unpack_from(">%dQ" % (size // 8), body, o)
            for o in range(0, len(body) - size + 1, size)]


def gtp_ctl(*args, **kw):
    return subprocess.run([sys.executable, GTP_CTL, "stream"] + list(args),
                          capture_output=True, text=True, timeout=60, **kw)


def read(*dirs):
    """[(cycles, cpu, event name, fields)] as babeltrace2 shows dirs, and
    its stderr."""
    got, err = frames.babeltrace(*dirs)
    return [(g[0], g[3], g[2], g[4]) for g in got], err


def many(host_no, packets, per=3):
    """A record stream of two CPUs taking turns, `packets` packets each of
    `per` events whose values name the host, CPU and event; and the events
    in time order, per packet."""
    recs, by_packet = [frames.defs_record()], []
    for k in range(packets):
        for cpu in (0, 1):
            fr, evs = [], []
            for e in range(per):
                ts = frames.TSC + 1000 + (k * 2 + cpu) * 100 + e
                blocks, fields = frames.tp1(host_no * 10**6 + k * 100 + e, cpu)
                fr.append((ts, 1, blocks))
                evs.append((ts, cpu, "tp1_gtp_test_function", fields))
            recs.append(frames.packet(cpu, fr, k, 0))
            by_packet.append(evs)
    recs += [frames.record(3, 0, 1), frames.record(3, 1, 1)]
    return recs, by_packet


class Sender:
    """gtp-ctl stream reading a FIFO (a stand-in for /proc/gtp_stream) that
    the test fills record by record: the live path, both processes."""

    def __init__(self, tmp, relayd, host, session, *extra):
        self.dir = os.path.join(tmp, host)
        os.makedirs(self.dir)
        self.fifo = os.path.join(self.dir, "fifo")
        os.mkfifo(self.fifo)
        self.ctf = os.path.join(self.dir, "ctf")
        self.proc = subprocess.Popen(
            [sys.executable, GTP_CTL, "stream", "--target-stream", self.fifo, "--ctf", self.ctf,
             "--interval", "1", "--relayd", relayd.address, "--hostname", host,
             "--session", session] + list(extra),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            start_new_session=True)
        self.w = open(self.fifo, "wb")

    def write(self, *recs):
        self.w.write(b"".join(recs))
        self.w.flush()

    def finish(self):
        """Close the FIFO; (exit status, stdout, stderr)."""
        self.w.close()
        so, se = self.proc.communicate(timeout=60)
        return self.proc.returncode, so, se

    def kill(self):
        """SIGKILL both processes, as a crash would."""
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.communicate(timeout=60)
        self.w.close()


class Tmp(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="gtp-relayd-")
        self.relayds = []

    def tearDown(self):
        for r in self.relayds:
            r.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def relayd(self):
        r = Relayd(tempfile.mkdtemp(dir=self.tmp))
        self.relayds.append(r)
        return r

    def spool(self, data, name="spool"):
        path = os.path.join(self.tmp, name)
        with open(path, "wb") as f:
            f.write(data)
        return path


class TestOnDisk(Tmp):
    def test_every_event_in_order_each_protocol(self):
        """A saved spool (--from-file) through relayd offered 2.13 (the
        2.11 layouts and trace chunks), 2.10 and 2.8 (fixed layouts, 2.8
        indexes) and 2.4 (indexes without instance and packet sequence
        number): every event in order with its values, the lost frames,
        the very bytes of the local trace, one index entry per packet."""
        data, want = frames.stream_events(pieces=2)
        spool = self.spool(data)
        r = self.relayd()
        for proto in (None, "2.10", "2.8", "2.4"):
            session = "s" + (proto or "default").replace(".", "_")
            ctf = os.path.join(self.tmp, session)
            extra = ["--relayd-protocol", proto] if proto else []
            p = gtp_ctl("--from-file", spool, "--ctf", ctf, "--relayd", r.address,
                        "--hostname", "hostA", "--session", session, *extra)
            self.assertEqual(p.returncode, 0, p.stderr + r.logged())
            self.assertEqual(p.stderr, "")
            self.assertRegex(p.stdout, r"sent to relayd 127\.0\.0\.1:%d, hostA/%s-\d{8}-\d{6}\n"
                             % (r.ctrl, session))
            d = r.trace_dir("hostA", session)
            got, err = read(d)
            self.assertEqual(got, want, proto)
            self.assertIn("discarded 4 events", err)
            self.assertIn("discarded 2 events", err)
            for name in ("metadata", "stream_0", "stream_1"):
                with open(os.path.join(d, name), "rb") as a, \
                        open(os.path.join(ctf, name), "rb") as b:
                    self.assertEqual(a.read(), b.read(), (proto, name))
            # cpu 0: an empty first packet (4 lost before it) and 2; cpu 1:
            # 1 and an empty one after it (2 lost at its END)
            for cpu, packets in ((0, 3), (1, 2)):
                idx = read_index(os.path.join(d, "index", "stream_%d.idx" % cpu))
                self.assertEqual(len(idx), packets, (proto, cpu))
                self.assertEqual(len(idx[0]), 9 if proto in (None, "2.10", "2.8") else 7)
                off = 0
                for e in idx:                          # packets back to back, as the file has them
                    self.assertEqual(e[0], off)
                    off += e[1] // 8
                self.assertEqual(off, os.path.getsize(os.path.join(d, "stream_%d" % cpu)))

    def test_later_run_beside_the_first(self):
        """Without --until-stop every run goes: run 2 is the session's
        run-2 trace beside kernel, as DIR/run-2 is locally."""
        one, want1 = frames.stream_events(run=1)
        two, want2 = frames.stream_events(run=2)
        r = self.relayd()
        ctf = os.path.join(self.tmp, "ctf")
        p = gtp_ctl("--from-file", self.spool(one + two), "--ctf", ctf, "--duration", "60",
                    "--relayd", r.address, "--hostname", "hostR", "--session", "runs")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(read(r.trace_dir("hostR", "runs"))[0], want1)
        self.assertEqual(read(r.trace_dir("hostR", "runs", "run-2"))[0], want2)


class Viewer:
    """babeltrace2's lttng-live source on a session, its lines as they come
    (line-buffered); it ends when relayd says the session has."""

    def __init__(self, r, host, session):
        self.proc = subprocess.Popen(
            ["stdbuf", "-oL", BABELTRACE, "-i", "lttng-live", r.live_url(host, session),
             "--params", 'session-not-found-action="end"', "--clock-cycles", "--no-delta"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines = []
        self.reader = threading.Thread(target=lambda: self.lines.extend(self.proc.stdout))
        self.reader.start()
        until(lambda: r.viewers(host, session) == 1, "the viewer attached")

    def wait_lines(self, n, what):
        until(lambda: len(self.lines) >= n, what)
        return len(self.lines)

    def finish(self):
        """(exit status, [(cycles, cpu, event name, fields)], stderr)"""
        try:
            self.proc.wait(WAIT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            self.reader.join()
            err = self.proc.stderr.read()
            self.proc.stdout.close()
            self.proc.stderr.close()
        got = []
        for line in self.lines:
            m = frames.LINE.match(line.rstrip("\n"))
            assert m, line
            got.append((int(m.group(1)), int(m.group(4)), m.group(3),
                        {k: int(v, 0) for k, v in frames.FIELD.findall(m.group(5))}))
        return self.proc.returncode, got, err

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.reader.join()


class TestLive(Tmp):
    def test_viewer_sees_events_while_they_come(self):
        """babeltrace2 net://.../host/H/SESSION attached to the live
        session prints each event once every CPU's stream has a later
        packet, before the run ends; at the end it has every event sent
        after it attached, with its values.  Protocol 2.13 and 2.4."""
        r = self.relayd()
        for host, proto in (("hostL", None), ("hostM", "2.4")):
            with self.subTest(proto=proto):
                self.live(r, host, ["--relayd-protocol", proto] if proto else [])

    def live(self, r, host, extra):
        recs, by_packet = many(1, 6)
        s = Sender(self.tmp, r, host, "live", *extra)
        s.write(*recs[:3])                              # DEFS, a packet of each CPU
        until(lambda: r.indexed(host, "live") == 2, "the first packets on relayd")
        v = Viewer(r, host, "live")                     # at the streams' ends: sees what comes
        self.addCleanup(v.kill)
        s.write(*recs[3:-2])
        # every packet but the last one's events are behind a later packet
        before_end = v.wait_lines(3 * (len(by_packet) - 3), "the live viewer's events")
        s.write(*recs[-2:])                             # END of both CPUs
        rc, so, se = s.finish()
        self.assertEqual(rc, 0, se)
        rc, got, err = v.finish()
        self.assertEqual(rc, 0, err)
        self.assertTrue(all(line.split()[1] == host for line in v.lines))
        want = [e for evs in by_packet[2:] for e in evs]
        self.assertEqual(got, sorted(want))
        self.assertLess(before_end, len(want))          # and the rest only at the end

    def test_a_late_cpu_keeps_the_order(self):
        """A CPU whose sub-buffer completes late holds events older than
        another CPU's newer packets: the viewer waits for it, shows its
        older event first, and does not fail on time going backwards.
        More than a live period (1 s) passes between the two."""
        r = self.relayd()
        seq = {0: 0, 1: 0}

        def pk(cpu, *offsets):
            fr = [(frames.TSC + o, 1, frames.tp1(o, cpu)[0]) for o in offsets]
            seq[cpu] += 1
            return frames.packet(cpu, fr, seq[cpu] - 1, 0), [frames.TSC + o for o in offsets]
        first = [pk(0, 1000), pk(1, 1001)]
        early = [pk(0, 2000, 2001), pk(0, 3000, 3001)]
        late = pk(1, 1500, 2500, 3500)
        s = Sender(self.tmp, r, "hostO", "order")
        s.write(frames.defs_record(), *(p for p, _ in first))
        until(lambda: r.indexed("hostO", "order") == 2, "the first packets on relayd")
        v = Viewer(r, "hostO", "order")
        self.addCleanup(v.kill)
        s.write(*(p for p, _ in early))
        until(lambda: r.indexed("hostO", "order") == 4, "the early packets on relayd")
        time.sleep(1.3)
        self.assertEqual(v.lines, [])                   # it waits for cpu 1
        s.write(late[0])
        # up to cpu 1's next packet, which cpu 0's 3000 waits for
        v.wait_lines(4, "the late CPU's events")
        s.write(frames.record(3, 0, 1), frames.record(3, 1, 1))
        rc, so, se = s.finish()
        self.assertEqual(rc, 0, se)
        rc, got, err = v.finish()
        self.assertEqual(rc, 0, err)
        self.assertEqual([g[0] for g in got], sorted(early[0][1] + early[1][1] + late[1]))


class TestFleet(Tmp):
    def test_four_senders_one_killed(self):
        """Four hosts stream into one relayd at once; host 3 is killed
        (SIGKILL, both processes) after 4 packets.  The others finish,
        each its own trace with every event; host 3's trace reads to its
        last packet."""
        r = self.relayd()
        streams = {h: many(h, 12) for h in (1, 2, 3, 4)}
        senders = {h: Sender(self.tmp, r, "host%d" % h, "fleet") for h in streams}

        def feed(h):
            recs, _ = streams[h]
            if h == 3:
                senders[h].write(*recs[:5])             # DEFS and 4 packets
                return
            for rec in recs:
                senders[h].write(rec)
        threads = [threading.Thread(target=feed, args=(h,)) for h in streams]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        until(lambda: r.indexed("host3", "fleet") == 4, "host3's 4 packets on relayd")
        senders[3].kill()
        for h in (1, 2, 4):
            rc, so, se = senders[h].finish()
            self.assertEqual(rc, 0, se + r.logged())
            self.assertIn("streamed 72 events", so)
        for h, (_, by_packet) in streams.items():
            got, _ = read(r.trace_dir("host%d" % h, "fleet"))
            kept = by_packet[:4] if h == 3 else by_packet
            self.assertEqual(got, sorted(e for evs in kept for e in evs), "host%d" % h)
        self.assertIsNone(r.proc.poll())                # relayd itself is fine


class _VersionServer:
    """A stand-in for a relayd of another protocol version: answers the
    VERSION command with (major, minor), then closes."""

    def __init__(self, major, minor):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.port = self.sock.getsockname()[1]
        self.reply = struct.pack(">II", major, minor)
        self.seen = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        control, _ = self.sock.accept()
        data, _ = self.sock.accept()                    # gtp-ctl opens both first
        head = control.recv(24)
        circuit, size, cmd, version = struct.unpack(">QQII", head)
        self.seen.append((cmd, struct.unpack(">II", control.recv(size))))
        control.sendall(self.reply)
        control.close()
        data.close()

    def close(self):
        self.sock.close()


class TestErrors(Tmp):
    def one_line_error(self, p, pattern):
        self.assertEqual(p.returncode, 1, p.stderr)
        lines = p.stderr.splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertRegex(lines[0], "^gtp-ctl stream: " + pattern)

    def test_unreachable(self):
        data, _ = frames.stream_events()
        spool = self.spool(data)
        port, = free_ports(1)
        ctf = os.path.join(self.tmp, "ctf")
        p = gtp_ctl("--from-file", spool, "--ctf", ctf, "--relayd", "127.0.0.1:%d" % port)
        self.one_line_error(p, r"relayd 127\.0\.0\.1:%d \(control port\) unreachable: "
                            r"Connection refused$" % port)
        self.assertFalse(os.path.exists(ctf))           # nothing read, nothing left
        with open(spool, "rb") as f:
            self.assertEqual(f.read(), data)

    def test_incompatible_version(self):
        data, _ = frames.stream_events()
        spool = self.spool(data)
        for major, minor in ((2, 3), (3, 0)):
            srv = _VersionServer(major, minor)
            try:
                p = gtp_ctl("--from-file", spool, "--ctf", os.path.join(self.tmp, "c"),
                            "--relayd", "127.0.0.1:%d:%d" % (srv.port, srv.port))
                srv.thread.join(WAIT)
            finally:
                srv.close()
            self.assertEqual(srv.seen, [(5, (2, 13))])  # VERSION, offering 2.13
            self.one_line_error(p, r"relayd 127\.0\.0\.1:%d speaks protocol %d\.%d; gtp-ctl "
                                r"speaks 2\.4 to 2\.13$" % (srv.port, major, minor))

    def test_command_refused(self):
        """relayd refuses a session name that is not a file name."""
        data, _ = frames.stream_events()
        r = self.relayd()
        p = gtp_ctl("--from-file", self.spool(data), "--ctf", os.path.join(self.tmp, "c"),
                    "--relayd", r.address, "--session", "a/b", "--hostname", "h")
        self.one_line_error(p, r"relayd 127\.0\.0\.1:%d refused CREATE_SESSION \(session "
                            r"'a/b' of host 'h'\) \(LTTng error 25: fatal error\)$" % r.ctrl)
        self.assertIsNone(r.proc.poll())

    def test_relayd_dies_mid_stream(self):
        """The relayd is killed after 3 packets: one line says so, the
        local trace gets every event all the same, the spool is kept and
        converts again, the exit status is 1."""
        r = self.relayd()
        recs, by_packet = many(7, 8)
        s = Sender(self.tmp, r, "hostD", "dies")
        s.write(*recs[:4])
        until(lambda: r.indexed("hostD", "dies") == 3, "3 packets on relayd")
        r.proc.kill()
        r.proc.wait()
        for rec in recs[4:]:
            s.write(rec)
            time.sleep(0.005)
        rc, so, se = s.finish()
        self.assertEqual(rc, 1, se)
        spool = os.path.join(s.ctf, ".gtp-stream.spool")
        lines = se.splitlines()
        self.assertEqual(len(lines), 2, se)
        self.assertRegex(lines[0], r"^gtp-ctl stream: relayd 127\.0\.0\.1:%d.*; the trace goes "
                         r"on in %s only$" % (r.ctrl, re.escape(s.ctf)))
        self.assertEqual(lines[1], "gtp-ctl stream: the records read are kept in %s "
                         "(gtp-ctl stream --from-file)" % spool)
        self.assertIn("until it failed", so)
        want = sorted(e for evs in by_packet for e in evs)
        self.assertEqual(read(s.ctf)[0], want)
        again = os.path.join(self.tmp, "again")
        p = gtp_ctl("--from-file", spool, "--ctf", again)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(read(again)[0], want)


if __name__ == "__main__":
    sys.exit(tap.main(globals()))
