# SPDX-License-Identifier: GPL-2.0
"""gtpctl/kallsyms.py - /proc/kallsyms (or a System.map: the same lines
without the module column) parsed in one place, and the GNU build id of
ELF notes.

Two users: gtp-ctl names addresses as symbol+offset (ksyms.py), gdb's
gtp-kernel-symbols lists functions (gtpgdb/ksyms.py).  Standard library
only, no gdb.
"""
import struct
from typing import Iterable, List, NamedTuple, Optional

KALLSYMS = "/proc/kallsyms"


class Symbol(NamedTuple):
    addr: int
    type: str               # nm's letter: t/T text, d/D data, ...
    name: str
    module: Optional[str]   # None for the kernel itself


class AddressesHidden(Exception):
    """Every address reads 0: not root, or kernel.kptr_restrict 2."""


def parse(lines: Iterable[str]) -> List[Symbol]:
    """The symbols of kallsyms lines, in listing order (one build lists
    its symbols in the same order on every boot)."""
    out = []
    for line in lines:
        parts = line.split()
        if len(parts) < 3:
            continue
        mod = parts[3][1:-1] if len(parts) > 3 and parts[3].startswith("[") else None
        out.append(Symbol(int(parts[0], 16), parts[1], parts[2], mod))
    return out


def read(path: str = KALLSYMS) -> List[Symbol]:
    """parse() of the file at path.  OSError when it cannot be read,
    AddressesHidden when it shows every address as 0."""
    with open(path) as f:
        syms = parse(f)
    if not any(s.addr for s in syms):
        raise AddressesHidden(path)
    return syms


def notes_build_id(data: bytes) -> Optional[str]:
    """The GNU build id (hex) in a run of ELF notes (/sys/kernel/notes, a
    module's .note.gnu.build-id, a vmlinux's .notes section), or None."""
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


def read_build_id(path: str) -> Optional[str]:
    """notes_build_id() of a notes file, None when it cannot be read."""
    try:
        with open(path, "rb") as f:
            return notes_build_id(f.read())
    except OSError:
        return None
