"""gdb side of a latency test: a tracepoint on a function's return
(sourced into gdb; call trace_return)."""
import re

import gdb


def return_site(function: str) -> int:
    """The address of the instruction after function's epilogue `pop
    %rbp`: its ret, or the jump to the return thunk."""
    lines = gdb.execute("disassemble " + function, to_string=True).splitlines()
    for i, line in enumerate(lines[:-1]):
        if re.search(r"\bpop\s+%rbp", line):
            m = re.search(r"0x[0-9a-f]+", lines[i + 1])
            if m:
                return int(m.group(0), 16)
    raise gdb.GdbError("no `pop %%rbp` followed by an instruction in %s" % function)


def trace_return(function: str) -> None:
    """`trace *ADDR` at function's return site; its actions come next in
    the command file."""
    gdb.execute("trace *0x%x" % return_site(function))
