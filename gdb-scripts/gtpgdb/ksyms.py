# SPDX-License-Identifier: GPL-2.0
"""The running kernel's functions from /proc/kallsyms, and what identifies
a boot (the cache key of gtp-kernel-symbols).

No gdb here: the host's tests run it on a System.map (same format, with
no module column).
"""
import bisect
import hashlib
import os
from typing import Dict, List, Optional, Tuple

from gtpctl import kallsyms

TEXT_TYPES = frozenset("tT")

# (address, type, name)
Sym = Tuple[int, str, str]


class KsymsError(Exception):
    pass


def read(path: str = kallsyms.KALLSYMS) -> Dict[Optional[str], List[Sym]]:
    """{owner: [(address, type, name)] sorted by address}; owner is None
    for the kernel, the module's name otherwise.  Refuses a kallsyms whose
    addresses are hidden (not root, or kptr_restrict)."""
    try:
        syms = kallsyms.read(path)
    except kallsyms.AddressesHidden:
        raise KsymsError("%s shows every address as 0: run gdb as root "
                         "(and kernel.kptr_restrict < 2)" % path)
    owners: Dict[Optional[str], List[Sym]] = {}
    for s in syms:
        owners.setdefault(s.module, []).append((s.addr, s.type, s.name))
    for lst in owners.values():
        lst.sort()
    return owners


def functions(syms: List[Sym]) -> List[Tuple[str, int, int]]:
    """[(name, address, end)] of an owner's text symbols; end is the next
    symbol's address (any type: the kernel's own bound for a function, as
    in `kallsyms_lookup_size_offset()`), or one page for the last."""
    addrs = sorted({a for a, _, _ in syms})
    out = []
    for a, t, name in syms:
        if t not in TEXT_TYPES or not a:
            continue
        i = bisect.bisect_right(addrs, a)
        end = addrs[i] if i < len(addrs) else a + 4096
        out.append((name, a, end))
    return out


def build_id(path: str = "/sys/kernel/notes") -> Optional[str]:
    """The kernel's GNU build id (hex) from its ELF notes, or None."""
    return kallsyms.read_build_id(path)


notes_build_id = kallsyms.notes_build_id


def boot_key(extra: str = "") -> str:
    """A key that changes when the layout of kernel text can change: the
    kernel build, the boot (KASLR), the set of modules and where they sit,
    and anything the caller adds (its own version, modules it skips)."""
    h = hashlib.sha1()
    try:
        with open("/proc/sys/kernel/random/boot_id", "rb") as f:
            h.update(f.read())
        with open("/proc/modules") as f:
            # name and address only: the use count changes all the time
            for line in f:
                parts = line.split()
                h.update(("%s %s\n" % (parts[0], parts[-1])).encode())
    except OSError:
        h.update(b"-")
    h.update(extra.encode())
    return "%s-%s" % (build_id() or os.uname().release, h.hexdigest()[:16])
