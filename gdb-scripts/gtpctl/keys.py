# SPDX-License-Identifier: GPL-2.0
"""gtpctl/keys.py - the key language: a frame's value without gdb.

Without gdb there is no DWARF, so gtp-ctl cannot evaluate C expressions.
A KEY names something a frame holds:

  KEY  := TERM [":" TYPE]           TYPE: s8 u8 s16 u16 s32 u32 s64 u64
  TERM := REG | "$" REG             a collected register: rax..r15, rip,
                                    eflags, cs, ss, ds, es, fs, gs; eax,
                                    ebx, ecx, edx, esi, edi, ebp, esp and
                                    r8d..r15d are the low 32 bits
        | "mem:" ADDR ":" SIZE      SIZE (1, 2, 4, 8) bytes at ADDR from the
                                    frame's collected memory; ADDR is a
                                    number or a /proc/kallsyms symbol
        | "tsv:" N | "tsv:" NAME    a trace state variable the frame
        | "$" NAME                  collected (collect $cpu_id, teval ...)
        | "tp" | "frame"            the tracepoint number, the frame number
        | ITEM                      an item of the tracepoint's `collect`
                                    lines, as written there (its source
                                    string, QTDPsrc / the tfile's "tp Z"
                                    lines), when it is a register ($rdi), a
                                    trace state variable, a memory cast at a
                                    constant address (*(int *)0xADDR), or the
                                    tracepoint's only collect item and gdb
                                    compiled it to one register (no memory
                                    recorded) or one memory block (e.g.
                                    `collect count` for an argument that
                                    lives in a register there)

Values are signed by default (a register is s64, mem:ADDR:4 is s32, a
memory cast takes its C type); ":uN" reads them unsigned, ":s32" the low 32
bits signed.  A frame that did not collect what KEY names is
<unavailable> for it.

A condition (--if) is "KEY OP NUMBER" with OP one of == != < <= > >=.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from .summary import UNAVAILABLE
from .trace import REG_NUM, REGS64, RIP, reg_offset

if TYPE_CHECKING:
    from .trace import Trace

TYPES = {"s8": (1, True), "u8": (1, False), "s16": (2, True), "u16": (2, False),
         "s32": (4, True), "u32": (4, False), "s64": (8, True), "u64": (8, False)}
REG32 = {"eax": "rax", "ebx": "rbx", "ecx": "rcx", "edx": "rdx", "esi": "rsi",
         "edi": "rdi", "ebp": "rbp", "esp": "rsp"}
REG32.update({"r%dd" % i: "r%d" % i for i in range(8, 16)})
C_TYPES = {"char": (1, True), "signed char": (1, True), "unsigned char": (1, False),
           "short": (2, True), "unsigned short": (2, False),
           "int": (4, True), "unsigned int": (4, False), "unsigned": (4, False),
           "long": (8, True), "unsigned long": (8, False),
           "long long": (8, True), "unsigned long long": (8, False)}
C_TYPES.update({k: v for k, v in TYPES.items()})
C_TYPES.update({"__" + k: v for k, v in TYPES.items()})
_MEMCAST = re.compile(r"^\*\s*\(\s*(?:const\s+|volatile\s+)*([a-z_0-9 ]+?)\s*\*\s*\)\s*"
                      r"\(?\s*(0x[0-9a-fA-F]+|\d+)\s*\)?$")


class KeyError_(ValueError):
    """A key gtp-ctl cannot evaluate; the text says why."""


def _convert(raw, size, signed):
    v = int.from_bytes(raw[:size], "little", signed=signed)
    return v


def _ksym(name):
    try:
        with open("/proc/kallsyms") as f:
            for line in f:
                p = line.split()
                if len(p) >= 3 and p[2] == name:
                    a = int(p[0], 16)
                    return a or None
    except OSError:
        pass
    return None


def _number(text):
    try:
        return int(text, 0)
    except ValueError:
        return None


class Getter:
    """How one tracepoint's frames give the key's value."""

    def __init__(self, kind: str, arg: Any, size: int, signed: bool) -> None:
        self.kind, self.arg, self.size, self.signed = kind, arg, size, signed

    def __call__(self, frame, trace):
        frame.parse(trace.regsize)
        if self.kind == "reg":
            num = self.arg
            tp = trace.tracepoints.get(frame.tpnum)
            off, rsize = reg_offset(num)
            if frame.regs is None or len(frame.regs) < off + rsize or (
                    tp is not None and tp.actions and not (tp.regmask() >> num) & 1
                    and num != RIP):
                if num == RIP and tp is not None:
                    raw = tp.addr.to_bytes(8, "little")
                else:
                    return UNAVAILABLE
            else:
                raw = frame.regs[off:off + rsize]
            return _convert(raw, min(self.size, len(raw)), self.signed)
        if self.kind == "mem":
            raw = frame.read(self.arg, self.size)
            return UNAVAILABLE if raw is None else _convert(raw, self.size, self.signed)
        if self.kind == "tsv":
            v = frame.tsv.get(self.arg)
            if v is None:
                return UNAVAILABLE
            if self.size == 8 and self.signed:
                return v
            return _convert((v & (2 ** 64 - 1)).to_bytes(8, "little"), self.size, self.signed)
        if self.kind == "tp":
            return frame.tpnum
        if self.kind == "frame":
            return frame.index
        raise AssertionError(self.kind)


def _split_type(text):
    m = re.match(r"^(.*):(s8|u8|s16|u16|s32|u32|s64|u64)$", text)
    if m:
        return m.group(1), TYPES[m.group(2)]
    return text, None


def _norm(s):
    s = re.sub(r"\s+", "", s)
    while s.startswith("(") and s.endswith(")") and _balanced(s[1:-1]):
        s = s[1:-1]
    return s


def _balanced(s):
    d = 0
    for c in s:
        d += c == "("
        d -= c == ")"
        if d < 0:
            return False
    return d == 0


def _plain(term, trace, typ):
    """A term that needs no tracepoint (register, mem:, tsv, tp, frame),
    as a Getter, or None when term is not one of those."""
    name = term[1:] if term.startswith("$") else term
    if name in REG_NUM:
        num = REG_NUM[name]
        size, signed = typ or ((8, True) if name in REGS64 else (4, True))
        return Getter("reg", num, size, signed)
    if name in REG32:
        size, signed = typ or (4, True)
        return Getter("reg", REG_NUM[REG32[name]], size, signed)
    if term.startswith("mem:"):
        f = term.split(":")
        if len(f) != 3:
            raise KeyError_("%s: write mem:ADDR:SIZE (SIZE 1, 2, 4 or 8)" % term)
        addr = _number(f[1])
        if addr is None:
            addr = _ksym(f[1])
            if addr is None:
                raise KeyError_("%s: %s is neither a number nor a symbol in "
                                "/proc/kallsyms" % (term, f[1]))
        size = _number(f[2])
        if size not in (1, 2, 4, 8):
            raise KeyError_("%s: SIZE must be 1, 2, 4 or 8" % term)
        if typ and typ[0] > size:
            raise KeyError_("%s: type wider than the %d-byte block" % (term, size))
        size, signed = typ or (size, True)
        return Getter("mem", addr, size, signed)
    if term.startswith("tsv:") or (term.startswith("$") and name not in REG_NUM):
        ref = term[4:] if term.startswith("tsv:") else name
        num = _number(ref)
        if num is None:
            num = trace.tsv_number(ref.lstrip("$"))
        if num is None or num not in trace.tsvs:
            known = ", ".join("$%s (%d)" % (n, k) for k, n in sorted(trace.tsvs.items()))
            raise KeyError_("%s: no trace state variable %s in this trace (known: %s)"
                            % (term, ref, known or "none"))
        size, signed = typ or (8, True)
        return Getter("tsv", num, size, signed)
    if term in ("tp", "frame"):
        return Getter(term, None, 8, True)
    return None


def _resolve_item(item, tp, trace, typ):
    """A collect item of tp as a Getter, or (None, why)."""
    g = None
    try:
        g = _plain(item, trace, typ)
    except KeyError_:
        g = None
    if g is not None and g.kind in ("reg", "tsv", "mem"):
        return g, None
    m = _MEMCAST.match(item.strip())
    if m and re.sub(r"\s+", " ", m.group(1)) in C_TYPES:
        size, signed = C_TYPES[re.sub(r"\s+", " ", m.group(1))]
        if typ:
            size, signed = typ
        return Getter("mem", int(m.group(2), 0), size, signed), None
    items = tp.collect_items()
    regs = [i for i in range(64) if (tp.regmask() >> i) & 1]
    mems = tp.mem_blocks()
    if len(items) == 1:
        # gdb compiles a variable living in a register to that register in
        # the R mask, often plus a bytecode reading it (DWARF location);
        # it is one register as long as no frame recorded memory for it.
        if len(regs) == 1 and not mems and not _records_memory(tp, trace):
            size, signed = typ or (8, True)
            return Getter("reg", regs[0], size, signed), None
        if len(mems) == 1 and not regs and not tp.expr_actions() \
                and mems[0][0] in (-1, 0xffffffff) \
                and mems[0][2] in (1, 2, 4, 8):
            size, signed = typ or (mems[0][2], True)
            return Getter("mem", mems[0][1], size, signed), None
    return None, ("tracepoint %d collects '%s' as %s: not one register or one memory "
                  "block gtp-ctl can read without gdb's DWARF (collect a register "
                  "$REG or *(TYPE *)ADDR, or use gdb's gtp-hist)"
                  % (tp.number, item, _describe(regs, mems, tp.expr_actions())))


def _records_memory(tp, trace):
    for f in trace.frames:
        if f.tpnum == tp.number:
            f.parse(trace.regsize)
            if f.mem:
                return True
    return False


def _describe(regs, mems, nx):
    parts = []
    if regs:
        parts.append("registers " + ", ".join(
            (REGS64 + ("eflags", "cs", "ss", "ds", "es", "fs", "gs"))[r]
            if r < 24 else "#%d" % r for r in regs))
    if mems:
        parts.append("%d memory block(s)" % len(mems))
    if nx:
        parts.append("%d bytecode expression(s)" % nx)
    return " + ".join(parts) or "nothing"


class Key:
    """A compiled KEY: key(frame) -> value or UNAVAILABLE."""

    def __init__(self, text: str, trace: Trace) -> None:
        self.text = text
        self.trace = trace
        term, typ = _split_type(text.strip())
        if not term:
            raise KeyError_("empty key")
        self.all = _plain(term, trace, typ)
        self.per_tp = {}
        if self.all is not None:
            return
        why = []
        for num, tp in sorted(trace.tracepoints.items()):
            for item in tp.collect_items():
                if _norm(item) == _norm(term):
                    g, reason = _resolve_item(item, tp, trace, typ)
                    if g is not None:
                        self.per_tp[num] = g
                    else:
                        why.append(reason)
                    break
        if not self.per_tp:
            if why:
                raise KeyError_("'%s': %s" % (text, "; ".join(why)))
            items = sorted({i for tp in trace.tracepoints.values()
                            for i in tp.collect_items()})
            raise KeyError_("'%s' is not a register, mem:ADDR:SIZE, tsv:N, $TSV, tp, frame "
                            "or an item a tracepoint collects (collected: %s)"
                            % (text, ", ".join(items) or "nothing"))

    def __call__(self, frame):
        if self.all is not None:
            return self.all(frame, self.trace)
        g = self.per_tp.get(frame.tpnum)
        return UNAVAILABLE if g is None else g(frame, self.trace)


_OPS = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b,
        "<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b,
        "<": lambda a, b: a < b, ">": lambda a, b: a > b}


class Cond:
    """--if "KEY OP NUMBER": false where KEY is unavailable."""

    def __init__(self, text: str, trace: Trace) -> None:
        m = re.match(r"^\s*(.+?)\s*(==|!=|<=|>=|<|>)\s*(-?(?:0x[0-9a-fA-F]+|\d+))\s*$", text)
        if not m:
            raise KeyError_("condition '%s': write KEY OP NUMBER (OP: == != < <= > >=)"
                            % text)
        self.key = Key(m.group(1), trace)
        self.op = _OPS[m.group(2)]
        self.num = int(m.group(3), 0)

    def __call__(self, frame):
        v = self.key(frame)
        return v is not UNAVAILABLE and self.op(v, self.num)
