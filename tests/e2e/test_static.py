"""Static tracepoints (docs/static-tracepoints.md): kernel TRACE_EVENTs as gdb markers.

Stock gdb against /proc/gtp in the guest.  The probe-level tests use gtp's
static_debug knob (module parameter), which attaches through the same code
the tracepoint machinery uses, so they check register capture and probe
removal independently of a gdb session; they have no gdb session, so
they stay Python.  The sessions that need no Python to check are cases,
in cases/test_static.case.
"""
import os
import re

import gtplib
from gtplib import (GDB_HEAD, GTP_INSMOD, TARGET, TEST_KO, Skip, connect, expect,
                    expect_not, expected_log, gdb, gdb_script, knob, ksym, param,
                    reset_target, sh)
from rspconn import Conn


def marker_line(out, ident):
    return expect(out, r"^\d+\s+%s\s+n\s+(0x[0-9a-f]+)" % re.escape(ident))


def test_probe_captures_arguments():
    """Python: no gdb session; the knob must be turned off whatever happens."""
    knob("capture gtp_test:gtp_test_event")
    try:
        sh("echo 3 > /proc/gtp_test")
        st = knob()
        # the last call of the loop is (3, 2): rsi/rdx as __traceiter_ got them
        expect(st, r"attached=1 hits=3 true=0 sdata=counter1=3 counter2=2$")
    finally:
        knob("off")
    expect(knob(), r"^attached=0 ")


def test_probe_runs_pinned():
    """Python: no gdb session; a counter compared before and after.

    Newer kernels call tracepoint probes under SRCU alone, preemptible:
    the probe's per-CPU state would be shared between tasks, so it pins
    the CPU itself; the capture callback never runs preemptible."""
    before = int(param("static_debug_preemptible"))
    knob("capture gtp_test:gtp_test_event")
    try:
        sh("echo 50 > /proc/gtp_test")
        expect(knob(), r"attached=1 hits=50 ")
    finally:
        knob("off")
    assert int(param("static_debug_preemptible")) == before


def test_probe_condition():
    """Python: no gdb session; the knob must be turned off whatever happens."""
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
    """Python: no gdb session; the hit count is a range (some)."""
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
    """Python: gtp_test must be loaded again and the knob turned off
    whatever happens; the probe is driven through the knob."""
    reset_target()
    sh("rmmod gtp_test")
    try:
        out = gdb(TARGET, "info static-tracepoint-markers")
        expect_not(out, r"gtp_test:gtp_test_event")
    finally:
        sh("insmod %s" % TEST_KO)
    out = connect("info static-tracepoint-markers")
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
    """Python: no gdb session; the knob must be turned off whatever happens."""
    knob("capture gtp_test:gtp_test_event")
    try:
        out = sh("rmmod gtp_test 2>&1 || echo REFUSED")
        expect(out, r"REFUSED")
    finally:
        knob("off")
    sh("lsmod | grep -q gtp_test")


# ---- gdb static tracepoints (needs the tracepoint/frame machinery) ----

# Symbols are loaded before connecting: the target still holds the previous
# test's definitions, and gdb re-parses their conditions when it connects;
# `delete` then drops them (tstart's QTinit clears them on the target).
CONNECT = GDB_HEAD + "delete\n"
# gdb-side helpers the sessions source (tests/e2e/gdbpy)
GDBPY_FAULTS = os.path.join(gtplib.GDBPY, "faults.py")
GDBPY_FRAMES = os.path.join(gtplib.GDBPY, "frames.py")


