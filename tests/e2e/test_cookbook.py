"""The Cookbook (docs/cookbook.md): each recipe, run as written, on real
kernel functions of the guest's kernel, with no debug info (gtp-connect:
BTF and kallsyms), never on gtp_test.

The gdb commands come from docs/cookbook.md itself: recipe(TITLE)
(tests/e2e/cookbook.py) reads the first code block under "## TITLE" in that file and keeps
the lines a user types (after "(gdb) " and "> "), so a recipe that stops
working fails here.  A test only fills in the recipe's placeholders (PID,
the file name member of 7.x's struct dentry) and puts its workload right
after `tstart`.

The workloads are small python processes ("actors",
tests/e2e/actors.py) that set
their own comm, say they are ready, and then wait on a FIFO until gdb's
`shell` line, right after `tstart`, tells them to go; that line returns
when every actor has written one byte to a second FIFO.  So an actor's
pid is known before the trace starts, and the trace holds exactly what it
did between go and done.  Each test asserts the exact frames the recipe
must give for that activity (and none for the decoys); the rest of the
system may run meanwhile, which is why every recipe filters on a pid.

To add a recipe: a "## Title" section with one gdb session in
docs/cookbook.md, and here a test that calls session(TITLE, ...).

Every test here stays Python (docs/testing.md "What stays Python"): its
gdb session is the recipe as docs/cookbook.md has it, not a copy in a case
file; its workload is actors driven from Python; and what it expects is
computed from what the actors did (their pids, sizes, paths).
"""
import os
import re
import socket

from actors import Actors
from btflib import BAD as BTF_BAD, HEAD, vmlinux_btf
from cookbook import recipe
from gtplib import (HAVE_PMU, expect, expect_not, gdb_script, reset_target,
                    leaves_target_clean, sh)
from test_filters import cgroup2_root

# A recipe must evaluate every expression it prints (no "No symbol"), and
# its actors must all say done within gdb's shell line.
BAD = BTF_BAD + r"|evaluation error|No symbol|actors not done"


def dentry_name(cmd):
    """A recipe line naming a file's dentry by d_iname (6.x) as this
    kernel names it: 7.x keeps the short name in d_shortname.string."""
    if "d_iname" in vmlinux_btf().fields["dentry"]:
        return cmd
    return cmd.replace("d_iname", "d_shortname.string")


def session(title, subs, workload, after="tstatus\n"):
    """Run recipe title on a clean target after gtp-connect: each
    placeholder word of subs replaced by its value, the workload's gdb
    commands right after `tstart`, after's at the end.  Returns gdb's
    output."""
    cmds = []
    for c in recipe(title):
        for k, v in subs.items():
            c = re.sub(r"\b%s\b" % re.escape(k), str(v), c)
        cmds.append(dentry_name(c))
        if c == "tstart":
            cmds.append(workload)
    assert "tstart" in cmds and "tstop" in cmds, cmds
    reset_target()
    out = gdb_script(HEAD + "\n".join(cmds) + "\n" + after, timeout=400)
    expect(out, r"^gtp: connected to /proc/gtp$")
    # the recipes are for kernels without debug info: BTF, not a vmlinux
    expect(out, r"^gtp: kernel symbols (made from|loaded from cache)")
    expect_not(out, r"kernel DWARF from")
    expect_not(out, BAD)
    return out


@leaves_target_clean
def test_large_reads_by_one_pid():
    """vfs_read by one pid, count at least 64 KiB: that reader's large
    reads, in order, with the file's name; not its small ones, not those
    of another reader of the same file."""
    sizes = [65536, 100, 131072, 4096, 65535, 70000, 1, 65536]
    want = [s for s in sizes if s >= 65536]
    with Actors() as a:
        path = os.path.join(a.dir, "cookbook.data")
        with open(path, "wb") as f:
            f.write(os.urandom(256 << 10))
        reader = """
fd = os.open(%r, os.O_RDONLY)
for s in %r:
    assert len(os.pread(fd, s, 0)) == s
""" % (path, sizes)
        pid = a.start("gtp-reader", reader)
        a.start("gtp-reader2", reader)      # the same reads, another pid
        try:
            out = session("Large reads by one process", {"PID": pid}, a.shell(2))
        finally:
            os.unlink(path)
        got = re.findall(r"^(\d+) bytes of (.*)$", out, re.M)
        assert got == [(str(s), "cookbook.data") for s in want], (want, out)
        expect(out, r"^Collected %d trace frames\.$" % len(want))


