"""Filter built-ins (module/core/tsv.c): $caller, $cgroup_id, $ns_pid and
$ns_tgid, each collected and in a condition, with the JIT and without.

$caller on gtp_test_function, whose callers are known: "lines A B" calls
it twice from gtp_test_lines(), "N" N times from the write handler
(gtp_test_write(), gtp_test_loop() inlined or not).  It is read at an
ftrace-carried entry (lite and with every register), at a kprobe on the
entry (entry_ftrace=0), at a return probe; 0 mid-function.  The kernel
stack's second entry ($kstack, the unwinder's) is the same address, and
gtp-kstack names it.

$cgroup_id: a child cgroup of a cgroup2 mount, a shell moved into it;
the condition keeps its hits only, and the value is the directory's inode
number.  $ns_pid/$ns_tgid: a writer in a new pid namespace (unshare),
a thread of it for $ns_pid != $ns_tgid.
"""
import os
import re
import subprocess

from gtplib import (GDB_HEAD, TEST_KO, expect_not, frames_collected,
                    gdb_script, ksym, leaves_target_clean, param, past_fentry,
                    reset_target, sh)
from jit_switch import set_jit

BAD = (r"Fatal signal|internal-error|Remote connection closed|Bogus|"
       r"Malformed|Remote failure|Traceback|Python Exception")


def session(body, timeout=300):
    reset_target()
    out = gdb_script(GDB_HEAD + body, timeout=timeout)
    expect_not(out, BAD)
    return out


def fn_size(name):
    """The size of function name in gtp_test.ko (nm -S)."""
    out = subprocess.run(["nm", "-S", TEST_KO], stdout=subprocess.PIPE,
                         check=True).stdout.decode()
    m = re.search(r"^[0-9a-f]+ ([0-9a-f]+) [tT] %s$" % name, out, re.M)
    assert m, out
    return int(m.group(1), 16)


# 1 lite ftrace (arguments only), 2 ftrace-regs ($kstack), 3 a condition
# on $caller's range (gtp_test_lines), 4 a return probe (or, without
# "teval $kret", another entry), 5 mid-function.  A return probe on the
# function puts its trampoline where the entry reads the return address
# (module/probes/kprobe.c, module/probes/ftrace_probe.c: their ->caller), so both ways are run.
CALLER_BODY = """tvariable $caller
tvariable $kstack
tvariable $kret
trace gtp_test_function
actions
collect counter1, $caller
end
trace gtp_test_function
actions
collect $caller, $kstack
end
trace gtp_test_function if $caller >= (long)gtp_test_lines && $caller < (long)gtp_test_lines + %d
actions
collect counter1, $caller
end
trace gtp_test_function
actions
collect counter1, $caller
%s
end
trace *(gtp_test_function + %d)
actions
collect $caller
end
tstart
shell cat /sys/module/gtptrace/parameters/attached
shell echo 'lines 5 6' > /proc/gtp_test
shell echo 1 > /proc/gtp_test
tstop
tstatus
set $i = 0
while $i < 14
  tfind $i
  printf "=f= tp %%d caller 0x%%lx\\n", $tracepoint, $caller
  if $tracepoint != 2 && $tracepoint != 5
    printf "=c= tp %%d c1 %%d\\n", $tracepoint, counter1
  end
  if $caller != 0
    echo =s=
    info symbol $caller
  end
  if $tracepoint == 1 || $tracepoint == 2
    gtp-kstack
  end
  set $i = $i + 1
end
"""


def caller_run(ret):
    """The session's frames: [(tp, caller, symbol, counter1, kstack)], and
    the carriers from `attached`.  @ret: tracepoint 4 is a return probe."""
    out = session(CALLER_BODY % (fn_size("gtp_test_lines"),
                                 "teval $kret = 0" if ret else "", past_fentry()))
    assert frames_collected(out)[-1:] == [14], out
    kinds = {int(n): k for n, k in
             re.findall(r"^(\d+) 0x[0-9a-f]+ (\S+)$", out, re.M)}
    frames = []
    for chunk in re.split(r"^(?==f= )", out, flags=re.M)[1:]:
        m = re.match(r"=f= tp (\d+) caller 0x([0-9a-f]+)$", chunk, re.M)
        sym = re.search(r"^=s= ?(\S+)(?: \+ (\d+))? in section", chunk, re.M)
        c1 = re.search(r"^=c= tp \d+ c1 (-?\d+)$", chunk, re.M)
        kst = re.findall(r"^#(\d+)\s+0x([0-9a-f]+) in (\S+)", chunk, re.M)
        # gtp-kstack names a collected $caller after the stack
        kst += [(None, a, f) for a, f in
                re.findall(r"^caller 0x([0-9a-f]+) in (\S+)", chunk, re.M)]
        frames.append((int(m.group(1)), int(m.group(2), 16),
                       sym.group(1) if sym else None,
                       int(c1.group(1)) if c1 else None,
                       [(int(a, 16), f) for _, a, f in kst]))
    return out, kinds, frames


