"""An ftrace_ops the kernel refuses to unregister (module/services/ftrace_unreg.c).

unregister_ftrace_function() fails only once ftrace has shut itself down;
the ops then stays registered and its callback keeps being called.  gtp
must keep everything that callback reaches allocated, make it do nothing,
pin itself (rmmod says "in use"; the log says so once), and still run the
next session.  A healthy kernel never refuses, so the tests arm gtp's
test_refuse_ftrace_unregister=1: the next unregister returns -ENODEV and
leaves the ops registered, which is the real failure's state.

Each test then hits the kept callback's functions thousands of times (an
oops, BUG or WARNING in the guest fails the run) and runs a next session.
At the end (passed or not) "rmmod -f" unloads the pinned gtp, whose exit tries the kept
ops again (ftrace takes it back now), and the module is loaded again for
the tests that follow.

Python, not cases: the second test computes which functions to trace from
this kernel's ftrace locations, and both must reload gtp whatever happens.
"""
import os
import re

from gtplib import (GDB_HEAD, GTP_INSMOD, dmesg, expect, expect_not,
                    frames_collected, gdb, ksym, param, reset_target, session,
                    sh, TEST_KO)

FILTER = "/sys/kernel/tracing/available_filter_functions"
KEPT = "gtptrace stays loaded until reboot"


def log_mark(name):
    """A line in the kernel log; what follows it is this test's."""
    mark = "gtp-e2e: %s" % name
    with open("/dev/kmsg", "w") as f:
        f.write(mark + "\n")
    return mark


def log_since(mark):
    out = dmesg()
    return out[out.rindex(mark):]


def check_pinned(mark):
    """gtp said once that it stays, and rmmod refuses it."""
    out = sh("rmmod gtptrace 2>&1; echo =rmmod rc=$?")
    expect(out, r"^=rmmod rc=1$")
    expect(out, r"in use")
    assert log_since(mark).count(KEPT) == 1, log_since(mark)


def reload_gtp(mark):
    """rmmod -f, and load gtp again for the tests that follow, whatever
    the test left.  The exit must have taken the kept ops back: the log
    says nothing of a callback going with the module."""
    reset_target()
    sh("rmmod -f gtptrace")
    sh(GTP_INSMOD)
    expect_not(log_since(mark), r"goes with the module")


def past_first_push():
    """Offset in gtp_test_function of the instruction after its first
    push: a hit there is below the stack pointer the recorder saw at the
    entry, as entry_regs.c wants of a location inside the function."""
    out = gdb("x/12i gtp_test_function", args=[TEST_KO])
    rows = re.findall(r"<gtp_test_function(?:\+(\d+))?>:\s+(\S+)", out)
    for i, (_, op) in enumerate(rows[:-1]):
        if op.startswith("push"):
            return int(rows[i + 1][0])
    raise AssertionError("no push in gtp_test_function:\n" + out)


def test_entry_recorder_kept_after_refused_unregister():
    """The entry-value recorder's ops refused at tstop: its table stays
    and its callback does nothing (before the fix, the table pointer was
    cleared while the ops stayed registered, and the next call of the
    function wrote near NULL: an oops)."""
    mark = log_mark("entry recorder refused")
    # inside the function (below its entry's stack pointer), where the
    # recorder has run: a kprobe, so the recorder's is the only ftrace_ops
    trace = "trace *0x%x if *(long *)0x38 != 0\n" % (
        ksym("gtp_test_function", "gtp_test") + past_first_push())
    try:
        param("test_refuse_ftrace_unregister", "1")
        # *(long *)0x38: rdi on entry (core/entryval.h: 0x10 + 8 * 5)
        out = session(GDB_HEAD, trace + """tstart
shell echo 5 > /proc/gtp_test
tstop
tstatus
shell echo 3000 > /proc/gtp_test
shell echo 3000 > /proc/gtp_test
""")
        assert frames_collected(out)[-1] == 5, out
        assert param("test_refuse_ftrace_unregister").strip() == "0"
        log = log_since(mark)
        expect(log, r"ftrace refused to detach the entry-value recorder "
               r"\(error -19\)")
        # the next session records entries again: every call's rdi != 0
        out = session(GDB_HEAD, trace + """tstart
shell echo 7 > /proc/gtp_test
tstop
tstatus
""")
        assert frames_collected(out)[-1] == 7, out
        check_pinned(mark)
    finally:
        reload_gtp(mark)


