"""Hits nesting on one CPU, made to happen at chosen instructions.

Hits nest on a CPU: an irq's kprobe or static hit inside an ftrace hit,
static hits four deep, an NMI's inside any.  Waiting for an interrupt to
land at the one instruction that matters would prove nothing, so
gtp_test puts a kprobe there (tracepoints/gtp_test.c, "nest" and
"evrace"), whose handler runs the nested work: a kernel int3, NMI context
to the kernel, between two instructions of the interrupted hit.

Python: the expected counts are computed from what gtp_test reports it
did (how many instructions it probed, how often its handler ran), and the
entry values' line from gtp_test.c.
"""
import re

from gtplib import (GDB_HEAD, REPO, expect, expect_not, gdb_script, ksym,
                    leaves_target_clean, reset_target, sh, values)

BUGS = (r"Fatal signal|internal-error|Remote connection closed|Bogus|Malformed|"
        r"Remote failure|Traceback|Python Exception")


def session(body, timeout=600):
    reset_target()
    out = gdb_script(GDB_HEAD + "delete\n" + body, timeout=timeout)
    expect_not(out, BUGS)
    return out


# Tracepoint 1 is gtp_test_function's entry (ftrace); tracepoint 2 the
# static event gtp_test's handler fires from inside tracepoint 1's update
# of the same variables, at whichever instruction its kprobe sits on.
AGG = """tvariable $hist_n
tvariable $count_k
trace gtp_test_function if counter1 == -4
actions
teval $hist_n = (long)counter2
teval $count_k = counter2 %% 3
end
gtp-strace gtp_test:gtp_test_event if counter1 == -5
actions
teval $hist_n = (long)counter2
teval $count_k = counter2 %% 3
end
tstart
%s
tstop
tstatus
print $hist_n
print $count_k
gtp-count $count_k
"""

# gtp-count's rows: "[key]  count |@@@ |"
COUNT_ROW = re.compile(r"^\[(-?\d+)\]\s+(\d+) \|", re.M)


@leaves_target_clean
def test_agg_update_nested_at_every_instruction():
    # An ftrace hit's setv of $hist_n and $count_k (gtp_agg_add(),
    # core/agg.c) with a static hit's setv of the same two nested after
    # each of its instructions in turn.  Every value must be counted:
    # before, a nested hit between a load and its store was lost.
    funcs = ["gtp_agg_add"]
    with open("/proc/kallsyms") as f:
        local = {l.split()[2] for l in f if l.rstrip().endswith("[gtptrace]")}
    funcs += [fn for fn in ("hist_add", "table_add", "local_extreme",
                            "table_take_key") if fn in local]
    for fn in funcs:
        out = session(AGG % ("shell echo nest %x > /proc/gtp_test\n"
                             "shell cat /proc/gtp_test" % ksym(fn, "gtptrace")))
        m = expect(out, r"^nest boundaries=(\d+) fired=(\d+)$")
        probed, fired = int(m.group(1)), int(m.group(2))
        assert probed > 10 and fired > 0, (fn, out)
        want = probed + fired
        print("# %s: %d instructions probed, %d nested hits: %d values"
              % (fn, probed, fired, want))
        got = [int(v) for v in re.findall(r"^\$\d+ = (\d+)$", out, re.M)]
        assert got == [want, want], (fn, want, got, out)
        rows = sum(int(c) for _, c in COUNT_ROW.findall(out))
        assert rows == want, (fn, want, rows, out)
        expect_not(out, r"evaluation error|dropped")


def return_line():
    with open(REPO + "/tracepoints/gtp_test.c") as f:
        for n, line in enumerate(f, 1):
            if line.strip() == "return x + y;":
                return n
    raise AssertionError("gtp_test.c has no gtp_test_lines() return")


EVRACE = """trace gtp_test.c:%d
actions
collect $args
end
tstart
shell echo evrace %x 7 11 %d > /proc/gtp_test
shell cat /proc/gtp_test
tstop
tfind start
while ($trace_frame != -1)
  tdump
  tfind
end
"""


def evrace(shots):
    out = session(EVRACE % (return_line(), ksym("ev_entry_cb", "gtptrace"),
                            shots))
    # once per try of the second call's recorder, up to shots
    fired = int(expect(out, r"^evrace fired=(\d+)$").group(1))
    assert 1 <= fired <= shots, out
    frames = re.split(r"^Found trace frame \d+, tracepoint \d+$", out,
                      flags=re.M)[1:]
    got = []
    for t in frames:
        a = values(t, "a")
        got.append(a[0] if a else re.search(r"^a = (.*)$", t, re.M).group(1))
    print("# a at gtp_test_lines' return, call by call: %s" % got)
    return got


@leaves_target_clean
def test_entry_value_after_claim_lost_once():
    # gtp_test_lines(7, 11), (8, 12), (9, 13), one after the other from
    # one place, so each entry is at the same stack pointer.  The second
    # call's entry-value recorder (entry_regs.c) reads its slot, then an
    # entry recorded from the int3 before its cmpxchg makes that fail.
    # Before, it then recorded nothing, and the hit at the return took
    # the first call's record, at the same stack pointer: a = 7.  Now it
    # tries again, and its own call's values are shown.
    assert evrace(1) == [7, 8, 9]


@leaves_target_clean
def test_entry_value_unrecorded_never_another_calls():
    # The same, but every try of the second call loses: its entry is not
    # recorded.  Its hit must show a as <unavailable>, never the first
    # call's 7; the third call's entry empties the slot and is recorded.
    assert evrace(8) == [7, "<unavailable>", 9]
