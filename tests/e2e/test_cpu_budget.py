"""The CPU budget (module/core/budget.h): a probe that eats a CPU goes.

A tracepoint that collects every register on vfs_read, driven by dd reading
one byte at a time, spends far more than 2% of the CPU dd runs on.  With
`tvariable $gtp_cpu_budget = 2` gtp disables it and then takes its
probe out of the kernel (or, with $gtp_budget_stop, stops the trace),
says which tracepoint, how much of which CPU and when in
gdb's tstatus, keeps every frame collected before, and leaves the other
tracepoints of the run collecting.  While dd runs, a shell command still
answers within a second.

tests/vm/run loads gtptrace with cpu_budget=0 (the suite's stress tests
saturate a CPU on purpose), so each session here sets its own: 2%, not
more, because the share is of TSC time, and a guest on a loaded host runs
for only part of it (beside four other guests, a 6.1-rt run's dd never
reached 5%).
"""

import re

from gtplib import (GDB_HEAD, expect, expect_not, frames_collected,
                    gdb_script, ksym, leaves_target_clean, param, reset_target,
                    SCRIPT_BUGS)

# dd in the background; one command timed while it runs (the box stays
# usable), then dd's end.  The guest's /tmp is its own tmpfs.
WORKLOAD = ("shell dd if=/dev/zero of=/dev/null bs=1 count=%d 2>/dev/null & "
            "sleep 1; python3 -c 'import subprocess, time; t = time.monotonic(); "
            "subprocess.run([\"true\"]); "
            "print(\"=answered in %%.3f s\" %% (time.monotonic() - t))'; wait\n")

BODY = """set circular-trace-buffer on
tvariable $gtp_cpu_budget = 2
%(stop)s
trace *0x%(vfs_read)x%(cond)s
actions
collect $regs
end
trace gtp_test_function
actions
collect counter1
end
tstart
shell cat /sys/module/gtptrace/parameters/attached
%(workload)s
shell echo 3 > /proc/gtp_test
tstatus
print $gtp_cpu_budget
tstop
tstatus
tfind tracepoint 1
printf "=tp1 frame %%d\\n", $trace_frame
tfind none
tfind tracepoint 2
printf "=tp2 frame %%d\\n", $trace_frame
"""

def run(stop, count=300000, cond=""):
    reset_target()
    # a trace the budget stopped is not running: gdb's tstop would fail
    body = BODY.replace("tstop\n", "") if stop else BODY
    out = gdb_script(GDB_HEAD + body % {
        "stop": "tvariable $gtp_budget_stop = 1" if stop else "",
        "vfs_read": ksym("vfs_read"), "cond": cond,
        "workload": WORKLOAD % count}, timeout=600)
    expect_not(out, SCRIPT_BUGS)
    return out

def answered(out):
    m = expect(out, r"^=answered in ([\d.]+) s$")
    return float(m.group(1))

TRIP = (r"cpu budget: tracepoint 1 %s at \d+\.\d{3} s: (\d+)%% of CPU \d+ "
        r"\(budget 2%%\)")

def check_disabled(out, kind):
    """Tracepoint 1, attached as @kind, was disabled by the budget and its
    probe disarmed; 2 went on collecting; 1's frames from before the trip
    are kept."""
    expect(out, r"^1 0x[0-9a-f]+ %s$" % kind)
    m = expect(out, r"Trace notes: " + TRIP % "disabled and disarmed")
    assert int(m.group(1)) >= 2, m.group(0)
    expect(out, r"^=tp2 frame \d+$")
    expect(out, r"^=tp1 frame 0$")

@leaves_target_clean
def test_budget_disables_the_hot_tracepoint():
    out = run(stop=False)
    m = expect(out, r"Trace notes: " + TRIP % "disabled and disarmed")
    assert int(m.group(1)) >= 2, m.group(0)
    expect(out, r"^\$1 = 2$")
    # the run went on: tracepoint 2 collected after tracepoint 1 went
    expect(out, r"^=tp2 frame \d+$")
    # tracepoint 1's frames from before the trip are all still there
    expect(out, r"^=tp1 frame 0$")
    assert answered(out) < 1.0, out
    # only once: the budget names the one culprit
    assert "tracepoint 2" not in out.split("Trace notes:")[1].splitlines()[0]

@leaves_target_clean
def test_budget_disables_a_direct_trampoline():
    """The same with a condition the JIT decides on vfs_read's arguments
    (always true): the tracepoint is vfs_read's own trampoline
    (ftrace_direct.c), and its true hits are timed as an ops' are."""
    out = run(stop=False, cond=" if $rdi != 0")
    check_disabled(out, "direct")

@leaves_target_clean
def test_budget_disables_a_jit_kprobe():
    """The same on a kprobe (entry_ftrace=0) whose pre-handler is the
    compiled condition (kprobe.c): its true hits are timed in the generic
    handler it hands them to."""
    param("entry_ftrace", "0")
    try:
        out = run(stop=False, cond=" if $rdi != 0")
    finally:
        param("entry_ftrace", "1")
    check_disabled(out, "kprobe-jit")

