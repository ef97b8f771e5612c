# SPDX-License-Identifier: GPL-2.0
"""gtpctl/session_read.py - a session file into a Session, or a refusal.

The whole file is read and checked against session_grammar.py before
anything else happens: its size, its encoding, the order of its lines,
each field and the kernel's limits on counts.  A refusal names FILE:LINE
and what is wrong; nothing is half-read.  Each definition keeps the line
it came from, so what only this boot can check (session_bind.py) names
its line too.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Dict

from . import session_grammar as g
from .session_grammar import VERSION, Bad, Fields
from .trace import TraceError

if TYPE_CHECKING:
    from .session import Session

def read(path: str, session_class: Callable[[], "Session"]) -> "Session":
    """The Session of file path; TraceError saying where and what if it is
    not a complete, well-formed session file."""
    try:
        with open(path, "rb") as f:
            data = f.read(g.FILE_MAX + 1)
    except OSError as e:
        raise TraceError("cannot read %s: %s" % (path, e.strerror or e))
    if len(data) > g.FILE_MAX:
        raise TraceError("%s: longer than %d MiB: not a session file" % (path, g.FILE_MAX >> 20))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise TraceError("%s:%d: not UTF-8 text (byte 0x%02x)" % (path, line, data[e.start]))
    return parse(text, path, session_class)


def parse(text: str, origin: str, session_class: Callable[[], "Session"]) -> "Session":
    s = session_class()
    s.origin = origin
    reader = _Reader(s)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for n, line in enumerate(lines, 1):
        try:
            reader.line(n, line)
        except Bad as e:
            raise TraceError("%s:%d: %s" % (origin, n, e))
    if not reader.ended:
        raise TraceError("%s:%d: truncated: the file ends without its `end` line (not a "
                         "whole gtp session; write one with gtp-ctl save-session)"
                         % (origin, len(lines)))
    for what in ("kernel", "boot"):
        if what not in s.lines:
            raise TraceError("%s: no `%s` line" % (origin, what))
    if not s.tps:
        raise TraceError("%s: no tracepoints" % origin)
    return s


class _Reader:
    def __init__(self, s: "Session"):
        self.s = s
        self.tp = None
        self.started = self.ended = False
        self.locations: Dict[tuple, int] = {}

    def line(self, n: int, line: str) -> None:
        if len(line) > g.LINE_MAX:
            raise Bad("line longer than %d characters" % g.LINE_MAX)
        bad = [c for c in line if not c.isprintable()]
        if bad:
            raise Bad("control character U+%04X (a session file is printable text)"
                      % ord(bad[0]))
        if not line.strip() or line.lstrip().startswith("#"):
            return
        if self.ended:
            raise Bad("text after the `end` line")
        if line.startswith("  ") and not line.startswith("   "):
            if self.tp is None:
                raise Bad("an indented line belongs under a `tracepoint` line")
            self.tp_line(n, line[2:])
            return
        if line != line.lstrip():
            raise Bad("indented by other than two spaces")
        self.tp = None
        if "  " in line or line != line.rstrip():
            raise Bad("fields are separated by one space, with none at the end")
        f = Fields(line.split(" "))
        kw = f.word("keyword")
        if not self.started:
            if kw != "gtp-session":
                raise Bad("the first line is `gtp-session %s`" % VERSION)
            v = f.word("the format version")
            if v != VERSION:
                raise Bad("session format %s; this gtp-ctl reads %s" % (v, VERSION))
            f.end()
            self.started = True
            return
        handler = getattr(self, "kw_" + kw.replace("-", "_"), None)
        if handler is None:
            raise Bad("unknown line %r" % kw)
        handler(n, f)
        f.end()

    def once(self, n: int, what: str) -> None:
        if what in self.s.lines:
            raise Bad("a second `%s` line (the first is line %d)" % (what, self.s.lines[what]))
        self.s.lines[what] = n

    def kw_gtp_session(self, n: int, f: Fields) -> None:
        raise Bad("a second `gtp-session` line")

    def kw_kernel(self, n: int, f: Fields) -> None:
        self.once(n, "kernel")
        self.s.release = f.match(g._RELEASE, "the kernel release")
        f.keyword("build-id")
        self.s.build_id = self.build_id(f, "the kernel")

    @staticmethod
    def build_id(f: Fields, whose: str) -> str:
        bid = f.word("the build id")
        if bid == "-":
            raise Bad("%s has no build id ('-'): gtp-ctl could not tell its builds apart "
                      "and would relocate against any of them" % whose)
        if not g._BUILD_ID.match(bid):
            raise Bad("build id %r is not 16..128 lowercase hex digits" % bid)
        return bid

    def kw_boot(self, n: int, f: Fields) -> None:
        self.once(n, "boot")
        self.s.boot = f.match(g._BOOT, "the boot id")

    def kw_module(self, n: int, f: Fields) -> None:
        name = f.match(g._MODULE, "the module name")
        self.once(n, "module " + name)
        f.keyword("build-id")
        self.s.modules[name] = self.build_id(f, "module " + name)

    def kw_buffer(self, n: int, f: Fields) -> None:
        self.once(n, "buffer")
        f.keyword("size")
        size = f.word("the buffer size")
        if size == "default":
            self.s.buffer_size = None
        elif size.startswith("0x"):
            self.s.buffer_size = g._hex(size[2:], "the buffer size", g.BUF_MIN, g.BUF_MAX, 8)
        else:
            raise Bad("the buffer size is 0xHEX or default, not %r" % size)
        f.keyword("circular")
        self.s.circular = f.choice("circular", "0", "1") == "1"

    def kw_disconnected(self, n: int, f: Fields) -> None:
        self.once(n, "disconnected")
        self.s.disconnected = f.choice("disconnected", "0", "1") == "1"

    def kw_tsv(self, n: int, f: Fields) -> None:
        num = g._number(f.word("the variable number"), "variable number", 1, g.TSV_NUM_MAX)
        if any(t[0] == num for t in self.s.tsvs):
            raise Bad("a second variable %d" % num)
        if len(self.s.tsvs) >= g.TSV_MAX:
            raise Bad("more than %d trace state variables" % g.TSV_MAX)
        f.keyword("initial")
        initial = g._number(f.word("the initial value"), "initial value",
                            -(1 << 63), (1 << 63) - 1, g._S64)
        f.keyword("builtin")
        builtin = int(f.choice("builtin", "0", "1"))
        f.keyword("name")
        name = f.match(g._IDENT, "the variable name (an identifier of up to %d characters)"
                       % g.TSV_NAME_MAX)
        self.s.tsvs.append((num, initial, builtin, name))
        self.s.tsv_lines.append(n)

    def kw_tracepoint(self, n: int, f: Fields) -> None:
        from .session import TracepointDef
        num = g._number(f.word("the tracepoint number"), "tracepoint number", 1, g.TP_NUM_MAX)
        f.keyword("at")
        at = f.match(g.SYM_RE, "the location (sym+0xOFF, mod:sym+0xOFF or sym#K+0xOFF)")
        if (num, at) in self.locations:
            raise Bad("tracepoint %d at %s again (line %d)" % (num, at, self.locations[(num, at)]))
        if len(self.s.tps) >= g.TP_MAX:
            raise Bad("more than %d tracepoint locations" % g.TP_MAX)
        self.locations[(num, at)] = n
        enabled = f.choice("the state", "enabled", "disabled") == "enabled"
        f.keyword("step")
        step = g._number(f.word("the step count"), "step count", 0, 1 << 32)
        if step:
            raise Bad("while-stepping (step %d) is not supported by gtp" % step)
        f.keyword("pass")
        passcount = g._number(f.word("the pass count"), "pass count", 0, (1 << 32) - 1)
        tp = TracepointDef(num, at, enabled, 0, passcount)
        if f.i < len(f.w):
            f.choice("the flag", "static")
            tp.static = True
        tp.line = n
        self.s.tps.append(tp)
        self.tp = tp

    def tp_line(self, n: int, line: str) -> None:
        tp = self.tp
        kw, _, rest = line.partition(" ")
        if kw == "cond":
            if tp.cond is not None:
                raise Bad("a second condition for tracepoint %d (line %d)" % (tp.num, tp.cond_line))
            self.one_word(rest, "the condition")
            tp.cond_parsed = g.parse_actions(rest, cond=True)
            tp.cond, tp.cond_line = rest, n
        elif kw == "action":
            self.one_word(rest, "the action")
            if len(tp.actions) >= g.TP_CHUNKS_MAX:
                raise Bad("more than %d action lines for tracepoint %d" % (g.TP_CHUNKS_MAX, tp.num))
            tp.actions_parsed.append(g.parse_actions(rest))
            tp.actions.append(rest)
            tp.action_lines.append(n)
        elif kw == "source":
            f = Fields(rest.split(" ", 2))
            typ = f.choice("the source type", "at", "cond", "cmd")
            start = g._number(f.word("the source start"), "source start", 0, (1 << 31) - 1)
            text = f.word("the source text") if f.i < len(f.w) else ""
            text, ref = g.parse_source(text)
            nbytes = len(bytes.fromhex(text[4:])) if text.startswith("hex:") else len(text.encode())
            if len(tp.sources) >= g.TP_SRCS_MAX or tp.src_bytes + nbytes > g.TP_SRC_BYTES_MAX:
                raise Bad("more than %d source strings or %d bytes of them for tracepoint %d"
                          % (g.TP_SRCS_MAX, g.TP_SRC_BYTES_MAX, tp.num))
            tp.src_bytes += nbytes
            tp.sources.append((typ, start, text))
            tp.source_refs.append(ref)
            tp.source_lines.append(n)
        else:
            raise Bad("%r under a tracepoint (cond, action or source)" % kw)

    @staticmethod
    def one_word(text: str, what: str) -> None:
        if not text or " " in text:
            raise Bad("%s is one word" % what)

    def kw_end(self, n: int, f: Fields) -> None:
        self.ended = True