@leaves_target_clean
def test_writes_by_process_name():
    """vfs_write if $current_comm == NAME: every write of the two processes
    of that name, each with its pid and size; none of a process whose
    name differs from NAME in its last byte, nor of one whose name
    extends NAME."""
    sizes = [100, 4096, 7]
    with Actors() as a:
        path = os.path.join(a.dir, "cookbook.out")
        writer = """
fd = os.open(%r, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
for s in %r:
    assert os.write(fd, b"w" * s) == s
""" % (path, sizes)
        pids = [a.start("gtp-writer", writer), a.start("gtp-writer", writer)]
        a.start("gtp-writes", writer)       # differs in its last byte
        a.start("gtp-writer-x", writer)     # extends the name
        try:
            out = session("Only for one process name", {"NAME": "gtp-writer"},
                          a.shell(4))
        finally:
            if os.path.exists(path):        # Actors removes its directory
                os.unlink(path)
    got = [(int(p), int(n)) for p, n in
           re.findall(r"^pid (\d+) wrote (\d+) bytes$", out, re.M)]
    assert {p for p, _ in got} == set(pids), (pids, out)
    # each writer's writes, then its one byte to the done FIFO (actors.py)
    for pid in pids:
        assert [n for p, n in got if p == pid] == sizes + [1], (pid, out)
    expect(out, r"^Collected %d trace frames\.$" % len(got))


def open_each(paths):
    """An actor's code that opens and closes each of paths in turn, a
    missing one included (its open fails)."""
    return """
for p in %r:
    try:
        os.close(os.open(p, os.O_RDONLY))
    except FileNotFoundError:
        pass
""" % (list(paths),)


@leaves_target_clean
def test_files_a_process_opens():
    """do_sys_openat2 if $current_comm == NAME, collect/s filename: the
    paths the two processes of that name open, from their own memory,
    relative and missing ones included, in order; none of a process whose
    name differs."""
    with Actors() as a:
        there = os.path.join(a.dir, "opened")
        open(there, "w").close()
        paths = [there, "/proc/version", "no-such-file-gtp", there]
        opener = open_each(paths)
        pids = [a.start("gtp-opener", opener), a.start("gtp-opener", opener)]
        a.start("gtp-openeX", opener)      # differs in its last byte
        try:
            out = session("Which files a process opens", {"NAME": "gtp-opener"},
                          a.shell(3))
        finally:
            os.unlink(there)
    got = [(int(p), f) for p, f in
           re.findall(r"^pid (\d+) opened (.*)$", out, re.M)]
    assert {p for p, _ in got} == set(pids), (pids, out)
    for pid in pids:
        assert [f for p, f in got if p == pid] == paths, (pid, out)
    expect(out, r"^Collected %d trace frames\.$" % len(got))


@leaves_target_clean
def test_sched_switch_one_task():
    """sched:sched_switch, prev->pid == PID: each time the task leaves a
    CPU, with the event's fields (prev_comm, prev_pid, next_comm,
    next_pid, prev_state) read through the tracepoint's arguments."""
    sleeps = 5
    sleeper = "for _ in range(%d):\n    time.sleep(0.02)\n" % sleeps
    with Actors() as a:
        pid = a.start("gtp-sleeper", sleeper)
        a.start("gtp-decoy", sleeper)       # the same sleeps, another pid
        out = session("One task's context switches", {"PID": pid}, a.shell(2))
    frames = re.split(r"^Data collected at tracepoint 1, trace frame \d+:$", out, flags=re.M)[1:]
    n = int(expect(out, r"^Collected (\d+) trace frames\.$").group(1))
    assert len(frames) == n, out
    voluntary = 0
    for f in frames:
        def val(expr, kind=r"-?\d+"):
            return expect(f, r"^%s = (%s)" % (re.escape(expr), kind)).group(1)
        assert int(val("prev->pid")) == pid, f
        assert val("prev->comm", r'"[^"\\]*').strip('"') == "gtp-sleeper", f
        assert int(val("next->pid")) != pid, f
        # $_sdata holds the raw arguments: (preempt, prev, next, prev_state)
        state = int(val("prev_state"))
        preempt = val("preempt", r"\w+")
        sdata = expect(f, r'^\$_sdata = "arg1=(0x[0-9a-f]+) arg2=0x[0-9a-f]+ '
                       r'arg3=0x[0-9a-f]+ arg4=(0x[0-9a-f]+)"$')
        assert int(sdata.group(1), 16) == (preempt == "true"), f
        assert int(sdata.group(2), 16) == state, f
        # a sleep is a switch out in TASK_INTERRUPTIBLE (1; 6.1 on add
        # TASK_FREEZABLE, 0x2000), not preempted; a preemption or a wait in
        # another state (a page read: 2 or 0x102, exit: 0x80) may come as
        # well, and say so
        voluntary += preempt == "false" and state & 3 == 1
    assert voluntary == sleeps, (voluntary, out)


