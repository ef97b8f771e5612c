#!/usr/bin/env python3
"""gtp-ctl start against hostile and broken session files, on the host.

`gtp-ctl start FILE` runs as root and writes what FILE says into the
kernel, and the file comes from another machine.  Each malformed or
malicious file here must be refused with FILE:LINE and what is wrong
before gtp-ctl opens the target: the target is a recording fake, and a
refusal that comes after its first packet (even QStartNoAckMode) fails.
The boot gtp-ctl sees is a fake too: a kallsyms file written here, and
the build ids and boot id this file says.  Expected packets are spelled
out from those addresses, not taken from the code under test.

A real /proc/gtp answers the same files in tests/e2e/test_ctl_session_file.py.
Prints TAP (tests/lib/tap.py).
"""
import contextlib
import io
import os
import pty
import random
import re
import sys
import tempfile
import threading
import tty

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "gdb-scripts"))
sys.path.insert(0, os.path.join(REPO, "tests", "lib"))
import tap  # noqa: E402
from gtpctl import fleet_host, ksyms, main, remote  # noqa: E402
from gtpctl.trace import TraceError  # noqa: E402

RELEASE = "6.1.0-99-amd64"
KBID = "8f0e" * 10
MBID = "41aa" * 10
BOOT = "5b1c2d3e-0000-4000-8000-00000000cafe"
OTHER_BOOT = "11111111-2222-4333-8444-555555555555"
KALLSYMS = """\
0000000000000000 A fixed_percpu_data
ffffffff81000000 T _text
ffffffff81200000 T vfs_read
ffffffff81200400 T vfs_write
ffffffff81300000 t helper
ffffffff81300100 t helper
ffffffff82000000 D linux_banner
ffffffffc0a3e000 t gtp_test_function\t[gtp_test]
ffffffffc0a3e200 t gtp_test_write\t[gtp_test]
ffffffffc0a40000 b gtp_test_calls\t[gtp_test]
ffffffffc0a40004 b gtp_test_more\t[gtp_test]
"""
FUNC, CALLS = 0xffffffffc0a3e000, 0xffffffffc0a40000

# what save-session writes for gdb's `trace gtp_test_function if
# gtp_test_calls > 3`, `collect gtp_test_calls`, and a tsv
GOOD = """\
# gtp session (gtp-ctl save-session); replay: gtp-ctl start FILE
gtp-session 1
kernel %s build-id %s
boot %s
module gtp_test build-id %s
buffer size 0x100000 circular 0
disconnected 0
tsv 1 initial -5 builtin 0 name hits
tracepoint 1 at gtp_test:gtp_test_function+0x0 enabled step 0 pass 0
  cond Xf,24{32:gtp_test:gtp_test_calls+0x0}162019162022032b1427
  action M-1,{gtp_test:gtp_test_calls+0x0},4
  action R1ff
  source at 0 gtp_test_function
  source cond 0 gtp_test_calls > 3
  source cmd 0 collect gtp_test_calls
tracepoint 2 at vfs_read+0x4 disabled step 0 pass 3
end
""" % (RELEASE, KBID, BOOT, MBID)


class FakeTarget:
    """Stands in for remote.Remote: records every connection and packet."""
    log = []
    status = "T0;tnotrun:0;tframes:0"

    def __init__(self, path, timeout=None):
        FakeTarget.log.append("open " + path)
        self.path, self.console = path, []

    def send(self, pkt):
        FakeTarget.log.append(pkt)
        return self.status if pkt == "qTStatus" else "OK"

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass


class FakeUname:
    release = RELEASE


