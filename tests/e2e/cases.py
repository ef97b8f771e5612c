"""Declarative e2e cases: tests/e2e/cases/test_FILE.case (docs/testing.md).

A case is a gdb session (with its shell workload lines), or a few in a
row, and what each one's output must and must not show.  run.py gives
each case the name "test_FILE::test_NAME", as if it were a test_NAME
function of tests/e2e/test_FILE.py, so filters, tests/e2e/weights and
tests/vm/matrix's lists name cases and Python tests alike.

    NAME fig12_false_condition      a case begins; the test is test_NAME
    GDB                             a session, up to END: a gdb command
    ...                               file after the case's HEAD, on a
    END                               reset target (an error ends it)
    GDB noreset                     the same on the target as the step
    ...                               before left it (a reconnect)
    END
    GDB_EX                          each line one -ex of a bare gdb: no
    ...                               preamble, no reset (every command
    END                               runs, even after one fails)
    SH COMMAND                      a guest shell command that must succeed
    SH_FAILS COMMAND                one that must fail (a refusal)
    PARAM NAME VALUE                set gtp's module parameter NAME; the
                                      case's end restores every one it set
    EXPECT REGEX                    the step above's output must match (re.M)
    EXPECT_NOT REGEX                must not
    EXPECT_COUNT N REGEX            must match exactly N times
    FRAMES N                        its last tstatus counted N frames
    VALUES EXPR = N N ...           it printed "EXPR = N" these times
    REQUIRES WHAT                   else SKIP: "gdb >= 16",
                                      "kernel >= 6.6", "path /sys/..."
    TIMEOUT SECONDS                 for each gdb run (default: 180 for
                                      GDB, 120 for GDB_EX)
    HEAD module|gtp|connect         the GDB sessions' preamble (HEADS;
                                      default module)

${WORD ARG...} in a session, a shell command or a REGEX is a value of the
guest, looked up when the step runs (SUBSTITUTIONS): ${ksym NAME [MOD]}
an address from /proc/kallsyms, ${past_fentry} gtp_test_function's first
offset past its fentry call, ${vmlinux} build/dbg's vmlinux of the
running kernel (the case is skipped without one), ${repo}, ${gtp_py},
${test_ko}, ${gtp_ko}.  In a REGEX the value stands for itself (escaped).

Steps run in file order; the case fails at the first check that does.
Lines starting with # outside a session are comments; a REGEX is the rest
of its line with trailing blanks removed (write \\s for a blank at the end).
"""
import dataclasses
import functools
import glob
import os
import re
import subprocess
from typing import Callable, Dict, List, Optional, Tuple

import btflib
import gtplib
import vmlinuxlib

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")

GDB_BUGS = gtplib.GDB_BUGS


# The preambles a case's GDB sessions may start with (HEAD NAME): every one
# sets gdb up for batch output; module also loads gtp_test.ko's symbols and
# connects (gtplib.GDB_HEAD), connect connects with BTF's names and types
# (gtp-connect), gtp only sources gtp.py (the session connects itself).
HEADS = {
    "module": gtplib.GDB_HEAD,
    "gtp": gtplib.GTP_HEAD,
    "connect": btflib.HEAD,
}


def _ksym(name: str, mod: Optional[str] = None) -> str:
    addr = gtplib.ksym(name, mod)
    if addr is None:
        raise AssertionError("%s is not in /proc/kallsyms" % name)
    return "0x%x" % addr


# ${WORD ARG...}: the values a case reads from the guest when its step runs,
# and how many arguments each takes.
SUBSTITUTIONS: Dict[str, Tuple[Callable[..., str], Tuple[int, int]]] = {
    "ksym": (_ksym, (1, 2)),
    "past_fentry": (lambda: str(gtplib.past_fentry()), (0, 0)),
    "vmlinux": (vmlinuxlib.vmlinux, (0, 0)),
    "repo": (lambda: gtplib.REPO, (0, 0)),
    "gtp_py": (lambda: gtplib.GTP_PY, (0, 0)),
    "test_ko": (lambda: gtplib.TEST_KO, (0, 0)),
    "gtp_ko": (lambda: gtplib.GTP_KO, (0, 0)),
}
SUBST = re.compile(r"\$\{(\w+)((?: [^ }]+)*)\}")


