# SPDX-License-Identifier: GPL-2.0
"""gtpctl/trace.py - a trace in memory, however it was read.

A Trace holds what gdb's trace file holds (protocol reference 6): the
register block size, the status, the trace state variables, the
tracepoint definitions (the qTfP pieces: T definition, A actions, Z source
strings, V hit counts) and the frames.  tfile.py fills one from a file,
remote.py from /proc/gtp; keys.py and the subcommands only see this.

A frame is the tfile frame format: int16 tracepoint number, u32 size,
then blocks 'R' regs | 'M' u64 addr u16 len bytes | 'V' s32 tsv s64 value;
frames from /proc/gtp_stream may also hold gtp's 'r' block (abi.RSUB_BLOCK:
u32 mask, then the masked registers' values), which a Frame reads as the
'R' block the kernel would serve for it (the registers it lacks zero).
Frames are parsed when first looked at.
"""
from __future__ import annotations

import re
import struct
from typing import Any, Optional

from .abi import RSUB_BLOCK

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")

# gdb's amd64 'g' layout: 17 64-bit registers, then eflags and the
# segment registers as 32-bit values (164 bytes).
REGS64 = ("rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
          "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip")
REGS32 = ("eflags", "cs", "ss", "ds", "es", "fs", "gs")
REG_NUM = {n: i for i, n in enumerate(REGS64 + REGS32)}
RIP = REG_NUM["rip"]


def reg_offset(num: int) -> tuple[int, int]:
    """(offset, size) of gdb register num in the R block."""
    if num < len(REGS64):
        return num * 8, 8
    return len(REGS64) * 8 + (num - len(REGS64)) * 4, 4


def rsub_len(mask: int) -> Optional[int]:
    """Bytes of the values of an 'r' block of mask; None when it names a
    register past ss (19): pt_regs holds no other, the module never
    writes one."""
    if mask >> (REG_NUM["ss"] + 1):
        return None
    return sum(reg_offset(n)[1] for n in rsub_regs(mask))


def rsub_regs(mask: int) -> list[int]:
    """The registers of an 'r' block of mask, in the order of its values."""
    return [n for n in range(len(REG_NUM)) if mask >> n & 1]


def rsub_to_regs(d: bytes, vals: int, mask: int, regsize: int) -> bytes:
    """The 'R' block bytes of the 'r' block whose values start at d[vals]."""
    out = bytearray(regsize)
    for n in rsub_regs(mask):
        off, size = reg_offset(n)
        out[off:off + size] = d[vals:vals + size]
        vals += size
    return bytes(out)


class TraceError(Exception):
    """A trace (file or target) gtp-ctl cannot use; the text says why."""


def parse_status(text: str) -> dict[str, str]:
    """A qTStatus reply (or a tfile 'status' line) -> {field: value}, in order:
    the stop reason (tnotrun, tstop, ...) first, then tframes, tsize, ..."""
    fields = {}
    for field in text.split(";")[1:]:
        k, _, v = field.partition(":")
        fields[k] = v
    return fields


def status_number(fields: dict[str, str], key: str) -> int:
    """A hex field of parse_status()'s result; 0 when absent or malformed."""
    try:
        return int(fields.get(key, "0") or "0", 16)
    except ValueError:
        return 0


class Tracepoint:
    def __init__(self, number: int, addr: int) -> None:
        self.number = number
        self.addr = addr
        self.enabled = True
        self.cond = None          # source text
        self.at = None            # source text of the location
        self.actions = []         # action strings (A pieces), in order
        self.commands = []        # source lines (Z cmd pieces), in order
        self.hits = None

    def regmask(self) -> int:
        """Registers the actions collect (bit i = gdb register i)."""
        mask = 0
        for a in self.actions:
            for kind, val in parse_actions(a):
                if kind == "R":
                    mask |= val
        return mask

    def mem_blocks(self) -> list[tuple[int, int, int]]:
        """[(basereg, offset, len)] of the M actions."""
        return [val for a in self.actions for kind, val in parse_actions(a)
                if kind == "M"]

    def mem_names(self) -> dict[tuple[int, int], str]:
        """{(addr, len): item} for the absolute memory ranges of the actions
        that a `collect` item names for sure."""
        # gdb sorts and merges memory ranges, so only one range and one plain
        # identifier pair up for sure
        ranges = [(off, ln) for base, off, ln in self.mem_blocks() if base in (-1, 0xffffffff)]
        items = [i for i in self.collect_items() if _IDENT.match(i)]
        if len(ranges) == 1 and len(items) == 1:
            return {ranges[0]: items[0]}
        return {}

    def expr_actions(self) -> int:
        return sum(1 for a in self.actions for kind, _ in parse_actions(a)
                   if kind == "X")

    def collect_items(self) -> list[str]:
        """The items of the tracepoint's `collect` lines, as written."""
        items = []
        for line in self.commands:
            s = line.strip()
            if s.startswith("collect"):
                body = s[len("collect"):]
                if body.startswith("/"):
                    body = body.split(None, 1)[1] if " " in body else ""
                items += [i.strip() for i in split_commas(body) if i.strip()]
        return items


