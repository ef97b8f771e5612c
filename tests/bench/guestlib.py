"""What the guest benchmarks share (run inside the guest, under -icount).

Every figure is guest cycles per call of the paper's Fig. 11 loop:
`echo N > /proc/gtp_test` runs it, `cat /proc/gtp_test` gives the cycles.
"""
import os
import re
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
# The build tests/vm/run loaded for this guest's kernel.
GTP_KO = os.path.join(os.environ.get("GTP_KMOD_DIR", REPO), "module", "gtp.ko")


def sh(cmd):
    return subprocess.run(cmd, shell=True, check=True, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT).stdout.decode()


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def cycles_per_call(text):
    m = re.search(r"calls=(\d+) cycles=(\d+)", text)
    return int(m.group(2)) / int(m.group(1))


def loop(n):
    """Run the loop n times; return cycles per call."""
    write("/proc/gtp_test", str(n))
    with open("/proc/gtp_test") as f:
        return cycles_per_call(f.read())


def reload_gtp(params=""):
    sh("rmmod gtp")
    sh("insmod %s %s" % (GTP_KO, params))


def gdb_case(n, setup):
    """Cycles per call and frames collected with gdb's setup commands
    (tracepoint definitions) running; None if the trace did not run."""
    lines = ["source %s/gdb-scripts/gtp.py" % REPO,
             "gtp-load-module gtp_test",
             "target remote /proc/gtp",
             # gdb adopts the tracepoints an earlier case left on the
             # target (symbols are loaded first); measure this case's only
             "set confirm off",
             "delete"] + list(setup) + [
             "tstart",
             "shell echo %d > /proc/gtp_test" % n,
             "shell cat /proc/gtp_test > /tmp/gtp_bench_out",
             "tstop",
             "tstatus",
             "detach"]
    script = "/tmp/gtp_bench.gdb"
    write(script, "\n".join(lines) + "\n")
    # gdb -batch exits non-zero if any command failed: judge by the output
    out = subprocess.run(["gdb", "-nx", "-q", "-batch", "-x", script],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL).stdout.decode(errors="replace")
    frames = re.search(r"(?:Collected|Buffer contains) (\d+) trace frames", out)
    if not frames:
        return None, out
    with open("/tmp/gtp_bench_out") as f:
        return cycles_per_call(f.read()), int(frames.group(1))
