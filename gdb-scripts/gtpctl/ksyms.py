# SPDX-License-Identifier: GPL-2.0
"""gtpctl/ksyms.py - kernel addresses as symbol+offset, and back.

A saved session must outlive the boot it was recorded on: KASLR moves the
kernel (and the module area) on every boot, and a module lands wherever
the allocator puts it on every load.  So every kernel address is written
as a name /proc/kallsyms gives on any boot of the same build:

    vfs_read+0x0                      a vmlinux symbol
    gtp_test:gtp_test_calls+0x0       a symbol of module gtp_test
    name#2+0x10                       the 2nd symbol of that name (static
                                      functions share names; kallsyms lists
                                      one build's symbols in the same order)

An address is only named when it lies in the kernel image or a module,
i.e. at most MAX_GAP after some symbol: the
direct map, vmalloc and per-CPU addresses lie below the kernel image and
change with every boot: they have no name, so the caller refuses them (or keeps them for the same boot).
"""
import bisect
import os
import re
from typing import Dict, Iterable, List, Optional, Set, Tuple

from . import kallsyms
from .trace import TraceError

KALLSYMS = kallsyms.KALLSYMS
KERNEL_LOW = 0xffff800000000000     # x86-64: every kernel address is above
MAX_GAP = 16 << 20                  # farther from a symbol: not its object
_TOKEN = re.compile(r"^(?:([A-Za-z0-9_.-]+):)?([^\s:#+]+)(?:#(\d+))?\+0x([0-9a-f]+)$")


class Kallsyms:
    def __init__(self, path: str = KALLSYMS) -> None:
        self.path = path
        # (module, name) -> [addr...] in listing order; module "" is the kernel
        self.by_name: Dict[Tuple[str, str], List[int]] = {}
        rows = []                   # (addr, module, name, ordinal)
        try:
            syms = kallsyms.read(path)
        except OSError as e:
            raise TraceError("cannot read %s: %s" % (path, e.strerror or e))
        except kallsyms.AddressesHidden:
            raise TraceError("%s shows no addresses (needs root, and kernel.kptr_restrict "
                             "below 2)" % path)
        for sym in syms:
            if sym.addr < KERNEL_LOW:
                continue            # per-CPU offsets and the like
            mod = sym.module or ""
            lst = self.by_name.setdefault((mod, sym.name), [])
            lst.append(sym.addr)
            rows.append((sym.addr, mod, sym.name, len(lst)))
        rows.sort(key=lambda r: r[0])
        self.rows = rows
        self.addrs = [r[0] for r in rows]

    def name(self, addr: int) -> Optional[str]:
        """addr as 'mod:name#k+0xoff', or None when no symbol covers it."""
        i = bisect.bisect_right(self.addrs, addr) - 1
        if i < 0:
            return None
        # the first listed of the symbols at that address: same on every boot
        a = self.addrs[i]
        while i > 0 and self.addrs[i - 1] == a:
            i -= 1
        off = addr - a
        if off > MAX_GAP:
            return None
        _, mod, name, k = self.rows[i]
        if len(self.by_name[(mod, name)]) > 1:
            name = "%s#%d" % (name, k)
        return "%s%s+0x%x" % (mod + ":" if mod else "", name, off)

    def resolve(self, token: str) -> int:
        """The address of a name() token on this boot; TraceError if none."""
        m = _TOKEN.match(token)
        if not m:
            raise TraceError("malformed symbol reference %r" % token)
        mod, name, k, off = m.group(1) or "", m.group(2), int(m.group(3) or 1), int(m.group(4), 16)
        lst = self.by_name.get((mod, name))
        if not lst:
            if mod and not any(key[0] == mod for key in self.by_name):
                raise TraceError("module %s is not loaded (needed for %s)" % (mod, token))
            raise TraceError("symbol %s%s is not in %s" % (mod + ":" if mod else "", name,
                                                           self.path))
        if k > len(lst):
            raise TraceError("%s: this kernel has only %d symbols named %s" % (token, len(lst), name))
        return lst[k - 1] + off


def modules_of(tokens: Iterable[str]) -> Set[str]:
    """The module names a set of tokens refers to."""
    out = set()
    for t in tokens:
        m = _TOKEN.match(t)
        if m and m.group(1):
            out.add(m.group(1))
    return out


def kernel_build_id() -> Optional[str]:
    """The running kernel's GNU build id (hex), or None."""
    return kallsyms.read_build_id("/sys/kernel/notes")


def module_build_id(mod: str) -> Optional[str]:
    """None when the module is not loaded; '-' when it has no build id."""
    d = "/sys/module/%s" % mod
    if not os.path.isdir(d):
        return None
    return kallsyms.read_build_id(os.path.join(d, "notes", ".note.gnu.build-id")) or "-"


def boot_id() -> str:
    try:
        with open("/proc/sys/kernel/random/boot_id") as f:
            return f.read().strip()
    except OSError:
        return "-"
