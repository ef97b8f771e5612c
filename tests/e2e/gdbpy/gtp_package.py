"""What gdb-scripts/gtp.py left loaded (sourced by e2e sessions after
gtp.py, then `python print_package()`): where the gtpgdb package came
from, and how many of its commands gdb knows."""
import gtpgdb

import gdb

COMMANDS = ("gtp-load-module", "gtp-ksym", "gtp-markers", "gtp-strace", "gtp-hist",
            "gtp-count", "gtp-stats", "gtp-kernel-symbols", "gtp-connect", "gtp-kstack",
            "gtp-load-vmlinux")


def print_package() -> None:
    """Print "pkg=FILE" (the package's __init__.py) and "cmds=N" (how many of
    COMMANDS have help, i.e. are defined)."""
    print("pkg=%s" % gtpgdb.__file__)
    print("cmds=%d" % sum(1 for c in COMMANDS
                          if gdb.execute("help " + c, to_string=True)))
