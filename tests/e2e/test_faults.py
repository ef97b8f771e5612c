"""Fault and load scenarios (docs/threat-model.md): what a production box
does to a tracer that the happy path never does.  gdb killed in the middle
of a download or a frame walk, a thousand start/stop cycles while both
CPUs run the probe, probes in the timer interrupt and in NMI, and the
module's vmalloc'd memory back to its load-time baseline after QTinit.

run.py fails any test after which the kernel log shows an oops, BUG,
WARNING or call trace; the NMI test marks the backtraces it asks the
kernel to print (gtplib.expected_log), where only an oops, BUG or WARNING
counts.

Every test here stays Python (docs/testing.md "What stays Python"): each
drives something a case cannot -- gdb killed from outside at a step it
reports, hammer loops on both CPUs around raw packets, the kernel log and
/proc/vmallocinfo compared before and after, frame counts as lower bounds.
The gdb-side Python they need is in tests/e2e/gdbpy/.
"""
import os
import re
import subprocess
import time

import gtplib
from gtplib import (FIG12, GDB, GDB_HEAD, dmesg, expect, expected_log, frames_collected,
                    gdb_script, hammers, ksym, leaves_target_clean, param, past_fentry,
                    raw_packets, reset_target, stop_hammers, values)

GDBPY = gtplib.GDBPY


# QTStart/QTStop pairs in one run: each re-arms a kprobe and waits for RCU,
# 0.3 s (0.8 s on PREEMPT_RT) under TCG, so the matrix rows run 100 and
# GTP_FAULT_CYCLES=1000 (the figure) is run by hand on one kernel.
CYCLES = int(os.environ.get("GTP_FAULT_CYCLES", "100"))


def _fig12_still_works():
    """The target serves a whole new session correctly."""
    out = gdb_script(GDB_HEAD + FIG12 % "> 0" + "tfind 4\ntdump\n")
    expect(out, r"Collected 5 trace frames")
    assert values(out, "(2*counter1+3*counter2)") == [22], out


PROGRESS = "/run/gtp-faults.progress"


def _progress_loop(n, cmds):
    """gdb commands: run cmds (gdb commands, {i} = i) for i < n, writing i
    to PROGRESS before each step, so the test knows where gdb is
    (gdbpy/progress.py)."""
    return ("source %s\npython progress_loop(%d, %r%s)\n"
            % (os.path.join(GDBPY, "progress.py"), n, PROGRESS,
               "".join(", %r" % c for c in cmds)))


