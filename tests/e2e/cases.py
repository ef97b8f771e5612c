"""Declarative e2e cases: tests/e2e/cases/test_FILE.case (docs/testing.md).

A case is one gdb session (with its shell workload lines) and what its
output must and must not show.  run.py gives each the name
"test_FILE::test_NAME", as if it were a test_NAME function of
tests/e2e/test_FILE.py, so filters, tests/e2e/weights and tests/vm/matrix's
lists name cases and Python tests alike.

    NAME fig12_false_condition      a case begins; the test is test_NAME
    GDB                             the session, up to END: a gdb command
    ...                               file after gtplib.GDB_HEAD, on a
    END                               reset target (an error ends it)
    GDB_EX                          or: each line one -ex of a bare gdb,
    ...                               no preamble, no reset (every command
    END                               runs, even after one fails)
    EXPECT REGEX                    must match the output (re.M)
    EXPECT_NOT REGEX                must not
    FRAMES N                        the last tstatus counted N frames
    VALUES EXPR = N N ...           gdb printed "EXPR = N" these times
    REQUIRES WHAT                   else SKIP: "gdb >= 16",
                                      "kernel >= 6.6", "path /sys/..."
    TIMEOUT SECONDS                 for the gdb run (default: 180 for
                                      GDB, 120 for GDB_EX)

Lines starting with # outside a session are comments; a REGEX is the rest
of its line with trailing blanks removed (write \\s for a blank at the end).
"""
import dataclasses
import glob
import os
import re
import subprocess
from typing import Callable, Dict, List, Optional, Tuple

import gtplib

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")

# gdb's words for a bug on either side: no GDB session may print them.
GDB_BUGS = (r"Fatal signal|internal-error|Remote connection closed|"
            r"Bogus|Malformed|Remote failure")


class CaseError(Exception):
    """A case file that does not parse: "path:line: what"."""


@dataclasses.dataclass
class Case:
    path: str
    line: int
    name: str
    script: Optional[str] = None		# GDB: a command file
    ex: Optional[List[str]] = None		# GDB_EX: -ex commands
    expect: List[str] = dataclasses.field(default_factory=list)
    expect_not: List[str] = dataclasses.field(default_factory=list)
    frames: Optional[int] = None
    values: List[Tuple[str, List[int]]] = dataclasses.field(default_factory=list)
    requires: List[str] = dataclasses.field(default_factory=list)
    timeout: Optional[int] = None

    def where(self) -> str:
        return "%s:%d (%s)" % (os.path.relpath(self.path, HERE), self.line,
                               self.name)


def _requirement(text: str) -> str:
    """Check a REQUIRES line's syntax now, not in the guest; return it."""
    if not re.fullmatch(r"(gdb|kernel) >= \d+(\.\d+)*|path /\S+", text):
        raise ValueError("REQUIRES takes 'gdb >= N', 'kernel >= N.N' or 'path /FILE'")
    return text


def _values(text: str) -> Tuple[str, List[int]]:
    expr, sep, nums = text.rpartition(" = ")
    if not sep or not expr:
        raise ValueError("VALUES takes 'EXPR = N N ...'")
    return expr, [int(n) for n in nums.split()]


def _regex(text: str) -> str:
    re.compile(text)
    return text


# The one-line keywords: what each does to the case being read.
SETTERS: Dict[str, Callable[[Case, str], None]] = {
    "EXPECT": lambda c, a: c.expect.append(_regex(a)),
    "EXPECT_NOT": lambda c, a: c.expect_not.append(_regex(a)),
    "FRAMES": lambda c, a: setattr(c, "frames", int(a)),
    "VALUES": lambda c, a: c.values.append(_values(a)),
    "REQUIRES": lambda c, a: c.requires.append(_requirement(a)),
    "TIMEOUT": lambda c, a: setattr(c, "timeout", int(a)),
}


