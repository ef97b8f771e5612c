"""User memory of the task that hit (module/core/hitmem.h,
module/services/umem.c, docs/tracing.md "User memory and user stacks"):
conditions and actions read user addresses of the current task, nofault,
only in that task's own context; `collect $ustack` records its user
stack by frame pointers, which gtp-ustack names from the program's file.

- do_sys_openat2, the open path of every open(2), carried by ftrace or
  a direct trampoline (its address from kallsyms, the path its second
  argument, rsi: no BTF to load, which costs a guest 100 s): tests/e2e/progs/ustack.c (built by make as
  build/progs/gtp-ustack-prog, its comm) opens three paths from c(),
  called by b(), a(), main(); a condition on two bytes of the path keeps
  one (not the loader's /etc/ld.so.cache either), whose path collect/s reads, and whose user stack names c,
  b, a and main, in the position-independent program where the kernel
  loaded it.  JIT and interpreter.
- A kprobe's int3, which the kernel enters as an NMI: a line in the
  middle of gtp_test.ko's write handler, with the kernel's kprobe
  optimizer off (sysctl debug.kprobes-optimization), so int3 carries
  every hit; the condition and the collected bytes are the written
  command's, in the writer's memory.  JIT and interpreter.
- The negative control, a hardirq: update_process_times (the tick) while
  an actor spins in user mode with a known string at a fixed address:
  the tick interrupts it, the frames are its pid's, and none holds the
  string or a user stack; a condition reading it holds at no hit.

The host tests are tests/unit/test_tracepoint.c test_user_memory.
"""
import os
import re

from actors import Actors
from gtplib import (GDB_HEAD, REPO, SCRIPT_BUGS, expect, expect_not,
                    gdb_script, ksym, leaves_target_clean, reset_target)
from jit_switch import jit_restored, set_jit

PROG = os.path.join(REPO, "build", "progs", "gtp-ustack-prog")
COMM = os.path.basename(PROG)[:15]
OPTIMIZE = "/proc/sys/debug/kprobes-optimization"

OPEN_BODY = """tvariable $ustack
trace *0x%(addr)x if $current_comm == "%(comm)s" && %(path)s[1] == 'e' && %(path)s[5] == 'h'
actions
collect/s %(path)s
collect $ustack
end
tstart
shell %(prog)s /proc/version /etc/hostname /nonexistent-gtp-umem
tstop
tstatus
tfind start
while $trace_frame != -1
printf "opened %%s, $ustack %%d\\n", %(path)s, $ustack
gtp-ustack %(prog)s
tfind
end
"""


def opened(jit):
    set_jit(jit)
    reset_target()
    out = gdb_script(GDB_HEAD + OPEN_BODY % {"comm": COMM, "prog": PROG,
                                             "addr": ksym("do_sys_openat2"),
                                             "path": "((char *)$rsi)"},
                     timeout=300)
    expect_not(out, SCRIPT_BUGS + r"|Error|evaluation error|Cannot access")
    return out


@leaves_target_clean
def test_opened_path_and_user_stack():
    assert os.access(PROG, os.X_OK), "%s: run make e2e-host-bins" % PROG
    with jit_restored():
        for jit in (True, False):
            out = opened(jit)
            got = re.findall(r"^opened (.*), \$ustack (\d+)$", out, re.M)
            assert len(got) == 1 and got[0][0] == "/etc/hostname", (jit, out)
            # ip in c, then the return addresses into b, a, main, and what
            # libc's start code leaves beyond
            names = re.findall(r"^#(\d+) +0x[0-9a-f]+ in (\w+)", out, re.M)
            assert [n for _, n in names[:4]] == ["c", "b", "a", "main"], (jit, out)
            assert int(got[0][1]) >= 4, out
            expect(out, r"^program text at 0x[0-9a-f]+$")
            expect(out, r"^Collected 1 trace frames\.$")


def write_line():
    """The line of gtp_test.ko's write handler that copies the command in:
    mid-function, where ubuf is the user's buffer."""
    with open(os.path.join(REPO, "tracepoints", "gtp_test.c")) as f:
        for n, line in enumerate(f, 1):
            if "copy_from_user(buf, ubuf, count)" in line:
                return n
    raise AssertionError("gtp_test.c has no copy_from_user line")