def check_callers(out, frames):
    """Per tracepoint, the callers its hits name, in order."""
    by_tp = {}
    for tp, caller, sym, c1, kst in frames:
        by_tp.setdefault(tp, []).append((caller, sym, c1))
        if tp == 2:
            # the unwinder's return address into the caller is $caller
            assert kst[0][1] == "gtp_test_function", (kst, out)
            assert kst[1][0] == caller, (kst, hex(caller), out)
        if tp in (1, 2):
            # gtp-kstack names it, after the stack or alone
            assert len(kst) == 1 if tp == 1 else len(kst) > 2, (kst, out)
            assert kst[-1][0] == caller and \
                kst[-1][1] == "%s+%d" % (sym, caller - ksym(sym, "gtp_test")), (kst, out)
    write = r"^gtp_test_(write|loop)$"
    for tp in (1, 2, 4):
        syms = [s for _, s, _ in by_tp[tp]]
        assert syms[:2] == ["gtp_test_lines"] * 2, (tp, syms, out)
        assert re.match(write, syms[2]), (tp, syms, out)
        # two call sites in gtp_test_lines: two return addresses
        assert by_tp[tp][0][0] != by_tp[tp][1][0], (tp, by_tp[tp], out)
    # the same addresses whichever carries the entry, and at the return
    assert [c for c, _, _ in by_tp[1]] == [c for c, _, _ in by_tp[2]] == \
        [c for c, _, _ in by_tp[4]], (by_tp, out)
    # the condition held at gtp_test_lines' two calls only (x = 16, then
    # y = 31: gtp_test_scale(5, 3) + 1 and gtp_test_scale(6, 5) + 1)
    assert [c1 for _, _, c1 in by_tp[3]] == [16, 31], (by_tp[3], out)
    assert [c1 for _, _, c1 in by_tp[1]] == [16, 31, 1], (by_tp[1], out)
    # mid-function: no caller to tell
    assert [c for c, _, _ in by_tp[5]] == [0, 0, 0], (by_tp[5], out)


# Python: the callers are compared across carriers and with the kernel's
# unwinder, and the range of the condition is the function's size from nm.
@leaves_target_clean
def test_caller_entry_return_and_condition():
    """$caller at an ftrace entry (lite, regs), a return probe and in a
    condition, JIT and interpreter; then at kprobes (entry_ftrace=0).
    Each names gtp_test_function's caller, as the unwinder does."""
    runs = []
    try:
        for jit, ret in ((True, True), (True, False), (False, False)):
            set_jit(jit)
            out, kinds, frames = caller_run(ret)
            assert kinds == {1: "ftrace", 2: "ftrace-regs", 3: "ftrace",
                             4: "kretprobe" if ret else "ftrace", 5: "kprobe"}, out
            check_callers(out, frames)
            runs.append(frames)
        param("entry_ftrace", "0")
        try:
            out, kinds, frames = caller_run(True)
        finally:
            param("entry_ftrace", "1")
        assert kinds == {1: "kprobe", 2: "kprobe", 3: "kprobe",
                         4: "kretprobe", 5: "kprobe"}, out
        check_callers(out, frames)
        runs.append(frames)
    finally:
        set_jit(True)
    # the return addresses are the module's: each tracepoint's the same in
    # every run (the order of frames of one call is the carriers')
    callers = [sorted((tp, c) for tp, c, _, _, _ in r) for r in runs]
    assert callers[0] == callers[1] == callers[2] == callers[3], callers


CG_BODY = """tvariable $cgroup_id
trace gtp_test_function if $cgroup_id == %d
actions
collect counter1, $cgroup_id
end
trace gtp_test_function
actions
collect counter1, $cgroup_id
end
tstart
shell echo 2 > /proc/gtp_test
shell sh -c 'echo $$ > %s/cgroup.procs && echo 3 > /proc/gtp_test'
shell echo 2 > /proc/gtp_test
tstop
tstatus
set $i = 0
while $i < 10
  tfind $i
  printf "=f= tp %%d c1 %%d cg %%lu\\n", $tracepoint, counter1, $cgroup_id
  set $i = $i + 1
end
"""


def cgroup2_root():
    """A cgroup2 mount: the guest's, or one made under /run."""
    with open("/proc/mounts") as f:
        for line in f:
            dev, where, fstype = line.split()[:3]
            if fstype == "cgroup2":
                return where, False
    where = "/run/gtp-cgroup2-%d" % os.getpid()
    os.makedirs(where)
    sh("mount -t cgroup2 none %s" % where)
    return where, True


