"""The Cookbook's source-level recipes (docs/cookbook.md): run as written,
with the running kernel's vmlinux with DWARF, on real kernel functions.

As in test_cookbook.py, the gdb commands are the recipe's own
(recipe(TITLE), tests/e2e/cookbook.py), the workload runs in actors
(tests/e2e/actors.py) between `tstart` and `tstop`,
and the test fills in the placeholders: PID, LINE, and the vmlinux's path
on `gtp-load-vmlinux`.  That path is build/dbg/vmlinux-KVER (make check
takes it out of the default kernel's -dbg package), or $GTP_VMLINUX; a
kernel without one skips, as test_vmlinux.py does.

What each frame must hold comes from the workload, never from the trace:
the values it passed to the system call, the descriptors it got, what
fcntl(F_GETFL) said, the sizes it read.  Where a line number is asserted
it is one gdb gave for another reason (the tracepoint the frame belongs
to; the order of the checks in the source).

Every test here stays Python (docs/testing.md "What stays Python"): its
session is the recipe as docs/cookbook.md has it, its workload is actors
driven from Python, and what it expects is computed from what they did.
"""
import os
import re

from actors import Actors
from cookbook import recipe
import gtplib
from gtplib import GTP_HEAD, Skip, expect, expect_not, gdb_script, leaves_target_clean, \
    reset_target
from vmlinuxlib import vmlinux_path

HEAD = GTP_HEAD

GDBPY = gtplib.GDBPY

BAD = gtplib.SCRIPT_BUGS + r"|evaluation error|No symbol|" \
    r"Error in sourced command file|cannot be translated|actors not done"

O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND = 0o1, 0o2, 0o100, 0o1000, 0o2000
O_LARGEFILE, O_DIRECTORY, O_CLOEXEC, O_PATH = 0o100000, 0o200000, 0o2000000, 0o10000000
MAY_WRITE, MAY_READ, MAY_APPEND = 2, 4, 8


def vmlinux():
    """$GTP_VMLINUX, else build/dbg/vmlinux-KVER for the running kernel;
    Skip without one."""
    path = os.environ.get("GTP_VMLINUX") or vmlinux_path()
    if not os.path.exists(path):
        kv = os.uname().release
        raise Skip("no vmlinux with DWARF for %s (tests/vm/dbg-vmlinux %s makes one from "
                   "linux-image-%s-dbg; make e2e does for the default kernel)" % (kv, kv, kv))
    return path


def session(title, subs, workload, after="tstatus\n", pre=""):
    """Run recipe title on a clean target: gtp-load-vmlinux given the
    vmlinux, each placeholder of subs replaced, pre's commands right after
    `target remote`, the workload's right after `tstart`.  Returns gdb's
    output."""
    path = vmlinux()
    cmds = []
    for c in recipe(title):
        for k, v in subs.items():
            c = re.sub(r"\b%s\b" % re.escape(k), str(v), c)
        if c == "gtp-load-vmlinux":
            c += " " + path
        cmds.append(c)
        if c.startswith("target remote") and pre:
            cmds.append(pre)
        if c == "tstart":
            cmds.append(workload)
    assert "tstart" in cmds and "tstop" in cmds and cmds[0].startswith("gtp-load-vmlinux "), cmds
    reset_target()
    out = gdb_script(HEAD + "\n".join(cmds) + "\n" + after, timeout=600)
    expect(out, r"^gtp: kernel DWARF from %s, KASLR slide" % re.escape(path))
    expect_not(out, BAD)
    return out


def frames(out, head):
    """[(head's match, the text up to the next head)] for each frame block
    a recipe's loop printed, each starting with a line matching head."""
    ms = list(re.finditer(head, out, re.M))
    return [(m, out[m.end():ms[k + 1].start() if k + 1 < len(ms) else len(out)])
            for k, m in enumerate(ms)]


