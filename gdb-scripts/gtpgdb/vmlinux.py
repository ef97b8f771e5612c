# SPDX-License-Identifier: GPL-2.0
"""gtp-load-vmlinux [PATH]: the running kernel's own DWARF, from a vmlinux
with debug info (Debian: linux-image-KVER-dbg), at the running kernel's
KASLR slide (docs/kernel-symbols.md).

The file is checked before gdb sees it, and nothing is loaded unless all
holds:
  - it is a 64-bit little-endian ELF file with a .debug_info section;
  - its GNU build id (in its note sections) is the running kernel's
    (/sys/kernel/notes): a vmlinux of another build would put every
    function at a plausible but wrong address;
  - /proc/kallsyms shows addresses (root, kptr_restrict < 2).

The slide is _text in /proc/kallsyms minus _text in the file's .symtab;
`add-symbol-file FILE -o SLIDE` moves every section by it, except the
allocated sections linked at address 0 (x86-64's zero-based per-cpu
area, .data..percpu, up to 6.14), which KASLR does not move either:
those stay at 0 (`-s NAME 0`), as kallsyms shows their symbols.

Reading the ELF headers, the notes and .symtab is a few seeks into a
600 MB file; gdb itself reads the DWARF lazily.  gtp-kernel-symbols,
loaded before or after, leaves the kernel's functions to this file (its
BTF file then describes the modules only; see on_load()).

What gdb loads is the file's patched copy (entryval.py: its entry values
made collectable), made once next to it or in ~/.cache/gtp; when no copy
can be made, the file itself, after one line saying why.
"""
from __future__ import annotations

import os
import struct
import time
from typing import Callable, Optional

import gdb

from . import lazy

entryval = lazy.module("gtpgdb.entryval")
ksyms = lazy.module("gtpgdb.ksyms")

DEFAULTS = ("/usr/lib/debug/boot/vmlinux-%s", "/usr/lib/debug/lib/modules/%s/vmlinux")

SHT_SYMTAB, SHT_NOTE, SHT_NOBITS = 2, 7, 8
SHF_ALLOC = 0x2

# path: the vmlinux asked for; file: what gdb loaded (its patched copy)
_state = {"path": None, "file": None, "slide": None, "secs": None}
_hooks = []


def default_path() -> Optional[str]:
    """The first of DEFAULTS that exists for the running kernel, or None."""
    for d in DEFAULTS:
        p = d % os.uname().release
        if os.path.exists(p):
            return p
    return None


def loaded() -> Optional[str]:
    """The path of the vmlinux gtp-load-vmlinux loaded, or None."""
    return _state["path"]


def on_load(fn: Callable[[], None]) -> None:
    """Call fn() after each vmlinux is loaded (gtp-kernel-symbols makes its
    file again without the kernel's functions, when it has one loaded)."""
    _hooks.append(fn)


def _err(msg):
    return gdb.GdbError("gtp-load-vmlinux: " + msg)


