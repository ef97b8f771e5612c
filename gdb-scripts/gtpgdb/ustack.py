# SPDX-License-Identifier: GPL-2.0
"""gtp-ustack: the user call stack a trace frame recorded.

`collect $ustack` (after `tvariable $ustack`) makes gtp record, at a hit
in a task's own context (not in an interrupt, not in a kernel thread),
where the task is in its program (its user ip) and the return addresses
of its frame-pointer chain, up to 32, innermost first, as 8-byte words at
USTACK_ADDR, with the start of its program's text in the word before
(module/core/fbuild.h); $ustack's value in the frame says how many.  The
chain is what code built with frame pointers leaves, as perf's user
call graphs read it: a leaf that sets up no frame (a libc system call
wrapper) leaves its caller out.

Given the program's file, this names the addresses: the program is
loaded at its text start less the lowest executable segment's address,
so a position-independent program's symbols go where the task had them
(`add-symbol-file PROGRAM -o OFFSET`).  Addresses in shared libraries
stay bare.
"""
import os
import struct

import gdb

from gtpctl.abi import USTACK_ADDR
from gtpgdb.kstack import stack_count, symbolize

PT_LOAD, PF_X = 1, 1
_loaded = {}        # program path -> the offset its symbols were added at


def text_vaddr(path: str) -> int:
    """The lowest p_vaddr of @path's executable PT_LOAD segments (what the
    kernel's start_code is, less the load offset)."""
    try:
        with open(path, "rb") as f:
            head = f.read(64)
            if head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
                raise gdb.GdbError("gtp-ustack: %s is not a 64-bit little-endian ELF file" % path)
            phoff, = struct.unpack_from("<Q", head, 32)
            phentsize, phnum = struct.unpack_from("<HH", head, 54)
            f.seek(phoff)
            table = f.read(phentsize * phnum)
    except OSError as e:
        raise gdb.GdbError("gtp-ustack: %s: %s" % (path, e.strerror))
    lows = []
    for i in range(phnum):
        p_type, p_flags, _, p_vaddr = struct.unpack_from("<IIQQ", table, i * phentsize)
        if p_type == PT_LOAD and p_flags & PF_X:
            lows.append(p_vaddr)
    if not lows:
        raise gdb.GdbError("gtp-ustack: %s has no executable segment" % path)
    return min(lows)


def load_program(path: str, text: int) -> None:
    """@path's symbols where the task had its text at @text."""
    offset = (text - text_vaddr(path)) & ((1 << 64) - 1)
    if _loaded.get(path) == offset:
        return
    if path in _loaded:
        gdb.execute("remove-symbol-file %s" % path, to_string=True)
    gdb.execute("add-symbol-file %s -o 0x%x" % (path, offset), to_string=True)
    _loaded[path] = offset


def frame_ustack():
    """(text start, [addresses]) of the selected trace frame's user stack."""
    n = stack_count("ustack", "user")
    if n <= 0:
        return None, []
    raw = bytes(gdb.selected_inferior().read_memory(USTACK_ADDR - 8, 8 * (n + 1)))
    words = [int.from_bytes(raw[i:i + 8], "little") for i in range(0, len(raw), 8)]
    return words[0], words[1:]


class UStack(gdb.Command):
    """Print the user call stack the selected trace frame recorded.

Usage: gtp-ustack [PROGRAM]
The tracepoint's actions must have `collect $ustack` (after `tvariable
$ustack`).  Innermost first: where the task was in its program, then the
return addresses of its frame-pointer chain.  With PROGRAM, the task's
executable, its symbols are loaded where the task had them and the
addresses named; without, they are bare.  A hit outside the task's own
context (an interrupt, a kernel thread) records none."""

    def __init__(self) -> None:
        super().__init__("gtp-ustack", gdb.COMMAND_TRACEPOINTS, gdb.COMPLETE_FILENAME)

    def invoke(self, arg: str, from_tty: bool) -> None:
        argv = gdb.string_to_argv(arg)
        if len(argv) > 1:
            raise gdb.GdbError("usage: gtp-ustack [PROGRAM]")
        text, stack = frame_ustack()
        if not stack:
            gdb.write("(no user stack: the hit was not in a task's own context)\n")
            return
        prog = os.path.abspath(os.path.expanduser(argv[0])) if argv else None
        if prog:
            load_program(prog, text)
        gdb.write("program text at 0x%x\n" % text)
        for i, addr in enumerate(stack):
            where = " in " + symbolize(addr, i > 0) if prog else ""
            gdb.write("#%-2d 0x%016x%s\n" % (i, addr, where))


def register() -> None:
    UStack()
