#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Source-level coverage: does `collect $locals` and `collect $args` work
at any statement line of the real kernel?  (docs/kernel-symbols.md)

    tests/source/coverage.py [--seed N] [--per-function K] [--vmlinux PATH]
                             [--functions F,F...] [--offline] [--json FILE]
                             [--gdb GDB]

Draws K (default 2) random statement lines in each of FUNCTIONS, hot
functions of fs, mm, sched, kernel, time, futex, ipc and net, with a
fixed seed (DEFAULT_SEED unless --seed), and runs stock gdb on them
(tests/source/covgdb.py says how): for every variable `collect $locals`
and `collect $args` take at each line's locations, whether gdb collects
it, finds it optimized out there (or without a location anywhere), knows
it as a constant, or refuses it and why; whether tstart with those two
actions succeeds, line by line; and, while tests/source/workload.py runs
under that trace, how many of the collected variables show a value in
the frames of the lines it hits.

Run as root where /proc/gtp is (the guest: `make source-coverage`, or
tests/vm/run -- tests/source/coverage.py).  The vmlinux: --vmlinux, else
$GTP_VMLINUX, else build/dbg/vmlinux-$(uname -r) (tests/vm/dbg-vmlinux).
--offline loads the file alone, with no target (no tstart, no hits):
the compile side on any machine, even the host.

Prints a table of the lines and the totals; exits 0 when the goal holds
(every variable that has a location at its line and is not a constant is
collected, and no tstart failed), 1 when it does not, 2 when the run
itself failed.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from typing import Dict

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

DEFAULT_SEED = 1
PER_FUNCTION = 2

# Hot functions, most of them on workload.py's path, one subsystem after
# another; all of them ftrace's and kprobes' to trace (no notrace, noinstr
# or NOKPROBE): the lines are kprobes, entry values are recorded by ftrace.
FUNCTIONS = (
    # fs
    "vfs_read", "vfs_write", "ksys_lseek", "do_sys_openat2", "do_dentry_open",
    "path_openat", "pipe_read", "pipe_write", "do_sys_poll", "do_epoll_wait",
    "__fput", "bprm_execve",
    # mm
    "filemap_read", "do_mmap", "handle_mm_fault", "kmem_cache_alloc",
    "__alloc_pages",
    # sched, kernel
    "try_to_wake_up", "wake_up_new_task", "copy_process", "kernel_clone",
    "do_exit", "do_wait", "__send_signal_locked",
    # time, futex
    "do_nanosleep", "hrtimer_nanosleep", "schedule_timeout", "futex_wait",
    "futex_wake",
    # ipc
    "do_msgsnd", "do_msgrcv",
    # net
    "unix_stream_sendmsg", "__sys_sendto", "tcp_sendmsg_locked",
)

STATUSES = ("collected", "optimized-out", "no-location", "constant", "shadowed", "refused")


def default_vmlinux() -> str:
    return os.environ.get("GTP_VMLINUX") or os.path.join(
        REPO, "build", "dbg", "vmlinux-" + os.uname().release)


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=DEFAULT_SEED)
    p.add_argument("--per-function", type=int, default=PER_FUNCTION, metavar="K")
    p.add_argument("--functions", metavar="F,F...",
                   help="these functions instead of the default set")
    p.add_argument("--vmlinux", default=None)
    p.add_argument("--offline", action="store_true",
                   help="the file alone, no target: no tstart, no hits")
    p.add_argument("--json", metavar="FILE", help="also write the raw results there")
    p.add_argument("--tdump", action="store_true",
                   help="print the tdump of the frames where a collected variable "
                   "showed no value")
    p.add_argument("--gdb", default=os.environ.get("GTP_GDB", "gdb"))
    p.add_argument("--buffer", type=int, default=64 << 20,
                   help="trace buffer size in bytes (default 64 MB)")
    return p.parse_args()


