#!/usr/bin/env python3
"""gtpgdb/strcond.py on the host: string compares in tracepoint
conditions reach the target as word compares (docs/cookbook.md, "Only
for one process name").

The host's gdb (GTP_GDB to try another) reads prog.c's DWARF and talks
to build/gtp-stub, the portable core on a pipe, which verifies the
bytecode gdb sends at tstart as gtp does.  Each rewritten condition's
bytecode (QTDP) must be the same as that of the word compares written
by hand here, byte values spelled out; a compare that cannot be
rewritten must make tstart fail with one gdb error, before any QTDP.
The hits themselves are tests/e2e/test_comm.py's, in the guest.
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
STUB = os.path.join(REPO, "build", "gtp-stub")
BUILD = os.path.join(REPO, "build", "strcond")
PROG = os.path.join(BUILD, "prog")
GDB = os.environ.get("GTP_GDB", "gdb")
sys.path.insert(0, os.path.join(REPO, "tests", "lib"))
import hostgdb  # noqa: E402
import tap  # noqa: E402

COMM = "((struct task_struct *)$current_task)->comm"

# tstart in Python, so that a failing one does not end the script.
TSTART = """python
try:
    gdb.execute("tstart")
    print("tstart: ok")
    gdb.execute("tstop")
except gdb.error as e:
    print("tstart: failed: %s" % e)
end
"""


def build():
    os.makedirs(BUILD, exist_ok=True)
    subprocess.run(["gcc", "-O0", "-g", "-o", PROG, "prog.c"], cwd=HERE, check=True)


def gdb(script, connect=True, timeout=60):
    """gdb with gtp.py and prog's symbols on the stub, running script
    with the remote protocol logged in full (or only script)."""
    head = hostgdb.QUIET
    if connect:
        head += """source %s
