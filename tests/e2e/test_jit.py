"""The JIT in the guest kernel: the same frames with jit=1 and jit=0.

The Fig. 12 session (and one with a condition using more opcodes) runs
once with the module parameter jit=1 (the default) and once with jit=0;
the frames must be identical and match what the Fig. 11 loop passed.
That the JIT really ran is checked through the read-only parameter
jit_images (JIT images alive): with jit=1 each compiled expression holds
one while its tracepoint exists, with jit=0 none exists (tstart's QTinit
frees older ones).  Which executable memory the JIT uses depends on the
kernel (module/exec_mem.c): jit_mem names it, and a kernel where the JIT
cannot run says so on gdb's console at tstart, never silently.
"""
import re

from gtplib import GTP_PY, gdb_script, expect, expect_not, ksym, param, sh, values
from pagewalk import PageTables

# Not gtplib's GDB_HEAD: connecting before gtp_test's symbols are loaded,
# gdb does not adopt the tracepoint the previous session left on the target.
HEAD = """set pagination off
set confirm off
set width 0
source %s
target remote /proc/gtp
gtp-load-module gtp_test
""" % GTP_PY


def set_jit(on):
    assert param("jit", "1" if on else "0").strip() == ("Y" if on else "N")


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


def both_ways(cond, collect, n, nframes):
    try:
        set_jit(True)
        on = session(cond, collect, n, nframes)
        set_jit(False)
        off = session(cond, collect, n, nframes)
    finally:
        set_jit(True)
    return on, off


def test_jit_default_on():
    assert param("jit").strip() == "Y"


def test_fig12_same_frames_jit_on_off():
    expr = "(2*counter1+3*counter2)"
    on, off = both_ways("2*counter1+3*counter2 > 0", expr, 5, 5)
    # calls (1,0) (2,1) (3,2) (4,3) (5,4)
    assert values(on, expr) == [2, 7, 12, 17, 22], on
    assert values(off, expr) == values(on, expr), off
    # condition + action compiled: two images while tracing with jit=1
    assert areas_during(on) >= 2, on
    assert areas_during(off) == 0, off
    # jit=0 is said at tstart; jit=1 compiles everything and says nothing
    expect_not(on, r"interpreted, not JIT-compiled")
    expect(off, r"gtp: 2 agent expression\(s\) interpreted, not JIT-compiled: "
           r"the module parameter jit is 0")


def test_more_opcodes_same_frames():
    cond = "counter1 % 3 != 0 && (counter2 << 2) / 3 >= 1"
    expr = "(counter1 * counter2 - (counter1 ^ 5))"
    n = 9
    want = [c1 * (c1 - 1) - (c1 ^ 5) for c1 in range(1, n + 1)
            if c1 % 3 != 0 and ((c1 - 1) << 2) // 3 >= 1]
    on, off = both_ways(cond, expr, n, len(want))
    assert values(on, expr) == want, on
    assert values(off, expr) == want, off
    assert areas_during(on) >= 2, on
    assert areas_during(off) == 0, off


def _kernel_version():
    rel = sh("uname -r").strip()
    m = re.match(r"(\d+)\.(\d+)", rel)
    return (int(m.group(1)), int(m.group(2))), rel


def test_jit_memory_of_this_kernel():
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
    """W^X on a live image, as the page tables say (pagewalk.py walks them
    through /proc/kcore, not through gtp): every page of the newest image
    is read-only and executable, and its direct-map alias is not both
    writable and executable.  jit_last_image follows kptr_restrict."""
    set_jit(True)
    out = session("2*counter1+3*counter2 > 0", "counter1", 2, 2)
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
