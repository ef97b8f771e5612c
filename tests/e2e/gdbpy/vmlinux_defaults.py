"""Where gtp-connect looks for the kernel's vmlinux with DWARF when given
none (gtpgdb.vmlinux.DEFAULTS, "%s" the running kernel's release): a case
points it at a file of its own instead of /usr/lib/debug, and the line
"vmlinux default: PATH" names each path as gtp will read it."""
import os

import gtpgdb.vmlinux


def vmlinux_defaults(*templates: str) -> None:
    gtpgdb.vmlinux.DEFAULTS = templates
    for t in templates:
        print("vmlinux default: %s" % (t % os.uname().release))