file %s
target remote | %s
set debug remote-packet-max-chars unlimited
set debug remote 1
""" % (GTP_PY, PROG, STUB)
    return hostgdb.run(head + script, gdb=GDB, timeout=timeout)


def bytecode(out):
    """{tracepoint: the condition's bytecode (hex)} of every QTDP sent."""
    return {int(n): x for n, x in re.findall(
        r"Sending packet: \$QTDP:(\d+):[0-9a-f]+:[ED]:\d+:\d+:X[0-9a-f]+,([0-9a-f]+)", out)}


def sent_conditions(out):
    """{tracepoint: the condition's text gdb sent in QTDPsrc}."""
    return {int(n): bytes.fromhex(x).decode() for n, x in re.findall(
        r"Sending packet: \$QTDPsrc:(\d+):[0-9a-f]+:cond:\d+:[0-9a-f]+:([0-9a-f]+)", out)}


def shown_conditions(out):
    """{tracepoint: its condition} of the last `info tracepoints`."""
    table = out[out.rindex("Num     Type"):]
    conds, n = {}, None
    for line in table.splitlines():
        m = re.match(r"^(\d+)\s+tracepoint", line)
        if m:
            n = int(m.group(1))
        m = re.match(r"^\s+trace only if (.*)$", line)
        if m:
            conds[n] = m.group(1)
    return conds


def same_bytecode(pairs):
    """Trace f twice per (condition, hand-written word compares); the
    two of each pair must compile to the same bytecode."""
    script = "tvariable $current_task\n"
    for mine, hand in pairs:
        script += "trace f if %s\ntrace f if %s\n" % (mine, hand)
    out = gdb(script + TSTART + "info tracepoints\n")
    assert "tstart: ok" in out, out
    code = bytecode(out)
    assert len(code) == 2 * len(pairs), out
    for i, (mine, hand) in enumerate(pairs):
        assert code[2 * i + 1] == code[2 * i + 2], \
            "%s: %s\n%s: %s\n%s" % (mine, code[2 * i + 1], hand, code[2 * i + 2], out)
    # the user's text is back; the target got the rewritten one
    assert shown_conditions(out) == {2 * i + k: c for i, pair in enumerate(pairs)
                                     for k, c in ((1, pair[0]), (2, pair[1]))}, out
    return out


def test_current_comm():
    """$current_comm == "nginx": "nginx\\0" as one 4-byte and one 2-byte
    load; != is its negation; QTDPsrc carries the word compares."""
    out = same_bytecode([
        ('$current_comm == "nginx"',
         "*(unsigned int *)&%s[0] == 0x6e69676e && *(unsigned short *)&%s[4] == 0x78"
         % (COMM, COMM)),
        ('$current_comm != "x"', "!(*(unsigned short *)&%s[0] == 0x78)" % COMM),
    ])
    assert "0x6e69676e" in sent_conditions(out)[1], out


def test_current_comm_declares_current_task():
    """Without `tvariable $current_task` the rewrite declares it (gdb
    compiles a $name to getv only for a trace state variable)."""
    out = gdb('trace f if $current_comm == "sh"\n' + TSTART)
    assert "tstart: ok" in out, out
    assert "QTDV:1:0000000000000000:0:%s" % b"current_task".hex() in out, out


def test_streq_memeq_chars():
    """A 16-byte comm filled (15 chars and the NUL: two 8-byte loads),
    $_memeq on a char pointer argument, the literal on either side, and
    character literals ('\\xff' is C's signed char -1)."""
    same_bytecode([
        ('$_streq(p->comm, "0123456789abcde")',
         "*(unsigned long long *)&p->comm[0] == 0x3736353433323130 && "
         "*(unsigned long long *)&p->comm[8] == 0x0065646362613938"),
        ('$_memeq(h->name, "foo", 3)',
         "*(unsigned short *)&h->name[0] == 0x6f66 && *(unsigned char *)&h->name[2] == 0x6f"),
        ('$_streq("a\\tb", task.comm)',
         "*(unsigned int *)&task.comm[0] == 0x00620961"),
        ("p->comm[0] == 'c' && p->comm[1] != '\\xff' && p->comm[2] == '\\0'",
         "p->comm[0] == 99 && p->comm[1] != -1 && p->comm[2] == 0"),
    ])


REFUSED = [
    ('$current_comm == "0123456789abcdef"',
     "compares 17 bytes, but `%s' has 16" % COMM),
    ("$_streq(p->comm, h->name)", "one argument must be a string \"literal\""),
    ('$_streq(p->comm, L"x")', "the string must be one plain \"literal\""),
    ('$_memeq(p->comm, "ab", h->id)', "the count must be an integer literal"),
    ('$_memeq(p->comm, "ab", 4)', "4 bytes, but the literal has 3"),
    ('$_streq(p->pid, "x")', "`p->pid' is of type int, not a char array or char pointer"),
    ("$current_comm", "$current_comm is only compared"),
]


def test_refused():
    """Each compare that cannot be rewritten: tstart fails with gtp's
    reason as one gdb error, sends no tracepoint, and the condition is
    as the user wrote it."""
    script = "trace f\n"
    for cond, _ in REFUSED:
        script += "condition 1 %s\n%sinfo tracepoints\n" % (cond, TSTART)
    out = gdb(script)
    fails = re.findall(r"^tstart: (.*)$", out, re.M)
    assert len(fails) == len(REFUSED), out
    tables = out.split("Num     Type")[1:]
    for (cond, why), got, table in zip(REFUSED, fails, tables):
        assert got.startswith("failed: tracepoint 1: gtp: ") and why in got, (cond, got)
        assert "trace only if %s\n" % cond in table, (cond, table)
    assert not bytecode(out), out


def test_put_back_when_tstart_fails():
    """A tstart that fails after the rewrite (no target here): the next
    prompt puts the user's condition back; the call stands in for it."""
    out = gdb("source %s\nfile %s\ntrace f if $current_comm == \"x\"\n%s"
              "info tracepoints\npython gtpgdb.strcond._saved.on_prompt()\n"
              "info tracepoints\n" % (GTP_PY, PROG, TSTART), connect=False)
    assert "tstart: failed" in out, out
    first = out[:out.rindex("Num     Type")]
    assert "0x78" in shown_conditions(first)[1], out
    assert shown_conditions(out) == {1: '$current_comm == "x"'}, out


def test_own_hook_is_kept():
    """With a hook-tstart of the user's, nothing is rewritten, and gtp
    says so."""
    with tempfile.NamedTemporaryFile("w", suffix=".gdb", delete=False) as f:
        f.write("define hook-tstart\necho mine\\n\nend\n")
    try:
        out = gdb("source %s\nsource %s\nshow user hook-tstart\n" % (f.name, GTP_PY),
                  connect=False)
    finally:
        os.unlink(f.name)
    assert "not rewritten" in out and "gtp-tstart-conditions" not in out, out


def main():
    for tool in ("gcc", GDB):
        if not shutil.which(tool):
            return tap.bail_out("%s not installed (make deps installs it)" % tool)
    if not os.access(STUB, os.X_OK):
        return tap.bail_out("no %s (make tools)" % STUB)
    build()
    return tap.main(globals())


if __name__ == "__main__":
    sys.exit(main())
