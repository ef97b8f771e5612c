"""Entry tracepoints as the function's own trampoline (module/probes/ftrace_direct.c).

In a trace with at most 8 of them, an entry tracepoint whose condition the
JIT decides on the arguments alone, and the only one on its function, is
called straight from the function's __fentry__ site (ftrace's direct
calls): `attached` says "direct", and ftrace's enabled_functions shows the
direct call.  What gdb sees must not depend on it: the same frames,
registers and stack as through the shared ftrace_ops (entry_direct=0).
Another direct user on the function (gtp_test's empty trampoline, `echo
direct > /proc/gtp_test`) keeps the tracepoint on the shared ops, still
traced.
"""
import re

from actors import Actors
from gtplib import (GDB_HEAD, expect, expect_not, frames_collected, gdb_script,
                    leaves_target_clean, param, reset_target, sh)

BAD = (r"Fatal signal|internal-error|Remote connection closed|Bogus|"
       r"Malformed|Remote failure|Traceback")

# A run: how each is attached, whether ftrace has a direct call on the
# function, eight calls.
RUN = """tstart
shell cat /sys/module/gtptrace/parameters/attached
shell grep gtp_test_function /sys/kernel/tracing/enabled_functions || echo not-ftraced
shell echo 8 > /proc/gtp_test
tstop
tstatus
"""

# calls k = 1..8 are (k, k - 1): 2k + 3(k - 1) > 20 from k = 5 on.  The
# word at $rsp is the function's return address (into gtp_test's loop):
# the stack as the function got it, not one call deeper.
BODY = """trace gtp_test_function if 2*counter1+3*counter2 > 20
actions
collect $regs
collect *(unsigned long *)$rsp
end
""" + RUN + """set $i = 0
while $i < 4
  tfind $i
  printf "=f= rdi %d rsi %d pc+%d\\n", $rdi, $rsi, (long)$pc - (long)gtp_test_function
  output/x *(unsigned long *)$rsp
  echo \\n
  set $i = $i + 1
end
"""


def run_body():
    reset_target()
    out = gdb_script(GDB_HEAD + BODY, timeout=240)
    expect_not(out, BAD)
    assert frames_collected(out)[-1:] == [4], out
    return out


def kinds(out):
    return [k for k in re.findall(r"^\d+ 0x[0-9a-f]+ (\S+)$", out, re.M)]


def frames(out):
    return re.findall(r"^=f= (.*)\n(0x[0-9a-f]+)$", out, re.M)


def check_frames(out):
    fr = frames(out)
    pc = fr[0][0].split("pc+")[1] if fr else None
    assert [f for f, _ in fr] == ["rdi %d rsi %d pc+%s" % (k, k - 1, pc)
                                  for k in (5, 6, 7, 8)], out
    # one return address, every call's from the same loop, and not one
    # into gtp_test_function itself (a stack one call too deep)
    fn = int(re.search(r"^Tracepoint 1 at (0x[0-9a-f]+)", out, re.M).group(1), 16)
    rets = {int(r, 16) for _, r in fr}
    assert len(rets) == 1 and not fn <= min(rets) < fn + 64, (rets, out)
    return fr


@leaves_target_clean
def test_direct_same_frames_as_shared_ops():
    assert param("entry_direct").strip() == "Y"
    out = run_body()
    assert kinds(out) == ["direct"], out
    expect(out, r"^gtp_test_function \[gtp_test\].*direct")
    fr = check_frames(out)

    param("entry_direct", "0")
    try:
        out0 = run_body()
    finally:
        param("entry_direct", "1")
    assert kinds(out0) == ["ftrace-regs"], out0
    expect_not(out0, r"^gtp_test_function \[gtp_test\].*direct")
    assert check_frames(out0) == fr, (out, out0)


@leaves_target_clean
def test_direct_taken_falls_back_to_shared_ops():
    sh("echo direct > /proc/gtp_test")
    try:
        out = run_body()
    finally:
        sh("echo off > /proc/gtp_test")
    # gtp_test's trampoline holds the function's direct call: ours is
    # refused, and the tracepoint rides the shared ops beside it
    assert kinds(out) == ["ftrace-regs"], out
    check_frames(out)


# Two on one function, each on its own argument: counter1 == 3 holds at
# call 3, counter2 > 5 at calls 7 and 8.  A third reading memory keeps
# them all on the shared ops.
SHARED = """trace gtp_test_function if counter1 == 3
actions
collect $regs
end
trace gtp_test_function if counter2 > 5
actions
collect $regs
end
THIRD
""" + RUN + """set $i = 0
while $i < 8
  tfind $i
  printf "=t= tp %d rdi %d rsi %d\\n", $tracepoint, $rdi, $rsi
  set $i = $i + 1
end
"""


