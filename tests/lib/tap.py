"""tests/lib/tap.py - the TAP runner of the host test files.

A host test file is a module of test_* functions, or of unittest.TestCase
classes (or both); its last lines are

    if __name__ == "__main__":
        sys.exit(tap.main(globals()))

A TestCase's test methods run as tests named "Class.test_x", each in a
fresh instance with setUp and tearDown (TestCase.debug()), setUpClass
before the class's first and tearDownClass after its last; skipTest() is
a skip.  A module's setUpModule runs first (its error is a Bail out!)
and tearDownModule last, as unittest runs them.

and it prints what tests/e2e/run.py prints in the guest (docs/testing.md):
"TAP version 13", "1..N", "ok N - NAME (T s)" or "not ok N - NAME (T s)"
followed by the traceback as "# " lines, "ok N - NAME # SKIP why" for a
test that raised Skip, and last "N passed, N failed, N skipped".  The exit
status is kselftest's: 0 all passed (or some skipped), 1 any failed (or
no test at all), 4 everything skipped (0 for a file that asks: main()'s
all_skipped).
"""
import inspect
import signal
import sys
import time
import traceback
import unittest
from types import FrameType
from typing import Callable, Dict, List, Optional, Tuple

Test = Tuple[str, Callable[[], None]]


class Skip(Exception):
    """Raised by a test that cannot run here; the message says why."""


def _case_tests(cls: type) -> List[Test]:
    """A TestCase class's test methods as tests, the class set up before
    the first and torn down after the last (a failed setUpClass fails each
    of them, with its traceback; one that raises SkipTest skips each, as
    does a class unittest.skip() marks, whose fixtures do not run)."""
    names = sorted((n for n in dir(cls) if n.startswith("test")
                    and callable(getattr(cls, n))),
                   key=lambda n: getattr(cls, n).__code__.co_firstlineno)
    state: Dict[str, object] = {}

    def one(i: int, name: str) -> Callable[[], None]:
        def fn() -> None:
            if i == 0 and not getattr(cls, "__unittest_skip__", False):
                try:
                    cls.setUpClass()
                except unittest.SkipTest as e:  # each test of it skips
                    state["skip"] = e
                except Exception as e:  # each test of the class says so
                    state["setup"] = e
            try:
                if "skip" in state:
                    raise state["skip"]
                if "setup" in state:
                    raise RuntimeError("setUpClass failed") from state["setup"]
                cls(name).debug()
            finally:
                if (i == len(names) - 1 and "setup" not in state and
                        "skip" not in state and
                        not getattr(cls, "__unittest_skip__", False)):
                    cls.tearDownClass()
        return fn

    return [("%s.%s" % (cls.__name__, n), one(i, n))
            for i, n in enumerate(names)]


def tests_of(namespace: Dict[str, object]) -> List[Test]:
    """The test_* functions and the TestCase classes' tests of a module's
    globals, in file order."""
    here = namespace.get("__name__")
    items = []
    for k, v in namespace.items():
        if k.startswith("test_") and callable(v) and hasattr(v, "__code__"):
            items.append((v.__code__.co_firstlineno, [(k, v)]))
        elif (inspect.isclass(v) and issubclass(v, unittest.TestCase)
              and v.__module__ == here):
            items.append((inspect.getsourcelines(v)[1], _case_tests(v)))
    items.sort(key=lambda it: it[0])
    return [t for _, tests in items for t in tests]


def _hung(signum: int, frame: Optional[FrameType]) -> None:
    raise TimeoutError("the test hung (still running after its time limit)")


def run(tests: List[Test], timeout: int = 0,
        after: Optional[Callable[[], Optional[str]]] = None,
        all_skipped: int = 4) -> int:
    """Run tests in order, print TAP, return the exit status.

    timeout (seconds, 0 for none) is a hang guard, not a timing assertion:
    a test still running then fails with TimeoutError (SIGALRM).  after,
    if given, runs after each test and returns why a test that passed
    fails all the same (the guest runner's kernel-log check), else None."""
    print("TAP version 13")
    print("1..%d" % len(tests), flush=True)
    if timeout:
        signal.signal(signal.SIGALRM, _hung)
    passed = failed = skipped = 0
    for i, (name, fn) in enumerate(tests, 1):
        t0 = time.time()
        err = skip = None
        signal.alarm(timeout)
        try:
            fn()
        except (Skip, unittest.SkipTest) as e:
            skip = str(e) or "no reason given"
        # SystemExit too: code under test that calls sys.exit() (argparse
        # on a bad option) fails its test rather than ending the run.
        except (Exception, SystemExit):
            err = traceback.format_exc()
        finally:
            signal.alarm(0)
        if after is not None:
            problem = after()
            if err is None and problem:
                err = problem
        dt = time.time() - t0
        if err is None and skip is not None:
            skipped += 1
            print("ok %d - %s # SKIP %s" % (i, name, skip), flush=True)
        elif err is None:
            passed += 1
            print("ok %d - %s (%.1fs)" % (i, name, dt), flush=True)
        else:
            failed += 1
            print("not ok %d - %s (%.1fs)" % (i, name, dt))
            for line in err.rstrip().splitlines():
                print("# " + line)
            sys.stdout.flush()
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped), flush=True)
    if failed or not tests:
        return 1
    return all_skipped if skipped == len(tests) else 0


def bail_out(why: str) -> int:
    """Nothing can run here (a missing tool): TAP's Bail out!, status 1."""
    print("Bail out! %s" % why, flush=True)
    return 1


def main(namespace: Dict[str, object], timeout: int = 0,
         all_skipped: int = 4) -> int:
    """Run the tests of namespace (a module's globals()).  all_skipped is
    the status when every test skipped: 0 for a file make check runs
    directly, which must pass on a host that lacks what the tests need
    (the 6.1 kernel, babeltrace2)."""
    setup = namespace.get("setUpModule")
    teardown = namespace.get("tearDownModule")
    if callable(setup):
        try:
            setup()
        except Exception as e:
            return bail_out("setUpModule: %s" % e)
    try:
        return run(tests_of(namespace), timeout, all_skipped=all_skipped)
    finally:
        if callable(teardown):
            teardown()
