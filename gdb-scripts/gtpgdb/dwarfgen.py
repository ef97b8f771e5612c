# SPDX-License-Identifier: GPL-2.0
"""DWARF 4 translated from BTF, for a gdb that has no kernel debug info.

gdb's Python API cannot create struct types, but gdb reads DWARF: so the
BTF of vmlinux and of the loaded modules becomes one compile unit of
.debug_info, and every kallsyms function that BTF describes becomes a
DW_TAG_subprogram at its live address whose formal parameters live where
the x86-64 SysV calling convention puts them *at the function's entry*
(rdi, rsi, rdx, rcx, r8, r9, then the stack).  That is exactly where
`trace FUNC` probes, so `trace vfs_read if count == 4093` compiles to
bytecode reading $rdx.  Inside the body the locations are wrong, and gdb
cannot know: probe elsewhere with registers, not argument names.

Layout.  One DIE per BTF type id, in id order, vmlinux first, then each
module's split BTF.  A type reference is a DW_FORM_ref4 written as 0 and
patched once every DIE's offset is known (fix_pos/fix_lab).  Labels are
global type ids: vmlinux ids as they are, a module's ids shifted past the
previous blobs (Unit.label).  Names are DW_FORM_strp into .debug_str,
which is the BTF string sections themselves laid end to end, plus our own
strings after them: no string is copied one by one.

Argument passing (System V x86-64 ABI, integer class only; the kernel has
no floating point): an integer, enum or pointer of up to 8 bytes takes the
next register; a 16-byte integer or a struct/union of 9..16 bytes takes two
(DW_OP_piece), or goes to the stack whole if only one is left; bigger
aggregates go to the stack, at rsp+8+offset at entry (DW_OP_breg7).  A
float, or a parameter whose size BTF cannot give, gets no location (gdb
says <optimized out>) and so does every parameter after it.
"""
from __future__ import annotations

import struct
from typing import Optional

from . import btf as B

# DWARF constants (DWARF 4, sections 7.5 and 7.7)
TAG_array, TAG_enum, TAG_fparam, TAG_member, TAG_ptr, TAG_cu = 0x01, 0x04, 0x05, 0x0d, 0x0f, 0x11
TAG_struct, TAG_subroutine, TAG_typedef, TAG_union = 0x13, 0x15, 0x16, 0x17
TAG_unspec_params, TAG_subrange, TAG_base, TAG_const = 0x18, 0x21, 0x24, 0x26
TAG_enumerator, TAG_subprogram, TAG_volatile, TAG_restrict, TAG_unspec = \
    0x28, 0x2e, 0x35, 0x37, 0x3b
AT_location, AT_name, AT_byte_size, AT_bit_size, AT_low_pc, AT_high_pc = \
    0x02, 0x03, 0x0b, 0x0d, 0x11, 0x12
AT_language, AT_const_value, AT_prototyped, AT_count, AT_member_loc = \
    0x13, 0x1c, 0x27, 0x37, 0x38
AT_declaration, AT_encoding, AT_external, AT_type, AT_bit_offset, AT_producer = \
    0x3c, 0x3e, 0x3f, 0x49, 0x6b, 0x25
FORM_addr, FORM_data2, FORM_data4, FORM_data1, FORM_sdata, FORM_strp = \
    0x01, 0x05, 0x06, 0x0b, 0x0d, 0x0e
FORM_ref4, FORM_exprloc, FORM_flag_present = 0x13, 0x18, 0x19
ATE_boolean, ATE_float, ATE_signed, ATE_signed_char, ATE_unsigned, ATE_unsigned_char = \
    2, 4, 5, 6, 7, 8
LANG_C99 = 0x0c
OP_reg0, OP_breg7, OP_piece = 0x50, 0x77, 0x93

# DWARF register numbers of the argument registers, in ABI order
ARG_REGS = (5, 4, 1, 2, 8, 9)       # rdi rsi rdx rcx r8 r9
ARG_REG_NAMES = ("rdi", "rsi", "rdx", "rcx", "r8", "r9")

# Abbreviations: code -> (tag, children, [(attribute, form)]).  Codes stay
# below 128 so that each is one ULEB byte.
N, T, S, L = (AT_name, FORM_strp), (AT_type, FORM_ref4), (AT_byte_size, FORM_data4), \
    (AT_location, FORM_exprloc)