@leaves_target_clean
def test_who_sends_sigkill():
    """do_send_sig_info with sig == 9: the sender and the target of each
    SIGKILL; a SIGTERM is not one."""
    with Actors() as a:
        victim = a.start_idle("gtp-victim")
        spared = a.start_idle("gtp-spared")
        killer = a.start("gtp-killer", "os.kill(%d, 15)\nos.kill(%d, 9)\n" % (spared, victim))
        out = session("Who sends SIGKILL to a process", {}, a.shell(1))
    got = re.findall(r"^(\S+) \(pid (\d+)\) sent SIGKILL to (\S+) \(pid (\d+)\)$", out, re.M)
    # any other SIGKILL in the guest meanwhile is someone else's
    ours = [g for g in got if int(g[3]) in (victim, spared) or int(g[1]) == killer]
    assert ours == [("gtp-killer", str(killer), "gtp-victim", str(victim))], out
    n = int(expect(out, r"^Collected (\d+) trace frames\.$").group(1))
    assert n == len(got), out


def first_function(*names):
    """The first of names this kernel has a function of (renamed ones)."""
    funcs = vmlinux_btf().funcs()
    for n in names:
        if n in funcs:
            return n
    raise AssertionError("none of %s in this kernel's BTF" % (names,))


@leaves_target_clean
def test_enoent_opens():
    """A return probe on the path walk of open(): the opens of missing
    files, with their path and pid; not the ones that succeed."""
    fn = first_function("do_filp_open", "do_file_open")
    with Actors() as a:
        missing = [os.path.join(a.dir, "nope-%d" % i) for i in range(3)]
        there = os.path.join(a.dir, "there")
        open(there, "w").close()
        opener = open_each([missing[0], there, missing[1], there, missing[2]])
        pid = a.start("gtp-opener", opener)
        try:
            out = session("Opens that fail with ENOENT, and the path",
                             {"do_filp_open": fn}, a.shell(1))
        finally:
            os.unlink(there)
    got = re.findall(r"^pid (\d+): no (.*)$", out, re.M)
    # other tasks may miss files meanwhile (gdb itself looks for some)
    ours = [p for q, p in got if int(q) == pid]
    assert ours == missing, (missing, out)
    assert not [p for q, p in got if p == there], out
    n = int(expect(out, r"^Collected (\d+) trace frames\.$").group(1))
    assert n == len(got), out


@leaves_target_clean
def test_kmalloc_size_range_with_stack():
    """__kmalloc in a size range, with the kernel stack: poll(2) on more
    descriptors than fit its on-stack array allocates the rest, 8 bytes
    each after a 16-byte header, from inside do_sys_poll()."""
    fn = first_function("__kmalloc", "__kmalloc_noprof")
    with Actors() as a:
        # 30 pollfds fit on do_sys_poll()'s stack; 124 more: 16 + 8 * 124
        poller = """
import select
fds = [os.open("/dev/null", os.O_RDONLY) for _ in range(154)]
p = select.poll()
for fd in fds:
    p.register(fd, select.POLLIN)
for _ in range(3):
    p.poll(0)
small = select.poll()
for fd in fds[:40]:
    small.register(fd, select.POLLIN)
small.poll(0)
"""
        pid = a.start("gtp-poller", poller)
        out = session("Allocations in a size range, with the stack",
                         {"__kmalloc": fn, "PID": pid}, a.shell(1))
    sizes = re.findall(r"^(\d+) bytes:$", out, re.M)
    # 16 + 8 * 124 (struct_size() of struct poll_list)
    assert sizes in (["1008"] * 3, ["1004"] * 3), out
    stacks = re.split(r"^\d+ bytes:$", out, flags=re.M)[1:]
    for st in stacks:
        expect(st, r"^#0\s+0x[0-9a-f]{16} in %s$" % re.escape(fn))
        expect(st, r"^#\d+\s+0x[0-9a-f]{16} in do_sys_poll\+\d+$")