def fake_boot(modules=None, kbid=KBID, boot=BOOT):
    """This process sees the fake boot (restored by the next call)."""
    d = tempfile.mkdtemp(prefix="gtp-ctl-units.")
    path = os.path.join(d, "kallsyms")
    with open(path, "w") as f:
        f.write(KALLSYMS)
    real = ksyms.Kallsyms.__init__
    ksyms.Kallsyms = type("FakeKallsyms", (REAL_KALLSYMS,), {
        "__init__": lambda self, p=None: real(self, path)})
    ksyms.kernel_build_id = lambda: kbid
    mods = {"gtp_test": MBID} if modules is None else modules
    ksyms.module_build_id = lambda m: mods.get(m)
    ksyms.boot_id = lambda: boot
    os.uname = lambda: FakeUname
    remote.Remote = FakeTarget
    FakeTarget.log = []
    FakeTarget.status = "T0;tnotrun:0;tframes:0"


REAL_KALLSYMS = ksyms.Kallsyms


def start(text, *opts, name="s.gtps"):
    """gtp-ctl start on text as a file: (exit status, stderr, stdout)."""
    d = tempfile.mkdtemp(prefix="gtp-ctl-units.")
    path = os.path.join(d, name)
    with open(path, "wb") as f:
        f.write(text if isinstance(text, bytes) else text.encode())
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        rc = main.main(["start"] + list(opts) + [path])
    return rc, err.getvalue().replace(path, "FILE"), out.getvalue()


def edited(*subs):
    text = GOOD
    for old, new in zip(subs[::2], subs[1::2]):
        assert re.search(old, text, re.M), old
        text = re.sub(old, new, text, count=1, flags=re.M)
    return text


def refused(text, why):
    """start refuses text with a message matching why, before any packet."""
    fake_boot()
    rc, err, out = start(text)
    assert rc == 1, (rc, err, out, FakeTarget.log)
    assert re.search(why, err), (why, err)
    assert FakeTarget.log == [], ("packets before the refusal", FakeTarget.log)


def line_of(text, needle):
    return text.splitlines().index(next(l for l in text.splitlines() if needle in l)) + 1


# -- the good file -------------------------------------------------------

def test_good_session_sends_exactly_its_definitions():
    fake_boot()
    rc, err, out = start(GOOD)
    assert rc == 0, err
    cond = "Xf,24%08x162019162022032b1427" % (CALLS & 0xffffffff)
    hexs = lambda t: t.encode().hex()  # noqa: E731
    assert FakeTarget.log == [
        "open /proc/gtp",
        "qTStatus", "QTinit",
        "QTDP:1:%x:E:0:0:%s-" % (FUNC, cond),
        "QTDP:-1:%x:M-1,%x,4-" % (FUNC, CALLS),
        "QTDP:-1:%x:R1ff" % FUNC,
        "QTDPsrc:1:%x:at:0:11:%s" % (FUNC, hexs("gtp_test_function")),
        "QTDPsrc:1:%x:cond:0:12:%s" % (FUNC, hexs("gtp_test_calls > 3")),
        "QTDPsrc:1:%x:cmd:0:16:%s" % (FUNC, hexs("collect gtp_test_calls")),
        "QTDP:2:ffffffff81200004:D:0:3",
        "QTDV:1:fffffffffffffffb:0:%s" % hexs("hits"),
        "QTBuffer:size:100000", "QTBuffer:circular:0",
        "QTDisconnected:1", "QTStart"], FakeTarget.log
    assert "started 2 tracepoint(s)" in out, out


def test_fleet_host_arms_then_starts():
    """gtp-ctl fleet's host end downloads the session before any host
    starts (cmd_session.arm) and starts with QTStart alone (go): the very
    packets of gtp-ctl start, cut before QTStart; a refusal is one line."""
    fake_boot()
    rc, err, out = start(GOOD)
    assert rc == 0, err
    whole = list(FakeTarget.log)
    fake_boot()
    d = tempfile.mkdtemp(prefix="gtp-ctl-units.")
    path = os.path.join(d, "s.gtps")
    with open(path, "w") as f:
        f.write(GOOD)
    agent = fleet_host.Agent(None, None)
    assert agent.trace_arm(path, False) is None
    assert FakeTarget.log == whole[:-1] and whole[-1] == "QTStart", FakeTarget.log
    assert agent.trace_go() is None
    assert FakeTarget.log == whole, FakeTarget.log
    fake_boot()
    FakeTarget.status = "T0;tnotrun:0;tframes:5"
    why = agent.trace_arm(path, False)
    assert why == ("gtp-ctl start: /proc/gtp holds 5 frames of the last trace; save them "
                   "first (gtp-ctl save OUT.tf) or give --discard"), why
    assert agent.trace_arm(path, True) is None


