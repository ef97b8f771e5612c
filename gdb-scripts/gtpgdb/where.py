# SPDX-License-Identifier: GPL-2.0
"""gtp-where: where the selected trace frame was taken, in the source.

A hit in code inlined into a function is at a line of the inlined
function (include/linux/sched/xacct.h:14 for add_rchar()); which caller
it was inlined into, and at which of its lines, is in the frames gdb makes
from $pc alone (DW_TAG_inlined_subroutine), the same ones `bt` starts
with.  Only those are read: unwinding past the real function would need
stack memory a frame seldom holds.  So this works on any frame with a
$pc, connected or from a saved trace, with a vmlinux's or module's DWARF.
"""
import gdb


def chain() -> list[tuple[str, str]]:
    """[(function, file:line)] of the selected frame: the innermost inlined
    function first, the real function last."""
    tf = gdb.parse_and_eval("$trace_frame")
    if tf.type.code == gdb.TYPE_CODE_VOID or int(tf) < 0:
        raise gdb.GdbError("gtp-where: no trace frame selected (tfind first)")
    out = []
    f = gdb.selected_frame()
    while f is not None:
        sal = f.find_sal()
        pos = "%s:%d" % (sal.symtab.filename, sal.line) if sal.symtab and sal.line \
            else "0x%x" % f.pc()
        out.append((f.name() or "??", pos))
        if f.type() != gdb.INLINE_FRAME:
            break
        f = f.older()
    return out


class Where(gdb.Command):
    """Print where the selected trace frame was taken: file:line and
function, and for inlined code each caller it was inlined into.

Usage: gtp-where
Prints `tracepoint N, frame M: FILE:LINE in FUNC`, then one
`  inlined into CALLER at FILE:LINE` per level of inlining."""

    def __init__(self) -> None:
        super().__init__("gtp-where", gdb.COMMAND_TRACEPOINTS)

    def invoke(self, arg: str, from_tty: bool) -> None:
        if arg.strip():
            raise gdb.GdbError("usage: gtp-where")
        frames = chain()
        gdb.write("tracepoint %d, frame %d: %s in %s\n" % (
            int(gdb.parse_and_eval("$tracepoint")), int(gdb.parse_and_eval("$trace_frame")),
            frames[0][1], frames[0][0]))
        for name, pos in frames[1:]:
            gdb.write("  inlined into %s at %s\n" % (name, pos))


def register() -> None:
    Where()
