#!/usr/bin/env python3
"""The two halves of tests/vm/replay-check, one per guest boot.

    replay.py record          boot 1: gdb defines the Fig. 12 session and
                              one whose condition reads a module global;
                              gtp-ctl save-session writes both; they go to
                              stdout between markers, with this boot's
                              addresses of _text and gtp_test_calls
    replay.py replay DIR      boot 2: DIR holds what boot 1 printed; the
                              kernel and the module moved (asserted),
                              gtp-ctl start replays each session, gtp-ctl
                              save writes the frames, gdb reads them back

Prints "replay: ..." lines; exits non-zero on the first failure.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gtplib import (CTL_PRE, FIG12, MOD_GLOBAL, ctl, ctl_session,  # noqa: E402
                    dumped_memory, expect, gdb_script, ksym, reset_target, sh, values)

SESSIONS = (("fig12", FIG12 % "> 0"), ("global", MOD_GLOBAL))


def ok(rc_so_se):
    rc, so, se = rc_so_se
    assert rc == 0, (so, se)
    return so


def record():
    print("GTP-ADDR _text %x gtp_test_calls %x" % (
        ksym("_text"), ksym("gtp_test_calls", "gtp_test")))
    for name, body in SESSIONS:
        reset_target()
        ctl_session(body + "detach\n")
        text = ok(ctl("save-session", "-"))
        print("GTP-SESSION-BEGIN %s" % name)
        sys.stdout.write(text)
        print("GTP-SESSION-END")


def replay(d):
    with open(os.path.join(d, "addr")) as f:
        old_text, old_calls = [int(x, 16) for x in f.read().split()]
    text, calls = ksym("_text"), ksym("gtp_test_calls", "gtp_test")
    assert text != old_text, "no KASLR: _text at 0x%x on both boots" % text
    assert calls != old_calls, "gtp_test_calls at 0x%x on both boots" % calls
    print("replay: _text 0x%x -> 0x%x, gtp_test_calls 0x%x -> 0x%x"
          % (old_text, text, old_calls, calls))
    reset_target()
    # the module global first: no call has run since boot, so calls see
    # gtp_test_calls = 0..5 and two pass "> 3"
    ok(ctl("start", os.path.join(d, "global.gtps")))
    sh("echo 6 > /proc/gtp_test")
    ok(ctl("stop"))
    got = dumped_memory(ok(ctl("dump")), "gtp_test_calls", 4)
    assert got == [("%x" % calls, "4"), ("%x" % calls, "5")], got
    print("replay: module global session: frames at gtp_test_calls = 4, 5")
    ok(ctl("start", "--discard", os.path.join(d, "fig12.gtps")))
    sh("echo 3 > /proc/gtp_test")
    ok(ctl("stop"))
    ok(ctl("save", "/tmp/replay.tf"))
    out = gdb_script(CTL_PRE + "target tfile /tmp/replay.tf\ninfo tracepoints\n" +
                     "".join("tfind %d\ntdump\n" % i for i in range(3)), timeout=300)
    expect(out, r"trace only if 2\*counter1\+3\*counter2 > 0")
    assert values(out, "(2*counter1+3*counter2)") == [2, 7, 12], out
    print("replay: Fig. 12 session: gdb's target tfile shows 2, 7, 12")
    reset_target()


if __name__ == "__main__":
    if sys.argv[1:2] == ["record"]:
        record()
    elif sys.argv[1:2] == ["replay"] and len(sys.argv) == 3:
        replay(sys.argv[2])
    else:
        sys.exit("usage: replay.py record | replay DIR")
