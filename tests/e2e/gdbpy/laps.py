"""Time the steps of a gdb session (sourced by it): lap(WHAT) prints
"time WHAT N.Ns", the seconds since the previous lap, or since this file
was sourced.  tests/e2e/test_vmlinux.py reports what gtp-load-vmlinux and
gdb's first lookups cost in the guest (docs/kernel-symbols.md)."""
import time

_last = [time.time()]


def lap(what: str) -> None:
    now = time.time()
    print("time %s %.1fs" % (what, now - _last[0]))
    _last[0] = now
