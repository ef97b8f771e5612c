"""The CPU budget (module/core/budget.h): a probe that eats a CPU goes.

A tracepoint that collects every register on vfs_read, driven by dd reading
one byte at a time, spends far more than 5% of the CPU dd runs on.  With
`tvariable $gtp_cpu_budget = 5` gtp disables it (or, with $gtp_budget_stop,
stops the trace), says which tracepoint, how much of which CPU and when in
gdb's tstatus, keeps every frame collected before, and leaves the other
tracepoints of the run collecting.  While dd runs, a shell command still
answers within a second.

tests/vm/run loads gtptrace with cpu_budget=0 (the suite's stress tests
saturate a CPU on purpose), so each session here sets its own.
"""

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
tvariable $gtp_cpu_budget = 5
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
        r"\(budget 5%%\)")

def check_disabled(out, kind):
    """Tracepoint 1, attached as @kind, was disabled by the budget; 2
    went on collecting; 1's frames from before the trip are kept."""
    expect(out, r"^1 0x[0-9a-f]+ %s$" % kind)
    m = expect(out, r"Trace notes: " + TRIP % "disabled")
    assert int(m.group(1)) >= 5, m.group(0)
    expect(out, r"^=tp2 frame \d+$")
    expect(out, r"^=tp1 frame 0$")

@leaves_target_clean
def test_budget_disables_the_hot_tracepoint():
    out = run(stop=False)
    m = expect(out, r"Trace notes: " + TRIP % "disabled")
    assert int(m.group(1)) >= 5, m.group(0)
    expect(out, r"^\$1 = 5$")
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
    assert int(m.group(1)) >= 5, m.group(0)
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
            "$gtp_cpu_budget = 5", "$gtp_cpu_budget = -1") % {
            "stop": "", "vfs_read": ksym("vfs_read"), "cond": "",
            "workload": WORKLOAD % 30000}, timeout=600)
    finally:
        param("cpu_budget", old)
    expect_not(out, SCRIPT_BUGS)
    expect_not(out, r"cpu budget")
    expect(out, r"^\$1 = 0$")
    expect(out, r"^=tp1 frame 0$")
    expect(out, r"^=tp2 frame \d+$")
