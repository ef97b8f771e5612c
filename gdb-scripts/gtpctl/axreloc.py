# SPDX-License-Identifier: GPL-2.0
"""gtpctl/axreloc.py - kernel addresses inside actions and bytecode.

A tracepoint's actions ("R<mask>", "M<base>,<offset>,<len>", "X<len>,<hex
bytecode>") and its condition ("X<len>,<hex>") carry kernel addresses in
two places:

  - absolute memory ranges: "M-1,<addr>,<len>" (gdb's `collect some_global`);
  - bytecode constants: gdb's ax_const_l() emits the shortest constant that
    sign-extends to the value, so a kernel or module address (top 2 GiB)
    is "const32 <low 32 bits>; ext 32", anything else in the kernel half
    is "const64 <8 bytes>".

unbind() turns them into references a session file can keep:

  M-1,{vmlinux-or-mod:sym+0xoff},4      an address in the M action
  ...24{32:sym+0xoff}1620...            const32 + ext 32
  ...25{64:sym+0xoff}...                const64
  {=0xffff888003c4a000}                 no symbol covers it: only valid on
                                        the boot it was recorded on

and bind() puts this boot's addresses back, refusing what it cannot.
Constants below the kernel half (2*counter1+3 etc.) are left alone.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .ksyms import KERNEL_LOW
from .trace import TraceError

if TYPE_CHECKING:
    from .ksyms import Kallsyms

# operand bytes after each opcode (gdb's ax.def; 0x34 printf is variable)
_IMM = {0x0d: 1, 0x16: 1, 0x20: 2, 0x21: 2, 0x22: 1, 0x23: 2, 0x24: 4, 0x25: 8,
        0x26: 2, 0x2a: 1, 0x2c: 2, 0x2d: 2, 0x2e: 2, 0x30: 2, 0x32: 1}
CONST32, CONST64, EXT = 0x24, 0x25, 0x16
_REF = re.compile(r"\{(?:(32|64):)?([^{}]+)\}")


def _sext32(v):
    return v - (1 << 32) if v & 0x80000000 else v


def _addr_ref(addr, ks, absolutes):
    name = ks.name(addr)
    if name:
        return name
    absolutes.append(addr)
    return "=0x%x" % addr


def unbind_bytecode(code: bytes, ks: Kallsyms, absolutes: set[int]) -> str:
    """Hex of code with kernel-address constants as {32:...}/{64:...}."""
    out, i, n = [], 0, len(code)
    while i < n:
        op = code[i]
        if op == 0x34:                                  # printf: nargs, len16, string
            k = 4 + int.from_bytes(code[i + 2:i + 4], "big") if i + 4 <= n else n - i
        else:
            k = 1 + _IMM.get(op, 0)
        addr = None
        if op == CONST64 and i + 9 <= n:
            v = int.from_bytes(code[i + 1:i + 9], "big")
            if v >= KERNEL_LOW:
                addr, width = v, 64
        elif op == CONST32 and i + 7 <= n and code[i + 5] == EXT and code[i + 6] == 32:
            v = _sext32(int.from_bytes(code[i + 1:i + 5], "big")) & (2 ** 64 - 1)
            if v >= KERNEL_LOW:
                addr, width = v, 32
        if addr is None:
            out.append(code[i:i + k].hex())
        else:
            out.append("%02x{%d:%s}" % (op, width, _addr_ref(addr, ks, absolutes)))
        i += k
    return "".join(out)


def _actions(s):
    """Split an action string into (kind, text) items."""
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c == "X":
            comma = s.index(",", i)
            ln = int(s[i + 1:comma], 16)
            j = comma + 1 + 2 * ln
        elif c in "RM":
            j = i + 1
            while j < len(s) and s[j] in "0123456789abcdefABCDEF,-":
                j += 1
        else:                                           # L, S...: kept whole
            j = len(s)
        out.append((c, s[i:j]))
        i = j
    return out


def unbind_text(addr: int, ks: Kallsyms, absolutes: set[int]) -> str:
    """{reference} of addr for text that holds it in hex (bind: "%x")."""
    return "{%s}" % _addr_ref(addr, ks, absolutes)


def unbind(s: str, ks: Kallsyms, absolutes: set[int]) -> str:
    """An action (or 'X' condition) string with its addresses as references."""
    out = []
    try:
        items = _actions(s)
    except ValueError:
        raise TraceError("malformed action %r" % s)
    for kind, text in items:
        if kind == "X":
            ln, _, hexcode = text[1:].partition(",")
            out.append("X%s,%s" % (ln, unbind_bytecode(bytes.fromhex(hexcode), ks, absolutes)))
        elif kind == "M" and text.startswith("M-1,"):
            _, addr, ln = text.split(",")
            out.append("M-1,%s,%s" % (unbind_text(int(addr, 16), ks, absolutes), ln))
        else:
            out.append(text)
    return "".join(out)


def bind(s: str, ks: Kallsyms, same_boot: bool) -> str:
    """The inverse of unbind() on this boot: references become addresses.
    TraceError names what cannot be bound."""
    def sub(m):
        width, ref = m.group(1), m.group(2)
        if ref.startswith("="):
            if not same_boot:
                raise TraceError("constant %s has no symbol (heap, vmalloc or per-CPU "
                                 "memory): it is only valid on the boot it was saved on"
                                 % ref[1:])
            addr = int(ref[1:], 16)
        else:
            addr = ks.resolve(ref)
        if width is None:
            return "%x" % addr
        if width == "64":
            return addr.to_bytes(8, "big").hex()
        if not -(1 << 31) <= addr - (1 << 64) < (1 << 31):
            raise TraceError("%s is at 0x%x here: out of reach of the 32-bit constant "
                             "gdb encoded it as" % (ref, addr))
        return (addr & 0xffffffff).to_bytes(4, "big").hex()
    return _REF.sub(sub, s)


def refs(s: str) -> list[str]:
    """The symbol references in an unbound string."""
    return [m.group(2) for m in _REF.finditer(s) if not m.group(2).startswith("=")]