@leaves_target_clean
def test_budget_disables_a_static_jit_probe():
    """The same on the static tracepoint behind every syscall, whose
    condition (on the syscall number, always true) is its probe compiled
    (static-jit): its true hits are timed from after the condition."""
    reset_target()
    body = BODY.replace("trace *0x%(vfs_read)x%(cond)s\nactions\ncollect $regs\n",
                        "gtp-strace raw_syscalls:sys_enter if $rdx >= 0\n"
                        "actions\ncollect $regs\ncollect $_sdata\n")
    out = gdb_script(GDB_HEAD + body % {"stop": "", "workload": WORKLOAD % 300000},
                     timeout=600)
    expect_not(out, SCRIPT_BUGS)
    check_disabled(out, "static-jit")

@leaves_target_clean
def test_budget_stops_the_trace_when_asked():
    out = run(stop=True)
    m = expect(out, r"Trace stopped by an error \(" + TRIP % "stopped the trace"
               + r", tracepoint 1\)")
    assert int(m.group(1)) >= 2, m.group(0)
    assert frames_collected(out)[0] > 0, out
    expect(out, r"^=tp1 frame 0$")
    # stopped before gtp_test ran: tracepoint 2 never hit
    expect(out, r"^=tp2 frame -1$")

@leaves_target_clean
def test_no_budget_no_trip():
    # -1: no budget for this session, whatever the module parameter says
    # (tests/vm/run loads gtptrace with none: set one here)
    old = param("cpu_budget").strip()
    param("cpu_budget", "5")
    try:
        reset_target()
        out = gdb_script(GDB_HEAD + BODY.replace(
            "$gtp_cpu_budget = 2", "$gtp_cpu_budget = -1") % {
            "stop": "", "vfs_read": ksym("vfs_read"), "cond": "",
            "workload": WORKLOAD % 30000}, timeout=600)
    finally:
        param("cpu_budget", old)
    expect_not(out, SCRIPT_BUGS)
    expect_not(out, r"cpu budget")
    expect(out, r"^\$1 = 0$")
    expect(out, r"^=tp1 frame 0$")
    expect(out, r"^=tp2 frame \d+$")


# A trip takes the probe away, not just its hits: the kernel's own view of
# vfs_read's probe after the trip, and again after a later tstart.
DISARM_BODY = """set circular-trace-buffer on
tvariable $gtp_cpu_budget = 2
trace *0x%(vfs_read)x%(cond)s
actions
collect $regs
end
tstart
shell dd if=/dev/zero of=/dev/null bs=1 count=300000 2>/dev/null
shell sleep 1
shell echo "=view"; %(view)s; echo "=end"
shell cat /sys/module/gtptrace/parameters/attached
tstatus
tstop
tstart
shell echo "=rearmed"; %(view)s; echo "=end"
shell cat /sys/module/gtptrace/parameters/attached
tstop
"""

# where ftrace users of a function show (the shared ops, a trampoline, a
# kprobe on the ftrace location), and where kprobes do
FTRACED = ("grep -w vfs_read /sys/kernel/tracing/enabled_functions "
           "|| echo not-ftraced")
KPROBED = ("mount | grep -q debugfs || mount -t debugfs none /sys/kernel/debug; "
           "grep -w vfs_read /sys/kernel/debug/kprobes/list || echo not-kprobed")

def disarm_run(cond, view):
    reset_target()
    out = gdb_script(GDB_HEAD + DISARM_BODY % {
        "vfs_read": ksym("vfs_read"), "cond": cond, "view": view},
        timeout=600)
    expect_not(out, SCRIPT_BUGS)
    view = expect(out, r"^=view$(.*?)^=end$", re.M | re.S).group(1)
    rearmed = expect(out, r"^=rearmed$(.*?)^=end$", re.M | re.S).group(1)
    return out, view, rearmed

def check_disarmed(out, kind):
    """The words for it: `attached` and tstatus say tripped and disarmed;
    the next tstart's `attached` line is the plain one."""
    expect(out, r"^1 0x[0-9a-f]+ %s tripped, disarmed$" % kind)
    expect(out, r"Trace notes: " + TRIP % "disabled and disarmed")
    expect(out, r"^1 0x[0-9a-f]+ %s$" % kind)

@leaves_target_clean
def test_trip_disarms_a_direct_trampoline():
    """vfs_read's own trampoline (the JIT'd condition, always true) is
    detached at the trip: ftrace no longer calls anything there."""
    out, view, rearmed = disarm_run(" if $rdi != 0", FTRACED)
    assert "not-ftraced" in view, view
    expect(rearmed, r"vfs_read .*D")
    check_disarmed(out, "direct")

@leaves_target_clean
def test_trip_disarms_the_shared_ops():
    """Collecting every register: the shared ftrace_ops with SAVE_REGS,
    whose filter loses vfs_read (its only location: the ops goes)."""
    out, view, rearmed = disarm_run("", FTRACED)
    assert "not-ftraced" in view, view
    expect(rearmed, r"vfs_read ")
    check_disarmed(out, "ftrace-regs")

@leaves_target_clean
def test_trip_disarms_a_kprobe():
    """On a kprobe (entry_ftrace=0) the kernel lists it [DISABLED]: its
    breakpoint or ftrace hook is out of vfs_read."""
    param("entry_ftrace", "0")
    try:
        out, view, rearmed = disarm_run(" if $rdi != 0", KPROBED)
    finally:
        param("entry_ftrace", "1")
    expect(view, r"vfs_read.*\[DISABLED\]")
    expect(rearmed, r"vfs_read")
    expect_not(rearmed, r"DISABLED")
    check_disarmed(out, "kprobe-jit")
