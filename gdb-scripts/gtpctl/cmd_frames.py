# SPDX-License-Identifier: GPL-2.0
"""gtpctl/cmd_frames.py - save and dump: the frames of a stopped trace,
without gdb.

save writes gdb's trace file (tfile.write), so the frames recorded on a
box without gdb are read anywhere with `target tfile OUT.tf` and the
kernel's symbols.  dump prints every frame as text: its tracepoint, its
CPU and time, and each block (registers, memory, trace state variables).
From the live target the CPU and the time since the run started come
from qGtpFrameOrigin (the trace file has no room for them); from a file,
the collected $cpu_id and $clock stand in.  Memory is named by the
tracepoint's `collect` item where the pairing is unambiguous (one
absolute range, one plain identifier).  A kernel stack (`collect $kstack`)
is printed one return address a line, named from /proc/kallsyms when the
frames come from the live target (a file may be from another boot: its
addresses stay bare, `gtp-kstack` in gdb names them).  A user stack
(`collect $ustack`) is printed likewise, after its program's text start,
its addresses bare (`gtp-ustack PROGRAM` in gdb names them).
"""
from __future__ import annotations

import argparse
from typing import Optional

from . import remote, source, tfile
from .abi import KSTACK_ADDR, USTACK_ADDR
from .ksyms import Kallsyms
from .trace import REGS32, REGS64, Frame, Trace, TraceError, reg_offset


def run_save(args: argparse.Namespace) -> None:
    tr = remote.load(args.target)
    if not tr.frames:
        raise TraceError("%s holds no trace frames (nothing to save)" % args.target)
    tfile.write(tr, args.out)
    print("saved %d frame(s) of %d tracepoint(s) to %s (read with gdb: target tfile %s)"
          % (len(tr.frames), len(tr.tracepoints), args.out, args.out))


def _regs(block):
    out = []
    for num, name in enumerate(REGS64 + REGS32):
        off, size = reg_offset(num)
        if off + size <= len(block):
            out.append("%s 0x%x" % (name, int.from_bytes(block[off:off + size], "little")))
    return out


def _kstack(data, ksyms, out):
    n = len(data) // 8
    out.append("  kernel stack, %d frame%s:" % (n, "" if n == 1 else "s"))
    for i in range(n):
        a = int.from_bytes(data[8 * i:8 * i + 8], "little")
        name = ksyms.name(a) if ksyms else None
        out.append("    #%-2d 0x%016x%s" % (i, a, " " + name if name else ""))


def _ustack(data, out):
    text = int.from_bytes(data[:8], "little")
    n = len(data) // 8 - 1
    out.append("  user stack, %d frame%s (program text at 0x%x):"
               % (n, "" if n == 1 else "s", text))
    for i in range(n):
        a = int.from_bytes(data[8 * i + 8:8 * i + 16], "little")
        out.append("    #%-2d 0x%016x" % (i, a))


def dump_frame(tr: Trace, f: Frame, out: list[str], ksyms: Optional[Kallsyms] = None) -> None:
    f.parse(tr.regsize)
    tp = tr.tracepoints.get(f.tpnum)
    where = (tp.at or "0x%x" % tp.addr) if tp else "?"
    head = "frame %d: tracepoint %d (%s)" % (f.index, f.tpnum, where)
    if f.cpu is not None:
        head += ", cpu %d" % f.cpu
    if f.ns is not None:
        head += ", +%d.%09d s" % divmod(f.ns, 1000000000)
    # a trace file has neither: what the actions collected, if they did
    for name, label in (("cpu_id", "cpu"), ("clock", "clock")):
        num = tr.tsv_number(name)
        if num is not None and num in f.tsv and (label != "cpu" or f.cpu is None):
            head += ", %s %d" % (label, f.tsv[num])
    out.append(head)
    if f.regs is not None:
        regs = _regs(f.regs)
        for i in range(0, len(regs), 6):
            out.append("  %s %s" % ("registers:" if i == 0 else "          ", "  ".join(regs[i:i + 6])))
    names = tp.mem_names() if tp else {}
    for addr, data in f.mem:
        if addr == KSTACK_ADDR:
            _kstack(data, ksyms, out)
            continue
        if addr == USTACK_ADDR - 8:
            _ustack(data, out)
            continue
        name = names.get((addr, len(data)))
        shown = data[:32].hex(" ") + (" ..." if len(data) > 32 else "")
        val = ""
        if len(data) in (1, 2, 4, 8):
            val = " = %d" % int.from_bytes(data, "little", signed=True)
        out.append("  memory 0x%x, %d bytes%s: %s%s" % (addr, len(data),
                                                       " (%s)" % name if name else "", shown, val))
    for num, val in sorted(f.tsv.items()):
        out.append("  $%s = %d" % (tr.tsvs.get(num, "tsv%d" % num), val))


def run_dump(args: argparse.Namespace) -> None:
    tr = source.load(args, origins=True)
    if not tr.frames:
        raise TraceError("%s holds no trace frames" % tr.origin)
    ksyms = None
    if not args.file:
        try:
            ksyms = Kallsyms()
        except TraceError:
            pass                    # addresses stay bare
    out = []
    for f in tr.frames:
        if args.tp is None or f.tpnum == args.tp:
            dump_frame(tr, f, out, ksyms)
    if not out:
        raise TraceError("%s holds no frames of tracepoint %d" % (tr.origin, args.tp))
    print("\n".join(out))


def register(sub: argparse._SubParsersAction, formatter: type[argparse.HelpFormatter]) -> None:
    p = sub.add_parser("save", help="write the stopped trace's frames as a gdb trace file",
                       description="Read the stopped trace from the target and write "
                       "it as gdb's trace file (what tsave writes): `target tfile OUT` "
                       "in any gdb with the kernel's symbols shows the frames.",
                       formatter_class=formatter)
    p.add_argument("out", metavar="OUT.tf", help="the trace file to write")
    remote.add_target_argument(p)
    p.set_defaults(func=run_save)

    p = sub.add_parser("dump", help="print every frame as text",
                       description="Print every frame: its tracepoint, the CPU it ran on "
                       "and its time since the trace started (from a trace file, which "
                       "has neither: $cpu_id and $clock if the actions collected them), "
                       "the registers, "
                       "each memory block (named by its `collect` item where that is "
                       "unambiguous, with its value when it is 1, 2, 4 or 8 bytes) and "
                       "the trace state variables.",
                       formatter_class=formatter)
    source.add_arguments(p)
    p.add_argument("--tp", type=int, metavar="N", help="only the frames of tracepoint N")
    p.set_defaults(func=run_dump)
