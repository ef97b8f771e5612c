"""Kprobes whose pre-handler is the compiled condition (module/probes/kprobe.c).

A mid-function tracepoint whose condition the JIT decides on the registers
alone (pure, no memory) gets the compiled condition as its kprobe's
pre-handler: `attached` says "kprobe-jit".  It reads the registers the
kprobe saved, any of them ($rsp too), returns 0 when false and hands a
true hit to the usual handler.  The first hits right after tstart come
through the breakpoint (the kernel optimizes a kprobe into a jump a few
ticks later), where a handler's nonzero return would skip the probed
instruction: both ways must trace the same.  What gdb sees must not depend
on it: the same frames as kprobe_jit=0.  A condition that reads memory
keeps the generic handler.
"""
import re

from gtplib import (GDB_HEAD, expect_not, frames_collected, gdb_script,
                    leaves_target_clean, param, reset_target, sh)

BAD = (r"Fatal signal|internal-error|Remote connection closed|Bogus|"
       r"Malformed|Remote failure|Traceback")

# calls k = 1..8 are (k, k - 1): 2k + 3(k - 1) > 20 from k = 5 on
BODY = """trace *%(mid)s if %(cond)s
actions
collect $regs
end
tstart
shell cat /sys/module/gtptrace/parameters/attached
shell echo 8 > /proc/gtp_test
shell sleep 0.2
shell echo 8 > /proc/gtp_test
tstop
tstatus
set $i = 0
while $i < 8
  tfind $i
  printf "=f= rdi %%d rsi %%d pc %%d sp %%d\\n", $rdi, $rsi, (long)$pc - %(mid)s, (long)$sp & 7
  set $i = $i + 1
end
"""

FIG11 = "2*counter1+3*counter2 > 20"


def mid():
    m = re.search(r"mid=(0x[0-9a-f]+)", sh("cat /proc/gtp_test"))
    assert m and int(m.group(1), 16), "gtp_test has no mid-function address"
    return m.group(1)


def run_body(cond, frames):
    reset_target()
    out = gdb_script(GDB_HEAD + BODY % {"mid": mid(), "cond": cond},
                     timeout=240)
    expect_not(out, BAD)
    assert frames_collected(out)[-1:] == [frames], out
    return out


def kinds(out):
    return re.findall(r"^\d+ 0x[0-9a-f]+ (\S+)$", out, re.M)


def frames(out):
    return re.findall(r"^=f= (.*)$", out, re.M)


def want(ks):
    return ["rdi %d rsi %d pc 0 sp 0" % (k, k - 1) for k in ks]


@leaves_target_clean
def test_kprobe_jit_same_frames_as_generic_handler():
    assert param("kprobe_jit").strip() == "Y"
    out = run_body(FIG11, 8)
    assert kinds(out) == ["kprobe-jit"], out
    assert frames(out) == want([5, 6, 7, 8] * 2), out

    param("kprobe_jit", "0")
    try:
        out0 = run_body(FIG11, 8)
    finally:
        param("kprobe_jit", "1")
    assert kinds(out0) == ["kprobe"], out0
    assert frames(out0) == frames(out), (out, out0)


@leaves_target_clean
def test_kprobe_jit_reads_any_saved_register():
    # $rsp and $rax are no argument registers: the saved block has them
    out = run_body("$rsp != 0 && $rax == $rax && counter1 > 6", 4)
    assert kinds(out) == ["kprobe-jit"], out
    assert frames(out)[:4] == want([7, 8, 7, 8]), out


@leaves_target_clean
def test_condition_reading_memory_keeps_the_generic_handler():
    out = run_body("counter1 > 6 && *(int *)$rsp != 12345", 4)
    assert kinds(out) == ["kprobe"], out
    assert frames(out)[:4] == want([7, 8, 7, 8]), out
