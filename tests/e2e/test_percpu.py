"""Per-CPU trace state variables (module/core/tsv.c, docs/tracing.md
"Per-CPU variables"): $p_NAME has one value per CPU; a hit reads and sets
its own CPU's, gdb's print shows the sum, gtp-percpu each CPU's.

gtp_test_function is called 3 times on CPU 0 and 5 times on CPU 1
(taskset).  Tracepoint 1 counts the calls in $p_calls and collects it
with $cpu_id: each CPU's frames count 1, 2, 3... on their own.
Tracepoint 2 keeps `$p_calls == 2`, a condition on this CPU's count:
one hit on each CPU.  While the trace runs, gtp-percpu shows 3 and 5,
print $p_calls their sum.  With the JIT and without.
"""
import re

from gtplib import (GDB_HEAD, SCRIPT_BUGS, expect, expect_not, gdb_script,
                    leaves_target_clean, reset_target)
from jit_switch import jit_restored, set_jit

BODY = """tvariable $p_calls
tvariable $cpu_id
trace gtp_test_function
actions
teval $p_calls = $p_calls + 1
collect $p_calls, $cpu_id
end
trace gtp_test_function if $p_calls == 2
actions
collect $cpu_id
end
tstart
shell taskset -c 0 sh -c 'echo 3 > /proc/gtp_test'
shell taskset -c 1 sh -c 'echo 5 > /proc/gtp_test'
gtp-percpu $p_calls
print $p_calls
tstop
tfind start
while $trace_frame != -1
if $tracepoint == 1
printf "count cpu %d calls %d\\n", $cpu_id, $p_calls
else
printf "cond cpu %d\\n", $cpu_id
end
tfind
end
"""


def run():
    reset_target()
    out = gdb_script(GDB_HEAD + BODY, timeout=300)
    expect_not(out, SCRIPT_BUGS + r"|Error|evaluation error")
    expect(out, r"^gtp-percpu \$p_calls: 8 on \d+ CPU\(s\)$")
    expect(out, r"^cpu 0: 3$")
    expect(out, r"^cpu 1: 5$")
    expect(out, r"^\$1 = 8$")
    counts = {}
    for cpu, n in re.findall(r"^count cpu (\d+) calls (\d+)$", out, re.M):
        counts.setdefault(int(cpu), []).append(int(n))
    assert counts == {0: [1, 2, 3], 1: [1, 2, 3, 4, 5]}, (counts, out)
    cond = sorted(int(c) for c in re.findall(r"^cond cpu (\d+)$", out, re.M))
    assert cond == [0, 1], (cond, out)


@leaves_target_clean
def test_percpu_counts_jit_and_interpreter():
    with jit_restored():
        for jit in (True, False):
            set_jit(jit)
            run()