def run_gdb(args: argparse.Namespace) -> dict:
    """covgdb.py in one gdb; its results."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    cfg = {"seed": args.seed, "per_function": args.per_function,
           "functions": args.functions.split(",") if args.functions else FUNCTIONS,
           "vmlinux": args.vmlinux or default_vmlinux(),
           "offline": args.offline, "out": out, "buffer": args.buffer,
           "tdump": args.tdump,
           "workload": os.path.join(HERE, "workload.py")}
    env = dict(os.environ, GTP_COVERAGE=json.dumps(cfg))
    # gtp.py sourced from covgdb.py would take covgdb.py's __file__ for its own
    gtp = [] if args.offline else ["-x", os.path.join(REPO, "gdb-scripts", "gtp.py")]
    try:
        p = subprocess.run([args.gdb, "-nx", "-q", "-batch"] + gtp +
                           ["-x", os.path.join(HERE, "covgdb.py")], env=env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=None, timeout=1800)
        try:
            with open(out) as f:
                return json.load(f)
        except (OSError, ValueError):
            sys.stdout.write(p.stdout.decode(errors="replace"))
            print("coverage: gdb ended (status %d) without results" % p.returncode)
            sys.exit(2)
    finally:
        if os.path.exists(out):
            os.unlink(out)


def reason_key(msg: str) -> str:
    """A refusal's reason without the variable's name, to count by."""
    return re.sub(r"`[^']*'", "`X'", msg)


# the table's count columns: heading, status
COLUMNS = (("coll", "collected"), ("opt", "optimized-out"), ("noloc", "no-location"),
           ("const", "constant"), ("shad", "shadowed"), ("ref", "refused"))


def line_row(ln: dict, offline: bool) -> str:
    c = Counter(v["status"] for loc in ln["locs"] for v in loc["vars"])
    row = "%-22s %-34s %4d %4d" % (ln["func"], "%s:%d" % (ln["file"], ln["line"]),
                                   len(ln["locs"]), sum(c.values()))
    row += "".join(" %*d" % (max(4, len(h)), c[st]) for h, st in COLUMNS)
    if offline:
        return row
    hit = [loc for loc in ln["locs"] if loc.get("hit")]
    values = "%d/%d" % (sum(loc["values"] for loc in hit),
                        sum(1 for loc in hit for v in loc["vars"]
                            if v["status"] == "collected")) if hit else "-"
    return row + "  %-6s %-3s %6s" % ("FAIL" if ln["tstart"] else "ok",
                                      "yes" if hit else "no", values)


def print_lines(res: dict) -> None:
    head = "%-22s %-34s %4s %4s" % ("function", "line", "locs", "vars")
    head += "".join(" %*s" % (max(4, len(h)), h) for h, _ in COLUMNS)
    print(head + ("" if res["offline"] else "  tstart hit values"))
    for ln in res["lines"]:
        print(line_row(ln, res["offline"]))


def print_details(res: dict) -> None:
    """Each refusal and tstart failure, and each collected variable a hit
    frame did not show, with its line; what gtp said at the tstart that
    ran the workload."""
    for text in res.get("gtp_said", ()):
        print("at tstart, " + text)
    for ln in res["lines"]:
        where = "%s %s:%d" % (ln["func"], ln["file"], ln["line"])
        for loc in ln["locs"]:
            for v in loc["vars"]:
                if v["status"] == "refused":
                    print("refused: %s %#x %s %s: %s" % (where, loc["pc"], v["role"],
                                                         v["name"], v["reason"]))
            for name in loc.get("unavailable", ()):
                print("no value: %s %#x %s" % (where, loc["pc"], name))
            for text in loc.get("tdump", ()):
                print("  " + text.rstrip().replace("\n", "\n  "))
            for name in loc.get("optout_live", ()):
                print("optimized out but a value: %s %#x %s" % (where, loc["pc"], name))
        if ln.get("tstart"):
            print("tstart failed: %s: %s" % (where, ln["tstart"]))


def totals(res: dict) -> Dict[str, int]:
    lines = res["lines"]
    locs = [loc for ln in lines for loc in ln["locs"]]
    vs = [v for loc in locs for v in loc["vars"]]
    c = Counter(v["status"] for v in vs)
    t = {"functions": len({ln["func"] for ln in lines}), "lines": len(lines),
         "locations": len(locs), "in_scope": len(vs)}
    t.update({s: c[s] for s in STATUSES})
    t["to_collect"] = c["collected"] + c["refused"]
    if not res["offline"]:
        hit = [loc for loc in locs if loc.get("hit")]
        t["tstart_failed"] = sum(1 for ln in lines if ln["tstart"])
        t["lines_hit"] = sum(1 for ln in lines if any(loc.get("hit") for loc in ln["locs"]))
        t["hit_collected"] = sum(1 for loc in hit for v in loc["vars"]
                                 if v["status"] == "collected")
        for k in ("values", "optout_live", "shadowed_values", "shadowed_optout"):
            t["hit_" + k] = sum(loc[k] if isinstance(loc[k], int) else len(loc[k])
                                for loc in hit)
    return t


def pct(a: int, b: int) -> str:
    return "%.1f%%" % (100.0 * a / b) if b else "-"


def refusal_reasons(res: dict) -> Counter:
    return Counter(reason_key(v["reason"]) for ln in res["lines"] for loc in ln["locs"]
                   for v in loc["vars"] if v["status"] == "refused")


def print_totals(res: dict, t: Dict[str, int]) -> None:
    print("seed %d, %d functions, %d lines, %d locations; gdb %s; %s" % (
        res["seed"], t["functions"], t["lines"], t["locations"], res["gdb"], res["vmlinux"]))
    print("variables in scope:  %d" % t["in_scope"])
    print("  collected:         %d" % t["collected"])
    print("  optimized out:     %d (no location at that pc)" % t["optimized-out"])
    print("  no location:       %d (none anywhere: \"optimized out of existence\")"
          % t["no-location"])
    print("  constants:         %d (value in the DWARF, nothing to collect)" % t["constant"])
    print("  shadowed:          %d (an inner block's local has the name: left to the "
          "line's tstart)" % t["shadowed"])
    print("  refused:           %d" % t["refused"])
    for why, n in refusal_reasons(res).most_common():
        print("    %5d  %s" % (n, why))
    print("collected of those to collect: %d/%d = %s" % (
        t["collected"], t["to_collect"], pct(t["collected"], t["to_collect"])))
    if res["offline"]:
        return
    print("tstart failures: %d of %d lines" % (t["tstart_failed"], t["lines"]))
    print("lines hit: %d of %d (workload %.1fs)" % (t["lines_hit"], t["lines"],
                                                   res.get("workload_s", 0)))
    print("variables with values in the hit frames: %d of %d collected (%s)" % (
        t["hit_values"], t["hit_collected"], pct(t["hit_values"], t["hit_collected"])))
    if t["shadowed"]:
        print("shadowed, in the hit frames: %d with values, %d optimized out" % (
            t["hit_shadowed_values"], t["hit_shadowed_optout"]))
    print("optimized out yet read as a value: %d" % t["hit_optout_live"])


def main() -> int:
    args = parse_args()
    res = run_gdb(args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)
    if "error" in res:
        print("coverage: %s" % res["error"])
        return 2
    print_lines(res)
    print()
    print_details(res)
    print()
    t = totals(res)
    print_totals(res, t)
    print("times: " + ", ".join("%s %.1fs" % kv for kv in res["times"].items()))
    goal = t["refused"] == 0 and not t.get("tstart_failed")
    print("goal (every variable to collect collected, no tstart failed): %s"
          % ("met" if goal else "NOT met"))
    return 0 if goal else 1


if __name__ == "__main__":
    sys.exit(main())
