"""gtp-ctl replaying a session that uses KGTP's variables
(docs/production.md "The session file"): a trigger ($gtp_enable), a
per-CPU counter ($p_calls), a software counter ($perf_cpu_clock) and the
user stack ($ustack), defined in gdb (downloaded by a tstart with no
hit), saved by `gtp-ctl save-session` from the target, cleared, and started again by `gtp-ctl start` with no
gdb: the kernel must run what gdb defined, by the variables' names.

Tracepoint 1 (gtp_test_function, disabled as gdb left it) counts its
hits per CPU, collects counter1, the CPU's clock and the user stack of
the writer; tracepoint 2 (gtp_test_lines if a == 1) enables it.  Only
the calls after the enabling hit are recorded; the per-CPU count, summed
by gdb's `print`, is their number; each frame has a positive clock and a
user stack of at least the writer's ip (the shell, which keeps no frame
pointers).
"""
import re

from gtplib import ctl, ctl_session, expect, leaves_target_clean, reset_target, sh

SESSION = "/tmp/gtp_replay_vars.gtps"
DEFINE = """tvariable $gtp_enable
tvariable $p_calls
tvariable $perf_cpu_clock
tvariable $ustack
trace gtp_test_function
actions
collect counter1
collect $perf_cpu_clock
collect $ustack
teval $p_calls = $p_calls + 1
end
disable 1
trace gtp_test_lines if a == 1
actions
teval $gtp_enable = 1
end
tstart
tstop
detach
"""
# gtp_test_lines(1, 2) calls gtp_test_function(4, 1), then (11, 9)
WANT = [4, 11, 1, 2, 3]


@leaves_target_clean
def test_kgtp_variables_replayed_by_gtp_ctl():
    reset_target()
    ctl_session(DEFINE)
    rc, so, se = ctl("save-session", SESSION)
    assert rc == 0, (so, se)
    with open(SESSION) as f:
        saved = f.read()
    for name in ("gtp_enable", "p_calls", "perf_cpu_clock", "ustack"):
        assert re.search(r"^tsv \d+ .* name %s$" % name, saved, re.M), saved
    reset_target()
    rc, so, se = ctl("start", SESSION)
    assert rc == 0, (so, se)
    sh("echo 5 > /proc/gtp_test; echo lines 1 2 > /proc/gtp_test; "
       "echo 3 > /proc/gtp_test")
    assert ctl("stop")[0] == 0
    rc, dump, se = ctl("dump")
    assert rc == 0, se
    frames = re.split(r"^(?=frame \d+:)", dump, flags=re.M)
    ones = [f for f in frames if re.match(r"frame \d+: tracepoint 1 ", f)]
    # counter1 is the first argument: rdi, of the registers collect took
    got = [int(re.search(r"\brdi 0x([0-9a-f]+)", f).group(1), 16) for f in ones]
    assert got == WANT, dump
    for f in ones:
        clock = int(re.search(r"^  \$perf_cpu_clock = (\d+)$", f, re.M).group(1))
        assert clock > 0, f
        n = int(re.search(r"^  user stack, (\d+) frames? \(program text at 0x[0-9a-f]+\):$",
                          f, re.M).group(1))
        assert n >= 1 and int(re.search(r"^  \$ustack = (\d+)$", f, re.M).group(1)) == n, f
    out = ctl_session("print $p_calls\ndetach\n")
    expect(out, r"^\$1 = %d$" % len(WANT))
