"""Worst-case rows of docs/benchmarks.md (p50 / p99 / max), run inside the guest.

`echo hist N > /proc/gtp_test` times every call on its own (rdtsc_ordered
around the call, interrupts disabled around each timed call so a timer
tick is never charged to the probe) and reads back min/p50/p99/max.  The
true+collect row runs with gdb's `set circular-trace-buffer on` and the
default 4 MiB buffer: 100 000 frames overflow it, so the probe keeps
switching sub-buffers and overwriting old ones to the end of the run
(frames kept < frames created says it did).
"""
import re

from guestlib import gdb_error, gdb_run, write
from table import failed, row

N_HITS = 100000


def parse_hist(text):
    m = re.search(r"hist calls=(\d+) min=(\d+) p50=(\d+) p99=(\d+) max=(\d+) "
                  r"mean=(\d+) tsc=(\d+)", text)
    if not m:
        return None
    k = ("calls", "min", "p50", "p99", "max", "mean", "tsc")
    return dict(zip(k, (int(x) for x in m.groups())))


def available():
    """hist mode is in this gtp_test build (write it with N=1)."""
    try:
        write("/proc/gtp_test", "hist 1")
    except OSError:
        return False
    with open("/proc/gtp_test") as f:
        return parse_hist(f.read()) is not None


def unprobed(key, label, n=N_HITS):
    if not available():
        return failed(key, label, "hist mode not available in this gtp_test build")
    write("/proc/gtp_test", "hist %d" % n)
    with open("/proc/gtp_test") as f:
        h = parse_hist(f.read())
    return row(key, label, h["mean"], dist=h, base=h["mean"],
               note="each call timed alone, irqs off (incl. timing: %d)" % h["tsc"])


def gtp(key, label, setup, circular, ref, base, n=N_HITS):
    """base: the unprobed row's mean, from unprobed()."""
    if not available():
        return failed(key, label, "hist mode not available in this gtp_test build", ref)
    pre = ["set circular-trace-buffer on"] if circular else []
    r = gdb_run("hist %d" % n, setup, pre)
    h = parse_hist(r["out"])
    if r["frames"] is None or h is None:
        return failed(key, label, "gdb: " + gdb_error(r["gdb"]), ref)
    note = "each call timed alone, irqs off"
    if circular:
        note += "; circular buffer: drops = frames overwritten"
    return row(key, label, h["mean"], r["frames"], r["created"] - r["frames"],
               ref, dist=h, base=base, note=note)