@leaves_target_clean
def test_cgroup_id_filters_a_container():
    """$cgroup_id == a child cgroup's inode number keeps the hits of the
    shell moved into it; the value is that number."""
    root, mounted = cgroup2_root()
    cg = os.path.join(root, "gtp-test-%d" % os.getpid())
    os.mkdir(cg)
    try:
        ino = os.stat(cg).st_ino
        with open(os.path.join(root, "cgroup.procs")) as f:
            assert str(os.getpid()) in f.read().split()   # we stay outside
        root_ino = os.stat(root).st_ino
        results = []
        for jit in (True, False):
            set_jit(jit)
            out = session(CG_BODY % (ino, cg))
            assert frames_collected(out)[-1:] == [10], out
            results.append(re.findall(r"^=f= tp (\d+) c1 (\d+) cg (\d+)$", out, re.M))
        set_jit(True)
        for got in results:
            inside = [(int(c1), int(v)) for tp, c1, v in got if tp == "1"]
            every = [(int(c1), int(v)) for tp, c1, v in got if tp == "2"]
            assert inside == [(1, ino), (2, ino), (3, ino)], got
            assert every == [(1, root_ino), (2, root_ino), (1, ino), (2, ino),
                             (3, ino), (1, root_ino), (2, root_ino)], got
    finally:
        set_jit(True)
        os.rmdir(cg)      # its shell has exited
        if mounted:
            sh("umount %s" % root)
            os.rmdir(root)


NS_BODY = """tvariable $ns_pid
tvariable $ns_tgid
tvariable $current_task_pid
trace gtp_test_function if $ns_pid != $current_task_pid
actions
collect counter1, $ns_pid, $ns_tgid, $current_task_pid
end
trace gtp_test_function if $ns_pid == $current_task_pid
actions
collect counter1, $ns_pid, $ns_tgid, $current_task_pid
end
tstart
shell unshare --pid --fork python3 %s > %s
shell echo 1 > /proc/gtp_test
tstop
tstatus
set $i = 0
while $i < 6
  tfind $i
  printf "=f= tp %%d c1 %%d ns %%d %%d pid %%d\\n", $tracepoint, counter1, $ns_pid, $ns_tgid, $current_task_pid
  set $i = $i + 1
end
"""

# Run in the namespace (as its pid 1): the main thread makes 2 calls, a
# thread of it 3; each prints what it is there (getpid(), gettid()).
NS_WRITER = """import os, threading


def w(n):
    with open("/proc/gtp_test", "w") as f:
        f.write(n)
    print(n, os.getpid(), threading.get_native_id(), flush=True)


w("2")
t = threading.Thread(target=w, args=("3",))
t.start()
t.join()
"""


# Python: the expected values are what the writer printed in the namespace.
@leaves_target_clean
def test_ns_pid_in_a_pid_namespace():
    """$ns_pid/$ns_tgid are what gettid()/getpid() say inside a new pid
    namespace, while $current_task_pid is the global pid; outside all
    three are the same."""
    log = "/run/gtp-ns-%d.out" % os.getpid()
    script = "/run/gtp-ns-%d.py" % os.getpid()
    with open(script, "w") as f:
        f.write(NS_WRITER)
    try:
        for jit in (True, False):
            set_jit(jit)
            out = session(NS_BODY % (script, log))
            assert frames_collected(out)[-1:] == [6], out
            with open(log) as f:
                said = {n: (int(p), int(t)) for n, p, t in
                        (line.split() for line in f)}
            assert said["2"] == (1, 1), said
            assert said["3"][0] == 1 and said["3"][1] > 1, said
            got = [tuple(int(x) for x in t) for t in re.findall(
                r"^=f= tp (\d+) c1 (\d+) ns (\d+) (\d+) pid (\d+)$", out, re.M)]
            inside = [g[1:] for g in got if g[0] == 1]
            outside = [g[1:] for g in got if g[0] == 2]
            # (counter1, $ns_pid, $ns_tgid): the main thread's 2 calls,
            # then the thread's 3 with its own pid in the namespace
            assert [g[:3] for g in inside] == \
                [(1, 1, 1), (2, 1, 1)] + [(k, said["3"][1], 1) for k in (1, 2, 3)], got
            # the global pids: two tasks, neither the namespace's numbers
            assert len({g[3] for g in inside[:2]}) == 1, got
            assert len({g[3] for g in inside}) == 2, got
            assert all(g[3] not in (1, said["3"][1]) for g in inside), got
            assert len(outside) == 1 and outside[0][1] == outside[0][2] == \
                outside[0][3], got
    finally:
        set_jit(True)
        for p in (log, script):
            if os.path.exists(p):
                os.unlink(p)
