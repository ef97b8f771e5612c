"""In-kernel aggregation (docs/histograms.md, "In-kernel aggregation"), end to end.

`tvariable $hist_NAME` / `$count_NAME` are tables the kernel fills at each
hit (module/core/agg.c) from `teval`; gdb's gtp-hist/gtp-count read them
with qGtpAgg while the trace runs and after tstop, and a tracepoint that
only feeds them writes no frame.  gtp-ctl agg reads the same tables
without gdb.  The Fig. 11 loop makes the hits: call k passes counter1 = k,
counter2 = k - 1, so the expected buckets and counts are computed here,
never copied from the code under test.  (`(long)counter1`, not `counter1`:
gdb 13 aborts on a teval whose value is a bare register, "expression has
min height < 0".)  Each session runs with the JIT on
and off (the module parameter jit): the setv must go through the tables
either way.
"""
import re

from gtplib import expect, expect_not, gdb_script, param, reset_target
from jit_switch import HEAD, set_jit
from test_hist import ctl, expected_hist, section

BUGS = (r"Fatal signal|internal-error|Remote connection closed|Bogus|Malformed|"
        r"Remote failure|Traceback|Python Exception")


def session(body, timeout=300):
    reset_target()
    out = gdb_script(HEAD + body, timeout=timeout)
    expect_not(out, BUGS)
    return out


# test_hist's table row, and the count tables' <overflow> row
ROW = re.compile(r"^(\(\.\.\., [^)\n]*\)|\[[^\])\n]*[\])]|<overflow>)\s+(\d+) "
                 r"\|([@ ]{52})\|$", re.M)


def rows(text):
    """{label: count} of one histogram/count table."""
    return {m.group(1): int(m.group(2)) for m in ROW.finditer(text)}


def expected_counts(keys):
    c = {}
    for k in keys:
        c["[%d]" % k] = c.get("[%d]" % k, 0) + 1
    return c


AGG = """tvariable $hist_lat
tvariable $count_who
trace gtp_test_function
actions
teval $hist_lat = (long)counter1
teval $count_who = counter2 %% 5
end
tstart
shell echo %d > /proc/gtp_test
shell cat /sys/module/gtptrace/parameters/jit_images
echo === live\\n
gtp-hist $hist_lat
gtp-count $count_who
print $hist_lat
tstatus
shell echo %d > /proc/gtp_test
tstop
echo === stopped\\n
gtp-hist $hist_lat
gtp-count $count_who --top 0
tstatus
"""


def check_run(jit: bool) -> None:
    set_jit(jit)
    try:
        out = session(AGG % (100, 30))
    finally:
        set_jit(True)
    images = int(expect(out, r"^(\d+)$").group(1))
    assert (images > 0) == jit, (jit, images, out)
    live, stopped = out.split("=== live")[1].split("=== stopped")
    first = list(range(1, 101))
    # the second run of the loop starts over from (1, 0)
    both = first + list(range(1, 31))
    for text, vals in ((live, first), (stopped, both)):
        h = section(text, "gtp-hist $hist_lat: ")
        expect(h, r"^gtp-hist \$hist_lat: %d value\(s\) aggregated in the kernel, "
                  r"sum %d, min 1, max %d$" % (len(vals), sum(vals), max(vals)))
        assert rows(h) == expected_hist(vals), (jit, h)
        c = section(text, "gtp-count $count_who: ")
        expect(c, r"^gtp-count \$count_who: %d value\(s\) aggregated in the kernel, "
                  r"0 overflowed$" % len(vals))
        assert rows(c) == expected_counts((v - 1) % 5 for v in vals), (jit, c)
        expect(c, r"^5 distinct key\(s\), %d value\(s\)$" % len(vals))
        # no frame at all: the hits' effect is in the tables only
        expect(text, r"^Collected 0 trace frames\.$")
    expect(live, r"^Trace is running on the target\.$")
    expect(live, r"^\$1 = 100$")        # print $hist_lat: values added
    return stopped


def test_hist_count_live_and_stopped_jit():
    """Python: buckets and counts computed here, live and after tstop (JIT)."""
    stopped = check_run(True)
    # gtp-ctl reads the same tables from /proc/gtp, without gdb
    h = ctl("agg", "$hist_lat")
    assert rows(h) == rows(section(stopped, "gtp-hist $hist_lat: ")), h
    c = ctl("agg", "count_who", "--top", "0")
    assert rows(c) == rows(section(stopped, "gtp-count $count_who: ")), c
    code, err = ctl("agg", "$hist_nosuch", ok=False)
    assert code == 1 and "no trace state variable $hist_nosuch" in err, err


def test_hist_count_live_and_stopped_interpreted():
    """Python: the same with jit=0, the interpreter's setv."""
    check_run(False)


def test_count_table_overflow_reported():
    """Python: 1100 distinct keys on one CPU: 1024 kept, 76 overflowed, paged;
    QTinit frees the tables (the core's allocation count is back)."""
    reset_target()
    allocs = int(param("allocations"))
    out = session("""tvariable $count_big
tvariable $hist_one
trace gtp_test_function
actions
teval $count_big = (long)counter1
end
tstart
shell taskset -c 0 sh -c 'echo 1100 > /proc/gtp_test'
tstop
gtp-count $count_big --top 3
gtp-count $count_big --top 0
tstatus
python
for c in ("gtp-hist $count_big", "gtp-count $hist_one", "gtp-hist $count_big if 1"):
    try:
        gdb.execute(c)
    except gdb.error as e:
        print("refused: %s" % e)
end
""")
    top = section(out, "gtp-count $count_big: ")
    expect(top, r"^gtp-count \$count_big: 1100 value\(s\) aggregated in the kernel, "
                r"76 overflowed \(a CPU's table was full: at most 1024 keys per CPU\)$")
    # each key once: ties by key, the first 1024 keys the CPU saw kept
    assert rows(top) == {"[1]": 1, "[2]": 1, "[3]": 1, "<overflow>": 76}, top
    expect(top, r"^\.\.\. 1021 more key\(s\) with 1021 value\(s\) not shown \(--top\)$")
    expect(top, r"^1024 distinct key\(s\), 1100 value\(s\)$")
    # all of them: more than one qGtpAgg page
    i = out.index("gtp-count $count_big: ", out.index("gtp-count $count_big: ") + 1)
    full = rows(section(out[i:], "gtp-count $count_big: "))
    want = expected_counts(range(1, 1025))
    want["<overflow>"] = 76
    assert full == want, sorted(set(full) ^ set(want))[:10]
    expect(out, r"^refused: gtp-hist: \$count_big counts keys: use gtp-count$")
    expect(out, r"^refused: gtp-count: \$hist_one is a histogram: use gtp-hist$")
    expect(out, r"^refused: gtp-hist: \$count_big is aggregated in the kernel, there "
                r"are no frames to select: no if$")
    expect(out, r"^Collected 0 trace frames\.$")
    # each variable: its struct and its per-CPU copies, until QTinit
    assert int(param("allocations")) >= allocs + 4, (allocs, param("allocations"))
    reset_target()
    assert int(param("allocations")) == allocs, (allocs, param("allocations"))
    assert ROW.search(top)
    assert re.search(r"^\[1024\]\s+1 ", section(out[i:], "gtp-count $count_big: "), re.M)
