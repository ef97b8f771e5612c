"""The live target without gdb on the box (docs/production.md): gtp-ctl stdio
carries a whole gdb session, gtp-ctl status/stop see and end a trace a
detached gdb left running, and $gtp_stop freezes a circular buffer from
inside a probe.  Expected values are what the Fig. 11 loop passes (call k
has counter1 = k, counter2 = k - 1), never the code under test's output.

The tests here stay Python: one holds /proc/gtp from a second process
while gtp-ctl runs, one checks a relation between values (the first frame
of a circular buffer against the count it holds).  The ones that are
fixed lines are cases in cases/test_ctl_target.case.
"""
import os
import re
import subprocess

import gtplib
from gtplib import (ctl, ctl_session as session, expect, leaves_target_clean,
                    reset_target, sh)

GDBPY = gtplib.GDBPY


@leaves_target_clean
def test_ctl_refusals():
    """Python: a gdb started beside gtp-ctl holds /proc/gtp until told to
    let go, however slow the guest."""
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
    One CPU, so the buffer's frames are one contiguous run of calls.
    Python: the first frame's call is computed from the frame count."""
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
source %s
python print_ends("counter1")
""" % os.path.join(GDBPY, "ring_ends.py"))
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
