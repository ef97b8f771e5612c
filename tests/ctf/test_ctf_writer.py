#!/usr/bin/env python3
"""Host unit tests of gtp-ctl's CTF writer (gtpctl/ctf.py), of the
frame -> event conversion of `gtp-ctl stream` (gtpctl/stream_ctf.py) and
of its copy path (gtpctl/copier.py: what the reading process writes to
the spool, record headers only).

Traces are built from constructed events and from a constructed
/proc/gtp_stream record stream (DEFS, PACKETs of ring records holding gdb
trace-file frames, END), then read back with this host's babeltrace2,
which must show every value exactly, the lost frames as discarded events,
and two hosts' traces on one time axis.  The babeltrace2 parts are
skipped (not failed) where it is not installed.

    python3 tests/ctf/test_ctf_writer.py
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
from fractions import Fraction

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "gdb-scripts"))
sys.path.insert(0, os.path.join(REPO, "tests", "lib"))
import tap  # noqa: E402
from gtpctl import copier, ctf, stream_ctf, streamer, trace  # noqa: E402

BABELTRACE = shutil.which("babeltrace2")
LINE = re.compile(r"^\[(\d+)\] (\S+) (\S+): \{ cpu_id = (\d+) \}, \{ ?(.*?) ?\}$")
FIELD = re.compile(r"(\w+) = (\[ \]|\[ .*? \]|-?(?:0x[0-9A-F]+|\d+))(?:, |$)")


def babeltrace(*dirs):
    """[(cycles, host, event name, cpu, {field: int or [int]})], stderr"""
    if not BABELTRACE:
        raise unittest.SkipTest("no babeltrace2 on this host")
    p = subprocess.run([BABELTRACE, "--clock-cycles", "--no-delta", *dirs],
                       capture_output=True, text=True)
    if p.returncode:
        raise AssertionError("babeltrace2 failed: " + p.stderr[-2000:])
    out = []
    for line in p.stdout.splitlines():
        m = LINE.match(line)
        assert m, line
        fields = {}
        for name, val in FIELD.findall(m.group(5)):
            if val.startswith("["):
                val = [int(v, 0) for v in re.findall(r"\] = (-?(?:0x[0-9A-F]+|\d+))", val)]
            else:
                val = int(val, 0)
            fields[name] = val
        out.append((int(m.group(1)), m.group(2), m.group(3), int(m.group(4)), fields))
    return out, p.stderr


def seconds(*dirs):
    """babeltrace2's nanoseconds since the epoch of each event, in order."""
    p = subprocess.run([BABELTRACE, "--clock-seconds", *dirs], capture_output=True,
                       text=True, check=True)
    return [int(line[1:line.index("]")].replace(".", "")) for line in p.stdout.splitlines()]


class Dir:
    def __enter__(self):
        self.path = tempfile.mkdtemp(prefix="gtp-ctf-")
        return self.path

    def __exit__(self, *exc):
        shutil.rmtree(self.path, ignore_errors=True)


# -- ctf.py alone ------------------------------------------------------------

class TestNames(unittest.TestCase):
    def test_identifiers(self):
        self.assertEqual(ctf.identifier("counter1"), "counter1")
        self.assertEqual(ctf.identifier("int"), "_int")          # shown as int
        self.assertEqual(ctf.identifier("_sdata"), "__sdata")    # shown as _sdata
        self.assertEqual(ctf.identifier("9lives"), "_9lives")
        self.assertEqual(ctf.identifier("a->b.c"), "a__b_c")
        self.assertEqual(ctf.identifier("uint64_t"), "_uint64_t")

    def test_unique_field_names(self):
        ec = ctf.EventClass(0, "e", [ctf.Field("v"), ctf.Field("v"), ctf.Field("v_2")])
        self.assertEqual([f.name for f in ec.fields], ["v", "v_2", "v_2_2"])


