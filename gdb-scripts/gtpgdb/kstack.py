# SPDX-License-Identifier: GPL-2.0
"""gtp-kstack: the kernel call stack a trace frame recorded.

`collect $kstack` (after `tvariable $kstack`) makes gtp run the kernel's
own unwinder at the hit and record up to 32 return addresses, innermost
first, as 8-byte words in the frame at KSTACK_ADDR, an address no kernel
memory has (module/core/fbuild.h); $kstack's value in the frame says how
many.  gdb reads them back like any collected memory, so this works while
connected to /proc/gtp and on a saved trace (`target tfile`) alike.  The
names are whatever symbols gdb has: gtp-connect's kallsyms, a vmlinux with
DWARF (then with source lines), a module's .ko.
"""
import re
from typing import Optional

import gdb

from gtpctl.abi import KSTACK_ADDR


def _selected() -> bool:
    """Is a trace frame selected?"""
    tf = gdb.parse_and_eval("$trace_frame")
    # void until a trace was looked at, -1 when no frame is selected
    return tf.type.code != gdb.TYPE_CODE_VOID and int(tf) >= 0


def stack_count(var: str, kind: str) -> int:
    """$VAR of the selected frame (kstack, ustack: how many addresses
    `collect $VAR` recorded), or a GdbError from gtp-VAR saying why none;
    kind names the stack ("kernel", "user")."""
    if not _selected():
        raise gdb.GdbError("gtp-%s: no trace frame selected (tfind first)" % var)
    err = ("gtp-%s: this frame has no %s stack: `tvariable $%s`, "
           "then `collect $%s` in the tracepoint's actions" % (var, kind, var, var))
    try:
        v = gdb.parse_and_eval("$" + var)
        if v.type.code == gdb.TYPE_CODE_VOID:
            raise gdb.GdbError(err)
        return int(v)
    except gdb.error:
        raise gdb.GdbError(err)


def symbolize(addr: int, ret: bool) -> str:
    """`func+off [module] at file:line` for one address.  @ret: a return
    address, whose call is the byte before it (for the source line)."""
    out = gdb.execute("info symbol 0x%x" % addr, to_string=True).strip()
    m = re.match(r"^(\S+)(?: \+ (\d+))? in section (\S+)(?: of (\S+))?", out)
    if not m:
        where = "??"
    else:
        where = m.group(1) + ("+%s" % m.group(2) if m.group(2) else "")
        mod = None
        if m.group(4) and m.group(4).endswith(".ko"):
            # gtp-load-module's re-addressed copy is NAME-N.ko
            mod = re.sub(r"-\d+$", "", m.group(4).rsplit("/", 1)[-1][:-3])
        elif m.group(3).startswith(".text."):
            # gtp-kernel-symbols gives each module its .text.NAME
            mod = m.group(3)[len(".text."):]
        if mod:
            where += " [%s]" % mod
    sal = gdb.find_pc_line(addr - 1 if ret else addr)
    if sal.symtab and sal.line:
        where += " at %s:%d" % (sal.symtab.filename, sal.line)
    return where


def frame_caller() -> Optional[int]:
    """$caller of the selected trace frame (the return address into the
    traced function's caller, collected at its entry or return), or None:
    not collected there, or 0 (gtp could not tell)."""
    try:
        v = gdb.parse_and_eval("$caller")
        if v.type.code == gdb.TYPE_CODE_VOID:
            return None
        return (int(v) & (1 << 64) - 1) or None
    except gdb.error:   # declared, not collected in this frame
        return None


def frame_stack() -> list[tuple[int, str]]:
    """[(addr, text)] of the selected trace frame's kernel stack."""
    n = stack_count("kstack", "kernel")
    if n <= 0:
        return []
    mem = gdb.selected_inferior().read_memory(KSTACK_ADDR, 8 * n)
    raw = bytes(mem)
    addrs = [int.from_bytes(raw[i:i + 8], "little") for i in range(0, 8 * n, 8)]
    # An entry probe's stack starts at the probe, the frame's $pc; a return
    # probe's and a static tracepoint's at a return address.
    pc = int(gdb.parse_and_eval("$pc"))
    return [(a, symbolize(a, i > 0 or a != pc)) for i, a in enumerate(addrs)]


class KStack(gdb.Command):
    """Print the kernel call stack the selected trace frame recorded.

Usage: gtp-kstack
The tracepoint's actions must have `collect $kstack` (after `tvariable
$kstack`).  Innermost first: at an entry probe the probed function, at a
return probe ($kret) the caller it returned to.  A collected `$caller`
(`tvariable $caller`) is named after the stack, or alone without one."""

    def __init__(self) -> None:
        super().__init__("gtp-kstack", gdb.COMMAND_TRACEPOINTS)

    def invoke(self, arg: str, from_tty: bool) -> None:
        if arg.strip():
            raise gdb.GdbError("usage: gtp-kstack")
        try:
            stack = frame_stack()
        except gdb.GdbError:
            caller = frame_caller() if _selected() else None
            if caller is None:
                raise
            stack = None    # no $kstack; a $caller to name
        if stack == []:
            gdb.write("(no kernel stack: the unwinder found no frame)\n")
        for i, (addr, where) in enumerate(stack or []):
            gdb.write("#%-2d 0x%016x in %s\n" % (i, addr, where))
        caller = frame_caller()
        if caller is not None:
            gdb.write("caller 0x%016x in %s\n" % (caller, symbolize(caller, True)))


def register() -> None:
    KStack()
