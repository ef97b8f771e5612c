"""Record once, replay on another load (docs/production.md): gtp-ctl save-session
writes what gdb defined with every kernel address as symbol+offset,
gtp-ctl start binds it again through /proc/kallsyms, save writes the
frames as a trace file stock gdb opens, dump prints them.  The two-boot
replay (another KASLR slide) is tests/vm/replay-check; here: one boot,
the module reloaded at another address, and every refusal.  Expected
values are what the Fig. 11 loop passes (call k: counter1 = k, counter2 =
k - 1, gtp_test_calls counts calls since the module was loaded).

The tests here stay Python: the session file is edited from what gtp-ctl
recorded, modules are reloaded until an address moves, and times and
addresses are checked as relations (docs/testing.md "What stays Python").
"""
import os
import re
import time

from gtplib import (CTL_PRE, FIG12, MOD_GLOBAL, ctl, ctl_session, dumped_memory, expect,
                    expect_not, gdb_script, ksym, leaves_target_clean, reset_target, sh,
                    values)

SESSION = "/tmp/gtp_session.gtps"
def save_session(body):
    """Define body with gdb (it starts and stops a trace), save-session."""
    reset_target()
    ctl_session(body + "detach\n")
    rc, so, se = ctl("save-session", SESSION)
    assert rc == 0, (so, se)
    with open(SESSION) as f:
        return f.read()


def tfile_values(tf, n):
    """gdb (no live target) opens the trace file gtp-ctl wrote."""
    out = gdb_script(CTL_PRE + "target tfile %s\ntstatus\ninfo tracepoints\n" % tf +
                     "".join("tfind %d\ntdump\n" % i for i in range(n)), timeout=300)
    expect_not(out, r"Fatal signal|internal-error|Traceback")
    return out


@leaves_target_clean
def test_session_replays_fig12():
    """Python: the file must name this kernel (uname's release), and
    the dump's times lie within the run as timed here."""
    text = save_session(FIG12 % "> 0")
    # a file to read: the location by name, the kernel it belongs to
    expect(text, r"^kernel %s build-id [0-9a-f]{40}$" % re.escape(os.uname().release))
    expect(text, r"^module gtp_test build-id [0-9a-f]+$")
    expect(text, r"^tracepoint 1 at gtp_test:gtp_test_function\+0x0 enabled step 0 pass 0$")
    expect(text, r"^  source cond 0 2\*counter1\+3\*counter2 > 0$")
    expect_not(text, r"0xffff")
    rc, so, se = ctl("start", SESSION)
    assert rc == 1 and "holds 5 frames" in se and "--discard" in se, (rc, so, se)
    t0 = time.monotonic()
    rc, so, se = ctl("start", "--discard", SESSION)
    assert rc == 0, (so, se)
    rc, so, se = ctl("status")
    expect(so, r"^trace: running$")
    expect(so, r"^disconnected tracing: on$")
    sh("echo 3 > /proc/gtp_test")
    assert ctl("stop")[0] == 0
    elapsed = time.monotonic() - t0
    tf = "/tmp/gtp_replay.tf"
    rc, so, se = ctl("save", tf)
    assert rc == 0, (so, se)
    out = tfile_values(tf, 3)
    expect(out, r"Collected 3 trace frames")
    expect(out, r"trace only if 2\*counter1\+3\*counter2 > 0")
    assert values(out, "(2*counter1+3*counter2)") == [2, 7, 12], out
    rc, so, se = ctl("dump")
    assert rc == 0, se
    frames = re.findall(r"^frame (\d+): tracepoint 1 \(gtp_test_function\), "
                        r"cpu ([01]), \+(\d+\.\d{9}) s$", so, re.M)
    assert [f[0] for f in frames] == ["0", "1", "2"], so
    # the time since the run started: in order, within the run
    times = [float(f[2]) for f in frames]
    assert 0 < times[0] <= times[1] <= times[2] < elapsed, (times, elapsed, so)
    # calls (1,0) (2,1) (3,2): the first two argument registers
    regs = re.findall(r"rsi 0x([0-9a-f]+)  rdi 0x([0-9a-f]+)", so)
    assert [(int(d, 16), int(s, 16)) for s, d in regs] == [(1, 0), (2, 1), (3, 2)], so


def _spacers():
    """Debian modules without dependencies, to occupy the space gtp_test
    leaves (the allocator hands the same address back otherwise)."""
    base = "%s/lib/modules/%s/kernel" % (os.environ.get("GTP_KROOT", ""), os.uname().release)
    for rel in ("lib/crc7.ko", "drivers/net/dummy.ko", "lib/crc-itu-t.ko"):
        for ext in ("", ".xz", ".zst"):
            if os.path.exists(base + "/" + rel + ext):
                yield base + "/" + rel + ext
                break


