#!/usr/bin/env python3
"""Streaming throughput (run inside the guest, without -icount, -smp 2).

    tests/vm/run -- python3 tests/bench/stream_bench.py

gtp-ctl stream --until-stop writes CTF to the guest's tmpfs while the
Fig. 11 loop runs in paced bursts (CHUNK calls, then 10 ms of sleep:
tests/e2e/pace.py) through a 4 MiB buffer.  The table gives the events
per second streamed over the run (tstart to tstop, as tstatus reports it)
and the frames lost.  The
highest rate with no loss is what the consumer sustains.  Wall-clock
figures: TCG is not a real machine, compare rows, not absolute numbers.
"""
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
GTP_CTL = os.path.join(REPO, "gdb-scripts", "gtp-ctl")
PACE = os.path.join(REPO, "tests", "e2e", "pace.py")
BUF = 4 << 20
ROUNDS = 400                # x 10 ms


def gdb_session(body):
    lines = ["source %s/gdb-scripts/gtp.py" % REPO, "gtp-load-module gtp_test",
             "target remote /proc/gtp", "set confirm off", "delete",
             "set trace-buffer-size %d" % BUF, "tvariable $v",
             "trace gtp_test_function", "actions",
             "teval $v = 2*counter1+3*counter2", "collect $v", "end",
             "tstart"] + body + ["tstop", "tstatus", "detach"]
    with open("/tmp/gtp_stream_bench.gdb", "w") as f:
        f.write("\n".join(lines) + "\n")
    return subprocess.run(["gdb", "-nx", "-q", "-batch", "-x", "/tmp/gtp_stream_bench.gdb"],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          stdin=subprocess.DEVNULL).stdout.decode(errors="replace")


def one(chunk):
    d = "/tmp/gtp-stream-bench"
    shutil.rmtree(d, ignore_errors=True)
    p = subprocess.Popen([GTP_CTL, "stream", "--ctf", d, "--until-stop", "--quiet"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    g = gdb_session(["shell %s %d %d 10" % (PACE, chunk, ROUNDS)])
    out = p.communicate(timeout=600)[0].decode()
    # the run's length, as the target measured it (tstart to tstop)
    t = re.search(r"stopped ([\d.]+) secs later", g)
    if not t:
        return None, g
    wall = float(t.group(1))
    m = re.search(r"streamed (\d+) events \((\d+) bytes\).*; (\d+) lost", out)
    if not m:
        return None, out
    ev, by, lost = (int(x) for x in m.groups())
    shutil.rmtree(d, ignore_errors=True)
    return (ev, by, lost, wall), out


def main():
    print("gtp-ctl stream: paced Fig. 11 bursts, %d MiB buffer, %d rounds of 10 ms"
          % (BUF >> 20, ROUNDS))
    print("%-12s %12s %12s %12s %10s" % ("calls/round", "events", "events/s", "MB/s", "lost"))
    for chunk in (250, 500, 1000, 2000, 4000, 8000):
        r, out = one(chunk)
        if r is None:
            print("%-12d failed:\n%s" % (chunk, out))
            continue
        ev, by, lost, wall = r
        print("%-12d %12d %12.0f %12.2f %10d" % (chunk, ev, ev / wall, by / wall / 1e6, lost))
    return 0


if __name__ == "__main__":
    sys.exit(main())