def test_source_text_with_framing_characters_travels_hex_encoded():
    """A source string is text for gdb's eyes; QTDPsrc carries it as hex,
    so '$', '#', '}' and '*' in it are harmless and kept."""
    fake_boot()
    text = edited(r"^  source cmd 0 .*$", "  source cmd 0 collect *(int *)$rsp#00$QTinit}")
    rc, err, out = start(text)
    assert rc == 0, err
    src = [p for p in FakeTarget.log if p.startswith("QTDPsrc:1:%x:cmd:" % FUNC)]
    assert src == ["QTDPsrc:1:%x:cmd:0:1f:%s" % (
        FUNC, b"collect *(int *)$rsp#00$QTinit}".hex())], FakeTarget.log
    assert "QTinit" in FakeTarget.log and FakeTarget.log.count("QTinit") == 1


def test_gdb_spelling_of_lengths_accepted():
    """gdb writes an X length as 8 hex digits (kept: gtp-ctl's trace reader
    expects them back from the target), and hex in either case."""
    fake_boot()
    rc, err, out = start(edited(r"^  cond Xf,", "  cond X0000000F,", r"^  action R1ff$",
                                "  action X00000002,2227M6,FFFFFFFFFFFFFFF8,8"))
    assert rc == 0, err
    assert "QTDP:1:%x:E:0:0:X0000000F,24%08x162019162022032b1427-" % (
        FUNC, CALLS & 0xffffffff) in FakeTarget.log, FakeTarget.log
    assert "QTDP:-1:%x:X00000002,2227M6,fffffffffffffff8,8" % FUNC in FakeTarget.log, \
        FakeTarget.log


def test_same_boot_address_binds():
    fake_boot()
    rc, err, out = start(edited(r"\{gtp_test:gtp_test_calls\+0x0\},4", "{=0xffff888001234000},4"))
    assert rc == 0, err
    assert "QTDP:-1:%x:M-1,ffff888001234000,4-" % FUNC in FakeTarget.log, FakeTarget.log


# -- injection -------------------------------------------------------------

def test_condition_injection_refused():
    """The finding: a '#' ends the QTDP early (the kernel drops it: gtp-ctl
    waited forever, after QTinit had cleared the target)."""
    text = edited(r"^  cond .*$", "  cond X2,2027#00$QTBuffer:size:40000000")
    refused(text, r"^gtp-ctl start: FILE:%d: '#' at column 8 \('X2,2027#00\$QTBuffer'\): "
            r"'\$', '#' and '\*' frame packets" % line_of(text, "cond X2"))


def test_injection_with_a_matching_checksum_refused():
    """With the checksum of the cut-off QTDP right, the target would take
    both packets: the QTDP, and whatever follows the '$'."""
    head = "QTDP:1:%x:E:0:0:X2,2027" % FUNC
    text = edited(r"^  cond .*$", "  cond X2,2027#%02x$QTBuffer:circular:1"
                  % (sum(head.encode()) & 0xff))
    refused(text, r"FILE:%d: " % line_of(text, "cond X2"))


