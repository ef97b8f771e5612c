#!/usr/bin/env python3
"""Run gtp's guest end-to-end tests (inside the guest, see tests/vm/run).

    python3 tests/e2e/run.py [SUBSTRING...] [!SUBSTRING...]

Runs every case of tests/e2e/cases/test_*.case and every test_*
function of tests/e2e/test_*.py, file by file (a file's cases first; only
those whose "file::name" contains one of the SUBSTRINGs, if given, and
none of the !SUBSTRINGs), prints
TAP, checks the kernel log after each test for oopses and warnings, and
ends with the line "N passed, N failed, N skipped".  A test that raises
gtplib.Skip is reported as "ok N - name # SKIP reason".  Exit status as
kselftest's: 0 all passed (or skipped), 1 any failed, 4 everything skipped.
"""
import functools
import glob
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cases  # noqa: E402
import gtplib  # noqa: E402

def all_tests():
    """[("test_FILE::test_NAME", fn)]: by FILE, each file's cases (in
    tests/e2e/cases/test_FILE.case order) before its Python tests (in
    tests/e2e/test_FILE.py source order)."""
    try:
        by_file = {f: [("test_" + c.name, functools.partial(cases.run, c))
                       for c in cs] for f, cs in cases.load().items()}
    except cases.CaseError as e:
        sys.exit("run.py: %s" % e)
    for path in glob.glob(os.path.join(HERE, "test_*.py")):
        name = os.path.basename(path)[:-3]
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        fns = [(k, v) for k, v in vars(mod).items()
               if k.startswith("test_") and callable(v)]
        fns.sort(key=lambda kv: kv[1].__code__.co_firstlineno)
        by_file.setdefault(name, []).extend(fns)
    tests = []
    for name in sorted(by_file):
        names = [k for k, _ in by_file[name]]
        dup = sorted({k for k in names if names.count(k) > 1})
        if dup:
            sys.exit("run.py: %s: both a case and a function: %s" % (name, " ".join(dup)))
        tests += [("%s::%s" % (name, k), v) for k, v in by_file[name]]
    return tests


def select(tests, filters):
    drop = [f[1:] for f in filters if f.startswith("!")]
    keep = [f for f in filters if not f.startswith("!")]
    return [(full, fn) for full, fn in tests
            if (not keep or any(f in full for f in keep))
            and not any(f in full for f in drop)]


def collect(filters):
    return select(all_tests(), filters)


def main():
    # A SUBSTRING that names no test (a test renamed or removed under a
    # list such as tests/vm/matrix's) is an error, not a silent no-op.
    everything = all_tests()
    stale = [f for f in sys.argv[1:] if not f.startswith("!")
             and not any(f in name for name, _ in everything)]
    if stale:
        sys.exit("run.py: no test matches %s" % " ".join(stale))
    tests = select(everything, sys.argv[1:])
    log_seen = len(gtplib.dmesg().splitlines())

    def kernel_log():
        nonlocal log_seen
        log = gtplib.dmesg().splitlines()
        new = log[log_seen:]
        log_seen = len(log)
        if gtplib.log_problems(new):
            return "kernel log reports a problem:\n" + "\n".join(new[-80:])
        return None

    return gtplib.tap.run(tests, after=kernel_log)

if __name__ == "__main__":
    sys.exit(main())