class TestClock(unittest.TestCase):
    def test_offset_is_cycle_zero(self):
        # ns_since_epoch(ts) = R + (ts - T) * 1e6 / K
        K, T, R = 2893123, 5 * 10**12, 1760000000123456789
        c = ctf.Clock.from_sample("gtp_tsc", K * 1000, T, R)
        self.assertTrue(0 <= c.offset < c.freq and c.offset_s > 0)
        exact = Fraction(c.offset_s * 10**9) + Fraction(c.offset * 10**9, c.freq)
        self.assertLess(abs(exact - (R - Fraction(T * 10**6, K))), 1)
        for ts in (T, T + 1, T + 10**9):
            self.assertLessEqual(abs(c.ns(ts) - (R + Fraction((ts - T) * 10**6, K))), 2)

    def test_never_negative_offset(self):
        c = ctf.Clock.from_sample("c", 10**9, 10, 0)     # cycle 0 is 10 ns before the epoch
        self.assertEqual((c.offset_s, c.offset), (-1, 10**9 - 10))


class TestWriter(unittest.TestCase):
    FIELDS = [ctf.Field("u8", 8), ctf.Field("s8", 8, True), ctf.Field("u16", 16),
              ctf.Field("s16", 16, True), ctf.Field("u32", 32, hex=True),
              ctf.Field("s32", 32, True), ctf.Field("u64", 64), ctf.Field("s64", 64, True),
              ctf.Field("int", 32, True), ctf.Field("n", 16),
              ctf.Field("words", 64, hex=True, seq=True)]
    VALUES = [(255, -128, 65535, -32768, 0xdeadbeef, -2**31, 2**64 - 1, -2**63, 7, 2,
               struct.pack("<2Q", 1, 2**64 - 1)),
              (0, 1, 2, 3, 4, 5, 6, 7, -7, 0, b"")]

    def test_round_trip(self):
        with Dir() as d:
            clock = ctf.Clock.from_sample("gtp_tsc", 10**9, 1000, 1700000000 * 10**9)
            tr = ctf.Trace(d, clock, {"hostname": "unit", "gtp_run": 3})
            ec = tr.event_class("tp1_all", self.FIELDS)
            empty = tr.event_class("tp2", [])
            ev = (ec.pack(1000, self.VALUES[0], (2,)) + empty.pack(1001, ())
                  + ec.pack(1002, self.VALUES[1], (0,)))
            tr.stream(1).packet(1000, 1002, ev, 0)
            tr.stream(1).packet(2000, 2000, ec.pack(2000, self.VALUES[1], (0,)), 5)
            tr.close()
            with open(os.path.join(d, "metadata")) as f:
                self.assertTrue(f.read().startswith("/* CTF 1.8 */"))
            got, err = babeltrace(d)
        names = [f.name.lstrip("_") if f.name == "_int" else f.name for f in ec.fields]
        want = []
        for vals in self.VALUES:
            vals = list(vals[:-1]) + [list(struct.unpack("<%dQ" % (len(vals[-1]) // 8), vals[-1]))]
            want.append(dict(zip(names, vals)))
        self.assertEqual([(g[0], g[2], g[3]) for g in got],
                         [(1000, "tp1_all", 1), (1001, "tp2", 1), (1002, "tp1_all", 1),
                          (2000, "tp1_all", 1)])
        self.assertEqual(got[0][4], want[0])
        self.assertEqual(got[1][4], {})
        self.assertEqual(got[2][4], want[1])
        self.assertIn("discarded 5 events", err)


# -- frames through streamer ---------------------------------------------------

A1, A2, A3 = 0xffffffffc0a01000, 0xffffffffc0a02040, 0xffffffff81355a10
JIFFIES = 0xffffffff82005000
KHZ, TSC, REAL = 2893123, 5 * 10**12, 1760000000123456789


def _hex(text):
    return text.encode().hex()


def _z(num, addr, kind, text):
    return "tp Z%x:%x:%s:0:%x:%s" % (num, addr, kind, len(text), _hex(text))


def defs_record(run=1, tsc=TSC, khz=KHZ, real=REAL, version=2, pieces=1):
    """The DEFS records of a run: gdb's `trace gtp_test_function` / `teval
    $v = 2*counter1+3*counter2` / `collect $v, $regs`, a static tracepoint
    with `collect $_sdata`, and `trace vfs_read` / `collect jiffies,
    $rsp[0]@3, $kstack`.  Version 2: its lines and `end` in `pieces`
    records, seq 0, 1, ...; version 1: one record, no `end`."""
    lines = defs_lines(run, tsc, khz, real, version)
    cut = [len(lines) * k // pieces for k in range(pieces + 1)]
    return b"".join(defs_piece(run, seq, lines[cut[seq]:cut[seq + 1]], tsc)
                    for seq in range(pieces))


def defs_piece(run, seq, lines, tsc=TSC):
    """One DEFS record of whole lines, NUL-padded."""
    text = "".join(line + "\n" for line in lines).encode()
    return record(1, 0, run, text + b"\0" * (-len(text) % 8), tsb=tsc - 500, seq=seq)


def defs_lines(run=1, tsc=TSC, khz=KHZ, real=REAL, version=2):
    lines = ["gtp-stream %d" % version, "run %d" % run,
             "clock tsc_khz=%d tsc=%d real_ns=%d mono_ns=1" % (khz, tsc, real),
             "cpus 2", "buffer size=1048576 subbuf=65536 circular=0",
             "tsv 1:0:0:%s" % _hex("v"),
             "tp T1:%x:E:0:0" % A1, "tp A1:%x:R1ffffff" % A1,
             "tp A1:%x:X00000004,2c000127" % A1,
             _z(1, A1, "at", "gtp_test_function"),
             _z(1, A1, "cmd", "teval $v = 2*counter1+3*counter2"),
             _z(1, A1, "cmd", "collect $v, $regs"),
             "tp T2:%x:E:0:0:S" % A2, "tp A2:%x:L" % A2, _z(2, A2, "at", "*0x%x" % A2),
             _z(2, A2, "cmd", "collect $_sdata"),
             "tp T3:%x:E:0:0" % A3, "tp A3:%x:M-1,%x,8" % (A3, JIFFIES),
             "tp A3:%x:M7,0,18" % A3, _z(3, A3, "at", "vfs_read"),
             _z(3, A3, "cmd", "collect jiffies, $rsp[0]@3, $kstack"),
             "sdata 2 counter1:4:s counter2:4:s"]
    return lines + ["end"] if version > 1 else lines


def record(typ, cpu, run, payload=b"", tsb=0, tse=0, seq=0, lost=0):
    return struct.pack("<IHHIIQQQQ", 0x53505447, typ, cpu, len(payload), run,
                       tsb, tse, seq, lost) + payload


def packet(cpu, frames, seq, lost, run=1):
    """frames: [(ts, tpnum, blocks)] -> a PACKET record of ring records."""
    body = b""
    for ts, tp, blocks in frames:
        fr = struct.pack("<hI", tp, len(blocks)) + blocks
        r = struct.pack("<QII", ts, len(fr), 1) + fr
        body += r + b"\0" * (-len(r) % 8)
    return record(2, cpu, run, body, frames[0][0], frames[-1][0], seq, lost)


REGS = [0x1000 + i for i in range(17)] + [0x200 + i for i in range(7)]
REG_NAMES = ["rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10",
             "r11", "r12", "r13", "r14", "r15", "rip", "eflags", "cs", "ss", "ds", "es",
             "fs", "gs"]


def tp1(c1, c2):
    regs = list(REGS)
    regs[5], regs[4] = c1 & (2**64 - 1), c2 & (2**64 - 1)
    v = 2 * c1 + 3 * c2
    blocks = b"R" + struct.pack("<17Q7I", *regs) + b"V" + struct.pack("<iq", 1, v)
    return blocks, dict(zip(REG_NAMES, regs), v=v)


def tp2(c1, c2):
    words = [(0xdead << 32) | (c1 & 0xffffffff), (0xbeef << 32) | (c2 & 0xffffffff)]
    data = struct.pack("<QII2Q", A2, 2, 0, *words)
    return (b"M" + struct.pack("<QH", 0xfffffffffffff000, len(data)) + data,
            {"counter1": c1, "counter2": c2})


def tp3(jiffies, sp, stack, kstack, ustack=None):
    blocks = (b"M" + struct.pack("<QHq", JIFFIES, 8, jiffies)
              + b"M" + struct.pack("<QH", sp, len(stack)) + stack
              + b"M" + struct.pack("<QH", 0x4b53544b00000000, 8 * len(kstack))
              + struct.pack("<%dQ" % len(kstack), *kstack))
    fields = {"jiffies_addr": JIFFIES, "jiffies": jiffies, "mem0_addr": sp,
              "mem0_len": len(stack), "mem0": list(stack),
              "kstack_len": len(kstack), "kstack": list(kstack)}
    if ustack:
        # $ustack: the program's text start, then the addresses
        text, addrs = ustack
        blocks += (b"M" + struct.pack("<QH", 0x5553544b00000000 - 8, 8 + 8 * len(addrs))
                   + struct.pack("<%dQ" % (1 + len(addrs)), text, *addrs))
        fields.update(ustack_text=text, ustack_len=len(addrs), ustack=list(addrs))
    return blocks, fields


def stream_events(run=1, **defs):
    """(record stream bytes, [(ts, cpu, event name, fields)]) of one run:
    cpu 0 lost 4 frames before its first packet, cpu 1 two after its last.
    defs: for defs_record()."""
    want, pk = [], {0: [], 1: []}
    shapes = [tp1(5, -7), tp2(-3, 2**31 - 1), tp3(-1, 0xffffc90000001230, b"\x01\x02\x03",
                                                  [0xffffffff81000010, 0xffffffff81000020]),
              tp1(-2**31, 1), tp3(2**62, 0xffffc90000004560, b"\xff\xfe\xfd", [0xffffffff81abcdef],
                                  (0x55d0c0a01000, [0x55d0c0a01176, 0x55d0c0a011a1]))]
    names = ["tp1_gtp_test_function", "tp2", "tp3_vfs_read", "tp1_gtp_test_function",
             "tp3_vfs_read_2"]
    for k, ((blocks, fields), name) in enumerate(zip(shapes, names)):
        cpu, ts = k % 2, TSC + 1000 + 10 * k
        pk[cpu].append((ts, (1, 2, 3, 1, 3)[k], blocks))
        want.append((ts, cpu, name, fields))
    data = (defs_record(run, **defs)
            + packet(0, pk[0][:2], 0, 4, run) + packet(1, pk[1], 0, 0, run)
            + packet(0, pk[0][2:], 1, 4, run)
            + record(3, 0, run, lost=4) + record(3, 1, run, lost=2))
    return data, want


def convert(data, out, hostname="unit", chunk=7):
    """Feed the record stream in small reads (records split anywhere)."""
    st = streamer.Streamer(out, "test", True, stream_ctf.Host(hostname))
    for i in range(0, len(data), chunk):
        st.feed(data[i:i + chunk])
    st.close()
    return st


class TestStream(unittest.TestCase):
    def test_frames_round_trip(self):
        data, want = stream_events()
        with Dir() as d:
            st = convert(data, d)
            self.assertTrue(st.done)
            self.assertEqual((st.events(), st.lost_per_cpu()), (5, {0: 4, 1: 2}))
            got, err = babeltrace(d)
        self.assertEqual([(g[0], g[3], g[2]) for g in got], [w[:3] for w in want])
        for g, w in zip(got, want):
            self.assertEqual(g[4], w[3], w[2])
        self.assertIn("discarded 4 events", err)       # before cpu 0's first packet
        self.assertIn("discarded 2 events", err)       # after cpu 1's last packet

    def test_rsub_block(self):
        """A frame's 'r' block (regs.h: the registers its R action named,
        rip always) gives an event of those registers alone, as an R
        block's fields; gtp-ctl's Frame reads it as the R block the kernel
        serves for it (the others zero)."""
        mask = 1 << 4 | 1 << 5 | 1 << 16 | 1 << 17
        vals = struct.pack("<3QI", 0x77, 2**64 - 3, A1, 0x246)
        blocks = b"r" + struct.pack("<I", mask) + vals + b"V" + struct.pack("<iq", 1, 9)
        data = (defs_record()
                + packet(0, [(TSC + 1000, 1, blocks), (TSC + 1010, 1, tp1(5, 6)[0])], 0, 0)
                + record(3, 0, 1) + record(3, 1, 1))
        with Dir() as d:
            convert(data, d)
            got, _ = babeltrace(d)
        self.assertEqual([g[2] for g in got], ["tp1_gtp_test_function", "tp1_gtp_test_function_2"])
        self.assertEqual(got[0][4], {"rsi": 0x77, "rdi": 2**64 - 3, "rip": A1, "eflags": 0x246,
                                     "v": 9})
        self.assertEqual(got[1][4], tp1(5, 6)[1])
        f = trace.Frame(0, 1, blocks)
        f.parse(164)
        regs = struct.unpack("<17Q7I", f.regs)
        self.assertEqual((regs[4], regs[5], regs[16], regs[17]), (0x77, 2**64 - 3, A1, 0x246))
        self.assertEqual(sum(regs) - (0x77 + 2**64 - 3 + A1 + 0x246), 0)
        self.assertEqual(f.tsv, {1: 9})
        with self.assertRaisesRegex(trace.TraceError, "names register 20"):
            trace.walk_blocks(b"r" + struct.pack("<I", 1 << 20 | 1 << 16) + vals, 164)

    def test_two_hosts_one_time_axis(self):
        """Host B's TSC runs at another rate from another base; its events
        fall between host A's in real time (A's are 3.5 ns apart from
        R + 345 ns, B's 3 ns apart from R + 347 ns)."""
        a, _ = stream_events()
        khz_b, tsc_b = 3400000, 77 * 10**9
        b = (defs_record(tsc=tsc_b, khz=khz_b, real=REAL + 5)
             + packet(0, [(tsc_b + (342 + 3 * k) * 34 // 10, 1, tp1(k, k)[0])
                          for k in range(5)], 0, 0)
             + record(3, 0, 1) + record(3, 1, 1))
        with Dir() as d:
            da, db = os.path.join(d, "a"), os.path.join(d, "b")
            convert(a, da, "hostA")
            convert(b, db, "hostB")
            got, _ = babeltrace(da, db)
            ns = seconds(da, db)
        self.assertEqual(ns, sorted(ns))
        hosts = "".join(g[1][-1] for g in got)
        self.assertEqual(hosts.count("A"), 5)
        self.assertEqual(hosts.count("B"), 5)
        self.assertNotIn(hosts, ("AAAAABBBBB", "BBBBBAAAAA"))      # interleaved
        # each event where its clock sample puts it, to 2 ns
        for (cyc, host, *_), n in zip(got, ns):
            k, t, r = (KHZ, TSC, REAL) if host == "hostA" else (khz_b, tsc_b, REAL + 5)
            self.assertLessEqual(abs(n - (r + Fraction((cyc - t) * 10**6, k))), 2)

    def test_defs_pieces_and_version_1(self):
        """The definitions in 4 DEFS pieces, or as version 1 wrote them
        (one record, no `end`; raw files saved earlier): the same trace."""
        one, want = stream_events()
        with Dir() as d:
            convert(one, d)
            ref, _ = babeltrace(d)
        self.assertEqual(len(ref), len(want))
        for defs in ({"pieces": 4}, {"pieces": 22}, {"version": 1}):
            data, _ = stream_events(**defs)
            with Dir() as d:
                st = convert(data, d, chunk=5)
                self.assertTrue(st.done)
                self.assertEqual(st.events(), 5)
                got, _ = babeltrace(d)
                self.assertEqual(st.runs[0].defs.version, defs.get("version", 2))
            self.assertEqual(got, ref, defs)

    def test_defs_pieces_out_of_sync(self):
        lines = defs_lines()
        p0, p1, p2 = (defs_piece(1, k, lines[6 * k:6 * k + 6]) for k in range(3))
        rest = defs_piece(1, 3, lines[18:])
        end = record(3, 0, 1)
        for data, why in ((p0 + p1 + end, "before the end of the DEFS of run 1"),
                          (p0 + p2, "DEFS piece 2 of run 1 where piece 1 was due"),
                          (p1 + p2, "DEFS piece 1 of run 1 without its first"),
                          (p0 + p1 + p2 + end + rest, "before the end of the DEFS")):
            with Dir() as d:
                with self.assertRaisesRegex(streamer.TraceError, why):
                    convert(data, d)

    def test_defs_cut_by_a_new_run(self):
        """A QTStart while run 1's pieces were going out: run 2's start
        over at piece 0, and the trace is run 2's."""
        data, _ = stream_events(run=2, pieces=3)
        lines = defs_lines(run=1)
        cut = defs_piece(1, 0, lines[:5]) + defs_piece(1, 1, lines[5:9])
        with Dir() as d:
            st = convert(cut + data, d)
            self.assertEqual([r.run for r in st.runs], [2])
            self.assertEqual(st.events(), 5)

    def test_split_record_bookkeeping(self):
        data, _ = stream_events()
        with Dir() as d:
            st = streamer.Streamer(d, "test", True, stream_ctf.Host("unit"))
            st.feed(data[:30])
            self.assertEqual(st.missing(), 18)
            st.feed(data[30:48])
            n = st.missing()
            st.feed(data[48:48 + n])
            self.assertEqual(st.missing(), 0)
            st.close()


def copied(data, until_stop=True, chunk=7):
    """What the copy path writes of data read in chunk-byte reads, and the
    Copier; writes never end inside a record header."""
    cp = copier.Copier("test", until_stop)
    out = b""
    for i in range(0, len(data), chunk):
        out += b"".join(bytes(p) for p in cp.take(memoryview(data[i:i + chunk])))
        o = 0
        while o + 48 <= len(out):                   # every header written is whole
            o += 48 + struct.unpack_from("<I", out, o + 8)[0]
        assert o >= len(out), (i, len(out), o)
        if cp.done:
            break
    return out, cp


class TestCopier(unittest.TestCase):
    def test_copies_to_the_first_run_end(self):
        """--until-stop: every byte of run 1 through, split anywhere, and
        nothing of run 2 (which follows in the same reads)."""
        one, _ = stream_events(run=1, pieces=3)
        two, _ = stream_events(run=2)
        for chunk in (1, 7, 48, 49, 4096, len(one) + 100):
            out, cp = copied(one + two, chunk=chunk)
            self.assertEqual(out, one, chunk)
            self.assertTrue(cp.done, chunk)
            self.assertEqual((cp.cpus, cp.ended), (2, {0, 1}))

    def test_copy_converts_as_the_live_stream(self):
        """The spool converts to the trace the reads themselves give."""
        data, want = stream_events(pieces=2)
        out, _ = copied(data, chunk=13)
        with Dir() as d:
            st = convert(out, d, chunk=1 << 20)
            self.assertEqual((st.events(), st.lost_per_cpu()), (5, {0: 4, 1: 2}))

    def test_without_until_stop_keeps_every_run(self):
        one, _ = stream_events(run=1)
        two, _ = stream_events(run=2)
        out, cp = copied(one + two, until_stop=False, chunk=100)
        self.assertEqual(out, one + two)
        self.assertFalse(cp.done)
        self.assertEqual(cp.missing(), 0)

    def test_missing_and_held_header(self):
        data, _ = stream_events()
        cp = copier.Copier("test", True)
        self.assertEqual(cp.take(memoryview(data[:30])), [])    # a header begun: held
        self.assertEqual(cp.missing(), 18)
        got = b"".join(bytes(p) for p in cp.take(memoryview(data[30:50])))
        self.assertEqual(got, data[:50])
        self.assertEqual(cp.missing(), struct.unpack_from("<I", data, 8)[0] - 2)

    def test_out_of_sync(self):
        data, _ = stream_events()
        cp = copier.Copier("test", True)
        with self.assertRaisesRegex(Exception, "no record at stream byte 0"):
            cp.take(memoryview(b"\0" * 64 + data))


GTP_CTL = os.path.join(REPO, "gdb-scripts", "gtp-ctl")


def live_stream(d, data, *extra):
    """gtp-ctl stream reading a FIFO (a stand-in for /proc/gtp_stream that
    never ends by itself) that a writer fills with data in small writes:
    (exit status, stdout, stderr)."""
    fifo = os.path.join(d, "fifo")
    os.mkfifo(fifo)
    p = subprocess.Popen([sys.executable, GTP_CTL, "stream", "--target-stream", fifo,
                          "--ctf", os.path.join(d, "ctf"), "--interval", "1"] + list(extra),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with open(fifo, "wb") as w:
        for i in range(0, len(data), 333):
            w.write(data[i:i + 333])
            w.flush()
    so, se = p.communicate(timeout=60)
    return p.returncode, so.decode(), se.decode()


class TestLiveCopy(unittest.TestCase):
    def test_two_processes_one_trace(self):
        """The reading process copies, its child converts: the summary and
        the trace are the conversion's, the spool is gone."""
        data, want = stream_events(pieces=2)
        with Dir() as d:
            rc, so, se = live_stream(d, data, "--until-stop")
            self.assertEqual(rc, 0, se)
            self.assertRegex(so, r"^streamed 5 events \(\d+ bytes\) from 2 CPU\(s\) to .*; 6 lost")
            self.assertEqual(sorted(os.listdir(os.path.join(d, "ctf"))),
                             ["metadata", "stream_0", "stream_1"])
            if BABELTRACE:
                got, _ = babeltrace(os.path.join(d, "ctf"))
                self.assertEqual([(g[0], g[3], g[2]) for g in got], [w[:3] for w in want])

    def test_failed_conversion_keeps_the_spool(self):
        """A stream the converter cannot read: the error, exit 1, and the
        records read are kept for --from-file."""
        data, _ = stream_events()
        # a ring record of 8 bytes that says its frame holds 100
        ring = struct.pack("<QII", TSC, 8, 1) + struct.pack("<hI", 1, 100) + b"\0" * 2
        bad = data[:data.index(b"GTPS", 8)] + record(2, 0, 1, ring)
        with Dir() as d:
            rc, so, se = live_stream(d, bad + data[data.index(b"GTPS", 8):], "--until-stop")
            self.assertEqual(rc, 1, (so, se))
            self.assertIn("the stream is corrupt", se)
            spool = os.path.join(d, "ctf", ".gtp-stream.spool")
            self.assertIn("kept in %s" % spool, se)
            with open(spool, "rb") as f:
                self.assertEqual(f.read(len(bad)), bad)


if __name__ == "__main__":
    sys.exit(tap.main(globals(), all_skipped=0))
