#!/usr/bin/env python3
"""gtp-ctl's pure-Python parts on the host (docs/histograms.md): buckets, labels,
percentiles, the trace-file reader, the key language, reply decoding.

Inputs are synthetic here (the guest tests in tests/e2e/test_hist.py use
real frames); expected values are computed independently in this file.
Prints TAP (tests/lib/tap.py).
"""
import os
import random
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "gdb-scripts"))
sys.path.insert(0, os.path.join(REPO, "tests", "lib"))
import tap  # noqa: E402
from gtpctl import agg, bridge, keys, pcpu, remote, summary, tfile  # noqa: E402
from gtpctl.trace import TraceError  # noqa: E402

CTL = os.path.join(REPO, "gdb-scripts", "gtp-ctl")


def test_log2_buckets_match_brute_force():
    rnd = random.Random(16)
    vals = [rnd.randrange(-5, 1 << rnd.randrange(1, 40)) for _ in range(3000)] + [0, 1, 2, 3, 4]
    col = summary.Collector()
    for v in vals:
        col.add(v)
    for label, n, (lo, hi) in summary.hist_rows(col):
        want = sum(1 for v in vals if (lo is None or v >= lo) and v < hi)
        assert n == want, (label, n, want)
    assert sum(n for _, n, _ in summary.hist_rows(col)) == len(vals)


def test_labels():
    assert summary.log2_label(summary.log2_bucket(300)) == "[256, 512)"
    assert summary.log2_label(summary.log2_bucket(1500)) == "[1K, 2K)"
    assert summary.log2_label(summary.log2_bucket(3 << 20)) == "[2M, 4M)"
    assert summary.log2_label(summary.log2_bucket(0)) == "[0]"
    assert summary.log2_label(summary.log2_bucket(-7)) == "(..., 0)"
    lin = summary.parse_linear("0,100,25")
    assert [lin.label(lin.bucket(v)) for v in (-1, 0, 99, 100)] == \
        ["(..., 0)", "[0, 25)", "[75, 100)", "[100, ...)"]


def test_unavailable_row_and_bars():
    col = summary.Collector()
    for v in [5] * 10 + [100] * 5:
        col.add(v)
    col.add(summary.UNAVAILABLE)
    text = summary.format_hist(col)
    lines = text.splitlines()
    assert lines[0].startswith("[4, 8) ") and lines[0].endswith("|" + "@" * 52 + "|"), text
    assert lines[-1].startswith("<unavailable>") and " 1 |@@@@@ " in lines[-1], text
    assert len(lines) == 5 + 1, text     # [4, 8) .. [64, 128), then <unavailable>


def test_percentiles_nearest_rank():
    vals = list(range(1, 101))
    assert summary.percentile(vals, 50) == 50 and summary.percentile(vals, 99) == 99
    assert summary.percentile([7], 99) == 7
    col = summary.Collector()
    for v in (3, 1, 2):
        col.add(v)
    s = summary.stats(col)
    assert (s["min"], s["max"], s["mean"], s["p50"]) == (1, 3, 2.0, 2), s


def test_count_top():
    col = summary.Collector()
    for v in [1] * 3 + [2] * 5 + [3]:
        col.add(v)
    rows, rest = summary.count_rows(col, 2)
    assert rows == [(2, 5), (1, 3)] and rest == [(3, 1)]


def _tfile(frames, tsvs=("cpu_id",), cmds=("collect $rdi, $cpu_id",), actions=("R20",)):
    hx = lambda s: s.encode().hex()  # noqa: E731
    lines = ["R a4", "status 0;tstop::0;tframes:%x" % len(frames)]
    lines += ["tsv %x:0:1:%s" % (i + 1, hx(n)) for i, n in enumerate(tsvs)]
    lines += ["tp T1:ffffffffc0001000:E:0:0"]
    lines += ["tp A1:ffffffffc0001000:" + a for a in actions]
    lines += ["tp Z1:ffffffffc0001000:cmd:0:%x:%s" % (len(c), hx(c)) for c in cmds]
    body = b""
    for rdi, cpu, mem in frames:
        regs = [0] * 17
        regs[5] = rdi
        regs[16] = 0xffffffffc0001000
        blocks = b"R" + struct.pack("<17Q7I", *(regs + [0] * 7))
        if cpu is not None:
            blocks += b"V" + struct.pack("<iq", 1, cpu)
        if mem is not None:
            blocks += b"M" + struct.pack("<QHi", 0x1000, 4, mem)
        body += struct.pack("<hI", 1, len(blocks)) + blocks
    f = tempfile.NamedTemporaryFile(suffix=".tf", delete=False)
    f.write(b"\x7fTRACE0\n" + "".join(l + "\n" for l in lines).encode() + b"\n" + body + b"\0" * 4)
    f.close()
    return f.name


