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

import functools
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
AT_language, AT_const_value, AT_prototyped, AT_count, AT_data_member_location = \
    0x13, 0x1c, 0x27, 0x37, 0x38
AT_declaration, AT_encoding, AT_external, AT_type, AT_data_bit_offset, AT_producer = \
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

# How a DIE holds the value of each form we use: fixed-size forms as a
# struct code.  FORM_flag_present holds nothing (the abbreviation says it
# all).  FORM_exprloc and FORM_sdata have a variable length, so the
# struct cannot write them: an abbreviation may have one, as its last
# attribute, which the caller appends after the fixed part.
_FORM_STRUCT = {FORM_addr: "Q", FORM_data1: "B", FORM_data2: "H", FORM_data4: "I",
                FORM_strp: "I", FORM_ref4: "I", FORM_flag_present: ""}
_VARIABLE_FORMS = (FORM_exprloc, FORM_sdata)


class Abbrev:
    """One .debug_abbrev entry, and the writer of its DIEs.

    die(*values) is the DIE's fixed part: its code, then the value of each
    attribute of a fixed-size form, in declaration order.  A DW_AT_type
    (FORM_ref4) is written as 0 and patched later: ref_back is how many
    bytes before the end of die()'s output it starts."""

    __slots__ = ("code", "tag", "children", "attrs", "die", "ref_back")

    def __init__(self, code: int, tag: int, children: bool,
                 attrs: tuple[tuple[int, int], ...]) -> None:
        self.code, self.tag, self.children, self.attrs = code, tag, children, attrs
        fmt = "<B"
        ref_end = 0
        for i, (_, form) in enumerate(attrs):
            if form in _VARIABLE_FORMS:
                assert i == len(attrs) - 1, "a variable-size form must come last"
                continue
            fmt += _FORM_STRUCT[form]
            if form == FORM_ref4:
                ref_end = struct.calcsize(fmt)
        layout = struct.Struct(fmt)
        # partial of the C pack: no Python frame per DIE (there are ~10^6)
        self.die = functools.partial(layout.pack, code)
        self.ref_back = layout.size - (ref_end - 4) if ref_end else 0


# Every abbreviation, in code order (code = index + 1).
ABBREVS: list[Abbrev] = []


def _abbrev(tag: int, children: bool, *attrs: tuple[int, int]) -> Abbrev:
    code = len(ABBREVS) + 1
    # the DIE writers put the code in one byte: it must stay one ULEB byte
    assert code < 128, "too many abbreviations for a one-byte code"
    ab = Abbrev(code, tag, children, attrs)
    ABBREVS.append(ab)
    return ab


NAME, TYPE, SIZE = (AT_name, FORM_strp), (AT_type, FORM_ref4), (AT_byte_size, FORM_data4)
LOCATION, MEMBER_BYTE = (AT_location, FORM_exprloc), (AT_data_member_location, FORM_data4)
# DWARF 4's data_bit_offset counts from the start of the struct, as BTF's
# bit offset does: no storage unit, no endianness to work out
MEMBER_BITS = ((AT_data_bit_offset, FORM_data4), (AT_bit_size, FORM_data1))
DECLARATION, PROTOTYPED = (AT_declaration, FORM_flag_present), (AT_prototyped, FORM_flag_present)