ABBREVS = {
    1: (TAG_cu, 1, [N, (AT_language, FORM_data2), (AT_producer, FORM_strp)]),
    2: (TAG_base, 0, [N, S, (AT_encoding, FORM_data1)]),
    3: (TAG_ptr, 0, [(AT_byte_size, FORM_data1), T]),
    4: (TAG_ptr, 0, [(AT_byte_size, FORM_data1)]),
    5: (TAG_array, 1, [T]),
    6: (TAG_subrange, 0, [(AT_count, FORM_data4)]),
    7: (TAG_struct, 1, [N, S]),
    8: (TAG_struct, 1, [S]),
    9: (TAG_union, 1, [N, S]),
    10: (TAG_union, 1, [S]),
    11: (TAG_member, 0, [N, T, (AT_member_loc, FORM_data4)]),
    12: (TAG_member, 0, [T, (AT_member_loc, FORM_data4)]),
    13: (TAG_member, 0, [N, T, (AT_bit_offset, FORM_data4), (AT_bit_size, FORM_data1)]),
    14: (TAG_member, 0, [T, (AT_bit_offset, FORM_data4), (AT_bit_size, FORM_data1)]),
    15: (TAG_enum, 1, [N, S]),
    16: (TAG_enum, 1, [S]),
    17: (TAG_enumerator, 0, [N, (AT_const_value, FORM_sdata)]),
    18: (TAG_struct, 0, [N, (AT_declaration, FORM_flag_present)]),
    19: (TAG_union, 0, [N, (AT_declaration, FORM_flag_present)]),
    20: (TAG_enum, 0, [N, (AT_declaration, FORM_flag_present)]),
    21: (TAG_typedef, 0, [N, T]),
    22: (TAG_typedef, 0, [N]),
    23: (TAG_const, 0, [T]),
    24: (TAG_const, 0, []),
    25: (TAG_volatile, 0, [T]),
    26: (TAG_volatile, 0, []),
    27: (TAG_restrict, 0, [T]),
    28: (TAG_restrict, 0, []),
    29: (TAG_subroutine, 1, [(AT_prototyped, FORM_flag_present), T]),
    30: (TAG_subroutine, 1, [(AT_prototyped, FORM_flag_present)]),
    31: (TAG_fparam, 0, [T]),
    32: (TAG_unspec_params, 0, []),
    33: (TAG_unspec, 0, [N]),
    34: (TAG_subprogram, 1, [N, (AT_external, FORM_flag_present), (AT_low_pc, FORM_addr),
                            (AT_high_pc, FORM_data4), (AT_prototyped, FORM_flag_present), T]),
    35: (TAG_subprogram, 1, [N, (AT_external, FORM_flag_present), (AT_low_pc, FORM_addr),
                            (AT_high_pc, FORM_data4), (AT_prototyped, FORM_flag_present)]),
    36: (TAG_fparam, 0, [N, T, L]),
    37: (TAG_fparam, 0, [N, T]),
    38: (TAG_fparam, 0, [T, L]),
}


def uleb(v: int) -> bytes:
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def sleb(v: int) -> bytes:
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        if (v == 0 and not b & 0x40) or (v == -1 and b & 0x40):
            out.append(b)
            return bytes(out)
        out.append(b | 0x80)


def abbrev_section() -> bytes:
    out = bytearray()
    for code, (tag, children, attrs) in sorted(ABBREVS.items()):
        out += uleb(code) + uleb(tag) + bytes([children])
        for at, form in attrs:
            out += uleb(at) + uleb(form)
        out += b"\0\0"
    return bytes(out + b"\0")


class Unit:
    """One BTF blob placed in the generated DWARF."""

    def __init__(self, b: B.Btf, label_base: int, str_base: int) -> None:
        self.btf = b
        self.label_base = label_base    # label of type id b.first
        self.str_base = str_base        # .debug_str offset of b.strings


def arg_locations(b: B.Btf, proto: int) -> list[tuple[str, int, Optional[bytes], str]]:
    """[(name, type id, location bytes or None, where)] of a FUNC_PROTO's
    parameters at function entry; a trailing (“”, 0, None, "...") is
    varargs.  `where` says it in words (a register name, "stack+N",
    "unknown")."""
    out = []
    reg = 0
    stack = 0
    lost = False
    for name, t in b.params(proto):
        if t == 0:
            out.append((name, 0, None, "..."))
            continue
        size = b.size_of(t)
        s = b.strip(t)
        k = b.kind_of(s) if s else None
        loc = None
        if lost or size is None or k == B.FLOAT:
            lost = True
            out.append((name, t, None, "unknown"))
            continue
        scalar = k in (B.INT, B.PTR, B.ENUM, B.ENUM64)
        if (scalar or k in (B.STRUCT, B.UNION)) and size <= 8 and reg < 6:
            loc, where = bytes([OP_reg0 + ARG_REGS[reg]]), ARG_REG_NAMES[reg]
            reg += 1
        elif (scalar or k in (B.STRUCT, B.UNION)) and size <= 16 and reg < 5:
            loc = bytes([OP_reg0 + ARG_REGS[reg], OP_piece, 8,
                         OP_reg0 + ARG_REGS[reg + 1], OP_piece, size - 8])
            where = ARG_REG_NAMES[reg] + ":" + ARG_REG_NAMES[reg + 1]
            reg += 2
        else:
            # memory class, or out of registers: the caller's stack, above
            # the return address
            loc, where = bytes([OP_breg7]) + sleb(8 + stack), "stack+%d" % (8 + stack)
            stack += (size + 7) & ~7
        out.append((name, t, loc, where))
    return out


