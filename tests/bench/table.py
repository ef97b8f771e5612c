#!/usr/bin/env python3
"""The peer table of docs/benchmarks.md: one table and its targets.

In the guest, guest_bench.py collects rows (dicts, see row()) and calls
render(): a markdown table between two marker lines, then the targets as
met / not met lines computed from the table.  On the host (the guest
cannot write the checkout: 9p is read-only), the Makefile runs the guest
through

    python3 tests/bench/table.py --doc docs/benchmarks.md --command CMD -- RUN...

which runs RUN (tests/vm/run ...), copies its output to stdout as it
comes, writes what lies between the markers, with CMD (the command that
reproduces it), to the doc, and exits with RUN's status.
"""
import argparse
import os
import subprocess
import sys

BEGIN = "=== gtp bench table begin ==="
END = "=== gtp bench table end ==="


def row(key, label, cyc=None, frames=None, drops=None, ref=None, fail=None,
        dist=None, base=None, note=None):
    """One table row.  cyc: guest cycles per call (None: failed, fail says
    why); ref: key of the gtp row this one is compared to; dist: the
    per-call distribution (worst.py) for worst-case rows; base: the
    unprobed cost to subtract when it is not the table's (worst-case rows
    time each call alone)."""
    return {"key": key, "label": label, "cyc": cyc, "frames": frames,
            "drops": drops, "ref": ref, "fail": fail, "dist": dist,
            "base": base, "note": note}


def failed(key, label, why, ref=None):
    return row(key, label, fail=why, ref=ref)


def _ovh(rows, key, base):
    for r in rows:
        if r["key"] == key and r["cyc"] is not None:
            return r["cyc"] - (base if r["base"] is None else r["base"])
    return None


def _fmt(v, spec="%.1f"):
    return "" if v is None else spec % v


def render(rows, base, header):
    """The table (markdown) and the targets, as lines."""
    out = [BEGIN, header, "",
           "| case | cyc/call | overhead | x gtp | frames/events | drops | p50 / p99 / max | note |",
           "|---|---:|---:|---:|---:|---:|---|---|"]
    for r in rows:
        if r["cyc"] is None:
            out.append("| %s | failed | | | | | | %s |" % (r["label"], r["fail"]))
            continue
        ovh = _ovh(rows, r["key"], base)
        ratio = None
        if r["ref"]:
            g = _ovh(rows, r["ref"], base)
            ratio = ovh / g if g else None
        d = r["dist"]
        dist = "%d / %d / %d" % (d["p50"], d["p99"], d["max"]) if d else ""
        out.append("| %s | %.1f | %.1f | %s | %s | %s | %s | %s |" % (
            r["label"], r["cyc"], ovh, _fmt(ratio, "%.2f"),
            _fmt(r["frames"], "%d"), _fmt(r["drops"], "%d"), dist,
            r["note"] or ""))
    out += ["", "x gtp: this row's overhead / the overhead of the gtp row it "
            "is compared with (peers and floors: the gtp row with the same "
            "attach point and condition)."]
    out += [""] + targets(rows, base) + [END]
    return out