# BTF says "anonymous" and "void" with a 0 name or type; DWARF says them
# by leaving DW_AT_name or DW_AT_type out, as compilers do (a pointer
# without a type is gdb's `void *`).  So most DIE kinds come twice: with
# the attribute and without it (_ANON, _VOID).
AB_CU = _abbrev(TAG_cu, True, NAME, (AT_language, FORM_data2), (AT_producer, FORM_strp))
AB_BASE = _abbrev(TAG_base, False, NAME, SIZE, (AT_encoding, FORM_data1))
AB_PTR = _abbrev(TAG_ptr, False, (AT_byte_size, FORM_data1), TYPE)
AB_PTR_VOID = _abbrev(TAG_ptr, False, (AT_byte_size, FORM_data1))
AB_ARRAY = _abbrev(TAG_array, True, TYPE)
AB_SUBRANGE = _abbrev(TAG_subrange, False, (AT_count, FORM_data4))
AB_STRUCT = _abbrev(TAG_struct, True, NAME, SIZE)
AB_STRUCT_ANON = _abbrev(TAG_struct, True, SIZE)
AB_UNION = _abbrev(TAG_union, True, NAME, SIZE)
AB_UNION_ANON = _abbrev(TAG_union, True, SIZE)
AB_MEMBER = _abbrev(TAG_member, False, NAME, TYPE, MEMBER_BYTE)
AB_MEMBER_ANON = _abbrev(TAG_member, False, TYPE, MEMBER_BYTE)
AB_BITFIELD = _abbrev(TAG_member, False, NAME, TYPE, *MEMBER_BITS)
AB_BITFIELD_ANON = _abbrev(TAG_member, False, TYPE, *MEMBER_BITS)
AB_ENUM = _abbrev(TAG_enum, True, NAME, SIZE)
AB_ENUM_ANON = _abbrev(TAG_enum, True, SIZE)
AB_ENUMERATOR = _abbrev(TAG_enumerator, False, NAME, (AT_const_value, FORM_sdata))
AB_STRUCT_DECL = _abbrev(TAG_struct, False, NAME, DECLARATION)
AB_UNION_DECL = _abbrev(TAG_union, False, NAME, DECLARATION)
AB_ENUM_DECL = _abbrev(TAG_enum, False, NAME, DECLARATION)
AB_TYPEDEF = _abbrev(TAG_typedef, False, NAME, TYPE)
AB_TYPEDEF_VOID = _abbrev(TAG_typedef, False, NAME)
AB_CONST = _abbrev(TAG_const, False, TYPE)
AB_CONST_VOID = _abbrev(TAG_const, False)
AB_VOLATILE = _abbrev(TAG_volatile, False, TYPE)
AB_VOLATILE_VOID = _abbrev(TAG_volatile, False)
AB_RESTRICT = _abbrev(TAG_restrict, False, TYPE)
AB_RESTRICT_VOID = _abbrev(TAG_restrict, False)
AB_SUBROUTINE = _abbrev(TAG_subroutine, True, PROTOTYPED, TYPE)
AB_SUBROUTINE_VOID = _abbrev(TAG_subroutine, True, PROTOTYPED)
AB_PARAM_TYPE = _abbrev(TAG_fparam, False, TYPE)            # of a prototype
AB_VARARGS = _abbrev(TAG_unspec_params, False)              # `...`
# the target of references to types with no DIE of their own: a type tag
# of void, a BTF kind not translated (finish())
AB_VOID = _abbrev(TAG_unspec, False, NAME)
SUBPROGRAM = (NAME, (AT_external, FORM_flag_present), (AT_low_pc, FORM_addr),
              (AT_high_pc, FORM_data4), PROTOTYPED)     # high_pc data4: a size
AB_SUBPROGRAM = _abbrev(TAG_subprogram, True, *SUBPROGRAM, TYPE)
AB_SUBPROGRAM_VOID = _abbrev(TAG_subprogram, True, *SUBPROGRAM)
AB_PARAM = _abbrev(TAG_fparam, False, NAME, TYPE, LOCATION)        # of a function
AB_PARAM_NOLOC = _abbrev(TAG_fparam, False, NAME, TYPE)
AB_PARAM_ANON = _abbrev(TAG_fparam, False, TYPE, LOCATION)

