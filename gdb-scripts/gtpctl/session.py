# SPDX-License-Identifier: GPL-2.0
"""gtpctl/session.py - a trace session as a file a human can read and diff.

save-session writes what the target holds (tracepoints, their conditions,
actions and source strings, trace state variables, buffer size and mode,
disconnected tracing) with every kernel address unbound (axreloc.py,
ksyms.py); start reads it back field by field (session_read.py, the
grammar in session_grammar.py), binds it on this boot (session_bind.py)
and downloads it.  The file:

    gtp-session 1
    kernel 6.1.0-56-amd64 build-id 8f0e...      refuse any other build
    boot 5b1c...                                 for {=0x...} constants only
    module gtp_test build-id 41aa...            every module referred to
    buffer size 0x100000 circular 0
    disconnected 0
    tsv 1 initial 0 builtin 0 name gtp_stop
    tracepoint 1 at gtp_test:gtp_test_function+0x0 enabled step 0 pass 0
      cond X12,26000524{32:gtp_test:gtp_test_calls+0x0}162019...
      action R1ff
      source cond 0 2*counter1+3*counter2 > 0
    end

Lines starting with '#' are comments.  Source strings are the text gdb
sent (QTDPsrc), one per line; 'hex:' marks one that is not plain text,
and the location of `trace *ADDR` is kept as "*0x{symbol+offset}".
"""
from __future__ import annotations

import os
import re
from typing import Dict, List, Optional, Tuple

from . import axreloc, ksyms, session_read
from .session_grammar import VERSION
from .trace import TraceError, parse_status, status_number


class TracepointDef:
    def __init__(self, num: int, at: str, enabled: bool = True, step: int = 0,
                 passcount: int = 0):
        self.num, self.at = num, at
        self.enabled, self.step, self.passcount = enabled, step, passcount
        self.static = False
        self.cond: Optional[str] = None         # "X<len>,<template>"
        self.actions: List[str] = []            # unbound action strings
        self.sources: List[Tuple[str, int, str]] = []   # (type, start, text)
        # read from a file (session_read.py): the parsed fields, their lines
        self.line = 0
        self.cond_line = 0
        self.cond_parsed = None
        self.action_lines: List[int] = []
        self.actions_parsed: list = []
        self.source_lines: List[int] = []
        self.source_refs: list = []
        self.src_bytes = 0

    def bytecode_strings(self) -> List[str]:
        """The condition and actions: where axreloc references live."""
        return ([self.cond] if self.cond else []) + self.actions


class Session:
    def __init__(self):
        self.release = self.build_id = self.boot = None
        self.modules: Dict[str, str] = {}       # name -> build id
        self.buffer_size: Optional[int] = None  # None: the target's default
        self.circular = False
        self.disconnected = False
        self.tsvs: List[Tuple[int, int, int, str]] = []   # (num, initial, builtin, name)
        self.tps: List[TracepointDef] = []
        self.absolutes: List[int] = []          # addresses no symbol covers
        self.origin = "<session>"               # the file it was read from
        self.lines: Dict[str, int] = {}         # "kernel", "module NAME"... -> line
        self.tsv_lines: List[int] = []

    # -- from the target ---------------------------------------------------

    @classmethod
    def from_target(cls, status: str, tsv_pieces: List[str], tp_pieces: List[str],
                    ks: ksyms.Kallsyms) -> "Session":
        """The session the target holds; TraceError if start could not
        replay it (a kernel or module without a build id)."""
        s = cls()
        s.release = _release()
        s.build_id = ksyms.kernel_build_id()
        if not s.build_id:
            raise TraceError("this kernel has no build id (/sys/kernel/notes): start "
                             "could not tell its builds apart")
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
            bid = ksyms.module_build_id(mod)
            if bid in (None, "-"):
                raise TraceError("module %s has no build id (or is gone): start could not "
                                 "tell its builds apart" % mod)
            s.modules[mod] = bid
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

    def format(self) -> str:
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
    def read(cls, path: str) -> "Session":
        """The session in file path, every field checked (session_read.py);
        TraceError with FILE:LINE and what is wrong otherwise."""
        return session_read.read(path, cls)

    @classmethod
    def parse(cls, text: str, origin: str) -> "Session":
        return session_read.parse(text, origin, cls)

    def where(self, line: int) -> str:
        """FILE:LINE, for a message about what that line says."""
        return "%s:%d" % (self.origin, line)


def _s64(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def _release():
    return os.uname().release
