"""gtp-trace-many (gdb-scripts/gtpgdb/tracemany.py): a tracepoint on each
kernel function whose name matches a regular expression, and the shared
ftrace_ops that carries all of them (module/probes/ftrace_probe.c).

Symbols from BTF (gtp-connect), so arguments have names on every kernel.
Expected values come from the guest: the file the test makes, and its own
reading of kallsyms, the kprobe blacklist and available_filter_functions,
never from tracemany.py.  Python, not cases: the expectations are computed.
"""
import os
import re

from btflib import session, vmlinux_btf
from gtplib import (GDB_HEAD, GDBPY, ctl, expect, expect_not, frames_collected, gdb_script,
                    leaves_target_clean, reset_target, sh)

FILTER_FUNCTIONS = "/sys/kernel/tracing/available_filter_functions"
BLACKLIST = "/sys/kernel/debug/kprobes/blacklist"

# A file's reads, writes, seek, fsync, fadvise, fallocate: vfs_* functions
# that take its struct file *file.
WORKLOAD = ("import os; fd = os.open(%r, os.O_RDWR); os.write(fd, b'x' * 4096); "
            "os.lseek(fd, 0, 0); os.read(fd, 100); os.fsync(fd); "
            "os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_SEQUENTIAL); "
            "os.posix_fallocate(fd, 0, 8192); os.close(fd)")

# Each frame: its function and the inode the condition tested.
FRAMES_PY = """python
import gdb
n = int(gdb.parse_and_eval("$trace_frame"))
i = 0
while True:
    try:
        gdb.execute("tfind %d" % i, to_string=True)
    except gdb.error:
        break
    if int(gdb.parse_and_eval("$trace_frame")) != i:
        break
    print("=f= %s %d" % (gdb.selected_frame().name(),
                         int(gdb.parse_and_eval("file->f_inode->i_ino"))))
    i += 1
end
"""


def ours(out):
    """enabled_functions lines with our callback: [(count, trampoline)]."""
    return [(int(c), t) for c, t in re.findall(
        r"^\S+ (?:\[\S+\] )?\((\d+)\)[^\n]*?(?:tramp: (0x[0-9a-f]+))?[^\n]*gtp_fprobe_cb",
        out, re.M)]


@leaves_target_clean
def test_vfs_functions_by_argument():
    """`gtp-trace-many -c ... ^vfs_.* if file->f_inode->i_ino == INO`: one
    tracepoint per vfs_* function that has a `file` argument with that
    field, each condition compiled against its own function; frames from
    several functions, each of the test's file; all on one ftrace_ops."""
    vmlinux_btf()
    path = "/run/gtp-many-%d" % os.getpid()
    with open(path, "wb"):
        pass
    ino = os.stat(path).st_ino
    try:
        out = session("""gtp-trace-many -c file->f_inode->i_ino ^vfs_.* if file->f_inode->i_ino == %d
tstart
shell python3 -c "%s"
shell cat /sys/module/gtptrace/parameters/attached
shell grep gtp_fprobe_cb /sys/kernel/tracing/enabled_functions
tstop
tstatus
%s""" % (ino, WORKLOAD % path, FRAMES_PY))
    finally:
        os.unlink(path)
    m = expect(out, r"^gtp-trace-many: created (\d+), skipped (\d+)")
    created = int(m.group(1))
    # of the 70-odd vfs_* functions, those with a struct file *file
    assert created >= 10, out
    # the others: no `file` (or no such field) there, said by gdb
    expect(out, r"gdb: condition: .*")
    kinds = re.findall(r"^\d+ 0x[0-9a-f]+ (\S+)$", out, re.M)
    assert len(kinds) == created and set(kinds) == {"ftrace"}, out
    # one ops: each ip has one, and every ip the same trampoline
    mine = ours(out)
    assert len(mine) == created, out
    assert {c for c, _ in mine} == {1}, out
    tramps = {t for _, t in mine}
    assert len(tramps) == 1, tramps
    frames = re.findall(r"^=f= (\S+) (\d+)$", out, re.M)
    assert len(frames) == frames_collected(out)[-1] > 0, out
    assert {int(i) for _, i in frames} == {ino}, frames
    funcs = {f for f, _ in frames}
    assert {"vfs_read", "vfs_write"} <= funcs and len(funcs) >= 3, funcs


def guest_names(pattern):
    """The guest's text symbols matching pattern (whole names)."""
    rx = re.compile(pattern)
    with open("/proc/kallsyms") as f:
        return {ln.split()[2] for ln in f
                if ln.split()[1] in "tT" and rx.fullmatch(ln.split()[2])}


def guest_set(path, col):
    with open(path) as f:
        return {ln.split()[col] for ln in f if len(ln.split()) > col}