INT3_BODY = """trace gtp_test.c:%(line)d if ubuf[0] == 'u' && ubuf[4] == 'B'
actions
collect ubuf[0]@5
end
tstart
shell cat /sys/module/gtptrace/parameters/attached
shell echo umemA > /proc/gtp_test 2>/dev/null
shell echo umemB > /proc/gtp_test 2>/dev/null
shell echo 1 > /proc/gtp_test
tstop
tfind start
while $trace_frame != -1
printf "wrote %%c%%c%%c%%c%%c\\n", ubuf[0], ubuf[1], ubuf[2], ubuf[3], ubuf[4]
tfind
end
"""


@leaves_target_clean
def test_int3_kprobe_reads_the_writer():
    with open(OPTIMIZE) as f:
        saved = f.read().strip()
    try:
        with open(OPTIMIZE, "w") as f:
            f.write("0")
        with jit_restored():
            for jit in (True, False):
                set_jit(jit)
                reset_target()
                out = gdb_script(GDB_HEAD + INT3_BODY % {"line": write_line()},
                                 timeout=300)
                expect_not(out, SCRIPT_BUGS + r"|Error|evaluation error")
                expect(out, r"^1 0x[0-9a-f]+ kprobe$")
                got = re.findall(r"^wrote (.*)$", out, re.M)
                assert got == ["umemB"], (jit, out)
    finally:
        with open(OPTIMIZE, "w") as f:
            f.write(saved)


# At a fixed address of its own, the actor's string; then it spins in
# user mode, where the tick interrupts it.
SPINNER = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                      ctypes.c_int, ctypes.c_int, ctypes.c_long]
# PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS|MAP_FIXED_NOREPLACE
p = libc.mmap(%(addr)d, 4096, 3, 0x2 | 0x20 | 0x100000, -1, 0)
assert p == %(addr)d, (p, ctypes.get_errno())
ctypes.memmove(p, b"GTPUMEM\\0", 8)
end = time.monotonic() + 1.5
while time.monotonic() < end:
    pass
"""
UADDR = 0x7e0000000000

IRQ_BODY = """tvariable $ustack
tvariable $current_task_pid
trace *0x%(tick)x if $current_task_pid == %(pid)d
actions
collect $current_task_pid
collect *(char (*)[8])%(addr)d
collect $ustack
end
trace *0x%(tick)x if $current_task_pid == %(pid)d && *(char *)%(addr)d == 'G'
tstart
%(workload)s
tstop
tstatus
tfind start
python
import gdb
while int(gdb.parse_and_eval("$trace_frame")) != -1:
    try:
        got = bytes(gdb.selected_inferior().read_memory(%(addr)d, 8)).hex()
    except gdb.error:   # "Memory at address ... unavailable."
        got = "unavailable"
    print("tick %%s pid %%s memory %%s ustack %%s" %% (
        gdb.parse_and_eval("$tracepoint"), gdb.parse_and_eval("$current_task_pid"),
        got, gdb.parse_and_eval("$ustack")))
    gdb.execute("tfind", to_string=True)
end
info tracepoints
"""


@leaves_target_clean
def test_interrupt_reads_no_user_memory():
    with Actors() as a:
        pid = a.start("gtp-umem-spin", SPINNER % {"addr": UADDR})
        reset_target()
        out = gdb_script(GDB_HEAD + IRQ_BODY % {
            "pid": pid, "addr": UADDR, "workload": a.shell(1),
            "tick": ksym("update_process_times")}, timeout=300)
    expect_not(out, SCRIPT_BUGS + r"|Error")
    ticks = re.findall(r"^tick (\d+) pid (\d+) memory (\S+) ustack (\S+)$", out, re.M)
    # the tick interrupted the actor (else this proves nothing) ...
    assert ticks, out
    # ... and read none of its memory: not collected, no stack, and the
    # condition that reads it never held
    assert all(t == ("1", str(pid), "unavailable", "0") for t in ticks), out
