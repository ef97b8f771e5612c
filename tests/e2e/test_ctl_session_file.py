"""gtp-ctl start against a hostile session file, on a real /proc/gtp.

A condition line with '#' and '$' in it used to be copied into the QTDP
packet as it was: the kernel's parser ended the packet at the '#', the
checksum failed, the packet (and the rest) was dropped, and gtp-ctl
waited forever holding /proc/gtp, after its QTinit had already cleared
the target.  Now the file is refused with FILE:LINE before the target is
opened: a running trace, and the frames of a stopped one, stay exactly as
they were, and a good session from the same recording still starts.
The host-side tests of every other malformed field are tests/ctl/.

The tests stay Python: the injected file is the recorded one with its
condition line replaced (its line number found in the recording), and the
target's status after a refusal must equal the status before it.
"""
import re
import subprocess

from gtplib import (GTP_CTL, MOD_GLOBAL, ctl, ctl_session, dumped_memory, expect,
                    leaves_target_clean, reset_target, sh)

GOOD = "/tmp/gtp_good.gtps"
BAD = "/tmp/gtp_injected.gtps"
INJECTED = "  cond X2,2027#00$QTBuffer:size:40000000"


def start(*args):
    """gtp-ctl start ARGS; a hang (the old behaviour) fails the test."""
    try:
        p = subprocess.run([GTP_CTL, "start"] + list(args), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=90)
    except subprocess.TimeoutExpired:
        raise AssertionError("gtp-ctl start %s hung (killed after 90 s); the target "
                             "then:\n%s" % (" ".join(args), ctl("status")[1]))
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def status():
    rc, so, se = ctl("status")
    assert rc == 0, se
    return so


def record():
    """A good session file from gdb's definitions, and one with the
    injection in its condition line; the line number of that line."""
    reset_target()
    ctl_session(MOD_GLOBAL + "detach\n")
    rc, so, se = ctl("save-session", GOOD)
    assert rc == 0, (so, se)
    with open(GOOD) as f:
        text = f.read()
    lines = text.splitlines()
    n = next(i for i, l in enumerate(lines, 1) if l.startswith("  cond "))
    lines[n - 1] = INJECTED
    with open(BAD, "w") as f:
        f.write("\n".join(lines) + "\n")
    return n


def refused(n, *opts):
    rc, so, se = start(*(opts + (BAD,)))
    assert rc == 1, (rc, so, se)
    assert re.search(r"^gtp-ctl start: %s:%d: '#' at column \d+ .*frame packets" %
                     (re.escape(BAD), n), se, re.M), se


DETACHED = """set disconnected-tracing on
trace gtp_test_function
actions
collect counter1
end
tstart
shell echo 3 > /proc/gtp_test
detach
"""


@leaves_target_clean
def test_injected_condition_refused_while_a_trace_runs():
    """A running trace with frames is left as it was (status compared
    before and after: Python)."""
    n = record()
    # a running trace with frames, left by a gdb that detached
    reset_target()
    ctl_session(DETACHED)
    before = status()
    expect(before, r"^trace: running$")
    expect(before, r"^frames: 3 in the buffer, 3 created")
    refused(n)
    refused(n, "--discard")
    assert status() == before


@leaves_target_clean
def test_injected_condition_refused_before_discarding_frames():
    """--discard lets start clear a stopped trace's frames: the old gtp-ctl
    sent QTinit, then the cut-off QTDP, and waited forever.  Python: the
    status before and after, and gtp_test_calls relative to its first
    dumped value."""
    n = record()
    reset_target()
    ctl_session(DETACHED)
    assert ctl("stop")[0] == 0
    before = status()
    expect(before, r"^trace: stopped$")
    expect(before, r"^frames: 3 in the buffer, 3 created")
    refused(n, "--discard")
    assert status() == before
    # the frames are the ones collected: call k has counter1 = k
    out = ctl_session("tfind 2\np counter1\ndetach\n")
    expect(out, r"^\$1 = 3$")
    # the good file of the same recording starts
    rc, so, se = start("--discard", GOOD)
    assert rc == 0, (so, se)
    expect(status(), r"^trace: running$")
    sh("echo 6 > /proc/gtp_test")
    assert ctl("stop")[0] == 0
    rc, so, se = ctl("dump")
    assert rc == 0, se
    # the six calls see gtp_test_calls = c0 .. c0 + 5 (calls since the
    # module was loaded, which earlier tests made); the condition is > 3
    got = [int(v) for _, v in dumped_memory(so, "gtp_test_calls", 4)]
    assert got, so
    c0 = got[-1] - 5
    assert got == [v for v in range(c0, c0 + 6) if v > 3], so
