"""The JIT in the guest kernel: what stays Python of it.

The same frames with jit=1 and jit=0 (the Fig. 12 session and one with
more opcodes) are cases: cases/test_jit.case.  Here: jit is on by
default; which executable memory the JIT uses depends on the kernel
(module/services/exec_mem.c): jit_mem names it, and a kernel where the JIT cannot
run says so on gdb's console at tstart, never silently; a live image
is never writable and executable, as the page tables say; and a probe's
own image counts toward the cap on images as a program's does.
"""
import re

from gtplib import (gdb_script, expect_not, ksym, leaves_target_clean, param,
                    reset_target, sh)
from rspconn import Conn
from jit_switch import HEAD, set_jit
from pagewalk import PageTables


def session(cond, collect, n, nframes):
    body = """trace gtp_test_function if %s
actions
collect %s
end
tstart
shell echo %d > /proc/gtp_test
shell cat /sys/module/gtptrace/parameters/jit_images
tstop
""" % (cond, collect, n)
    body += "".join("tfind %d\ntdump\n" % i for i in range(nframes))
    body += "tfind none\n"
    out = gdb_script(HEAD + body, timeout=240)
    expect_not(out, r"Fatal signal|internal-error|Remote connection closed")
    return out


def areas_during(out):
    """How many JIT images existed while the session traced."""
    m = re.search(r"^(\d+)$", out, re.M)
    assert m, out
    return int(m.group(1))


def test_jit_default_on():
    """Python: reads a module parameter, no gdb session to make a case of."""
    assert param("jit").strip() == "Y"


def _kernel_version():
    rel = sh("uname -r").strip()
    m = re.match(r"(\d+)\.(\d+)", rel)
    return (int(m.group(1)), int(m.group(2))), rel


def test_jit_memory_of_this_kernel():
    """Python: the expected jit_mem is computed from the kernel's version."""
    # module_alloc() until 6.9, execmem from 6.10, and the ROX cache
    # (text_poke-written, never writable) where the kernel has one for
    # module text: x86 since 6.13 (Debian's 7.x).
    ver, rel = _kernel_version()
    mem = param("jit_mem").strip()
    if ver < (6, 10):
        want = "module_alloc"
    elif ver < (6, 13):
        want = "execmem"
    else:
        want = "execmem-rox"
    assert mem == want, "kernel %s: jit_mem is %r, expected %r" % (rel, mem, want)


def test_jit_image_never_writable_and_executable():
    """Python: walks the page tables (pagewalk.py) at the image's address.

    W^X on a live image, as the page tables say (pagewalk.py walks them
    through /proc/kcore, not through gtp): every page of the newest image
    is read-only and executable, and its direct-map alias is not both
    writable and executable.  jit_last_image follows kptr_restrict.
    The entry goes through the shared ftrace_ops (entry_direct=0): the
    image of a trampoline of its own goes at tstop, and the one walked
    here must outlive the session."""
    set_jit(True)
    param("entry_direct", "0")
    try:
        out = session("2*counter1+3*counter2 > 0", "counter1", 2, 2)
    finally:
        param("entry_direct", "1")
    assert areas_during(out) >= 1, out
    # the session's images live until the next QTinit
    addr, size = (int(v, 0) for v in param("jit_last_image").split())
    assert addr and size and size % 4096 == 0, (hex(addr), size)
    pt = PageTables()
    try:
        # the walker sees what the kernel set: text RO+X, data RW+NX
        assert pt.attrs(ksym("_stext"))[:2] == (False, True)
        assert pt.attrs(ksym("jiffies_64"))[:2] == (True, False)
        for page in range(addr, addr + size, 4096):
            a = pt.attrs(page)
            assert a is not None, "image page 0x%x not mapped" % page
            w, x, phys = a
            assert not w and x, "image page 0x%x: writable=%s executable=%s" % (page, w, x)
            alias = pt.attrs(pt.direct_alias(phys))
            assert alias is None or not (alias[0] and alias[1]), \
                "direct-map alias of 0x%x is writable and executable" % page
    finally:
        pt.close()
    with open("/proc/sys/kernel/kptr_restrict") as f:
        saved = f.read().strip()
    try:
        sh("echo 2 > /proc/sys/kernel/kptr_restrict")
        assert param("jit_last_image").strip() == "0x0 0"
        sh("echo 1 > /proc/sys/kernel/kptr_restrict")   # root has CAP_SYSLOG
        assert int(param("jit_last_image").split()[0], 0) == addr
    finally:
        sh("echo %s > /proc/sys/kernel/kptr_restrict" % saved)