def ftrace_locations():
    """[(location, name, module)] of the functions ftrace takes, the names
    unique in kallsyms.  The locations: available_filter_functions_addrs
    where the kernel has it (6.5 on; on IBT kernels a location is past
    the function's endbr64), else kallsyms (6.1: no IBT)."""
    names, addrs = {}, {}
    with open("/proc/kallsyms") as f:
        for line in f:
            p = line.split()
            if p[1] not in "tT":
                continue
            mod = p[3][1:-1] if len(p) > 3 else None
            key = (p[2], mod)
            names[key] = names.get(key, 0) + 1
            addrs[key] = int(p[0], 16)
    out = []
    if os.path.exists(FILTER + "_addrs"):
        with open(FILTER + "_addrs") as f:
            for line in f:
                p = line.split()
                mod = p[2][1:-1] if len(p) > 2 else None
                out.append((int(p[0], 16), p[1], mod))
    else:
        with open(FILTER) as f:
            for line in f:
                p = line.split()
                mod = p[1][1:-1] if len(p) > 1 else None
                if (p[0], mod) in addrs:
                    out.append((addrs[(p[0], mod)], p[0], mod))
    return [(loc, n, m) for loc, n, m in out if names.get((n, m)) == 1]


def spill_layout():
    """Functions whose table (module/probes/ftrace_probe.c, fp_ops_build()) puts
    a gtp_test spill function in a spill slot: with nlocs locations the
    table has size = roundup_pow_of_two(nlocs) * 8 slots, an ip's slot is
    (ip >> 4) & (size - 1), and linear probing in ip order runs past the
    last slot into nlocs spill slots instead of wrapping.  So a spill
    function H whose slot is i goes to slot `size` when size - i vmlinux
    functions (lower ips: added first) have slot i too; any other
    locations get slots far below i.  Return ([(loc, name)] to trace, H)."""
    locs = ftrace_locations()
    spill = sorted((loc, n) for loc, n, m in locs
                   if m == "gtp_test" and n.startswith("gtp_test_spill_"))
    assert len(spill) == 32, spill
    vm = [(loc, n) for loc, n, m in locs if m is None]
    for size in (16, 32, 64, 128, 256):
        lo, hi = size // 16 + 1, size // 8   # nlocs giving this size
        for h, hname in spill:
            i = (h >> 4) & (size - 1)
            fill = size - i
            nlocs = max(fill + 1, lo)
            if nlocs > hi or i < nlocs + 1:
                continue
            same = [f for f in vm if (f[0] >> 4) & (size - 1) == i]
            others, used = [], set()
            for f in vm:
                home = (f[0] >> 4) & (size - 1)
                if len(others) == nlocs - fill - 1:
                    break
                if home < i - nlocs and home not in used:
                    used.add(home)
                    others.append(f)
            chosen = same[:fill] + others + [(h, hname)]
            if len(chosen) != nlocs or any(f[0] >= h for f in chosen[:-1]):
                continue
            return chosen, (h, hname), size
    raise AssertionError("no gtp_test spill function fits a table's end")


def slots(chosen, size):
    """{ip: slot} as fp_slot_add() fills the table, in ip order."""
    taken, at = set(), {}
    for loc, _ in sorted(chosen):
        s = (loc >> 4) & (size - 1)
        while s in taken:
            s += 1
        taken.add(s)
        at[loc] = s
    return at


def test_shared_ops_kept_with_spill_slots_after_refused_unregister():
    """The shared ftrace_ops refused at tstop, with a probe in a spill
    slot past the table's hashed slots: that probe stays allocated and
    disabled as the others do (before the fix only slots 0..size-1 were
    kept, and the spill slots' probes freed while the ops could still
    reach them).  Then its function is hit thousands of times, and a next
    session must see exactly its own frames."""
    chosen, (h, hname), size = spill_layout()
    mark = log_mark("shared ops refused")
    body = "".join("trace *0x%x if $rdi == 0x5eed\n" % loc
                   for loc, _ in chosen)
    param("entry_direct", "0")      # every one on the shared ops
    try:
        param("test_refuse_ftrace_unregister", "1")
        out = session(GDB_HEAD, body + """tstart
shell cat /sys/module/gtptrace/parameters/attached
shell echo spill 10 > /proc/gtp_test
tstop
shell echo spill 2000 > /proc/gtp_test
""")
        # by construction H is in slot `size`: prove the layout took
        kinds = re.findall(r"^\d+ 0x[0-9a-f]+ (\S+)$", out, re.M)
        assert kinds == ["ftrace"] * len(chosen), (kinds, out)
        assert slots(chosen, size)[h] >= size, (chosen, size)
        log = log_since(mark)
        expect(log, r"ftrace refused to detach the ftrace_ops of %d "
               r"locations.*\(error -19\)" % len(chosen))
        # the next session: a new ops, new probes; the kept one's
        # functions hit again while it runs
        out = session(GDB_HEAD, """trace gtp_test_function
tstart
shell echo 5 > /proc/gtp_test
shell echo spill 2000 > /proc/gtp_test
tstop
tstatus
""")
        assert frames_collected(out)[-1] == 5, out
        check_pinned(mark)
    finally:
        reload_gtp(mark)