@leaves_target_clean
def test_slow_calls_timed_with_clock():
    """$clock at the entry, the difference at the return: the two 0.5 s
    sleeps of a task, not its 1 ms ones."""
    with Actors() as a:
        pid = a.start("gtp-sleeper", "for s in (0.001, 0.5, 0.001, 0.5, 0.001):\n    time.sleep(s)\n")
        out = session("A slow call, timed with $clock", {"PID": pid}, a.shell(1))
    took = [int(t) for t in re.findall(r"^took (\d+) ms$", out, re.M)]
    assert len(took) == 2 and all(500 <= t < 5000 for t in took), out
    # 5 entries (empty frames) and 2 slow returns
    expect(out, r"^Collected 7 trace frames\.$")


@leaves_target_clean
def test_who_changes_a_field_of_one_object():
    """A dynamic watch on the state byte of the socket the actor creates,
    from sk_alloc to sk_destruct: listen() then close(), 7 -> 10 -> 7, at
    one address; another task's socket is not watched.  The actor waits a
    moment after socket(): the watch moves after the hit that points it."""
    with Actors() as a:
        code = """import socket
s = socket.socket()
time.sleep(0.5)
s.bind(("0.0.0.0", 0))
s.listen()
s.close()
time.sleep(0.5)
"""
        pid = a.start("gtp-sock", code)
        a.start("gtp-other", code)
        out = session("Who changes a field of one object", {"PID": pid}, a.shell(2))
    got = re.findall(r"^state (\d+) -> (\d+) at (\w+)", out, re.M)
    # the changes: sock_init_data()'s 0 -> 7 and tcp_init_sock()'s stores
    # that leave the byte as it was come right after sk_alloc returns,
    # before the watch is pointed or not (an RT kernel's worker can be
    # quicker)
    states = [(int(p), int(v)) for p, v, _ in got if p != v]
    if states[:1] == [(0, 7)]:
        states = states[1:]
    assert states == [(7, 10), (10, 7)], out
    # the writers are the kernel's, never gtp's
    assert all(not f.startswith("gtp") for _, _, f in got), out


@leaves_target_clean
def test_start_recording_when_something_happens():
    """vfs_write disabled, vfs_unlink enabling it (not do_unlinkat, which
    7.x no longer has): a task's writes from its unlink on, not before;
    not another task's unlink."""
    with Actors() as a:
        out_path = os.path.join(a.dir, "cookbook.out")
        marks = [os.path.join(a.dir, "mark%d" % i) for i in range(2)]
        for m in marks:
            open(m, "w").close()
        writer = """
fd = os.open(%r, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
for s in (100, 200):
    assert os.write(fd, b"w" * s) == s
os.unlink(%r)
for s in (300, 400):
    assert os.write(fd, b"w" * s) == s
""" % (out_path, marks[0])
        pid = a.start("gtp-writer", writer)
        # another task unlinks first: its unlink enables nothing
        a.start("gtp-unlinker", "os.unlink(%r)\n" % marks[1])
        try:
            out = session("Start recording when something happens",
                          {"PID": pid}, a.shell(2))
        finally:
            if os.path.exists(out_path):
                os.unlink(out_path)
    got = [int(n) for n in re.findall(r"^wrote (\d+) bytes$", out, re.M)]
    # its writes after the unlink, then its one byte to the done FIFO
    assert got == [300, 400, 1], out
    expect(out, r"^Trace notes: tracepoint 1 enabled by 2 \(1 switch\)\.$")


@leaves_target_clean
def test_cycles_per_call_histogram():
    """$perf_cycles at the entry and the return of __task_pid_nr_ns, the
    difference into $hist_cycles: one value per getpid() of the task.
    Without a PMU (TCG) the recipe runs with $perf_cpu_clock instead
    (test_perf.py sees $perf_cycles refused there, saying why)."""
    n = 40
    subs = {"PID": None}
    if not HAVE_PMU:
        subs["perf_cycles"] = "perf_cpu_clock"
    with Actors() as a:
        subs["PID"] = a.start("gtp-getpid", "for _ in range(%d):\n    os.getpid()\n" % n)
        out = session("Cycles per call, as a histogram", subs, a.shell(1))
    m = expect(out, r"^gtp-hist \$hist_cycles: (\d+) value\(s\) aggregated in the kernel, "
                    r"sum (-?\d+), min (-?\d+), max (-?\d+)$")
    count, total, low = int(m.group(1)), int(m.group(2)), int(m.group(3))
    # its getpid() calls, and maybe a few more of the kernel's for it
    assert n <= count <= n + 5, out
    assert low >= 0 and total > 0, out