class _Elf:
    """Section headers of a 64-bit little-endian ELF file, and the bytes
    of a section on demand (never the whole file)."""

    def __init__(self, path):
        try:
            self.f = open(path, "rb")
        except OSError as e:
            raise _err("cannot read %s: %s" % (path, e.strerror))
        self.path = path
        hdr = self.f.read(64)
        if hdr[:4] != b"\x7fELF":
            raise _err("%s is not an ELF file" % path)
        if hdr[4] != 2 or hdr[5] != 1:
            raise _err("%s is not a 64-bit little-endian ELF file" % path)
        shoff, = struct.unpack_from("<Q", hdr, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", hdr, 0x3a)
        self.f.seek(shoff)
        raw = self.f.read(shentsize * shnum)
        if len(raw) < shentsize * shnum or shstrndx >= shnum:
            raise _err("%s: truncated ELF file" % path)
        heads = [struct.unpack_from("<IIQQQQII", raw, i * shentsize) for i in range(shnum)]
        strtab = self._bytes(heads[shstrndx][4], heads[shstrndx][5])
        # name -> (type, flags, addr, offset, size, link)
        self.sections = {}
        self.by_index = []
        for name, typ, flags, addr, off, size, link, _ in heads:
            n = strtab[name:strtab.index(b"\0", name)].decode(errors="replace")
            self.by_index.append((n, typ, flags, addr, off, size, link))
            self.sections.setdefault(n, (typ, flags, addr, off, size, link))

    def _bytes(self, off, size):
        self.f.seek(off)
        return self.f.read(size)

    def section(self, name):
        typ, _, _, off, size, _ = self.sections[name]
        return b"" if typ == SHT_NOBITS else self._bytes(off, size)

    def build_id(self):
        for n, typ, _, _, off, size, _ in self.by_index:
            if typ == SHT_NOTE:
                bid = ksyms.notes_build_id(self._bytes(off, size))
                if bid:
                    return bid
        return None

    def symbol(self, want):
        """The value of the first .symtab symbol named want, or None."""
        sym = self.sections.get(".symtab")
        if not sym or sym[0] != SHT_SYMTAB:
            return None
        strs = self._bytes(self.by_index[sym[5]][4], self.by_index[sym[5]][5])
        key = want.encode() + b"\0"
        for name, _, _, _, value, _ in struct.iter_unpack("<IBBHQQ", self.section(".symtab")):
            if strs.startswith(key, name):
                return value
        return None

    def close(self):
        self.f.close()


def check(path: str) -> tuple[int, list[str], bool]:
    """(slide, [zero-address sections], has_index) for path, if it is the
    running kernel's vmlinux with DWARF; a gdb.GdbError saying why not."""
    elf = _Elf(path)
    try:
        info = elf.sections.get(".debug_info")
        if not info or info[0] == SHT_NOBITS or not info[4]:
            raise _err("%s has no DWARF (no .debug_info): a stripped vmlinux; Debian's "
                       "with debug info is in linux-image-%s-dbg" % (path, os.uname().release))
        running = ksyms.build_id()
        if not running:
            raise _err("cannot read the running kernel's build id (/sys/kernel/notes), "
                       "so cannot check that %s is its vmlinux" % path)
        theirs = elf.build_id()
        if theirs != running:
            raise _err("%s is not the running kernel's vmlinux: its build id is %s, the "
                       "kernel's (/sys/kernel/notes) %s" % (path, theirs or "missing", running))
        linked = elf.symbol("_text")
        if linked is None:
            raise _err("%s has no _text in .symtab" % path)
        zero = sorted(n for n, (typ, flags, addr, _, _, _) in elf.sections.items()
                      if flags & SHF_ALLOC and not addr and n)
        indexed = ".gdb_index" in elf.sections or ".debug_names" in elf.sections
    finally:
        elf.close()
    live = _kallsyms_text()
    return live - linked, zero, indexed


def _kallsyms_text():
    try:
        with open("/proc/kallsyms") as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 3 and parts[2] == "_text":
                    addr = int(parts[0], 16)
                    break
            else:
                raise _err("no _text in /proc/kallsyms")
    except OSError as e:
        raise _err("cannot read /proc/kallsyms: %s" % e.strerror)
    if not addr:
        raise _err("/proc/kallsyms shows every address as 0: run gdb as root "
                   "(and kernel.kptr_restrict < 2); the KASLR slide is unknown")
    return addr


def load(path: Optional[str] = None, quiet: bool = False) -> None:
    """Check path (default_path() if None) and add it at the slide."""
    if path is None:
        path = default_path()
        if path is None:
            raise _err("no vmlinux with debug info for %s at %s: give its path" % (
                os.uname().release, " or ".join(d % os.uname().release for d in DEFAULTS)))
    path = os.path.abspath(os.path.expanduser(path))
    t0 = time.time()
    slide, zero, indexed = check(path)
    if _state["path"] == path and _state["slide"] == slide:
        if not quiet:
            gdb.write("gtp: %s already loaded\n" % path)
        return
    if _state["path"]:
        gdb.execute("remove-symbol-file %s" % _state["file"], to_string=True)
        _state.update(path=None, file=None, slide=None)
    file, patched = _patched(path, quiet)
    cmd = "add-symbol-file %s -o %s%#x" % (file, "-" if slide < 0 else "", abs(slide))
    cmd += "".join(" -s %s 0" % n for n in zero)
    gdb.execute(cmd, to_string=True)
    _state.update(path=path, file=file, slide=slide, secs=time.time() - t0)
    if not quiet:
        gdb.write("gtp: kernel DWARF from %s, KASLR slide %#x, in %.1fs%s\n" % (
            path, slide, _state["secs"], patched))
        if not indexed:
            # Debian's has none: gdb 13 then indexes all of .debug_info
            # at the first type lookup (16 s and 2 GB on a 6.1 vmlinux)
            gdb.write("gtp: %s has no name index (.gdb_index): gdb makes one at the "
                      "first type or name lookup, which takes long and much memory "
                      "(`gdb-add-index FILE` writes one into the file; `set index-cache "
                      "on` keeps one per build id)\n" % path)
    for fn in _hooks:
        fn()


def _patched(path, quiet):
    """(the file to load for path, what the load message adds): its
    patched copy, made if need be, or path itself after a line saying
    why not."""
    def log(line):
        if not quiet:
            gdb.write("gtp: %s\n" % line)
            gdb.flush()
    try:
        copy, st = entryval.patched_copy(path, log)
    except Exception as e:      # noqa: BLE001 - never what stops the load
        why = e if isinstance(e, entryval.EntryvalError) else "patching failed: %r" % e
        gdb.write("gtp: %s: entry values will not be collectable: %s\n" % (path, why))
        return path, ""
    return copy, "; %s, from %s" % (st.brief(), copy)


class LoadVmlinux(gdb.Command):
    """Load the running kernel's vmlinux with DWARF at its KASLR slide.

Usage: gtp-load-vmlinux [PATH]
PATH: /usr/lib/debug/boot/vmlinux-$(uname -r) (Debian's
linux-image-KVER-dbg) or /usr/lib/debug/lib/modules/$(uname -r)/vmlinux
unless given.  Refused unless the file has DWARF and the running kernel's
build id (/sys/kernel/notes), and /proc/kallsyms shows addresses (root).
The slide is _text's live address (kallsyms) minus its linked one.
gdb loads the file's copy with its entry values made collectable
(PATH.gtp-ev, else ~/.cache/gtp/BUILD-ID/), made the first time."""

    def __init__(self) -> None:
        super().__init__("gtp-load-vmlinux", gdb.COMMAND_FILES, gdb.COMPLETE_FILENAME)

    def invoke(self, arg: str, from_tty: bool) -> None:
        argv = gdb.string_to_argv(arg)
        if len(argv) > 1:
            raise gdb.GdbError("usage: gtp-load-vmlinux [PATH]")
        load(argv[0] if argv else None)


def register() -> None:
    LoadVmlinux()