# a qualifier's abbreviations: with a type, of void
_QUALIFIERS = {B.CONST: (AB_CONST, AB_CONST_VOID), B.VOLATILE: (AB_VOLATILE, AB_VOLATILE_VOID),
               B.RESTRICT: (AB_RESTRICT, AB_RESTRICT_VOID)}


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
    for ab in ABBREVS:
        out += uleb(ab.code) + uleb(ab.tag) + bytes([ab.children])
        for at, form in ab.attrs:
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
        out += AB_CU.die(self.own(cu_name), LANG_C99,
                         self.own("gtp-kernel-symbols (from BTF)"))
        die = [0] * self.labels         # label -> DIE offset
        alias = {}                      # TYPE_TAG label -> target label
        void_die = len(out)
        out += AB_VOID.die(self.own("void"))
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
                    out += (AB_STRUCT if k == B.STRUCT else AB_UNION).die(sp, st)
                else:
                    out += (AB_STRUCT_ANON if k == B.STRUCT else AB_UNION_ANON).die(st)
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
                            out += AB_BITFIELD.die(msp, 0, moff, bits)
                            fpos.append(len(out) - AB_BITFIELD.ref_back)
                        else:
                            out += AB_BITFIELD_ANON.die(0, moff, bits)
                            fpos.append(len(out) - AB_BITFIELD_ANON.ref_back)
                    else:
                        if msp:
                            out += AB_MEMBER.die(msp, 0, moff >> 3)
                            fpos.append(len(out) - AB_MEMBER.ref_back)
                        else:
                            out += AB_MEMBER_ANON.die(0, moff >> 3)
                            fpos.append(len(out) - AB_MEMBER_ANON.ref_back)
                    flab.append(mlab)
                out.append(0)
            elif k == B.PTR or k == B.TYPEDEF or k == B.CONST or k == B.VOLATILE \
                    or k == B.RESTRICT:
                die[lab] = len(out)
                if k == B.PTR:
                    if st:
                        out += AB_PTR.die(8, 0)
                    else:
                        out += AB_PTR_VOID.die(8)
                elif k == B.TYPEDEF:
                    out += AB_TYPEDEF.die(sp, 0) if st else AB_TYPEDEF_VOID.die(sp)
                else:
                    ab, ab_void = _QUALIFIERS[k]
                    out += ab.die(0) if st else ab_void.die()
                if st:
                    fpos.append(len(out) - 4)
                    flab.append(st if st < first else lab - j + st - first)
            elif k == B.FUNC_PROTO:
                die[lab] = len(out)
                if st:
                    out += AB_SUBROUTINE.die(0)
                    fpos.append(len(out) - 4)
                    flab.append(st if st < first else lab - j + st - first)
                else:
                    out += AB_SUBROUTINE_VOID.die()
                p = poss[j]
                for m in range(vlens[j]):
                    pt = w[p + 1]
                    p += 2
                    if pt:
                        out += AB_PARAM_TYPE.die(0)
                        fpos.append(len(out) - 4)
                        flab.append(pt if pt < first else lab - j + pt - first)
                    else:
                        out += AB_VARARGS.die()
                out.append(0)
            elif k == B.ARRAY:
                die[lab] = len(out)
                p = poss[j]
                et, n = w[p], w[p + 2]
                out += AB_ARRAY.die(0)
                fpos.append(len(out) - 4)
                flab.append(et if et < first else lab - j + et - first)
                out += AB_SUBRANGE.die(n)
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
                out += AB_BASE.die(sp, st, ate)
            elif k == B.ENUM or k == B.ENUM64:
                die[lab] = len(out)
                if not vlens[j] and not st:
                    out += AB_ENUM_DECL.die(sp)
                    continue
                out += AB_ENUM.die(sp, st) if no else AB_ENUM_ANON.die(st)
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
                    out += AB_ENUMERATOR.die(eno if eno < vm_str else eno + ustr)
                    out += sleb(v)
                out.append(0)
            elif k == B.FWD:
                die[lab] = len(out)
                out += (AB_UNION_DECL if kflags[j] else AB_STRUCT_DECL).die(sp)
            elif k == B.FLOAT:
                die[lab] = len(out)
                out += AB_BASE.die(sp, st, ATE_float)
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
            out += AB_SUBPROGRAM.die(self.own(name), low, high - low, 0)
            self.fix_pos.append(len(out) - 4)
            self.fix_lab.append(ret)
        else:
            out += AB_SUBPROGRAM_VOID.die(self.own(name), low, high - low)
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
                out += AB_VARARGS.die()
                continue
            if pname and loc is not None:
                out += AB_PARAM.die(self.own(pname), 0)
                fix.append(len(out) - 4)
                out += uleb(len(loc)) + loc
            elif pname:
                out += AB_PARAM_NOLOC.die(self.own(pname), 0)
                fix.append(len(out) - 4)
            elif loc is not None:
                out += AB_PARAM_ANON.die(0)
                fix.append(len(out) - 4)
                out += uleb(len(loc)) + loc
            else:
                out += AB_PARAM_TYPE.die(0)
                fix.append(len(out) - 4)
            fix[-1] = (fix[-1], self._label(u, t))
        out.append(0)
        hit = self._proto_cache[key] = (self._label(u, ret) if ret else 0, bytes(out), fix)
        return hit
