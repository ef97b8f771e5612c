"""gdb side of a refusal test: evaluate expressions gdb must refuse and
print why (sourced into gdb; call print_refusals)."""
import gdb


def print_refusals(*exprs: str) -> None:
    """Print "stat-refused=MESSAGE" for each of exprs that gdb refuses;
    nothing for one it evaluates (the test then misses its line)."""
    for e in exprs:
        try:
            gdb.parse_and_eval(e)
        except gdb.error as err:
            print("stat-refused=%s" % err)
