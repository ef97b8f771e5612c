#!/usr/bin/env python3
"""Guest cycles per probed call (run inside the guest: see guest.mk).

    tests/vm/run --icount -- python3 tests/bench/guest_bench.py [N]

With -icount shift=0,sleep=off -smp 1 the guest's TSC follows the number
of instructions executed, so the figures repeat exactly from boot to boot.
Each case runs the paper's Fig. 11 loop N times (`echo N > /proc/gtp_test`)
and reads the loop's cycles (`cat /proc/gtp_test`); the table gives cycles
per call and the overhead over the unprobed loop, all from this one run.

Cases: the floors any tool pays (an empty kprobe pre-handler, an empty
tracepoint probe), ftrace's kprobe events with a filter (a peer shipped
with every kernel), and gtp: dynamic tracepoint on gtp_test_function with
a false condition, with a true condition collecting the paper's
expression, and with a false condition that reads a module global (one
memory read per hit), each with the JIT and with the interpreter (jit=0), and the
static tracepoint gtp_test:gtp_test_event with a false condition.  The true
case runs once more with gtp-ctl stream attached (the live consumer polls
/proc/gtp_stream and writes CTF): the probe path must not notice it.
"""
import os
import subprocess
import sys

from guestlib import REPO, gdb_case, loop as _loop, reload_gtp, write

TRACING = "/sys/kernel/tracing"
N = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
COND_TRUE = "2*counter1+3*counter2 > 0"
COND_FALSE = "2*counter1+3*counter2 < 0"
EXPR = "(2*counter1+3*counter2)"
COND_MEM = "gtp_test_calls < 0"     # a module global, read at every hit


def loop():
    return _loop(N)


def dynamic_case(cond, collect):
    setup = ["trace gtp_test_function if %s" % cond]
    if collect:
        setup += ["actions", "collect %s" % collect, "end"]
    c, fr = gdb_case(N, setup)
    if c is None:
        raise SystemExit("gdb case failed:\n%s" % fr)
    return c, fr


def ftrace_case(filt):
    write(TRACING + "/kprobe_events", "p:gtpbench gtp_test_function c1=%di:s32 c2=%si:s32\n")
    ev = TRACING + "/events/kprobes/gtpbench"
    write(ev + "/filter", filt)
    write(ev + "/enable", "1")
    try:
        return loop()
    finally:
        write(ev + "/enable", "0")
        write(TRACING + "/kprobe_events", "")


def streamed_case():
    """The true case with the live consumer attached the whole time."""
    ctl = os.path.join(REPO, "gdb-scripts", "gtp-ctl")
    p = subprocess.Popen([ctl, "stream", "--ctf", "/tmp/gtp-bench-ctf", "--force",
                          "--until-stop", "--quiet"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    c, fr = dynamic_case(COND_TRUE, EXPR)
    out = p.communicate(timeout=600)[0].decode()
    if p.returncode:
        raise SystemExit("gtp-ctl stream failed:\n%s" % out)
    return c, out.strip().splitlines()[-1].split(" events")[0].split()[-1]


def main():
    rows = []
    base = loop()  # warm up caches, then measure
    base = loop()
    rows.append(("unprobed loop", base, None))

    write("/proc/gtp_test", "kprobe")
    rows.append(("kprobe, empty pre-handler (floor)", loop(), None))
    write("/proc/gtp_test", "off")
    write("/proc/gtp_test", "tpprobe")
    rows.append(("tracepoint, empty probe (floor)", loop(), None))
    write("/proc/gtp_test", "off")

    if os.path.exists(TRACING + "/kprobe_events"):
        rows.append(("ftrace kprobe event, filter false", ftrace_case("c1 < 0"), None))
        rows.append(("ftrace kprobe event, filter true", ftrace_case("c1 > 0"), None))

    for label, params in (("jit", ""), ("interp", "jit=0")):
        reload_gtp(params)
        c, fr = dynamic_case(COND_FALSE, None)
        rows.append(("gtp dynamic, false condition (%s)" % label, c, fr))
        c, fr = dynamic_case(COND_TRUE, EXPR)
        rows.append(("gtp dynamic, true condition + collect (%s)" % label, c, fr))
        if label == "jit":
            c, fr = streamed_case()
            rows.append(("gtp dynamic, true + collect, streaming (jit)", c, fr))
        # one memory read per hit: the page-table check of every user read
        c, fr = dynamic_case(COND_MEM, None)
        rows.append(("gtp dynamic, false, reads a global (%s)" % label, c, fr))
    reload_gtp()

    print("guest cycles per call, N=%d, -icount shift=0 -smp 1, one boot" % N)
    print("%-48s %10s %10s %8s" % ("case", "cyc/call", "overhead", "frames"))
    for label, c, fr in rows:
        print("%-48s %10.1f %10.1f %8s" % (label, c, c - base, "" if fr is None else fr))
    floor = rows[1][1] - base
    for label, c, fr in rows:
        if label.startswith("gtp dynamic"):
            print("ratio %-42s %.2fx the kprobe floor" % (label, (c - base) / floor))
    return 0


if __name__ == "__main__":
    sys.exit(main())