def _kill_gdb_at(script, step, extra):
    """Start gdb on script, SIGKILL it extra seconds after its progress
    loop reached step; its output."""
    path = "/run/gtp-faults.gdb"
    with open(path, "w") as f:
        f.write(script)
    if os.path.exists(PROGRESS):
        os.unlink(PROGRESS)
    p = subprocess.Popen([GDB, "-nx", "-q", "-batch", "-x", path],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and p.poll() is None:
        try:
            with open(PROGRESS) as f:
                if int(f.read() or "-1") >= step:
                    break
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    time.sleep(extra)
    finished = p.poll() is not None
    p.kill()
    out = p.communicate()[0].decode(errors="replace")
    os.unlink(path)
    assert not finished, "gdb ended before it was killed:\n" + out
    return out


@leaves_target_clean
def test_gdb_killed_mid_tstart():
    """SIGKILL inside tstart (gdb downloading 40 tracepoints, the module
    arming them), with disconnected tracing off and on: the next gdb finds
    /proc/gtp free and a consistent target."""
    defs = "".join("trace *(gtp_test_function + %d) if $rdi > %d\nactions\n"
                   "collect $regs\nend\n" % (past_fentry(), i) for i in range(40))
    loop = _progress_loop(50, ["tstart", "tstop"])
    for disconn, extra in (("off", 0.0), ("on", 0.3), ("off", 1.0), ("on", 0.1)):
        reset_target()
        _kill_gdb_at(GDB_HEAD + "set disconnected-tracing %s\n" % disconn + defs + loop,
                     1, extra)
        st = raw_packets("qTStatus")[0]
        assert re.search(r"\$T[01]", st), st
        # gdb's death is a disconnect: with disconnected tracing off a
        # trace it left running was stopped
        if disconn == "off":
            assert "$T0" in st, (extra, st)
    reset_target()
    _fig12_still_works()


@leaves_target_clean
def test_gdb_killed_mid_tfind():
    """SIGKILL while gdb walks 3000 frames: the frames stay, a new gdb
    reads the last one with the value the loop passed."""
    out = gdb_script(GDB_HEAD + """set disconnected-tracing on
trace gtp_test_function
actions
collect counter1
end
tstart
shell echo 3000 > /proc/gtp_test
tstop
tstatus
""", timeout=300)
    assert frames_collected(out) == [3000], out
    _kill_gdb_at(GDB_HEAD + _progress_loop(3000, ["tfind {i}", "print counter1"]), 300, 0.0)
    out = gdb_script(GDB_HEAD + "tstatus\ntfind 2999\nprint counter1\ntfind none\n")
    assert frames_collected(out) == [3000], out
    expect(out, r"^\$1 = 3000$")


@leaves_target_clean
def test_start_stop_cycles_on_both_cpus():
    """CYCLES QTStart/QTStop on one tracepoint while two loops call it: every
    cycle is accepted; then one longer run whose frames all satisfy the
    condition."""
    reset_target()
    out = gdb_script(GDB_HEAD + """set disconnected-tracing on
trace *(gtp_test_function + %d) if $rdi %% 3 == 0
actions
collect $rdi
end
tstart
tstop
""" % past_fentry())
    loops = hammers(2)
    try:
        replies = raw_packets(*(["QTStart", "QTStop"] * CYCLES))
        # and the probe still works: a last run long enough to be hit
        replies += raw_packets("QTStart")
        time.sleep(0.5)
        replies += raw_packets("QTStop")
    finally:
        stop_hammers(loops)
    bad = [r for r in replies if "$OK#" not in r]
    assert not bad, bad[:5]
    out = gdb_script(GDB_HEAD + """tstatus
tfind start
print $rdi % 3
tfind end
""")
    n = frames_collected(out)[-1]
    assert n > 0, out                   # the loops really ran the probe
    expect(out, r"^\$1 = 0$")


@leaves_target_clean
def test_probe_in_timer_interrupt():
    """A tracepoint on the tick's update_process_times() (hard interrupt
    context, also on PREEMPT_RT): frames from both CPUs, each at that
    function."""
    addr = ksym("update_process_times")
    loops = hammers(2)                # keep both CPUs ticking (NOHZ)
    try:
        out = gdb_script(GDB_HEAD + """trace *0x%x
actions
collect $regs
end
tstart
shell sleep 1
tstop
tstatus
tfind 0
print $pc == 0x%x
tfind end
""" % (addr, addr))
    finally:
        stop_hammers(loops)
    assert frames_collected(out)[-1] > 10, out   # HZ >= 100: many ticks in 1 s
    expect(out, r"^\$1 = 1$")


@leaves_target_clean
def test_probe_in_nmi():
    """nmi:nmi_handler fires inside the NMI handler; `echo l >
    /proc/sysrq-trigger` sends an NMI to every other CPU to print its
    backtrace.  The static probe records it; the kernel logs only the
    backtraces it was asked for."""
    tracefs = "/sys/kernel/tracing"
    if not os.path.isdir(os.path.join(tracefs, "events", "nmi", "nmi_handler")):
        raise gtplib.Skip("no nmi:nmi_handler tracepoint in this kernel")
    before = len(dmesg().splitlines())
    with expected_log("sysrq-l: NMI backtraces of every CPU"):
        out = gdb_script(GDB_HEAD + """gtp-strace nmi:nmi_handler
actions
collect $_sdata
end
tstart
shell echo l > /proc/sysrq-trigger; sleep 1
tstop
tstatus
source %s
python print_sdata(16)
tfind end
""" % os.path.join(GDBPY, "sdata.py"))
    # the kernel printed the backtraces asked for (run.py checks the rest)
    window = dmesg().splitlines()[before:]
    assert any("NMI backtrace for cpu" in l for l in window), "\n".join(window)
    assert frames_collected(out)[-1] >= 1, out
    # every frame is a handler call; the backtrace handler handled one
    sdata = re.findall(r"^sdata: (.*)$", out, re.M)
    assert len(sdata) >= 1, out
    for d in sdata:
        assert re.match(r"handler=0x[0-9a-f]+ delta_ns=\d+ handled=[01]$", d), out
    assert any(d.endswith("handled=1") for d in sdata), out


def _gtp_vmalloc():
    """vmalloc areas allocated by gtp (their caller is in [gtp]), sorted."""
    with open("/proc/vmallocinfo") as f:
        return sorted(l.split()[1] + " " + l.split()[2].split("+")[0]
                      for l in f if "[gtp]" in l)


@leaves_target_clean
def test_memory_back_to_baseline_after_qtinit():
    """A heavy session -- a resized buffer, 60 JIT'd conditions, frames --
    then QTinit: the core holds as many allocations as before (its own
    count, the `allocations` parameter: kmalloc and vmalloc), and the
    vmalloc areas whose caller is in gtp are the ones it had at load
    (/proc/vmallocinfo: QTinit frees the frame store)."""
    reset_target()
    base = _gtp_vmalloc()
    allocs = int(param("allocations"))
    assert not any("ring_create" in a for a in base), base
    defs = "".join("trace gtp_test_function if counter1 * %d > %d\nactions\n"
                   "collect counter1\nend\n" % (i + 1, i) for i in range(60))
    out = gdb_script(GDB_HEAD + "set trace-buffer-size 4000000\n" + defs +
                     "tstart\nshell echo 50 > /proc/gtp_test\ntstop\ntstatus\n",
                     timeout=300)
    assert frames_collected(out)[-1] > 0, out
    assert int(param("allocations")) > allocs + 60     # it did allocate
    reset_target()
    assert int(param("allocations")) == allocs, (allocs, param("allocations"))
    assert _gtp_vmalloc() == base, (base, _gtp_vmalloc())