def _reload_gtp_test(old):
    """Reload gtp_test, with spacers loaded in between, until
    gtp_test_calls is somewhere else; the spacers go again."""
    ko = os.path.join(os.environ["GTP_KMOD_DIR"], "tracepoints", "gtp_test.ko")
    loaded = []
    try:
        for spacer in _spacers():
            sh("rmmod gtp_test && insmod %s" % spacer)
            loaded.append(os.path.basename(spacer).split(".")[0].replace("-", "_"))
            sh("insmod %s" % ko)
            new = ksym("gtp_test_calls", "gtp_test")
            if new != old:
                return new
        raise AssertionError("gtp_test came back at 0x%x (spacers: %s)" % (old, loaded))
    finally:
        for m in loaded:
            sh("rmmod %s" % m)


@leaves_target_clean
def test_module_global_after_reload():
    """Python: gtp_test is reloaded (spacer modules between) until its
    global moves; the dump must read the new address."""
    text = save_session(MOD_GLOBAL)
    # gdb encodes the address as const32 + ext 32, and an absolute range
    expect(text, r"^  cond X[0-9a-f]+,24\{32:gtp_test:gtp_test_calls\+0x0\}1620")
    expect(text, r"^  action M-1,\{gtp_test:gtp_test_calls\+0x0\},4$")
    old = ksym("gtp_test_calls", "gtp_test")
    reset_target()
    new = _reload_gtp_test(old)
    rc, so, se = ctl("start", SESSION)
    assert rc == 0, (so, se)
    # gtp_test_calls is 0 after the load: calls see 0..5, > 3 for two
    sh("echo 6 > /proc/gtp_test")
    assert ctl("stop")[0] == 0
    rc, so, se = ctl("dump")
    assert rc == 0, se
    got = dumped_memory(so, "gtp_test_calls", 4)
    assert got == [("%x" % new, "4"), ("%x" % new, "5")], (hex(old), hex(new), so)


def _edited(text, *subs, path="/tmp/gtp_edited.gtps"):
    """text with each (regex, replacement) of subs applied, in a file."""
    for old, new in zip(subs[::2], subs[1::2]):
        assert re.search(old, text, re.M), (old, text)
        text = re.sub(old, new, text, flags=re.M)
    with open(path, "w") as f:
        f.write(text)
    return path


def _refused(path, why, state=r"^trace: stopped$(.|\n)*^tracepoint 1 at "):
    rc, so, se = ctl("start", "--discard", path)
    assert rc == 1 and re.search(why, se), (rc, so, se)
    # nothing half-started: by default, refused before the target was
    # touched, so it still holds the earlier run
    expect(ctl("status")[1], state)


@leaves_target_clean
def test_start_refusals():
    """Python: each refused file is the recorded one with a field edited."""
    text = save_session(MOD_GLOBAL)
    _refused(_edited(text, r"^kernel \S+", "kernel 5.10.0-99-amd64"),
             r"session is for kernel 5\.10\.0-99-amd64; this is ")
    _refused(_edited(text, r"build-id [0-9a-f]{8}", "build-id 00000000"),
             r"another build")
    _refused(_edited(text, r"gtp_test:gtp_test_calls\+", "gtp_test:gtp_test_callz+"),
             r"tracepoint 1: symbol gtp_test:gtp_test_callz is not in /proc/kallsyms")
    _refused(_edited(text, r"^module gtp_test", "module gtp_nosuch"),
             r"module gtp_nosuch is not loaded")
    # a heap address recorded on another boot cannot be relocated
    _refused(_edited(text, r"\{gtp_test:gtp_test_calls\+0x0\}", "{=0xffff888001234000}",
                     r"^boot \S+", "boot 00000000-0000-0000-0000-000000000000"),
             r"tracepoint 1: constant 0xffff888001234000 has no symbol")
    _refused(_edited(text, r"^end$", ""), r"not a whole gtp session")
    # the target refuses a location in data: QTinit again, nothing runs
    _refused(_edited(text, r"^tracepoint 1 at \S+", "tracepoint 1 at linux_banner+0x0"),
             r"the target refused QTStart .*not in probe-able kernel text.*nothing was started",
             r"^trace: not run yet\n(.|\n)*^no tracepoints defined$")
    _refused("/nonexistent/s.gtps", r"cannot read /nonexistent/s.gtps",
             r"^trace: not run yet$")
    # a running trace is never replaced
    assert ctl("start", SESSION)[0] == 0
    rc, so, se = ctl("start", SESSION)
    assert rc == 1 and "a trace is running" in se, (rc, so, se)
    expect(ctl("status")[1], r"^trace: running$")
