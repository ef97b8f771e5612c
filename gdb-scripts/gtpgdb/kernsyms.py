# SPDX-License-Identifier: GPL-2.0
"""gtp-kernel-symbols: the running kernel's functions and types for a gdb
with no debug info at all (docs/kernel-symbols.md).

Production kernels ship without DWARF but with /proc/kallsyms and BTF
(/sys/kernel/btf/vmlinux, /sys/kernel/btf/MODULE).  symfile.py turns them
into an ELF file holding DWARF; this loads it with add-symbol-file, after
which `trace vfs_read if count == 4093`, `collect file->f_path.dentry`,
`ptype struct file` work as with a debug vmlinux.

  gtp-kernel-symbols              make (or reuse) the file and load it
  gtp-kernel-symbols info         what was loaded, from where, how long
  gtp-kernel-symbols info FUNC    what gdb knows of FUNC and why

The file depends on the kernel build, the boot (KASLR) and the loaded
modules, so it is cached under that key ($XDG_CACHE_HOME/gtp, ~/.cache/gtp,
/run/gtp, then the temp dir: the first writable one that is ours and
closed to others, mode 0700) and made again when any changes.  Modules
whose .ko with DWARF gtp-load-module already loaded are left out (two
definitions of one function would give `trace` two locations), and so are
the kernel's own functions once gtp-load-vmlinux loaded its DWARF (the
file is made again without them if it was loaded first).
"""
from __future__ import annotations

import os
import time
from typing import Iterable

import gdb

from . import lazy, module, vmlinux

json = lazy.module("json")
ksyms = lazy.module("gtpgdb.ksyms")
tempfile = lazy.module("tempfile")

# btf, dwarfgen and symfile (with elfgen) are imported where a symbol file
# is made or described, not when gtp.py is sourced: most gdb sessions
# never do either, and every gdb start in a TCG guest paid about 0.15 s
# for them (15 ms on the host).

VERSION = "2"                   # of the file's layout: part of the cache key
BTF_DIR = "/sys/kernel/btf"

_state = {"path": None, "stats": None, "secs": None, "cached": False,
          "skip": ()}


def _cache_dirs():
    xdg = os.environ.get("XDG_CACHE_HOME")
    home = os.path.expanduser("~")
    dirs = []
    if xdg:
        dirs.append(os.path.join(xdg, "gtp"))
    if home and home != "~":
        dirs.append(os.path.join(home, ".cache", "gtp"))
    dirs += ["/run/gtp", os.path.join(tempfile.gettempdir(), "gtp-%d" % os.getuid())]
    return dirs


def _private(d):
    """Whether directory d is ours and closed to others: the file holds the
    kernel's live addresses (what KASLR hides), and gdb trusts what it
    reads from it."""
    try:
        st = os.lstat(d)
    except OSError:
        return False
    return os.path.isdir(d) and not os.path.islink(d) and st.st_uid == os.getuid() \
        and not st.st_mode & 0o077


def _cache_path(key):
    """An existing cached file for key, else where to write it."""
    name = "kernel-%s.elf" % key
    for d in _cache_dirs():
        p = os.path.join(d, name)
        if _private(d) and os.path.exists(p) and os.path.exists(p + ".json"):
            return p, True
    for d in _cache_dirs():
        try:
            os.makedirs(d, 0o700, exist_ok=True)
        except OSError:
            continue
        if _private(d) and os.access(d, os.W_OK):
            return os.path.join(d, name), False
    raise gdb.GdbError("gtp-kernel-symbols: no writable cache directory (tried %s)"
                       % ", ".join(_cache_dirs()))


def load(skip: Iterable[str] = (), quiet: bool = False) -> str:
    """Make or reuse the symbol file and add it to gdb; skip: modules left
    out (their DWARF is loaded).  Returns the file's path."""
    skip = tuple(sorted(set(skip) | module.dwarf_loaded()))
    kernel = vmlinux.loaded() is None
    if kernel and not os.path.exists(os.path.join(BTF_DIR, "vmlinux")):
        # still every function by name at its address: `trace FUNC`, $rdi..
        gdb.write("gtp: warning: gtp-kernel-symbols: %s/vmlinux is missing: this kernel "
                  "has no BTF (CONFIG_DEBUG_INFO_BTF): functions by name only, no types "
                  "or argument names (a vmlinux with debug info has them)\n" % BTF_DIR)
    t0 = time.time()
    key = ksyms.boot_key("%s skip=%s kernel=%s btf=%s" % (
        VERSION, ",".join(skip), "btf" if kernel else "dwarf", BTF_DIR))
    path, cached = _cache_path(key)
    if _state["path"] == path:
        if not quiet:
            gdb.write("gtp: kernel symbols already loaded from %s\n" % path)
        return path
    owners = None
    stats = None
    if not cached:
        from . import btf as B, symfile
        owners = _kallsyms()
        # modules only: kallsyms also has [bpf], [__builtin__ftrace], ...
        mods = sorted(set(module.loaded_modules()) & set(owners) - set(skip))
        try:
            data, stats = symfile.build(owners, BTF_DIR, mods, kernel=kernel)
        except B.BtfError as e:
            raise gdb.GdbError("gtp-kernel-symbols: %s" % e)
        stats.made_in = time.time() - t0
        tmp = path + ".%d.tmp" % os.getpid()
        with open(tmp + ".json", "w") as f:
            json.dump(vars(stats), f)
        os.rename(tmp + ".json", path + ".json")
        with open(tmp, "wb") as f:
            f.write(data)
        os.rename(tmp, path)
    else:
        stats = _cached_stats(path)
    if _state["path"]:
        gdb.execute("remove-symbol-file %s" % _state["path"], to_string=True)
    gdb.execute("add-symbol-file %s" % path, to_string=True)
    _state.update(path=path, stats=stats, secs=time.time() - t0, cached=cached,
                  skip=skip, owners=owners, kernel=kernel)
    if not quiet:
        gdb.write("gtp: kernel symbols %s %s in %.1fs%s\n" % (
            "loaded from cache" if cached else "made from BTF and kallsyms into",
            path, _state["secs"], _describe(stats)))
    return path


