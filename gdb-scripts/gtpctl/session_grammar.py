# SPDX-License-Identifier: GPL-2.0
"""gtpctl/session_grammar.py - what a session file may say, field by field.

`gtp-ctl start` downloads what a session file says to the kernel, and the
file may come from anywhere (copied between boxes, edited by hand).  So
every field has a grammar and a range here, and anything outside them is
refused with FILE:LINE and what is wrong, before the target is opened:

  gtp-session 1                                 first line
  kernel RELEASE build-id HEX                   once; a real build id
  boot UUID|-                                   once
  module NAME build-id HEX                      once per module; a real id
  buffer size 0xHEX|default circular 0|1        at most once; 1 KiB..1 GiB
  disconnected 0|1                              at most once
  tsv N initial S64 builtin 0|1 name IDENT      N 1..65535, IDENT < 64 bytes
  tracepoint N at REF enabled|disabled step 0 pass P [static]
    cond X<len>,<bytecode>                      N 1..0x7fff, P < 2^32
    action <actions>                            up to 128 lines
    source at|cond|cmd START TEXT|hex:HEX       up to 256, 64 KiB in all
  end                                           last line

REF is sym+0xOFF, mod:sym+0xOFF or sym#K+0xOFF (ksyms.py).  Inside
bytecode a reference is only the operand of const32 (then ext 32) or
const64: {32:REF} and {64:REF}, or {32:=0xADDR} for an address no symbol
covers.  An action is R<mask>, M<reg>,<off>,<len> (M-1,{REF},<len> or
M-1,{=0xADDR},<len> for absolute memory), X<len8>,<bytecode> (the length
in 8 hex digits, as gdb writes it) or L.  The
bytecode's length must be its declared length (1..1024 bytes, the
kernel's limit), every opcode must be one of gdb's agent expression
opcodes with all its operand bytes.  Nothing here can put '$', '#', '}'
or '*' into a packet: every field is a number, hex, a name that is
resolved to a number, or text that travels hex-encoded (QTDPsrc).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator, List, Optional, Tuple, Union

from .axreloc import _IMM, CONST32, CONST64, EXT

VERSION = "1"

# The kernel's limits (module/core/*.h); past them it would refuse anyway,
# after the target was cleared.
AX_MAX_CODE = 1024              # bytes of one agent expression
TP_NUM_MAX = 0x7fff             # tracepoint numbers fit a frame's int16
TP_MAX = 4096                   # tracepoint locations
TP_CHUNKS_MAX = 128             # action packets per location
TP_SRCS_MAX = 256               # source strings per location
TP_SRC_BYTES_MAX = 64 * 1024    # and their bytes
TSV_MAX = 256
TSV_NUM_MAX = 0xffff
TSV_NAME_MAX = 63
NR_GDB_REGS = 18                # M<reg>: rax..r15, rip, eflags
BUF_MIN, BUF_MAX = 1024, 1 << 30
MEM_LEN_MAX = 1 << 30           # no M range is longer than the largest buffer
FILE_MAX = 16 << 20
LINE_MAX = 64 * 1024

_KNOWN_OPS = set(range(0x01, 0x35)) - {0x31}    # gdb's ax.def
_PRINTF = 0x34

_SYM = r"(?:[A-Za-z0-9_]{1,55}:)?[A-Za-z0-9_.]{1,255}(?:#[1-9][0-9]{0,5})?\+0x[0-9a-f]{1,16}"
_RAW = r"=0x[0-9a-f]{1,16}"
SYM_RE = re.compile(r"^%s$" % _SYM)
_REF_IN_CODE = re.compile(r"\{(32|64):(%s|%s)\}" % (_SYM, _RAW))
_REF_PLAIN = re.compile(r"\{(%s|%s)\}" % (_SYM, _RAW))
_HEX = re.compile(r"[0-9a-fA-F]+")
_HEX2 = re.compile(r"[0-9a-fA-F]{2}")
_DEC = re.compile(r"^(0|[1-9][0-9]{0,19})$")
_S64 = re.compile(r"^-?(0|[1-9][0-9]{0,19})$")
_RELEASE = re.compile(r"^[A-Za-z0-9._+~-]{1,64}$")
_BUILD_ID = re.compile(r"^([0-9a-f]{2}){8,64}$")
_BOOT = re.compile(r"^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|-)$")
_MODULE = re.compile(r"^[A-Za-z0-9_]{1,55}$")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,%d}$" % (TSV_NAME_MAX - 1))
_SRC_HEX = re.compile(r"^hex:([0-9a-f]{2})+$")


@dataclass(frozen=True)
class Ref:
    """A kernel address kept by name: width 32/64 (a bytecode constant) or
    None (an M range or a source string); token sym+0xOFF or =0xADDR."""
    width: Optional[int]
    token: str

    @property
    def raw(self) -> Optional[int]:
        return int(self.token[3:], 16) if self.token.startswith("=") else None

    def text(self) -> str:
        return "{%s%s}" % ("%d:" % self.width if self.width else "", self.token)


Unit = Union[int, Ref]      # one bytecode byte, or a 4/8-byte constant by name


@dataclass
class Action:
    kind: str                           # 'R', 'M', 'X' or 'L'
    mask: str = ""                      # R: hex as written
    base: int = 0                       # M: register, -1 absolute
    offset: Union[int, Ref] = 0         # M
    length: int = 0                     # M
    code: Tuple[Unit, ...] = ()         # X
    xlen: str = ""                      # X: the length as written (gdb: 8 digits,
                                        # which trace.py's reader expects back)


class Bad(ValueError):
    """One field is wrong: the text says what (the caller adds FILE:LINE)."""


def _number(text: str, what: str, lo: int, hi: int, regex=_DEC, base: int = 10) -> int:
    if not regex.match(text):
        raise Bad("%s %r is not a number" % (what, text))
    v = int(text, base)
    if not lo <= v <= hi:
        raise Bad("%s %s is out of range (%d..%d)" % (what, text, lo, hi))
    return v


def _hex(text: str, what: str, lo: int, hi: int, digits: int = 16) -> int:
    if not _HEX.fullmatch(text) or len(text) > digits:
        raise Bad("%s %r is not hex of at most %d digits" % (what, text, digits))
    v = int(text, 16)
    if not lo <= v <= hi:
        raise Bad("%s 0x%x is out of range (0x%x..0x%x)" % (what, v, lo, hi))
    return v


def _bytecode_units(s: str, pos: int, count: int) -> Tuple[List[Unit], int]:
    """count bytes of bytecode hex at s[pos:], references counted as their
    width; (units, end)."""
    units: List[Unit] = []
    n = 0
    while n < count:
        if pos >= len(s):
            raise Bad("the bytecode is shorter than its declared %d bytes" % count)
        m = _REF_IN_CODE.match(s, pos)
        if m:
            ref = Ref(int(m.group(1)), m.group(2))
            units.append(ref)
            n += ref.width // 8
            pos = m.end()
            continue
        if s[pos] == "{":
            raise Bad("malformed reference at %r (want {32:sym+0xOFF}, {64:sym+0xOFF} "
                      "or {32:=0xADDR})" % s[pos:pos + 40])
        if not _HEX2.match(s, pos):
            raise Bad("bad hex in bytecode at %r" % s[pos:pos + 20])
        units.append(int(s[pos:pos + 2], 16))
        n += 1
        pos += 2
    if n != count:
        raise Bad("a reference runs past the bytecode's declared %d bytes" % count)
    return units, pos


def flatten(units: List[Unit]) -> list:
    """The bytecode byte by byte: a Ref, then None for its other bytes."""
    flat: list = []
    for u in units:
        flat.append(u)
        if isinstance(u, Ref):
            flat += [None] * (u.width // 8 - 1)
    return flat


def _plain(flat: list, i: int, k: int, what: str) -> bytes:
    out = flat[i:i + k]
    if not all(isinstance(u, int) for u in out):
        raise Bad("a reference is only the operand of const32 or const64 (in %s)" % what)
    return bytes(out)


def instructions(flat: list) -> Iterator[Tuple[int, int, int]]:
    """(offset, opcode, length) of each instruction; Bad on an unknown
    opcode, a cut-off operand or a reference anywhere but a constant."""
    i, n = 0, len(flat)
    while i < n:
        op = flat[i]
        if not isinstance(op, int):
            raise Bad("a reference is only the operand of const32 or const64")
        if op not in _KNOWN_OPS:
            raise Bad("0x%02x at byte %d is not an agent expression opcode" % (op, i))
        if op == _PRINTF:
            head = _plain(flat, i + 1, 3, "printf")
            k = 4 + (int.from_bytes(head[1:3], "big") if len(head) == 3 else 0)
        else:
            k = 1 + _IMM.get(op, 0)
        if i + k > n:
            raise Bad("the bytecode ends inside the operand of opcode 0x%02x at byte %d"
                      % (op, i))
        yield i, op, k
        i += k


def check_bytecode(units: List[Unit]) -> None:
    """Opcode by opcode: known opcodes, whole operands, references only as
    const32 (followed by ext 32) or const64 operands.  (The kernel's
    verifier still checks the stack, jumps and variables.)"""
    flat = flatten(units)
    for i, op, k in instructions(flat):
        ref = flat[i + 1] if k > 1 else None
        if isinstance(ref, Ref):
            want = {CONST32: 32, CONST64: 64}.get(op)
            if ref.width != want:
                raise Bad("{%d:...} is the operand of opcode 0x%02x; a {32:...} reference "
                          "follows const32 (0x24), a {64:...} one const64 (0x25)"
                          % (ref.width, op))
            if want == 32 and flat[i + 5:i + 7] != [EXT, 32]:
                raise Bad("a {32:...} reference must be followed by ext 32 (1620)")
        else:
            _plain(flat, i + 1, k - 1, "opcode 0x%02x" % op)


def parse_actions(s: str, cond: bool = False) -> List[Action]:
    """An action line (or a condition: exactly one X) as Actions."""
    framing = [i for i, ch in enumerate(s) if ch in "$#*"]
    if framing:
        i = framing[0]
        raise Bad("%r at column %d (%r): '$', '#' and '*' frame packets in gdb's protocol "
                  "and are never part of an action or condition" % (s[i], i + 1, s[max(0, i - 12):i + 12]))
    out: List[Action] = []
    pos = 0
    while pos < len(s):
        c = s[pos]
        if cond and out:
            raise Bad("%r after the condition's declared length of bytecode" % s[pos:pos + 20])
        if cond and c != "X":
            raise Bad("a condition is one X<len>,<bytecode>")
        if c == "R":
            m = _HEX.match(s, pos + 1)
            if not m or len(m.group()) > 128:
                raise Bad("R wants a register mask of 1..128 hex digits")
            out.append(Action("R", mask=m.group()))
            pos = m.end()
        elif c == "M":
            m = re.compile(r"M(-1|[0-9a-fA-F]+),(?:(\{[^{}]*\})|([0-9a-fA-F]+)),"
                           r"([0-9a-fA-F]+)").match(s, pos)
            if not m:
                raise Bad("M wants <reg>,<offset>,<len> (M-1,{sym+0xOFF},<len> for "
                          "absolute memory) at %r" % s[pos:pos + 40])
            base = -1 if m.group(1) == "-1" else _hex(m.group(1), "M register", 0,
                                                       NR_GDB_REGS - 1)
            if m.group(2):
                r = _REF_PLAIN.fullmatch(m.group(2))
                if not r or base != -1:
                    raise Bad("M offset %r: a reference is {sym+0xOFF} or {=0xADDR}, "
                              "in M-1 only" % m.group(2))
                offset: Union[int, Ref] = Ref(None, r.group(1))
            else:
                offset = _hex(m.group(3), "M offset", 0, (1 << 64) - 1)
            length = _hex(m.group(4), "M length", 1, MEM_LEN_MAX)
            out.append(Action("M", base=base, offset=offset, length=length))
            pos = m.end()
        elif c == "X":
            m = re.compile(r"X([0-9a-fA-F]+),").match(s, pos)
            if not m:
                raise Bad("X wants <len>,<bytecode> at %r" % s[pos:pos + 20])
            if not cond and len(m.group(1)) != 8:
                raise Bad("an action's X length is 8 hex digits, as gdb writes it (the "
                          "target hands the action back as it was sent): %r" % m.group())
            count = _hex(m.group(1), "bytecode length", 1, AX_MAX_CODE)
            units, pos = _bytecode_units(s, m.end(), count)
            check_bytecode(units)
            out.append(Action("X", code=tuple(units), xlen=m.group(1)))
        elif c == "L":
            out.append(Action("L"))
            pos += 1
        else:
            raise Bad("%r at %r does not start an action (R, M, X or L)" % (c, s[pos:pos + 20]))
    if not out:
        raise Bad("empty")
    return out


def parse_source(text: str) -> Tuple[str, Optional[Ref]]:
    """A source string: plain text, hex:HEX, or the `at` "*0x{REF}"."""
    if text.startswith("hex:"):
        if not _SRC_HEX.match(text):
            raise Bad("hex: wants an even number of lowercase hex digits")
        return text, None
    if any(not ch.isprintable() for ch in text):
        raise Bad("a source string is printable text or hex:HEX")
    m = re.fullmatch(r"\*0x\{(%s|%s)\}" % (_SYM, _RAW), text)
    return text, Ref(None, m.group(1)) if m else None


class Fields:
    """One line's words, read left to right with what each must be."""

    def __init__(self, words: List[str]):
        self.w, self.i = words, 0

    def word(self, what: str) -> str:
        if self.i >= len(self.w):
            raise Bad("%s is missing" % what)
        self.i += 1
        return self.w[self.i - 1]

    def keyword(self, kw: str) -> None:
        got = self.word("%r" % kw)
        if got != kw:
            raise Bad("%r where %r belongs" % (got, kw))

    def match(self, regex, what: str) -> str:
        got = self.word(what)
        if not regex.match(got):
            raise Bad("%s %r is malformed" % (what, got))
        return got

    def choice(self, what: str, *options: str) -> str:
        got = self.word(what)
        if got not in options:
            raise Bad("%s is %s, not %r" % (what, " or ".join(options), got))
        return got

    def end(self) -> None:
        if self.i < len(self.w):
            raise Bad("unexpected %r after the last field" % " ".join(self.w[self.i:]))
