"""The live-kernel fuzz: random tracepoint sessions on real kernel
functions, armed and hit while a workload runs (livefuzz.py says what a
step does and what it checks), then a clean gdb session in the same boot.

    GTP_LIVE_FUZZ_SEED=N    replay one seed (printed at the start; the
                            default is a fixed one, "random" draws one)
    GTP_LIVE_FUZZ_STEPS=N   steps (default 100: two to three minutes under
                            TCG; `make fuzz-live`, the long run before a
                            hardening change lands, runs 1000)

run.py fails the test if the kernel log shows an oops, BUG, WARNING or a
call trace afterwards; tests/vm/run fails the whole run on one.
"""
import os
import subprocess
import signal
import time

import gtplib
from gtplib import FIG12, GDB_HEAD, expect, gdb_script, param, reset_target, values
from livefuzz import Fuzzer

STEPS = int(os.environ.get("GTP_LIVE_FUZZ_STEPS", "100"))
# The suite's run is one fixed seed, so that make check and CI fail only
# on what the kernel does, never on a draw that happened to collect
# nothing (some seeds define, start and stop without a hit in between,
# and the checks below ask for a run that is not hollow).  "random" draws
# one (make fuzz-live does).
DEFAULT_SEED = "529687424"

# Reads, writes, opens, fork, exec and exit in a loop, and the Fig. 11
# loop of gtp_test; the sleeps leave the (TCG) CPUs to the fuzzer too.
WORKLOAD = [
    "while :; do echo 20 > /proc/gtp_test; sleep 0.05; done",
    "while :; do cat /proc/version /etc/hostname > /dev/null; "
    "sh -c 'ls / > /dev/null'; sleep 0.1; done",
]


def _workload():
    return [subprocess.Popen(["sh", "-c", w], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, preexec_fn=os.setsid)
            for w in WORKLOAD]


def _stop(procs):
    for p in procs:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()


def test_live_fuzz():
    """Python: the fuzzer draws the sessions (livefuzz.py) while a workload
    started here runs; the allocation count must return to its value
    before."""
    seed = os.environ.get("GTP_LIVE_FUZZ_SEED") or DEFAULT_SEED
    seed = time.time_ns() % 1000000007 if seed == "random" else int(seed)
    print("# live fuzz: seed %d, %d steps (replay: GTP_LIVE_FUZZ_SEED=%d)"
          % (seed, STEPS, seed), flush=True)
    reset_target()
    allocs = int(param("allocations"))
    fz = Fuzzer(seed, print)
    procs = _workload()
    try:
        fz.run(STEPS)
    finally:
        _stop(procs)
        reset_target()
    print("# live fuzz: %s" % " ".join("%s=%d" % kv for kv in sorted(fz.stats.items())))
    print("# live fuzz: attached as %s" % " ".join(
        "%s=%d" % kv for kv in sorted(fz.kinds.items())))
    # not a hollow run: definitions of each kind went in, traces ran and
    # collected, refusals were tried
    for k in ("define.entry", "define.mid", "refused", "start.ok", "stop"):
        assert fz.stats.get(k, 0) > 0, (k, fz.stats, seed)
    if STEPS >= 100:
        assert fz.stats.get("frames", 0) > 0, (fz.stats, seed)
        # watches, at an address and pointed by hits
        assert fz.stats.get("define.watch", 0) + fz.stats.get("define.watch0", 0) > 0, \
            (fz.stats, seed)
        assert fz.stats.get("start.ok", 0) >= fz.stats.get("start.refused", 0), \
            (fz.stats, seed)
    # QTinit gave back everything the session allocated
    assert int(param("allocations")) == allocs, (allocs, param("allocations"), seed)


def test_clean_session_after_fuzz():
    """The paper's Fig. 12 session, in the same boot, right after the fuzz.
    Python although its checks are lines: a file's cases run before its
    functions, and this one must run after test_live_fuzz."""
    out = gdb_script(GDB_HEAD + FIG12 % "> 0" + "tfind 4\ntdump\n")
    expect(out, r"Collected 5 trace frames")
    assert values(out, "(2*counter1+3*counter2)") == [22], out
    assert gtplib.frames_collected(out)[-1] == 5, out
    reset_target()
