"""Entry tracepoints carried by ftrace (module/probes/ftrace_probe.c).

`trace FUNC` gives the function's ftrace location (on IBT kernels its
first byte, right before it); gtp attaches an ftrace_ops of its own there
(entry_ftrace=1, the default) instead of a kprobe: "ftrace" when the tracepoint reads only the registers ftrace saves
anyway (arguments, sp, bp, ip), "ftrace-regs" otherwise.  What gdb sees
must not depend on it: the same frames, arguments and $pc with
entry_ftrace=0 (kprobes).  A mid-function tracepoint stays a kprobe.
/sys/module/gtptrace/parameters/attached says how each location is carried,
and ftrace's own enabled_functions lists our callback on the ip.
gdb's disable/enable and the detach at tstop: cases/test_ftrace.case.
"""
import re

from gtplib import (GDB_HEAD, expect, expect_not, frames_collected, gdb_script,
                    leaves_target_clean, param, past_fentry, reset_target)

BAD = (r"Fatal signal|internal-error|Remote connection closed|Bogus|"
       r"Malformed|Remote failure|Traceback")

# Two entry tracepoints (one reading arguments only, one every register)
# and one mid-function; frames printed one per line for comparison.
BODY = """trace gtp_test_function if 2*counter1+3*counter2 > 20
actions
collect counter1, counter2
end
trace gtp_test_function if counter1 == 2
actions
collect $regs
end
trace *(gtp_test_function + %d) if $rdi == 3
actions
collect $rdi, $rsi
end
tstart
shell cat /sys/module/gtptrace/parameters/attached
shell grep gtp_test_function /sys/kernel/tracing/enabled_functions || echo not-ftraced
shell echo 8 > /proc/gtp_test
tstop
tstatus
set $i = 0
while $i < 6
  tfind $i
  if $tracepoint == 1
    printf "=f= tp1 c1 %%d c2 %%d pc+%%d\\n", counter1, counter2, (long)$pc - (long)gtp_test_function
  end
  if $tracepoint == 2
    printf "=f= tp2 rdi %%d rsi %%d pc+%%d\\n", $rdi, $rsi, (long)$pc - (long)gtp_test_function
  end
  if $tracepoint == 3
    printf "=f= tp3 rdi %%d rsi %%d pc+%%d\\n", $rdi, $rsi, (long)$pc - (long)gtp_test_function
  end
  set $i = $i + 1
end
"""


def run_body():
    # the shared ops and plain kprobes: the conditions here are ones the
    # trampolines and pre-handlers compiled from them would decide
    # (test_direct, test_kprobe_jit)
    reset_target()
    param("entry_direct", "0")
    param("kprobe_jit", "0")
    try:
        out = gdb_script(GDB_HEAD + BODY % past_fentry(), timeout=240)
    finally:
        param("entry_direct", "1")
        param("kprobe_jit", "1")
    expect_not(out, BAD)
    return out


def kinds(out):
    """tracepoint number -> how it is attached, from `attached`."""
    return {int(n): k for n, k in
            re.findall(r"^(\d+) 0x[0-9a-f]+ (\S+)$", out, re.M)}


def frames(out):
    return re.findall(r"^=f= (.*)$", out, re.M)


# Calls k = 1..8 are (k, k - 1): 2k + 3(k - 1) > 20 from k = 5 on; tp 2 at
# call 2, the mid-function one at call 3.  Entry $pc: the ftrace location,
# the fentry call (past endbr64 on IBT kernels); mid: the instruction after.
def expected(out):
    mid = past_fentry()
    # gdb's `trace FUNC` address: the ftrace location, or on IBT kernels
    # the function's first byte (the probe sits past endbr64 either way)
    at = dict(re.findall(r"^Tracepoint (\d) at (0x[0-9a-f]+)", out, re.M))
    entry = int(at["1"], 16) - int(at["3"], 16) + mid
    return ["tp2 rdi 2 rsi 1 pc+%d" % entry,
            "tp3 rdi 3 rsi 2 pc+%d" % mid] + \
        ["tp1 c1 %d c2 %d pc+%d" % (k, k - 1, entry) for k in (5, 6, 7, 8)]


# Python: the expected $pc offsets are computed from the addresses gdb
# printed, and the kprobe run's frames are compared with ftrace's.
@leaves_target_clean
def test_entry_through_ftrace_same_frames_as_kprobes():
    assert param("entry_ftrace").strip() == "Y"
    out = run_body()
    assert frames_collected(out)[-1:] == [6], out
    assert kinds(out) == {1: "ftrace", 2: "ftrace-regs", 3: "kprobe"}, out
    # ftrace has our two ops on the location (kprobes: one, aggregated)
    expect(out, r"^gtp_test_function \[gtp_test\] \(2\)")
    assert frames(out) == expected(out), out

    param("entry_ftrace", "0")
    try:
        out0 = run_body()
    finally:
        param("entry_ftrace", "1")
    assert kinds(out0) == {1: "kprobe", 2: "kprobe", 3: "kprobe"}, out0
    expect(out0, r"^gtp_test_function \[gtp_test\] \(1\)")
    assert frames(out0) == frames(out), (out, out0)