def _cached_stats(path):
    """The Stats saved next to a cached file (None if unreadable)."""
    from . import symfile
    try:
        with open(path + ".json") as f:
            st = symfile.Stats()
            st.__dict__.update(json.load(f))
            return st
    except (OSError, ValueError):
        return None


def _describe(st):
    if st is None:
        return ""
    s = ": %d functions (%d with BTF arguments), %d BTF types, %d modules" % (
        st.funcs, st.described, st.types, len(st.modules))
    if getattr(st, "made_in", None):
        s += "; made in %.1fs" % st.made_in
    if not getattr(st, "kernel_btf", True):
        s += " (no BTF: functions only)"
    elif st.no_btf:
        s += " (no BTF, functions only: %s)" % " ".join(st.no_btf)
    return s


def _kallsyms():
    try:
        return ksyms.read()
    except (OSError, ksyms.KsymsError) as e:
        raise gdb.GdbError("gtp-kernel-symbols: %s" % e)


def _info_func(name):
    from . import btf as B, dwarfgen, symfile
    owners = _state.get("owners") or _kallsyms()
    hits = [(o, a) for o, syms in owners.items() for a, t, n in syms
            if n == name and t in ksyms.TEXT_TYPES]
    if not hits:
        return ("%s: not a function in /proc/kallsyms (inlined everywhere, not "
                "built in, or a module that is not loaded)" % name)
    lines = []
    for owner, addr in hits:
        where = "kernel" if owner is None else "module " + owner
        blob = "vmlinux" if owner is None else owner
        if owner is None and not _state.get("kernel", True):
            lines.append("%s: 0x%x in kernel, described by vmlinux's DWARF (%s, "
                         "gtp-load-vmlinux)" % (name, addr, vmlinux.loaded()))
            continue
        if owner in _state["skip"]:
            lines.append("%s: 0x%x in %s, described by the module's DWARF "
                         "(gtp-load-module)" % (name, addr, where))
            continue
        proto = None
        try:
            vm = symfile.read_btf(BTF_DIR, "vmlinux")
            b = vm if owner is None else symfile.read_btf(BTF_DIR, owner, vm)
            proto = symfile.btf_funcs(b).get(name)
        except (OSError, B.BtfError):
            b = None
        if not proto:
            why = ("BTF has several functions of that name" if b and name in
                   symfile.btf_funcs(b) else "%s's BTF does not describe it "
                   "(notrace, or static and dropped by pahole)" % blob)
            lines.append("%s: 0x%x in %s; %s: `trace %s` works, its arguments by "
                         "name do not (read $rdi, $rsi, $rdx, $rcx, $r8, $r9 at "
                         "the entry)" % (name, addr, where, why, name))
            continue
        args = ", ".join("%s in %s" % (b.type_str(t, n) if t else "...", w)
                         for n, t, _, w in dwarfgen.arg_locations(b, proto))
        lines.append("%s: 0x%x in %s, arguments at its entry: %s" % (
            name, addr, where, args or "none"))
    return "\n".join(lines)


class KernelSymbols(gdb.Command):
    """Load the running kernel's functions and types from kallsyms and BTF.

Usage: gtp-kernel-symbols            load them (made once per boot, cached)
       gtp-kernel-symbols info       what was loaded
       gtp-kernel-symbols info FUNC  what gdb knows of FUNC (address, BTF
                                     arguments and their registers)
No debug info needed: every kernel and module function by name at its live
address (/proc/kallsyms, as root), types from /sys/kernel/btf, and each
function's arguments by name at its entry (where `trace FUNC` probes; x86-64
registers rdi, rsi, rdx, rcx, r8, r9, then the stack).  Functions BTF does
not describe (notrace, some static ones) have an address but no arguments."""

    def __init__(self) -> None:
        super().__init__("gtp-kernel-symbols", gdb.COMMAND_FILES)

    def invoke(self, arg: str, from_tty: bool) -> None:
        argv = gdb.string_to_argv(arg)
        if not argv:
            load()
        elif argv[0] == "info" and len(argv) <= 2:
            if not _state["path"]:
                raise gdb.GdbError("gtp-kernel-symbols: nothing loaded yet")
            if len(argv) == 2:
                gdb.write(_info_func(argv[1]) + "\n")
                return
            gdb.write("file: %s (%s)\nmodules left to their DWARF: %s\n" % (
                _state["path"], "from cache" if _state["cached"] else "made now",
                " ".join(_state["skip"]) or "none"))
            if not _state.get("kernel", True):
                gdb.write("kernel functions left to vmlinux's DWARF: %s\n" % vmlinux.loaded())
            gdb.write("loaded in %.1fs%s\n" % (_state["secs"], _describe(_state["stats"])))
        else:
            raise gdb.GdbError("usage: gtp-kernel-symbols [info [FUNC]]")


def _refresh():
    """After gtp-load-vmlinux: a loaded file that has the kernel's functions
    is made again without them (one definition of each function)."""
    if _state["path"] and _state.get("kernel", True):
        load(quiet=True)


def register() -> None:
    KernelSymbols()
    vmlinux.on_load(_refresh)
