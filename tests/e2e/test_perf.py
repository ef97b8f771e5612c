"""The kernel's counters as trace state variables (module/services/perf.c,
docs/tracing.md "Counters as variables"): $perf_page_faults and
$perf_cpu_clock, software counters every guest has, read at the hit on
the hit's CPU; $perf_cycles, a hardware one, where the guest has a PMU,
else refused by tstart with the reason, nothing left armed.

gtp_test_function is called once on CPU 0, then a process on CPU 0
touches 64 new pages, then the function is called again: the two
frames' $perf_page_faults differ by at least those 64 faults, and
$perf_cpu_clock (nanoseconds CPU 0 ran) grows.  With the JIT and
without.  The Cookbook's cycles-per-call recipe is test_cookbook's.
"""
import re

from gtplib import (GDB_HEAD, HAVE_PMU, SCRIPT_BUGS, expect, expect_not, gdb_script,
                    leaves_target_clean, reset_target)
from jit_switch import jit_restored, set_jit

PAGES = 64

SOFT = """tvariable $perf_page_faults
tvariable $perf_cpu_clock
tvariable $cpu_id
trace gtp_test_function
actions
collect $perf_page_faults, $perf_cpu_clock, $cpu_id
end
tstart
shell taskset -c 0 sh -c 'echo 1 > /proc/gtp_test'
shell taskset -c 0 python3 -c 'b = bytearray(%d * 4096)'
shell taskset -c 0 sh -c 'echo 1 > /proc/gtp_test'
tstop
tfind start
while $trace_frame != -1
printf "perf cpu %%d faults %%ld clock %%ld\\n", $cpu_id, $perf_page_faults, $perf_cpu_clock
tfind
end
""" % PAGES

HARD = """tvariable $perf_cycles
trace gtp_test_function
actions
collect $perf_cycles
end
tstart
shell echo 3 > /proc/gtp_test
tstop
tfind start
while $trace_frame != -1
printf "cycles %ld\\n", $perf_cycles
tfind
end
"""


def soft():
    reset_target()
    out = gdb_script(GDB_HEAD + SOFT, timeout=300)
    expect_not(out, SCRIPT_BUGS + r"|Error|evaluation error|unavailable")
    got = [tuple(map(int, g)) for g in
           re.findall(r"^perf cpu (\d+) faults (\d+) clock (\d+)$", out, re.M)]
    assert len(got) == 2 and all(g[0] == 0 for g in got), (got, out)
    (_, f0, c0), (_, f1, c1) = got
    assert f1 - f0 >= PAGES, (got, out)
    assert c1 > c0 > 0, (got, out)


@leaves_target_clean
def test_software_counters_jit_and_interpreter():
    with jit_restored():
        for jit in (True, False):
            set_jit(jit)
            soft()


@leaves_target_clean
def test_hardware_counter_or_its_refusal():
    reset_target()
    out = gdb_script(GDB_HEAD + HARD, timeout=300)
    expect_not(out, SCRIPT_BUGS)
    cycles = [int(c) for c in re.findall(r"^cycles (\d+)$", out, re.M)]
    if HAVE_PMU:
        assert len(cycles) == 3 and cycles == sorted(cycles) and cycles[0] > 0, out
        return
    expect(out, r"^gtp: \$perf_cycles: the kernel has no such counter on CPU \d+ "
                r"\(error -\d+: no hardware counters here")
    assert cycles == [], out
