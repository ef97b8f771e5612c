"""The JIT's direct loads in the guest kernel (module/services/jit_direct.c).

gtp_test_calls is a global of gtp_test.ko.  A condition reading it compiles
to a plain load while gtp pins gtp_test: every frame the Fig. 11 loop
passes must be there, conditions true, false and true for every other
call, and the same with jit=0 (the nofault read hook).  The pin is the
observable proof that the direct path was taken: while such a tracepoint
exists (jit=1) gtp_test holds one more reference than with jit=0, and
once the definitions are gone it can be unloaded again (a case:
cases/test_jit_direct.case).
"""
import os
import re

from gtplib import (REPO, expect, expect_not, frames_collected, gdb_script,
                    leaves_target_clean, reset_target, sh, values)
from jit_switch import HEAD, set_jit

N = 6


def session(cond):
    """Trace N calls if cond, collecting gtp_test_calls; try to unload
    gtp_test while the tracepoint exists."""
    body = """trace gtp_test_function if %s
actions
collect gtp_test_calls
end
tstart
shell echo %d > /proc/gtp_test
shell echo "refcnt-while-traced=$(cat /sys/module/gtp_test/refcnt)"
tstop
tstatus
""" % (cond, N)
    body += "".join("tfind %d\ntdump\n" % i for i in range(N)) + "tfind none\n"
    out = gdb_script(HEAD + body, timeout=240)
    expect_not(out, r"Fatal signal|internal-error|Remote connection closed")
    return out


def refcnt(out):
    m = re.search(r"^refcnt-while-traced=(\d+)$", out, re.M)
    assert m, out
    return int(m.group(1))


def run(cond, jit):
    try:
        set_jit(jit)
        out = session(cond)
    finally:
        set_jit(True)
        reset_target()
    return out


def check(cond, pick):
    """Frames of cond with the JIT and without; pick(v) says which values
    of gtp_test_calls the condition passes."""
    on = run(cond, True)
    got = values(on, "gtp_test_calls")
    assert frames_collected(on)[-1] == len(got), on
    assert all(pick(v) for v in got), on
    off = run(cond, False)
    other = values(off, "gtp_test_calls")
    assert frames_collected(off)[-1] == len(other), off
    assert all(pick(v) for v in other), off
    # the condition's one direct load pinned gtp_test; the hook does not
    assert refcnt(on) == refcnt(off) + 1, (on, off)
    return got, other


# Python: compares the jit=1 session's gtp_test refcount with jit=0's.
@leaves_target_clean
def test_global_condition_false():
    on, off = check("gtp_test_calls < 0", lambda v: False)
    assert on == [] and off == [], (on, off)


# Python: compares the jit=1 session's gtp_test refcount with jit=0's.
@leaves_target_clean
def test_global_condition_true():
    on, off = check("gtp_test_calls >= 0", lambda v: v >= 0)
    assert len(on) == N, on
    # consecutive calls, each seen as it was when the probe fired
    assert on == list(range(on[0], on[0] + N)), on
    assert len(off) == N, off


# Python: compares the jit=1 session's gtp_test refcount with jit=0's.
@leaves_target_clean
def test_global_condition_every_other_call():
    on, off = check("(gtp_test_calls & 1) == 0", lambda v: v % 2 == 0)
    assert len(on) == N // 2, on
    assert len(off) == N // 2, off


# Python: runs a unit test binary on /proc/kallsyms, no gdb session.
def test_freed_kernel_data_excluded():
    """core/kdata.c on this kernel's own section symbols: the unit test
    (tests/unit/test_kdata.c, built by make unit) run on /proc/kallsyms.
    The unused part of .bss..decrypted lies inside .bss but is freed
    after boot; neither it nor the init sections may be loaded directly."""
    binary = os.path.join(REPO, "build", "unit", "test_kdata")
    assert os.path.exists(binary), "run make unit first: no %s" % binary
    out = sh("cd %s && GTP_KALLSYMS=/proc/kallsyms %s 2>&1" % (REPO, binary))
    expect(out, r"\[  PASSED  \] \d+ test")
    expect_not(out, r"FAILED")