def test_syscall_tracepoint_both_cpus():
    """Python: relations between values (frames == hits, at least 600)."""
    # raw_syscalls:sys_enter(regs, id): the tracepoint behind every syscall
    # event, whose probes newer kernels (7.x) call with preemption enabled:
    # the probe pins its CPU from reserve to commit.  Two processes make
    # 300 getpid() calls each, on both CPUs at once; every one must be a
    # whole frame with the syscall number where the probe found it.
    script = CONNECT + """gtp-strace raw_syscalls:sys_enter if $rdx == 39
actions
collect $rdx
collect $_sdata
end
tstart
shell for i in 1 2; do python3 -c 'import os; [os.getpid() for _ in range(300)]' & done; wait
tstop
tstatus
info tracepoints
tfind 0
print $rdx
tfind 599
print $rdx
print $_sdata
"""
    out = gdb_script(script)
    frames = int(expect(out, r"Collected (\d+) trace frames").group(1))
    hits = int(expect(out, r"tracepoint already hit (\d+) time").group(1))
    assert frames >= 600, out
    assert frames == hits, out
    expect(out, r"^\$1 = 39$")
    expect(out, r"^\$2 = 39$")
    expect(out, r'^\$3 = "arg1=0x[0-9a-f]+ arg2=0x27"$')
    expect_not(out, r"evaluation error|dropped|Error")


def test_recursion_through_page_fault_tracepoint():
    """Python: the unmapped address is computed from the paging mode
    (/proc/cpuinfo's la57)."""
    # Every kernel-mode page fault fires
    # exceptions:page_fault_kernel(address, regs, error_code), including
    # the faults of gtp's own nofault reads.  A condition that reads the
    # faulting address re-entered itself until the stack overflowed
    # (double fault).  Two defences now: a read of an unmapped address is
    # refused by a page-table walk before it can fault (compat.h), and the
    # probe entry drops a hit that recurses at its own context level.
    # gdb's reads of unmapped memory take no fault; kernel-mode faults
    # still come from /dev/zero filling fresh user pages, and the
    # condition's read of their (user) address is an evaluation error.
    # The start of the non-canonical guard hole of the paging mode in use:
    # never mapped (0xffff800000000000 is KASAN's shadow under 5-level).
    with open("/proc/cpuinfo") as f:
        la57 = " la57" in f.read()
    hole = 0xff00000000000000 if la57 else 0xffff800000000000
    reset_target()
    out = gdb_script(CONNECT + """gtp-strace exceptions:page_fault_kernel if *(char *)$rsi == 0
actions
collect $rsi
end
tstart
source %s
python read_unmapped(%#x, %#x)
python fill_from_zero(64 << 10)
tstop
tstatus
""" % (GDBPY_FAULTS, hole, hole + 0x1000))
    expect(out, r"Cannot access memory at address %#x" % hole)
    expect(out, r"^filled 65536$")
    expect(out, r"Trace stopped by a tstop command")
    expect(out, r"gtp: tracepoint 1 at 0x[0-9a-f]+: \d+ evaluation error\(s\), last: unreadable memory")
    expect_not(out, r"Remote connection closed|internal-error")


def test_unload_gtp_while_tracing():
    """Python: gtptrace must be loaded again whatever happens (a case's
    steps stop at the first failure)."""
    # disconnected tracing keeps the static probe armed after gdb leaves;
    # unloading gtp must take it away (and unpin gtp_test) cleanly
    out = gdb_script(CONNECT + """set disconnected-tracing on
gtp-strace gtp_test:gtp_test_event
actions
collect $_sdata
end
tstart
detach
""")
    expect_not(out, r"(?i)error")
    try:
        expect(knob(), r"^attached=1 ")
        sh("echo 2 > /proc/gtp_test")
        sh("rmmod gtptrace")
        sh("echo 2 > /proc/gtp_test")   # the tracepoint fires with no probe
        sh("rmmod gtp_test && insmod %s" % TEST_KO)
    finally:
        if "gtptrace " not in sh("lsmod"):
            sh(GTP_INSMOD)
    expect(knob(), r"^attached=0 ")


