"""gdb side of a circular-buffer test: the value of an expression in the
first and the last frame the buffer holds (sourced into gdb; call
print_ends)."""
import re

import gdb


def print_ends(expr: str) -> None:
    """Print "first=N" and "last=N": expr in frame 0 and in the last frame
    tstatus counts."""
    st = gdb.execute("tstatus", to_string=True)
    m = re.search(r"contains (\d+) trace frames", st)
    if not m:
        raise gdb.GdbError("tstatus counted no frames:\n" + st)
    gdb.execute("tfind %d" % (int(m.group(1)) - 1), to_string=True)
    print("last=%d" % int(gdb.parse_and_eval(expr)))
    gdb.execute("tfind 0", to_string=True)
    print("first=%d" % int(gdb.parse_and_eval(expr)))
