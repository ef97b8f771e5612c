"""The live target without gdb on the box (docs/production.md): gtp-ctl stdio
carries a whole gdb session, gtp-ctl status/stop see and end a trace a
detached gdb left running, and $gtp_stop freezes a circular buffer from
inside a probe.  Expected values are what the Fig. 11 loop passes (call k
has counter1 = k, counter2 = k - 1), never the code under test's output.
"""
import re
import subprocess

from gtplib import (FIG12, GTP_CTL, ctl, ctl_session as session, expect, expect_not,
                    leaves_target_clean, reset_target, sh, tdump_all, values)


@leaves_target_clean
def test_fig12_over_stdio():
    """`target remote | gtp-ctl stdio`: the paper's session through a pipe,
    as it runs over ssh (no socket anywhere).  The pipe starts 3 s late, as
    ssh does while it negotiates: gdb has resent its first packet (after
    remote_timeout, 2 s) before gtp-ctl reads any, and the session must
    not take the answer to the copy as the answer to the next packet."""
    reset_target()
    out = session(FIG12 % "> 0" + tdump_all(5) + "detach\n",
                  target="target remote | sh -c 'sleep 3; exec %s stdio'" % GTP_CTL)
    expect(out, r"Collected 5 trace frames")
    assert values(out, "(2*counter1+3*counter2)") == [2, 7, 12, 17, 22], out
    # the pipe ended with gdb: /proc/gtp is free again
    rc, so, se = ctl("status")
    assert rc == 0, se
    expect(so, r"^tracepoint 1 at 0x[0-9a-f]+: 5 hits, \d+ bytes, 0 errors$")


@leaves_target_clean
def test_status_and_stop_of_a_detached_trace():
    reset_target()
    rc, so, se = ctl("stop")
    assert rc == 0 and so.startswith("trace: not running"), (rc, so, se)
    out = session("""set disconnected-tracing on
trace gtp_test_function
actions
collect counter1
end
trace gtp_test_function if *(int *)0 == 1
tstart
shell echo 3 > /proc/gtp_test
detach
""")
    expect_not(out, r"Trace stopped")
    rc, so, se = ctl("status")
    assert rc == 0, se
    expect(so, r"^trace: running$")
    expect(so, r"^frames: 3 in the buffer, 3 created, 0 overwritten or dropped$")
    expect(so, r"^disconnected tracing: on$")
    expect(so, r"^tracepoint 1 at 0x[0-9a-f]+: 3 hits, \d+ bytes, 0 errors$")
    # a condition that faults on every call: no hit, each call an error
    expect(so, r"^tracepoint 2 at 0x[0-9a-f]+: 0 hits, 0 bytes, 3 errors "
           r"\(last: unreadable memory\)$")
    sh("echo 4 > /proc/gtp_test")
    rc, so, se = ctl("stop")
    assert rc == 0, se
    # gtp's console report at tstop, as gdb would show it
    expect(so, r"^gtp: tracepoint 2 at 0x[0-9a-f]+: 7 evaluation error\(s\), "
           r"last: unreadable memory$")
    expect(so, r"^trace: stopped, 7 frames$")
    rc, so, se = ctl("status")
    expect(so, r"^trace: stopped$")
    expect(so, r"^tracepoint 1 at 0x[0-9a-f]+: 7 hits")
    # the frames stayed: frame 6 is call 4 of the second run
    out = session("tfind 6\np counter1\n")
    expect(out, r"^\$1 = 4$")


@leaves_target_clean
def test_ctl_refusals():
    reset_target()
    # /proc/gtp taken by a gdb: say so, exit 1, change nothing
    # gdb holds the target until the test is done with it, however slow
    # the guest (a debug kernel runs each gtp-ctl for seconds).
    release = "/run/gtp-refusals-release"
    sh("rm -f " + release)
    gdb = subprocess.Popen(["gdb", "-nx", "-q", "-batch", "-ex", "target remote /proc/gtp",
                            "-ex", "shell while [ ! -e %s ]; do sleep 0.1; done" % release],
                           stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        for _ in range(100):
            rc, so, se = ctl("status")
            if rc:
                break
            sh("sleep 0.1")
        assert rc == 1 and "is busy: a gdb" in se, (rc, so, se)
        rc, so, se = ctl("stdio")
        assert rc == 1 and "is busy" in se, (rc, so, se)
    finally:
        sh("touch " + release)
        gdb.wait(timeout=60)
        sh("rm -f " + release)
    rc, so, se = ctl("status", "--target", "/proc/no-such-gtp")
    assert rc == 1 and "does not exist" in se, (rc, so, se)


@leaves_target_clean
def test_stop_trigger_keeps_the_frames_before_the_event():
    """A flight recorder: a circular buffer too small for the whole run,
    and an action that sets $gtp_stop when it sees the event (call 900).
    One CPU, so the buffer's frames are one contiguous run of calls."""
    reset_target()
    out = session("""set circular-trace-buffer on
set trace-buffer-size 8192
tvariable $gtp_stop
trace gtp_test_function
actions
collect counter1
teval $gtp_stop = (counter1 == 900)
end
tstart
shell taskset -c 0 sh -c 'echo 1000 > /proc/gtp_test'
tstatus
python
import re
st = gdb.execute("tstatus", to_string=True)
n = int(re.search(r"contains (\d+) trace frames", st).group(1))
gdb.execute("tfind %d" % (n - 1), to_string=True)
print("last=%d" % int(gdb.parse_and_eval("counter1")))
gdb.execute("tfind 0", to_string=True)
print("first=%d" % int(gdb.parse_and_eval("counter1")))
end
""")
    expect(out, r"Trace stopped by a tstop command \(\$gtp_stop set by tracepoint 1\)")
    m = re.search(r"(?:Collected|Buffer contains) (\d+) trace frames", out)
    assert m, out
    n = int(m.group(1))
    last = int(re.search(r"^last=(\d+)$", out, re.M).group(1))
    first = int(re.search(r"^first=(\d+)$", out, re.M).group(1))
    # the event is the last frame; the buffer kept the n calls before it
    assert last == 900, out
    assert first == 900 - n + 1 and 1 < first, out
    # nothing after the event was collected: the trace stopped in the probe
    rc, so, se = ctl("status")
    expect(so, r"^trace: stopped \(\$gtp_stop set by tracepoint 1\)$")
    expect(so, r"^tracepoint 1 at 0x[0-9a-f]+: 900 hits")