def test_tfile_and_keys():
    path = _tfile([(k, k % 2, -k if k % 3 else None) for k in range(1, 31)],
                  actions=("R20", "M-1,1000,4"),
                  cmds=("collect $rdi, $cpu_id", "collect *(int *)0x1000"))
    try:
        tr = tfile.load(path)
        assert len(tr.frames) == 30 and tr.tsvs == {1: "cpu_id"}
        assert [keys.Key("rdi", tr)(f) for f in tr.frames] == list(range(1, 31))
        assert [keys.Key("$cpu_id", tr)(f) for f in tr.frames][:3] == [1, 0, 1]
        m = [keys.Key("*(int *)0x1000", tr)(f) for f in tr.frames]
        assert m[:3] == [-1, -2, summary.UNAVAILABLE], m[:3]
        assert keys.Key("mem:0x1000:4:u32", tr)(tr.frames[0]) == 0xffffffff
        # rsi was not collected (mask R20 = rdi only): unavailable, not 0
        assert keys.Key("rsi", tr)(tr.frames[0]) is summary.UNAVAILABLE
        assert keys.Key("rip", tr)(tr.frames[0]) == 0xffffffffc0001000 - (1 << 64)
        c = keys.Cond("$cpu_id == 1", tr)
        assert sum(1 for f in tr.frames if c(f)) == 15
        for bad, why in (("nosuch", "is not a register"), ("tsv:7", "no trace state"),
                         ("mem:0x1000:3", "SIZE must be")):
            try:
                keys.Key(bad, tr)
            except keys.KeyError_ as e:
                assert why in str(e), e
            else:
                raise AssertionError("key %r accepted" % bad)
    finally:
        os.unlink(path)


def test_tfile_refusals():
    with tempfile.NamedTemporaryFile(suffix=".tf", delete=False) as f:
        f.write(b"\x7fTRACE0\nR a4\n\n\x01\x00\xff\x00\x00\x00R")
    try:
        tfile.load(f.name)
    except TraceError as e:
        assert "truncated" in str(e), e
    else:
        raise AssertionError("a truncated frame was accepted")
    finally:
        os.unlink(f.name)


def test_reply_decoding():
    assert remote._decode(b"0* ") == b"0000"          # '*' run length: 3 more
    assert remote._decode(b"a}\x03b") == b"a#b"       # '}' escape


def _pkt(payload):
    return b"$%s#%02x" % (payload, sum(payload) & 0xff)


def test_bridge_drops_only_resends():
    """gdb's resend before any '+' is dropped; a repeat after gdb's '+' is
    a new command; with acks off nothing is dropped (the guest test
    test_ctl_target::test_stdio_started_slowly drives this with real gdb)."""
    b = bridge.Bridge()
    qs = _pkt(b"qSupported:multiprocess+")
    # the pipe started late: three copies arrive in pieces
    stream = b"+" + qs * 3
    got = b"".join(b.from_gdb(stream[i:i + 5]) for i in range(0, len(stream), 5))
    assert got == b"+" + qs and b.dropped == 2, (got, b.dropped)
    b.from_target(b"+" + _pkt(b"PacketSize=3fff"))
    st = _pkt(b"qTStatus")
    assert b.from_gdb(b"+" + st) == b"+" + st
    assert b.from_gdb(b"+" + st) == b"+" + st          # acked: a new command
    assert b.from_gdb(b"\x03") == b"\x03"
    assert b.from_gdb(b"+" + bridge._NOACK) == b"+" + bridge._NOACK
    b.from_target(b"+$O")                              # the OK, split
    b.from_target(b"K#9a")
    b.from_gdb(b"+")
    assert not b.acks
    assert b.from_gdb(st + st) == st + st              # no acks: no resends
    # a refused QStartNoAckMode keeps acks (and the resend filter) on
    b = bridge.Bridge()
    b.from_gdb(bridge._NOACK)
    b.from_target(b"+$#00")
    b.from_gdb(b"+")
    assert b.acks and b.from_gdb(st + st) == st