def agg_rows(out):
    """[(key text, count)] of the tables gtp-count and gtp-hist print."""
    return [(k, int(n)) for k, n in re.findall(r"^[\[(]([^\])]*)[\])]\s+(\d+) \|", out, re.M)]


@leaves_target_clean
def test_callers_that_drop_packets():
    """Datagrams to a closed port on loopback: UDP's receive path finds no
    socket and drops each, so its call site leads the callers the kernel
    counted for the drop function, named by gtp-count --sym; no frame."""
    fn = first_function("sk_skb_reason_drop", "kfree_skb_reason")
    n = 40
    sh("ip link set lo up")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]       # closed again when the test sends
    sender = ("shell python3 -c \"import socket; s = socket.socket(socket.AF_INET, "
              "socket.SOCK_DGRAM); [s.sendto(b'x', ('127.0.0.1', %d)) for _ in range(%d)]\""
              % (port, n))
    out = session("Which callers drop the most packets", {"kfree_skb_reason": fn}, sender)
    rows = agg_rows(out)
    total = int(expect(out, r"^gtp-count \$count_callers: (\d+) value\(s\) aggregated in the "
                       r"kernel, 0 overflowed$").group(1))
    more = re.search(r"^\.\.\. \d+ more key\(s\) with (\d+) value\(s\) not shown", out, re.M)
    assert total == sum(c for _, c in rows) + int(more.group(1) if more else 0), out
    assert total >= n, out
    # UDP's receive path: __udp4_lib_rcv(), or udp_rcv() where it is inlined
    udp = [(k, c) for k, c in rows if re.match(r"(__udp4_lib_rcv|udp_rcv)\+\d+$", k)]
    assert udp and max(c for _, c in udp) >= n, out
    # every key is named: each is a return address into the kernel
    assert all(re.match(r"[A-Za-z_][\w.]*\+\d+( \[\w+\])?$", k) for k, _ in rows), out
    expect(out, r"^Collected 0 trace frames\.$")


@leaves_target_clean
def test_vfs_latency_of_one_cgroup():
    """Return probes on vfs_read and vfs_write with $kret_ns into a
    $hist_ variable, for one cgroup: a dd of N blocks inside it makes N
    reads and N writes (and the few of its start and its report); a dd
    of 5 N outside is not counted.  Every latency is above 0 ns."""
    n = 300
    root, mounted = cgroup2_root()
    cg = os.path.join(root, "gtp-cookbook-%d" % os.getpid())
    os.mkdir(cg)
    try:
        dd = "dd if=/dev/zero of=/dev/null bs=512 count=%d 2>/dev/null"
        work = ("shell %s\nshell sh -c 'echo $$ > %s/cgroup.procs && exec %s'"
                % (dd % (5 * n), cg, dd % n))
        out = session("Latency histogram of one container's vfs calls",
                      {"ID": os.stat(cg).st_ino}, work)
    finally:
        os.rmdir(cg)      # its shell has exited
        if mounted:
            sh("umount %s" % root)
            os.rmdir(root)
    expect(out, r"^gtp-trace-many: created 2, ")
    m = expect(out, r"^gtp-hist \$hist_lat: (\d+) value\(s\) aggregated in the kernel, "
               r"sum (\d+), min (-?\d+), max (-?\d+)$")
    total, lo, hi = int(m.group(1)), int(m.group(3)), int(m.group(4))
    assert 2 * n <= total <= 2 * n + 64, out
    assert 0 < lo <= hi < 10 * 10**9, out
    rows = agg_rows(out)
    assert sum(c for _, c in rows) == total, out
    # log2 buckets "[1]", "[2, 4)"...: none for 0 or below
    assert all(re.match(r"[1-9]\d*[KMG]?(, \d+[KMG]?)?$", k) for k, _ in rows), out
    expect(out, r"^Collected 0 trace frames\.$")
