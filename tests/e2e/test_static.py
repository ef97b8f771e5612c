"""Static tracepoints (issue 6): kernel TRACE_EVENTs as gdb markers.

Stock gdb against /proc/gtp in the guest.  The probe-level tests use gtp's
static_debug knob (module parameter), which attaches through the same code
the tracepoint machinery uses, so they check register capture and probe
removal independently of a gdb session.
"""
import re

from gtplib import GTP_PY, REPO, TEST_KO, expect, expect_not, gdb, gdb_script, ksym, sh

KNOB = "/sys/module/gtp/parameters/static_debug"


def knob(cmd=None):
    if cmd is not None:
        with open(KNOB, "w") as f:
            f.write(cmd)
    with open(KNOB) as f:
        return f.read()


def markers(regex=""):
    return gdb("source %s" % GTP_PY, "target remote /proc/gtp",
               "gtp-markers %s" % regex if regex else "info static-tracepoint-markers")


def marker_line(out, ident):
    return expect(out, r"^\d+\s+%s\s+n\s+(0x[0-9a-f]+)" % re.escape(ident))


def test_markers_listed():
    out = gdb("target remote /proc/gtp", "info static-tracepoint-markers")
    m = marker_line(out, "gtp_test:gtp_test_event")
    # the address is the event's __traceiter_ function, and gdb shows its data
    assert int(m.group(1), 16) == ksym("__traceiter_gtp_test_event"), out
    expect(out, r'Data: "int counter1; int counter2"')
    m = marker_line(out, "sched:sched_switch")
    assert int(m.group(1), 16) == ksym("__traceiter_sched_switch"), out
    marker_line(out, "raw_syscalls:sys_enter")
    # an event whose fields are not its arguments lists both
    expect(out, r'^\d+\s+sched:sched_switch .*\n\s+Data: "4 args; fields: char\[16\] prev_comm; pid_t prev_pid;')


def test_markers_filter():
    out = markers("^gtp_test:")
    marker_line(out, "gtp_test:gtp_test_event")
    expect_not(out, r"sched:sched_switch")


def test_stmat_gated_outside_qtinit():
    # Outside QTinit..QTStart qTSTMat says "no marker" (the strace crash).
    addr = ksym("__traceiter_gtp_test_event")
    out = gdb("target remote /proc/gtp", "maint packet qTSTMat:%x" % addr)
    expect(out, r'received: "l"')


def test_probe_captures_arguments():
    knob("capture gtp_test:gtp_test_event")
    try:
        sh("echo 3 > /proc/gtp_test")
        st = knob()
        # the last call of the loop is (3, 2): rsi/rdx as __traceiter_ got them
        expect(st, r"attached=1 hits=3 true=0 sdata=counter1=3 counter2=2$")
    finally:
        knob("off")
    expect(knob(), r"^attached=0 ")


def test_probe_condition_interpreted():
    # 0 < 2*rsi + 3*rdx in gdb's bytecode (gdb numbers: rsi 4, rdx 3)
    cond = "22002600042202042600032203040214" "27"
    knob("cond gtp_test:gtp_test_event " + cond)
    try:
        sh("echo 4 > /proc/gtp_test")
        expect(knob(), r"attached=1 hits=0 true=4 ")
    finally:
        knob("off")
    # a condition that is never true
    knob("cond gtp_test:gtp_test_event 26000422001427")  # rsi < 0
    try:
        sh("echo 4 > /proc/gtp_test")
        expect(knob(), r"attached=1 hits=0 true=0 ")
    finally:
        knob("off")


def test_builtin_event_probe():
    knob("capture sched:sched_switch")
    try:
        sh("sleep 0.2")
        st = knob()
        n = int(expect(st, r"hits=(\d+)").group(1))
        assert n > 0, st
        # 4 arguments (preempt, prev, next, prev_state), not field-named
        expect(st, r"sdata=arg1=0x[0-9a-f]+ arg2=0xff[0-9a-f]{14} arg3=0xff[0-9a-f]{14} arg4=0x")
    finally:
        knob("off")


def test_module_loaded_after_gtp():
    sh("rmmod gtp_test")
    try:
        out = gdb("target remote /proc/gtp", "info static-tracepoint-markers")
        expect_not(out, r"gtp_test:gtp_test_event")
    finally:
        sh("insmod %s" % TEST_KO)
    out = gdb("target remote /proc/gtp", "info static-tracepoint-markers")
    m = marker_line(out, "gtp_test:gtp_test_event")
    assert int(m.group(1), 16) == ksym("__traceiter_gtp_test_event"), out
    # and the new module's tracepoint can be probed
    knob("capture gtp_test:gtp_test_event")
    try:
        sh("echo 2 > /proc/gtp_test")
        expect(knob(), r"hits=2 true=0 sdata=counter1=2 counter2=1$")
    finally:
        knob("off")


def test_attached_module_is_pinned():
    knob("capture gtp_test:gtp_test_event")
    try:
        out = sh("rmmod gtp_test 2>&1 || echo REFUSED")
        expect(out, r"REFUSED")
    finally:
        knob("off")
    sh("lsmod | grep -q gtp_test")
