# SPDX-License-Identifier: GPL-2.0
"""gtpctl/session.py - a trace session as a file a human can read and diff.

save-session writes what the target holds (tracepoints, their conditions,
actions and source strings, trace state variables, buffer size and mode,
disconnected tracing) with every kernel address unbound (axreloc.py,
ksyms.py); start binds it again on this boot and downloads it.  The file:

    gtp-session 1
    kernel 6.1.0-56-amd64 build-id 8f0e...      refuse any other build
    boot 5b1c...                                 for {=0x...} constants only
    module gtp_test build-id 41aa...            every module referred to
    buffer size 0x100000 circular 0
    disconnected 0
    tsv 1 initial 0x0 builtin 0 name gtp_stop
    tracepoint 1 at gtp_test:gtp_test_function+0x0 enabled step 0 pass 0
      cond X12,26000524{32:gtp_test:gtp_test_calls+0x0}162019...
      action R1ff
      source cond 0 2*counter1+3*counter2 > 0
    end

Lines starting with '#' are comments.  Source strings are the text gdb
sent (QTDPsrc), one per line; 'hex:' marks one that is not plain text,
and the location of `trace *ADDR` is kept as "*0x{symbol+offset}".
"""
import os
import re

from . import axreloc, ksyms
from .trace import TraceError, parse_status, status_number

VERSION = "1"


class TracepointDef:
    def __init__(self, num, at, enabled=True, step=0, passcount=0):
        self.num, self.at = num, at
        self.enabled, self.step, self.passcount = enabled, step, passcount
        self.static = False
        self.cond = None          # "X<len>,<template>"
        self.actions = []         # unbound action strings
        self.sources = []         # (type, start, text)

    def bytecode_strings(self):
        """The condition and actions: where axreloc references live."""
        return ([self.cond] if self.cond else []) + self.actions