@leaves_target_clean
def test_which_check_returned_einval():
    """openat2(2) with three bad struct open_hows: gtp-trace-errno's
    tracepoints on build_open_flags()'s checks give one frame each, at a
    different check (line), all three leading to the same merged load of
    -EINVAL, in the source's order of the checks, with the how passed."""
    # (flags, mode, resolve), each failing one check of build_open_flags(),
    # in the order the source makes them: a resolve bit that is none of
    # RESOLVE_*, a mode without O_CREAT, O_CREAT with O_DIRECTORY
    hows = [(0, 0, 0x40), (0, 0o644, 0), (O_CREAT | O_DIRECTORY, 0, 0)]
    code = """
import ctypes, struct
libc = ctypes.CDLL(None, use_errno=True)
for flags, mode, resolve in %r:
    how = ctypes.create_string_buffer(struct.pack("QQQ", flags, mode, resolve))
    r = libc.syscall(437, -100, b"/", how, 24)      # openat2(AT_FDCWD, "/", how)
    assert r == -1 and ctypes.get_errno() == 22, (flags, mode, resolve, r)
""" % (hows,)
    with Actors() as a:
        pid = a.start("gtp-einval", code)
        out = session("Which check returned -EINVAL, with its locals", {}, a.shell(1))
    # what gtp-trace-errno set: tracepoint -> (line, the load it leads to)
    tps = {int(n): (int(ln), load) for n, ln, load in re.findall(
        r"^tracepoint (\d+): fs/open\.c:(\d+) in build_open_flags: j\w+ (?:not )?taken -> "
        r"-EINVAL at (build_open_flags\+\d+) \(fs/open\.c:\d+\)$", out, re.M)}
    expect(out, r"^gtp-trace-errno: build_open_flags: -EINVAL \(-22\) loaded at \d+ places?, "
           r"%d tracepoints$" % len(tps))
    ours = []
    for m, text in frames(out, r"^tracepoint (\d+), frame (\d+): fs/open\.c:(\d+) in "
                          r"build_open_flags$"):
        tp, line = int(m.group(1)), int(m.group(3))
        expect(text, r"^Data collected at tracepoint %d, trace frame %s:$" % (tp, m.group(2)))
        if int(expect(text, r"^\$current_task_pid = (\d+)$").group(1)) != pid:
            continue        # another task's EINVAL
        # gtp-where's line is the one gtp-trace-errno gave that tracepoint
        assert tp in tps and tps[tp][0] == line, (tp, line, tps, out)
        how = tuple(int(v) for v in expect(
            text, r"^\*how = \{flags = (\d+), mode = (\d+), resolve = (\d+)\}$").groups())
        flags = int(expect(text, r"^flags = (\d+)$").group(1))
        ours.append((tp, line, how, flags))
    # openat2 adds O_LARGEFILE (64-bit); flags, the local, is how->flags
    # without O_CLOEXEC and FMODE_NONOTIFY (none here)
    want = [(f | O_LARGEFILE, m, r) for f, m, r in hows]
    assert [o[2] for o in ours] == want, (want, ours, out)
    assert all(o[3] == o[2][0] for o in ours), (ours, out)
    # three checks: three tracepoints, lines in the source's order, all
    # going to one load of -EINVAL (gcc merged the three returns)
    assert len({o[0] for o in ours}) == 3, ours
    lines = [o[1] for o in ours]
    assert lines == sorted(lines) and len(set(lines)) == 3, (lines, out)
    assert len({tps[o[0]][1] for o in ours}) == 1, (tps, ours)
    n = int(expect(out, r"^Collected (\d+) trace frames\.$").group(1))
    assert n == len(frames(out, r"^tracepoint \d+, frame \d+: ")), out
    print("# checks at fs/open.c:%s, one load of -EINVAL (%s); %d tracepoints" % (
        ",".join(map(str, lines)), tps[ours[0][0]][1], len(tps)))


