"""Kernel symbols with no debug info at all (docs/kernel-symbols.md): gtp-connect,
gtp-kernel-symbols.  No vmlinux, no .ko with DWARF for the kernel's code:
names from /proc/kallsyms, types and arguments from /sys/kernel/btf.

Expected values come from the guest: the reads this test makes, the file
it creates, and the BTF read here by a parser of the tests' own
(tests/e2e/btflib.py), never by gdb-scripts/gtpgdb/btf.py.  So these tests
stay Python (docs/testing.md "What stays Python"); test_connect, which
expects fixed lines, is a case in tests/e2e/cases/test_btf.case.
"""
import os
import re

from btflib import GTP_HEAD, BAD, Btf, session, vmlinux_btf
import gtplib
from gtplib import GTP_PY, expect, expect_not, gdb_script, ksym, \
    leaves_target_clean, reset_target, sh

GDBPY = gtplib.GDBPY


@leaves_target_clean
def test_trace_vfs_read_by_argument():
    """`trace vfs_read if count == 4093`, collecting an argument and a
    field three pointers away, with only BTF and kallsyms.

    Python: the reads come from the test's own file (its name is what the
    frames must show), and the frames are counted against tstatus's."""
    path = "/run/gtp-btf-%d" % os.getpid()
    with open(path, "wb") as f:
        f.write(os.urandom(20000))
    sizes = [4093, 100, 4093, 4092, 4094, 4093, 8192, 4093]
    n = sizes.count(4093)
    # a dentry's short name: d_iname up to 6.x, d_shortname.string in 7.x
    if "d_iname" in vmlinux_btf().fields["dentry"]:
        dname = "file->f_path.dentry->d_iname"
    else:
        dname = "file->f_path.dentry->d_shortname.string"
    try:
        out = session("""source %s/reads.py
source %s/vfs_read_frames.py
trace vfs_read if count == 4093
actions
collect count
collect %s
end
info tracepoints
tstart
python read_sizes(%r, %r)
tstop
tstatus
python print_vfs_read_frames(%r)
""" % (GDBPY, GDBPY, dname, path, sizes, dname))
    finally:
        os.unlink(path)
    addr = ksym("vfs_read")
    m = expect(out, r"Tracepoint 1 at (0x[0-9a-f]+)")
    # the probe is at the function (+4 past endbr64 is the kprobe layer's)
    assert int(m.group(1), 16) == addr, (hex(addr), out)
    frames = re.findall(r"^frame (\d+) count=(-?\d+) name=(.*)$", out, re.M)
    total = int(expect(out, r"^frames=(\d+)$").group(1))
    assert total == len(frames) and total >= n, out
    # the condition held in every frame; any other reader of 4093 bytes
    # at the same time (unlikely) reads another file
    assert all(int(c) == 4093 for _, c, _ in frames), out
    ours = [f for f in frames if f[2] == os.path.basename(path)]
    assert len(ours) == n, (n, out)
    expect(out, r"Collected %d trace frames" % total)


def test_types_from_btf():
    """ptype and sizeof of kernel and module types, against BTF read here.

    Python: the sizes expected are computed from /sys/kernel/btf, and the
    module struct is whichever one a module's split BTF alone has."""
    vm = vmlinux_btf()
    want = vm.structs()
    # a struct only a module's split BTF has
    mod = modstruct = None
    for m in sorted(os.listdir("/sys/kernel/btf")):
        if m == "vmlinux":
            continue
        own = Btf("/sys/kernel/btf/" + m, vm).structs()
        extra = sorted(n for n in own if n not in want and own[n])
        if extra:
            mod, modstruct = m, (extra[0], own[extra[0]])
            break
    body = """ptype struct file
print sizeof(struct task_struct)
print sizeof(struct file)
ptype struct list_head
"""
    if mod:
        body += "print sizeof(struct %s)\n" % modstruct[0]
    out = session(body)
    # 6.1, 6.12: a member; 7.x: `const struct path f_path` in an anonymous
    # union (the type may come from gtptrace.ko's DWARF, loaded by gtp-connect)
    expect(out, r"^\s+(const )?struct path f_path;$")
    expect(out, r"^\$1 = %d$" % want["task_struct"])
    expect(out, r"^\$2 = %d$" % want["file"])
    expect(out, r"^    struct list_head \*next;$")
    if mod:
        print("# module %s: struct %s, %d bytes" % (mod, modstruct[0], modstruct[1]))
        expect(out, r"^\$3 = %d$" % modstruct[1])


