# SPDX-License-Identifier: GPL-2.0
"""lazy.py - a module that is loaded when it is first used, not imported.

Every gdb that sources gtp.py registers all of gtp's commands, but a
session runs a few of them: importing what the others need (BTF, DWARF
generation, aggregation, subprocess, tempfile...) made every gdb start
pay for all of it, about 0.4 s a start under QEMU's TCG, where the tests
start gdb hundreds of times.  module() gives an object that stands for the
module and runs it at its first attribute access (importlib's
LazyLoader), so `kernsyms.load()` reads as before.

Only for modules whose import has no effect that a command relies on
before it uses them (registering commands, hooks): those are imported.
"""
import importlib.util
import sys
from types import ModuleType


def module(name: str) -> ModuleType:
    """Module `name` (absolute), executed at its first attribute access."""
    mod = sys.modules.get(name)
    if mod is not None:
        return mod
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ImportError("no module named %r" % name, name=name)
    spec.loader = importlib.util.LazyLoader(spec.loader)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, mod)
    return mod