def split_commas(text: str) -> list[str]:
    """Split on top-level commas (not inside parentheses or brackets)."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return out


def parse_actions(s: str) -> list[tuple[str, Any]]:
    """Walk one action string: [("R", mask) | ("M", (base, off, len)) |
    ("X", bytecode_len) | ("L", None)]; stepping ('S' prefix) actions are
    skipped (gtp refuses while-stepping anyway)."""
    out = []
    i = 0
    if s.startswith("S"):
        return out
    while i < len(s):
        c = s[i]
        if c == "R":
            j = i + 1
            while j < len(s) and s[j] in "0123456789abcdefABCDEF":
                j += 1
            out.append(("R", int(s[i + 1:j] or "0", 16)))
            i = j
        elif c == "M":
            j = i + 1
            parts = []
            for _ in range(3):
                k = j
                while k < len(s) and (s[k] in "0123456789abcdefABCDEF-"):
                    k += 1
                parts.append(s[j:k])
                j = k + 1 if k < len(s) and s[k] == "," else k
            try:
                base, off, ln = int(parts[0], 16), int(parts[1], 16), int(parts[2], 16)
            except ValueError:
                raise TraceError("malformed M action in %r" % s)
            out.append(("M", (base, off, ln)))
            i = j
        elif c == "X":
            ln = int(s[i + 1:i + 9], 16)
            out.append(("X", ln))
            i = i + 10 + 2 * ln
        elif c == "L":
            out.append(("L", None))
            i += 1
        else:
            raise TraceError("unknown action %r in %r" % (c, s))
    return out


_M_HEAD = struct.Struct("<QH")
_V_BODY = struct.Struct("<iq")


def walk_blocks(d: bytes, regsize: int, start: int = 0, end: Optional[int] = None
                ) -> list[tuple[str, int, Optional[int], Optional[int]]]:
    """The blocks of the frame bytes d[start:end], in order: [(kind, offset
    of its type byte, a, b)] with kind "R" (a, b None), "r" (a mask, b
    len: the values are d[offset+5:offset+5+len]), "M" (a addr, b len: the
    bytes are d[offset+11:offset+11+len]) or "V" (a tsv number, b value).
    Offsets count from the start of d, so a frame inside a bigger buffer
    is walked in place."""
    out = []
    i, n = start, len(d) if end is None else end
    while i < n:
        t = d[i]
        if t == 0x52:                       # 'R'
            out.append(("R", i, None, None))
            i += 1 + regsize
        elif t == RSUB_BLOCK and i + 5 <= n:    # 'r'
            mask, = struct.unpack_from("<I", d, i + 1)
            ln = rsub_len(mask)
            if ln is None:
                raise TraceError("'r' block at byte %d names register %d"
                                 % (i - start, mask.bit_length() - 1))
            out.append(("r", i, mask, ln))
            i += 5 + ln
        elif t == 0x4d and i + 11 <= n:     # 'M'
            addr, ln = _M_HEAD.unpack_from(d, i + 1)
            out.append(("M", i, addr, ln))
            i += 11 + ln
        elif t == 0x56 and i + 13 <= n:     # 'V'
            num, val = _V_BODY.unpack_from(d, i + 1)
            out.append(("V", i, num, val))
            i += 13
        elif t in (0x4d, 0x56, RSUB_BLOCK):
            raise TraceError("block %r at byte %d is cut short" % (chr(t), i - start))
        else:
            raise TraceError("unknown block type %r at byte %d" % (chr(t), i - start))
    if i > n:
        raise TraceError("the last block overruns the frame by %d bytes" % (i - n))
    return out


class Frame:
    __slots__ = ("index", "tpnum", "data", "_parsed", "regs", "mem", "tsv", "cpu", "ns")

    def __init__(self, index: int, tpnum: int, data: bytes) -> None:
        self.index = index
        self.tpnum = tpnum
        self.data = data
        self._parsed = False
        self.cpu = self.ns = None     # from the live target only

    def parse(self, regsize: int) -> None:
        if self._parsed:
            return
        self.regs = None
        self.mem = []
        self.tsv = {}
        d = self.data
        try:
            blocks = walk_blocks(d, regsize)
        except TraceError as e:
            raise TraceError("frame %d: %s" % (self.index, e))
        for kind, i, a, b in blocks:
            if kind == "R":
                if self.regs is None:
                    self.regs = d[i + 1:i + 1 + regsize]
            elif kind == "r":
                if self.regs is None:
                    self.regs = rsub_to_regs(d, i + 5, a, regsize)
            elif kind == "M":
                self.mem.append((a, d[i + 11:i + 11 + b]))
            else:
                self.tsv[a] = b                 # the last one wins
        self._parsed = True

    def read(self, addr: int, size: int) -> Optional[bytes]:
        """size bytes at addr from the first M block holding them, or None."""
        for a, b in self.mem:
            if a <= addr and addr + size <= a + len(b):
                return b[addr - a:addr - a + size]
        return None


class Trace:
    def __init__(self, origin: str) -> None:
        self.origin = origin      # a file name or a target path, for messages
        self.regsize = 164
        self.status = {}
        self.tsvs = {}            # number -> name (without '$')
        self.tracepoints = {}     # target number -> Tracepoint
        self.frames = []
        # the definitions as read, for writing a trace file back (tfile.write)
        self.raw_status = None
        self.raw_tsvs = []
        self.raw_pieces = []
        self.tdesc = []           # target description XML lines (architecture)

    def tsv_number(self, name: str) -> Optional[int]:
        for n, nm in self.tsvs.items():
            if nm == name:
                return n
        return None

    def add_piece(self, piece: str) -> None:
        """One qTfP piece / tfile 'tp' line: T, A, S, Z or V."""
        kind, rest = piece[0], piece[1:]
        self.raw_pieces.append(piece)
        f = rest.split(":")
        if len(f) < 2:
            raise TraceError("malformed tracepoint piece %r" % piece)
        num, addr = int(f[0], 16), int(f[1], 16)
        tp = self.tracepoints.get(num)
        if tp is None:
            tp = self.tracepoints[num] = Tracepoint(num, addr)
        if kind == "T":
            tp.enabled = len(f) > 2 and f[2] == "E"
        elif kind == "A":
            tp.actions.append(":".join(f[2:]))
        elif kind == "Z" and len(f) >= 6:
            text = bytes.fromhex(f[5]).decode(errors="replace")
            if f[2] == "at":
                tp.at = text
            elif f[2] == "cond":
                tp.cond = text
            elif f[2] == "cmd":
                tp.commands.append(text)
        elif kind == "V" and len(f) >= 3:
            tp.hits = int(f[2], 16)

    def add_tsv(self, text: str) -> None:
        """"n:value:builtin:hexname" (qTfV / tfile 'tsv' line)."""
        f = text.split(":")
        if len(f) < 4:
            raise TraceError("malformed trace state variable %r" % text)
        self.raw_tsvs.append(text)
        self.tsvs[int(f[0], 16)] = bytes.fromhex(f[3]).decode(errors="replace")

    def add_status(self, text: str) -> None:
        """A tfile 'status' line's text, or a qTStatus reply without its 'T'."""
        self.raw_status = text
        self.status.update(parse_status(text))

    def add_frames(self, buf: bytes) -> None:
        """Frames back to back (qTBuffer bytes / a tfile's tail)."""
        i, n = 0, len(buf)
        while i + 2 <= n:
            tpnum, = struct.unpack_from("<h", buf, i)
            if tpnum == 0:
                break
            if i + 6 > n:
                raise TraceError("%s: truncated frame header at byte %d" % (self.origin, i))
            size, = struct.unpack_from("<I", buf, i + 2)
            if i + 6 + size > n:
                raise TraceError("%s: frame %d is truncated (%d bytes missing)"
                                 % (self.origin, len(self.frames), i + 6 + size - n))
            self.frames.append(Frame(len(self.frames), tpnum, buf[i + 6:i + 6 + size]))
            i += 6 + size