def _check_substs(text: str) -> str:
    """Refuse an unknown ${WORD} or a wrong argument count at parse time."""
    for m in SUBST.finditer(text):
        word, args = m.group(1), m.group(2).split()
        if word not in SUBSTITUTIONS:
            raise ValueError("unknown ${%s}: one of %s" % (word, " ".join(sorted(SUBSTITUTIONS))))
        lo, hi = SUBSTITUTIONS[word][1]
        if not lo <= len(args) <= hi:
            raise ValueError("${%s} takes %s argument(s)"
                             % (word, lo if lo == hi else "%d to %d" % (lo, hi)))
    return text


def substitute(text: str, escape: bool = False) -> str:
    """text with each ${WORD ARG...} replaced by its value in this guest."""
    def value(m: "re.Match[str]") -> str:
        v = SUBSTITUTIONS[m.group(1)][0](*m.group(2).split())
        return re.escape(v) if escape else v
    return SUBST.sub(value, text)


class CaseError(Exception):
    """A case file that does not parse: "path:line: what"."""


@dataclasses.dataclass
class Step:
    """One gdb run or shell command of a case, with the checks of its output."""
    line: int
    kind: str					# "gdb", "gdb_ex", "sh", "sh_fails", "param"
    script: str = ""				# gdb: the command file
    ex: List[str] = dataclasses.field(default_factory=list)	# gdb_ex
    command: str = ""				# sh, sh_fails; param: "NAME VALUE"
    reset: bool = True				# gdb: reset the target first
    expect: List[str] = dataclasses.field(default_factory=list)
    expect_not: List[str] = dataclasses.field(default_factory=list)
    expect_count: List[Tuple[int, str]] = dataclasses.field(default_factory=list)
    frames: Optional[int] = None
    values: List[Tuple[str, List[int]]] = dataclasses.field(default_factory=list)

    def checks(self) -> bool:
        return bool(self.expect or self.expect_not or self.expect_count
                    or self.values or self.frames is not None
                    or self.kind == "sh_fails")


@dataclasses.dataclass
class Case:
    path: str
    line: int
    name: str
    steps: List[Step] = dataclasses.field(default_factory=list)
    requires: List[str] = dataclasses.field(default_factory=list)
    timeout: Optional[int] = None
    head: str = "module"

    def where(self, step: Optional[Step] = None) -> str:
        return "%s:%d (%s)" % (os.path.relpath(self.path, HERE),
                               step.line if step else self.line, self.name)


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
    """Compile now: a bad regex stops run.py (and shards.py on the host)
    before any guest boots, not one case deep into a run."""
    _check_substs(text)
    re.compile(SUBST.sub("x", text))
    return text


def _count(text: str) -> Tuple[int, str]:
    n, _, rx = text.partition(" ")
    if not n.isdigit() or not rx:
        raise ValueError("EXPECT_COUNT takes 'N REGEX'")
    return int(n), _regex(rx)


def _head(case: "Case", arg: str) -> None:
    if arg not in HEADS:
        raise ValueError("HEAD is one of %s" % " ".join(sorted(HEADS)))
    if any(s.kind == "gdb" for s in case.steps):
        raise ValueError("HEAD after a GDB session it would not apply to")
    case.head = arg


def _param(text: str) -> str:
    if not re.fullmatch(r"\w+ \S+", text):
        raise ValueError("PARAM takes 'NAME VALUE'")
    return text


def _step(case: Case) -> Step:
    if not case.steps:
        raise ValueError("a check before the case's first GDB, GDB_EX or SH")
    return case.steps[-1]


def _timeout(case: Case, arg: str) -> None:
    case.timeout = int(arg)


# The one-line keywords: what each does to the case being read.
SETTERS: Dict[str, Callable[[Case, str], None]] = {
    "EXPECT": lambda c, a: _step(c).expect.append(_regex(a)),
    "EXPECT_NOT": lambda c, a: _step(c).expect_not.append(_regex(a)),
    "EXPECT_COUNT": lambda c, a: _step(c).expect_count.append(_count(a)),
    "FRAMES": lambda c, a: setattr(_step(c), "frames", int(a)),
    "VALUES": lambda c, a: _step(c).values.append(_values(a)),
    "REQUIRES": lambda c, a: c.requires.append(_requirement(a)),
    "TIMEOUT": _timeout,
    "HEAD": _head,
}


