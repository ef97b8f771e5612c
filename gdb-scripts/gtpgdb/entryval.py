# SPDX-License-Identifier: GPL-2.0
"""Entry values made collectable: DW_OP_entry_value(REG) rewritten in place
into a read of memory that gtp's module answers.

No gdb here: the host's unit tests import it, and tests/vm/dbg-vmlinux runs
it on the host (python3 -m gtpgdb.entryval FILE).

Why.  In an optimized kernel most arguments are, past some point in their
function, described by DW_OP_entry_value(DW_OP_regN): "the value register
N had when this function was entered".  gdb cannot translate that operator
into an agent expression, so `collect $args` at such a line makes tstart
fail.  gtp's module records the argument registers when the function
containing a tracepoint is entered and serves them, during a hit, as
memory at the small addresses [EV_BASE, EV_END): register N at
ev_addr(N) = EV_BASE + EV_STRIDE * N.  So in a copy of the DWARF, in place
and with the same length (nothing else in the file moves):

    a3 01 5N      DW_OP_entry_value(DW_OP_regN)    -> 08 K 06
    a3 02 7N 00   DW_OP_entry_value(DW_OP_bregN 0) -> 08 K 06 96
                  (DW_OP_const1u K; DW_OP_deref [; DW_OP_nop])

with K = ev_addr(N), for N one of the argument registers EV_REGS; f3,
GCC's DW_OP_GNU_entry_value (its DWARF 4 spelling), alike.  gdb then
compiles such a variable to `const8 K; trace_quick 8; ref64`, and in tfind
mode reads the 8 bytes the frame holds at K.  K is at most 0x58 (r9): one
DW_OP_const1u byte, and far below any address the kernel maps.

Where.  Only location lists: .debug_loclists (DWARF 5: a header per
compile unit, an offset array, then DW_LLE_* entries each with a counted
expression) and .debug_loc (DWARF 4: address pairs, a 2-byte length, the
expression; (0, 0) ends a list).  An expression that holds an a3 or f3
byte at all is decoded op by op (_OPS: every DWARF 5 and GNU operator);
one with an operator the table lacks is left whole, and counted.  The
single-location expressions in .debug_info (DW_FORM_exprloc) are not
patched: finding them means walking every DIE of a 170 MB .debug_info, and
GCC gives an argument that is an entry value past its first instructions a
location list anyway (in the first 791 compile units of Debian's 6.1
vmlinux no DW_AT_location exprloc holds one; the 8905 entry values in
their .debug_info are DW_AT_call_value and DW_AT_call_target, which
describe a caller's arguments for unwinding, never a variable).

GCC's location views complicate the walk: before almost every list it
writes the list's view numbers as bare ULEB128 pairs, one per entry, with
no header (DW_AT_GNU_locviews points at them), and nothing in the section
says which bytes are views.  .debug_info does: its DW_AT_location and
DW_AT_GNU_locviews offsets, which a relocatable .ko, and a vmlinux linked
with --emit-relocs for KASLR (Debian's 6.1), carry as relocations of
.debug_info, cheap to read without parsing a DIE (_ElfHead.referenced).
6.12's x86 build strips the relocations from vmlinux
(arch/x86/Makefile.postlink); then the section is cut by guessing
(_Tiler): at each list start, k view pairs then a list of exactly k
expressions, or a list alone, parsed strictly (every expression decodes,
every address is in the code), backtracking when what follows cannot be
cut.  On Debian's 6.1 vmlinux the guess cuts 3 of 782495 lists otherwise
than .debug_info says, none with an entry value, and patches the same
183230 operators (in 22 s instead of 12).
"""
from __future__ import annotations

import array
import bisect
import hashlib
import json
import os
import re
import shutil
import struct
import sys
import tempfile
from typing import Callable, Optional

try:
    from gtpctl import kallsyms as _kallsyms
except ImportError:     # run as a script: gdb-scripts/ is not on the path
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from gtpctl import kallsyms as _kallsyms