def test_action_and_variable_injection_refused():
    refused(edited(r"^  action R1ff$", "  action R1ff#00$QTinit"),
            r"FILE:12: '#' at column 5 \('R1ff#00\$QTinit'\)")
    refused(edited(r"name hits$", "name hits#00$QTinit"), r"FILE:8: the variable name")
    refused(edited(r"name hits$", "name hits}"), r"FILE:8: the variable name")
    refused(edited(r"^  action R1ff$", "  action R1ff*"), r"FILE:12: '\*' at column 5")
    refused(edited(r"^  action R1ff$", "  action R1ff}"), r"FILE:12: '}' at '}' does not start")
    refused(edited(r"^kernel \S+", "kernel 6.1$#"), r"FILE:3: the kernel release")


# -- malformed fields -----------------------------------------------------------

def test_bad_bytecode_refused():
    cond = lambda c: edited(r"^  cond .*$", "  cond " + c)  # noqa: E731
    refused(cond("X2,20zz"), r"FILE:10: bad hex in bytecode at 'zz'")
    refused(cond("X3,2027"), r"FILE:10: the bytecode is shorter than its declared 3 bytes")
    refused(cond("X1,2727"), r"FILE:10: '27' after the condition's declared length")
    refused(cond("X401," + "27" * 0x401), r"FILE:10: bytecode length 0x401 is out of range")
    refused(cond("X0,"), r"FILE:10: bytecode length 0x0 is out of range")
    refused(cond("X2,3127"), r"FILE:10: 0x31 at byte 0 is not an agent expression opcode")
    refused(cond("X1,22"), r"FILE:10: the bytecode ends inside the operand of opcode 0x22")
    refused(cond("X6,22{32:vfs_read+0x0}27"), r"FILE:10: \{32:\.\.\.\} is the operand of opcode 0x22")
    refused(cond("X5,24{32:vfs_read+0x0}"), r"FILE:10: .*must be followed by ext 32")
    refused(cond("Xc,25{32:vfs_read+0x0}16202727272727"), r"FILE:10: .*const64")
    refused(cond("X5,24{32:vfs_read+0x0"), r"FILE:10: malformed reference")
    refused(cond("X1,27R1ff"), r"FILE:10: .R1ff. after the condition.s declared length")
    refused(cond("R1ff"), r"FILE:10: a condition is one X")
    refused(edited(r"^  action R1ff$", "  action X2,2227"),
            r"FILE:12: an action's X length is 8 hex digits")


def test_out_of_range_offsets_refused():
    refused(edited(r"gtp_test_function\+0x0 enabled", "gtp_test_function+0x400 enabled"),
                   r"FILE:9: tracepoint 1: gtp_test:gtp_test_function\+0x400: the offset runs past the end "
                   r"of gtp_test:gtp_test_function")
    refused(edited(r"^tracepoint 2 at vfs_read\+0x4", "tracepoint 2 at vfs_read+0x400"),
            r"FILE:16: tracepoint 2: vfs_read\+0x400: the offset runs past the end of vfs_read")
    refused(edited(r"\{gtp_test:gtp_test_calls\+0x0\},4", "{gtp_test:gtp_test_calls+0xffffffffffffffff},4"),
            r"FILE:11: .*offset runs past the end of gtp_test:gtp_test_calls")
    refused(edited(r"\{gtp_test:gtp_test_calls\+0x0\},4", "{gtp_test:gtp_test_calls+0x10000000000000000},4"),
            r"FILE:11: M offset .*a reference is")
    # the last symbol of the image: no further than ksyms.MAX_GAP
    refused(edited(r"^tracepoint 2 at vfs_read\+0x4", "tracepoint 2 at linux_banner+0x2000000"),
            r"FILE:16: tracepoint 2: linux_banner\+0x2000000: the offset runs past the end of linux_banner")


