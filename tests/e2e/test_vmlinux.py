"""The kernel's own DWARF under KASLR (docs/kernel-symbols.md): gtp-load-vmlinux with
Debian's vmlinux with debug info for the guest's kernel, which
tests/vm/dbg-vmlinux takes out of linux-image-KVER-dbg into
build/dbg/vmlinux-KVER (make e2e runs it).  Only the default kernel gets
one: on the others the tests that need it skip, and the refusals run.

Expected values come from the guest: /proc/kallsyms (the guest boots with
KASLR, so a file loaded without the slide is off by it), the reads this
test makes, and /sys/kernel/notes.
"""
import os
import re

from gtplib import (GTP_PY, REPO, TEST_KO, Skip, expect, expect_not, gdb_script, ksym,
                    leaves_target_clean, reset_target, sh)

HEAD = """set pagination off
set confirm off
set width 0
source %s
""" % GTP_PY

BAD = r"Fatal signal|internal-error|Remote connection closed|Bogus|Malformed|" \
    r"Remote failure|Traceback|Python Exception"


def vmlinux_path():
    return os.path.join(REPO, "build", "dbg", "vmlinux-" + os.uname().release)


def vmlinux():
    """build/dbg/vmlinux-KVER for the running kernel, or Skip."""
    kv = os.uname().release
    path = vmlinux_path()
    if not os.path.exists(path):
        raise Skip("no vmlinux with DWARF for %s (tests/vm/dbg-vmlinux %s makes one from "
                   "linux-image-%s-dbg; make e2e does for the default kernel)" % (kv, kv, kv))
    return path


def session(body, timeout=600):
    reset_target()
    out = gdb_script(HEAD + body, timeout=timeout)
    expect_not(out, BAD)
    return out




def test_load_at_slide():
    """Every address at the running kernel's, source lines and types from
    the DWARF."""
    path = vmlinux()
    # each step timed: the cost figures in docs/kernel-symbols.md for the guest
    body = """python
import time
t0 = time.time()
def lap(what):
    global t0
    print("time %%s %%.1fs" %% (what, time.time() - t0))
    t0 = time.time()
end
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
""" % path
    out = session(body)
    addr = ksym("vfs_read")
    # loaded from the copy tests/vm/dbg-vmlinux made, whose entry values
    # gdb compiles into reads of the module's window (entryval.py)
    m = expect(out, r"^gtp: kernel DWARF from %s, KASLR slide (0x[0-9a-f]+), in ([0-9.]+)s; "
               r"entry values: (\d+) locations, from %s\.gtp-ev$"
               % (re.escape(path), re.escape(path)))
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
    count where the DWARF says it is there."""
    path = vmlinux()
    data = "/run/gtp-vmlinux-%d" % os.getpid()
    with open(data, "wb") as f:
        f.write(os.urandom(20000))
    sizes = [4093, 100, 4093, 4092, 4094, 4093, 8192, 4093]
    n = sizes.count(4093)
    try:
        out = session("""gtp-load-vmlinux %s
target remote /proc/gtp
trace vfs_read if count == 4093
actions
collect count
collect file->f_path.dentry->d_iname
end
info tracepoints
tstart
python
import os
fd = os.open(%r, os.O_RDONLY)
for s in %r:
    os.lseek(fd, 0, 0)
    os.read(fd, s)
os.close(fd)
end
tstop
tstatus
python
n = 0
while True:
    gdb.execute("tfind %%d" %% n, to_string=True)
    if int(gdb.parse_and_eval("$trace_frame")) != n:
        break
    c = int(gdb.parse_and_eval("count"))
    name = gdb.parse_and_eval("file->f_path.dentry->d_iname").string().rstrip("\\0")
    print("frame %%d count=%%d name=%%s" %% (n, c, name))
    n += 1
print("frames=%%d" %% n)
end
""" % (path, data, sizes))
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


@leaves_target_clean
def test_with_kernel_symbols():
    """With gtp-kernel-symbols' BTF file: loaded before, it is made again
    without the kernel's functions; gtp-connect loads the -dbg vmlinux
    itself (its default path pointed at ours) and BTF for the modules
    without .ko DWARF.  Either way `trace vfs_read` has one location."""
    path = vmlinux()
    out = session("""gtp-kernel-symbols
