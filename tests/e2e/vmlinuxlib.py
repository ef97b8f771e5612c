"""The default kernel's vmlinux with DWARF (build/dbg/vmlinux-KVER, made by
tests/vm/dbg-vmlinux; docs/testing.md "The default kernel's -dbg vmlinux")
and the gdb sessions the tests that load it run: gtp.py sourced, no
target yet, and no word of a bug or a Python error in the output.
"""
import os

import gtplib
from gtplib import GTP_HEAD as HEAD, REPO, SCRIPT_BUGS as BAD, Skip


def vmlinux_path() -> str:
    """Where the running kernel's vmlinux with DWARF is, if it has one."""
    return os.path.join(REPO, "build", "dbg", "vmlinux-" + os.uname().release)


def vmlinux() -> str:
    """build/dbg/vmlinux-KVER for the running kernel, or Skip."""
    kv = os.uname().release
    path = vmlinux_path()
    if not os.path.exists(path):
        raise Skip("no vmlinux with DWARF for %s (tests/vm/dbg-vmlinux %s makes one from "
                   "linux-image-%s-dbg; make e2e does for the default kernel)" % (kv, kv, kv))
    return path


def session(body: str, timeout: int = 600) -> str:
    """gdb on a reset target running HEAD + body; its output, without BAD."""
    return gtplib.session(HEAD, body, timeout=timeout)