@leaves_target_clean
def test_skip_report():
    """A pattern with a kprobe-blacklisted and a notrace function, and one
    whose condition does not compile: each skipped, counted by reason;
    --max refuses before creating anything; a pattern matching nothing is
    an error."""
    vmlinux_btf()
    # blacklisted: notify_die, do_int3, nmi_handle (and 7.x's
    # native_sched_clock); notrace: __init vfs_caches_init, 7.x's
    # __pfx_vfs_read (the padding before the function)
    pattern = ("^(vfs_read|vfs_getattr|notify_die|do_int3|native_sched_clock|nmi_handle|"
               "vfs_caches_init|__pfx_vfs_read)$")
    names = guest_names(pattern)
    black = guest_set(BLACKLIST, 1)
    ftrace = guest_set(FILTER_FUNCTIONS, 0)
    nblack = len(names & black)
    nnotrace = len((names - black) - ftrace)
    assert nblack and nnotrace, (names, nblack, nnotrace)
    # refusals are gdb errors, which end a command file: caught and printed
    out = session("""python
def attempt(cmd):
    try:
        gdb.execute(cmd)
    except gdb.error as e:
        print("=e= %%s" %% e)
end
python attempt("gtp-trace-many --max 1 %s if count == 4093")
info tracepoints
gtp-trace-many %s if count == 4093
info tracepoints
python attempt("gtp-trace-many ^gtp_no_such_function_[0-9]+$")
""" % (pattern, pattern))
    ntodo = len(names) - nblack - nnotrace
    expect(out, r"^=e= gtp-trace-many: %d functions match .*more than --max 1: nothing created"
           % ntodo)
    expect(out, r"^No tracepoints\.")
    # vfs_read has `count`, vfs_getattr has not
    expect(out, r"^gtp-trace-many: created 1, skipped %d \(.*\b1 gdb: condition: No symbol "
           r"\"count\" in current context\.," % (len(names) - 1))
    expect(out, r"^gtp-trace-many: created 1, .*\b%d on the kprobe blacklist\b" % nblack)
    expect(out, r"^gtp-trace-many: created 1, .*\b%d notrace \(not an ftrace location\)"
           % nnotrace)
    expect(out, r"^1\s+tracepoint\s+keep y\s+0x[0-9a-f]+ <vfs_read(\+\d+)?>")
    expect_not(out, r"^2\s+tracepoint")
    expect(out, r"^=e= gtp-trace-many: no kernel function matches \^gtp_no_such_function_")


SESSION = "/tmp/gtp_many.gtps"
# About 450 functions on the 6.1 guest, after what is left out (make
# bench-guest arms a thousand); override with GTP_MANY_PATTERN.
MANY = os.environ.get("GTP_MANY_PATTERN", "^(vfs_|tcp_).*")

TIMED = "source %s\n" % os.path.join(GDBPY, "timing.py")


def attached(text):
    """The kinds /sys/module/gtptrace/parameters/attached lists in text,
    and how many locations in all (it is one page: the rest counted on
    its last line, "... N more"; 0 when it has none)."""
    kinds = re.findall(r"^\d+ 0x[0-9a-f]+ (\S+)$", text, re.M)
    more = re.search(r"^\.\.\. (\d+) more$", text, re.M)
    return kinds, len(kinds) + (int(more.group(1)) if more else 0)


@leaves_target_clean
def test_arm_disarm_many():
    """Hundreds of entry tracepoints arm and disarm as one ftrace_ops each
    way: all attached through ftrace while running, none after tstop; and
    again from the session gtp-ctl saved of them.  tstart's and tstop's
    durations are printed, not asserted."""
    vmlinux_btf()
    out = session(TIMED + """gtp-trace-many %s if $rdi == 0x5eed1234
python timed("tstart")
shell cat /sys/module/gtptrace/parameters/attached
shell grep gtp_fprobe_cb /sys/kernel/tracing/enabled_functions
python timed("tstop")
shell grep -c gtp_fprobe_cb /sys/kernel/tracing/enabled_functions || true
shell cat /sys/module/gtptrace/parameters/attached
detach
""" % MANY, timeout=1200)
    created = int(expect(out, r"^gtp-trace-many: created (\d+)").group(1))
    for t in re.findall(r"^t(?:start|stop) took .*$", out, re.M):
        print("# %d tracepoints: %s" % (created, t))
    print("# " + re.search(r"^gtp-trace-many: .*$", out, re.M).group(0))
    assert created >= 100, out
    # while running: each one, through ftrace; after tstop: none
    kinds, n = attached(out)
    assert n == created and len(kinds) < n, out
    assert set(kinds) == {"ftrace"}, out
    mine = ours(out)
    assert len(mine) == created and {c for c, _ in mine} == {1}, out
    assert len({t for _, t in mine}) == 1, out
    expect(out, r"^0$")
    # the same hundreds as a session on a box without gdb: saved, started
    # and stopped by gtp-ctl, every function through the shared ops again
    rc, so, se = ctl("save-session", SESSION)
    assert rc == 0, (so, se)
    with open(SESSION) as f:
        assert len(re.findall(r"^tracepoint \d+ at ", f.read(), re.M)) == created
    rc, so, se = ctl("start", SESSION)
    assert rc == 0, (so, se)
    try:
        text = sh("cat /sys/module/gtptrace/parameters/attached")
        kinds, n = attached(text)
        assert n == created and len(kinds) < n, text
        assert set(kinds) == {"ftrace"}, text
    finally:
        rc, so, se = ctl("stop")
    assert rc == 0, (so, se)
    text = sh("cat /sys/module/gtptrace/parameters/attached")
    assert text.strip() == "", text


