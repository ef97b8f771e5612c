"""The kernel's own DWARF under KASLR (docs/kernel-symbols.md): gtp-load-vmlinux with
Debian's vmlinux with debug info for the guest's kernel, which
tests/vm/dbg-vmlinux takes out of linux-image-KVER-dbg into
build/dbg/vmlinux-KVER (make e2e runs it).  Only the default kernel gets
one: on the others the tests that need it skip, and the refusals run.
The tests that only look for lines are cases (cases/test_vmlinux.case);
these two compute what they expect.

Expected values come from the guest: /proc/kallsyms (the guest boots with
KASLR, so a file loaded without the slide is off by it), the reads this
test makes, and /sys/kernel/notes.
"""
import os
import re

import gtplib
from gtplib import expect, expect_not, ksym, leaves_target_clean, sh
from vmlinuxlib import session, vmlinux

# the gdb-side helpers the sessions source (tests/e2e/gdbpy)
GDBPY = gtplib.GDBPY


def test_load_at_slide():
    """Every address at the running kernel's, source lines and types from
    the DWARF.  Python: the slide gdb reports is checked against the
    file's own _text (nm) and /proc/kallsyms', a relation between values."""
    path = vmlinux()
    # each step timed: the cost figures in docs/kernel-symbols.md for the guest
    out = session("""source %s
gtp-load-vmlinux %s
python lap("gtp-load-vmlinux")
target remote /proc/gtp
python lap("target-remote")
info address vfs_read
print &vfs_read
info line vfs_read
python lap("info-line")
ptype struct file
python lap("ptype")
print sizeof(struct task_struct)
info scope vfs_read
print &runqueues
""" % (os.path.join(GDBPY, "laps.py"), path))
    addr = ksym("vfs_read")
    # loaded from the copy tests/vm/dbg-vmlinux made, whose entry values
    # gdb compiles into reads of the module's window (entryval.py); the
    # copy is beside the file itself (build/dbg may be a symlink)
    m = expect(out, r"^gtp: kernel DWARF from %s, KASLR slide (0x[0-9a-f]+), in ([0-9.]+)s; "
               r"entry values: (\d+) locations, from %s\.gtp-ev$"
               % (re.escape(path), re.escape(os.path.realpath(path))))
    assert int(m.group(3)) > 100000, out
    slide = int(m.group(1), 16)
    print("# slide %#x; %s" % (slide, ", ".join("%s %s" % t for t in
                                                re.findall(r"^time (\S+) (\S+)$", out, re.M))))
    linked = int(expect(sh("nm -- %s | grep ' T _text$'" % path), r"^([0-9a-f]+) T _text$")
                 .group(1), 16)
    assert slide == ksym("_text") - linked, (hex(slide), hex(linked), out)
    expect(out, r'^Symbol "vfs_read" is a function at address 0x%x\.$' % addr)
    expect(out, r"^\$1 = .*0x%x <vfs_read>$" % addr)
    expect(out, r'^Line \d+ of "fs/read_write\.c" starts at address 0x%x <vfs_read>' % addr)
    expect(out, r"^\s+struct path f_path;$")
    expect(out, r"^\$2 = \d+$")
    # a per-cpu variable: where kallsyms has it (on x86-64 before 6.15 a
    # zero-based per-cpu offset that KASLR does not move)
    expect(out, r"^\$3 = .*0x%x <runqueues>$" % ksym("runqueues"))
    # vfs_read's file past its register's reuse: rdi's entry value, at 0x38
    expect(out, r"^Symbol file is multi-location:$")
    expect(out, r"^\s+0: DW_OP_const1u 56$")
    expect_not(out, r"DW_OP_entry_value")


@leaves_target_clean
def test_trace_vfs_read_with_dwarf():
    """`trace vfs_read if count == 4093` with the compiler's own locations:
    gdb probes past the prologue (a line of fs/read_write.c) and reads
    count where the DWARF says it is there.  Python: the reads are made
    from gdb's process, told apart from others' by their file's name, and
    the probe's address is checked to lie in vfs_read's first bytes."""
    path = vmlinux()
    data = "/run/gtp-vmlinux-%d" % os.getpid()
    with open(data, "wb") as f:
        f.write(os.urandom(20000))
    sizes = [4093, 100, 4093, 4092, 4094, 4093, 8192, 4093]
    n = sizes.count(4093)
    try:
        out = session("""source %s
source %s
gtp-load-vmlinux %s
target remote /proc/gtp
trace vfs_read if count == 4093
actions
collect count
collect file->f_path.dentry->d_iname
end
info tracepoints
tstart
python read_sizes(%r, %r)
tstop
tstatus
python print_vfs_read_frames("file->f_path.dentry->d_iname")
""" % (os.path.join(GDBPY, "reads.py"), os.path.join(GDBPY, "vfs_read_frames.py"),
            path, data, sizes))
    finally:
        os.unlink(data)
    addr = ksym("vfs_read")
    # one location (no second definition from BTF), in vfs_read, on a line
    m = expect(out, r"^Tracepoint 1 at (0x[0-9a-f]+): file fs/read_write\.c, line (\d+)\.$")
    at = int(m.group(1), 16)
    assert addr <= at < addr + 64, (hex(addr), out)
    print("# probe at vfs_read+%d, fs/read_write.c:%s" % (at - addr, m.group(2)))
    frames = re.findall(r"^frame (\d+) count=(-?\d+) name=(.*)$", out, re.M)
    total = int(expect(out, r"^frames=(\d+)$").group(1))
    assert total == len(frames) and total >= n, out
    assert all(int(c) == 4093 for _, c, _ in frames), out
    ours = [f for f in frames if f[2] == os.path.basename(data)]
    assert len(ours) == n, (n, out)
    expect(out, r"Collected %d trace frames" % total)
