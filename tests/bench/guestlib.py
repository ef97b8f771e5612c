"""What the guest benchmarks share (run inside the guest, under -icount).

Every figure is guest cycles per call of the paper's Fig. 11 loop:
`echo N > /proc/gtp_test` runs it, `cat /proc/gtp_test` gives the cycles.
"""
import os
import re
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
# The build tests/vm/run loaded for this guest's kernel.
GTP_KO = os.path.join(os.environ.get("GTP_KMOD_DIR", REPO), "module", "gtptrace.ko")


def sh(cmd):
    return subprocess.run(cmd, shell=True, check=True, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT).stdout.decode()


# The kprobe optimizer turns a kprobe into a jump some jiffies after it
# is registered (and again after its neighbours change); a loop run before
# that measures the int3 kprobe.  Every case waits this long after arming.
SETTLE_S = 1


def settle():
    time.sleep(SETTLE_S)


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
    """Load gtptrace again with params, and with no CPU budget, as
    tests/vm/run loads it: a bench's probes saturate a CPU on purpose
    (the budget's sampling, which every hit pays, is still there)."""
    sh("rmmod gtptrace")
    sh("insmod %s cpu_budget=0 %s" % (GTP_KO, params))


def gdb_case(n, setup):
    """Cycles per call and frames collected with gdb's setup commands
    (tracepoint definitions) running; None if the trace did not run."""
    r = gdb_run(str(n), setup)
    if r["frames"] is None:
        return None, r["gdb"]
    return cycles_per_call(r["out"]), r["frames"]


# gdb's side of a timed command, as the e2e tests time theirs
TIMING_PY = os.path.join(REPO, "tests", "e2e", "gdbpy", "timing.py")


def gdb_run(workload, setup, pre=(), connect="target remote /proc/gtp", timed=False):
    """Run gdb's setup commands (tracepoint definitions), tstart, write
    workload to /proc/gtp_test, tstop.  Returns a dict: out (what
    /proc/gtp_test printed), frames (in the buffer, None if the trace did
    not run), created (frames created, overwritten ones included), gdb
    (gdb's output).  pre: commands before the definitions (settings);
    connect: how gdb connects (gtp-connect: with BTF's names of every
    kernel function); timed: tstart's and tstop's seconds as tstart_s,
    tstop_s."""
    start, stop = "tstart", "tstop"
    if timed:
        pre = ["source " + TIMING_PY] + list(pre)
        start, stop = 'python timed("tstart")', 'python timed("tstop")'
    lines = ["source %s/gdb-scripts/gtp.py" % REPO,
             "gtp-load-module gtp_test",
             connect,
             # gdb adopts the tracepoints an earlier case left on the
             # target (symbols are loaded first); measure this case's only
             "set confirm off",
             "delete"] + list(pre) + list(setup) + [
             start,
             # as settle(): the kprobe optimizer has run before we measure
             "shell sleep %s" % SETTLE_S,
             "shell echo %s > /proc/gtp_test" % workload,
             "shell cat /proc/gtp_test > /tmp/gtp_bench_out",
             stop,
             "tstatus",
             "detach"]
    script = "/tmp/gtp_bench.gdb"
    write(script, "\n".join(lines) + "\n")
    if os.path.exists("/tmp/gtp_bench_out"):
        os.unlink("/tmp/gtp_bench_out")
    # gdb -batch exits non-zero if any command failed: judge by the output
    out = subprocess.run(["gdb", "-nx", "-q", "-batch", "-x", script],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL).stdout.decode(errors="replace")
    r = {"gdb": out, "frames": None, "created": None, "out": ""}
    for cmd, secs in re.findall(r"^(tstart|tstop) took ([\d.]+) s$", out, re.M):
        r[cmd + "_s"] = float(secs)
    # gdb: "Collected N trace frames." or, when some were overwritten
    # (circular buffer), "Buffer contains N trace frames (of M created total)."
    m = re.search(r"Buffer contains (\d+) trace frames \(of (\d+) created", out)
    if m:
        r["frames"], r["created"] = int(m.group(1)), int(m.group(2))
    else:
        m = re.search(r"(?:Collected|Buffer contains) (\d+) trace frames", out)
        if m:
            r["frames"] = r["created"] = int(m.group(1))
    if r["frames"] is not None and os.path.exists("/tmp/gtp_bench_out"):
        with open("/tmp/gtp_bench_out") as f:
            r["out"] = f.read()
    if "calls=" not in r["out"]:
        r["frames"] = None
    return r


def gdb_error(text):
    """The line of gdb's output that says why a case failed, shortened."""
    for line in text.splitlines():
        low = line.lower()
        if any(w in low for w in ("error", "cannot", "no symbol", "not ", "failed")):
            return line.strip()[:90]
    lines = [l for l in text.splitlines() if l.strip()]
    return (lines[-1].strip()[:90]) if lines else "gdb printed nothing"


def opened(pid, path, tries=600):
    """Whether process pid has path open within tries x 0.1 s."""
    for _ in range(tries):
        try:
            fds = os.listdir("/proc/%d/fd" % pid)
        except OSError:
            return False
        for fd in fds:
            try:
                if os.readlink("/proc/%d/fd/%s" % (pid, fd)) == path:
                    return True
            except OSError:
                pass
        time.sleep(0.1)
    return False
