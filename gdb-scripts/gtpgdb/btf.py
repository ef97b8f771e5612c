# SPDX-License-Identifier: GPL-2.0
"""BTF, the kernel's compact type format (Documentation/bpf/btf.rst).

Pure Python, no gdb: the host's unit tests import it too.  A BTF blob is a
header, a type section and a string section.  Each type is three u32s
(name_off, info, size-or-type) followed by a kind-specific tail; type ids
are implicit (1, 2, ... in order; 0 is void).  A module's BTF
(/sys/kernel/btf/MOD) is *split* BTF: its ids continue after vmlinux's last
id and its name offsets after vmlinux's string section, so it is parsed
with the vmlinux Btf as base.

The whole type section is read as one array of u32 (every record is a
multiple of 4 bytes): indexing it is far cheaper than struct.unpack per
field, which matters for the ~100k types of a distribution kernel.
"""
from __future__ import annotations

import array
import struct
import sys
from typing import Optional

MAGIC = 0xeB9F

INT, PTR, ARRAY, STRUCT, UNION, ENUM, FWD, TYPEDEF, VOLATILE, CONST, \
    RESTRICT, FUNC, FUNC_PROTO, VAR, DATASEC, FLOAT, DECL_TAG, TYPE_TAG, \
    ENUM64 = range(1, 20)

KIND_NAMES = {INT: "INT", PTR: "PTR", ARRAY: "ARRAY", STRUCT: "STRUCT",
              UNION: "UNION", ENUM: "ENUM", FWD: "FWD", TYPEDEF: "TYPEDEF",
              VOLATILE: "VOLATILE", CONST: "CONST", RESTRICT: "RESTRICT",
              FUNC: "FUNC", FUNC_PROTO: "FUNC_PROTO", VAR: "VAR",
              DATASEC: "DATASEC", FLOAT: "FLOAT", DECL_TAG: "DECL_TAG",
              TYPE_TAG: "TYPE_TAG", ENUM64: "ENUM64"}

# u32 words after the 3-word header: fixed part, and per vlen entry
_TAIL = {INT: (1, 0), PTR: (0, 0), ARRAY: (3, 0), STRUCT: (0, 3),
         UNION: (0, 3), ENUM: (0, 2), FWD: (0, 0), TYPEDEF: (0, 0),
         VOLATILE: (0, 0), CONST: (0, 0), RESTRICT: (0, 0), FUNC: (0, 0),
         FUNC_PROTO: (0, 2), VAR: (1, 0), DATASEC: (0, 3), FLOAT: (0, 0),
         DECL_TAG: (1, 0), TYPE_TAG: (0, 0), ENUM64: (0, 3)}

# INT encoding bits
INT_SIGNED, INT_CHAR, INT_BOOL = 1, 2, 4


class BtfError(Exception):
    pass


