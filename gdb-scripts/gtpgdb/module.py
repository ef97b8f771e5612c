# SPDX-License-Identifier: GPL-2.0
"""Kernel and module symbols for a gdb without vmlinux debug info.

gdb talks to the kernel through `target remote /proc/gtp`.  A kernel
engineer usually has no vmlinux with debug info at hand, but has the
modules they care about: these give gdb their symbols at the addresses the
running kernel loaded them at, and find kernel symbols in /proc/kallsyms.

  gtp-load-module NAME [FILE]   add-symbol-file for a loaded module, with
                                every section at its /sys/module address
  gtp-ksym NAME                 print a kernel symbol's address (kallsyms)
  $gtp_ksym("NAME")             the same address as a value, in any
                                expression (`trace *$gtp_ksym("vfs_read")`)
"""
from __future__ import annotations

import atexit
import os
import re
import struct
from typing import Optional, Union

import gdb

from . import lazy

entryval = lazy.module("gtpgdb.entryval")
glob = lazy.module("glob")
shutil = lazy.module("shutil")
subprocess = lazy.module("subprocess")
tempfile = lazy.module("tempfile")

# gdb-scripts/gtpgdb/module.py -> the checkout (its tracepoints/, module/)
_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _read(path):
    """A file's bytes, or None when it cannot be read."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def _vermagic(path):
    """The kernel release a .ko was built for (from its .modinfo)."""
    data = _read(path)
    if data is None:
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
    debug info itself and nothing overlaps.  Its entry values are made
    collectable too (entryval.py).  The copy lives as long as gdb.
    Returns (its path, what the load message adds about entry values).
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
    try:
        st = entryval.patch_image(data)
        patched = "; %s" % st.brief() if st.how else ""
    except Exception as e:      # noqa: BLE001 - never what stops the load
        patched = "; entry values will not be collectable: patching failed: %r" % e
    global _copies
    if _copies is None:
        _copies = tempfile.mkdtemp(prefix="gtp-gdb-")
        atexit.register(shutil.rmtree, _copies, True)
    out = os.path.join(_copies, "%s-%d.ko" % (name, len(os.listdir(_copies))))
    with open(out, "wb") as f:
        f.write(data)
    return out, patched


_copies = None


class LoadModule(gdb.Command):
    """Load a running kernel module's symbols at its load addresses.

Usage: gtp-load-module NAME [FILE]
Reads the section addresses from /sys/module/NAME/sections and runs
add-symbol-file with all of them, so that e.g. `trace gtp_test_function`
resolves to the running code."""

    def __init__(self) -> None:
        super().__init__("gtp-load-module", gdb.COMMAND_FILES)

    def complete(self, text: str, word: Optional[str]) -> Union[list[str], int, None]:
        words = text.split()
        if len(words) > 1 or (words and text.endswith(" ")):
            if word is None:
                return gdb.COMPLETE_FILENAME
            return sorted(p + ("/" if os.path.isdir(p) else "")
                          for p in glob.glob(os.path.expanduser(word) + "*"))
        return sorted(m for m in loaded_modules() if m.startswith(word or ""))

    def invoke(self, arg: str, from_tty: bool) -> None:
        argv = gdb.string_to_argv(arg)
        if not argv or len(argv) > 2:
            raise gdb.GdbError("usage: gtp-load-module NAME [FILE]")
        name = argv[0]
        path = argv[1] if len(argv) == 2 else _module_file(name)
        secs = _module_sections(name)
        copy, patched = _placed_copy(path, name.replace("-", "_"), secs)
        gdb.execute("add-symbol-file %s -o 0" % copy, from_tty=False, to_string=True)
        _dwarf_loaded.add(name.replace("-", "_"))
        gdb.write("gtp: loaded symbols of %s from %s%s\n" % (name, path, patched))


# Modules whose symbols gtp-load-module loaded: gtp-kernel-symbols leaves
# them out of its BTF file.
_dwarf_loaded = set()


def dwarf_loaded() -> set[str]:
    return set(_dwarf_loaded)


def has_dwarf(path: str) -> bool:
    """Whether an (uncompressed) ELF file has a .debug_info section."""
    data = _read(path)
    if data is None:
        return False
    if data[:4] != b"\x7fELF" or data[4] != 2:
        return False
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    stroff, = struct.unpack_from("<Q", data, shoff + shstrndx * shentsize + 24)
    for i in range(shnum):
        noff, = struct.unpack_from("<I", data, shoff + i * shentsize)
        if data[stroff + noff:stroff + noff + 12] == b".debug_info\0":
            return True
    return False


def dwarf_file(name: str) -> Optional[str]:
    """The .ko of loaded module name with DWARF (see _module_file), or None."""
    try:
        path = _module_file(name)
    except gdb.GdbError:
        return None
    return path if has_dwarf(path) else None


def loaded_modules() -> list[str]:
    """Names of the loaded modules (/proc/modules), [] if unreadable."""
    try:
        with open("/proc/modules") as f:
            return [line.split()[0] for line in f if line.strip()]
    except OSError:
        return []


def kallsyms_names(prefix: str) -> list[str]:
    """Distinct /proc/kallsyms names starting with prefix, sorted."""
    names = set()
    try:
        with open("/proc/kallsyms") as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 3 and parts[2].startswith(prefix):
                    names.add(parts[2])
    except OSError:
        pass
    return sorted(names)


def ksym(name: str) -> Optional[int]:
    """A kernel symbol's address from /proc/kallsyms, or None."""
    with open("/proc/kallsyms") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[2] == name:
                return int(parts[0], 16)
    return None


class Ksym(gdb.Command):
    """Print a kernel symbol's address from /proc/kallsyms and set $_gtp_ksym.

Usage: gtp-ksym NAME"""

    def __init__(self) -> None:
        super().__init__("gtp-ksym", gdb.COMMAND_DATA)

    def complete(self, text: str, word: Optional[str]) -> Union[list[str], int, None]:
        return kallsyms_names(word) if word else []

    def invoke(self, arg: str, from_tty: bool) -> None:
        addr = _ksym_or_error("gtp-ksym", arg.strip())
        gdb.set_convenience_variable("_gtp_ksym", addr)
        gdb.write("%s = 0x%x\n" % (arg.strip(), addr))


def _ksym_or_error(who, name):
    if not re.match(r"^[A-Za-z0-9_.$]+$", name):
        raise gdb.GdbError("usage: %s NAME" % who)
    addr = ksym(name)
    if addr is None:
        raise gdb.GdbError("%s: %s not in /proc/kallsyms" % (who, name))
    return addr


class KsymFunction(gdb.Function):
    """$gtp_ksym("NAME"): a kernel symbol's address from /proc/kallsyms.

Usable wherever gdb takes an expression, e.g.
  trace *$gtp_ksym("vfs_read")"""

    def __init__(self) -> None:
        super().__init__("gtp_ksym")

    def invoke(self, name: gdb.Value) -> gdb.Value:
        try:
            text = name.string()
        except gdb.error:
            raise gdb.GdbError('$gtp_ksym: give the name as a string: $gtp_ksym("vfs_read")')
        addr = _ksym_or_error("$gtp_ksym", text)
        return gdb.Value(addr).cast(gdb.lookup_type("unsigned long long"))


def register() -> None:
    LoadModule()
    Ksym()
    KsymFunction()