gtp-load-vmlinux %s
gtp-kernel-symbols info
gtp-kernel-symbols info vfs_read
target remote /proc/gtp
trace vfs_read
""" % path)
    expect(out, r"^kernel functions left to vmlinux's DWARF: %s$" % re.escape(path))
    expect(out, r"^vfs_read: 0x%x in kernel, described by vmlinux's DWARF" % ksym("vfs_read"))
    expect(out, r"^Tracepoint 1 at 0x[0-9a-f]+: file fs/read_write\.c, line \d+\.$")
    out = session("""python
import gtpgdb.vmlinux
gtpgdb.vmlinux.DEFAULTS = (%r,)
end
gtp-connect
gtp-kernel-symbols info
trace vfs_read
""" % os.path.join(os.path.dirname(path), "vmlinux-%s"))
    expect(out, r"^gtp: kernel DWARF from %s" % re.escape(path))
    expect(out, r"^gtp: connected to /proc/gtp$")
    expect(out, r"^kernel functions left to vmlinux's DWARF: %s$" % re.escape(path))
    expect(out, r"^Tracepoint 1 at 0x[0-9a-f]+: file fs/read_write\.c, line \d+\.$")


@leaves_target_clean
def test_refusals():
    """Not the running kernel's vmlinux, or no vmlinux at all: a gdb error
    that says why, and nothing loaded."""
    # every kernel: these need no vmlinux of its own
    notelf = "/tmp/gtp-notelf"
    with open(notelf, "w") as f:
        f.write("not an ELF file\n")
    with open("/sys/kernel/notes", "rb") as f:
        assert f.read(), "no /sys/kernel/notes"
    # gtp_test.ko: ELF with DWARF and a build id, not the kernel's;
    # /bin/true: ELF without DWARF.  A command file stops at its first
    # error: each refusal is caught.
    try:
        out = session("""python
for arg in ("/nonexistent/vmlinux", %r, "/bin/true", %r, "a b"):
    try:
        gdb.execute("gtp-load-vmlinux " + arg)
    except gdb.error as e:
        print(e)
end
info address vfs_read
""" % (notelf, TEST_KO))
    finally:
        os.unlink(notelf)
    expect(out, r"^gtp-load-vmlinux: cannot read /nonexistent/vmlinux: No such file")
    expect(out, r"^gtp-load-vmlinux: %s is not an ELF file$" % notelf)
    expect(out, r"^gtp-load-vmlinux: /bin/true has no DWARF \(no \.debug_info\)")
    expect(out, r"^gtp-load-vmlinux: %s is not the running kernel's vmlinux: its build id "
           r"is [0-9a-f]+, the kernel's \(/sys/kernel/notes\) [0-9a-f]+$" % re.escape(TEST_KO))
    expect(out, r"^usage: gtp-load-vmlinux \[PATH\]")
    expect(out, r'^No symbol ("vfs_read" in current context|table is loaded)\.')


def test_refused_when_not_root():
    """Not root: kallsyms shows zeros, the slide is unknown, nothing loaded."""
    path = vmlinux()
    out = sh("setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent "
             "%s -nx -q -batch -ex 'source %s' -ex 'gtp-load-vmlinux %s' "
             "-ex 'info address vfs_read' 2>&1 || true"
             % (os.environ.get("GTP_GDB", "gdb"), GTP_PY, path))
    expect(out, r"gtp-load-vmlinux: /proc/kallsyms shows every address as 0: run gdb "
           r"as root")
    expect(out, r'^No symbol ("vfs_read" in current context|table is loaded)\.')


@leaves_target_clean
def test_connect_with_another_vmlinux_uses_btf():
    """gtp-connect with another build at the default path: said, then BTF."""
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        raise Skip("the kernel has no BTF (/sys/kernel/btf/vmlinux) to fall back on")
    other = "/tmp/gtp-other-vmlinux-" + os.uname().release
    os.symlink(TEST_KO, other)
    try:
        out = session("""python
import gtpgdb.vmlinux
gtpgdb.vmlinux.DEFAULTS = ("/tmp/gtp-other-vmlinux-%s",)
end
gtp-connect
trace vfs_read
""")
    finally:
        os.unlink(other)
    expect(out, r"^gtp: warning: gtp-load-vmlinux: %s is not the running kernel's vmlinux: "
           r".*; the kernel's symbols come from BTF$" % re.escape(other))
    expect(out, r"^gtp: connected to /proc/gtp$")
    expect(out, r"^Tracepoint 1 at 0x%x$" % ksym("vfs_read"))