def test_huge_numbers_refused():
    refused(edited(r"^tracepoint 2 ", "tracepoint 99999999999999999999999 "),
            r"FILE:16: tracepoint number '99999999999999999999999' is not a number")
    refused(edited(r"^tracepoint 2 ", "tracepoint 32768 "), r"FILE:16: tracepoint number 32768 is out of range")
    refused(edited(r"pass 3$", "pass 4294967296"), r"FILE:16: pass count 4294967296 is out of range")
    refused(edited(r"initial -5 ", "initial 9223372036854775808 "), r"FILE:8: initial value .* out of range")
    refused(edited(r"size 0x100000", "size 0x40000001"), r"FILE:6: the buffer size 0x40000001 is out of range")
    refused(edited(r"size 0x100000", "size 0x10"), r"FILE:6: the buffer size 0x10 is out of range")
    refused(edited(r"\},4$", "},80000000"), r"FILE:11: M length 0x80000000 is out of range")
    refused(edited(r"^  action R1ff$", "  action M12,0,4"), r"FILE:12: M register 0x12 is out of range")
    refused(edited(r"^tsv 1 ", "tsv 0 "), r"FILE:8: variable number 0 is out of range")
    refused(edited(r"step 0 pass 3", "step 1 pass 3"), r"FILE:16: while-stepping")


def test_modules_come_from_the_references():
    refused(edited(r"^module gtp_test .*\n", ""),
            r"FILE:8: gtp_test:gtp_test_function\+0x0 is in module gtp_test, and the file "
            r"has no `module gtp_test build-id \.\.\.` line")
    refused(edited(r"^module gtp_test build-id \S+", "module gtp_test build-id -"),
            r"FILE:5: module gtp_test has no build id \('-'\)")
    refused(edited(r"^kernel (\S+) build-id \S+", r"kernel \1 build-id -"),
            r"FILE:3: the kernel has no build id \('-'\)")
    refused(edited(r"^module gtp_test build-id \S+", "module gtp_test build-id 1234"),
            r"FILE:5: build id '1234' is not")
    # a reference into a module whose line is missing, inside bytecode only
    text = edited(r"^tracepoint 2 at vfs_read\+0x4 disabled step 0 pass 3$",
                  "tracepoint 2 at vfs_read+0x4 disabled step 0 pass 3\n"
                  "  cond Xf,24{32:other_mod:thing+0x0}162019162022032b1427")
    refused(text, r"FILE:17: other_mod:thing\+0x0 is in module other_mod")


def test_loaded_module_checked():
    fake_boot(modules={})
    rc, err, _ = start(GOOD)
    assert rc == 1 and re.search(r"FILE:5: module gtp_test is not loaded", err), err
    assert FakeTarget.log == []
    fake_boot(modules={"gtp_test": "-"})
    rc, err, _ = start(GOOD)
    assert rc == 1 and re.search(r"FILE:5: module gtp_test as loaded has no build id", err), err
    assert FakeTarget.log == []
    fake_boot(modules={"gtp_test": "77" * 20})
    rc, err, _ = start(GOOD)
    assert rc == 1 and re.search(r"FILE:5: module gtp_test is another build", err), err
    assert FakeTarget.log == []
    fake_boot(kbid=None)
    rc, err, _ = start(GOOD)
    assert rc == 1 and re.search(r"FILE:3: this kernel has no build id", err), err
    assert FakeTarget.log == []


def test_raw_addresses_need_the_same_boot():
    raw = lambda: edited(r"\{gtp_test:gtp_test_calls\+0x0\},4", "{=0xffff888001234000},4")  # noqa: E731
    refused(re.sub(r"^boot \S+", "boot " + OTHER_BOOT, raw(), flags=re.M),
            r"FILE:11: tracepoint 1: constant 0xffff888001234000 has no symbol .* only valid "
            r"on the boot it was saved on \(%s; this is %s\)" % (OTHER_BOOT, BOOT))
    # a boot id nobody could read matches nothing, not even itself
    fake_boot(boot="-")
    rc, err, _ = start(re.sub(r"^boot \S+", "boot -", raw(), flags=re.M))
    assert rc == 1 and "FILE:11: tracepoint 1: constant 0xffff888001234000 has no symbol" \
        in err and "(the file names no boot)" in err, err
    assert FakeTarget.log == []
    # a kernel address written as plain hex would skip that check
    refused(edited(r"\{gtp_test:gtp_test_calls\+0x0\},4", "ffffffffc0a40000,4"),
            r"FILE:11: tracepoint 1: M-1 address 0xffffffffc0a40000 is a kernel address written as a number")
    refused(edited(r"^  cond .*$", "  cond Xf,24c0a40000162019162022032b1427"),
            r"FILE:10: tracepoint 1: const32 0xffffffffc0a40000 is a kernel address written as a number")
    refused(edited(r"^  cond .*$", "  cond Xa,25ffff888001234000" + "27"),
            r"FILE:10: tracepoint 1: const64 0xffff888001234000 is a kernel address")
    refused(edited(r"^  cond .*$", "  cond Xf,24{32:=0x1234}162019162022032b1427"),
            r"FILE:10: tracepoint 1: \{=0x1234\} is not a kernel address")