# The module's side of the contract: register N's entry value is 8 bytes
# at EV_BASE + EV_STRIDE * N, inside [EV_BASE, EV_END).
EV_BASE = 0x10
EV_STRIDE = 8
EV_END = 0x80
# DWARF x86-64 numbers of the argument registers ftrace saves
EV_REGS = {5: "rdi", 4: "rsi", 1: "rdx", 2: "rcx", 8: "r8", 9: "r9"}


def ev_addr(reg: int) -> int:
    """Where register reg's entry value is read (DW_OP_const1u K)."""
    return EV_BASE + EV_STRIDE * reg


# Changes whenever the rewrite does: a copy made by another version is
# made again.
VERSION = 1

OP_deref, OP_const1u, OP_reg0, OP_breg0, OP_nop = 0x06, 0x08, 0x50, 0x70, 0x96
OP_entry_value, OP_GNU_entry_value = 0xa3, 0xf3

# Operands of each DWARF expression operator (DWARF 5 section 7.7.1, and
# GCC's GNU extensions): an int is that many bytes; "u"/"s" a ULEB/SLEB128;
# "a" an address; "r" a .debug_info offset (4 or 8 bytes, as the unit);
# "b" a ULEB128-counted block; "c" a 1-byte-counted block.  None: unknown
# (0x01, reserved ops, DW_OP_GNU_encoded_addr whose size depends on an
# encoding byte, vendor ops).
_OPS: list = [None] * 256
for _op in (0x06, 0x12, 0x13, 0x14, *range(0x16, 0x23), *range(0x24, 0x28),
            *range(0x29, 0x2f), *range(0x30, 0x70), 0x96, 0x97, 0x9b, 0x9c, 0x9f,
            0xe0, 0xf0):
    _OPS[_op] = ()
for _op in range(0x70, 0x90):
    _OPS[_op] = ("s",)                                  # DW_OP_breg0..31
for _op, _spec in {
        0x03: ("a",), 0x08: (1,), 0x09: (1,), 0x0a: (2,), 0x0b: (2,), 0x0c: (4,),
        0x0d: (4,), 0x0e: (8,), 0x0f: (8,), 0x10: ("u",), 0x11: ("s",), 0x15: (1,),
        0x23: ("u",), 0x28: (2,), 0x2f: (2,), 0x90: ("u",), 0x91: ("s",),
        0x92: ("u", "s"), 0x93: ("u",), 0x94: (1,), 0x95: (1,), 0x98: (2,),
        0x99: (4,), 0x9a: ("r",), 0x9d: ("u", "u"), 0x9e: ("b",),
        0xa0: ("r", "s"), 0xa1: ("u",), 0xa2: ("u",), 0xa3: ("b",),
        0xa4: ("u", "c"), 0xa5: ("u", "u"), 0xa6: (1, "u"), 0xa7: (1, "u"),
        0xa8: ("u",), 0xa9: ("u",),
        0xf2: ("r", "s"), 0xf3: ("b",), 0xf4: ("u", "c"), 0xf5: ("u", "u"),
        0xf6: (1, "u"), 0xf7: ("u",), 0xf9: ("u",), 0xfa: (4,), 0xfb: ("u",),
        0xfc: ("u",), 0xfd: ("r",)}.items():
    _OPS[_op] = _spec

_HAS_EV = re.compile(b"[\xa3\xf3]")

SHT_SYMTAB, SHT_RELA, SHT_NOTE, SHT_NOBITS = 2, 4, 7, 8
SHF_ALLOC, SHF_EXECINSTR = 0x2, 0x4
STT_SECTION = 3
ET_REL = 1
R_X86_64_64, R_X86_64_32 = 1, 10