def shared_run(third=""):
    reset_target()
    out = gdb_script(GDB_HEAD + SHARED.replace("THIRD", third), timeout=240)
    expect_not(out, BAD)
    return out


@leaves_target_clean
def test_direct_shared_by_tracepoints_on_one_function():
    out = shared_run()
    assert kinds(out) == ["direct", "direct"], out
    expect(out, r"^gtp_test_function \[gtp_test\].*direct")
    got = re.findall(r"^=t= (tp [0-9].*)$", out, re.M)
    assert got == ["tp 1 rdi 3 rsi 2", "tp 2 rdi 7 rsi 6",
                   "tp 2 rdi 8 rsi 7"], out

    param("entry_direct", "0")
    try:
        out0 = shared_run()
    finally:
        param("entry_direct", "1")
    assert kinds(out0) == ["ftrace-regs", "ftrace-regs"], out0
    assert re.findall(r"^=t= (tp [0-9].*)$", out0, re.M) == got, (out, out0)

    # one that reads memory cannot be decided by the trampoline: none is
    out = shared_run("trace gtp_test_function if gtp_test_calls < 0")
    assert kinds(out) == ["ftrace-regs", "ftrace-regs", "ftrace"], out
    assert re.findall(r"^=t= (tp [0-9].*)$", out, re.M) == got, out


# Every register of one call, gtp_test_lines(2, 3)'s first, (7, 1), in
# each mode, under a condition the trampoline computes in rax and r10: "collect $regs" (the ops with every register saved), and the
# argument registers only (the ops without: the frame holds those, the
# rest zero).  The call is made by one process of our own, the same way
# each time, so that its registers are the same in both runs but for the
# stack's place, which the kernel moves on each syscall
# (randomize_kstack_offset): values within the stack are compared as
# offsets from $rsp.
REGS_SESSION = """trace gtp_test_function if 2*counter1+3*counter2 == 17
actions
collect COLLECT
end
tstart
shell cat /sys/module/gtptrace/parameters/attached
GO
tstop
tstatus
tfind 0
info registers
"""

LITE = "$rax, $rcx, $rdx, $rsi, $rdi, $r8, $r9, $rbp, $rsp"

LINES_CALLER = """
fd = os.open("/proc/gtp_test", os.O_WRONLY)
while True:
    os.read(g, 1)
    os.write(fd, b"lines 2 3")
    os.write(d, b"x")
"""


def frame_registers(a, collect):
    reset_target()
    body = REGS_SESSION.replace("COLLECT", collect).replace("GO", a.shell(1))
    out = gdb_script(GDB_HEAD + body, timeout=240)
    expect_not(out, BAD)
    assert frames_collected(out)[-1:] == [1], out
    regs = dict(re.findall(r"^([a-z][a-z0-9_]*)\s+(0x[0-9a-f]+|<unavailable>)",
                           out, re.M))
    assert {"rdi", "rsi", "rsp", "rip", "r11", "eflags"} <= set(regs), out
    sp = int(regs["rsp"], 16)

    def where(v):
        if v.startswith("<"):
            return v
        v = int(v, 16)
        return ("rsp%+d" % (v - sp)) if abs(v - sp) < 0x4000 else hex(v)
    return kinds(out), {r: where(v) for r, v in regs.items()}, out


@leaves_target_clean
def test_direct_every_register_as_the_shared_ops():
    """A frame of the function's own trampoline holds every register as
    the shared ops records it for the same call: rax, r10, r11 and the
    flags too, which the trampoline computes its condition in."""
    with Actors() as a:
        a.start("gtp-lines", LINES_CALLER, go=False)
        for collect, ops_kind in (("$regs", "ftrace-regs"), (LITE, "ftrace")):
            kind, direct, out = frame_registers(a, collect)
            assert kind == ["direct"], out
            param("entry_direct", "0")
            try:
                kind, ops, out0 = frame_registers(a, collect)
            finally:
                param("entry_direct", "1")
            assert kind == [ops_kind], out0
            assert (direct["rdi"], direct["rsi"]) == ("0x7", "0x1"), out
            diff = {r: (direct[r], ops.get(r)) for r in direct
                    if direct[r] != ops.get(r)}
            assert not diff and direct.keys() == ops.keys(), \
                (collect, "register: (direct, ops)", diff, out, out0)