def test_truncated_and_malformed_files_refused():
    cut = GOOD[:GOOD.index("  source cond")]
    refused(cut, r"FILE:%d: truncated: the file ends without its `end` line" % cut.count("\n"))
    refused(GOOD[:GOOD.index("  action M")] + "  action M-1,{gtp_test:gtp_tes",
            r"FILE:11: M wants")
    refused(GOOD + "tracepoint 3 at vfs_read+0x0 enabled step 0 pass 0\n",
            r"FILE:18: text after the `end` line")
    refused(GOOD.replace("gtp-session 1", "gtp-session 2"), r"FILE:2: session format 2")
    refused(GOOD.replace("gtp-session 1\n", ""), r"FILE:2: the first line is `gtp-session 1`")
    refused(GOOD.replace("disconnected 0", "disconnected 0\nrm -rf /"), r"FILE:8: unknown line 'rm'")
    refused(GOOD.replace("boot ", "boot  "), r"FILE:4: fields are separated by one space")
    refused(GOOD.replace("  action R1ff", "\taction R1ff"), r"FILE:12: control character U\+0009")
    refused(GOOD.replace("\n", "\r\n"), r"FILE:1: control character U\+000D")
    refused(GOOD.encode().replace(b"hits", b"h\xffts"), r"FILE:8: not UTF-8 text")
    refused(GOOD.replace("  source cmd", "  cond X2,2027\n  source cmd"),
            r"FILE:15: a second condition for tracepoint 1 \(line 10\)")
    refused(GOOD.replace("disconnected 0", "disconnected 0\nkernel %s build-id %s" % (RELEASE, KBID)),
            r"FILE:8: a second `kernel` line \(the first is line 3\)")
    refused(GOOD.replace("tsv 1 initial -5 builtin 0 name hits\n", "  action R1\n"),
            r"FILE:8: an indented line belongs under a `tracepoint` line")
    refused(re.sub(r"^tracepoint.*\n(  .*\n)*", "", GOOD, flags=re.M), r"FILE: no tracepoints")
    refused(GOOD.replace("  source at 0 gtp_test_function",
                         "  source at 0 " + "x" * 9000),
            r"FILE:13: a QTDPsrc packet of \d+ bytes is longer than the target's 16383")
    refused(GOOD.replace("  source at 0 gtp_test_function", "  source at 0 hex:abc"),
            r"FILE:13: hex: wants an even number")
    refused("", r"FILE:0: truncated")


def test_refusal_names_missing_symbol_and_line():
    refused(edited(r"gtp_test:gtp_test_calls\+0x0\}1620", "gtp_test:gtp_test_callz+0x0}1620"),
            r"FILE:10: tracepoint 1: symbol gtp_test:gtp_test_callz is not in ")


def test_wire_refuses_framing_characters():
    for pkt in ("QTDP:1:0:E:0:0:X2,2027#00", "qTStatus$", "X}", "a*b", "\x03", "é"):
        try:
            remote.check_packet(pkt)
        except TraceError as e:
            assert "would corrupt the packet framing" in str(e), e
        else:
            raise AssertionError("%r passed" % pkt)
    remote.check_packet("QTDP:-1:ffffffffc0a3e000:M-1,ffffffffc0a40000,4-")