def parse(path: str) -> List[Case]:
    """The cases of one file, in file order; CaseError if it is malformed."""
    with open(path) as f:
        lines = f.read().splitlines()
    cases: List[Case] = []
    block: Optional[List[str]] = None		# inside GDB/GDB_EX: its lines
    for no, raw in enumerate(lines, 1):
        where = "%s:%d" % (path, no)
        if block is not None:
            if raw.rstrip() != "END":
                block.append(raw)
                continue
            step = cases[-1].steps[-1]
            try:
                for l in block:
                    _check_substs(l)
            except ValueError as e:
                raise CaseError("%s:%d: %s" % (path, step.line, e))
            if step.kind == "gdb":
                step.script = "".join(l + "\n" for l in block)
            else:
                step.ex = block
            block = None
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
        if (key, arg) in (("GDB", ""), ("GDB", "noreset"), ("GDB_EX", "")):
            case.steps.append(Step(no, key.lower(), reset=arg != "noreset"))
            block = []
            continue
        if key in ("SH", "SH_FAILS", "PARAM") and arg:
            try:
                _check_substs(arg)
                if key == "PARAM":
                    _param(arg)
            except ValueError as e:
                raise CaseError("%s: %s" % (where, e))
            case.steps.append(Step(no, key.lower(), command=arg))
            continue
        if key not in SETTERS or not arg:
            raise CaseError("%s: unknown line %r" % (where, line))
        try:
            SETTERS[key](case, arg)
        except (ValueError, re.error) as e:
            raise CaseError("%s: %s" % (where, e))
    if block is not None:
        raise CaseError("%s: %s without END" % (path, cases[-1].steps[-1].kind.upper()))
    for case in cases:
        # a case that checks nothing cannot fail (a SH step's gdb, run as
        # another user, say, is checked as a session's output is)
        if not any(s.checks() for s in case.steps):
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


# The gdb under test is one for the whole run: asked once, not by every
# case that REQUIRES a gdb version (a gdb start costs seconds in the guest).
@functools.lru_cache(maxsize=None)
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


def _fail(case: Case, step: Step, what: str, out: str) -> None:
    raise AssertionError("%s: %s in output:\n%s" % (case.where(step), what, out))


def _sh_fails(command: str) -> str:
    p = subprocess.run(command, shell=True, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=300)
    out = p.stdout.decode(errors="replace")
    if p.returncode == 0:
        raise AssertionError("command succeeded, a refusal was expected: %s\n%s"
                             % (command, out))
    return out


def _output(case: Case, step: Step, saved: Dict[str, str]) -> str:
    """Run one step; its output.  saved: each module parameter the case
    has set, with its value before the case."""
    if step.kind == "param":
        name, value = step.command.split()
        if name not in saved:
            saved[name] = gtplib.param(name).strip()
        return gtplib.param(name, substitute(value))
    if step.kind == "sh":
        return gtplib.sh(substitute(step.command))
    if step.kind == "sh_fails":
        return _sh_fails(substitute(step.command))
    if step.kind == "gdb_ex":
        return gtplib.gdb(*[substitute(l) for l in step.ex],
                          timeout=case.timeout or 120)
    script = substitute(step.script)
    if step.reset:
        gtplib.reset_target()
    out = gtplib.gdb_script(HEADS[case.head] + script,
                            timeout=case.timeout or 180)
    if re.search(GDB_BUGS, out, re.M):
        _fail(case, step, "gdb reported a bug /%s/" % GDB_BUGS, out)
    return out


def _check(case: Case, step: Step, out: str) -> None:
    for rx in step.expect:
        if not re.search(substitute(rx, escape=True), out, re.M):
            _fail(case, step, "expected /%s/" % rx, out)
    for rx in step.expect_not:
        m = re.search(substitute(rx, escape=True), out, re.M)
        if m:
            _fail(case, step, "unexpected /%s/ (%r)" % (rx, m.group(0)), out)
    for n, rx in step.expect_count:
        got = len(re.findall(substitute(rx, escape=True), out, re.M))
        if got != n:
            _fail(case, step, "EXPECT_COUNT %d /%s/, found %d" % (n, rx, got), out)
    if step.frames is not None:
        got = gtplib.frames_collected(out)
        if not got or got[-1] != step.frames:
            _fail(case, step, "FRAMES %d, tstatus said %s" % (step.frames, got), out)
    for expr, want in step.values:
        got = gtplib.values(out, expr)
        if got != want:
            _fail(case, step, "VALUES %s = %s, got %s" % (expr, want, got), out)


def run(case: Case) -> None:
    """Run one case: raise gtplib.Skip, or AssertionError naming the line."""
    for req in case.requires:
        why = _missing(req)
        if why:
            raise gtplib.Skip(why)
    saved: Dict[str, str] = {}
    try:
        for step in case.steps:
            _check(case, step, _output(case, step, saved))
    finally:
        for name, value in saved.items():
            gtplib.param(name, value)