def test_nmi_hit_nested_in_int3_inside_hit():
    """Python: relations between every frame's values (tracepoint, $pc
    against two addresses, $ins0)."""
    # Static hits nest on a CPU, and a kernel int3 runs as NMI context:
    # a hit taken in a kprobe's handler inside another hit in NMI context
    # is "NMI" as much as its host.  gtp_test's nofault-tp kprobe sits in
    # copy_from_kernel_nofault() (an int3: it has a post-handler) and
    # fires gtp_test_event(-2, 0).  sysrq-l sends an NMI to the other
    # CPU, where nmi:nmi_handler's hit (tracepoint 1) builds its frame in
    # scratch (an M block makes its size unknown) and reads the stack:
    # that read hits the kprobe, whose tracepoint 2 hit runs nested in
    # the NMI hit.  Each must build its frame in its own slot: before, both
    # were context level 3 and tracepoint 2 wrote its registers over
    # tracepoint 1's (its frames showed gtp_test_event's $pc).  $ins0 is 1
    # only while tracepoint 1 reads: tracepoint 2's frames that saw it
    # prove the nesting happened.
    tracefs = "/sys/kernel/tracing"
    if not os.path.isdir(os.path.join(tracefs, "events", "nmi", "nmi_handler")):
        raise Skip("no nmi:nmi_handler tracepoint in this kernel")
    reset_target()
    nmi = ksym("__traceiter_nmi_handler")
    event = ksym("__traceiter_gtp_test_event")
    script = CONNECT + """tvariable $ins0 = 0
gtp-strace nmi:nmi_handler
actions
collect $regs
collect gtp_test_calls
teval $ins0 = 1
teval *(long *)$rsp
teval $ins0 = 0
end
gtp-strace gtp_test:gtp_test_event if counter1 == -2
actions
collect $regs
collect $ins0
end
tstart
shell echo nofault-tp > /proc/gtp_test
shell for i in 1 2 3 4 5 6 7 8; do echo l > /proc/sysrq-trigger; sleep 0.2; done
shell echo off > /proc/gtp_test
tstop
tstatus
source %s
python print_frame_sources(1 << 20, 2, "$ins0")
""" % GDBPY_FRAMES
    with expected_log("sysrq-l: NMI backtraces of every CPU"):
        out = gdb_script(script, timeout=300)
        sh("echo off > /proc/gtp_test")
    frames = re.findall(r"^frame \d+ tp (\d+) pc (0x[0-9a-f]+) ins0 (\S+)$", out, re.M)
    in_nmi = [int(pc, 16) for tp, pc, _ in frames if tp == "1"]
    nested = [f for f in frames if f[0] == "2" and f[2] == "1"]
    assert in_nmi, out
    assert nested, out
    # every NMI hit's registers are its own
    assert all(pc == nmi for pc in in_nmi), (hex(nmi), hex(event), out)
    assert all(int(pc, 16) == event for tp, pc, _ in frames if tp == "2"), out
    expect_not(out, r"dropped|Error|bad|Cannot")


def _attached():
    return [l for l in param("attached").splitlines() if l.strip()]


def test_attached_lists_static_only_while_armed():
    """The `attached` parameter named a static tracepoint as attached
    whenever one was defined: after QTStop, and after a QTStart refused
    before anything was armed (the live-kernel fuzz found it)."""
    static = ksym("__traceiter_sched_switch")
    fn = ksym("gtp_test_function", "gtp_test")
    banner = ksym("linux_banner")
    reset_target()
    c = Conn()
    try:
        for p in ("QTinit", "QTDP:1:%x:E:0:0:S" % static, "QTStart"):
            assert c.send(p)[0] == "OK", p
        assert _attached() == ["1 0x%x static" % static], _attached()
        assert c.send("QTStop")[0] == "OK"
        assert _attached() == [], _attached()
        # frames larger than an 8 KiB buffer holds: refused before arming
        for p in ("QTBuffer:size:2000", "QTDP:2:%x:E:0:0" % fn,
                  "QTDP:-2:%x:M-1,%x,400" % (fn, banner)):
            assert c.send(p)[0] == "OK", p
        r, console = c.send("QTStart")
        assert r == "E01" and "trace-buffer-size" in "".join(console), (r, console)
        assert _attached() == [], _attached()
    finally:
        c.close()
        reset_target()