class Stats:
    """What one patch did, for the load message and the tests."""

    def __init__(self) -> None:
        self.lists = 0          # location lists
        # expressions looked at (with .debug_info's offsets, only those of
        # the lists that hold an a3 or f3 byte)
        self.exprs = 0
        self.patched = {r: 0 for r in EV_REGS}  # rewritten operators per register
        self.other_ev = 0       # entry values of another form, left alone
        self.unknown = 0        # expressions that do not decode, left whole
        self.unparsed = 0       # lists (or units) that did not parse, left whole
        self.how = []           # per section: how its lists were found

    def total(self) -> int:
        return sum(self.patched.values())

    def as_dict(self) -> dict:
        d = dict(self.__dict__)
        d["patched"] = {EV_REGS[r]: n for r, n in self.patched.items()}
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Stats":
        s = cls()
        s.__dict__.update(d)
        regs = {v: k for k, v in EV_REGS.items()}
        s.patched = {regs[n]: c for n, c in d["patched"].items()}
        return s

    def brief(self) -> str:
        """'entry values: 183230 locations' (and how many were left)."""
        s = "entry values: %d locations" % self.total()
        left = self.other_ev + self.unknown + self.unparsed
        return s + (" (%d left as they were)" % left if left else "")

    def summary(self) -> str:
        """'entry values: 183230 locations (rdi 79108, ...)', and what was
        left alone if anything was."""
        regs = ", ".join("%s %d" % (EV_REGS[r], n) for r, n in self.patched.items() if n)
        s = "entry values: %d locations" % self.total()
        if regs:
            s += " (%s)" % regs
        left = [what % n for what, n in (("%d of other forms", self.other_ev),
                                         ("%d in undecodable expressions", self.unknown),
                                         ("%d lists unparsed", self.unparsed)) if n]
        if left:
            s += "; left as they were: " + ", ".join(left)
        return s


def _uleb(d, p):
    """(value, position after) of the ULEB128 at p."""
    v = shift = 0
    while True:
        b = d[p]
        p += 1
        v |= (b & 0x7f) << shift
        if b < 0x80:
            return v, p
        shift += 7


def _skip_leb(d, p):
    while d[p] & 0x80:
        p += 1
    return p + 1


def _entry_values(d, p, end, asz, osz):
    """The positions of the entry value operators of the expression
    d[p:end], decoded op by op; None if it does not decode (an operator
    _OPS does not know, or operands running past its end)."""
    evs = []
    try:
        while p < end:
            op = d[p]
            spec = _OPS[op]
            if spec is None:
                return None
            if op == OP_entry_value or op == OP_GNU_entry_value:
                evs.append(p)
            p += 1
            for k in spec:
                if k == "u" or k == "s":
                    p = _skip_leb(d, p)
                elif k == "a":
                    p += asz
                elif k == "r":
                    p += osz
                elif k == "b":
                    n, p = _uleb(d, p)
                    p += n
                elif k == "c":
                    p += 1 + d[p]
                else:
                    p += k
    except IndexError:
        return None
    return evs if p == end else None


def _rewrite(d, p):
    """(the bytes replacing it, register) for the entry value operator at
    p, or None if it is of another form than the two we rewrite."""
    n, blk, tail = d[p + 1], d[p + 2], d[p + 3] if p + 3 < len(d) else -1
    if n == 1 and blk - OP_reg0 in EV_REGS:
        reg = blk - OP_reg0
        return bytes((OP_const1u, ev_addr(reg), OP_deref)), reg
    if n == 2 and tail == 0 and blk - OP_breg0 in EV_REGS:
        reg = blk - OP_breg0
        return bytes((OP_const1u, ev_addr(reg), OP_deref, OP_nop)), reg
    return None


