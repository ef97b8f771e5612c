# SPDX-License-Identifier: GPL-2.0
"""gtpctl/tfile.py - gdb's trace file format (what `tsave` writes).

  "\\x7fTRACE0\\n", definition lines ("R <hex size>", "status ...",
  "tsv ...", "tp ...", "tdesc ..."), an empty line, the frames, and a
  zero tracepoint number at the end (protocol reference 6).

load() reads one; write() writes a Trace back as tsave would, so
`gtp-ctl save OUT.tf` on a box without gdb gives a file any gdb opens
with `target tfile OUT.tf`.
"""
import os
import struct

from .trace import Trace, TraceError

MAGIC = b"\x7fTRACE0\n"


def load(path: str) -> Trace:
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
            elif kind == "tdesc":
                tr.tdesc.append(rest)
        except ValueError:
            raise TraceError("%s: malformed definition line %r" % (path, line))
    if not have_r:
        raise TraceError("%s: no register block size (R line) in the trace file" % path)
    tr.add_frames(data[pos:])
    return tr


def write(tr: Trace, path: str) -> None:
    """Write tr (read from a target or a file) to path, atomically."""
    out = [MAGIC, b"R %x\n" % tr.regsize]
    if tr.raw_status is not None:
        out.append(b"status %s\n" % tr.raw_status.encode())
    out += [b"tsv %s\n" % t.encode() for t in tr.raw_tsvs]
    out += [b"tp %s\n" % p.encode() for p in tr.raw_pieces]
    # without it gdb reads the registers with its default architecture
    out += [b"tdesc %s\n" % t.encode() for t in tr.tdesc]
    out.append(b"\n")
    for f in tr.frames:
        out.append(struct.pack("<hI", f.tpnum, len(f.data)) + f.data)
    out.append(struct.pack("<h", 0))
    tmp = "%s.tmp%d" % (path, os.getpid())
    try:
        with open(tmp, "wb") as f:
            f.write(b"".join(out))
        os.rename(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise TraceError("cannot write %s: %s" % (path, e.strerror or e))
