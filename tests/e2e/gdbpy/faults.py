"""Cause kernel-mode reads and page faults from a gdb session (sourced by
e2e sessions): gdb's reads of unmapped kernel addresses, and the kernel
filling fresh user pages."""
import mmap

import gdb


def read_unmapped(*addrs: int) -> None:
    """x/b each address, printing gdb's error for one it cannot read."""
    for a in addrs:
        try:
            gdb.execute("x/b 0x%x" % a)
        except gdb.error as e:
            print(e)


def fill_from_zero(size: int) -> None:
    """Read /dev/zero into size bytes of fresh anonymous memory: the kernel
    writes user pages that are not there yet (kernel-mode page faults);
    print "filled N"."""
    m = mmap.mmap(-1, size)
    with open("/dev/zero", "rb") as f:
        print("filled %d" % f.readinto(m))
