"""Tracing without stopping (docs/streaming.md): gtp-ctl stream takes sub-buffers
from /proc/gtp_stream while the probes keep writing and writes CTF that
Debian's babeltrace2 reads.  Every expected value is what the Fig. 11
loop passes (call k: counter1 = k, counter2 = k - 1, so 2*counter1 +
3*counter2 = 5k - 3), never the streamer's own output.

The tests here stay Python: each runs gtp-ctl stream beside the trace
(started before it, finished after it) and compares counts between the
streamer, babeltrace2 and gdb, or drives a userfaultfd and raw packets
from threads.  gdb's own tsave -ctf is a case in cases/test_stream.case.
"""
import errno
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import time

from actors import Actors
from gtplib import (GDB_HEAD, GTP_CTL, REPO, connect, ctl, ctl_session as session,
                    expect, expect_not, gdb_script, leaves_target_clean,
                    reset_target, Skip)

OUT = "/tmp/gtp-stream-tests"
PACE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pace.py")

# the Fig. 11 value as a trace state variable, so it is a named CTF field
FIG11_V = """tvariable $v
trace gtp_test_function
actions
teval $v = 2*counter1+3*counter2
collect $v
end
"""


def _dir(name):
    d = os.path.join(OUT, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(OUT, exist_ok=True)
    return d


def _wait_open(pid):
    """Until process pid has /proc/gtp_stream open."""
    fds = "/proc/%d/fd" % pid
    for _ in range(600):
        for fd in os.listdir(fds):
            try:
                if os.readlink(os.path.join(fds, fd)) == "/proc/gtp_stream":
                    return
            except OSError:
                pass
        time.sleep(0.1)
    raise AssertionError("gtp-ctl stream never opened /proc/gtp_stream")


def _streamer(d, *extra, cpu=None):
    """gtp-ctl stream into d, attached before the trace starts (a consumer
    takes the run going on when it opens, or the next one).  With cpu, the
    consumer runs there at real-time priority: whenever it wakes, it runs
    before a normal task on that CPU."""
    def realtime():
        os.sched_setaffinity(0, {cpu})
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
    p = subprocess.Popen([GTP_CTL, "stream", "--ctf", d] + list(extra),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL,
                         preexec_fn=realtime if cpu is not None else None)
    _wait_open(p.pid)
    return p


def _finish(p, timeout=300):
    """The streamer's exit: (events, lost) from its summary line."""
    so, se = p.communicate(timeout=timeout)
    so, se = so.decode(), se.decode()
    assert p.returncode == 0, (p.returncode, so, se)
    m = expect(so, r"^streamed (\d+) events \(\d+ bytes\) from \d+ CPU\(s\) to .*; (\d+) lost")
    return int(m.group(1)), int(m.group(2)), so


def _babeltrace(*dirs, args=()):
    """babeltrace2's text of the traces: (stdout, events, discarded)."""
    p = subprocess.run(["babeltrace2"] + list(args) + list(dirs), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=600)
    # apart: the warnings (stderr) would land inside event lines (stdout)
    out, err = p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    assert p.returncode == 0, (out[-3000:], err[-3000:])
    discarded = sum(int(n) for n in re.findall(r"discarded (\d+) events?", err))
    return out, discarded


def _left(out):
    """Frames gdb's tstatus says the buffer holds after tstop."""
    return int(expect(out, r"(?:Collected|Buffer contains) (\d+) trace frames").group(1))


def _seconds(out):
    """Event times of babeltrace2's default output, in ns, in output order."""
    return [int(s) * 10**9 + int(ns) for s, ns in
            re.findall(r"^\[(\d+)\.(\d{9})\]", out, re.M)]


def _field(out, name):
    return [int(v) for v in re.findall(r"\b%s = (-?\d+)" % name, out)]


@leaves_target_clean
def test_stream_paced_no_drops():
    """100 000 hits through a buffer 15x too small to hold them (2 MB of
    frames, 128 KiB a CPU), at a pace the consumer keeps up with: nothing
    lost, every value in order.

    The consumer is a real-time task on the loop's CPU, as a deployment
    that must not drop would run it: it drains whenever it wakes, so
    keeping up does not depend on how the host schedules the guest's
    CPUs (on a loaded CI host, a consumer on the other CPU fell behind)."""
    reset_target()
    d = _dir("paced")
    p = _streamer(d, "--until-stop", cpu=0)
    out = session("set trace-buffer-size 400000\n" + FIG11_V + """tstart
shell %s 1000 100 20 0
tstop
tstatus
""" % PACE)
    events, lost, so = _finish(p)
    assert (events, lost) == (100000, 0), so
    expect(out, r"Trace buffer has \d+ bytes of 262144 bytes free")
    bt, discarded = _babeltrace(d)
    assert discarded == 0, bt[-2000:]
    assert _field(bt, "v") == [5 * k - 3 for k in range(1, 1001)] * 100
    # once drained, the consumer has taken everything: gdb sees no frame
    rc, so, se = ctl("status")
    assert rc == 0, se
    expect(so, r"^frames: 0 in the buffer, 100000 created")


@leaves_target_clean
def test_stream_burst_counts_drops():
    """One burst of 200 000 calls: whatever the consumer could not take in
    time is counted, per CPU and in the CTF packets, never lost silently."""
    reset_target()
    d = _dir("burst")
    p = _streamer(d, "--until-stop")
    session("set trace-buffer-size 800000\n" + FIG11_V + """tstart
shell echo 200000 > /proc/gtp_test
tstop
""")
    events, lost, so = _finish(p)
    assert events + lost == 200000, so
    bt, discarded = _babeltrace(d)
    vals = _field(bt, "v")
    assert len(vals) == events and discarded == lost, (len(vals), discarded, so)
    # what was kept is in call order, with no value that was never passed
    ks = [(v + 3) // 5 for v in vals]
    assert all(5 * k - 3 == v for k, v in zip(ks, vals))
    assert ks == sorted(ks) and len(set(ks)) == len(ks)


def _converter_pid(pid):
    """gtp-ctl stream's converter: the reading process's one child."""
    for _ in range(600):
        try:
            with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
                kids = f.read().split()
        except OSError:
            kids = []
        if kids:
            return int(kids[0])
        time.sleep(0.1)
    raise AssertionError("gtp-ctl stream started no converter")


def _settled(path):
    """Until the file at path has stopped growing for a second."""
    last = -1
    for _ in range(120):
        size = os.path.getsize(path)
        if size == last:
            return
        last = size
        time.sleep(1)
    raise AssertionError("%s still grows" % path)


@leaves_target_clean
def test_stream_converter_behind_costs_nothing():
    """Four bursts of 40 000 Fig. 11 calls a second apart (28 MB of frames)
    through a 16 MiB buffer, with the CTF conversion stopped (SIGSTOP)
    for the whole run: the reading process only copies, so it drains each
    burst before the next and nothing is lost; the conversion catches up
    afterwards.  Had the reader converted as it read, it would have taken
    nothing and more than 40% of the calls would be lost."""
    reset_target()
    d = _dir("behind")
    p = _streamer(d, "--until-stop")
    conv = _converter_pid(p.pid)
    os.kill(conv, signal.SIGSTOP)
    try:
        out = session("set trace-buffer-size 16777216\n" + """trace gtp_test_function
actions
collect (2*counter1+3*counter2)
end
tstart
shell for i in 1 2 3 4; do echo 40000 > /proc/gtp_test; sleep 1; done
tstop
tstatus
""")
        # the copier took every frame (and is done once the spool stops
        # growing): none is left for gdb
        _settled(os.path.join(d, ".gtp-stream.spool"))
        rc, so, se = ctl("status")
        assert rc == 0, se
        expect(so, r"^frames: 0 in the buffer, 160000 created")
        assert not os.path.exists(os.path.join(d, "metadata")), os.listdir(d)
    finally:
        os.kill(conv, signal.SIGCONT)
    events, lost, so = _finish(p)
    assert (events, lost) == (160000, 0), (so, out)
    assert not os.path.exists(os.path.join(d, ".gtp-stream.spool")), os.listdir(d)
    bt, discarded = _babeltrace(d)
    # counter1 and counter2 are gtp_test_function's arguments: the
    # expression collects the registers that hold them
    c1 = [int(v, 16) for v in re.findall(r"\brdi = (0x[0-9A-F]+)", bt)]
    c2 = [int(v, 16) for v in re.findall(r"\brsi = (0x[0-9A-F]+)", bt)]
    assert discarded == 0 and len(c1) == len(c2) == 160000, (len(c1), discarded, bt[:600])
    # call k passes counter1 = k, counter2 = k - 1, for k = 1..40000 in each burst
    assert c1 == list(range(1, 40001)) * 4, c1[:3]
    assert all(b == a - 1 for a, b in zip(c1, c2))


@leaves_target_clean
def test_stream_static_fields():
    """A static tracepoint's $_sdata becomes the event's own fields."""
    reset_target()
    d = _dir("static")
    p = _streamer(d, "--until-stop")
    session("""gtp-strace gtp_test:gtp_test_event
actions
collect $_sdata
end
tstart
shell echo 5 > /proc/gtp_test
tstop
""")
    events, lost, so = _finish(p)
    assert (events, lost) == (5, 0), so
    bt, _ = _babeltrace(d)
    assert _field(bt, "counter1") == [1, 2, 3, 4, 5], bt
    assert _field(bt, "counter2") == [0, 1, 2, 3, 4], bt


@leaves_target_clean
def test_stream_two_cpus_one_timeline():
    """Both CPUs writing at once: one trace, in time order across CPUs,
    each CPU's calls complete and in order."""
    reset_target()
    d = _dir("cpus")
    p = _streamer(d, "--until-stop")
    session(FIG11_V + """tstart
shell taskset -c 0 sh -c 'echo 20000 > /proc/gtp_test' & taskset -c 1 sh -c 'echo 20000 > /proc/gtp_test' & wait
tstop
""")
    events, lost, so = _finish(p)
    assert (events, lost) == (40000, 0), so
    # babeltrace2 merges the CPUs by nanoseconds; cycles order each CPU
    bt, _ = _babeltrace(d, args=("--clock-seconds",))
    ts = _seconds(bt)
    assert len(ts) == 40000 and ts == sorted(ts)
    bt, _ = _babeltrace(d, args=("--clock-cycles",))
    per_cpu = {}
    for t, cpu, v in re.findall(r"^\[(\d+)\].*?cpu_id = (\d+) \}.*?\bv = (-?\d+)", bt, re.M):
        per_cpu.setdefault(int(cpu), []).append((int(t), int(v)))
    assert sorted(per_cpu) == [0, 1], sorted(per_cpu)
    for cpu, tv in per_cpu.items():
        assert [v for _, v in tv] == [5 * k - 3 for k in range(1, 20001)], cpu
        assert [t for t, _ in tv] == sorted(t for t, _ in tv), cpu


@leaves_target_clean
def test_stream_two_machines_one_axis():
    """Streams from two machines (here: two host names, one after the
    other) open together in babeltrace2 on one time axis."""
    old = socket.gethostname()
    dirs = []
    try:
        for host in ("box-a", "box-b"):
            reset_target()
            socket.sethostname(host)
            d = _dir(host)
            p = _streamer(d, "--until-stop")
            session(FIG11_V + "tstart\nshell echo 3 > /proc/gtp_test\ntstop\n")
            assert _finish(p)[:2] == (3, 0)
            dirs.append(d)
    finally:
        socket.sethostname(old)
    bt, _ = _babeltrace(*dirs, args=("--clock-seconds",))
    hosts = re.findall(r"\b(box-[ab])\b", bt)
    assert hosts == ["box-a"] * 3 + ["box-b"] * 3, bt
    ts = _seconds(bt)
    assert len(ts) == 6 and ts == sorted(ts), bt
    for d in dirs:
        meta = open(os.path.join(d, "metadata")).read()
        expect(meta, r'kernel_release = "%s"' % re.escape(os.uname().release))


@leaves_target_clean
def test_stream_leaves_the_rest_to_gdb():
    """A consumer that ends while the trace runs (--duration) takes only
    complete sub-buffers: gdb's tfind after tstop sees the rest.  The
    last 2000 calls wait until it has said it ended (at most 2 minutes):
    a consumer slow to start (a loaded RT guest) would otherwise still run
    then, and take them all."""
    reset_target()
    d = _dir("duration")
    log = os.path.join(OUT, "duration.out")
    out = session(FIG11_V + """tstart
shell %s stream --ctf %s --duration 3 > %s 2>&1 &
shell echo 30000 > /proc/gtp_test
shell for i in $(seq 240); do grep -q '^streamed' %s && break; sleep 0.5; done
shell echo 2000 > /proc/gtp_test
tstop
tstatus
tfind start
tdump
""" % (GTP_CTL, d, log, log))
    so = open(log).read()
    m = expect(so, r"^streamed (\d+) events \(\d+ bytes\) from \d+ CPU\(s\) to .*; (\d+) lost")
    events, lost = int(m.group(1)), int(m.group(2))
    left = _left(out)
    assert lost == 0 and events > 0 and left > 0, (so, out)
    assert events + left == 32000, (events, left)
    # the first frame gdb sees is the call after the last one streamed
    bt, _ = _babeltrace(d)
    last = _field(bt, "v")[-1]
    assert int(expect(out, r"^\$v = (-?\d+)$").group(1)) == last + 5, out


# A consumer of our own, opened before the trace starts: on go it reads
# /proc/gtp_stream record by record until it has one sub-buffer of frames
# (the stream takes it from the store when it hands out its header), then
# says done and keeps the stream open.
TAKE_ONE = """
sys.path.insert(0, os.path.join(%r, "gdb-scripts"))
from gtpctl.abi import STREAM_REC, STREAM_PACKET
fd = os.open("/proc/gtp_stream", os.O_RDONLY)
os.read(g, 1)
def get(n):
    b = b""
    while len(b) < n:
        try:
            b += os.read(fd, n - len(b))
        except BlockingIOError:
            time.sleep(0.05)
    return b
while True:
    rec = STREAM_REC.unpack(get(STREAM_REC.size))
    get(rec[3])
    if rec[1] == STREAM_PACKET:
        break
os.write(d, b"x")
time.sleep(3600)
""" % REPO


@leaves_target_clean
def test_stream_drain_under_gdb():
    """gdb looks at frame 12 of a stopped trace while a consumer drains
    the oldest five: the frames left are numbered anew, and gdb must not
    be shown another frame's registers under its frame's number.  Its
    reads fail saying why, so does the next tfind (the frame after one
    that is gone), and the tfind after it selects among the frames left.
    20 calls on one CPU, 1 KiB sub-buffers of five frames each."""
    reset_target()
    with Actors() as a:
        _wait_open(a.start("gtp-take-one", TAKE_ONE, go=False))
        out = gdb_script(GDB_HEAD + """set trace-buffer-size 16384
trace gtp_test_function
actions
collect $regs
end
tstart
shell taskset -c 0 sh -c 'echo 20 > /proc/gtp_test'
tstop
tstatus
""", timeout=240)
        expect(out, r"^Collected 20 trace frames\.$")
        # each -ex runs even after one fails
        out = connect("tfind 12", "printf \"=before= %d\\n\", $rdi",
                      a.shell(1), "tstatus", "flushregs",
                      "printf \"=after= %d\\n\", $rdi",
                      "tfind", "printf \"=refused= %d\\n\", $rdi",
                      "tfind", "printf \"=next= %d\\n\", $rdi",
                      "tfind start", "printf \"=start= %d\\n\", $rdi")
    expect_not(out, r"cookbook: actors not done|Remote connection closed|"
               r"internal-error|Fatal signal")
    expect(out, r"^=before= 13$")
    expect(out, r"^Buffer contains 15 trace frames \(of 20 created total\)\.$")
    # frame 12 is now call 18's: not shown as frame 12 (its registers are
    # unavailable), nor by the tfind that would go on from there
    expect(out, r"^=after= value is not available$")
    expect(out, r"^gtp: trace frame 12 is gone: the stream .*\n"
                r"Target returns error code '01'\.\n"
                r"=refused= value is not available$")
    assert out.count("gtp: trace frame 12 is gone") == 1, out
    expect(out, r"^Found trace frame 13, tracepoint 1$")
    expect(out, r"^=next= 19$")
    expect(out, r"^=start= 6$")


@leaves_target_clean
def test_stream_refusals():
    """One consumer at a time, and never into a directory that has data."""
    reset_target()
    d = _dir("busy")
    p = _streamer(d, "--duration", "30")
    try:
        d2 = _dir("second")
        q = subprocess.run([GTP_CTL, "stream", "--ctf", d2, "--duration", "1"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        assert q.returncode == 1, q
        expect(q.stderr.decode(), r"another consumer")
    finally:
        p.kill()
        p.wait()
    os.makedirs(os.path.join(OUT, "full"), exist_ok=True)
    with open(os.path.join(OUT, "full", "x"), "w") as f:
        f.write("data")
    q = subprocess.run([GTP_CTL, "stream", "--ctf", os.path.join(OUT, "full")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    assert q.returncode == 1 and "not empty" in q.stderr.decode(), q


def _uffd_page():
    """A page of anonymous memory whose first touch waits for us: a
    userfaultfd (missing mode).  Returns (libc, uffd, address)."""
    import ctypes
    import fcntl
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                          ctypes.c_int, ctypes.c_int, ctypes.c_long]
    libc.read.restype = ctypes.c_ssize_t
    libc.read.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
    uffd = libc.syscall(323, os.O_CLOEXEC)          # userfaultfd
    if uffd < 0 and ctypes.get_errno() == errno.ENOSYS:
        raise Skip("this kernel has no userfaultfd (CONFIG_USERFAULTFD)")
    assert uffd >= 0, ctypes.get_errno()
    api = bytearray(24)
    api[0:8] = (0xAA).to_bytes(8, "little")        # UFFD_API
    fcntl.ioctl(uffd, 0xc018aa3f, api)             # UFFDIO_API
    addr = libc.mmap(None, 4096, 3, 0x22, -1, 0)   # RW, PRIVATE|ANONYMOUS
    reg = bytearray(32)
    reg[0:8] = addr.to_bytes(8, "little")
    reg[8:16] = (4096).to_bytes(8, "little")
    reg[16:24] = (1).to_bytes(8, "little")         # MODE_MISSING
    fcntl.ioctl(uffd, 0xc020aa00, reg)             # UFFDIO_REGISTER
    return libc, uffd, addr


def _uffd_fill(uffd, addr):
    """Resolve the fault: map a page of zeros at addr."""
    import ctypes
    import fcntl
    zero = ctypes.create_string_buffer(4096)
    cp = bytearray(40)
    cp[0:8] = addr.to_bytes(8, "little")
    cp[8:16] = ctypes.addressof(zero).to_bytes(8, "little")
    cp[16:24] = (4096).to_bytes(8, "little")
    fcntl.ioctl(uffd, 0xc028aa03, cp)              # UFFDIO_COPY


@leaves_target_clean
def test_stream_copy_outside_gtp_lock():
    """A reader whose buffer faults slowly (here: until we resolve it by
    hand, through userfaultfd) must not hold gtp's lock meanwhile: gdb's
    packets are answered while the read waits in its fault."""
    import threading
    from gtplib import ksym, raw_packets
    reset_target()
    raw_packets("QTDisconnected:1",
                "QTDP:1:%x:E:0:0" % ksym("gtp_test_function"), "QTStart")
    libc, uffd, addr = _uffd_page()
    fd = os.open("/proc/gtp_stream", os.O_RDONLY)
    got = {}
    try:
        reader = threading.Thread(
            target=lambda: got.update(n=libc.read(fd, addr, 4096)))
        reader.start()
        # the reader is in its fault once the event arrives (if the read
        # ended without touching the page, it says why)
        while not select.select([uffd], [], [], 1)[0]:
            assert reader.is_alive(), ("read ended without faulting", got)
        msg = os.read(uffd, 32)
        assert msg[0] == 0x12, msg     # UFFD_EVENT_PAGEFAULT
        status = threading.Thread(
            target=lambda: got.update(status=raw_packets("qTStatus")))
        status.start()
        status.join(120)
        answered = not status.is_alive()
        _uffd_fill(uffd, addr)
        reader.join()
        status.join()
    finally:
        os.close(fd)
        os.close(uffd)
    assert answered, "qTStatus waited for the stream reader's page fault"
    expect(got["status"][0], r"T1;")
    assert got["n"] > 0, got


def _defs_pieces(raw):
    """The DEFS records of the first run in a raw record stream (--save-raw):
    [(seq, payload length, text)], in stream order."""
    import struct
    rec = struct.Struct("<IHHIIQQQQ")      # struct gtp_stream_rec
    out, o, first = [], 0, None
    while o + rec.size <= len(raw):
        magic, typ, _, ln, run, _, _, seq, _ = rec.unpack_from(raw, o)
        assert magic == 0x53505447 and o + rec.size + ln <= len(raw), (o, magic, ln)
        first = run if first is None else first
        if typ == 1 and run == first:
            text = raw[o + rec.size:o + rec.size + ln].rstrip(b"\0").decode()
            out.append((seq, ln, text))
        o += rec.size + ln
    assert o == len(raw), (o, len(raw))
    return out


@leaves_target_clean
def test_stream_defs_over_4mib():
    """Definitions larger than the 4 MiB one DEFS record used to hold: 300
    disabled tracepoints on gtp_test_function, each with 700 memory ranges
    in one action packet (15 KiB, near the packet limit), beside one that
    collects.  They stream as DEFS pieces of at most 64 KiB, numbered in
    order, the last ending with `end`; together they hold every
    tracepoint as it was sent, and the hits follow.

    Python: the definitions go in as raw packets (gdb would take minutes
    to send 4 MiB of actions in this guest), and the checks are on the
    raw record stream that gtp-ctl saved."""
    from gtplib import ksym
    from rspconn import Conn
    reset_target()
    d = _dir("defs4m")
    raw = os.path.join(OUT, "defs4m.raw")
    addr = ksym("gtp_test_function")
    mem = "".join("M-1,%x,8" % (addr + 8 * (i % 16)) for i in range(700))
    want = {1: "R1ffffff"}
    c = Conn()
    try:
        for p in ("QTDisconnected:1", "QTDP:1:%x:E:0:0" % addr, "QTDP:-1:%x:R1ffffff" % addr):
            assert c.send(p)[0] == "OK", p
        for n in range(2, 302):
            for p in ("QTDP:%x:%x:D:0:0" % (n, addr), "QTDP:-%x:%x:%s" % (n, addr, mem)):
                r = c.send(p)
                assert r[0] == "OK", (p[:60], r)
            want[n] = mem
        p = _streamer(d, "--until-stop", "--save-raw", raw)
        assert c.send("QTStart") == ("OK", []), "QTStart"
        with open("/proc/gtp_test", "w") as f:
            f.write("500\n")
        assert c.send("QTStop")[0] == "OK"
        events, lost, so = _finish(p)
    finally:
        c.close()
    assert (events, lost) == (500, 0), so
    bt, discarded = _babeltrace(d)
    assert len(bt.splitlines()) == 500 and discarded == 0, bt[-2000:]

    pieces = _defs_pieces(open(raw, "rb").read())
    assert [s for s, _, _ in pieces] == list(range(len(pieces))), [s for s, _, _ in pieces]
    total = sum(ln for _, ln, _ in pieces)
    assert total > 4 << 20 and len(pieces) > 64, (total, len(pieces))
    assert all(ln <= 64 << 10 and text.endswith("\n") for _, ln, text in pieces)
    text = "".join(t for _, _, t in pieces)
    assert text.startswith("gtp-stream 3\n") and text.endswith("\nend\n"), text[:200]
    got = {}
    for line in text.splitlines():
        m = re.match(r"tp A([0-9a-f]+):([0-9a-f]+):(.*)$", line)
        if m:
            assert int(m.group(2), 16) == addr, line[:60]
            got[int(m.group(1), 16)] = got.get(int(m.group(1), 16), "") + m.group(3)
    assert got == want, sorted(set(got) ^ set(want))
    for n in want:
        assert "\ntp T%x:%x:%s:0:0\n" % (n, addr, "E" if n == 1 else "D") in text, n
    print("# DEFS: %d bytes in %d pieces" % (total, len(pieces)))
