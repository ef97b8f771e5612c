#!/usr/bin/env python3
"""gtpgdb/collectable.py on the host: hook-tstart keeps tstart from failing
on a collect item gdb cannot compile (docs/tracing.md).

prog.c is built with gcc -O2 -g; the host's gdb runs it under gdbserver,
whose tracepoints are gdb's own, so `tstart` really compiles and downloads
the actions: without gtp's hook it fails on f's arguments (DW_OP_entry_value),
with it the trace runs and the frames hold the rest.  Where tstart is not
needed the hook's entry point is called directly.
Prints TAP (tests/lib/tap.py).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
GTP_PY = os.path.join(REPO, "gdb-scripts", "gtp.py")
SRC = os.path.join(HERE, "prog.c")
BUILD = os.path.join(REPO, "build", "collectable")
PROG = os.path.join(BUILD, "prog")
sys.path.insert(0, os.path.join(REPO, "tests", "lib"))
import hostgdb  # noqa: E402
import tap  # noqa: E402

ENTRY = "DWARF operator DW_OP_entry_value cannot be translated to an agent expression"


def line_of(tag):
    with open(SRC) as f:
        for n, line in enumerate(f, 1):
            if tag in line:
                return n
    raise AssertionError("no %s in prog.c" % tag)


def build():
    os.makedirs(BUILD, exist_ok=True)
    # from here: the DWARF's file name is prog.c, as messages show it
    subprocess.run(["gcc", "-O2", "-g", "-o", PROG, "prog.c"], cwd=HERE, check=True)


def gdb(script, gtp=True, timeout=60):
    """Host gdb in batch mode on script (gtp.py sourced first if gtp)."""
    head = hostgdb.QUIET
    if gtp:
        head += "source %s\n" % GTP_PY
    head += "file %s\n" % PROG
    return hostgdb.run(head + script, timeout=timeout)


LIVE = """target remote | gdbserver - %s
break main
continue
""" % PROG

# tstart in Python, so that a failing one does not end the script.
TSTART = """python
try:
    gdb.execute("tstart")
    print("tstart: ok")
except gdb.error as e:
    print("tstart: failed: %s" % e)
end
"""

RUN = """break _exit
continue
tstop
"""


def tracepoints(out):
    """{number: [action lines]} of the last `info tracepoints` in out."""
    tps, cur = {}, None
    text = out[out.rindex("Num     Type"):]
    for line in text.splitlines()[1:]:
        m = re.match(r"^(\d+)\s+tracepoint", line)
        if m:
            cur = tps.setdefault(int(m.group(1)), [])
        elif line.startswith(" " * 8) and cur is not None:
            cur.append(line.strip())
        elif not line.startswith(("\t", " ")) and not re.match(r"^\d+\.\d+", line):
            break
    return tps


def test_gdb_alone_fails_tstart():
    """The premise: stock gdb's tstart fails on `collect $locals, $args` at
    AFTER, and `collect k` there is refused when entered."""
    out = gdb(LIVE + """trace prog.c:%d
actions
collect $locals, $args
end
%s
python
try:
    gdb.execute("commands 2\\ncollect k\\nend")
except gdb.error as e:
    print("collect k: %%s" %% e)
end
""" % (line_of("/* AFTER */"), TSTART), gtp=False)
    assert "tstart: failed: " + ENTRY in out, out
    assert "collect k: " + ENTRY in out, out


def test_tstart_runs_without_the_failing_items():
    """With gtp.py: tstart runs, one line per dropped argument, the frame
    holds ret (15 for main's f(1, 7)), and the user's text is back."""
    after = line_of("/* AFTER */")
    out = gdb(LIVE + """trace prog.c:%d
actions
collect $locals, $args
end
%s
info tracepoints
%s
tfind start
tdump
tfind none
info tracepoints
save tracepoints %s/saved.gdb
""" % (after, TSTART, RUN, BUILD))
    assert "tstart: ok" in out, out
    for arg in ("count", "k"):
        assert ("gtp: tracepoint 2 (prog.c:%d): not collecting `%s': %s" % (after, arg, ENTRY)) in out, out
    assert re.search(r"^ret = 15$", out, re.M), out
    # gdb's tdump of $args reads what was not collected as unavailable
    assert re.search(r"^count = <unavailable>$", out, re.M), out
    assert tracepoints(out) == {2: ["collect $locals, $args"]}, out
    with open(os.path.join(BUILD, "saved.gdb")) as f:
        assert "    collect $locals, $args\n" in f.read()


def test_inlined_sites():
    """helper inlined in main and in f: two locations, one text.  $args
    there are main's and f's (gdb takes the arguments of the function the
    code is in), named FUNCTION::NAME, and helper's own (what tdump shows
    in the inlined frame); each dropped with the location where it fails;
    $regs and teval stay; tstart runs."""
    out = gdb(LIVE + """trace helper
