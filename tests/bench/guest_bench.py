#!/usr/bin/env python3
"""The peer table of docs/benchmarks.md: gtp, the floors and its peers, one boot.

    tests/vm/run --icount -- python3 tests/bench/guest_bench.py [N [SECTION...]]

SECTIONs (default: all) run only those rows after the unprobed loop:
floors, gtp, peers, agg, worst.

With -icount shift=0,sleep=off -smp 1 the guest's TSC follows the number
of instructions executed, so the figures repeat exactly from boot to boot.
Each case runs the paper's Fig. 11 loop N times (`echo N > /proc/gtp_test`)
and reads the loop's cycles (`cat /proc/gtp_test`); every row gives cycles
per call and the overhead over the unprobed loop, all from this one run.

Rows (table.py prints them, then the issue's targets as met / not met):
  floors   an empty kprobe pre-handler on gtp_test_function, an empty
           kprobe at a mid-function address, an empty ftrace_ops, an empty
           tracepoint probe (gtp_test's own modes; a mode this build of
           gtp_test lacks is a failed row "not available in this build")
  gtp      entry (`trace gtp_test_function`, through ftrace when gtp has
           entry_ftrace=1), mid-function (`trace *0xMID`), static
           (`gtp-strace gtp_test:gtp_test_event`) x false condition /
           true condition + collect x JIT / interpreter (jit=0)
  peers    bpftrace on the kprobe, the kfunc (fentry: gtp_test gets BTF
           first, peers.gtp_test_btf()), the tracepoint and the raw
           tracepoint (trixie's bpftrace: tests/bench/trixie-bpftrace),
           ftrace kprobe_event and event filters, LTTng (peers.py)
  agg      in-kernel aggregation, no frames: a gtp entry probe (JIT) whose
           only action feeds a $hist_ or a $count_ variable
           (docs/histograms.md), against bpftrace's @ = hist(arg0) and
           @[arg1 % 64] = count() on the same function, and the frame per
           hit the frame-based gtp-hist needs
  many     a false condition on gtp_test_function alone, then on it and
           about a thousand other functions at once (gtp-trace-many,
           one shared ftrace_ops), against bpftrace on the same one and
           the same thousand (wildcards; bookworm's bpftrace attaches a
           kprobe per function); with gtp's tstart / tstop times, in
           guest seconds
  worst    per-call distribution over 100 000 hits (worst.py)
"""
import os
import re
import sys

import peers
import worst
from guestlib import (REPO, gdb_error, gdb_run, cycles_per_call, loop as _loop, opened,
                      reload_gtp, settle, write)
from table import failed, render, row

N = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
SECTIONS = set(sys.argv[2:]) or {"floors", "gtp", "peers", "agg", "many", "worst"}
COND_TRUE = "2*counter1+3*counter2 > 0"
COND_FALSE = "2*counter1+3*counter2 < 0"
EXPR = "(2*counter1+3*counter2)"
COND_MEM = "gtp_test_calls < 0"     # a module global, read at every hit
EVENT = "gtp_test:gtp_test_event"
ENTRY_FTRACE = "/sys/module/gtptrace/parameters/entry_ftrace"
ENTRY_DIRECT = "/sys/module/gtptrace/parameters/entry_direct"
NA = "not available in this build"


def loop():
    return _loop(N)


class Rows(list):
    """The table's rows; says on stderr how each went, as it goes (a long
    boot shows progress)."""

    def append(self, r):
        sys.stderr.write("# %s: %s\n" % (r["label"], r["fail"] or "%.1f" % r["cyc"]))
        sys.stderr.flush()
        super().append(r)

    def extend(self, rs):
        for r in rs:
            self.append(r)


def floor(key, label, mode, ref):
    """gtp_test's empty probe `mode` (EINVAL: this build has no such mode)."""
    try:
        write("/proc/gtp_test", mode)
    except OSError as e:
        return failed(key, label, NA if e.errno == 22 else str(e), ref)
    try:
        settle()
        loop()
        return row(key, label, loop(), ref=ref)
    finally:
        write("/proc/gtp_test", "off")


def mid_address():
    with open("/proc/gtp_test") as f:
        m = re.search(r"mid=(0x[0-9a-fA-F]+)", f.read())
    return m.group(1) if m else None


def gdb_row(key, label, where, cond, collect, ref, workload=None):
    if where is None:
        return failed(key, label, "no mid= address from gtp_test: " + NA, ref)
    setup = ["%s if %s" % (where, cond)]
    if collect:
        setup += ["actions", "collect %s" % collect, "end"]
    r = gdb_run(str(N), setup)
    if r["frames"] is None:
        return failed(key, label, "gdb: " + gdb_error(r["gdb"]), ref)
    return row(key, label, cycles_per_call(r["out"]), r["frames"],
               r["created"] - r["frames"], ref)