# (text, numerator key, denominator key, limit, sense): met when
# num/den <= limit ("le"), den/num >= limit ("ge", "x cheaper"), or
# num - den <= limit cycles ("above").
TARGETS = [
    ("entry false <= 0.6x empty kprobe", "entry_false_jit", "floor_kprobe", 0.6, "le"),
    ("mid false <= 1.15x empty kprobe at mid", "mid_false_jit", "floor_kprobe_mid", 1.15, "le"),
    ("entry true+collect <= 1.6x entry false (an older target: the cheaper the false path, the further off; the 150-cycle one below replaces it)", "entry_true_jit", "entry_false_jit", 1.6, "le"),
    ("mid true+collect <= 1.6x mid false (an older target: the cheaper the false path, the further off; the 150-cycle one below replaces it)", "mid_true_jit", "mid_false_jit", 1.6, "le"),
    ("static true+collect <= 1.6x static false (an older target: the cheaper the false path, the further off; the 150-cycle one below replaces it)", "static_true_jit", "static_false_jit", 1.6, "le"),
    ("static false <= 1.5x empty tracepoint probe", "static_false_jit", "floor_tp", 1.5, "le"),
    (">= 3x cheaper than bpftrace, kprobe, false", "entry_false_jit", "bpf_kp_false", 3, "ge"),
    (">= 3x cheaper than bpftrace, kprobe, true", "entry_true_jit", "bpf_kp_true", 3, "ge"),
    (">= 3x cheaper than ftrace event filter, static, false", "static_false_jit", "ftev_false", 3, "ge"),
    (">= 3x cheaper than ftrace event filter, static, true", "static_true_jit", "ftev_true", 3, "ge"),
    ("aggregation, $hist_ <= 0.5x bpftrace hist()", "agg_hist_jit", "bpf_kp_hist", 0.5, "le"),
    ("aggregation, $count_ <= 0.5x bpftrace count() by key", "agg_count_jit", "bpf_kp_count",
     0.5, "le"),
    ("false with ~1000 functions armed <= 1.1x with one", "many_false_jit", "many_one_jit",
     1.1, "le"),
    # against the kernel's own attach mechanism and BPF's cheapest ones
    ("entry false <= 1.0x empty ftrace_ops", "entry_false_jit", "floor_ftrace", 1.0, "le"),
    ("entry false <= bpftrace kfunc false", "entry_false_jit", "bpf_kf_false", 1.0, "le"),
    ("static false <= 1.2x empty tracepoint probe", "static_false_jit", "floor_tp", 1.2, "le"),
    ("static false <= bpftrace rawtracepoint false", "static_false_jit", "bpf_rt_false", 1.0,
     "le"),
    ("entry true+collect <= 150 cycles above entry false", "entry_true_jit", "entry_false_jit",
     150, "above"),
    ("static true+collect <= 150 cycles above static false", "static_true_jit",
     "static_false_jit", 150, "above"),
    ("mid true+collect <= 150 cycles above mid false", "mid_true_jit", "mid_false_jit", 150,
     "above"),
]


def targets(rows, base):
    lines = ["Targets (TARGETS in tests/bench/table.py), overheads over the unprobed loop:"]
    for text, num, den, lim, sense in TARGETS:
        n, d = _ovh(rows, num, base), _ovh(rows, den, base)
        if n is None or d is None or n <= 0 or d <= 0:
            lines.append("- %s: not met (a row is missing: %s / %s)" % (text, num, den))
            continue
        if sense == "above":
            v = n - d
            lines.append("- %s: %s (%.1f cycles)" % (text, "met" if v <= lim else "NOT MET", v))
            continue
        v = n / d if sense == "le" else d / n
        ok = v <= lim if sense == "le" else v >= lim
        lines.append("- %s: %s (%.2fx)" % (text, "met" if ok else "NOT MET", v))
    for r in rows:
        d = r["dist"]
        if not d or not r["key"].startswith("worst_"):
            continue
        v = d["max"] / d["p50"] if d["p50"] else float("inf")
        lines.append("- worst case max <= 4x p50, %s: %s (max %d = %.2fx p50 %d)" % (
            r["label"], "met" if v <= 4 else "NOT MET", d["max"], v, d["p50"]))
    return lines


def write_doc(text, path, command):
    lines = text.splitlines()
    if BEGIN not in lines or END not in lines:
        return False
    body = lines[lines.index(BEGIN) + 1:lines.index(END)]
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        f.write("# Benchmarks: gtp and its peers, one boot\n\n"
                "Generated by `make bench-guest`; reproduce with (as root, so that\n"
                "the peers are installed and LTTng-modules built first)\n\n"
                "    %s\n\n"
                "Guest cycles per call of the paper's Fig. 11 loop (`tests/bench/"
                "guest_bench.py`), all rows from the same deterministic boot "
                "(`-icount shift=0,sleep=off -smp 1`: guest cycles are "
                "instructions, whatever the host's load; between boots the "
                "figures move by about 1%%).\n\n" % command)
        f.write("\n".join(body) + "\n")
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--doc", required=True)
    ap.add_argument("--command", required=True)
    ap.add_argument("run", nargs="+")
    a = ap.parse_args()
    p = subprocess.Popen(a.run, stdout=subprocess.PIPE)
    text = []
    for raw in p.stdout:
        line = raw.decode(errors="replace")
        sys.stdout.write(line)
        sys.stdout.flush()
        text.append(line)
    rc = p.wait()
    if not write_doc("".join(text), a.doc, a.command):
        print("table.py: no table in the guest's output; %s not written" % a.doc,
              file=sys.stderr)
        return rc or 1
    print("table.py: wrote %s" % a.doc)
    return rc


if __name__ == "__main__":
    sys.exit(main())