# tracepoint.h GTP_JIT_IMAGES_MAX
JIT_IMAGES_MAX = 1024
# "$rdi" (reg 5; end) and "$rsi" (reg 4; end): decided on the registers
# alone, so each backend below compiles it as a probe of its own
COND_RDI = "X4,26000527"
COND_RSI = "X4,26000427"


def _arm_three(c, nactions):
    """Tracepoints 1 (mid-function: a kprobe), 2 (gtp_test_function's
    entry: a trampoline of its own) and 3 (the gtp_test_event marker: a
    static tracepoint), with @nactions actions "1" (one image each) on
    1; started.  The kinds `attached` says, and jit_images while armed."""
    m = re.search(r"mid=(0x[0-9a-f]+)", sh("cat /proc/gtp_test"))
    assert m and int(m.group(1), 16), "gtp_test has no mid-function address"
    mid = int(m.group(1), 16)
    fn = ksym("gtp_test_function", "gtp_test")
    marker = ksym("__traceiter_gtp_test_event", "gtp_test")
    pkts = ["QTinit",
            "QTDP:1:%x:E:0:0:%s" % (mid, COND_RDI),
            "QTDP:2:%x:E:0:0:%s" % (fn, COND_RDI),
            "QTDP:3:%x:E:0:0:S:%s" % (marker, COND_RSI)]
    for i in range(0, nactions, 64):
        n = min(64, nactions - i)
        more = "-" if i + n < nactions else ""
        pkts.append("QTDP:-1:%x:%s%s" % (mid, "X3,220127" * n, more))
    for p in pkts:
        r, console = c.send(p)
        assert r == "OK", (p[:60], r, console)
    r, console = c.send("QTStart")
    assert r == "OK", (r, console)
    kinds = re.findall(r"^(\d+) 0x[0-9a-f]+ (\S+)$", param("attached"), re.M)
    return sorted(kinds), int(param("jit_images"))


# Python: speaks the protocol itself (1021 actions, more than gdb's lists
# hold, at addresses from /proc/kallsyms) and reads module parameters.
@leaves_target_clean
def test_probe_images_count_toward_the_cap():
    """A kprobe's compiled pre-handler (kprobe-jit), a function's own
    trampoline (direct) and a static tracepoint's compiled probe
    (static-jit) each take an image of executable memory, as a program
    does: they count toward GTP_JIT_IMAGES_MAX.  With room, the three
    tracepoints get them: six images, three programs and three probes.
    With the definitions holding all 1024 images (three conditions and
    1021 actions), none may: each takes its generic handler.  Before,
    probes were not counted and compiled past the cap (1027 images)."""
    assert param("jit").strip() == "Y"
    reset_target()
    c = Conn()
    try:
        kinds, images = _arm_three(c, 0)
        assert kinds == [("1", "kprobe-jit"), ("2", "direct"),
                         ("3", "static-jit")], kinds
        assert images == 6, images
        assert c.send("QTStop")[0] == "OK"

        kinds, images = _arm_three(c, JIT_IMAGES_MAX - 3)
        assert kinds == [("1", "kprobe"), ("2", "ftrace"),
                         ("3", "static")], (kinds, images)
        assert images == JIT_IMAGES_MAX, images
        # the generic handlers trace: calls (1,0) (2,1) (3,2), all true
        # for 1 and 2; tracepoint 3's $rsi is counter1
        sh("echo 3 > /proc/gtp_test")
        r, _ = c.send("QTStop")
        assert r == "OK", r
        r, _ = c.send("qTStatus")
        m = re.search(r";tframes:([0-9a-f]+);", r)
        assert m and int(m.group(1), 16) == 9, r
    finally:
        c.close()
