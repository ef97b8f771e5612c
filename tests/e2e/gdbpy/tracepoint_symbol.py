"""Where a tracepoint is in the kernel's symbols: "at: SYMBOL + OFFSET in
section SECTION" (gdb's `info symbol` of its first location's address).
tests/e2e/test_collectable.py checks that a source line it traces is in
the function it means."""
import re

import gdb


def print_tracepoint_symbol(number: int) -> None:
    text = gdb.execute("info tracepoints %d" % number, to_string=True)
    addr = re.search(r"(0x[0-9a-f]+) in ", text)
    if addr is None:
        raise gdb.GdbError("tracepoint %d has no address: %s" % (number, text))
    print("at:", gdb.execute("info symbol " + addr.group(1), to_string=True).strip())
