#!/usr/bin/env python3
"""Entry and mid-function probes against their floors (docs/benchmarks.md).

    tests/vm/run --icount -- python3 tests/bench/entry_bench.py [N]

Guest cycles per call of the Fig. 11 loop, all from one boot, overhead
over the unprobed loop: the empty kprobe, ftrace and mid-function kprobe
floors (/proc/gtp_test's kprobe, ftrace, kprobe-mid), and gtp's false
condition at gtp_test_function's entry through ftrace (entry_ftrace=1)
and through a kprobe (entry_ftrace=0), and at "mid" (the instruction after
the fentry call, a kprobe the kernel optimizes into a jump).  Each probe
gets a second before the loop runs, so the kprobe optimizer has run.
"""
import re
import subprocess
import sys

from guestlib import REPO, cycles_per_call, loop as _loop, sh, write

N = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
COND_FALSE = "2*counter1+3*counter2 < 0"
PARAM = "/sys/module/gtptrace/parameters/"


def loop():
    return _loop(N)


def settled_loop():
    sh("sleep 1")
    return loop()


def gdb_case(setup):
    lines = ["source %s/gdb-scripts/gtp.py" % REPO,
             "gtp-load-module gtp_test",
             "target remote /proc/gtp",
             "set confirm off",
             "delete"] + list(setup) + [
             "tstart",
             "shell cat %sattached > /tmp/entry_bench_attached" % PARAM,
             "shell cat /sys/kernel/debug/kprobes/list > /tmp/entry_bench_kprobes",
             "shell sleep 1",
             "shell echo %d > /proc/gtp_test" % N,
             "shell cat /proc/gtp_test > /tmp/entry_bench_out",
             "tstop",
             "tstatus",
             "detach"]
    write("/tmp/entry_bench.gdb", "\n".join(lines) + "\n")
    out = subprocess.run(["gdb", "-nx", "-q", "-batch", "-x", "/tmp/entry_bench.gdb"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL).stdout.decode(errors="replace")
    if not re.search(r"(?:Collected|Buffer contains) (\d+) trace frames", out):
        raise SystemExit("gdb case failed:\n%s" % out)
    with open("/tmp/entry_bench_out") as f:
        c = cycles_per_call(f.read())
    with open("/tmp/entry_bench_attached") as f:
        how = " ".join(f.read().split()[2::3])
    with open("/tmp/entry_bench_kprobes") as f:
        if "[OPTIMIZED]" in f.read():
            how += " (optimized)"
    return c, how


def floor(cmd):
    write("/proc/gtp_test", cmd)
    try:
        kp = sh("cat /sys/kernel/debug/kprobes/list")
        return settled_loop(), "optimized" if "[OPTIMIZED]" in kp else ""
    finally:
        write("/proc/gtp_test", "off")


def main():
    with open("/proc/gtp_test") as f:
        mid = re.search(r"mid=(0x[0-9a-f]+)", f.read()).group(1)
    loop()
    base = loop()
    rows = [("unprobed loop", base, "")]
    rows.append(("kprobe floor (entry)", *floor("kprobe")))
    rows.append(("ftrace floor (entry, no SAVE_REGS)", *floor("ftrace")))
    rows.append(("kprobe-mid floor", *floor("kprobe-mid")))
    entry = ["trace gtp_test_function if %s" % COND_FALSE]
    write(PARAM + "entry_ftrace", "1")
    rows.append(("gtp entry false, jit, ftrace", *gdb_case(entry)))
    write(PARAM + "entry_ftrace", "0")
    rows.append(("gtp entry false, jit, kprobe", *gdb_case(entry)))
    write(PARAM + "entry_ftrace", "1")
    rows.append(("gtp mid false, jit", *gdb_case(["trace *%s if %s" % (mid, COND_FALSE)])))
    print("guest cycles per call, N=%d, one --icount boot, mid=%s" % (N, mid))
    print("%-40s %10s %10s  %s" % ("case", "cyc/call", "overhead", "attached"))
    for label, c, how in rows:
        print("%-40s %10.1f %10.1f  %s" % (label, c, c - base, how))
    o = {label: c - base for label, c, how in rows}
    print("ratio gtp entry false (ftrace) / kprobe floor: %.2fx (target <= 0.6)" %
          (o["gtp entry false, jit, ftrace"] / o["kprobe floor (entry)"]))
    print("ratio gtp entry false (kprobe) / kprobe floor: %.2fx" %
          (o["gtp entry false, jit, kprobe"] / o["kprobe floor (entry)"]))
    print("ratio gtp entry false (ftrace) / ftrace floor: %.2fx" %
          (o["gtp entry false, jit, ftrace"] / o["ftrace floor (entry, no SAVE_REGS)"]))
    print("ratio gtp mid false / kprobe-mid floor: %.2fx (target <= 1.15)" %
          (o["gtp mid false, jit"] / o["kprobe-mid floor"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
