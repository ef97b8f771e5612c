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
expression, each with the JIT and with the interpreter (jit=0), and the
static tracepoint gtp_test:gtp_test_event with a false condition.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
GTP_KO = os.path.join(REPO, "module", "gtp.ko")
TRACING = "/sys/kernel/tracing"
N = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
COND_TRUE = "2*counter1+3*counter2 > 0"
COND_FALSE = "2*counter1+3*counter2 < 0"
EXPR = "(2*counter1+3*counter2)"


def sh(cmd):
    return subprocess.run(cmd, shell=True, check=True, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT).stdout.decode()


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def loop():
    """Run the loop; return cycles per call."""
    write("/proc/gtp_test", str(N))
    with open("/proc/gtp_test") as f:
        m = re.search(r"calls=(\d+) cycles=(\d+)", f.read())
    return int(m.group(2)) / int(m.group(1))


def reload_gtp(params=""):
    sh("rmmod gtp")
    sh("insmod %s %s" % (GTP_KO, params))


def gdb_case(trace_cmd, cond, collect):
    """Cycles per call with a gtp tracepoint running, measured under gdb."""
    lines = [
        "source %s/gdb-scripts/gtp.py" % REPO,
        "target remote /proc/gtp",
        "gtp-load-module gtp_test",
        "%s if %s" % (trace_cmd, cond) if cond else trace_cmd,
    ]
    if collect:
        lines += ["actions", "collect %s" % collect, "end"]
    lines += [
        "tstart",
        "shell echo %d > /proc/gtp_test" % N,
        "shell cat /proc/gtp_test > /tmp/gtp_bench_out",
        "tstop",
        "tstatus",
        "detach",
    ]
    script = "/tmp/gtp_bench.gdb"
    write(script, "\n".join(lines) + "\n")
    out = sh("gdb -nx -q -batch -x %s 2>&1" % script)
    with open("/tmp/gtp_bench_out") as f:
        m = re.search(r"calls=(\d+) cycles=(\d+)", f.read())
    frames = re.search(r"Collected (\d+) trace frames", out)
    return int(m.group(2)) / int(m.group(1)), (int(frames.group(1)) if frames else 0), out


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
        c, fr, _ = gdb_case("trace gtp_test_function", COND_FALSE, None)
        rows.append(("gtp dynamic, false condition (%s)" % label, c, fr))
        c, fr, _ = gdb_case("trace gtp_test_function", COND_TRUE, EXPR)
        rows.append(("gtp dynamic, true condition + collect (%s)" % label, c, fr))
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
