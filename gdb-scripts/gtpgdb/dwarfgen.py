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
# a parameter's type only: a prototype's, or a function's unnamed one
# with no location
AB_PARAM_TYPE = _abbrev(TAG_fparam, False, TYPE)
AB_VARARGS = _abbrev(TAG_unspec_params, False)              # `...`
# the target of references to types with no DIE of their own: a type tag
# of void, a BTF kind not translated (finish())
AB_VOID = _abbrev(TAG_unspec, False, NAME)
SUBPROGRAM = (NAME, (AT_external, FORM_flag_present), (AT_low_pc, FORM_addr),
              (AT_high_pc, FORM_data4), PROTOTYPED)     # high_pc data4: a size
AB_SUBPROGRAM = _abbrev(TAG_subprogram, True, *SUBPROGRAM, TYPE)
AB_SUBPROGRAM_VOID = _abbrev(TAG_subprogram, True, *SUBPROGRAM)
# a function's parameters: their location at entry (arg_locations());
# without one gdb says <optimized out>
AB_PARAM = _abbrev(TAG_fparam, False, NAME, TYPE, LOCATION)
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
    """One BTF blob placed in the generated DWARF: where its type ids and
    its strings land among the other blobs'."""

    def __init__(self, b: B.Btf, label_base: int, str_base: int) -> None:
        self.btf = b
        self.label_base = label_base    # label of type id b.first
        self.str_base = str_base        # .debug_str offset of b.strings

    def label(self, tid: int) -> int:
        """The global label of a type id this blob refers to."""
        b = self.btf
        if tid < b.first:
            return tid                  # vmlinux's, split BTF's base
        return self.label_base + tid - b.first

    def strp(self, off: int) -> int:
        """.debug_str offset of a BTF name offset of this blob."""
        b = self.btf
        if off < b.str_base:
            return off                  # a vmlinux string (split BTF)
        return self.str_base + off - b.str_base


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
        # type references, written as 0 until every DIE's offset is known:
        # the offset of each in .info, and the label it refers to
        self.fix_pos = []
        self.fix_lab = []
        self.labels = 1                 # next free label; 0 is void
        self.die_off = []               # label -> its DIE's offset (0: none)
        self.alias = {}                 # TYPE_TAG label -> target label (0: void)
        self.str_blobs = []
        self.str_len = 0
        self.own_str = bytearray()
        self.own_str_map = {}
        self.funcs = []
        self._proto_cache = {}
        # BTF kind -> the writer of its DIE.  TYPE_TAG has none (an alias);
        # FUNC becomes a subprogram when kallsyms has it (add_function());
        # VAR, DATASEC, DECL_TAG: nothing gdb needs, nothing refers to them.
        self._emitters = {
            B.INT: self._emit_int, B.FLOAT: self._emit_float,
            B.PTR: self._emit_ptr, B.TYPEDEF: self._emit_typedef,
            B.CONST: self._emit_qualifier, B.VOLATILE: self._emit_qualifier,
            B.RESTRICT: self._emit_qualifier, B.ARRAY: self._emit_array,
            B.STRUCT: self._emit_struct, B.UNION: self._emit_struct,
            B.ENUM: self._emit_enum, B.ENUM64: self._emit_enum,
            B.FWD: self._emit_fwd, B.FUNC_PROTO: self._emit_func_proto,
        }

    # units and strings ---------------------------------------------------
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

    def own(self, s: str) -> int:
        """A string of ours, after the BTF strings: every unit is added
        before finish() asks for one, so str_len is final."""
        o = self.own_str_map.get(s)
        if o is None:
            o = self.own_str_map[s] = self.str_len + len(self.own_str)
            self.own_str += s.encode() + b"\0"
        return o

    # functions -----------------------------------------------------------
    def add_function(self, u: Unit, name: str, low: int, high: int, proto: int) -> None:
        """A subprogram of unit u at [low, high) with BTF FUNC_PROTO proto."""
        self.funcs.append((u, name, low, high, proto))

    # emission ------------------------------------------------------------
    def finish(self, cu_name: str = "gtp-btf") -> tuple[bytes, bytes, bytes]:
        """(.debug_abbrev, .debug_info, .debug_str): the CU DIE, the void
        DIE, every unit's types, every function; then the type references
        patched, now that every DIE's offset is known."""
        out = self.info
        out += bytes(_CU_HEADER.size)   # written last, when the length is known
        out += AB_CU.die(self.own(cu_name), LANG_C99,
                         self.own("gtp-kernel-symbols (from BTF)"))
        self.die_off = [0] * self.labels
        void_die = len(out)
        out += AB_VOID.die(self.own("void"))
        for u in self.units:
            self._emit_types(u)
        for f in self.funcs:
            self._emit_function(*f)
        out.append(0)                   # end of the CU's children
        self._resolve_type_tags(void_die)
        self._patch_type_refs(void_die)
        _CU_HEADER.pack_into(out, 0, len(out) - 4, 4, 0, 8)
        strs = b"".join(self.str_blobs) + bytes(self.own_str)
        return abbrev_section(), bytes(out), strs

    def _type_ref(self, ab: Abbrev, lab: int) -> None:
        """The DIE of ab just written refers to label lab: patch it in
        _patch_type_refs()."""
        self.fix_pos.append(len(self.info) - ab.ref_back)
        self.fix_lab.append(lab)

    def _resolve_type_tags(self, void_die: int) -> None:
        """A TYPE_TAG (`__user`, `__rcu`: btf_type_tag) means nothing to
        gdb: a reference to one goes to the DIE of the type it tags, at the
        end of a chain of tags (void: the void DIE)."""
        die_off, alias = self.die_off, self.alias
        for lab in alias:
            hops = 0
            t = lab
            while t in alias and hops < 64:     # 64: a cycle in bad BTF ends
                t = alias[t]
                hops += 1
            die_off[lab] = die_off[t] if t else void_die

    def _patch_type_refs(self, void_die: int) -> None:
        """Write each type reference's DIE offset; a label with no DIE (a
        kind not translated) gets the void DIE."""
        out, die_off = self.info, self.die_off
        pack = _REF4.pack_into
        for pos, lab in zip(self.fix_pos, self.fix_lab):
            pack(out, pos, die_off[lab] or void_die)

    # types -----------------------------------------------------------------
    def _emit_types(self, u: Unit) -> None:
        """A DIE for each type of unit u, in id order."""
        out, die_off, emitters = self.info, self.die_off, self._emitters
        b = u.btf
        lab = u.label_base
        for j, k in enumerate(b.kind):
            emit = emitters.get(k)
            if emit is not None:
                die_off[lab] = len(out)
                emit(u, j)
            elif k == B.TYPE_TAG:
                st = b.size_type[j]
                self.alias[lab] = u.label(st) if st else 0
            lab += 1

    def _emit_int(self, u: Unit, j: int) -> None:
        b = u.btf
        name, size = b.name_off[j], b.size_type[j]
        enc = b.words[b.pos[j]] >> 24
        if enc & B.INT_BOOL:
            ate = ATE_boolean
        elif enc & B.INT_CHAR or (size == 1 and b.str_at(name) == "char"):
            # a char type whatever its BTF encoding says, so that gdb
            # prints char arrays as strings
            ate = ATE_signed_char if enc & B.INT_SIGNED else ATE_unsigned_char
        else:
            ate = ATE_signed if enc & B.INT_SIGNED else ATE_unsigned
        self.info += AB_BASE.die(u.strp(name), size, ate)

    def _emit_float(self, u: Unit, j: int) -> None:
        b = u.btf
        self.info += AB_BASE.die(u.strp(b.name_off[j]), b.size_type[j], ATE_float)

    def _emit_ptr(self, u: Unit, j: int) -> None:
        target = u.btf.size_type[j]
        if target:
            self.info += AB_PTR.die(8, 0)       # x86-64: 8-byte pointers
            self._type_ref(AB_PTR, u.label(target))
        else:
            self.info += AB_PTR_VOID.die(8)

    def _emit_typedef(self, u: Unit, j: int) -> None:
        b = u.btf
        name, target = u.strp(b.name_off[j]), b.size_type[j]
        if target:
            self.info += AB_TYPEDEF.die(name, 0)
            self._type_ref(AB_TYPEDEF, u.label(target))
        else:
            self.info += AB_TYPEDEF_VOID.die(name)

    def _emit_qualifier(self, u: Unit, j: int) -> None:
        """CONST, VOLATILE, RESTRICT."""
        b = u.btf
        ab, ab_void = _QUALIFIERS[b.kind[j]]
        target = b.size_type[j]
        if target:
            self.info += ab.die(0)
            self._type_ref(ab, u.label(target))
        else:
            self.info += ab_void.die()

    def _emit_array(self, u: Unit, j: int) -> None:
        """An array type and its one subrange (BTF's multi-dimensional
        arrays are arrays of arrays)."""
        b = u.btf
        p = b.pos[j]
        elem, count = b.words[p], b.words[p + 2]    # p + 1: the index type
        self.info += AB_ARRAY.die(0)
        self._type_ref(AB_ARRAY, u.label(elem))
        self.info += AB_SUBRANGE.die(count)
        self.info.append(0)                         # end of the subranges

    def _emit_struct(self, u: Unit, j: int) -> None:
        """A STRUCT or UNION and its members, anonymous members' own lifted
        in (_members())."""
        b = u.btf
        name, size = b.name_off[j], b.size_type[j]
        if b.kind[j] == B.STRUCT:
            ab, ab_anon = AB_STRUCT, AB_STRUCT_ANON
        else:
            ab, ab_anon = AB_UNION, AB_UNION_ANON
        self.info += ab.die(u.strp(name), size) if name else ab_anon.die(size)
        for strp, lab, bit_off, bits in self._members(u, b.first + j, 0):
            self._emit_member(strp, lab, bit_off, bits)
        self.info.append(0)                         # end of the members

    def _emit_member(self, strp: int, lab: int, bit_off: int, bits: int) -> None:
        """A member named strp (0: unnamed) of type label lab at bit offset
        bit_off, of bits bits if a bitfield (BTF with kind_flag 0 keeps a
        bitfield's width in its int type: then only its offset, off a byte
        boundary, tells)."""
        bitfield = bits or bit_off & 7
        if strp and bitfield:
            ab, die = AB_BITFIELD, AB_BITFIELD.die(strp, 0, bit_off, bits)
        elif strp:
            ab, die = AB_MEMBER, AB_MEMBER.die(strp, 0, bit_off >> 3)
        elif bitfield:
            ab, die = AB_BITFIELD_ANON, AB_BITFIELD_ANON.die(0, bit_off, bits)
        else:
            ab, die = AB_MEMBER_ANON, AB_MEMBER_ANON.die(0, bit_off >> 3)
        self.info += die
        self._type_ref(ab, lab)

    @staticmethod
    def _anonymous_aggregate(b, tid):
        """Whether an unnamed member of type tid is to be lifted: a struct
        or union with members, unnamed (`union { ... };`) or named (7.x's
        `struct filename { struct __filename_head; ... }`, C11's
        -fms-extensions embedding)."""
        o = b.owner(tid)
        j = tid - o.first
        return o.kind[j] in (B.STRUCT, B.UNION) and o.vlen[j]

    def _members(self, u: Unit, tid: int, base: int) -> list[tuple[int, int, int, int]]:
        """[(strp, label, bit offset, bitfield bits)] of the members of
        struct/union tid (of unit u or its base) placed at bit offset base,
        with the members of an anonymous struct/union member in its place,
        recursively.

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
            if kf:                      # kind_flag: bitfield size in the offset's top byte
                bits, moff = moff >> 24, moff & 0xffffff
            if not mno and self._anonymous_aggregate(o, mt):
                out += self._members(ou, mt, base + moff)
                continue
            out.append((ou.strp(mno) if mno else 0, ou.label(mt), base + moff, bits))
        return out

    def _emit_enum(self, u: Unit, j: int) -> None:
        """An ENUM or ENUM64 and its enumerators; without either values or
        a size, a declaration (`enum foo;`)."""
        b = u.btf
        name, size = b.name_off[j], b.size_type[j]
        if not b.vlen[j] and not size:
            self.info += AB_ENUM_DECL.die(u.strp(name))
            return
        self.info += AB_ENUM.die(u.strp(name), size) if name else AB_ENUM_ANON.die(size)
        for strp, value in self._enumerators(u, j):
            self.info += AB_ENUMERATOR.die(strp) + sleb(value)
        self.info.append(0)                         # end of the enumerators

    @staticmethod
    def _enumerators(u: Unit, j: int) -> list[tuple[int, int]]:
        """[(strp, value)] of an ENUM (name, u32) or ENUM64 (name, lo32,
        hi32); kind_flag says whether the values are signed."""
        b = u.btf
        w, p = b.words, b.pos[j]
        signed = b.kflag[j]
        out = []
        for _ in range(b.vlen[j]):
            name = w[p]
            if b.kind[j] == B.ENUM:
                v = w[p + 1]
                p += 2
                if signed and v & 0x80000000:
                    v -= 1 << 32
            else:
                v = w[p + 1] | (w[p + 2] << 32)
                p += 3
                if signed and v >> 63:
                    v -= 1 << 64
            out.append((u.strp(name), v))
        return out

    def _emit_fwd(self, u: Unit, j: int) -> None:
        """A forward declaration: kind_flag 1 a union, 0 a struct."""
        b = u.btf
        ab = AB_UNION_DECL if b.kflag[j] else AB_STRUCT_DECL
        self.info += ab.die(u.strp(b.name_off[j]))

    def _emit_func_proto(self, u: Unit, j: int) -> None:
        """A FUNC_PROTO: a prototyped subroutine type and its parameters'
        types.  (Parameter names belong to a function's DIE: _params().)"""
        b = u.btf
        ret = b.size_type[j]
        if ret:
            self.info += AB_SUBROUTINE.die(0)
            self._type_ref(AB_SUBROUTINE, u.label(ret))
        else:
            self.info += AB_SUBROUTINE_VOID.die()
        w, p = b.words, b.pos[j]
        for k in range(b.vlen[j]):
            t = w[p + 2 * k + 1]                    # (name, type) pairs
            if t:
                self.info += AB_PARAM_TYPE.die(0)
                self._type_ref(AB_PARAM_TYPE, u.label(t))
            else:
                self.info += AB_VARARGS.die()       # type 0 last: `...`
        self.info.append(0)                         # end of the parameters

    # functions -------------------------------------------------------------
    def _emit_function(self, u: Unit, name: str, low: int, high: int, proto: int) -> None:
        """A subprogram at [low, high) and its located parameters."""
        ret, body, refs = self._params(u, proto)
        out = self.info
        if ret:
            out += AB_SUBPROGRAM.die(self.own(name), low, high - low, 0)
            self._type_ref(AB_SUBPROGRAM, ret)
        else:
            out += AB_SUBPROGRAM_VOID.die(self.own(name), low, high - low)
        base = len(out)
        out += body
        for rel, lab in refs:
            self.fix_pos.append(base + rel)
            self.fix_lab.append(lab)

    def _params(self, u: Unit, proto: int) -> tuple[int, bytes, list[tuple[int, int]]]:
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
        refs = []
        for pname, t, loc, _ in arg_locations(b, proto):
            if t == 0:
                out += AB_VARARGS.die()
                continue
            if pname and loc is not None:
                ab, die = AB_PARAM, AB_PARAM.die(self.own(pname), 0)
            elif pname:
                ab, die = AB_PARAM_NOLOC, AB_PARAM_NOLOC.die(self.own(pname), 0)
            elif loc is not None:
                ab, die = AB_PARAM_ANON, AB_PARAM_ANON.die(0)
            else:
                ab, die = AB_PARAM_TYPE, AB_PARAM_TYPE.die(0)
            out += die
            refs.append((len(out) - ab.ref_back, u.label(t)))
            if loc is not None:
                out += uleb(len(loc)) + loc         # FORM_exprloc
        out.append(0)                               # end of the parameters
        hit = self._proto_cache[key] = (u.label(ret) if ret else 0, bytes(out), refs)
        return hit


# unit_length, version, debug_abbrev_offset, address_size
_CU_HEADER = struct.Struct("<IHIB")
_REF4 = struct.Struct("<I")
