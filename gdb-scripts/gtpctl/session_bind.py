# SPDX-License-Identifier: GPL-2.0
"""gtpctl/session_bind.py - a checked session file onto this boot: the
packets `gtp-ctl start` sends, or a refusal naming FILE:LINE.

Everything that depends on this boot is checked here, all of it before the
target is opened:

  - the kernel's release and build id are the file's (a kernel without a
    build id is refused: its builds cannot be told apart);
  - the modules come from the references: every module a reference names
    needs its `module NAME build-id ID` line, and the loaded module must
    have that build id (one without a build id is refused);
  - a reference binds to its symbol on this boot, and its offset stays
    inside that symbol: the address maps back to the same symbol (so at
    most ksyms.MAX_GAP past the last one);
  - an address no symbol covers ({=0x...}) only binds on the boot the file
    was saved on (a real boot id on both sides, the same); a kernel address
    written as plain hex, where save-session writes a reference, is
    refused: it would skip that check;
  - a const32 still reaches its symbol (gdb sign-extends it);
  - every packet fits the target's packet size and holds only characters
    that mean nothing to the protocol's framing (remote.check_packet).
"""
from __future__ import annotations

import os
from typing import List, Optional

from . import ksyms, remote
from .axreloc import CONST32, CONST64, EXT
from .session import Session, TracepointDef
from .session_grammar import Action, Ref, Unit, flatten, instructions
from .trace import TraceError

U64 = (1 << 64) - 1


class ThisBoot:
    """What the running kernel says about itself (read when first asked)."""

    def __init__(self) -> None:
        self._ks: Optional[ksyms.Kallsyms] = None

    def release(self) -> str:
        return os.uname().release

    def build_id(self) -> Optional[str]:
        return ksyms.kernel_build_id()

    def module_build_id(self, name: str) -> Optional[str]:
        return ksyms.module_build_id(name)

    def boot_id(self) -> str:
        return ksyms.boot_id()

    def kallsyms(self) -> ksyms.Kallsyms:
        if self._ks is None:
            self._ks = ksyms.Kallsyms()
        return self._ks


def _module_of(token: str) -> Optional[str]:
    head, sep, _ = token.partition(":")
    return head if sep else None