class _Lists:
    """The location lists of one .debug_loclists unit (DWARF 5) or of a
    .debug_loc (DWARF 4) in d: how to read one."""

    def __init__(self, d, version, asz, osz, code, xforms=True, relocs=None) -> None:
        self.d = d
        self.version = version
        self.asz, self.osz = asz, osz
        # [(start, end)] of the file's code, where an address must point;
        # None in a relocatable file, whose addresses are relocations
        # (relocs: the positions in d they apply to)
        self.code = code
        self.relocs = relocs or frozenset()
        # the file has a .debug_addr, which the DW_LLE_*x entries index
        self.xforms = xforms

    def _addr(self, p):
        """Whether the address at p can be one (strict parsing)."""
        if self.code is None:
            return p in self.relocs
        a = int.from_bytes(self.d[p:p + self.asz], "little")
        return any(lo <= a <= hi for lo, hi in self.code)

    def parse(self, p, end, strict=False):
        """The list at p: (position after it, [(expression, length)]), or
        None if the bytes at p are not one that ends by end.  strict, when
        guessing where lists are: also None if an expression is empty or
        does not decode, an address is outside the code, or an entry is a
        DW_LLE_default_location (GCC writes none of these)."""
        try:
            if self.version == 5:
                return self._loclists(p, end, strict)
            return self._loc(p, end, strict)
        except IndexError:
            return None

    def _expr(self, p, n, strict):
        return not strict or (n and _entry_values(self.d, p, p + n, self.asz, self.osz)
                              is not None)

    def _loclists(self, p, end, strict):
        d, asz, ex = self.d, self.asz, []
        while p < end:
            c = d[p]
            p += 1
            if c == 0:                  # DW_LLE_end_of_list
                return p, ex
            if c == 4:                  # offset_pair
                b, p = _uleb(d, p)
                e, p = _uleb(d, p)
                if b > e:
                    return None
            elif c == 8:                # start_length
                if strict and not self._addr(p):
                    return None
                p = _skip_leb(d, p + asz)
            elif c == 6:                # base_address
                if strict and not self._addr(p):
                    return None
                p += asz
                continue
            elif c == 7:                # start_end
                if strict and not (self._addr(p) and self._addr(p + asz)):
                    return None
                p += 2 * asz
            elif c == 3 or c == 2:      # startx_length, startx_endx
                if not self.xforms:
                    return None
                p = _skip_leb(d, _skip_leb(d, p))
            elif c == 1:                # base_addressx
                if not self.xforms:
                    return None
                p = _skip_leb(d, p)
                continue
            elif c == 9:                # GNU_view_pair (-gvariable-location-views=incompat5)
                p = _skip_leb(d, _skip_leb(d, p))
                continue
            elif c != 5 or strict:      # 5: default_location
                return None
            n, p = _uleb(d, p)
            if not self._expr(p, n, strict):
                return None
            ex.append((p, n))
            p += n
        return None

    def _loc(self, p, end, strict):
        d, asz, ex = self.d, self.asz, []
        top = (1 << (8 * asz)) - 1
        while p + 2 * asz <= end:
            b = int.from_bytes(d[p:p + asz], "little")
            e = int.from_bytes(d[p + asz:p + 2 * asz], "little")
            at = p
            p += 2 * asz
            if b == top:                # base address selection
                if strict and not self._addr(at + asz):
                    return None
                continue
            if b == 0 and e == 0 and at not in self.relocs:
                return p, ex
            if b > e:
                return None
            n = d[p] | d[p + 1] << 8
            p += 2
            if p + n > end or not self._expr(p, n, strict):
                return None
            ex.append((p, n))
            p += n
        return None


class _Starts:
    """Where .debug_info says lists begin, as positions in the buffer
    (base + offset): in order, and whether each is a view list."""

    def __init__(self, base, offs, views) -> None:
        self.sorted = array.array("q", sorted({base + o for o in offs}))
        self.view = bytearray(o - base in views for o in self.sorted)


def _anchored(lists, start, end, starts, st):
    """Yields the expressions of each list in [start, end) that starts
    points at.  A list runs to the next start (or end); one holding no
    a3/f3 byte is only counted."""
    d, s, view = lists.d, starts.sorted, starts.view
    i, j = bisect.bisect_left(s, start), bisect.bisect_left(s, end)
    for k in range(i, j):
        if view[k]:
            continue
        p = s[k]
        nxt = s[k + 1] if k + 1 < j else end
        st.lists += 1
        if not _HAS_EV.search(d, p, nxt):
            continue
        a = lists.parse(p, nxt)
        if a is None or a[0] != nxt:
            st.unparsed += 1
            continue
        yield a[1]


# A cut that held for this many lists is not undone (bounds the memory of
# a walk over a whole .debug_loc)
_KEEP = 4096
# At most this many view pairs before a list (Debian's 6.1 vmlinux: 836)
_MAX_VIEWS = 4096


