"""Source-level tracing with the kernel's own DWARF (docs/source-level.md):
every location of a tracepoint is its own (an inlined function's sites, a
line with several addresses), and variables the compiler describes by
their value on entry (DW_OP_entry_value) are collected from the entry
registers gtp records.

Kernel cases need the default kernel's vmlinux with DWARF (build/dbg,
made by make e2e) and skip without it, as test_vmlinux.py does; the module
cases use gtp_test.ko's own DWARF (built with -g) and run on every kernel.
Expected values are what the workload passed.  The kernel cases only look
for lines: they are cases (cases/test_source.case).  The module's stays
here: its line and values are computed.
"""
import os
import re

from gtplib import (REPO, expect, expect_not, gdb_script, leaves_target_clean,
                    reset_target, values)
from vmlinuxlib import BAD as VMLINUX_BAD
from vmlinuxlib import HEAD

# gdb's words for a bug, a Python error, and gdb failing to compile a variable
BAD = VMLINUX_BAD + r"|cannot be translated"


def session(body, timeout=600):
    reset_target()
    out = gdb_script(HEAD + body, timeout=timeout)
    expect_not(out, BAD)
    return out


def frames(out):
    """tdump's output per frame: [(tracepoint, text)]."""
    parts = re.split(r"^Found trace frame \d+, tracepoint (\d+)$", out, flags=re.M)
    return [(int(parts[i]), parts[i + 1]) for i in range(1, len(parts), 2)]


WALK = """tfind start
while ($trace_frame != -1)
  tdump
  info symbol $pc
  tfind
end
"""


def return_line():
    """The line of gtp_test_lines()' return in tracepoints/gtp_test.c."""
    with open(os.path.join(REPO, "tracepoints", "gtp_test.c")) as f:
        for n, line in enumerate(f, 1):
            if line.strip() == "return x + y;":
                return n
    raise AssertionError("gtp_test.c has no gtp_test_lines() return")


@leaves_target_clean
def test_module_inline_and_entry_values():
    """A module's own lines, from its DWARF (gtp-load-module): the helper
    gtp_test_lines() inlines at two sites shows each site's arguments, and
    at the return a and b, which only their entry values describe there,
    are what "lines A B" passed.  Python: the traced line is found in
    gtp_test.c, and the values at it are computed from the sites'."""
    out = session("""gtp-load-module gtp_test
info scope gtp_test_lines
target remote /proc/gtp
trace gtp_test_scale
actions
collect $args
end
trace gtp_test.c:%d
actions
collect $args
collect $locals
end
info tracepoints
tstart
shell echo lines 7 11 > /proc/gtp_test
tstop
%s""" % (return_line(), WALK))
    m = expect(out, r"^Tracepoint 1 at 0x[0-9a-f]+: gtp_test_scale\. \((\d+) locations\)$")
    assert int(m.group(1)) == 2, out
    got = frames(out)
    sites = sorted((values(t, "v")[0], values(t, "by")[0]) for tp, t in got if tp == 1)
    assert sites == [(7, 3), (11, 5)], out
    ret = [t for tp, t in got if tp == 2]
    assert len(ret) == 1, out
    # x = 7*3+1 + gtp_test_function(22, 1); y = 11*5+1 + gtp_test_function(56, x)
    x = 22 + 22 + 1
    y = 56 + 56 + x
    assert values(ret[0], "a") == [7] and values(ret[0], "b") == [11], out
    assert values(ret[0], "x") == [x], out
    expect_not(ret[0], r"^a = <|^b = <")
    print("# y at the return: %s (want %d or <optimized out>)" % (values(ret[0], "y"), y))
