#!/usr/bin/env python3
"""Streaming throughput (run inside the guest, without -icount, -smp 2).

    tests/vm/run -- python3 tests/bench/stream_bench.py

gtp-ctl stream --until-stop writes CTF to the guest's tmpfs while the
Fig. 11 loop runs in paced bursts (CHUNK calls, then 10 ms of sleep:
tests/e2e/pace.py) through a 4 MiB buffer.  The table gives the events
per second streamed over the run (tstart to tstop, as tstatus reports it),
the bytes per event the reader moved (its raw record stream, --save-raw,
over the events) and the frames lost.  The highest rate with no loss is
what the consumer sustains: its reading process only copies (the CTF
conversion follows in a second process and may finish later).  Wall-clock
figures: TCG is not a real machine, compare rows, not absolute numbers.
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from guestlib import opened  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
GTP_CTL = os.path.join(REPO, "gdb-scripts", "gtp-ctl")
PACE = os.path.join(REPO, "tests", "e2e", "pace.py")
BUF = 4 << 20
ROUNDS = 400                # x 10 ms, fewer for big rounds:
MAX_EVENTS = 1600000        # the conversion of a row takes its time


FIG11_V = ["tvariable $v", "trace gtp_test_function", "actions",
           "teval $v = 2*counter1+3*counter2", "collect $v", "end"]
# the expression itself: gdb collects the registers holding the arguments
FIG11_EXPR = ["trace gtp_test_function", "actions", "collect (2*counter1+3*counter2)", "end"]


def gdb_session(body, buf=BUF, tp=FIG11_V):
    lines = ["source %s/gdb-scripts/gtp.py" % REPO, "gtp-load-module gtp_test",
             "target remote /proc/gtp", "set confirm off", "delete",
             "set trace-buffer-size %d" % buf] + tp + \
        ["tstart"] + body + ["tstop", "tstatus", "detach"]
    with open("/tmp/gtp_stream_bench.gdb", "w") as f:
        f.write("\n".join(lines) + "\n")
    return subprocess.run(["gdb", "-nx", "-q", "-batch", "-x", "/tmp/gtp_stream_bench.gdb"],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          stdin=subprocess.DEVNULL).stdout.decode(errors="replace")


def streamed(body, buf=BUF, tp=FIG11_V):
    """gdb's session with gtp-ctl stream attached from before it starts:
    (gdb's output, the stream's summary match, its raw stream's bytes and
    the DEFS record's tsc_khz), or None and what to print."""
    d = "/tmp/gtp-stream-bench"
    shutil.rmtree(d, ignore_errors=True)
    raw = "/tmp/gtp-stream-bench.raw"
    p = subprocess.Popen([GTP_CTL, "stream", "--ctf", d, "--until-stop", "--quiet",
                          "--save-raw", raw],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if not opened(p.pid, "/proc/gtp_stream"):
        p.kill()
        return None, "gtp-ctl stream did not open /proc/gtp_stream"
    g = gdb_session(body, buf, tp)
    out = p.communicate(timeout=600)[0].decode()
    m = re.search(r"streamed (\d+) events \((\d+) bytes\).*; (\d+) lost", out)
    if not m:
        return None, out + g
    with open(raw, "rb") as f:
        khz = re.search(rb"tsc_khz=(\d+)", f.read(4096))
    size = os.path.getsize(raw)
    os.unlink(raw)
    shutil.rmtree(d, ignore_errors=True)
    return (g, m, size, int(khz.group(1)) if khz else None), out


def one(chunk):
    r, out = streamed(["shell %s %d %d 10" % (PACE, chunk, min(ROUNDS, MAX_EVENTS // chunk))])
    if r is None:
        return None, out
    g, m, size, _ = r
    # the run's length, as the target measured it (tstart to tstop)
    t = re.search(r"stopped ([\d.]+) secs later", g)
    if not t:
        return None, g
    ev, lost = int(m.group(1)), int(m.group(3))
    return (ev, size, lost, float(t.group(1))), out


def bursts():
    """Four bursts of 50 000 calls a second apart, collecting the Fig. 11
    expression (registers: 192-byte records) through a 1 MiB buffer: what
    the consumer delivers, and how fast each burst writes (its calls'
    cycles, /proc/gtp_test, at the DEFS record's TSC rate)."""
    r, out = streamed(["shell for i in 1 2 3 4; do echo 50000 > /proc/gtp_test; "
                       "head -1 /proc/gtp_test; sleep 1; done"], 1 << 20, FIG11_EXPR)
    cycles = [int(c) for c in re.findall(r"calls=50000 cycles=(\d+)", r[0])] if r else []
    if r is None or not r[3] or len(cycles) != 4:
        print("bursts failed:\n%s" % (out if r is None else out + r[0]))
        return
    g, m, size, khz = r
    ev, lost = int(m.group(1)), int(m.group(3))
    per = size / max(ev, 1)
    ms = [c / khz for c in cycles]
    print("\nbursts: 4 x 50000 calls, 1 MiB buffer, collect (2*counter1+3*counter2)")
    print("delivered %d of %d (%.1f%%), %d lost; %.1f bytes/event; a burst lasts "
          "%.1f-%.1f ms, writing %.0f MB/s"
          % (ev, ev + lost, 100.0 * ev / max(ev + lost, 1), lost, per, min(ms), max(ms),
             50000 * per / (min(ms) / 1000) / 1e6))


def main():
    print("gtp-ctl stream: paced Fig. 11 bursts, %d MiB buffer, %d rounds of 10 ms "
          "(at most %d calls)" % (BUF >> 20, ROUNDS, MAX_EVENTS))
    print("%-12s %12s %12s %12s %12s %10s" % ("calls/round", "events", "events/s", "MB/s",
                                               "bytes/event", "lost"))
    for chunk in (250, 1000, 4000, 16000, 64000, 128000):
        r, out = one(chunk)
        if r is None:
            print("%-12d failed:\n%s" % (chunk, out))
            continue
        ev, by, lost, wall = r
        print("%-12d %12d %12.0f %12.2f %12.1f %10d" % (chunk, ev, ev / wall, by / wall / 1e6,
                                                      by / max(ev, 1), lost))
    bursts()
    return 0


if __name__ == "__main__":
    sys.exit(main())
