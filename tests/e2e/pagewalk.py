"""The running kernel's page attributes, read the way a debugger would: walk
init_mm's x86-64 page tables through /proc/kcore (ELF: kernel image and
direct map of RAM), from the PGD at init_top_pgt in /proc/kallsyms.

Independent of the module under test: the W^X test asks the hardware's
view (the page tables), not gtp, whether an image is writable or
executable.
"""
import struct

from gtplib import ksym

PRESENT, RW, PSE = 1 << 0, 1 << 1, 1 << 7
NX = 1 << 63
PHYS = 0x000ffffffffff000


class Kcore:
    def __init__(self):
        self.f = open("/proc/kcore", "rb")
        hdr = self.f.read(64)
        phoff, = struct.unpack_from("<Q", hdr, 0x20)
        phentsize, phnum = struct.unpack_from("<HH", hdr, 0x36)
        self.f.seek(phoff)
        ph = self.f.read(phentsize * phnum)
        self.loads = []
        for i in range(phnum):
            p_type, _, off, vaddr, _, filesz, _, _ = struct.unpack_from(
                "<IIQQQQQQ", ph, i * phentsize)
            if p_type == 1:
                self.loads.append((vaddr, filesz, off))

    def u64(self, va):
        for vaddr, size, off in self.loads:
            if vaddr <= va and va + 8 <= vaddr + size:
                self.f.seek(off + va - vaddr)
                return struct.unpack("<Q", self.f.read(8))[0]
        raise AssertionError("0x%x is not in /proc/kcore" % va)

    def close(self):
        self.f.close()


class PageTables:
    """Effective attributes of kernel virtual addresses (init_mm)."""

    def __init__(self):
        self.kc = Kcore()
        self.pgd = ksym("init_top_pgt")
        try:
            self.direct = self.kc.u64(ksym("page_offset_base"))
        except AssertionError:
            self.direct = 0xffff888000000000      # no KASLR of the direct map
        with open("/proc/cpuinfo") as f:
            la57 = " la57" in f.read()
        self.shifts = (48, 39, 30, 21, 12) if la57 else (39, 30, 21, 12)

    def attrs(self, va):
        """(writable, executable, physical address) of va, or None."""
        table, rw, nx = self.pgd, True, False
        for shift in self.shifts:
            e = self.kc.u64(table + 8 * ((va >> shift) & 511))
            if not e & PRESENT:
                return None
            rw, nx = rw and bool(e & RW), nx or bool(e & NX)
            huge = shift in (21, 30) and e & PSE
            if shift == 12 or huge:
                mask = (1 << shift) - 1
                return rw, not nx, (e & PHYS & ~mask) | (va & mask)
            table = self.direct + (e & PHYS)
        raise AssertionError("unreachable")

    def direct_alias(self, phys):
        return self.direct + phys

    def close(self):
        self.kc.close()
