"""Watch tracepoints (module/core/watch.h, module/probes/watch.c,
gdb-scripts/gtpgdb/watch.py, docs/tracing.md "Watch tracepoints"): a
location that is data, carried by a hardware breakpoint on every CPU;
each access is a hit at the code that made it.

- gtp-watch on gtp_test_watched (gtp_test.ko's 8-byte counter), which
  gtp_test_watch_add() increments: 3 writes from the writing task on CPU
  0, 2 from a kworker on CPU 1, 2 from an interrupt on CPU 1.  Seven
  frames, each with the writer's pc (in gtp_test_watch_add), the value
  before and after (one chain: each "before" the previous "after", the
  first the value at tstart), on the CPU that wrote, the irq ones one
  hard-interrupt level deeper.  JIT and interpreter (the condition
  $watch_val != 0 is compiled or not).
- A dynamic watch (gtp-watch -d 8) that a return probe on
  gtp_test_obj_new() points at the new object's field ($watch_arm_1 =
  $kret + 8) and a tracepoint on gtp_test_obj_done() parks again: the
  field's three writes in gtp_test_obj_set(), at that address, and none
  of the object's head nor of gtp_test_watched; `attached` says parked.
  Pointed at an unaligned address it stays parked, and the pointing
  tracepoint counts an evaluation error.
- The same variable written by hand, as stock gdb defines it ("trace
  *&VAR" and "teval $awatch = 8"), for reads: a read is a hit whose value
  did not change.
- Unloading gtp while a watch it left armed (disconnected tracing) fires
  on both CPUs and a dynamic one is moved from object to object: the
  breakpoints and the moves go with it.
- Refusals: a fifth watch when the CPU has four debug registers (nothing
  stays armed, and a run with one starts after it), the kernel refusing
  an address (its entry area), gtp's own data, an address not aligned to
  its length.

The host tests are tests/unit/test_watch.c.
"""
import re

from gtplib import (GDB_HEAD, GTP_INSMOD, SCRIPT_BUGS, expect, expect_not,
                    gdb_script, ksym, leaves_target_clean, reset_target, sh)
from jit_switch import jit_restored, set_jit

WRITES = """gtp-watch gtp_test_watched if $watch_val != 0
tvariable $cpu_id
tvariable $hardirq_count
actions $tpnum
collect $regs
collect $watch_prev
collect $watch_val
collect $cpu_id
collect $hardirq_count
teval $watch = 8
end
printf "start %lu\\n", gtp_test_watched
tstart
shell cat /sys/module/gtptrace/parameters/attached
shell taskset -c 0 sh -c 'echo watch 3 > /proc/gtp_test'
shell taskset -c 0 sh -c 'echo watch-cpu 1 2 > /proc/gtp_test'
shell taskset -c 0 sh -c 'echo watch-irq 1 2 > /proc/gtp_test'
tstop
tstatus
tfind start
while $trace_frame != -1
printf "w %lu %lu %d %d\\n", $watch_prev, $watch_val, $cpu_id, $hardirq_count
info symbol $pc
tfind
end
"""


def writes(jit):
    set_jit(jit)
    reset_target()
    out = gdb_script(GDB_HEAD + WRITES, timeout=300)
    expect_not(out, SCRIPT_BUGS + r"|Error|evaluation error")
    expect(out, r"^Watch tracepoint 1: writes of gtp_test_watched \(8 bytes at 0x[0-9a-f]+\)$")
    expect(out, r"^1 0x[0-9a-f]+ watch$")
    start = int(expect(out, r"^start (\d+)$").group(1))
    got = [tuple(map(int, g)) for g in re.findall(r"^w (\d+) (\d+) (\d+) (\d+)$", out, re.M)]
    assert [(p, v) for p, v, _, _ in got] == [(start + i, start + i + 1) for i in range(7)], out
    assert [c for _, _, c, _ in got] == [0, 0, 0, 1, 1, 1, 1], out
    task = got[0][3]
    assert [h for _, _, _, h in got] == [task] * 5 + [task + 1] * 2, out
    where = re.findall(r"^(\w+) \+ \d+ in section \.text", out, re.M)
    assert where == ["gtp_test_watch_add"] * 7, out
    expect(out, r"^Collected 7 trace frames\.$")


@leaves_target_clean
def test_writes_from_task_kworker_and_irq():
    with jit_restored():
        for jit in (True, False):
            writes(jit)


READS = """tvariable $awatch
tvariable $watch_val
tvariable $watch_prev
trace *&gtp_test_watched
actions
collect $watch_prev, $watch_val
teval $awatch = 8
end
tstart
shell cat /sys/module/gtptrace/parameters/attached
shell echo watch-read 2 > /proc/gtp_test
shell echo watch 1 > /proc/gtp_test
tstop
tfind start
while $trace_frame != -1
printf "a %lu %lu\\n", $watch_prev, $watch_val
tfind
end
"""


@leaves_target_clean
def test_reads_and_writes():
    reset_target()
    out = gdb_script(GDB_HEAD + READS, timeout=300)
    expect_not(out, SCRIPT_BUGS + r"|Error|evaluation error")
    expect(out, r"^1 0x[0-9a-f]+ awatch$")
    got = [tuple(map(int, g)) for g in re.findall(r"^a (\d+) (\d+)$", out, re.M)]
    # two reads, then the add's read and its write
    assert len(got) == 4, out
    v = got[0][0]
    assert got == [(v, v), (v, v), (v, v), (v, v + 1)], out