@leaves_target_clean
def test_inlined_helper_callers():
    """trace add_rchar (static inline): one location per inlined copy; a
    task's read, readv and preadv each hit the copy in their own function,
    with amt what the call returned; gtp-where names that function."""
    code = """
fd = os.open("/dev/zero", os.O_RDONLY)
assert len(os.read(fd, 4091)) == 4091
assert os.readv(fd, [bytearray(1000), bytearray(2003)]) == 3003
assert os.preadv(fd, [bytearray(1234)], 0) == 1234
"""
    with Actors() as a:
        pid = a.start("gtp-reader", code)
        a.start("gtp-reader2", code)        # the same reads, another pid
        out = session("Every caller of an inlined helper", {"PID": pid}, a.shell(2))
    nloc = int(expect(out, r"^Tracepoint 1 at 0x[0-9a-f]+: add_rchar\. \((\d+) locations\)$")
               .group(1))
    got = []
    for m, text in frames(out, r"^(\d+) bytes: tracepoint 1, frame \d+: "
                          r"include/linux/sched/xacct\.h:\d+ in add_rchar$"):
        caller = expect(text, r"^  inlined into (\w+) at fs/read_write\.c:\d+$").group(1)
        got.append((int(m.group(1)), caller))
    # the actor's 1-byte read of its go FIFO comes first, through vfs_read
    want = [(1, "vfs_read"), (4091, "vfs_read"), (3003, "do_readv"), (1234, "do_preadv")]
    assert got == want, (got, out)
    expect(out, r"^Collected %d trace frames\.$" % len(want))
    print("# add_rchar: %d inlined copies" % nloc)


def fd_install_line():
    """gdb commands setting $fd_install_line to the line of do_sys_openat2()
    that calls fd_install() (the recipe's LINE), from `disassemble /s`."""
    return ("source %s/call_line.py\n"
            "python set_call_line(\"do_sys_openat2\", \"fd_install\", \"fd_install_line\")"
            % GDBPY)


@leaves_target_clean
def test_open_asked_and_got():
    """The line of do_sys_openat2() that installs the file: for a task's
    opens for writing (the condition reads the local f), the fd it got, the
    flags as asked (how, an entry value), as decoded (op) and as the file
    has them (what F_GETFL says); no frame for its other opens."""
    with Actors() as a:
        names = {n: os.path.join(a.dir, n) for n in "abcd"}
        for n in "cd":
            open(names[n], "w").close()
        # two opens for writing among four
        opens = [("a", os.O_RDONLY | O_CREAT), ("b", O_WRONLY | O_CREAT | O_TRUNC),
                 ("c", O_RDWR | O_APPEND), ("d", O_PATH)]
        code = """
import fcntl
got = []
for name, flags in %r:
    fd = os.open(os.path.join(%r, name), flags, 0o600)
    got.append((name, flags, fd, fcntl.fcntl(fd, fcntl.F_GETFL)))
print(repr(got), flush=True)
""" % (opens, a.dir)
        pid = a.start("gtp-opener", code)
        proc = a.procs[-1]
        try:
            out = session("What an open asked for and what it got",
                          {"PID": pid, "LINE": "$fd_install_line"}, a.shell(1),
                          pre=fd_install_line())
            did = eval(proc.stdout.readline().decode())
        finally:
            for p in names.values():
                if os.path.exists(p):
                    os.unlink(p)
    line = int(expect(out, r"^fd_install line (\d+)$").group(1))
    expect(out, r"^Tracepoint 1 at 0x[0-9a-f]+: file fs/open\.c, line %d\.$" % line)
    got = re.findall(r"^fd (\d+) (\S+): asked (0\d*), decoded (0\d*) \(acc_mode (\d+)\), "
                     r"file (0\d*)$", out, re.M)
    want = []
    for name, flags, fd, getfl in did:
        if not flags & (O_WRONLY | O_RDWR):
            continue        # the condition: opened for writing (FMODE_WRITE)
        # Python's os.open adds O_CLOEXEC, openat(2) O_LARGEFILE (64-bit)
        asked = flags | O_CLOEXEC | O_LARGEFILE
        acc = {0: MAY_READ, O_WRONLY: MAY_WRITE, O_RDWR: MAY_READ | MAY_WRITE}[flags & 3]
        acc |= (MAY_WRITE if flags & O_TRUNC else 0) | (MAY_APPEND if flags & O_APPEND else 0)
        want.append((str(fd), names[name], "0%o" % asked, "0%o" % (asked & ~O_CLOEXEC),
                     str(acc), "0%o" % getfl))
    assert got == want, (want, got, out)
    expect(out, r"^Collected %d trace frames\.$" % len(want))
    print("# fs/open.c:%d, %d opens for writing of %d" % (line, len(want), len(did)))
