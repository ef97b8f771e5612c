#!/usr/bin/env python3
"""Split the e2e suite into N shards of about equal run time, by test file.

    python3 tests/e2e/shards.py N [!FILTER...]

Prints up to N lines, each the run.py filters of one shard ("test_FILE::"
for each of its files, then the !FILTERs, which every shard keeps).  Whole files stay together: a file's tests
run in order in one boot, as they do in a plain run.  Files are dealt
longest first to the shard with the least time so far; a file's time is
its line in tests/e2e/weights (seconds on the default kernel), else 20 s
per test for a file not measured yet.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run  # noqa: E402


def weights():
    w = {}
    with open(os.path.join(HERE, "weights")) as f:
        for line in f:
            line = line.split("#")[0].split()
            if len(line) == 2:
                w[line[0]] = float(line[1])
    return w


def main():
    n = int(sys.argv[1])
    filters = sys.argv[2:]
    if any(not x.startswith("!") for x in filters):
        sys.exit("shards.py: only !FILTERs (a shard is a set of files)")
    w = weights()
    files = {}
    for name, _ in run.collect(filters):
        f = name.split("::")[0]
        files[f] = files.get(f, 0) + 1
    cost = {f: w.get(f, 20.0 * k) for f, k in files.items()}
    shards = [[0.0, []] for _ in range(n)]
    for f in sorted(cost, key=lambda f: (-cost[f], f)):
        s = min(shards, key=lambda s: s[0])
        s[0] += cost[f]
        s[1].append(f + "::")
    for total, fs in shards:
        if fs:
            print(" ".join(fs + filters))


if __name__ == "__main__":
    main()