def parse(path: str) -> List[Case]:
    """The cases of one file, in file order; CaseError if it is malformed."""
    with open(path) as f:
        lines = f.read().splitlines()
    cases: List[Case] = []
    block: Optional[List[str]] = None		# inside GDB/GDB_EX: its lines
    kind = ""
    for no, raw in enumerate(lines, 1):
        where = "%s:%d" % (path, no)
        if block is not None:
            if raw.rstrip() != "END":
                block.append(raw)
            elif kind == "GDB":
                cases[-1].script, block = "".join(l + "\n" for l in block), None
            else:
                cases[-1].ex, block = block, None
            continue
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        key, _, arg = line.partition(" ")
        arg = arg.strip()
        if key == "NAME":
            if not re.fullmatch(r"\w+", arg):
                raise CaseError("%s: NAME takes one word" % where)
            cases.append(Case(path, no, arg))
            continue
        if not cases:
            raise CaseError("%s: %s before the first NAME" % (where, key))
        case = cases[-1]
        if key in ("GDB", "GDB_EX"):
            if arg or case.script is not None or case.ex is not None:
                raise CaseError("%s: one GDB or GDB_EX per case, alone on its line"
                                % where)
            block, kind = [], key
            continue
        if key not in SETTERS or not arg:
            raise CaseError("%s: unknown line %r" % (where, line))
        try:
            SETTERS[key](case, arg)
        except (ValueError, re.error) as e:
            raise CaseError("%s: %s" % (where, e))
    if block is not None:
        raise CaseError("%s: %s without END" % (path, kind))
    for case in cases:
        if case.script is None and case.ex is None:
            raise CaseError("%s:%d: case %s has no GDB or GDB_EX session"
                            % (path, case.line, case.name))
        # a case that checks nothing cannot fail
        if not (case.expect or case.expect_not or case.frames is not None
                or case.values):
            raise CaseError("%s:%d: case %s expects nothing"
                            % (path, case.line, case.name))
    return cases


def load(directory: str = CASES) -> Dict[str, List[Case]]:
    """{"test_FILE": [cases]} for every directory/test_FILE.case."""
    out = {}
    for path in sorted(glob.glob(os.path.join(directory, "test_*.case"))):
        cases = parse(path)
        names = [c.name for c in cases]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise CaseError("%s: NAME used twice: %s" % (path, " ".join(sorted(dup))))
        out[os.path.basename(path)[:-len(".case")]] = cases
    return out


def _version(text: str) -> Tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text))


def _gdb_version() -> Tuple[int, ...]:
    out = subprocess.run([gtplib.GDB, "--version"], stdout=subprocess.PIPE,
                         stdin=subprocess.DEVNULL).stdout.decode()
    return _version(re.search(r"(\d+\.\d+)", out).group(1))


def _missing(req: str) -> Optional[str]:
    """Why the guest does not meet a REQUIRES line, or None."""
    what, _, arg = req.partition(" ")
    if what == "path":
        return None if os.path.exists(arg) else "no %s here" % arg
    want = _version(arg)
    have = _gdb_version() if what == "gdb" else _version(os.uname().release)[:len(want)]
    if have[:len(want)] < want:
        return "needs %s %s (this is %s)" % (what, arg, ".".join(map(str, have)))
    return None


def _fail(case: Case, what: str, out: str) -> None:
    raise AssertionError("%s: %s in output:\n%s" % (case.where(), what, out))


def run(case: Case) -> None:
    """Run one case: raise gtplib.Skip, or AssertionError naming the line."""
    for req in case.requires:
        why = _missing(req)
        if why:
            raise gtplib.Skip(why)
    if case.script is not None:
        gtplib.reset_target()
        out = gtplib.gdb_script(gtplib.GDB_HEAD + case.script,
                                timeout=case.timeout or 180)
        if re.search(GDB_BUGS, out, re.M):
            _fail(case, "gdb reported a bug /%s/" % GDB_BUGS, out)
    else:
        out = gtplib.gdb(*case.ex, timeout=case.timeout or 120)
    for rx in case.expect:
        if not re.search(rx, out, re.M):
            _fail(case, "expected /%s/" % rx, out)
    for rx in case.expect_not:
        m = re.search(rx, out, re.M)
        if m:
            _fail(case, "unexpected /%s/ (%r)" % (rx, m.group(0)), out)
    if case.frames is not None:
        got = gtplib.frames_collected(out)
        if not got or got[-1] != case.frames:
            _fail(case, "FRAMES %d, tstatus said %s" % (case.frames, got), out)
    for expr, want in case.values:
        got = gtplib.values(out, expr)
        if got != want:
            _fail(case, "VALUES %s = %s, got %s" % (expr, want, got), out)
