"""Sessions that run once with the JIT and once without (test_jit.py,
test_jit_direct.py): the module parameter jit, and the gdb preamble such
a pair of sessions needs."""
from contextlib import contextmanager

from gtplib import GTP_HEAD, param

# Not gtplib's GDB_HEAD: connecting before gtp_test's symbols are loaded,
# gdb does not adopt the tracepoint the previous session left on the target.
HEAD = GTP_HEAD + """target remote /proc/gtp
gtp-load-module gtp_test
"""


def set_jit(on: bool) -> None:
    """Switch the JIT on or off for the sessions that follow."""
    assert param("jit", "1" if on else "0").strip() == ("Y" if on else "N")


@contextmanager
def jit_restored():
    """The sessions inside switch the JIT as they like: afterwards it is
    on or off as before, whatever they did or raised."""
    saved = param("jit").strip() == "Y"
    try:
        yield
    finally:
        set_jit(saved)
