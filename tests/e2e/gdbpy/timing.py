"""gdb side of a speed test: how long one gdb command takes (sourced into
gdb; call timed)."""
import time

import gdb


def timed(command: str) -> None:
    """Run command (its output shown), then print "WORD took S s" with
    WORD its first word."""
    t = time.monotonic()
    gdb.execute(command)
    gdb.write("%s took %.2f s\n" % (command.split()[0], time.monotonic() - t))