class DwarfGen:
    """Builds .debug_abbrev, .debug_info and .debug_str.

    add_unit() for vmlinux then each module, add_function() for each
    function, finish() for the sections."""

    def __init__(self) -> None:
        self.units = []
        self.info = bytearray()
        self.fix_pos = []
        self.fix_lab = []
        self.labels = 1                 # next free label; 0 is void
        self.str_blobs = []
        self.str_len = 0
        self.own_str = bytearray()
        self.own_str_map = {}
        self.funcs = []
        self._proto_cache = {}

    # strings -------------------------------------------------------------
    def add_unit(self, b: B.Btf) -> Unit:
        """Place a Btf (vmlinux first, then its split modules)."""
        if b.base is None:
            u = Unit(b, 1, 0)
            self.labels = b.count
        else:
            u = Unit(b, self.labels, self.str_len)
            self.labels += b.count - b.first
        self.str_blobs.append(b.strings)
        self.str_len += len(b.strings)
        self.units.append(u)
        return u

    def _strp(self, u, off):
        """.debug_str offset of BTF name offset off of unit u."""
        b = u.btf
        if off < b.str_base:
            return off                  # a vmlinux string (split BTF)
        return u.str_base + off - b.str_base

    def own(self, s: str) -> int:
        """A string of ours, after the BTF strings: every unit is added
        before finish() asks for one, so str_len is final."""
        o = self.own_str_map.get(s)
        if o is None:
            o = self.own_str_map[s] = self.str_len + len(self.own_str)
            self.own_str += s.encode() + b"\0"
        return o

    def _label(self, u, tid):
        b = u.btf
        if tid < b.first:
            return tid                  # vmlinux's, split BTF's base
        return u.label_base + tid - b.first

    # functions -----------------------------------------------------------
    def add_function(self, u: Unit, name: str, low: int, high: int, proto: int) -> None:
        """A subprogram of unit u at [low, high) with BTF FUNC_PROTO proto."""
        self.funcs.append((u, name, low, high, proto))

    # emission ------------------------------------------------------------
    def finish(self, cu_name: str = "gtp-btf") -> tuple[bytes, bytes, bytes]:
        out = self.info
        out += b"\0" * 11               # CU header, written last
        out.append(1)
        out += struct.pack("<IHI", self.own(cu_name), LANG_C99,
                           self.own("gtp-kernel-symbols (from BTF)"))
        die = [0] * self.labels         # label -> DIE offset
        alias = {}                      # TYPE_TAG label -> target label
        void_die = len(out)
        out += struct.pack("<BI", 33, self.own("void"))
        for u in self.units:
            self._emit_types(u, die, alias)
        for f in self.funcs:
            self._emit_function(f)
        out.append(0)                   # end of the CU's children
        # type tags: resolve chains (void at the end -> the void DIE)
        for lab in alias:
            seen = 0
            t = lab
            while t in alias and seen < 64:
                t = alias[t]
                seen += 1
            die[lab] = die[t] if t else void_die
        pack = struct.pack_into
        for pos, lab in zip(self.fix_pos, self.fix_lab):
            pack("<I", out, pos, die[lab] or void_die)
        struct.pack_into("<IHIB", out, 0, len(out) - 4, 4, 0, 8)
        strs = b"".join(self.str_blobs) + bytes(self.own_str)
        return abbrev_section(), bytes(out), strs

    def _emit_types(self, u, die, alias):
        b = u.btf
        out = self.info
        fpos, flab = self.fix_pos, self.fix_lab
        w = b.words
        kinds, vlens, kflags, noffs, sts, poss = b.kind, b.vlen, b.kflag, \
            b.name_off, b.size_type, b.pos
        strp = self._strp
        label = self._label
        P_I = struct.Struct("<BI").pack
        P_II = struct.Struct("<BII").pack
        P_IIB = struct.Struct("<BIIB").pack
        P_III = struct.Struct("<BIII").pack
        P_IIIB = struct.Struct("<BIIIB").pack
        P_BI = struct.Struct("<BBI").pack
        first = b.first
        vm_str = b.str_base             # strings below: vmlinux's
        ustr = u.str_base - vm_str

        for j in range(len(kinds)):
            k = kinds[j]
            lab = u.label_base + j
            no = noffs[j]
            sp = no if no < vm_str else no + ustr
            st = sts[j]
            if k == B.STRUCT or k == B.UNION:
                die[lab] = len(out)
                if no:
                    out += P_II(7 if k == B.STRUCT else 9, sp, st)
                else:
                    out += P_I(8 if k == B.STRUCT else 10, st)
                p = poss[j]
                kf = kflags[j]
                flat = []
                for m in range(vlens[j]):
                    mno, mt, moff = w[p], w[p + 1], w[p + 2]
                    p += 3
                    bits = 0
                    if kf:
                        bits, moff = moff >> 24, moff & 0xffffff
                    if not mno and self._anonymous_aggregate(b, mt):
                        flat += self._flat_members(u, mt, moff)
                        continue
                    flat.append((mno if mno < vm_str else mno + ustr,
                                 mt if mt < first else lab - j + mt - first, moff, bits))
                for msp, mlab, moff, bits in flat:
                    if bits or moff & 7:
                        if msp:
                            out += P_IIIB(13, msp, 0, moff, bits)
                            fpos.append(len(out) - 9)
                        else:
                            out += P_IIB(14, 0, moff, bits)
                            fpos.append(len(out) - 9)
                    else:
                        if msp:
                            out += P_III(11, msp, 0, moff >> 3)
                            fpos.append(len(out) - 8)
                        else:
                            out += P_II(12, 0, moff >> 3)
                            fpos.append(len(out) - 8)
                    flab.append(mlab)
                out.append(0)
            elif k == B.PTR or k == B.TYPEDEF or k == B.CONST or k == B.VOLATILE \
                    or k == B.RESTRICT:
                die[lab] = len(out)
                if k == B.PTR:
                    if st:
                        out += P_BI(3, 8, 0)
                    else:
                        out += bytes((4, 8))
                elif k == B.TYPEDEF:
                    out += P_II(21, sp, 0) if st else P_I(22, sp)
                else:
                    code = {B.CONST: 23, B.VOLATILE: 25, B.RESTRICT: 27}[k]
                    out += P_I(code, 0) if st else bytes((code + 1,))
                if st:
                    fpos.append(len(out) - 4)
                    flab.append(st if st < first else lab - j + st - first)
            elif k == B.FUNC_PROTO:
                die[lab] = len(out)
                if st:
                    out += P_I(29, 0)
                    fpos.append(len(out) - 4)
                    flab.append(st if st < first else lab - j + st - first)
                else:
                    out.append(30)
                p = poss[j]
                for m in range(vlens[j]):
                    pt = w[p + 1]
                    p += 2
                    if pt:
                        out += P_I(31, 0)
                        fpos.append(len(out) - 4)
                        flab.append(pt if pt < first else lab - j + pt - first)
                    else:
                        out.append(32)
                out.append(0)
            elif k == B.ARRAY:
                die[lab] = len(out)
                p = poss[j]
                et, n = w[p], w[p + 2]
                out += P_I(5, 0)
                fpos.append(len(out) - 4)
                flab.append(et if et < first else lab - j + et - first)
                out += P_I(6, n)
                out.append(0)
            elif k == B.INT:
                die[lab] = len(out)
                enc = w[poss[j]] >> 24
                if enc & B.INT_BOOL:
                    ate = ATE_boolean
                elif enc & B.INT_CHAR or (st == 1 and b.str_at(no) == "char"):
                    ate = ATE_signed_char if enc & B.INT_SIGNED else ATE_unsigned_char
                else:
                    ate = ATE_signed if enc & B.INT_SIGNED else ATE_unsigned
                out += P_IIB(2, sp, st, ate)
            elif k == B.ENUM or k == B.ENUM64:
                die[lab] = len(out)
                if not vlens[j] and not st:
                    out += P_I(20, sp)
                    continue
                out += P_II(15, sp, st) if no else P_I(16, st)
                p = poss[j]
                signed = kflags[j]      # kind_flag: 1 signed, 0 unsigned
                for m in range(vlens[j]):
                    eno = w[p]
                    if k == B.ENUM:
                        v = w[p + 1]
                        p += 2
                        if signed and v & 0x80000000:
                            v -= 1 << 32
                    else:
                        v = w[p + 1] | (w[p + 2] << 32)
                        p += 3
                        if signed and v >> 63:
                            v -= 1 << 64
                    out += P_I(17, eno if eno < vm_str else eno + ustr)
                    out += sleb(v)
                out.append(0)
            elif k == B.FWD:
                die[lab] = len(out)
                out += P_I(19 if kflags[j] else 18, sp)
            elif k == B.FLOAT:
                die[lab] = len(out)
                out += P_IIB(2, sp, st, ATE_float)
            elif k == B.TYPE_TAG:
                alias[lab] = (st if st < first else lab - j + st - first) if st else 0
            # FUNC: a subprogram when kallsyms has it; VAR, DATASEC,
            # DECL_TAG: nothing gdb needs (and nothing refers to them)

    @staticmethod
    def _anonymous_aggregate(b, tid):
        """Whether an unnamed member of type tid is to be lifted: a struct
        or union with members, unnamed (`union { ... };`) or named (7.x's
        `struct filename { struct __filename_head; ... }`, C11's
        -fms-extensions embedding)."""
        o = b.owner(tid)
        j = tid - o.first
        return o.kind[j] in (B.STRUCT, B.UNION) and o.vlen[j]

    def _flat_members(self, u, tid, base):
        """[(strp, label, bit offset, bitfield bits)] of an anonymous
        struct/union's members, as members of the struct holding it (at
        bit offset base), recursively.

        gdb's tracepoint bytecode compiler cannot look into anonymous
        unions (gen_struct_ref in ax-gdb.c, gdb 13..18: "Couldn't find
        member named `f_path'" for 7.x's struct file), while its
        expression evaluator can.  So the members are lifted into the
        parent, at their offsets; ptype shows them there, overlapping,
        instead of inside a `union {...}`."""
        b = u.btf
        o = b.owner(tid)
        ou = u if o is b else self.units[0]     # a base (vmlinux) type
        j = tid - o.first
        p, w, kf = o.pos[j], o.words, o.kflag[j]
        out = []
        for _ in range(o.vlen[j]):
            mno, mt, moff = w[p], w[p + 1], w[p + 2]
            p += 3
            bits = 0
            if kf:
                bits, moff = moff >> 24, moff & 0xffffff
            if not mno and self._anonymous_aggregate(o, mt):
                out += self._flat_members(ou, mt, base + moff)
                continue
            out.append((self._strp(ou, mno) if mno else 0, self._label(ou, mt),
                        base + moff, bits))
        return out

    def _emit_function(self, f):
        u, name, low, high, proto = f
        out = self.info
        ret, body, fix = self._params(u, proto)
        if ret:
            out += _SUB.pack(34, self.own(name), low, high - low, 0)
            self.fix_pos.append(len(out) - 4)
            self.fix_lab.append(ret)
        else:
            out += _SUB_VOID.pack(35, self.own(name), low, high - low)
        base = len(out)
        out += body
        for rel, lab in fix:
            self.fix_pos.append(base + rel)
            self.fix_lab.append(lab)

    def _params(self, u, proto):
        """(return type label, the parameter DIEs, [(offset, label)] of
        their type references) of a FUNC_PROTO: the same for every function
        of that prototype (two functions per prototype, on average), so made
        once."""
        key = (id(u), proto)
        hit = self._proto_cache.get(key)
        if hit:
            return hit
        b = u.btf
        ret = b.type_ref(proto)
        out = bytearray()
        fix = []
        for pname, t, loc, _ in arg_locations(b, proto):
            if t == 0:
                out.append(32)
                continue
            if pname and loc is not None:
                out += struct.pack("<BII", 36, self.own(pname), 0)
                fix.append(len(out) - 4)
                out += uleb(len(loc)) + loc
            elif pname:
                out += struct.pack("<BII", 37, self.own(pname), 0)
                fix.append(len(out) - 4)
            elif loc is not None:
                out += struct.pack("<BI", 38, 0)
                fix.append(len(out) - 4)
                out += uleb(len(loc)) + loc
            else:
                out += struct.pack("<BI", 31, 0)
                fix.append(len(out) - 4)
            fix[-1] = (fix[-1], self._label(u, t))
        out.append(0)
        hit = self._proto_cache[key] = (self._label(u, ret) if ret else 0, bytes(out), fix)
        return hit


_SUB = struct.Struct("<BIQII")
_SUB_VOID = struct.Struct("<BIQI")
