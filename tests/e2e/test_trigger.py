"""Trigger chains (module/core/trigger.c, docs/tracing.md "Trigger
chains"): an action that sets $gtp_enable or $gtp_disable switches
another tracepoint on or off, from the probe, at that hit.

Tracepoint 1 collects counter1 at gtp_test_function and is disabled in
gdb before tstart.  Tracepoint 2, at gtp_test_lines if a == 1, enables
it; tracepoint 3, at gtp_test_lines if a == 99, disables it again.  The
workload calls gtp_test_function before, between and after: only the
calls from the hit that enabled it on (gtp_test_lines' own two calls
included) to the one that disabled it are recorded.  Run with the JIT
and the direct trampolines, then interpreted with every entry a kprobe:
a kprobe of a tracepoint disabled at tstart is otherwise registered
disabled, which no probe could undo.  tstatus names the last switch.
The unit test of the table and the notes is tests/unit/test_tracepoint.c
test_trigger_chain.
"""
import re

from gtplib import (GDB_HEAD, SCRIPT_BUGS, expect, expect_not, gdb_script,
                    leaves_target_clean, param, reset_target)
from jit_switch import jit_restored, set_jit

BODY = """tvariable $gtp_enable
tvariable $gtp_disable
trace gtp_test_function
actions
collect counter1
end
disable 1
trace gtp_test_lines if a == 1
actions
teval $gtp_enable = 1
end
trace gtp_test_lines if a == 99
actions
teval $gtp_disable = 1
end
tstart
shell echo 5 > /proc/gtp_test
shell echo lines 1 2 > /proc/gtp_test
shell echo 3 > /proc/gtp_test
shell echo lines 99 0 > /proc/gtp_test
shell echo 2 > /proc/gtp_test
tstatus
shell cat /sys/module/gtptrace/parameters/attached
tstop
tfind tracepoint 1
while $trace_frame != -1
printf "hit %d %d\\n", $tracepoint, counter1
tfind tracepoint 1
end
"""
# gtp_test_lines(1, 2) calls gtp_test_function(4, 1), then (11, 9)
WANT = [4, 11, 1, 2, 3]


def run():
    reset_target()
    out = gdb_script(GDB_HEAD + BODY, timeout=300)
    expect_not(out, SCRIPT_BUGS + r"|Error|evaluation error")
    expect(out, r"^Trace notes: tracepoint 1 disabled by 3 \(2 switches\)")
    # the chain's own hits: one empty frame each
    expect(out, r"^Collected %d trace frames\.$" % (len(WANT) + 2))
    got = [(int(t), int(c)) for t, c in re.findall(r"^hit (\d+) (\d+)$", out, re.M)]
    assert got == [(1, c) for c in WANT], (got, out)
    return out


@leaves_target_clean
def test_trigger_chain_jit_and_interpreted_kprobes():
    with jit_restored():
        set_jit(True)
        run()
        set_jit(False)
        param("entry_ftrace", "0")
        try:
            out = run()
        finally:
            param("entry_ftrace", "1")
    # the disabled tracepoint's kprobe was armed all the same
    expect(out, r"^1 0x[0-9a-f]+ kprobe(-jit)?$")