class _Tiler:
    """Cuts [start, end) into lists when .debug_info's offsets are not at
    hand (see the module's comment).  First as lists alone (clang, or GCC
    with -gno-variable-location-views): every list start must parse.
    Else each list may follow its view pairs: at a list start, the ways
    are k view pairs then a list of exactly k expressions, k = 1, 2, ...,
    then a list alone; the walk takes the first way that parses and comes
    back for the next only if what follows cannot be cut.  Parsing is
    strict (_Lists.parse), so that a wrong cut soon fails."""

    def __init__(self, lists) -> None:
        self.lists = lists

    def _ways(self, p, end):
        parse, d = self.lists.parse, self.lists.d
        q, k = p, 0
        try:
            while k < _MAX_VIEWS:
                q = _skip_leb(d, _skip_leb(d, q))
                k += 1
                if q >= end:
                    break
                b = parse(q, end, True)
                if b and len(b[1]) == k:
                    yield b
        except IndexError:
            pass
        a = parse(p, end, True)
        if a and a[1]:
            yield a

    def _alone(self, start, end):
        out, p = [], start
        while p < end:
            a = self.lists.parse(p, end, True)
            if not a or not a[1]:
                return None
            out.append(a[1])
            p = a[0]
        return out

    def cut(self, start, end, st):
        """Yields the expressions of every list; st.unparsed += 1 if the
        range cannot be cut (lists yielded before stay)."""
        alone = self._alone(start, end)
        if alone is not None:
            st.lists += len(alone)
            yield from alone
            return
        path = []       # [position, its ways, the list taken] since the last batch
        dead = set()    # positions from which [p, end) cannot be cut
        p = start
        while p != end:
            if p < end and p not in dead:
                path.append([p, self._ways(p, end), None])
            else:
                dead.add(p)
            while path:
                way = next(path[-1][1], None)
                if way is not None:
                    path[-1][2] = way[1]
                    p = way[0]
                    break
                dead.add(path.pop()[0])
            else:
                st.unparsed += 1
                return
            if len(path) > 2 * _KEEP:
                for _, _, exprs in path[:_KEEP]:
                    st.lists += 1
                    yield exprs
                del path[:_KEEP]
        for _, _, exprs in path:
            st.lists += 1
            yield exprs


def _patch_lists(lists, it, st, out):
    """Append (position, new bytes, register) to out for each entry value
    to rewrite in the expressions it yields."""
    d, asz, osz = lists.d, lists.asz, lists.osz
    for exprs in it:
        st.exprs += len(exprs)
        for p, n in exprs:
            if not _HAS_EV.search(d, p, p + n):
                continue        # no entry value can be in it
            evs = _entry_values(d, p, p + n, asz, osz)
            if evs is None:
                st.unknown += 1
                continue
            for q in evs:
                new = _rewrite(d, q)
                if new:
                    out.append((q, new[0], new[1]))
                else:
                    st.other_ev += 1


def _patch_loclists(d, start, end, starts, how, st, out):
    """Every unit of a .debug_loclists in d[start:end]; how: _Lists'
    code, xforms and relocs."""
    p = start
    while p + 12 <= end:
        ulen, = struct.unpack_from("<I", d, p)
        osz, hdr = 4, 4
        if ulen == 0xffffffff:
            ulen, = struct.unpack_from("<Q", d, p + 4)
            osz, hdr = 8, 12
        uend = p + hdr + ulen
        ver, asz, _seg, noff = struct.unpack_from("<HBBI", d, p + hdr)
        if ver != 5 or uend > end:
            st.unparsed += 1
            if uend > end:
                return
            p = uend
            continue
        first = p + hdr + 8 + noff * osz
        lists = _Lists(d, 5, asz, osz, **how)
        if starts is not None:
            it = _anchored(lists, first, uend, starts, st)
        else:
            it = _Tiler(lists).cut(first, uend, st)
        _patch_lists(lists, it, st, out)
        p = uend


def _patch_loc(d, start, end, starts, how, st, out):
    """A .debug_loc in d[start:end] (8-byte addresses, 4-byte offsets:
    x86-64, 32-bit DWARF)."""
    lists = _Lists(d, 4, 8, 4, **how)
    if starts is not None:
        it = _anchored(lists, start, end, starts, st)
    else:
        it = _Tiler(lists).cut(start, end, st)
    _patch_lists(lists, it, st, out)


