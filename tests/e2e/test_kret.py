"""Return probes ($kret) and kernel stacks ($kstack, gtp-kstack), on
gtp_test_function, whose every call's arguments and return value are known:
call k of the Fig. 11 loop is gtp_test_function(k, k - 1) and returns
2k - 1.  The cookbook (test_cookbook.py) uses both on real kernel
functions.
"""
import os
import re

from gtplib import (GTP_PY, ctl, expect, expect_not, gdb_script, leaves_target_clean,
                    past_fentry, reset_target)

BAD = r"Fatal signal|internal-error|Remote connection closed|Traceback"

HEAD = """set pagination off
set confirm off
set width 0
source %s
gtp-connect
""" % GTP_PY


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


@leaves_target_clean
def test_return_value_and_entry_arguments():
    """`teval $kret = 0` makes the location a return probe: the condition
    sees the return value ($kret, $rax) and the arguments by name as they
    were at the entry.  An entry probe on the same function at once."""
    out = session("""tvariable $kret
trace gtp_test_function if $kret == 21 || $kret == 41
actions
collect counter1, counter2, $kret, $rax
teval $kret = 0
end
trace gtp_test_function if counter1 == 11
actions
collect counter1, $kret
end
tstart
shell echo 30 > /proc/gtp_test
tstop
tstatus
tfind 0
printf "=%d= tp %d c1 %d kret %d\\n", $trace_frame, $tracepoint, counter1, $kret
tfind 1
printf "=%d= tp %d c1 %d c2 %d kret %d rax %d\\n", $trace_frame, $tracepoint, counter1, counter2, $kret, $rax
tfind 2
printf "=%d= tp %d c1 %d c2 %d kret %d rax %d\\n", $trace_frame, $tracepoint, counter1, counter2, $kret, $rax
""")
    expect(out, r"Collected 3 trace frames")
    # call 11: the entry probe first, then the return probe
    expect(out, r"^=0= tp 2 c1 11 kret 0$")
    expect(out, r"^=1= tp 1 c1 11 c2 10 kret 21 rax 21$")
    expect(out, r"^=2= tp 1 c1 21 c2 20 kret 41 rax 41$")


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


@leaves_target_clean
def test_kstack_at_static_tracepoint():
    """A static tracepoint has no probed registers: the stack is unwound
    from gtp's probe and starts outside gtp, at the event's caller."""
    out = session("""tvariable $kstack
gtp-strace gtp_test:gtp_test_event
actions
collect $kstack
end
tstart
shell echo 1 > /proc/gtp_test
tstop
tstatus
tfind 0
echo =frame 0=\\n
gtp-kstack
echo =end=\\n
""")
    expect(out, r"Collected 1 trace frames")
    stack = frames_of(out, 1)[0]
    expect_not(stack, r"\[gtp\]")
    lines = addrs(stack)
    # the event fires in gtp_test_function (through __traceiter_*), which
    # the write handler called
    names = [re.match(r"0x[0-9a-f]+ in (\S+)", ln).group(1).split("+")[0] for ln in lines]
    assert "gtp_test_function" in names[:3], stack
    expect(stack, r"^#\d+\s+0x[0-9a-f]{16} in vfs_write\+\d+$")


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


@leaves_target_clean
def test_refusals():
    """A return probe where there is no return, or off a function's entry;
    gtp-kstack with nothing to show: each said in words, and the next run
    is whole."""
    out = session("""tvariable $kret
gtp-strace gtp_test:gtp_test_event
actions
teval $kret = 0
end
tstart
""")
    expect(out, r"\$kret makes a return probe, but a static tracepoint has no return")
    out = session("""tvariable $kret
trace *(gtp_test_function+%d)
actions
collect $rax
teval $kret = 0
end
tstart
""" % past_fentry())
    expect(out, r"a return probe \(\$kret\) must be at a function's entry")
    out = session("""tvariable $kstack
python
try:
    gdb.execute("gtp-kstack")
except gdb.error as e:
    print("no frame: %s" % e)
end
trace gtp_test_function if counter1 == 2
actions
collect counter1
end
tstart
shell echo 2 > /proc/gtp_test
tstop
tstatus
tfind 0
gtp-kstack
""")
    expect(out, r"^no frame: gtp-kstack: no trace frame selected \(tfind first\)$")
    expect(out, r"Collected 1 trace frames")
    expect(out, r"gtp-kstack: this frame has no kernel stack")