def refused(body, why):
    """tstart after body fails, saying why, with nothing left attached
    (gdb stops the script at the failed tstart)."""
    reset_target()
    out = gdb_script(GDB_HEAD + body + "tstart\n", timeout=300)
    expect_not(out, SCRIPT_BUGS)
    expect(out, why)
    expect(out, r"Error on target|Target returns error code")
    assert sh("cat /sys/module/gtptrace/parameters/attached").strip() == "", out


DYNAMIC = """gtp-watch -d 8
tvariable $kret
trace gtp_test_obj_new
actions
teval $kret = 0
teval $watch_arm_1 = $kret + %d
collect $kret
end
trace gtp_test_obj_done
actions
teval $watch_arm_1 = 0
end
tstart
shell echo watch-obj 3 > /proc/gtp_test
shell echo watch 2 > /proc/gtp_test
shell cat /sys/module/gtptrace/parameters/attached
tstop
tstatus
tfind tracepoint 2
printf "obj 0x%%lx\\n", $kret
tfind tracepoint 1
while $trace_frame != -1
printf "d %%lu %%lu 0x%%lx\\n", $watch_prev, $watch_val, $watch_addr
info symbol $pc
tfind tracepoint 1
end
"""


@leaves_target_clean
def test_dynamic_watch_follows_an_object():
    reset_target()
    out = gdb_script(GDB_HEAD + DYNAMIC % 8, timeout=300)
    expect_not(out, SCRIPT_BUGS + r"|Error|evaluation error")
    expect(out, r"^Watch tracepoint 1: writes of 8 bytes wherever \$watch_arm_1 points")
    expect(out, r"^1 0x0 watch parked$")
    obj = int(expect(out, r"^obj 0x([0-9a-f]+)$").group(1), 16)
    got = [(int(p), int(v), int(a, 16))
           for p, v, a in re.findall(r"^d (\d+) (\d+) 0x([0-9a-f]+)$", out, re.M)]
    assert got == [(0, 1, obj + 8), (1, 2, obj + 8), (2, 3, obj + 8)], out
    where = re.findall(r"^(\w+) \+ \d+ in section \.text", out, re.M)
    assert where == ["gtp_test_obj_set"] * 3, out
    # the pointing tracepoints' frames and the watch's
    expect(out, r"^Collected 5 trace frames\.$")
    # an unaligned address: refused in the pointing hit, nothing watched
    reset_target()
    out = gdb_script(GDB_HEAD + DYNAMIC % 9, timeout=300)
    expect(out, r"^1 0x0 watch parked$")
    expect(out, r"gtp: tracepoint 2 at 0x[0-9a-f]+: 1 evaluation error\(s\), last: "
           r"trace state variable refused")
    assert not re.findall(r"^d ", out, re.M), out


MARKED = """tvariable $watch
trace *%s
actions
teval $watch = %d
end
"""


@leaves_target_clean
def test_refusals():
    # four debug registers: the fifth watch finds none
    refused("gtp-watch gtp_test_watched\n" * 5, r"no free debug register")
    # the kernel's entry area, the CPUs' exception stacks
    refused(MARKED % ("0xfffffe0000001000", 8), r"does not let a hardware breakpoint watch")
    refused(MARKED % ("((char *)&gtp_test_watched + 4)", 8), r"aligned to its length")
    # a pointer at a tracepoint that is no watch
    refused("tvariable $watch_arm_5\ntrace gtp_test_function\nactions\n"
            "teval $watch_arm_5 = 0\nend\n",
            r"sets \$watch_arm_5, but tracepoint 5 is no watch")
    # gtp's own data: its probe path writes it
    refused(MARKED % ("0x%x" % ksym("gtp_tps", "gtptrace"), 8), r"inside gtp itself")
    # after all that, one watch runs
    reset_target()
    out = gdb_script(GDB_HEAD + """gtp-watch gtp_test_watched
tstart
shell echo watch 1 > /proc/gtp_test
tstop
tstatus
""", timeout=300)
    expect_not(out, SCRIPT_BUGS + r"|Error")
    expect(out, r"^Collected 1 trace frames\.$")


def test_unload_gtp_while_watching():
    """Python: gtptrace must be loaded again whatever happens."""
    reset_target()
    out = gdb_script(GDB_HEAD + """set disconnected-tracing on
gtp-watch gtp_test_watched
gtp-watch -d 8
tvariable $kret
trace gtp_test_obj_new
actions
teval $kret = 0
teval $watch_arm_2 = $kret + 8
end
tstart
shell cat /sys/module/gtptrace/parameters/attached
detach
""", timeout=300)
    expect_not(out, SCRIPT_BUGS + r"|Error")
    expect(out, r"^1 0x[0-9a-f]+ watch$")
    try:
        # writers on both CPUs, from tasks and interrupts, and a dynamic
        # watch moved to object after object, while gtp goes
        sh("(for i in $(seq 40); do echo watch 200 > /proc/gtp_test; done) & "
           "(for i in $(seq 40); do echo watch-irq 1 200 > /proc/gtp_test; done) & "
           "(for i in $(seq 20); do echo watch-obj 50 > /proc/gtp_test; done) & "
           "sleep 0.5; rmmod gtptrace; wait")
        sh("echo watch 1 > /proc/gtp_test")
    finally:
        if "gtptrace " not in sh("lsmod"):
            sh(GTP_INSMOD)
