# SPDX-License-Identifier: GPL-2.0
"""The running kernel's functions from /proc/kallsyms, and what identifies
a boot (the cache key of gtp-kernel-symbols).

No gdb here: the host's tests run it on a System.map (same format, with
no module column).
"""
import bisect
import hashlib
import os
import struct

TEXT_TYPES = frozenset("tT")


class KsymsError(Exception):
    pass


def read(path="/proc/kallsyms"):
    """{owner: [(address, type, name)] sorted by address}; owner is None
    for the kernel, the module's name otherwise.  Refuses a kallsyms whose
    addresses are hidden (not root, or kptr_restrict)."""
    owners = {}
    nonzero = False
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 3:
                continue
            addr = int(parts[0], 16)
            if addr:
                nonzero = True
            owner = parts[3][1:-1] if len(parts) > 3 else None
            owners.setdefault(owner, []).append((addr, parts[1], parts[2]))
    if not nonzero:
        raise KsymsError("%s shows every address as 0: run gdb as root "
                         "(and kernel.kptr_restrict < 2)" % path)
    for syms in owners.values():
        syms.sort()
    return owners


def functions(syms):
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


def build_id(path="/sys/kernel/notes"):
    """The kernel's GNU build id (hex) from its ELF notes, or None."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    return notes_build_id(data)


def notes_build_id(data):
    """The GNU build id (hex) in a run of ELF notes (/sys/kernel/notes, a
    vmlinux's .notes section), or None."""
    o = 0
    while o + 12 <= len(data):
        namesz, descsz, ntype = struct.unpack_from("<III", data, o)
        o += 12
        name = data[o:o + namesz]
        o += (namesz + 3) & ~3
        desc = data[o:o + descsz]
        o += (descsz + 3) & ~3
        if ntype == 3 and name.rstrip(b"\0") == b"GNU":
            return desc.hex()
    return None


def boot_key(extra=""):
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
