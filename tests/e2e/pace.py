#!/usr/bin/env python3
"""Run the Fig. 11 loop in paced bursts: pace.py CALLS ROUNDS GAP_MS [CPU]

Each round writes CALLS to /proc/gtp_test (the loop runs CALLS times in
the kernel, from counter1 = 1), then sleeps GAP_MS: a steady event rate a
consumer can be measured against, without a fork per round.  With CPU,
the loop runs on that CPU only.
"""
import os
import sys
import time


def main():
    calls, rounds, gap = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]) / 1000
    if len(sys.argv) > 4:
        os.sched_setaffinity(0, {int(sys.argv[4])})
    for _ in range(rounds):
        with open("/proc/gtp_test", "w") as f:
            f.write(calls)
        time.sleep(gap)
    return 0


if __name__ == "__main__":
    sys.exit(main())