class Session:
    def __init__(self):
        self.release = self.build_id = self.boot = None
        self.modules = {}         # name -> build id ('-' when none)
        self.buffer_size = None   # None: the target's default
        self.circular = False
        self.disconnected = False
        self.tsvs = []            # (num, initial, builtin, name)
        self.tps = []
        self.absolutes = []       # addresses no symbol covers

    # -- from the target ---------------------------------------------------

    @classmethod
    def from_target(cls, status, tsv_pieces, tp_pieces, ks):
        s = cls()
        s.release = _release()
        s.build_id = ksyms.kernel_build_id() or "-"
        s.boot = ksyms.boot_id()
        f = parse_status(status)
        s.buffer_size = status_number(f, "tsize") or None
        s.circular = f.get("circular") == "1"
        s.disconnected = f.get("disconn") == "1"
        for text in tsv_pieces:
            num, val, builtin, hexname = text.split(":")[:4]
            s.tsvs.append((int(num, 16), _s64(int(val, 16)), int(builtin, 16),
                           bytes.fromhex(hexname).decode(errors="replace")))
        by_num = {}
        for piece in tp_pieces:
            s._add_piece(piece, ks, by_num)
        refs = [tp.at for tp in s.tps]
        refs += [r for tp in s.tps for x in tp.bytecode_strings() for r in axreloc.refs(x)]
        for mod in sorted(ksyms.modules_of(refs)):
            s.modules[mod] = ksyms.module_build_id(mod) or "-"
        return s

    def _add_piece(self, piece, ks, by_num):
        kind, f = piece[0], piece[1:].split(":")
        num, addr = int(f[0], 16), int(f[1], 16)
        tp = by_num.get(num)
        if kind == "T":
            where = ks.name(addr)
            if where is None:
                raise TraceError("tracepoint %d at 0x%x: no symbol covers the address"
                                 % (num, addr))
            tp = TracepointDef(num, where, f[2] == "E", int(f[3], 16), int(f[4], 16))
            for extra in f[5:]:
                if extra == "S":
                    tp.static = True
                elif extra.startswith("X"):
                    tp.cond = axreloc.unbind(extra, ks, self.absolutes)
            by_num[num] = tp
            self.tps.append(tp)
        elif tp is None:
            raise TraceError("piece %r before its tracepoint's definition" % piece)
        elif kind == "A":
            tp.actions.append(axreloc.unbind(":".join(f[2:]), ks, self.absolutes))
        elif kind == "Z":
            typ, start, _, hx = f[2:6]
            raw = bytes.fromhex(hx)
            text = raw.decode("utf-8", errors="replace")
            if text.encode() != raw or not text.isprintable() or text != text.strip():
                text = "hex:" + hx
            elif typ == "at" and re.match(r"^\*0x[0-9a-fA-F]+$", text):
                # `trace *ADDR`: a gdb reconnecting later re-resolves this
                text = "*0x" + axreloc.unbind_text(int(text[1:], 16), ks, self.absolutes)
            tp.sources.append((typ, int(start, 16), text))

    # -- the file ----------------------------------------------------------

    def format(self):
        out = ["# gtp session (gtp-ctl save-session); replay: gtp-ctl start FILE",
               "gtp-session " + VERSION,
               "kernel %s build-id %s" % (self.release, self.build_id),
               "boot " + self.boot]
        for mod in sorted(self.modules):
            out.append("module %s build-id %s" % (mod, self.modules[mod]))
        out.append("buffer size %s circular %d" % (
            "0x%x" % self.buffer_size if self.buffer_size else "default", self.circular))
        out.append("disconnected %d" % self.disconnected)
        for num, initial, builtin, name in self.tsvs:
            out.append("tsv %d initial %d builtin %d name %s" % (num, initial, builtin, name))
        for tp in self.tps:
            out.append("tracepoint %d at %s %s step %d pass %d%s" % (
                tp.num, tp.at, "enabled" if tp.enabled else "disabled", tp.step,
                tp.passcount, " static" if tp.static else ""))
            if tp.cond:
                out.append("  cond " + tp.cond)
            for a in tp.actions:
                out.append("  action " + a)
            for typ, start, text in tp.sources:
                out.append("  source %s %d %s" % (typ, start, text))
        out.append("end")
        if self.absolutes:
            out.insert(1, "# only valid on boot %s: no symbol covers %s" % (
                self.boot, ", ".join("0x%x" % a for a in self.absolutes)))
        return "\n".join(out) + "\n"

    @classmethod
    def parse(cls, text, origin):
        s = cls()
        tp = None
        ended = False
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            w = line.split()
            try:
                if line.startswith("  ") and tp is not None:
                    if w[0] == "cond":
                        tp.cond = w[1]
                    elif w[0] == "action":
                        tp.actions.append(w[1])
                    elif w[0] == "source":
                        tp.sources.append((w[1], int(w[2]), line.split(None, 3)[3]
                                           if len(w) > 3 else ""))
                    else:
                        raise ValueError
                    continue
                tp = None
                if w[0] == "gtp-session":
                    if w[1] != VERSION:
                        raise TraceError("%s: session format %s, this gtp-ctl reads %s"
                                         % (origin, w[1], VERSION))
                elif w[0] == "kernel":
                    s.release, s.build_id = w[1], w[3]
                elif w[0] == "boot":
                    s.boot = w[1]
                elif w[0] == "module":
                    s.modules[w[1]] = w[3]
                elif w[0] == "buffer":
                    s.buffer_size = None if w[2] == "default" else int(w[2], 16)
                    s.circular = w[4] == "1"
                elif w[0] == "disconnected":
                    s.disconnected = w[1] == "1"
                elif w[0] == "tsv":
                    s.tsvs.append((int(w[1]), int(w[3]), int(w[5]), w[7]))
                elif w[0] == "tracepoint":
                    tp = TracepointDef(int(w[1]), w[3], w[4] == "enabled", int(w[6]), int(w[8]))
                    tp.static = "static" in w[9:]
                    s.tps.append(tp)
                elif w[0] == "end":
                    ended = True
                else:
                    raise ValueError
            except (ValueError, IndexError):
                raise TraceError("%s:%d: cannot read %r" % (origin, n, line))
        if s.release is None or not ended:
            raise TraceError("%s is not a whole gtp session (no kernel line or no end; "
                             "write one with gtp-ctl save-session)" % origin)
        return s

    # -- onto this boot ----------------------------------------------------

    def check_kernel(self):
        """Refuse another kernel build or a missing/other module build."""
        rel, bid = _release(), ksyms.kernel_build_id() or "-"
        if rel != self.release:
            raise TraceError("the session is for kernel %s; this is %s" % (self.release, rel))
        if bid != self.build_id:
            raise TraceError("the session is for another build of %s (build id %s; this "
                             "kernel's is %s)" % (rel, self.build_id, bid))
        for mod, want in sorted(self.modules.items()):
            have = ksyms.module_build_id(mod)
            if have is None:
                raise TraceError("module %s is not loaded" % mod)
            if want != "-" and have != want:
                raise TraceError("module %s is another build (build id %s; the session's "
                                 "is %s)" % (mod, have, want))

    def packets(self, ks):
        """The packets that define the session on this boot, in gdb's order
        (QTDP, its actions, QTDPsrc; QTDV; QTBuffer; QTDisconnected).
        TraceError before anything is sent if any reference does not bind."""
        same_boot = self.boot == ksyms.boot_id()
        out = []
        for tp in self.tps:
            try:
                addr = ks.resolve(tp.at)
            except TraceError as e:
                raise TraceError("tracepoint %d: %s" % (tp.num, e))
            head = "QTDP:%x:%x:%s:%x:%x" % (tp.num, addr, "E" if tp.enabled else "D",
                                             tp.step, tp.passcount)
            if tp.static:
                head += ":S"
            if tp.cond:
                head += ":" + _bind(tp.cond, ks, same_boot, tp)
            out.append(head + ("-" if tp.actions else ""))
            for i, a in enumerate(tp.actions):
                out.append("QTDP:-%x:%x:%s%s" % (tp.num, addr, _bind(a, ks, same_boot, tp),
                                                 "-" if i + 1 < len(tp.actions) else ""))
            for typ, start, text in tp.sources:
                if text.startswith("hex:"):
                    raw = bytes.fromhex(text[4:])
                elif typ == "at" and text.startswith("*0x{"):
                    raw = _bind(text, ks, same_boot, tp).encode()
                else:
                    raw = text.encode()     # gdb's {TYPE} casts stay as they are
                out.append("QTDPsrc:%x:%x:%s:%x:%x:%s" % (tp.num, addr, typ, start,
                                                          len(raw), raw.hex()))
        for num, initial, builtin, name in self.tsvs:
            out.append("QTDV:%x:%016x:%x:%s" % (num, initial & (2 ** 64 - 1), builtin,
                                                name.encode().hex()))
        out.append("QTBuffer:size:%s" % ("%x" % self.buffer_size if self.buffer_size else "-1"))
        out.append("QTBuffer:circular:%d" % self.circular)
        return out


def _bind(s, ks, same_boot, tp):
    try:
        return axreloc.bind(s, ks, same_boot)
    except TraceError as e:
        raise TraceError("tracepoint %d: %s" % (tp.num, e))


def _s64(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def _release():
    return os.uname().release
