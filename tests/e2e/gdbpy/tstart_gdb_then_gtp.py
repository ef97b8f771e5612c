"""tstart the same tracepoints twice: first by gdb alone (gtp's hook-tstart
and hookpost-tstart, gtpgdb/collectable.py, emptied), then with gtp's hooks
put back.  Prints "gdb tstart: ok" or "gdb tstart: failed: WHY", then the
same for "gtp"; a gdb tstart that succeeded is stopped before gtp's.
tests/e2e/test_collectable.py checks that what made gdb fail is what gtp
dropped, and that gtp's tstart succeeds either way."""
from typing import Dict

import gdb

HOOKS = ("hook-tstart", "hookpost-tstart")


def _body(hook: str) -> str:
    """The commands of user command HOOK (gdb's `show user`, its title
    line dropped), which must be gtp's."""
    text = gdb.execute("show user " + hook, to_string=True)
    if "gtpgdb.collectable" not in text:
        raise gdb.GdbError("%s is not gtp's: %s" % (hook, text))
    return "\n".join(l.strip() for l in text.splitlines()[1:] if l.strip())


def _define(hook: str, body: str) -> None:
    gdb.execute("define %s\n%s\nend" % (hook, body) if body else "define %s\nend" % hook)


def _tstart(what: str) -> bool:
    try:
        gdb.execute("tstart")
        print("%s tstart: ok" % what)
        return True
    except gdb.error as e:
        print("%s tstart: failed: %s" % (what, e))
        return False


def tstart_gdb_then_gtp() -> None:
    saved: Dict[str, str] = {h: _body(h) for h in HOOKS}
    for hook in HOOKS:
        _define(hook, "")
    if _tstart("gdb"):
        gdb.execute("tstop")
    for hook, body in saved.items():
        _define(hook, body)
    _tstart("gtp")
