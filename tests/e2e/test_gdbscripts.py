"""gdb-scripts as stock gdb loads them (gdb-scripts/gtp.py): the gtpgdb
package is imported (once, however often gtp.py is sourced), its commands
complete their arguments, and $gtp_ksym is a value gdb computes with.
Expected values come from the guest itself (/proc/kallsyms, /proc/modules,
tracefs), not from the scripts under test.  The sessions that need no
Python to check are cases, in cases/test_gdbscripts.case.
"""
from gtplib import GTP_HEAD, GTP_PY, expect, gdb_script

# gtp.py sourced twice: a second source must change nothing
HEAD = GTP_HEAD + "source %s\n" % GTP_PY


def test_completion():
    """Python: the expected completions are read from /proc/modules,
    tracefs and /proc/kallsyms."""
    with open("/proc/modules") as f:
        mods = sorted(line.split()[0] for line in f if line.startswith("gtp"))
    with open("/sys/kernel/tracing/available_events") as f:
        sched = sorted(e for e in f.read().split() if e.startswith("sched:sched_sw"))
    with open("/proc/kallsyms") as f:
        vfs = sorted({ln.split()[2] for ln in f if ln.split()[2].startswith("vfs_rea")})
    assert "gtp_test" in mods and sched and "vfs_read" in vfs, (mods, sched, vfs)
    out = gdb_script(HEAD + """gtp-load-module gtp_test
complete gtp-load-module gtp
complete gtp-strace sched:sched_sw
complete gtp-markers gtp_test:
complete gtp-strace gtp_test:gtp_test_event if gtp_test_fun
complete gtp-load-module gtp_test /proc/gtp_te
complete gtp-ksym vfs_rea
""")
    lines = out.splitlines()
    got = [ln.split()[1] for ln in lines if ln.startswith("gtp-load-module ")
           and len(ln.split()) == 2]
    assert got == mods, (got, mods, out)
    got = [ln.split()[1] for ln in lines if ln.startswith("gtp-strace sched:")]
    assert got == sched, (got, sched, out)
    expect(out, r"^gtp-markers gtp_test:gtp_test_event$")
    # after the event id, a condition: gdb's own expression completer
    expect(out, r"^gtp-strace gtp_test:gtp_test_event if gtp_test_function$")
    got = [ln.split()[1] for ln in lines if ln.startswith("gtp-ksym ")]
    assert got == vfs, (got, vfs, out)
    # FILE after NAME: file names
    expect(out, r"^gtp-load-module gtp_test /proc/gtp_test$")