class Btf:
    """One BTF blob (base or split).

    Ids are global: for split BTF, ids start at base.count.  For id i,
    kind[i], vlen[i], kflag[i], name_off[i], size_type[i] (size or
    referenced type) and pos[i] (word index of its tail in .words) are
    lists indexed by i - first.
    """

    def __init__(self, data: bytes, base: Optional[Btf] = None, name: str = "vmlinux") -> None:
        self.name = name
        self.base = base
        if len(data) < 24:
            raise BtfError("%s: BTF too short" % name)
        magic, ver, flags, hdr_len = struct.unpack_from("<HBBI", data, 0)
        if magic != MAGIC:
            raise BtfError("%s: not BTF (magic 0x%x; big-endian BTF is not "
                           "supported)" % (name, magic))
        type_off, type_len, str_off, str_len = struct.unpack_from("<IIII", data, 8)
        t0 = hdr_len + type_off
        s0 = hdr_len + str_off
        if t0 + type_len > len(data) or s0 + str_len > len(data) or type_len % 4:
            raise BtfError("%s: BTF sections out of bounds" % name)
        self.strings = bytes(data[s0:s0 + str_len])
        self.str_base = base.str_total if base else 0
        self.str_total = self.str_base + str_len
        self.first = base.count if base else 1
        words = array.array("I")
        words.frombytes(bytes(data[t0:t0 + type_len]))
        if sys.byteorder != "little":
            words.byteswap()
        self.words = words
        self._parse()

    def _parse(self):
        w = self.words
        n = len(w)
        kind, vlen, kflag, name_off, st, pos = [], [], [], [], [], []
        tail = _TAIL
        i = 0
        while i < n:
            info = w[i + 1]
            k = (info >> 24) & 0x1f
            v = info & 0xffff
            try:
                fixed, per = tail[k]
            except KeyError:
                raise BtfError("%s: unknown BTF kind %d at type id %d" %
                               (self.name, k, self.first + len(kind)))
            kind.append(k)
            vlen.append(v)
            kflag.append(info >> 31)
            name_off.append(w[i])
            st.append(w[i + 2])
            pos.append(i + 3)
            i += 3 + fixed + per * v
        if i != n:
            raise BtfError("%s: truncated type section" % self.name)
        self.kind, self.vlen, self.kflag = kind, vlen, kflag
        self.name_off, self.size_type, self.pos = name_off, st, pos
        self.count = self.first + len(kind)

    # strings ---------------------------------------------------------
    def str_at(self, off: int) -> str:
        """The NUL-terminated string at a (global) name offset."""
        if off < self.str_base:
            return self.base.str_at(off)
        s = self.strings
        o = off - self.str_base
        return s[o:s.index(b"\0", o)].decode(errors="replace")

    def owner(self, tid: int) -> Btf:
        """The Btf (this one or a base) that defines type id tid."""
        b = self
        while tid < b.first:
            b = b.base
        return b

    def type_name(self, tid: int) -> str:
        b = self.owner(tid)
        return b.str_at(b.name_off[tid - b.first]) if tid else "void"

    def type_str(self, tid: int, inner: str = "") -> str:
        """C spelling of a type, for messages ("struct file *", "size_t")."""
        if not tid:
            return ("void " + inner).strip()
        k = self.kind_of(tid)
        n = self.type_name(tid)
        if k == PTR:
            return self.type_str(self.type_ref(tid), "*" + inner)
        if k in (CONST, VOLATILE, RESTRICT):
            q = {CONST: "const", VOLATILE: "volatile", RESTRICT: "restrict"}[k]
            return q + " " + self.type_str(self.type_ref(tid), inner)
        if k == TYPE_TAG:
            return self.type_str(self.type_ref(tid), inner)
        if k == ARRAY:
            b = self.owner(tid)
            p = b.pos[tid - b.first]
            return self.type_str(b.words[p], "%s[%d]" % (inner, b.words[p + 2]))
        if k == FUNC_PROTO:
            args = ", ".join(self.type_str(t) if t else "..."
                             for _, t in self.params(tid))
            if inner.startswith("*"):
                inner = "(%s)" % inner
            return self.type_str(self.type_ref(tid), "%s(%s)" % (inner, args))
        tag = {STRUCT: "struct ", UNION: "union ", ENUM: "enum ", ENUM64: "enum ",
               FWD: "union " if self.owner(tid).kflag[tid - self.owner(tid).first]
               else "struct "}.get(k, "")
        return ("%s%s %s" % (tag, n or "<anonymous>", inner)).strip()

    def kind_of(self, tid: int) -> int:
        b = self.owner(tid)
        return b.kind[tid - b.first]

    def type_ref(self, tid: int) -> int:
        """size_type of tid: a size for INT/STRUCT/..., else a type id."""
        b = self.owner(tid)
        return b.size_type[tid - b.first]

    # lookups used by tests and by the calling-convention code ------------
    def ids(self) -> range:
        return range(self.first, self.count)

    def find(self, kind: int, name: str) -> list[int]:
        """Ids of this blob's types of kind named name."""
        return [i for i in self.ids() if self.kind[i - self.first] == kind
                and self.str_at(self.name_off[i - self.first]) == name]

    def params(self, proto: int) -> list[tuple[str, int]]:
        """[(name, type id)] of a FUNC_PROTO; a trailing (“”, 0) is `...`."""
        b = self.owner(proto)
        j = proto - b.first
        p, w = b.pos[j], b.words
        return [(b.str_at(w[p + 2 * k]), w[p + 2 * k + 1]) for k in range(b.vlen[j])]

    def members(self, tid: int) -> list[tuple[str, int, int, int]]:
        """[(name, type id, bit offset, bitfield size or 0)] of a STRUCT/UNION."""
        b = self.owner(tid)
        j = tid - b.first
        p, w = b.pos[j], b.words
        out = []
        for k in range(b.vlen[j]):
            off = w[p + 3 * k + 2]
            bits = 0
            if b.kflag[j]:
                bits, off = off >> 24, off & 0xffffff
            out.append((b.str_at(w[p + 3 * k]), w[p + 3 * k + 1], off, bits))
        return out

    def strip(self, tid: int) -> int:
        """tid with typedefs, const, volatile, restrict and type tags peeled."""
        while tid:
            k = self.kind_of(tid)
            if k not in (TYPEDEF, CONST, VOLATILE, RESTRICT, TYPE_TAG):
                return tid
            tid = self.type_ref(tid)
        return 0

    def size_of(self, tid: int) -> Optional[int]:
        """Byte size of a type (None for void, functions, unsized)."""
        tid = self.strip(tid)
        if not tid:
            return None
        k = self.kind_of(tid)
        if k in (INT, STRUCT, UNION, ENUM, ENUM64, FLOAT):
            return self.type_ref(tid)
        if k == PTR:
            return 8
        if k == ARRAY:
            b = self.owner(tid)
            p = b.pos[tid - b.first]
            n = b.words[p + 2]
            es = self.size_of(b.words[p])
            return None if es is None else es * n
        return None
