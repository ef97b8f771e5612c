"""Return probes ($kret) and kernel stacks ($kstack, gtp-kstack), on
gtp_test_function, whose every call's arguments and return value are known:
call k of the Fig. 11 loop is gtp_test_function(k, k - 1) and returns
2k - 1.  The cookbook (test_cookbook.py) uses both on real kernel
functions.  The tests whose expectations are lines of gdb's output are
cases: cases/test_kret.case.
"""
import os
import re

from gtplib import (GTP_HEAD, GTP_PY, ctl, expect, expect_not, gdb_script, leaves_target_clean,
                    reset_target)

BAD = r"Fatal signal|internal-error|Remote connection closed|Traceback"

HEAD = GTP_HEAD + "gtp-connect\n"


def session(body, timeout=400):
    reset_target()
    out = gdb_script(HEAD + body, timeout=timeout)
    expect_not(out, BAD)
    return out


def frames_of(out, n):
    """The lines each `tfind` printed, split at our own markers."""
    return [re.search(r"^=frame %d=$(.*?)^=end=$" % i, out, re.M | re.S).group(1)
            for i in range(n)]


def addrs(stack):
    """gtp-kstack's lines without their frame numbers."""
    return re.findall(r"^#\d+\s+(0x[0-9a-f]+ in .*)$", stack, re.M)


# Python: the entry's stack is compared with the return's, and both with
# gtp-ctl's dump and with a saved trace file's.
@leaves_target_clean
def test_kstack_at_entry_and_return():
    """collect $kstack: the kernel's unwinder at the hit; gtp-kstack names
    the frames, live and from a saved trace file."""
    tf = "/run/gtp-kstack-%d.tf" % os.getpid()
    body = """tvariable $kstack
tvariable $kret
trace gtp_test_function if counter1 == 3
actions
collect $kstack
end
trace gtp_test_function if $kret == 5
actions
collect $kstack
teval $kret = 0
end
tstart
shell echo 4 > /proc/gtp_test
tstop
tstatus
tfind 0
echo =frame 0=\\n
gtp-kstack
echo =end=\\n
tfind 1
echo =frame 1=\\n
gtp-kstack
echo =end=\\n
tsave %s
""" % tf
    try:
        out = session(body)
        expect(out, r"Collected 2 trace frames")
        entry, ret = frames_of(out, 2)
        # entry: the probed function first, then its callers down to the
        # system call
        expect(entry, r"^#0\s+0x[0-9a-f]{16} in gtp_test_function \[gtp_test\] at \S+gtp_test\.c:\d+$")
        expect(entry, r"^#1\s+0x[0-9a-f]{16} in \S+ \[gtp_test\] at \S+gtp_test\.c:\d+$")
        expect(entry, r"^#\d+\s+0x[0-9a-f]{16} in vfs_write\+\d+$")
        # return: the stack starts in the caller it returned to
        expect(ret, r"^#0\s+0x[0-9a-f]{16} in \S+ \[gtp_test\] at \S+gtp_test\.c:\d+$")
        expect_not(ret, r"gtp_test_function")
        expect(ret, r"^#\d+\s+0x[0-9a-f]{16} in vfs_write\+\d+$")
        # the entry's callers are the return's stack
        assert addrs(entry)[1:] == addrs(ret), (entry, ret)
        # gtp-ctl, no gdb: the same addresses, named from /proc/kallsyms
        rc, so, se = ctl("dump")
        assert rc == 0, se
        dumped = re.findall(r"^    #\d+\s+(0x[0-9a-f]{16})(?: (\S+))?$", so, re.M)
        assert [int(a, 16) for a, _ in dumped] == \
            [int(x.split()[0], 16) for x in addrs(entry) + addrs(ret)], (so, entry, ret)
        expect(so, r"^  kernel stack, %d frames:$" % len(addrs(entry)))
        expect(so, r"^    #0  0x[0-9a-f]{16} gtp_test:gtp_test_function\+0x0$")
        expect(so, r"^    #\d+\s+0x[0-9a-f]{16} vfs_write\+0x[0-9a-f]+$")
        # the same from the file, with no target at all
        reset_target()
        off = gdb_script("""set pagination off
set width 0
source %s
gtp-load-module gtp_test
gtp-load-module gtptrace
gtp-kernel-symbols
target tfile %s
tfind 0
echo =frame 0=\\n
gtp-kstack
echo =end=\\n
""" % (GTP_PY, tf), timeout=300)
        expect_not(off, BAD)
        assert frames_of(off, 1)[0] == entry, (off, entry)
    finally:
        if os.path.exists(tf):
            os.unlink(tf)


# Python: the expected count is computed from the CPUs, and the sleepers
# are Python threads that must start together.
@leaves_target_clean
def test_missed_returns_are_told():
    """More calls in flight than a return probe has slots: the kernel
    drops the extra returns, and tstop says how many."""
    n = 200     # sleepers at once; slots: max(64, 8 x CPUs)
    out = session("""tvariable $kret
trace hrtimer_nanosleep if $kret == 12345
actions
teval $kret = 0
end
tstart
shell python3 -c "import threading, time; b = threading.Barrier(%d); f = lambda: (b.wait(), time.sleep(3)); ts = [threading.Thread(target=f) for _ in range(b.parties)]; [t.start() for t in ts]; [t.join() for t in ts]"
tstop
""" % n)
    m = expect(out, r"^gtp: return tracepoint 1 at 0x[0-9a-f]+: (\d+) hit\(s\) missed "
               r"by the kernel \(more calls in flight than return slots")
    # all n sleep at once (a barrier first); other tasks' sleeps may add
    slots = max(64, 8 * os.cpu_count())
    assert int(m.group(1)) >= n - slots, (slots, out)
