# SPDX-License-Identifier: GPL-2.0
"""The kernel's symbol file for gdb, made from BTF and kallsyms.

build() joins the pieces: btf.py reads vmlinux's and each module's BTF,
ksyms.py the live addresses, dwarfgen.py turns types and functions into
DWARF, elfgen.py wraps it all in an ELF file for add-symbol-file.  No gdb
here (the host's tests call build() on Debian's BTF and System.map).

A function gets a DW_TAG_subprogram (argument names and types) when its
owner's BTF has exactly one FUNC of that exact name; kallsyms names with a
compiler suffix (foo.isra.0, foo.constprop.0, foo.cold) never do: their
arguments may have been rewritten.  Every kallsyms function is in .symtab
either way, so `trace FUNC` always finds the address.  A kernel without
BTF (no /sys/kernel/btf/vmlinux) gets only that: every function by name,
no types, no argument names.
"""
from __future__ import annotations

import os
from typing import Iterable, Optional

from . import btf as B
from . import dwarfgen, elfgen, ksyms


class Stats:
    def __init__(self) -> None:
        self.types = 0          # BTF type ids translated
        self.funcs = 0          # kallsyms functions in .symtab
        self.described = 0      # of them with BTF arguments (subprograms)
        self.modules = []       # modules whose BTF was used
        self.no_btf = []        # modules without BTF (symtab only)
        self.kernel_btf = True  # False: vmlinux has no BTF (symtab only)


def btf_funcs(b: B.Btf) -> dict[str, Optional[int]]:
    """{name: FUNC_PROTO id, or None when BTF has several FUNCs so named}."""
    out = {}
    for j, k in enumerate(b.kind):
        if k == B.FUNC:
            name = b.str_at(b.name_off[j])
            proto = b.size_type[j]
            if name in out and out[name] != proto:
                out[name] = None
            else:
                out[name] = proto
    return out


def read_btf(btf_dir: str, name: str, base: Optional[B.Btf] = None) -> B.Btf:
    with open(os.path.join(btf_dir, name), "rb") as f:
        return B.Btf(f.read(), base, name)


def build(owners: dict[Optional[str], list[ksyms.Sym]], btf_dir: str = "/sys/kernel/btf",
          modules: Optional[Iterable[Optional[str]]] = None, vmlinux: Optional[B.Btf] = None,
          kernel: bool = True) -> tuple[bytes, Stats]:
    """(ELF bytes, Stats).

    owners: ksyms.read()'s map; modules: the module names to include (all
    of owners' but None by default); vmlinux: an already parsed Btf;
    kernel: whether the kernel's own functions are in (not when its DWARF
    vmlinux is loaded: its types are, the modules' BTF refers to them).
    """
    st = Stats()
    gen = dwarfgen.DwarfGen()
    if modules is None:
        modules = sorted(o for o in owners if o is not None)
    units = _add_units(gen, st, btf_dir, modules, vmlinux, kernel)
    texts, syms = _add_functions(gen, st, owners, units)
    abbrev, info, strs = gen.finish()
    data = elfgen.build(texts, syms, [(".debug_abbrev", abbrev), (".debug_info", info),
                                      (".debug_str", strs)])
    return data, st


def _add_units(gen: dwarfgen.DwarfGen, st: Stats, btf_dir: str,
               modules: Iterable[Optional[str]], vmlinux: Optional[B.Btf],
               kernel: bool) -> list[tuple[Optional[str], Optional[dwarfgen.Unit]]]:
    """Add vmlinux's BTF, then each module's, to gen: [(owner, its unit or
    None without BTF)] of the kernel (when kernel) and each module.
    vmlinux's types go in even when its functions do not: the modules'
    split BTF refers to them."""
    vm = vmlinux
    if vm is None and os.path.exists(os.path.join(btf_dir, "vmlinux")):
        vm = read_btf(btf_dir, "vmlinux")
    vu = None
    if vm is not None:
        vu = gen.add_unit(vm)
        st.types += vm.count - 1
    else:
        st.kernel_btf = False
    units = [(None, vu)] if kernel else []
    for m in modules:
        try:
            if vm is None:
                raise OSError("module BTF is split off vmlinux's")
            mb = read_btf(btf_dir, m, vm)
        except OSError:
            st.no_btf.append(m)
            units.append((m, None))
            continue
        units.append((m, gen.add_unit(mb)))
        st.types += mb.count - mb.first
        st.modules.append(m)
    return units


def _add_functions(gen: dwarfgen.DwarfGen, st: Stats, owners: dict[Optional[str], list[ksyms.Sym]],
                   units: list[tuple[Optional[str], Optional[dwarfgen.Unit]]]
                   ) -> tuple[list[tuple[str, int, int]], list[tuple[str, int, int, int]]]:
    """(texts, syms) for elfgen.build(): a text section per owner with
    functions, spanning them, and every function in .symtab; add to gen a
    subprogram for each function its owner's BTF describes."""
    texts, syms = [], []
    for owner, u in units:
        fns = ksyms.functions(owners.get(owner, []))
        if not fns:
            continue
        sec = len(texts)
        texts.append((".text" if owner is None else ".text." + owner,
                      min(a for _, a, _ in fns), max(e for _, _, e in fns)))
        protos = btf_funcs(u.btf) if u else {}
        for name, a, e in fns:
            if name.startswith("__pfx_"):
                continue        # IBT/call-depth padding before each function
            syms.append((name, a, e - a, sec))
            proto = protos.get(name)
            if proto:
                gen.add_function(u, name, a, e, proto)
                st.described += 1
    st.funcs = len(syms)
    return texts, syms
