# SPDX-License-Identifier: GPL-2.0
"""gtpgdb/percpu.py - gtp-percpu: a per-CPU variable's value on each CPU.

`tvariable $p_calls` defines a variable of one value per CPU on the
target (module/core/tsv.c); `print $p_calls` shows their sum, and this
command each CPU's (gtpctl/pcpu.py reads them with qGtpPcpu), while the
trace runs or after.
"""
import gdb

from . import lazy
from .hist import _maint_send

pcpu = lazy.module("gtpctl.pcpu")
trace = lazy.module("gtpctl.trace")


class PercpuCmd(gdb.Command):
    """A per-CPU trace state variable's value on each CPU, and their sum.

Usage: gtp-percpu $p_NAME
A variable named $p_NAME has one value per CPU: a hit reads and sets
its own CPU's; print $p_NAME gives the sum."""

    def __init__(self) -> None:
        super().__init__("gtp-percpu", gdb.COMMAND_TRACEPOINTS, gdb.COMPLETE_EXPRESSION)

    def invoke(self, arg: str, from_tty: bool) -> None:
        name = pcpu.pcpu_name(arg)
        if name is None:
            raise gdb.GdbError("gtp-percpu: usage: gtp-percpu $p_NAME (a per-CPU "
                               "trace state variable)")
        try:
            vals = pcpu.read(_maint_send, name)
        except trace.TraceError as e:
            raise gdb.GdbError("gtp-percpu: %s" % e)
        gdb.write(pcpu.format_pcpu(name, vals))


def register() -> None:
    PercpuCmd()
