"""An ftrace_ops the kernel refuses to unregister (module/ftrace_unreg.c).

unregister_ftrace_function() fails only once ftrace has shut itself down;
the ops then stays registered and its callback keeps being called.  gtp
must keep everything that callback reaches allocated, make it do nothing,
pin itself (rmmod says "in use"; the log says so once), and still run the
next session.  A healthy kernel never refuses, so the tests arm gtp's
test_refuse_ftrace_unregister=1: the next unregister returns -ENODEV and
leaves the ops registered, which is the real failure's state.

Each test then hits the kept callback's functions thousands of times (an
oops, BUG or WARNING in the guest fails the run) and runs a next session.
At the end (passed or not) "rmmod -f" unloads the pinned gtp, whose exit tries the kept
ops again (ftrace takes it back now), and the module is loaded again for
the tests that follow.

Python, not cases: each must reload gtp whatever happens.
"""
import re

from gtplib import (GDB_HEAD, GTP_INSMOD, dmesg, expect, expect_not,
                    frames_collected, gdb, ksym, param, reset_target, session,
                    sh, TEST_KO)

KEPT = "gtptrace stays loaded until reboot"


def log_mark(name):
    """A line in the kernel log; what follows it is this test's."""
    mark = "gtp-e2e: %s" % name
    with open("/dev/kmsg", "w") as f:
        f.write(mark + "\n")
    return mark


def log_since(mark):
    out = dmesg()
    return out[out.rindex(mark):]


def check_pinned(mark):
    """gtp said once that it stays, and rmmod refuses it."""
    out = sh("rmmod gtptrace 2>&1; echo =rmmod rc=$?")
    expect(out, r"^=rmmod rc=1$")
    expect(out, r"in use")
    assert log_since(mark).count(KEPT) == 1, log_since(mark)


def reload_gtp(mark):
    """rmmod -f, and load gtp again for the tests that follow, whatever
    the test left.  The exit must have taken the kept ops back: the log
    says nothing of a callback going with the module."""
    reset_target()
    sh("rmmod -f gtptrace")
    sh(GTP_INSMOD)
    expect_not(log_since(mark), r"goes with the module")


def past_first_push():
    """Offset in gtp_test_function of the instruction after its first
    push: a hit there is below the stack pointer the recorder saw at the
    entry, as entry_regs.c wants of a location inside the function."""
    out = gdb("x/12i gtp_test_function", args=[TEST_KO])
    rows = re.findall(r"<gtp_test_function(?:\+(\d+))?>:\s+(\S+)", out)
    for i, (_, op) in enumerate(rows[:-1]):
        if op.startswith("push"):
            return int(rows[i + 1][0])
    raise AssertionError("no push in gtp_test_function:\n" + out)


def test_entry_recorder_kept_after_refused_unregister():
    """The entry-value recorder's ops refused at tstop: its table stays
    and its callback does nothing (before the fix, the table pointer was
    cleared while the ops stayed registered, and the next call of the
    function wrote near NULL: an oops)."""
    mark = log_mark("entry recorder refused")
    # inside the function (below its entry's stack pointer), where the
    # recorder has run: a kprobe, so the recorder's is the only ftrace_ops
    trace = "trace *0x%x if *(long *)0x38 != 0\n" % (
        ksym("gtp_test_function", "gtp_test") + past_first_push())
    try:
        param("test_refuse_ftrace_unregister", "1")
        # *(long *)0x38: rdi on entry (core/entryval.h: 0x10 + 8 * 5)
        out = session(GDB_HEAD, trace + """tstart
shell echo 5 > /proc/gtp_test
tstop
tstatus
shell echo 3000 > /proc/gtp_test
shell echo 3000 > /proc/gtp_test
""")
        assert frames_collected(out)[-1] == 5, out
        assert param("test_refuse_ftrace_unregister").strip() == "0"
        log = log_since(mark)
        expect(log, r"ftrace refused to detach the entry-value recorder "
               r"\(error -19\)")
        # the next session records entries again: every call's rdi != 0
        out = session(GDB_HEAD, trace + """tstart
shell echo 7 > /proc/gtp_test
tstop
tstatus
""")
        assert frames_collected(out)[-1] == 7, out
        check_pinned(mark)
    finally:
        reload_gtp(mark)
