"""The source line of a function that calls another, from gdb's
`disassemble /s` of the caller: set_call_line sets a convenience
variable to it (a Cookbook recipe's LINE) and prints "CALLEE line N",
which the test checks the tracepoint gdb then put there against.  A
caller with no such call is an error, not the caller's last line."""
import re

import gdb


def set_call_line(func: str, callee: str, var: str) -> None:
    line = None
    for text in gdb.execute("disassemble /s %s" % func, to_string=True).splitlines():
        m = re.match(r"^(\d+)\s", text)
        if m:
            line = int(m.group(1))
        elif "<%s>" % callee in text:
            break
    else:
        raise gdb.GdbError("no call to %s in %s" % (callee, func))
    if line is None:
        raise gdb.GdbError("no source line before %s's call to %s" % (func, callee))
    gdb.execute("set $%s = %d" % (var, line))
    print("%s line %d" % (callee, line))
