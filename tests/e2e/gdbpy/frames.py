"""Walk a trace's frames in gdb and print one line per frame, for a test
to check every frame kept rather than a sample (sourced by e2e sessions:
`source .../tests/e2e/gdbpy/frames.py`, then `python print_frames(...)`).
"""
from typing import Iterator

import gdb


def each_frame(limit: int) -> Iterator[int]:
    """Select frames 0, 1, ... (at most limit) in turn: stop at the first
    number gdb cannot select (no such frame)."""
    n = 0
    while n < limit:
        try:
            gdb.execute("tfind %d" % n, to_string=True)
        except gdb.error:
            return
        if int(gdb.parse_and_eval("$trace_frame")) != n:
            return
        yield n
        n += 1


def print_frames(limit: int, label: str, expr: str) -> None:
    """Print "frame N LABEL=VALUE" for each frame: VALUE is expr, an integer."""
    for n in each_frame(limit):
        print("frame %d %s=%d" % (n, label, int(gdb.parse_and_eval(expr))))
    gdb.execute("tfind none", to_string=True)


def print_frame_sources(limit: int, tp: int, var: str) -> None:
    """Print "frame N tp T pc 0x... VAR V" for each frame: its tracepoint, its
    $pc, and var's value in the frames of tracepoint tp ("-" in the
    others, which did not collect it)."""
    for n in each_frame(limit):
        t = int(gdb.parse_and_eval("$tracepoint"))
        pc = int(gdb.parse_and_eval("$pc")) & 0xffffffffffffffff
        value = str(int(gdb.parse_and_eval(var))) if t == tp else "-"
        print("frame %d tp %d pc %#x %s %s" % (n, t, pc, var.lstrip("$"), value))
    gdb.execute("tfind none", to_string=True)
