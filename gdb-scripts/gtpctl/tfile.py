# SPDX-License-Identifier: GPL-2.0
"""gtpctl/tfile.py - read gdb's trace file format (what `tsave` writes).

  "\\x7fTRACE0\\n", definition lines ("R <hex size>", "status ...",
  "tsv ...", "tp ...", "tdesc ..."), an empty line, the frames, and a
  zero tracepoint number at the end (protocol reference 6).
"""
from .trace import Trace, TraceError

MAGIC = b"\x7fTRACE0\n"


def load(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise TraceError("cannot read trace file %s: %s" % (path, e.strerror or e))
    if not data.startswith(MAGIC):
        raise TraceError("%s is not a trace file (no \\x7fTRACE0 header; "
                         "write one with gdb's tsave)" % path)
    tr = Trace(path)
    pos = len(MAGIC)
    have_r = False
    while True:
        end = data.find(b"\n", pos)
        if end < 0:
            raise TraceError("%s: the definitions never end (truncated file?)" % path)
        line = data[pos:end].decode(errors="replace")
        pos = end + 1
        if line == "":
            break
        kind, _, rest = line.partition(" ")
        try:
            if kind == "R":
                tr.regsize = int(rest, 16)
                have_r = True
            elif kind == "status":
                tr.add_status(rest)
            elif kind == "tsv":
                tr.add_tsv(rest)
            elif kind == "tp":
                tr.add_piece(rest)
        except ValueError:
            raise TraceError("%s: malformed definition line %r" % (path, line))
    if not have_r:
        raise TraceError("%s: no register block size (R line) in the trace file" % path)
    tr.add_frames(data[pos:])
    return tr