class _ElfHead:
    """The section headers of a 64-bit little-endian ELF file, read by
    read(offset, size) (of a file or a buffer)."""

    def __init__(self, read) -> None:
        hdr = read(0, 64)
        if hdr[:4] != b"\x7fELF" or hdr[4] != 2 or hdr[5] != 1:
            raise ValueError("not a 64-bit little-endian ELF file")
        self.type, = struct.unpack_from("<H", hdr, 0x10)
        shoff, = struct.unpack_from("<Q", hdr, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", hdr, 0x3a)
        raw = read(shoff, shentsize * shnum)
        if len(raw) < shentsize * shnum or shstrndx >= shnum:
            raise ValueError("truncated ELF file")
        heads = [struct.unpack_from("<IIQQQQII", raw, i * shentsize) for i in range(shnum)]
        strtab = read(heads[shstrndx][4], heads[shstrndx][5])
        # [(name, type, offset, size, info, link)]
        self.sections = []
        self.code = []                  # [(start, end)] of the code
        for name, typ, flags, addr, off, size, link, info in heads:
            n = strtab[name:strtab.index(b"\0", name)].decode(errors="replace")
            self.sections.append((n, typ, off, size, info, link))
            if flags & SHF_ALLOC and flags & SHF_EXECINSTR and size:
                self.code.append((addr, addr + size))
        self.read = read

    def find(self, want):
        """(index, offset, size) of section want, None if absent or empty."""
        for i, (n, typ, off, size, _, _) in enumerate(self.sections):
            if n == want and typ != SHT_NOBITS and size:
                return i, off, size
        return None

    def _rela_of(self, index):
        """The relocation sections that apply to section index."""
        return [s for s in self.sections if s[1] == SHT_RELA and s[4] == index]

    def reloc_offsets(self, index):
        """The offsets in section index that relocations apply to."""
        offs = set()
        for _, _, off, size, _, _ in self._rela_of(index):
            offs.update(r[0] for r in struct.iter_unpack("<QQq", self.read(off, size)))
        return offs

    def referenced(self, index):
        """(the offsets into section index that .debug_info holds, the set
        of those that are view lists), read off the relocations of
        .debug_info; None when there are none."""
        info = self.find(".debug_info")
        relas = self._rela_of(info[0]) if info else []
        if not relas:
            return None
        _, _, off, size, _, link = relas[0]
        sym = self._section_symbol(link, index)
        if sym is None:
            return None
        # R_X86_64_32 (or _64, 64-bit DWARF) against the section's symbol:
        # r_addend is the offset.  bytes.find, not a loop over a vmlinux's
        # 11 million records (2 s instead of 8), a chunk at a time (its
        # 270 MB are not held at once), into arrays (1.5 million tuples
        # would take 250 MB)
        wheres, offs, sizes = array.array("Q"), array.array("q"), array.array("B")
        chunk = 24 << 20
        for base in range(0, size, chunk):
            rela = self.read(off + base, min(chunk, size - base))
            for rtype, rsize in ((R_X86_64_32, 4), (R_X86_64_64, 8)):
                want = struct.pack("<II", rtype, sym)
                p = rela.find(want)
                while p >= 0:
                    if p % 24 == 8:
                        where, _, o = struct.unpack_from("<QQq", rela, p - 8)
                        wheres.append(where)
                        offs.append(o)
                        sizes.append(rsize)
                    p = rela.find(want, p + 8)
        order = range(len(wheres))
        if any(wheres[i] > wheres[i + 1] for i in range(len(wheres) - 1)):
            order = sorted(order, key=wheres.__getitem__)
        # GCC writes DW_AT_GNU_locviews right after DW_AT_location: of two
        # adjacent references, the lower offset is the view list
        views = set()
        prev = None
        for i in order:
            if prev is not None and wheres[i] == wheres[prev] + sizes[prev] \
                    and offs[i] != offs[prev]:
                views.add(min(offs[i], offs[prev]))
            prev = i
        return offs, views

    def _section_symbol(self, symtab, index):
        """The index in symtab of section index's STT_SECTION symbol."""
        _, typ, off, size, _, _ = self.sections[symtab]
        if typ != SHT_SYMTAB:
            return None
        # the section symbols are among the first, local ones: read a
        # megabyte at a time, not all of a vmlinux's 4 MB
        for base in range(0, size, 1 << 20):
            data = self.read(off + base, min(1 << 20, size - base) // 24 * 24)
            for i, (_, info, _, shndx, _, _) in enumerate(struct.iter_unpack("<IBBHQQ", data)):
                if info & 0xf == STT_SECTION and shndx == index:
                    return base // 24 + i
        return None

    def build_id(self):
        for _, typ, off, size, _, _ in self.sections:
            if typ == SHT_NOTE:
                bid = _kallsyms.notes_build_id(self.read(off, size))
                if bid:
                    return bid
        return None


SECTIONS = (".debug_loclists", ".debug_loc")


def _patch_section(head, name, d, start, st, guess=False):
    """Rewrite the entry values of section name, whose bytes are
    d[start:start + its size]; returns the [(position in d, new bytes)].
    guess: cut its lists without .debug_info's offsets (for the tests)."""
    sec = head.find(name)
    if not sec:
        return []
    end = start + sec[2]
    ref = None if guess else head.referenced(sec[0])
    starts = None
    if ref is not None:
        starts = _Starts(start, *ref)
    st.how.append("%s: %s" % (name, "offsets from .debug_info" if starts is not None
                              else "guessed cut"))
    how = {"code": head.code, "xforms": bool(head.find(".debug_addr"))}
    if head.type == ET_REL:
        how.update(code=None, relocs={start + r for r in head.reloc_offsets(sec[0])})
    out = []
    if name == ".debug_loclists":
        _patch_loclists(d, start, end, starts, how, st, out)
    else:
        _patch_loc(d, start, end, starts, how, st, out)
    for p, new, reg in out:
        d[p:p + len(new)] = new
        st.patched[reg] += 1
    return [(p, new) for p, new, _ in out]


def patch_image(buf: bytearray, guess: bool = False) -> Stats:
    """Rewrite the entry values of the ELF file in buf (a .ko), in place."""
    st = Stats()
    head = _ElfHead(lambda off, size: bytes(buf[off:off + size]))
    for name in SECTIONS:
        sec = head.find(name)
        if sec:
            _patch_section(head, name, buf, sec[1], st, guess)
    return st


def patch_file(src: str, dst: str, guess: bool = False) -> Stats:
    """Write to dst a copy of the ELF file src with its entry values
    rewritten, all else byte for byte (build id, .gdb_index).  Only the
    location list sections (and .debug_info's relocations) are read into
    memory; the copy is made under a temporary name and renamed, so dst
    is never half written."""
    st = Stats()
    patches = []
    with open(src, "rb") as f:
        def read(off, size):
            f.seek(off)
            return f.read(size)
        head = _ElfHead(read)
        for name in SECTIONS:
            sec = head.find(name)
            if sec:
                d = bytearray(read(sec[1], sec[2]))
                patches += [(sec[1] + p, new)
                            for p, new in _patch_section(head, name, d, 0, st, guess)]
    fd, tmp = tempfile.mkstemp(prefix=".gtp-ev-", dir=os.path.dirname(os.path.abspath(dst)))
    os.close(fd)
    try:
        shutil.copyfile(src, tmp)
        with open(tmp, "r+b") as out:
            for off, new in patches:
                out.seek(off)
                out.write(new)
        os.chmod(tmp, 0o644)
        os.rename(tmp, dst)
    except BaseException:
        os.unlink(tmp)
        raise
    return st


# The patched copy: next to the file (FILE.gtp-ev), else in the user's
# cache, by build id.  FILE.gtp-ev.json records what it was made from (and
# its stats, for the load message): it is current while the source's size,
# mtime and build id, the copy's size and mtime and VERSION are the same.
SUFFIX = ".gtp-ev"


class EntryvalError(Exception):
    pass


def _cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "gtp")


def places(src: str, build_id: Optional[str]) -> list[str]:
    """Where the patched copy of src may be, in the order tried.  By the
    file's real path: the copy made through one symlinked directory (a
    worktree's build/dbg) is the same file's copy through another."""
    src = os.path.realpath(src)
    key = build_id or hashlib.sha1(src.encode()).hexdigest()
    return [src + SUFFIX, os.path.join(_cache_dir(), key, os.path.basename(src) + SUFFIX)]


def _source_key(src: str) -> dict:
    s = os.stat(src)
    with open(src, "rb") as f:
        def read(off, size):
            f.seek(off)
            return f.read(size)
        bid = _ElfHead(read).build_id()
    return {"path": os.path.realpath(src), "size": s.st_size, "mtime": int(s.st_mtime),
            "build_id": bid}


def _copy_key(copy: str) -> list:
    s = os.stat(copy)
    return [s.st_size, int(s.st_mtime)]


def current(copy: str, key: dict) -> Optional[Stats]:
    """The stats of copy if it is a current patched copy of key's file."""
    try:
        with open(copy + ".json") as f:
            stamp = json.load(f)
        if (stamp.get("version") != VERSION or stamp.get("source") != key
                or stamp.get("copy") != _copy_key(copy)):
            return None
        return Stats.from_dict(stamp["stats"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def make(src: str, copy: str, key: dict) -> Stats:
    """Patch src into copy and stamp it."""
    os.makedirs(os.path.dirname(copy), exist_ok=True)
    st = patch_file(src, copy)
    stamp = {"version": VERSION, "source": key, "copy": _copy_key(copy),
             "stats": st.as_dict()}
    tmp = copy + ".json.tmp"
    with open(tmp, "w") as f:
        json.dump(stamp, f, indent=1)
        f.write("\n")
    os.rename(tmp, copy + ".json")
    return st


def patched_copy(src: str, log: Optional[Callable[[str], None]] = None) -> tuple[str, Stats]:
    """(path, stats) of a current patched copy of src, made if there is
    none (log(line) is told first: it takes a while); EntryvalError saying
    why there can be none."""
    try:
        key = _source_key(src)
    except (OSError, ValueError) as e:
        raise EntryvalError("cannot read %s: %s" % (src, getattr(e, "strerror", None) or e))
    where = places(src, key["build_id"])
    for copy in where:
        st = current(copy, key)
        if st is not None:
            return copy, st
    why = []
    for copy in where:
        d = os.path.dirname(copy)
        probe = d
        while not os.path.exists(probe):
            probe = os.path.dirname(probe)
        if not os.access(probe, os.W_OK):
            why.append("%s is not writable" % probe)
            continue
        if log:
            log("writing %s: %s with its entry values rewritten (once per file)" % (copy, src))
        try:
            return copy, make(src, copy, key)
        except OSError as e:
            why.append("cannot write %s: %s" % (copy, e.strerror or e))
        except ValueError as e:
            raise EntryvalError("%s: %s" % (src, e))
    raise EntryvalError("no patched copy: " + "; ".join(why))


def main(argv: list[str]) -> int:
    """entryval.py FILE: make FILE's patched copy unless there is a current
    one, and say what was patched.  entryval.py [--guess] FILE OUT: patch
    FILE into OUT and print the stats as JSON (measurements, tests)."""
    import time
    guess = "--guess" in argv
    argv = [a for a in argv if a != "--guess"]
    t0 = time.time()
    if len(argv) == 1:
        made = []

        def log(line):
            made.append(line)
            print("gtp: " + line, file=sys.stderr)
        try:
            copy, st = patched_copy(argv[0], log)
        except EntryvalError as e:
            print("gtp: %s" % e, file=sys.stderr)
            return 1
        if made:
            print("gtp: %s: %s, in %.1fs" % (copy, st.summary(), time.time() - t0))
        return 0
    if len(argv) != 2:
        print("usage: entryval.py FILE | entryval.py [--guess] FILE OUT", file=sys.stderr)
        return 2
    st = patch_file(argv[0], argv[1], guess)
    print(json.dumps(dict(st.as_dict(), secs=round(time.time() - t0, 1))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
