"""gdb-scripts as stock gdb loads them (gdb-scripts/gtp.py): the gtpgdb
package is imported (once, however often gtp.py is sourced), its commands
complete their arguments, and $gtp_ksym is a value gdb computes with.
Expected values come from the guest itself (/proc/kallsyms, /proc/modules,
tracefs), not from the scripts under test.
"""
from gtplib import GTP_PY, expect, expect_not, gdb_script, ksym

HEAD = """set pagination off
set confirm off
set width 0
source %s
source %s
""" % (GTP_PY, GTP_PY)


def test_package_imported_once():
    out = gdb_script(HEAD + """python
import sys
import gtpgdb
print("pkg=%s" % gtpgdb.__file__)
print("cmds=%d" % sum(1 for c in ("gtp-load-module", "gtp-ksym", "gtp-markers",
      "gtp-strace", "gtp-hist", "gtp-count", "gtp-stats", "gtp-kernel-symbols",
      "gtp-connect", "gtp-kstack", "gtp-load-vmlinux")
      if gdb.execute("help " + c, to_string=True)))
end
help function gtp_ksym
""")
    expect_not(out, r"Traceback|Error|already")
    expect(out, r"^pkg=.*/gdb-scripts/gtpgdb/__init__\.py$")
    expect(out, r"^cmds=11$")
    expect(out, r"^\$gtp_ksym\(\"NAME\"\): a kernel symbol's address")


def test_completion():
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


def test_ksym_function():
    addr = ksym("vfs_read")
    out = gdb_script(HEAD + """print/x $gtp_ksym("vfs_read")
gtp-ksym vfs_read
print $gtp_ksym("vfs_read") == $_gtp_ksym
python
for e in ('$gtp_ksym("no_such_symbol_gtp")', '$gtp_ksym(1)', '$gtp_ksym("a b")'):
    try:
        gdb.parse_and_eval(e)
    except gdb.error as err:
        print("refused=%s" % err)
end
""")
    expect(out, r"^\$1 = 0x%x$" % addr)
    expect(out, r"^vfs_read = 0x%x$" % addr)
    expect(out, r"^\$2 = 1$")
    expect(out, r"^refused=\$gtp_ksym: no_such_symbol_gtp not in /proc/kallsyms$")
    expect(out, r"^refused=\$gtp_ksym: give the name as a string")
    expect(out, r"^refused=usage: \$gtp_ksym NAME$")


def test_module_entry_values():
    """gtp-load-module loads the .ko's DWARF with its entry values rewritten
    (entryval.py): gtp_test_function's counter1, past the reuse of rdi, is
    a read of 8 bytes at 0x38 that gdb compiles, not DW_OP_entry_value."""
    out = gdb_script(HEAD + """gtp-load-module gtp_test
info scope gtp_test_function
""")
    m = expect(out, r"^gtp: loaded symbols of gtp_test from \S+/gtp_test\.ko; "
               r"entry values: (\d+) locations$")
    assert int(m.group(1)) > 0, out
    expect(out, r"^Symbol counter1 is multi-location:$")
    expect(out, r"^\s+0: DW_OP_const1u 56$")
    expect_not(out, r"DW_OP_(GNU_)?entry_value")