def test_cli_errors_and_help():
    for sub in ("hist", "count", "stats", "plot"):
        p = subprocess.run([CTL, sub, "--help"], stdout=subprocess.PIPE)
        assert p.returncode == 0 and b"KEY  := TERM" in p.stdout, sub
    p = subprocess.run([CTL, "hist", "rdi", "-f", "/nonexistent.tf"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.returncode == 1 and b"cannot read trace file" in p.stderr, p.stderr
    p = subprocess.run([CTL], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.returncode == 2, p.returncode


def test_commands_table_names_each_module():
    """gtp-ctl imports only the module of the command it runs
    (main.COMMANDS): each module's commands are listed under it, no other
    name is, and a listed command parses with its module alone."""
    import argparse
    import importlib
    from gtpctl import main
    seen = {}
    for name in main.SUBCOMMANDS:
        sub = argparse.ArgumentParser().add_subparsers()
        importlib.import_module("gtpctl." + name).register(sub, main._Formatter)
        for cmd in sub.choices:
            seen[cmd] = name
    assert seen == main.COMMANDS, (seen, main.COMMANDS)
    for cmd in main.COMMANDS:
        assert list(main.parser(cmd)._subparsers._group_actions[0].choices) == \
            [c for c, m in seen.items() if m == main.COMMANDS[cmd]], cmd
    # --help and an unknown name still see every command
    p = subprocess.run([CTL, "--help"], stdout=subprocess.PIPE)
    assert p.returncode == 0 and all(c.encode() in p.stdout for c in seen), p.stdout
    p = subprocess.run([CTL, "nosuch"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.returncode == 2 and b"fleet" in p.stderr and b"status" in p.stderr, p.stderr


class FakeAggTarget:
    """Answers qTfV/qTsV and qGtpAgg as module/core/tsv_packets.c documents
    them, pages of `page` keys; records what it was asked."""

    def __init__(self, tables, page=3):
        self.tables, self.page, self.asked = tables, page, []
        self.names = list(tables)
        self.next = 0

    def _tsv(self):
        if self.next >= len(self.names):
            return "l"
        name = self.names[self.next]
        self.next += 1
        return "%x:0:0:%s" % (self.next, name.encode().hex())

    def send(self, pkt):
        self.asked.append(pkt)
        if pkt == "qTfV":
            self.next = 0
            return self._tsv()
        if pkt == "qTsV":
            return self._tsv()
        parts = pkt.split(":")
        num = int(parts[1], 16)
        if num > len(self.names):
            return "E02"
        kind, counts, head = self.tables[self.names[num - 1]]
        if kind.startswith("E"):
            return kind

        def shex(v):
            return ("-%x" % -v) if v < 0 else "%x" % v
        keys_ = sorted(counts)
        if len(parts) == 3:
            cur = -int(parts[2][1:], 16) if parts[2][0] == "-" else int(parts[2], 16)
            keys_ = [k for k in keys_ if k > cur]
        more = kind == "c" and len(keys_) > self.page
        if kind == "c":
            keys_ = keys_[:self.page]
        body = "".join(";%s=%x" % (shex(k), counts[k]) for k in keys_)
        return "%s;%s%s;%s" % (kind, head, body, "m" if more else "l")


def test_agg_reads_every_page_and_prints_like_the_frames():
    """gtp-hist $hist_X prints what gtp-hist prints of the same values."""
    rnd = random.Random(31)
    vals = [rnd.randrange(-50, 1 << rnd.randrange(1, 30)) for _ in range(500)]
    buckets = {}
    for v in vals:
        buckets[summary.log2_bucket(v)] = buckets.get(summary.log2_bucket(v), 0) + 1
    keys_ = {}
    for v in vals:
        keys_[v % 7 - 3] = keys_.get(v % 7 - 3, 0) + 1
    fake = FakeAggTarget({
        "plain": ("E03", {}, ""),
        "hist_v": ("h", buckets, "n:%x;sum:%s;min:%s;max:%x" % (
            len(vals), ("-%x" % -sum(vals)) if sum(vals) < 0 else "%x" % sum(vals),
            "-%x" % -min(vals), max(vals))),
        "count_k": ("c", keys_, "n:%x;over:2;keys:%x" % (len(vals) + 2, len(keys_))),
    })
    h = agg.read(fake.send, "hist_v")
    assert (h.kind, h.n, h.sum, h.min, h.max) == ("h", len(vals), sum(vals), min(vals),
                                                   max(vals))
    col = summary.Collector()
    for v in vals:
        col.add(v)
    text = agg.format_agg("gtp-hist", h)
    assert text.split("\n", 1)[1] == summary.format_hist(col), text
    c = agg.read(fake.send, "count_k")
    assert c.counts == keys_ and c.overflow == 2 and c.nkeys == 7, c
    # three pages of 3, 3, 1 keys; each next page asks after the last key
    pages = [p for p in fake.asked if p.startswith("qGtpAgg:3")]
    assert pages == ["qGtpAgg:3", "qGtpAgg:3:-1", "qGtpAgg:3:2"], pages
    out = agg.format_agg("gtp-count", c, None)
    assert "<overflow>" in out and out.rstrip().endswith(
        "7 distinct key(s), %d value(s)" % (len(vals) + 2)), out
    for name, why in (("count_none", "no trace state variable $count_none"),
                      ("plain", "not an aggregating variable (E03)")):
        try:
            agg.read(fake.send, name)
            raise AssertionError("read %s" % name)
        except TraceError as e:
            assert why in str(e), e
    assert agg.agg_name("$hist_lat") == "hist_lat" and agg.agg_name("$hist_") is None
    assert agg.agg_name("hist_lat") is None and agg.agg_name("$count_x ") == "count_x"


def test_agg_keys_as_symbols():
    """`gtp-ctl agg --sym`: a key that is a kernel address (negative, as
    the target's signed keys come) is named symbol+offset from kallsyms;
    a key no symbol covers stays a number; the counts are the same."""
    from gtpctl import cmd_summary, ksyms
    with tempfile.NamedTemporaryFile("w", suffix=".kallsyms", delete=False) as f:
        f.write("ffffffff818bc140 T __udp4_lib_rcv\n"
                "ffffffff818bd260 T udp_rcv\n"
                "ffffffffc0001000 t gtp_test_function\t[gtp_test]\n")
    try:
        text = cmd_summary._symbol_text(ksyms.Kallsyms(f.name))
    finally:
        os.unlink(f.name)
    udp = 0xffffffff818bc140 + 0x84 - (1 << 64)
    counts = {udp: 40, 0xffffffff818bd260 + 7 - (1 << 64): 2,
              0xffffffffc0001000 - (1 << 64): 1, 5: 3}
    assert agg.address(udp) == 0xffffffff818bc1c4
    c = agg.Agg(name="count_callers", kind="c", n=46, nkeys=4, counts=counts)
    out = agg.format_agg("gtp-count", c, None, text)
    rows = [ln.split("|")[0].split() for ln in out.splitlines()[1:5]]
    assert rows == [["[__udp4_lib_rcv+0x84]", "40"], ["[5]", "3"], ["[udp_rcv+0x7]", "2"],
                    ["[gtp_test:gtp_test_function+0x0]", "1"]], out
    plain = agg.format_agg("gtp-count", c, None)
    assert "[%d]" % udp in plain and "udp4" not in plain, plain


def test_pcpu_reads_every_page_and_sums():
    """gtp-percpu's reader: qGtpPcpu pages as tsv_packets.c gives them
    (64 CPUs a page, "m" until the last), negative values, the sum;
    the target's refusals worded."""
    vals = {cpu: (cpu * 7 if cpu % 3 else -cpu) for cpu in range(150)}
    asked = []

    def send(p):
        asked.append(p)
        if p == "qTfV":
            return "1:0:0:%s" % b"hits".hex()
        if p == "qTsV":
            return "2:0:0:%s" % b"p_calls".hex() if asked.count("qTsV") == 1 else "l"
        parts = p.split(":")
        if parts[1] != "2":
            return "E03"
        start = int(parts[2], 16) if len(parts) == 3 else 0
        cpus = [c for c in sorted(vals) if c >= start][:64]
        body = "".join(";%x=%s" % (c, ("-%x" % -vals[c]) if vals[c] < 0 else "%x" % vals[c])
                       for c in cpus)
        return "p%s;%s" % (body, "m" if cpus[-1] < 149 else "l")
    got = pcpu.read(send, "p_calls")
    assert got == sorted(vals.items()), got
    assert [p for p in asked if p.startswith("qGtpPcpu")] == \
        ["qGtpPcpu:2", "qGtpPcpu:2:40", "qGtpPcpu:2:80"], asked
    text = pcpu.format_pcpu("p_calls", got)
    assert text.splitlines()[0] == "gtp-percpu $p_calls: %d on 150 CPU(s)" % sum(vals.values())
    assert "cpu 3: -3" in text.splitlines()
    assert pcpu.pcpu_name("$p_calls") == "p_calls" and pcpu.pcpu_name("$hits") is None
    for reply, words in (("E03", "not a per-CPU variable"), ("x;l", "unexpected reply")):
        try:
            pcpu._parse("p_x", reply)
        except TraceError as e:
            assert words in str(e), e
        else:
            raise AssertionError(reply)


if __name__ == "__main__":
    sys.exit(tap.main(globals()))
