# gdb-scripts/gtp.py - gdb-side helpers for gtp (load with `source gtp.py`).
#
# gdb talks to the kernel through `target remote /proc/gtp`.  A kernel
# engineer usually has no vmlinux with debug info at hand, but has the
# modules they care about: these commands give gdb their symbols at the
# addresses the running kernel loaded them at, and find kernel symbols in
# /proc/kallsyms.
#
#   gtp-load-module NAME [FILE]   add-symbol-file for a loaded module, with
#                                 every section at its /sys/module address
#   gtp-ksym NAME                 print a kernel symbol's address (kallsyms)
import os
import re
import subprocess

import gdb

_HERE = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.dirname(_HERE)


def _module_file(name):
    """The .ko for NAME: our build tree first, then modinfo's answer."""
    base = name.replace("-", "_")
    for d in ("tracepoints", "module"):
        p = os.path.join(_REPO, d, base + ".ko")
        if os.path.exists(p):
            return p
    try:
        p = subprocess.run(["modinfo", "-n", name], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, check=True).stdout.decode().strip()
        if p and os.path.exists(p):
            return p
    except (OSError, subprocess.CalledProcessError):
        pass
    raise gdb.GdbError("gtp-load-module: no .ko found for module %s; give its path" % name)


def _module_sections(name):
    d = "/sys/module/%s/sections" % name.replace("-", "_")
    if not os.path.isdir(d):
        raise gdb.GdbError("gtp-load-module: module %s is not loaded (no %s)" % (name, d))
    secs = {}
    for s in os.listdir(d):
        try:
            with open(os.path.join(d, s)) as f:
                addr = int(f.read().strip(), 16)
        except (OSError, ValueError):
            continue
        if addr:
            secs[s] = addr
    if ".text" not in secs:
        raise gdb.GdbError("gtp-load-module: no .text address for %s (run as root)" % name)
    return secs


class LoadModule(gdb.Command):
    """Load a running kernel module's symbols at its load addresses.

Usage: gtp-load-module NAME [FILE]
Reads the section addresses from /sys/module/NAME/sections and runs
add-symbol-file with all of them, so that e.g. `trace gtp_test_function`
resolves to the running code."""

    def __init__(self):
        super().__init__("gtp-load-module", gdb.COMMAND_FILES)

    def invoke(self, arg, from_tty):
        argv = gdb.string_to_argv(arg)
        if not argv or len(argv) > 2:
            raise gdb.GdbError("usage: gtp-load-module NAME [FILE]")
        name = argv[0]
        path = argv[1] if len(argv) == 2 else _module_file(name)
        secs = _module_sections(name)
        cmd = "add-symbol-file %s -s .text 0x%x" % (path, secs.pop(".text"))
        for s in sorted(secs):
            # .note.* and .gnu.linkonce.* carry no symbols gdb wants
            if s.startswith(".note") or s.startswith(".gnu.linkonce"):
                continue
            cmd += " -s %s 0x%x" % (s, secs[s])
        gdb.execute(cmd, from_tty=False, to_string=not from_tty)
        gdb.write("gtp: loaded symbols of %s from %s\n" % (name, path))


def ksym(name):
    with open("/proc/kallsyms") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[2] == name:
                return int(parts[0], 16)
    return None


class Ksym(gdb.Command):
    """Print a kernel symbol's address from /proc/kallsyms and set $_gtp_ksym.

Usage: gtp-ksym NAME"""

    def __init__(self):
        super().__init__("gtp-ksym", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        name = arg.strip()
        if not re.match(r"^[A-Za-z0-9_.$]+$", name):
            raise gdb.GdbError("usage: gtp-ksym NAME")
        addr = ksym(name)
        if addr is None:
            raise gdb.GdbError("gtp-ksym: %s not in /proc/kallsyms" % name)
        gdb.set_convenience_variable("_gtp_ksym", addr)
        gdb.write("%s = 0x%x\n" % (name, addr))


LoadModule()
Ksym()
exec(open(os.path.join(_HERE, "gtp_static.py")).read())  # static tracepoints (issue 6)