class _Binder:
    def __init__(self, s: Session, boot: ThisBoot):
        self.s, self.boot = s, boot
        here = boot.boot_id()
        self.same_boot = s.boot not in (None, "-") and here not in (None, "-") and s.boot == here
        self.ks: Optional[ksyms.Kallsyms] = None
        self.tp: Optional[TracepointDef] = None     # the one being bound

    def fail(self, line: int, msg: str) -> TraceError:
        return TraceError("%s: %s%s" % (self.s.where(line),
                                        "tracepoint %d: " % self.tp.num if self.tp else "", msg))

    # -- kernel and modules ------------------------------------------------

    def check_kernel(self) -> None:
        s, line = self.s, self.s.lines["kernel"]
        rel = self.boot.release()
        if rel != s.release:
            raise self.fail(line, "the session is for kernel %s; this is %s" % (s.release, rel))
        bid = self.boot.build_id()
        if not bid:
            raise self.fail(line, "this kernel has no build id (/sys/kernel/notes): gtp-ctl "
                            "cannot check that it is the build the session was saved on")
        if bid != s.build_id:
            raise self.fail(line, "the session is for another build of %s (build id %s; "
                            "this kernel's is %s)" % (rel, s.build_id, bid))

    def check_modules(self) -> None:
        s = self.s
        for mod, want in sorted(s.modules.items()):
            line = s.lines["module " + mod]
            have = self.boot.module_build_id(mod)
            if have is None:
                raise self.fail(line, "module %s is not loaded" % mod)
            if have == "-":
                raise self.fail(line, "module %s as loaded has no build id: gtp-ctl cannot "
                                "check that it is the build the session was saved on" % mod)
            if have != want:
                raise self.fail(line, "module %s is another build (build id %s; the session's "
                                "is %s)" % (mod, have, want))
        for tp in s.tps:
            for line, token in self.tokens(tp):
                mod = _module_of(token)
                if mod and mod not in s.modules:
                    raise self.fail(line, "%s is in module %s, and the file has no `module %s "
                                    "build-id ...` line to check its build against"
                                    % (token, mod, mod))

    @staticmethod
    def tokens(tp: TracepointDef):
        """(line, symbol token) of every reference by name of tp."""
        yield tp.line, tp.at
        lists = [(tp.cond_line, tp.cond_parsed or [])]
        lists += list(zip(tp.action_lines, tp.actions_parsed))
        for line, actions in lists:
            for ref in _refs(actions):
                if ref.raw is None:
                    yield line, ref.token
        for line, ref in zip(tp.source_lines, tp.source_refs):
            if ref is not None and ref.raw is None:
                yield line, ref.token

    # -- addresses ---------------------------------------------------------

    def address(self, line: int, token: str) -> int:
        """This boot's address of sym+0xOFF, inside that symbol."""
        ks = self.ks
        try:
            addr = ks.resolve(token)
        except TraceError as e:
            raise self.fail(line, str(e))
        base_token = token[:token.rindex("+")] + "+0x0"
        back = ks.name(addr) if addr <= U64 else None
        if back is None or ks.resolve(back[:back.rindex("+")] + "+0x0") != ks.resolve(base_token):
            raise self.fail(line, "%s: the offset runs past the end of %s (here 0x%x is %s)"
                            % (token, base_token[:-4], addr, back or "in no symbol"))
        return addr

    def ref_value(self, line: int, ref: Ref) -> int:
        raw = ref.raw
        if raw is None:
            return self.address(line, ref.token)
        if not self.same_boot:
            here = self.boot.boot_id()
            which = ("the file names no boot" if self.s.boot in (None, "-") else
                     "this boot's id is unreadable" if here in (None, "-") else
                     "%s; this is %s" % (self.s.boot, here))
            raise self.fail(line, "constant 0x%x has no symbol (heap, vmalloc or per-CPU "
                            "memory): it is only valid on the boot it was saved on (%s)"
                            % (raw, which))
        if raw < ksyms.KERNEL_LOW:
            raise self.fail(line, "{=0x%x} is not a kernel address" % raw)
        return raw

    def raw_kernel_address(self, line: int, value: int, where: str) -> None:
        if value >= ksyms.KERNEL_LOW:
            raise self.fail(line, "%s 0x%x is a kernel address written as a number: write it "
                            "as {sym+0xOFF} (or {=0x%x}, valid on the saved boot only)"
                            % (where, value, value))

    # -- actions -----------------------------------------------------------

    def code_hex(self, line: int, units: List[Unit]) -> str:
        """The bytecode's hex on this boot: references bound, and no kernel
        address left as a plain constant (save-session writes those as
        references, so a plain one would skip the checks above)."""
        flat = flatten(units)
        for i, op, k in instructions(flat):
            if op == CONST64 and isinstance(flat[i + 1], int):
                v = int.from_bytes(bytes(flat[i + 1:i + 9]), "big")
                self.raw_kernel_address(line, v, "const64")
            elif op == CONST32 and isinstance(flat[i + 1], int) and flat[i + 5:i + 7] == [EXT, 32]:
                v = int.from_bytes(bytes(flat[i + 1:i + 5]), "big")
                self.raw_kernel_address(line, (v - (1 << 32) if v & 0x80000000 else v) & U64,
                                        "const32")
        out = []
        for u in units:
            if not isinstance(u, Ref):
                out.append("%02x" % u)
                continue
            addr = self.ref_value(line, u)
            if u.width == 64:
                out.append(addr.to_bytes(8, "big").hex())
            elif -(1 << 31) <= addr - (1 << 64) < (1 << 31):
                out.append((addr & 0xffffffff).to_bytes(4, "big").hex())
            else:
                raise self.fail(line, "%s is at 0x%x here: out of reach of the 32-bit "
                                "constant gdb encoded it as" % (u.token, addr))
        return "".join(out)

    def actions_text(self, line: int, actions: List[Action]) -> str:
        out = []
        for a in actions:
            if a.kind == "R":
                out.append("R" + a.mask)
            elif a.kind == "M":
                if isinstance(a.offset, Ref):
                    off = self.ref_value(line, a.offset)
                else:
                    off = a.offset
                    if a.base == -1:
                        self.raw_kernel_address(line, off, "M-1 address")
                base = "-1" if a.base == -1 else "%x" % a.base
                out.append("M%s,%x,%x" % (base, off, a.length))
            elif a.kind == "X":
                out.append("X%s,%s" % (a.xlen, self.code_hex(line, list(a.code))))
            else:
                out.append("L")
        return "".join(out)

    # -- packets -----------------------------------------------------------

    def packets(self) -> List[str]:
        s = self.s
        self.check_kernel()
        self.check_modules()
        self.ks = self.boot.kallsyms()
        out: List[tuple] = []                 # (line, packet)
        for tp in s.tps:
            self.tp = tp
            addr = self.address(tp.line, tp.at)
            head = "QTDP:%x:%x:%s:0:%x" % (tp.num, addr, "E" if tp.enabled else "D", tp.passcount)
            if tp.static:
                head += ":S"
            if tp.cond_parsed:
                head += ":" + self.actions_text(tp.cond_line, tp.cond_parsed)
            out.append((tp.line, head + ("-" if tp.actions_parsed else "")))
            n = len(tp.actions_parsed)
            for i, (line, acts) in enumerate(zip(tp.action_lines, tp.actions_parsed)):
                out.append((line, "QTDP:-%x:%x:%s%s" % (tp.num, addr, self.actions_text(line, acts),
                                                        "-" if i + 1 < n else "")))
            for (typ, start, text), line, ref in zip(tp.sources, tp.source_lines, tp.source_refs):
                if text.startswith("hex:"):
                    raw = bytes.fromhex(text[4:])
                elif ref is not None:
                    raw = ("*0x%x" % self.ref_value(line, ref)).encode()
                else:
                    raw = text.encode()
                out.append((line, "QTDPsrc:%x:%x:%s:%x:%x:%s" % (tp.num, addr, typ, start,
                                                                 len(raw), raw.hex())))
        self.tp = None
        for (num, initial, builtin, name), line in zip(s.tsvs, s.tsv_lines):
            out.append((line, "QTDV:%x:%016x:%x:%s" % (num, initial & U64, builtin,
                                                       name.encode().hex())))
        size_line = s.lines.get("buffer", 0)
        out.append((size_line, "QTBuffer:size:%s" % ("%x" % s.buffer_size if s.buffer_size
                                                     else "-1")))
        out.append((size_line, "QTBuffer:circular:%d" % s.circular))
        for line, pkt in out:
            try:
                remote.check_packet(pkt)
            except TraceError as e:
                raise self.fail(line, str(e))
        return [pkt for _, pkt in out]


def _refs(actions: List[Action]):
    for a in actions:
        if a.kind == "M" and isinstance(a.offset, Ref):
            yield a.offset
        elif a.kind == "X":
            for u in a.code:
                if isinstance(u, Ref):
                    yield u


def packets(s: Session, boot: Optional[ThisBoot] = None) -> List[str]:
    """The packets that define s on this boot, in gdb's order (QTDP, its
    actions, QTDPsrc; QTDV; QTBuffer); TraceError naming FILE:LINE if any
    of it cannot be bound on this boot.  Reads nothing from the target."""
    return _Binder(s, boot or ThisBoot()).packets()
