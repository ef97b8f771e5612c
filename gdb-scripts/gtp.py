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
#
# gtp_static.py adds gtp-markers/gtp-strace (static tracepoints),
# gtp_hist.py gtp-hist/gtp-count/gtp-stats (histograms of a trace).
import atexit
import os
import re
import shutil
import struct
import subprocess
import tempfile

import gdb

_HERE = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.dirname(_HERE)


def _vermagic(path):
    """The kernel release a .ko was built for (from its .modinfo)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    m = re.search(rb"vermagic=([^ \0]+)", data)
    return m.group(1).decode() if m else None


def _module_file(name):
    """The .ko for NAME built for the running kernel: the build the guest
    harness loaded ($GTP_KMOD_DIR), this tree, then modinfo's answer."""
    base = name.replace("-", "_")
    release = os.uname().release
    roots = [os.environ.get("GTP_KMOD_DIR"), _REPO]
    for root in filter(None, roots):
        for d in ("tracepoints", "module"):
            p = os.path.join(root, d, base + ".ko")
            if os.path.exists(p) and _vermagic(p) == release:
                return p
    try:
        p = subprocess.run(["modinfo", "-n", name], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, check=True).stdout.decode().strip()
        if p and os.path.exists(p):
            return p
    except (OSError, subprocess.CalledProcessError):
        pass
    raise gdb.GdbError("gtp-load-module: no .ko of module %s built for kernel %s found; "
                       "give its path" % (name, release))


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


def _placed_copy(path, name, secs):
    """A copy of the .ko whose section headers carry the live addresses.

    add-symbol-file with -s per section is not enough: gdb lays out a
    relocatable file's sections itself, and for a .ko whose .text is the
    first section (Debian's 6.12 builds) it puts .init.text and .exit.text
    on top of .text, so a probe address in .text resolves to the module's
    exit function and its arguments are unknown (gdb 13 to 18).  With every
    section's sh_addr set to where the kernel loaded it, gdb relocates the
    debug info itself and nothing overlaps.  The copy lives as long as gdb.
    """
    with open(path, "rb") as f:
        data = bytearray(f.read())
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise gdb.GdbError("gtp-load-module: %s is not a 64-bit little-endian ELF file" % path)
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    stroff, = struct.unpack_from("<Q", data, shoff + shstrndx * shentsize + 24)
    for i in range(shnum):
        h = shoff + i * shentsize
        noff, = struct.unpack_from("<I", data, h)
        sname = data[stroff + noff:data.index(b"\0", stroff + noff)].decode(errors="replace")
        if sname in secs:
            struct.pack_into("<Q", data, h + 16, secs[sname])
    global _copies
    if _copies is None:
        _copies = tempfile.mkdtemp(prefix="gtp-gdb-")
        atexit.register(shutil.rmtree, _copies, True)
    out = os.path.join(_copies, "%s-%d.ko" % (name, len(os.listdir(_copies))))
    with open(out, "wb") as f:
        f.write(data)
    return out


_copies = None


class LoadModule(gdb.Command):
    """Load a running kernel module's symbols at its load addresses.

Usage: gtp-load-module NAME [FILE]
Reads the section addresses from /sys/module/NAME/sections and runs
add-symbol-file with all of them, so that e.g. `trace gtp_test_function`
resolves to the running code."""

    def __init__(self):
        super().__init__("gtp-load-module", gdb.COMMAND_FILES, gdb.COMPLETE_FILENAME)

    def invoke(self, arg, from_tty):
        argv = gdb.string_to_argv(arg)
        if not argv or len(argv) > 2:
            raise gdb.GdbError("usage: gtp-load-module NAME [FILE]")
        name = argv[0]
        path = argv[1] if len(argv) == 2 else _module_file(name)
        secs = _module_sections(name)
        copy = _placed_copy(path, name.replace("-", "_"), secs)
        gdb.execute("add-symbol-file %s -o 0" % copy, from_tty=False, to_string=True)
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
exec(open(os.path.join(_HERE, "gtp_hist.py")).read())  # histograms of a trace (issue 16)