def test_mutated_files_are_refused_or_safe():
    """Random byte edits of the good file: each is refused with a TraceError
    naming the file, or starts with packets the framing cannot misread."""
    rnd = random.Random(7)
    alphabet = "$#}*{}:+-,0123456789abcdefxX \n" + "".join(chr(c) for c in range(0x20, 0x7f))
    for _ in range(400):
        text = list(GOOD)
        for _ in range(rnd.randrange(1, 4)):
            i = rnd.randrange(len(text))
            op = rnd.randrange(3)
            if op == 0:
                text[i] = rnd.choice(alphabet)
            elif op == 1:
                del text[i]
            else:
                text.insert(i, rnd.choice(alphabet))
        fake_boot()
        rc, err, out = start("".join(text))
        if rc == 0:
            sent = FakeTarget.log[1:]
            assert all(re.fullmatch(r"[ -~]*", p) and not set(p) & set("$#}*")
                       for p in sent), sent
        else:
            assert rc == 1 and err.startswith("gtp-ctl start: FILE") and \
                FakeTarget.log == [], (err, FakeTarget.log)


# -- a target that stops answering ----------------------------------------------------

class SilentAfter(threading.Thread):
    """The master side of a pty as a stub: answers every packet OK (and
    qTStatus with a stopped trace) until the first packet starting with
    silent_at, then answers nothing more."""

    def __init__(self, master, silent_at):
        super().__init__(daemon=True)
        self.master, self.silent_at, self.got = master, silent_at, []

    def run(self):
        buf = b""
        while True:
            try:
                chunk = os.read(self.master, 4096)
            except OSError:
                return
            if not chunk:
                return
            buf += chunk
            while True:
                m = re.search(rb"\$([^#]*)#..", buf)
                if not m:
                    break
                buf = buf[m.end():]
                pkt = m.group(1).decode()
                self.got.append(pkt)
                if pkt.startswith(self.silent_at):
                    return
                reply = b"T0;tstop:0;tframes:0" if pkt == "qTStatus" else b"OK"
                os.write(self.master, b"$%s#%02x" % (reply, sum(reply) & 0xff))


def silent_target(silent_at):
    master, slave = pty.openpty()
    tty.setraw(slave)               # no echo: only the stub's answers come back
    stub = SilentAfter(master, silent_at)
    stub.start()
    return os.ttyname(slave), stub


def test_a_silent_target_times_out_and_says_in_what_state():
    fake_boot()
    remote.Remote = REAL_REMOTE
    path, stub = silent_target("QTDP:-1")
    rc, err, out = start(GOOD, "--target", path, "--timeout", "0.5")
    assert rc == 1, (err, out)
    assert re.search(r"did not answer QTDP within 0.5 s; .* was cleared \(QTinit: its earlier "
                     r"tracepoints and frames are gone\) and holds part of this session, "
                     r"not started", err), err
    assert stub.got[:3] == ["QStartNoAckMode", "qTStatus", "QTinit"], stub.got
    path, stub = silent_target("qTStatus")
    rc, err, out = start(GOOD, "--target", path, "--timeout", "0.5")
    assert rc == 1 and re.search(r"did not answer qTStatus within 0.5 s; nothing that changes "
                                 r"the trace was sent: .* is as it was", err), err
    path, stub = silent_target("QTStart")
    rc, err, out = start(GOOD, "--target", path, "--timeout", "0.5")
    assert rc == 1 and "QTStart was sent: the trace may be running" in err, err


REAL_REMOTE = remote.Remote


if __name__ == "__main__":
    # a hang guard, not a timing assertion: gtp-ctl waiting for a reply forever
    sys.exit(tap.main(globals(), timeout=60))