@leaves_target_clean
def test_refusals():
    """What gdb cannot be told is said, never a crash.

    Python: the function without BTF is found here, from kallsyms and
    this kernel's BTF."""
    vm = vmlinux_btf()
    funcs = vm.funcs()
    # a kernel function kallsyms has and BTF does not describe
    nobtf = None
    with open("/proc/kallsyms") as f:
        for line in f:
            p = line.split()
            if len(p) == 3 and p[1] in "tT" and p[2] not in funcs and \
                    re.match(r"^[a-z][a-z0-9_]+$", p[2]) and not p[2].startswith("__pfx"):
                nobtf = p[2]
                break
    assert nobtf, "every kallsyms function is in BTF?"
    out = session("""trace no_such_function_gtp
gtp-kernel-symbols info no_such_function_gtp
gtp-kernel-symbols info %s
gtp-kernel-symbols info vfs_read
trace %s
gtp-kernel-symbols bogus
""" % (nobtf, nobtf))
    expect(out, r'^Function "no_such_function_gtp" not defined\.$')
    expect(out, r"^no_such_function_gtp: not a function in /proc/kallsyms")
    expect(out, r"^%s: 0x[0-9a-f]+ in kernel; vmlinux's BTF does not describe it" % nobtf)
    expect(out, r"^vfs_read: 0x%x in kernel, arguments at its entry: struct file \*file "
           r"in rdi, char \*buf in rsi, size_t count in rdx, loff_t \*pos in rcx$"
           % ksym("vfs_read"))
    expect(out, r"^Tracepoint \d+ at 0x[0-9a-f]+: file|^Tracepoint \d+ at 0x[0-9a-f]+$")
    expect(out, r"^usage: gtp-kernel-symbols \[info \[FUNC\]\]$")
    # no BTF: the same code pointed at a directory without vmlinux;
    # gtp-connect says so and connects anyway.  It makes the symbols
    # twice (gtp-kernel-symbols, then gtp-connect), 40 s each in a busy
    # TCG guest: the BTF sessions' 400 s, not gdb_script's 120
    reset_target()
    out = gdb_script(GTP_HEAD + """source %s/no_btf.py
python kernel_symbols_without_btf("/nonexistent")
gtp-connect
tstatus
trace vfs_read
info address vfs_read
""" % GDBPY, timeout=400)
    expect_not(out, BAD)
    expect(out, r"^gtp: warning: gtp-kernel-symbols: /nonexistent/vmlinux is missing: "
           r"this kernel has no BTF \(CONFIG_DEBUG_INFO_BTF\): functions by name only")
    expect(out, r"^gtp: kernel symbols made from BTF and kallsyms into .*: \d+ functions "
           r"\(0 with BTF arguments\), 0 BTF types, 0 modules; .*\(no BTF: functions only\)$")
    expect_not(out, r"^refused")
    expect(out, r"^gtp: connected to /proc/gtp$")
    expect(out, r"^No trace has been run on the target\.$")
    # by name, at its address; no argument names (gtptrace.ko's DWARF, loaded
    # by gtp-connect, may still hold struct file)
    expect(out, r"^Tracepoint 1 at 0x%x$" % ksym("vfs_read"))
    expect(out, r'^Symbol "vfs_read" is at 0x%x in a file compiled without debugging\.$'
           % ksym("vfs_read"))
    # not root: kallsyms shows zeros
    out = sh("setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent "
             "%s -nx -q -batch -ex 'source %s' -ex gtp-kernel-symbols 2>&1 || true"
             % (os.environ.get("GTP_GDB", "gdb"), GTP_PY))
    expect(out, r"gtp-kernel-symbols: /proc/kallsyms shows every address as 0: run gdb as root")


@leaves_target_clean
def test_leftover_gdb_cannot_take():
    """What gdb cannot re-create for a reason other than a variable (here a
    condition naming a symbol this gdb lacks) does not keep gtp-connect
    from connecting: it connects without the target's definitions, says
    what it found and why gdb could not take it, and the user's own
    session then replaces it.

    Python: the target is set up with raw packets, as a gdb with other
    symbols (a vmlinux with DWARF, say) would have left it: no session of
    this guest's gdb writes a source string its own symbols cannot parse."""
    reset_target()
    addr = ksym("gtp_test_function", "gtp_test")

    def source(kind, text):
        return "QTDPsrc:1:%x:%s:0:%x:%s" % (addr, kind, len(text), text.encode().hex())
    replies = gtplib.raw_packets("QTinit", "QTDP:1:%x:E:0:0" % addr,
                                 source("at", "gtp_test_function"),
                                 source("cond", "no_such_symbol_gtp > 1"))
    assert all(r.endswith("$OK#9a") for r in replies), replies
    out = gdb_script(GTP_HEAD + """gtp-connect
info tracepoints
trace gtp_test_function
tstart
tstop
""", timeout=400)
    expect_not(out, BAD)
    expect(out, r"^gtp: connected to /proc/gtp$")
    expect(out, r"^gtp: the target holds what an earlier session left: the trace is "
           r"not started \(its tstart did not complete\), 0 frames, 1 tracepoint$")
    expect(out, r"^gtp:   tracepoint 1 at gtp_test_function if no_such_symbol_gtp > 1$")
    expect(out, r'^gtp: gdb could not take it \(No symbol "no_such_symbol_gtp" in '
           r'current context\.\): this gdb does not know it')
    expect(out, r"^gtp: to discard it: define your tracepoints")
    # nothing half-made is left in gdb: its own tracepoint is the only one
    expect(out, r"^No tracepoints\.$")
    # the next connect finds the user's session, which gdb takes
    out = gdb_script(GTP_HEAD + "gtp-connect\n", timeout=400)
    expect_not(out, BAD)
    expect(out, r"^gtp:   tracepoint \d+ at gtp_test_function$")
    expect_not(out, r"no_such_symbol_gtp|could not take")
    expect(out, r"^gtp: gdb took it: tracepoint 1 \(info tracepoints\)$")
