# SPDX-License-Identifier: GPL-2.0
"""gtp-connect [TARGET]: symbols of the kernel and every loaded module,
then `target remote TARGET` (/proc/gtp by default), in one command.

Order matters: on connect gdb re-creates the tracepoints the target already
holds from their source strings, which needs the symbols first.  A module
whose .ko with DWARF is found (gtp-load-module's search: the build the
guest harness loaded, this tree, modinfo) gets its DWARF; so does the
kernel when its vmlinux with DWARF is where Debian's -dbg package puts it
and matches (gtp-load-vmlinux: build id; one that does not match is
said and passed over); every other module, and the kernel otherwise, get
gtp-kernel-symbols' BTF and kallsyms.

gtp is not a stopped process: the registers its stop reply gives are not a
frame, and gdb's "0x0000000000000000 in ?? ()" after connecting says
nothing.  The connection's output is kept and one line is printed instead.

What an earlier session left on the target (leftover.py) must not keep
gdb from connecting: gtp-connect reads it first, declares the built-in
variables its tracepoints use, connects, and says what it found and how to
keep or discard it.  When gdb still cannot re-create a tracepoint, it
takes what gdb names (a variable the target never received) and tries
again; for any other reason it connects without taking the definitions
(no qTStatus, so gdb uploads nothing) and says why.
"""
import os

import gdb

from gtpctl import abi

from . import kernsyms, lazy, module, vmlinux

leftover = lazy.module("gtpgdb.leftover")


class Connect(gdb.Command):
    """Load the kernel's and modules' symbols, then connect to gtp.

Usage: gtp-connect [TARGET]     (TARGET: /proc/gtp unless given)
Modules with a .ko holding DWARF get gtp-load-module, the kernel its
vmlinux with DWARF if /usr/lib/debug has the running kernel's
(gtp-load-vmlinux); the rest get gtp-kernel-symbols (BTF and kallsyms)."""

    def __init__(self) -> None:
        super().__init__("gtp-connect", gdb.COMMAND_RUNNING)

    def invoke(self, arg: str, from_tty: bool) -> None:
        argv = gdb.string_to_argv(arg)
        if len(argv) > 1:
            raise gdb.GdbError("usage: gtp-connect [TARGET]")
        target = argv[0] if argv else "/proc/gtp"
        for name in module.loaded_modules():
            if name.replace("-", "_") in module.dwarf_loaded():
                continue
            if module.dwarf_file(name):
                gdb.execute("gtp-load-module %s" % name, to_string=True)
                gdb.write("gtp: %s: DWARF from its .ko\n" % name)
        dbg = vmlinux.default_path()
        if dbg and not vmlinux.loaded():
            try:
                vmlinux.load(dbg)
            except gdb.GdbError as e:
                gdb.write("gtp: warning: %s; the kernel's symbols come from BTF\n" % e)
        try:
            kernsyms.load()
        except gdb.GdbError as e:
            # still connect: registers and `trace *ADDR` need no symbols
            gdb.write("gtp: warning: %s\n" % e)
        _connect(target)


def _connect(target: str) -> None:
    """target remote TARGET, whatever an earlier session left there."""
    # only a local file can be read beside gdb (not `| ssh ... gtp-ctl stdio`)
    found = leftover.peek(target) if os.path.exists(target) else None
    tps_before = leftover.gdb_tracepoints()
    tsvs_before = leftover.gdb_tvariables()
    declared = leftover.builtins_to_declare(found) if found else []
    for name in declared:
        leftover.declare(name)
    while True:
        try:
            _quietly("target remote %s" % target)
            break
        except gdb.error as e:
            first = e
        _disconnect()
        m = leftover.NOT_A_TSV.search(str(first))
        if m and m.group(1) not in declared and m.group(1) not in abi.BUILTIN_KNOBS:
            # gdb names the variable: the session that wrote the action had
            # declared it, but its tstart failed before sending it
            leftover.undo(tps_before, tsvs_before + declared)
            leftover.declare(m.group(1))
            declared.append(m.group(1))
            continue
        leftover.undo(tps_before, tsvs_before)
        if found is not None and found.empty():
            raise first         # not what the target holds: connecting failed
        saved = leftover.packet_setting()
        gdb.execute("set remote trace-status-packet off", to_string=True)
        try:
            _quietly("target remote %s" % target)
        except gdb.error:
            raise first
        finally:
            gdb.execute("set remote trace-status-packet %s" % saved, to_string=True)
        # gdb's idea of the trace (running or not) for tstop
        gdb.execute("tstatus", to_string=True)
        gdb.write("gtp: connected to %s\n" % target)
        leftover.report(found, None, [], str(first).splitlines()[0])
        return
    gdb.write("gtp: connected to %s\n" % target)
    if found is not None and not found.empty():
        taken = [n for n in leftover.gdb_tracepoints() if n not in tps_before]
        leftover.report(found, taken, declared, None)


def _disconnect() -> None:
    """Pop a remote target a failed connect may have left pushed."""
    if getattr(gdb.selected_inferior(), "connection", None) is not None:
        try:
            gdb.execute("disconnect", to_string=True)
        except gdb.error:
            pass


def _quietly(cmd):
    """Run cmd with gdb's stdout (fd 1) on /dev/null.

    to_string=True is not enough: the stop after connecting is printed by
    the CLI interpreter's normal_stop observer on its own stream, and so is
    `set logging redirect` (gdb 13..18).  Errors still raise, and warnings
    still reach stderr.
    """
    gdb.flush()
    saved = os.dup(1)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    try:
        gdb.execute(cmd, to_string=True)
    finally:
        gdb.flush()
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)


def register() -> None:
    Connect()
