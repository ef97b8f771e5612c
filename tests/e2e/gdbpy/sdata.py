"""gdb side of a static tracepoint test: print each frame's $_sdata
(sourced into gdb; call print_sdata)."""
import gdb


def print_sdata(limit: int) -> None:
    """Print "sdata: TEXT" for frames 0 .. limit - 1, stopping at the first
    frame the target does not have."""
    for i in range(limit):
        try:
            gdb.execute("tfind %d" % i, to_string=True)
        except gdb.error:
            break
        if int(gdb.parse_and_eval("$trace_frame")) != i:
            break
        print("sdata: " + gdb.parse_and_eval("$_sdata").string())
