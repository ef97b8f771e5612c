"""A traced module stays, or stops being traced (module/services/mod_pin.c,
module/probes/forced_unload.c).

An entry tracepoint in gtp_test.ko pins gtp_test from tstart to tstop,
whether ftrace or a kprobe carries it: rmmod says "in use" meanwhile.
Without the pin, an ftrace_ops keeps the unloaded function's address in
its filter, and ftrace turns it on again for whatever function the next
module load puts there.

"rmmod -f" ignores the pin.  gtp then stops the trace before the module's
memory goes (gdb's tstatus says why), frees the JIT images that load from
the module's data directly, and a reloaded gtp_test (its function most
likely at the same address) is not traced: no frame is added, ftrace's
enabled_functions does not list it.

The pins themselves, and rmmod -f of a static tracepoint's module, are
cases: cases/test_module_pin.case.
"""
import re

from gtplib import (GDB_HEAD, TEST_KO, expect, expect_not, frames_collected,
                    gdb_script, leaves_target_clean, reset_target, sh)

BAD = (r"Fatal signal|internal-error|Remote connection closed|Bogus|"
       r"Malformed|Remote failure|Traceback")

TEXT = "cat /sys/module/gtp_test/sections/.text"


def reload_test_module():
    """Put gtp_test back for the tests that follow."""
    sh("grep -q '^gtp_test ' /proc/modules || insmod %s" % TEST_KO)


def jit_images_freed(out):
    """JIT images gone at rmmod -f: the condition's, which loads
    gtp_test_calls directly (the action's reads nothing of gtp_test)."""
    before, after = (int(n) for n in
                     re.findall(r"^=jit-images (\d+)$", out, re.M))
    return before - after


def session(body):
    try:
        out = gdb_script(GDB_HEAD + body, timeout=300)
    finally:
        reload_test_module()
    expect_not(out, BAD)
    return out


# Python: jit_images before rmmod -f minus after must be 1 (a relation).
@leaves_target_clean
def test_forced_unload_stops_the_trace():
    """The condition loads gtp_test_calls directly (JIT) and the entry is
    ftrace's: both let go at rmmod -f, and the reloaded function is not
    recorded."""
    reset_target()
    out = session("""trace gtp_test_function if gtp_test_calls >= 0
actions
collect counter1
end
tstart
shell cat /sys/module/gtptrace/parameters/attached
shell echo "=jit-images $(cat /sys/module/gtptrace/parameters/jit_images)"
shell echo "=text-before $(%s)"
shell echo 2 > /proc/gtp_test
tstatus
shell rmmod -f gtp_test 2>&1; echo "=rmmod-f rc=$?"
shell echo "=jit-images $(cat /sys/module/gtptrace/parameters/jit_images)"
shell insmod %s
shell echo "=text-after $(%s)"
shell grep gtp_test_function /sys/kernel/tracing/enabled_functions || echo "=not-ftraced"
shell echo 3 > /proc/gtp_test
tstatus
""" % (TEXT, TEST_KO, TEXT))
    expect(out, r"^1 0x[0-9a-f]+ ftrace$")
    expect(out, r"^=rmmod-f rc=0$")
    assert jit_images_freed(out) == 1, out
    expect(out, r"Trace stopped by an error \(module gtp_test unloaded by "
                r"force while traced, tracepoint 1\)")
    expect(out, r"^=not-ftraced$")
    # two calls before, none of the reloaded module's three after
    assert frames_collected(out) == [2, 2], out
    # say whether the reload reused the address (what made the old
    # ftrace filter fire again); the assertions above hold either way
    before = re.search(r"^=text-before (\S+)$", out, re.M).group(1)
    after = re.search(r"^=text-after (\S+)$", out, re.M).group(1)
    print("gtp_test .text before %s, after reload %s" % (before, after))


# Python: jit_images before rmmod -f minus after must be 1 (a relation).
@leaves_target_clean
def test_forced_unload_frees_stopped_images():
    """After tstop the definitions' JIT image still pins gtp_test; rmmod -f
    frees it (no later module_put on freed memory, no direct load of it
    at the next tstart)."""
    reset_target()
    out = session("""trace gtp_test_function if gtp_test_calls >= 0
actions
collect counter1
end
tstart
shell echo 2 > /proc/gtp_test
tstop
shell echo "=jit-images $(cat /sys/module/gtptrace/parameters/jit_images)"
shell rmmod gtp_test 2>&1; echo "=rmmod rc=$?"
shell rmmod -f gtp_test 2>&1; echo "=rmmod-f rc=$?"
shell echo "=jit-images $(cat /sys/module/gtptrace/parameters/jit_images)"
tstatus
""")
    expect(out, r"^=rmmod rc=1$")
    expect(out, r"^=rmmod-f rc=0$")
    assert jit_images_freed(out) == 1, out
    # stopped by the user before: that stays what tstatus says
    expect(out, r"Trace stopped by a tstop command")
    assert frames_collected(out) == [2], out