# What module/probes/ftrace_probe.c's table does with n locations: a power of two
# of slots, eight per location at least; a location's own slot is its
# ip's bits 4 and up under that mask; locations go in by ip, each into its
# own slot or the next free one.
def table_size(n):
    size = 8
    while size < 8 * n:
        size *= 2
    return size


def table_slots(ips):
    """{ip: how many slots past its own it sits}"""
    mask = table_size(len(ips)) - 1
    taken, where = set(), {}
    for ip in sorted(ips):
        slot = (ip >> 4) & mask
        while slot in taken:
            slot += 1
        taken.add(slot)
        where[ip] = slot - ((ip >> 4) & mask)
    return where


# Syscalls the test calls itself, from a process of its own.
CALLED = ("getppid", "getpgrp", "getuid", "geteuid", "getgid", "getegid", "umask",
          "sched_yield")


def traceable_at_16():
    """{address: name} of the kernel's own text functions (not a
    module's: those move from boot to boot) that ftrace can carry, that
    the kprobe blacklist leaves, with one address, and at a multiple of
    16: then their ftrace location (at the address, or after an endbr64)
    is in the same 16 bytes, so the test knows its slot."""
    counts, addrs = {}, {}
    with open("/proc/kallsyms") as f:
        for ln in f:
            a, t, name = ln.split()[:3]
            if t in "tT" and len(ln.split()) == 3:
                counts[name] = counts.get(name, 0) + 1
                addrs[name] = int(a, 16)
    ok = guest_set(FILTER_FUNCTIONS, 0) - guest_set(BLACKLIST, 1)
    return {a: n for n, a in addrs.items()
            if counts[n] == 1 and n in ok and a % 16 == 0}


def displaced_set(funcs, way):
    """A called syscall T and way-1 functions below it whose slot, in a
    table of way locations, is T's: T then sits way-1 slots past its own.
    (T's name, their addresses, T's last); None when the guest's layout
    has no such set."""
    by_name = {n: a for a, n in funcs.items()}
    mask = table_size(way) - 1
    for call in CALLED:
        t = by_name.get("__x64_sys_" + call)
        if t is None:
            continue
        home = (t >> 4) & mask
        # prefer other syscalls: seldom called while the test runs
        below = sorted((a for a in funcs if a < t and (a >> 4) & mask == home),
                       key=lambda a: (not funcs[a].startswith("__x64_sys_"), -a))
        if len(below) >= way - 1:
            chosen = below[:way - 1] + [t]
            if table_slots(chosen)[t] == way - 1:
                return call, chosen
    return None


@leaves_target_clean
def test_displaced_slots():
    """A function whose slot in the shared ops' table another function
    took: one slot further (the callback's second inline test) and two
    further (its out-of-line search) still run that function's own
    tracepoint, for every call.  The functions are chosen from the
    guest's own addresses so that the table places them so; one gdb
    session, a trace each, at the addresses (a function's first byte
    stands for its ftrace location: no symbols needed)."""
    funcs = traceable_at_16()
    calls = 7
    sets = {}
    body = ""
    for way in (2, 3):
        found = displaced_set(funcs, way)
        assert found, "no %d functions of one slot below a called syscall" % way
        call, chosen = found
        sets[way] = [funcs[a] for a in chosen]
        body += "".join("trace *0x%x\n" % a for a in chosen) + """tstart
shell cat /sys/module/gtptrace/parameters/attached
shell python3 -c "import os; [os.%s(%s) for _ in range(%d)]"
tstop
tstatus
info tracepoints
echo =way-end=\\n
delete
""" % (call, "0o22" if call == "umask" else "", calls)
    reset_target()
    out = gdb_script(GDB_HEAD + body)
    parts = out.split("=way-end=")
    assert len(parts) == 3, out
    for way, part in zip((2, 3), parts):
        names = sets[way]
        kinds, n = attached(part)
        assert n == way and set(kinds) == {"ftrace"}, part
        # the called one, last defined: hit at least once per call
        hits = re.findall(r"^\d+\s+tracepoint\s+keep y\s+0x([0-9a-f]+).*\n"
                          r"(?:\t.*\n)*?\ttracepoint already hit (\d+) times?", part, re.M)
        got = {funcs[int(a, 16)]: int(h) for a, h in hits}
        print("# %d in one slot: %s, hits %s" % (way, " ".join(names), got))
        assert got.get(names[-1], 0) >= calls, part
