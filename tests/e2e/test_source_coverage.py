"""Source-level coverage on the default kernel: tests/source/coverage.py
with its default seed (68 random statement lines of 34 hot functions of
fs, mm, sched, kernel, time, futex, ipc and net) against the kernel's own
DWARF.  Its goal must hold: every variable `collect $locals` and
`collect $args` take at those lines is collected unless it is optimized
out there (none refused: DW_OP_entry_value is what gdb refuses in
Debian's vmlinux as shipped), and tstart succeeds at every line.  The
lines its workload hits must show every collected variable's value.

The vmlinux: $GTP_VMLINUX, else build/dbg/vmlinux-KVER as
tests/e2e/vmlinuxlib.py finds it (skipped when there is none).
"""
import json
import os
import subprocess

from gtplib import REPO, leaves_target_clean, reset_target
from vmlinuxlib import vmlinux

COVERAGE = os.path.join(REPO, "tests", "source", "coverage.py")
# coverage.py's lines about single variables and lines
NOTES = ("refused:", "tstart failed:", "no value:", "optimized out but")


def run_coverage(path):
    """coverage.py's exit status, output and JSON results."""
    out = "/tmp/gtp-coverage-%d.json" % os.getpid()
    try:
        p = subprocess.run(["python3", COVERAGE, "--vmlinux", path, "--json", out],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, timeout=900)
        text = p.stdout.decode(errors="replace")
        with open(out) as f:
            return p.returncode, text, json.load(f)
    finally:
        if os.path.exists(out):
            os.unlink(out)


@leaves_target_clean
def test_source_coverage():
    """Every variable collected at 68 random lines, every tstart succeeds,
    the hit lines show every collected value.  Python: coverage.py drives
    the sessions and the workload, and its JSON results are counted."""
    path = os.environ.get("GTP_VMLINUX") or vmlinux()
    reset_target()
    status, text, res = run_coverage(path)
    # the totals, and what kept a variable from a value
    notes = [x for x in text.splitlines() if x.startswith(NOTES)][:20]
    tail = text[text.find("\nseed "):].strip().splitlines()
    print("\n".join("# " + x for x in notes + tail))
    assert "error" not in res, text
    lines = res["lines"]
    locs = [loc for ln in lines for loc in ln["locs"]]
    vs = [v for loc in locs for v in loc["vars"]]
    assert len({ln["func"] for ln in lines}) >= 25 and len(lines) >= 50, text
    # not hollow: variables to collect
    collected = [v for v in vs if v["status"] == "collected"]
    assert len(collected) >= 300, text
    # the goal
    refused = ["%s:%d %s: %s" % (ln["file"], ln["line"], v["name"], v["reason"])
               for ln in lines for loc in ln["locs"] for v in loc["vars"]
               if v["status"] == "refused"]
    failed = ["%s:%d: %s" % (ln["file"], ln["line"], ln["tstart"])
              for ln in lines if ln["tstart"]]
    assert not refused and not failed, "refused:\n%s\ntstart failed:\n%s" % (
        "\n".join(refused), "\n".join(failed))
    assert status == 0, text
    # and lines the workload reached
    hit = [loc for loc in locs if loc.get("hit")]
    assert len(hit) >= len(locs) // 2, text
    # gdb reads back what gtp collected: a value for every collected
    # variable of a hit line, in one of its first 8 frames (a call entered
    # before tstart has no entry values), and never one for a variable gdb
    # found optimized out
    missing = ["%s:%d %s" % (ln["file"], ln["line"], name) for ln in lines
               for loc in ln["locs"] if loc.get("hit") for name in loc["unavailable"]]
    assert not missing, "no value:\n%s\n%s" % ("\n".join(missing), text)
    assert not any(loc["optout_live"] for loc in hit), text
