"""The guest kernel's BTF, read by a parser of the tests' own (never by
gdb-scripts/gtpgdb/btf.py, which the tests check), and the gdb session
that takes the kernel's names and types from it (gtp-connect: no vmlinux,
no DWARF for the kernel's code)."""
import os
import struct
from typing import Dict, List, Optional, Set, Tuple

import gtplib
from gtplib import GTP_HEAD, SCRIPT_BUGS as BAD, Skip

# gtp.py sourced (a session that connects itself), and HEAD: connected
# with BTF's names and types (a case's HEAD gtp and HEAD connect)
HEAD = GTP_HEAD + "gtp-connect\n"


class Btf:
    """Just enough BTF to find a named struct's size: type records are
    walked with the kinds' sizes from Documentation/bpf/btf.rst."""
    # kind -> (extra bytes, bytes per vlen entry)
    TAIL = {1: (4, 0), 2: (0, 0), 3: (12, 0), 4: (0, 12), 5: (0, 12), 6: (0, 8),
            7: (0, 0), 8: (0, 0), 9: (0, 0), 10: (0, 0), 11: (0, 0), 12: (0, 0),
            13: (0, 8), 14: (4, 0), 15: (0, 12), 16: (0, 0), 17: (4, 0),
            18: (0, 0), 19: (0, 12)}

    def __init__(self, path: str, base: Optional["Btf"] = None) -> None:
        with open(path, "rb") as f:
            d = f.read()
        hdr_len, toff, tlen, soff, slen = struct.unpack_from("<I4I", d, 4)
        self.strs = d[hdr_len + soff:hdr_len + soff + slen]
        self.base = base
        self.str0 = len(base.strs) if base else 0
        self.types: List[Tuple[int, str, int]] = []     # (kind, name, size_or_type)
        self.fields: Dict[str, List[str]] = {}          # struct name -> its member names
        o, end = hdr_len + toff, hdr_len + toff + tlen
        while o < end:
            name, info, st = struct.unpack_from("<III", d, o)
            kind, vlen = (info >> 24) & 0x1f, info & 0xffff
            fixed, per = self.TAIL[kind]
            self.types.append((kind, self.string(name), st))
            if kind == 4 and name:
                self.fields[self.string(name)] = [
                    self.string(struct.unpack_from("<I", d, o + 12 + 12 * i)[0])
                    for i in range(vlen)]
            o += 12 + fixed + per * vlen

    def string(self, off: int) -> str:
        if off < self.str0:
            assert self.base is not None
            return self.base.string(off)
        off -= self.str0
        return self.strs[off:self.strs.index(b"\0", off)].decode()

    def structs(self) -> Dict[str, int]:
        """{name: size} of the named structs."""
        return {n: st for k, n, st in self.types if k == 4 and n}

    def funcs(self) -> Set[str]:
        return {n for k, n, _ in self.types if k == 12}


_vmlinux: Optional[Btf] = None


def vmlinux_btf() -> Btf:
    """This kernel's BTF; Skip on a kernel built without (the debug kernel
    of tests/vm/debug-kernel)."""
    global _vmlinux
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        raise Skip("this kernel has no BTF (CONFIG_DEBUG_INFO_BTF)")
    if _vmlinux is None:
        _vmlinux = Btf("/sys/kernel/btf/vmlinux")
    return _vmlinux


def session(body: str, timeout: int = 400) -> str:
    """gdb's output for body run after HEAD on a reset target; fails on BAD."""
    return gtplib.session(HEAD, body, timeout=timeout)