actions
collect $locals, $args, $regs
teval 1
end
%s
info tracepoints
%s
tfind start
tdump
tfind none
info tracepoints
""" % (TSTART, RUN))
    assert "tstart: ok" in out, out
    dropped = re.findall(r"^gtp: tracepoint 2 location (2\.[12]) \(prog\.c:\d+\): "
                         r"not collecting `(\S+)': (.*)$", out, re.M)
    names = {n for _, n, _ in dropped}
    assert names == {"main::c", "main::v", "f::count", "f::k", "k", "amt"}, out
    # each at a location it truly fails at: main's in f, f's in main
    for loc, name, why in dropped:
        if "::" in name:
            assert (loc == "2.1") == name.startswith("f::") or name == "main::v", \
                (loc, name, out)
        assert why, out
    # helper's r is optimized out at both sites: gdb's own words, as at tstart
    assert out.count("r has been optimized out of existence.") == 4, out
    assert "rip " in out, out
    assert tracepoints(out) == {2: ["collect $locals, $args, $regs", "teval 1"]}, out


def test_scratch_tracepoints():
    """Naming the location an item fails at takes a scratch tracepoint
    per location (only then): they are deleted, $tpnum and $bpnum are
    the user's again, their numbers are used up."""
    out = gdb("""trace helper
actions
collect $args
end
python gtpgdb.collectable.before_tstart()
print $tpnum
print $bpnum
info breakpoints
trace main
""")
    assert re.search(r"^\$1 = 1$", out, re.M) and re.search(r"^\$2 = 1$", out, re.M), out
    assert not re.search(r"^[2-9]\s+tracepoint", out, re.M), out
    assert re.search(r"^Tracepoint 4 at ", out, re.M), out


def test_left_alone_when_it_compiles():
    """At sink's entry everything compiles: nothing said, nothing
    changed, no scratch tracepoint (the next one is number 2)."""
    out = gdb("""trace sink
actions
collect $locals, $args
collect x
end
python gtpgdb.collectable.before_tstart()
info tracepoints
trace main
""")
    assert "gtp:" not in out, out
    assert tracepoints(out) == {1: ["collect $locals, $args", "collect x"]}, out
    assert re.search(r"^Tracepoint 2 at ", out, re.M), out


def test_restored_when_tstart_fails():
    """A tstart that fails for another reason (no target here): the next
    prompt puts the user's text back; the call stands in for it."""
    out = gdb("""trace prog.c:%d
actions
collect $locals, $args
end
python gtpgdb.collectable.before_tstart()
info tracepoints
python gtpgdb.collectable._on_prompt()
info tracepoints
""" % line_of("/* AFTER */"))
    first = out[:out.rindex("Num     Type")]
    assert tracepoints(first) == {1: ["collect ret"]}, out
    assert tracepoints(out) == {1: ["collect $locals, $args"]}, out


def test_disabled_tracepoint_is_checked():
    """gdb downloads (and compiles) disabled tracepoints too: a disabled
    one with a failing item must not fail tstart either."""
    out = gdb(LIVE + """trace prog.c:%d
actions
collect $locals, $args
end
disable 2
%s
""" % (line_of("/* AFTER */"), TSTART))
    assert "tstart: ok" in out, out
    assert "not collecting `k'" in out, out


def test_hook_never_raises():
    """A Python error while checking one tracepoint is reported and
    tstart goes on (an exception would abort it)."""
    out = gdb(LIVE + """trace sink
actions
collect x
end
python
import gtpgdb.collectable as c
def boom(tp):
    raise RuntimeError("boom")
c.plan = boom
end
%s
info tracepoints
""" % TSTART)
    assert "gtp: tracepoint 2: collect actions not checked: boom" in out, out
    assert "tstart: ok" in out, out
    assert tracepoints(out) == {2: ["collect x"]}, out


def test_users_hook_is_kept():
    """A hook-tstart of the user's is neither replaced nor joined: gtp
    says so once and installs none."""
    with tempfile.NamedTemporaryFile("w", suffix=".gdb", delete=False) as f:
        f.write("define hook-tstart\necho mine\\n\nend\n")
    try:
        out = gdb("""source %s
source %s
source %s
show user hook-tstart
python
try:
    print("post:", gdb.execute("show user hookpost-tstart", to_string=True))
except gdb.error as e:
    print("post: none:", e)
end
""" % (f.name, GTP_PY, GTP_PY), gtp=False)
    finally:
        os.unlink(f.name)
    assert out.count("gtp: you have your own hook-tstart") == 1, out
    assert "echo mine" in out, out
    assert "gtpgdb.collectable" not in out and "post: none:" in out, out


def main():
    for tool in ("gcc", "gdb", "gdbserver"):
        if not shutil.which(tool):
            return tap.bail_out("%s not installed (make deps installs it)" % tool)
    build()
    return tap.main(globals())


if __name__ == "__main__":
    sys.exit(main())
