"""tstart never fails because gdb cannot compile one collect item
(gdb-scripts/gtpgdb/collectable.py; the host test is
tests/collectable/test_collectable_hook.py): `collect $locals, $args` at a line in the
middle of vfs_read, with the kernel's own DWARF (gtp-load-vmlinux).

gdb compiles $locals and $args only at tstart, and on this optimized kernel
some arguments there live only as DW_OP_entry_value, which gdb 13 cannot
translate: tstart fails.  The test asks gdb itself first (gtp's hooks
emptied), so it holds whether or not gdb can compile them: either gdb's
tstart fails and gtp's runs with one line per dropped item, or gdb's runs
and gtp's drops nothing.  Either way the frame holds what the line
computed (ret = 4093 after a 4093-byte read) and the user's text is back.
"""
import os
import re

import gtplib
from gtplib import expect, expect_not, ksym, leaves_target_clean
from vmlinuxlib import session, vmlinux

# fs/read_write.c of Debian's 6.1: in vfs_read after the read, where ret
# holds its result (the test checks it is in vfs_read)
LINE = 473
SIZE = 4093

# the gdb-side helpers the session calls (tests/e2e/gdbpy)
SOURCES = "".join("source %s\n" % os.path.join(gtplib.GDBPY, f) for f in
                  ("tracepoint_symbol.py", "tstart_gdb_then_gtp.py", "reads.py"))


@leaves_target_clean
def test_tstart_drops_what_gdb_cannot_compile():
    """gtp's tstart succeeds and drops exactly what made gdb's own fail.
    Python: what is expected depends on whether this gdb can compile
    the items, and the dropped names are checked against the frame."""
    path = vmlinux()
    data = "/run/gtp-collectable-%d" % os.getpid()
    with open(data, "wb") as f:
        f.write(os.urandom(3 * SIZE))
    try:
        out = session(SOURCES + """gtp-load-vmlinux %s
target remote /proc/gtp
trace fs/read_write.c:%d if ret == %d
actions
collect $locals, $args
end
python print_tracepoint_symbol(1)
python tstart_gdb_then_gtp()
python read_sizes(%r, [%d])
tstop
tstatus
info tracepoints
tfind start
tdump
""" % (path, LINE, SIZE, data, SIZE))
    finally:
        os.unlink(data)
    m = expect(out, r"^at: vfs_read \+ (\d+) in section \.text$")
    off = int(m.group(1))
    assert 0 < off < 4096, out
    print("# fs/read_write.c:%d is vfs_read+%d (0x%x)" % (LINE, off, ksym("vfs_read") + off))
    expect(out, r"^gtp tstart: ok$")
    dropped = re.findall(r"^gtp: tracepoint 1 \(fs/read_write\.c:%d\): not collecting "
                         r"`(\S+)': (.+)$" % LINE, out, re.M)
    if re.search(r"^gdb tstart: failed: ", out, re.M):
        # what made gdb fail is what gtp dropped
        why = expect(out, r"^gdb tstart: failed: (.*)$").group(1)
        assert dropped and why in [w for _, w in dropped], out
    else:
        expect(out, r"^gdb tstart: ok$")
        assert not dropped, out
    print("# dropped: %s" % (", ".join("%s (%s)" % d for d in dropped) or "nothing"))
    expect(out, r"^Collected 1 trace frames")
    # the frame: ret is what the read returned, the other names have values
    expect(out, r"^ret = %d$" % SIZE)
    expect(out, r"^file = 0xff[0-9a-f]{14}$")
    for name, _ in dropped:
        expect_not(out, r"^%s = (0x)?[0-9]" % re.escape(name))
    # the user's text is back
    actions = re.findall(r"^ {8}(\S.*)$", out, re.M)
    assert actions == ["collect $locals, $args"], out
