"""Process-name filters (gdb-scripts/gtpgdb/strcond.py, docs/cookbook.md
"Only for one process name"): conditions on the current task's comm,
which gdb cannot compile as written, run on the target as word compares,
with the JIT and without.

gtp_test_function is hit by writers that set their own comm
(prctl(PR_SET_NAME)) and write N to /proc/gtp_test: N hits each.  One
tracepoint keeps `$current_comm == NAME` (the Cookbook recipe's
condition, read from docs/cookbook.md) for a 15-character name (the
whole 16-byte comm: two 8-byte loads, the NUL the last byte), against a
decoy differing in its last character; the other keeps `$_streq(COMM,
NAME) && COMM[0] == 'g'`, against a decoy the name is a prefix of (the
NUL is compared).  Each frame collects the comm: every frame must be
one of the matching writer's, and all its hits must be there.  struct
task_struct is gtp_test.ko's DWARF's (the kernel's headers, as in BTF;
gtp-connect would add some 20 s of making BTF's symbols).  The host
test of the bytecode and of the refusals is tests/strcond/test_strcond.py.
"""
import re

from cookbook import recipe
from gtplib import (GDB_HEAD, SCRIPT_BUGS, expect, expect_not, gdb_script,
                    leaves_target_clean, reset_target)
from jit_switch import jit_restored, set_jit

COMM = "((struct task_struct *)$current_task)->comm"
# name -> hits; the first of each pair is kept, the second is its decoy
WRITERS = {"gtp-comm-15char": 3, "gtp-comm-15chaX": 5,
           "gtp-comm-b": 2, "gtp-comm-bb": 7}


def recipe_trace():
    """The Cookbook recipe's `trace` line, on gtp_test_function, for the
    15-character name."""
    line = next(c for c in recipe("Only for one process name") if c.startswith("trace "))
    assert line == 'trace vfs_write if $current_comm == "NAME"', line
    return line.replace("vfs_write", "gtp_test_function").replace("NAME", "gtp-comm-15char")


BODY = """tvariable $current_task
%(recipe)s
actions
collect %(comm)s
end
trace gtp_test_function if $_streq(%(comm)s, "gtp-comm-b") && %(comm)s[0] == 'g'
actions
collect %(comm)s
end
tstart
%(writers)s
tstop
tfind start
while $trace_frame != -1
printf "hit %%d %%s\\n", $tracepoint, %(comm)s
tfind
end
info tracepoints
"""
FILL = {"comm": COMM, "writers": "\n".join(
    "shell python3 -c 'import ctypes; ctypes.CDLL(None).prctl(15, b\"%s\", 0, 0, 0); "
    "open(\"/proc/gtp_test\", \"w\").write(\"%d\\n\")'" % (name, n)
    for name, n in WRITERS.items())}


def hits(jit):
    set_jit(jit)
    reset_target()
    out = gdb_script(GDB_HEAD + BODY % dict(FILL, recipe=recipe_trace()), timeout=300)
    expect_not(out, SCRIPT_BUGS + r"|Error|evaluation error|Cannot translate")
    # the user's conditions are what gdb shows after tstart
    expect(out, r'^\s+trace only if \$current_comm == "gtp-comm-15char"$')
    return sorted(re.findall(r"^hit (\d+) (\S+)$", out, re.M)), out


@leaves_target_clean
def test_comm_filter_jit_and_interpreter():
    want = sorted([("1", "gtp-comm-15char")] * 3 + [("2", "gtp-comm-b")] * 2)
    with jit_restored():
        for jit in (True, False):
            got, out = hits(jit)
            assert got == want, "jit=%s: %s\n%s" % (jit, got, out)
