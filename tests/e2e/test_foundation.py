"""Foundation: stock gdb connects to /proc/gtp and reads the live kernel.

Runs inside the guest (tests/vm/run) with gtptrace.ko loaded.  The plain
gdb sessions are cases, in cases/test_foundation.case.
"""
import os
import re
import stat

from gtplib import (GDB_HEAD, TARGET, Skip, gdb, gdb_script, expect, ksym,
                    leaves_target_clean)


def test_proc_file_mode():
    """Python: no gdb, the file's mode and owner (os.stat)."""
    st = os.stat("/proc/gtp")
    assert stat.S_IMODE(st.st_mode) == 0o600, oct(st.st_mode)
    assert st.st_uid == 0


def test_read_linux_banner():
    """Python: the expected string is the guest's /proc/version."""
    addr = ksym("linux_banner")
    out = gdb(TARGET, "x/s 0x%x" % addr)
    m = expect(out, r'0x%x[^:]*:\s+"(Linux version [^"]*)' % addr)
    with open("/proc/version") as f:
        version = f.read()
    # The string gdb read is the kernel's own banner.
    assert version.startswith(m.group(1)[:40]), (m.group(1), version)


def _vmalloc_areas(pattern):
    """[(start, line)] of the /proc/vmallocinfo areas whose line matches
    (it prints them with %pK: real ones need kptr_restrict 1 and root)."""
    with open("/proc/sys/kernel/kptr_restrict") as f:
        saved = f.read().strip()
    try:
        with open("/proc/sys/kernel/kptr_restrict", "w") as f:
            f.write("1")
        with open("/proc/vmallocinfo") as f:
            return [(int(l.split("-")[0], 16), l) for l in f if re.search(pattern, l)]
    finally:
        with open("/proc/sys/kernel/kptr_restrict", "w") as f:
            f.write(saved)


# /proc/iomem's top-level regions that are devices, not memory
DEVICE = re.compile(r"PCI Bus|HPET|IOAPIC|Local APIC")


def _device_phys(phys):
    with open("/proc/iomem") as f:
        for line in f:
            if line[:1].isspace():
                continue
            rng, name = line.rstrip("\n").split(" : ", 1)
            lo, hi = (int(x, 16) for x in rng.split("-"))
            if lo <= phys <= hi:
                return bool(DEVICE.search(name))
    return False


@leaves_target_clean
def test_device_memory_refused():
    """Python: the addresses come from /proc/vmallocinfo and /proc/iomem.

    ioremap()'d device registers (the HPET, an IOAPIC, PCI BARs: their
    physical range is a device in /proc/iomem) are never read, neither by
    gdb's `m` nor by a condition on the probe path: a read there can have
    side effects, and /proc/kcore skips them too.  vmalloc'd RAM reads as
    before."""
    io = [a for a, l in _vmalloc_areas(r"\bioremap\b")
          if _device_phys(int(re.search(r"phys=(0x[0-9a-f]+)", l).group(1), 16))][:4]
    if not io:
        raise Skip("no ioremap() mapping of a device in this guest")
    ram = [a for a, _ in _vmalloc_areas(r"gtp_kprobe_init.* pages=.* vmalloc")]
    assert ram, "gtp's scratch area is not in /proc/vmallocinfo"
    out = gdb(TARGET, *["x/4xb 0x%x" % a for a in io + ram[:1]])
    for a in io:
        expect(out, r"Cannot access memory at address 0x%x\b" % a)
    expect(out, r"^0x%x:\s+0x[0-9a-f]{2}\s" % ram[0])
    out = gdb_script(GDB_HEAD + """trace gtp_test_function if *(unsigned char *)0x%x == 0
tstart
shell echo 3 > /proc/gtp_test
tstop
tstatus
""" % io[0])
    expect(out, r"Collected 0 trace frames")
    expect(out, r"tracepoint 1 at 0x[0-9a-f]+: 3 evaluation error\(s\), "
           r"last: unreadable memory")




def test_read_blocks_and_poll_is_honest():
    """Python: speaks the protocol on the file itself (select, nonblocking
    reads, a bad checksum)."""
    # nothing to read before a packet; a reply after it
    import select
    fd = os.open("/proc/gtp", os.O_RDWR | os.O_NONBLOCK)
    try:
        r, w, _ = select.select([fd], [fd], [], 0)
        assert r == [] and w == [fd], (r, w)
        try:
            os.read(fd, 100)
            raise AssertionError("read succeeded on an empty queue")
        except BlockingIOError:
            pass
        os.write(fd, b"$?#3f")
        r, _, _ = select.select([fd], [], [], 5)
        assert r == [fd]
        data = b""
        while not data.endswith(b"#b8"):
            data += os.read(fd, 100)
        assert data == b"+$S05#b8", data
        # A bad checksum is refused with '-' and not acted on.
        os.write(fd, b"$?#00")
        assert os.read(fd, 100) == b"-"
    finally:
        os.close(fd)


def test_not_root_refused():
    """Python: opens the file from a child that dropped root (fork, setuid)."""
    # Without CAP_SYS_ADMIN, open fails even though we own nothing else.
    pid = os.fork()
    if pid == 0:
        code = 3
        try:
            os.setgid(65534)
            os.setuid(65534)
            try:
                os.open("/proc/gtp", os.O_RDWR)
                code = 1
            except PermissionError:
                code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0, status