def streamed_row(where):
    """The true case with gtp-ctl's live consumer attached the whole time."""
    import subprocess
    key, label = "entry_true_stream", "gtp entry, true + collect, streaming (JIT)"
    ctl = os.path.join(REPO, "gdb-scripts", "gtp-ctl")
    p = subprocess.Popen([ctl, "stream", "--ctf", "/tmp/gtp-bench-ctf", "--force",
                          "--until-stop", "--quiet"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    # a consumer streams the run going on when it opens, or the next one:
    # it must have opened before this run ends
    if not opened(p.pid, "/proc/gtp_stream"):
        p.kill()
        return failed(key, label, "gtp-ctl stream did not open /proc/gtp_stream")
    r = gdb_row(key, label, where, COND_TRUE, EXPR, "entry_true_jit")
    out = p.communicate(timeout=600)[0].decode()
    if p.returncode:
        return failed(key, label, "gtp-ctl stream: " + out.strip()[-80:])
    if r["cyc"] is not None:
        got = int(out.strip().splitlines()[-1].split(" events")[0].split()[-1])
        # frames the consumer took are no longer in the buffer: what it
        # did not get is what was lost
        r["frames"], r["drops"] = got, r["frames"] + r["drops"] - got
        r["note"] = "frames/events: what the consumer received"
    return r


def gtp_rows(rows, entry_params, attach, mid):
    for tag, params in (("jit", ""), ("interp", "jit=0")):
        reload_gtp(" ".join(p for p in (entry_params, params) if p))
        name = "JIT" if tag == "jit" else "interpreter"
        ref = lambda k: None if tag == "jit" else k + "_jit"
        for kind, where, what in (
                ("entry", "trace gtp_test_function", "entry (%s)" % (
                    "direct trampoline" if tag == "jit" and os.path.exists(ENTRY_DIRECT)
                    else attach)),
                ("mid", mid and "trace *%s" % mid, "mid-function *%s" % (mid or "MID")),
                ("static", "gtp-strace " + EVENT, "static " + EVENT)):
            for truth, cond, coll in (("false", COND_FALSE, None),
                                      ("true", COND_TRUE, EXPR)):
                key = "%s_%s" % (kind, truth)
                label = "gtp %s, %s (%s)" % (
                    what, "false" if truth == "false" else "true + collect", name)
                rows.append(gdb_row(key + "_" + tag, label, where, cond, coll, ref(key)))
        if tag == "jit":
            rows.append(streamed_row("trace gtp_test_function"))
            rows.append(gdb_row("entry_mem_jit", "gtp entry, false, reads a global (JIT)",
                                "trace gtp_test_function", COND_MEM, None, None))
            # staged: a true hit that collects nothing (a header-only
            # frame) between the false path and true + collect
            for kind, where in (("entry", "trace gtp_test_function"),
                                ("mid", mid and "trace *%s" % mid),
                                ("static", "gtp-strace " + EVENT)):
                rows.append(gdb_row("%s_true_empty" % kind,
                                    "gtp %s, true, no actions (staged)" % kind,
                                    where, COND_TRUE, None, "%s_true_jit" % kind))
            # staged: the same conditions decided by the generic entry and
            # by the shared ftrace_ops, as before the JIT compiled them
            # into the probe and the function's trampoline themselves
            reload_gtp(" ".join(p for p in (entry_params, "static_jit=0",
                                            "entry_direct=0") if p))
            rows.append(gdb_row("entry_false_ops",
                                "gtp entry, false, through the shared ftrace_ops (entry_direct=0)",
                                "trace gtp_test_function", COND_FALSE, None, "entry_false_jit"))
            rows.append(gdb_row("static_false_entry",
                                "gtp static, false, decided by the generic entry (static_jit=0)",
                                "gtp-strace " + EVENT, COND_FALSE, None, "static_false_jit"))
    reload_gtp(entry_params)


def peer_rows(rows):
    kp = "kprobe:gtp_test_function"
    tp = "tracepoint:gtp_test:gtp_test_event"
    rows.append(peers.bpftrace("bpf_kp_false", "bpftrace %s /arg0*2+arg1*3 < 0/ count" % kp,
                               kp, "arg0*2+arg1*3 < 0", loop, "entry_false_jit"))
    rows.append(peers.bpftrace("bpf_kp_true", "bpftrace %s /arg0*2+arg1*3 > 0/ count" % kp,
                               kp, "arg0*2+arg1*3 > 0", loop, "entry_true_jit"))
    tpc = "args->counter1*2+args->counter2*3"
    rows.append(peers.bpftrace("bpf_tp_false", "bpftrace %s /%s < 0/ count" % (tp, tpc),
                               tp, tpc + " < 0", loop, "static_false_jit"))
    rows.append(peers.bpftrace("bpf_tp_true", "bpftrace %s /%s > 0/ count" % (tp, tpc),
                               tp, tpc + " > 0", loop, "static_true_jit"))
    # BPF's cheapest attach points: a trampoline generated for the one
    # function (fentry), and the tracepoint's own probe (raw tracepoint)
    kf = "kfunc:gtp_test:gtp_test_function"
    no_btf = peers.gtp_test_btf()
    for sense, ref in (("<", "entry_false_jit"), (">", "entry_true_jit")):
        key = "bpf_kf_" + ("false" if sense == "<" else "true")
        rows.append(peers.bpftrace(key, "bpftrace %s /%s %s 0/ count" % (kf, tpc, sense),
                                   kf, "%s %s 0" % (tpc, sense), loop, ref, why_not=no_btf))
    # bookworm's bpftrace (0.17) has no raw tracepoints: trixie's has
    rt = "rawtracepoint:gtp_test_event"
    for sense, ref in (("<", "static_false_jit"), (">", "static_true_jit")):
        key = "bpf_rt_" + ("false" if sense == "<" else "true")
        r = peers.bpftrace(key, "bpftrace %s /arg0*2+arg1*3 %s 0/ count" % (rt, sense),
                           rt, "arg0*2+arg1*3 %s 0" % sense, loop, ref, trixie=True)
        r["note"] = r["note"] or peers.bpftrace_version(trixie=True)
        rows.append(r)
    # ftrace filters have no arithmetic: the nearest condition, same truth
    rows.append(peers.ftrace_kprobe("ftkp_false", "ftrace kprobe_event, filter c1 < 0",
                                    "c1 < 0", loop, "entry_false_jit"))
    rows.append(peers.ftrace_kprobe("ftkp_true", "ftrace kprobe_event, filter c1 > 0",
                                    "c1 > 0", loop, "entry_true_jit"))
    rows.append(peers.ftrace_static("ftev_false", "ftrace event %s, filter counter1 < 0" % EVENT,
                                    "counter1 < 0", loop, "static_false_jit"))
    rows.append(peers.ftrace_static("ftev_true", "ftrace event %s, filter counter1 > 0" % EVENT,
                                    "counter1 > 0", loop, "static_true_jit"))
    rows.extend(peers.lttng_rows(loop))


def agg_rows(rows, entry_params):
    """Answers without frames: the kernel's tables against bpftrace's maps."""
    reload_gtp(entry_params)
    for key, var, value, what in (("agg_hist_jit", "$hist_b", "(long)counter1", "hist"),
                                  ("agg_count_jit", "$count_b", "counter2 % 64",
                                   "count, 64 keys")):
        setup = ["tvariable " + var, "trace gtp_test_function", "actions",
                 "teval %s = %s" % (var, value), "end"]
        label = "gtp entry, teval %s = %s (%s, JIT)" % (var, value, what)
        r = gdb_run(str(N), setup)
        if r["frames"] is None:
            rows.append(failed(key, label, "gdb: " + gdb_error(r["gdb"])))
            continue
        rows.append(row(key, label, cycles_per_call(r["out"]), r["frames"],
                        r["created"] - r["frames"], note="aggregated in the kernel: no frames"))
    # what the frame-based gtp-hist needs instead: a frame per hit
    rows.append(gdb_row("agg_frames_jit", "gtp entry, collect counter1 (a frame per hit, JIT)",
                        "trace gtp_test_function", "1", "counter1", None))
    kp = "kprobe:gtp_test_function"
    rows.append(peers.bpftrace_map("bpf_kp_hist", "bpftrace %s { @ = hist(arg0) }" % kp,
                                   kp, "@ = hist(arg0);", loop, "agg_hist_jit"))
    rows.append(peers.bpftrace_map("bpf_kp_count",
                                   "bpftrace %s { @[arg1 %% 64] = count() }" % kp,
                                   kp, "@[arg1 % 64] = count();", loop, "agg_count_jit"))


# gtp_test_function and about a thousand others (1 060 on 6.1, after
# what cannot be probed), the same set as bpftrace's wildcards
MANY_PREFIXES = ("__x64_sys_", "vfs_", "tcp_", "udp_", "inet_")
MANY_RE = "^(gtp_test_function|%s)$" % "|".join(p + ".*" for p in MANY_PREFIXES)
MANY_BPF = ",".join(["kprobe:gtp_test_function"] + ["kprobe:%s*" % p for p in MANY_PREFIXES])
# false at every hit of every function: no argument takes this value
MANY_COND = "$rdi == 0x5eed1234"


def many_row(key, label, regex, ref):
    r = gdb_run(str(N), ["gtp-trace-many --max 2000 %s if %s" % (regex, MANY_COND)],
                connect="gtp-connect", timed=True)
    if r["frames"] is None:
        return failed(key, label, "gdb: " + gdb_error(r["gdb"]), ref)
    m = re.search(r"^gtp-trace-many: created (\d+)", r["gdb"], re.M)
    n = int(m.group(1)) if m else 0
    return row(key, "%s, %d function%s" % (label, n, "s" if n != 1 else ""),
               cycles_per_call(r["out"]), r["frames"], r["created"] - r["frames"], ref,
               note="tstart %.2f s, tstop %.2f s (guest)" % (r.get("tstart_s", -1),
                                                           r.get("tstop_s", -1)))


def many_rows(rows, entry_params):
    """One function against a thousand, the same false condition, both
    through the shared ftrace_ops: entry_direct=0, or the one function
    would get a trampoline of its own (the entry rows'), which is not the
    lookup this compares."""
    reload_gtp(" ".join(p for p in (entry_params, "entry_direct=0") if p))
    rows.append(many_row("many_one_jit", "gtp-trace-many, false, shared ftrace_ops (JIT)",
                         "^gtp_test_function$", None))
    rows.append(many_row("many_false_jit", "gtp-trace-many, false (JIT)", MANY_RE,
                         "many_one_jit"))
    reload_gtp(entry_params)
    rows.append(peers.bpftrace("bpf_many_one", "bpftrace kprobe:gtp_test_function, false",
                               "kprobe:gtp_test_function", "arg0 == 0x5eed1234", loop,
                               "many_one_jit"))
    r = peers.bpftrace("bpf_many_false", "bpftrace %s, false" % MANY_BPF.replace(",", ", "),
                       MANY_BPF, "arg0 == 0x5eed1234", loop, "many_false_jit",
                       max_probes=4000)
    r["note"] = peers.bpftrace_version()
    rows.append(r)


def worst_rows(rows, entry_params):
    reload_gtp(entry_params)
    base = worst.unprobed("hist_unprobed", "per-call, unprobed (%d calls)" % worst.N_HITS)
    rows.append(base)
    if base["cyc"] is None:
        return
    where = "trace gtp_test_function if "
    rows.append(worst.gtp("worst_entry_false", "per-call, gtp entry false (JIT)",
                          [where + COND_FALSE], False, None, base["cyc"]))
    rows.append(worst.gtp("worst_entry_true", "per-call, gtp entry true + collect (JIT)",
                          [where + COND_TRUE, "actions", "collect " + EXPR, "end"],
                          True, None, base["cyc"]))


def main():
    loop()  # warm up caches, then measure
    base = loop()
    rows = Rows()
    rows.append(row("base", "unprobed loop", base))

    if "floors" in SECTIONS:
        rows.append(floor("floor_kprobe", "empty kprobe pre-handler, entry (floor)",
                          "kprobe", "entry_false_jit"))
        rows.append(floor("floor_kprobe_mid", "empty kprobe, mid-function (floor)",
                          "kprobe-mid", "mid_false_jit"))
        rows.append(floor("floor_ftrace", "empty ftrace_ops, entry (floor)",
                          "ftrace", "entry_false_jit"))
        rows.append(floor("floor_direct", "empty direct trampoline, entry (floor)",
                          "direct", "entry_false_jit"))
        rows.append(floor("floor_tp", "empty tracepoint probe (floor)", "tpprobe",
                          "static_false_jit"))
    mid = mid_address()

    entry_params, attach = "", "kprobe attach"
    if os.path.exists(ENTRY_FTRACE):
        entry_params, attach = "entry_ftrace=1", "ftrace attach"
    if "gtp" in SECTIONS:
        gtp_rows(rows, entry_params, attach, mid)
    if "peers" in SECTIONS:
        peer_rows(rows)
    if "agg" in SECTIONS:
        agg_rows(rows, entry_params)
    if "many" in SECTIONS:
        many_rows(rows, entry_params)
    if "worst" in SECTIONS:
        worst_rows(rows, entry_params)

    header = ("Guest cycles per call, N=%d (per-call rows: %d), kernel %s, "
              "`-icount shift=0,sleep=off -smp 1`, one boot." %
              (N, worst.N_HITS, os.uname().release))
    print("\n".join(render(rows, base, header)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
