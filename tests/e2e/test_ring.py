"""Trace frames from both CPUs at once, in both buffer modes.

Two processes pinned to CPU 0 and CPU 1 run the Fig. 11 loop at the same
time under `trace gtp_test_function` collecting the registers (counter1 in
rdi, counter2 in rsi), $cpu_id and $rdtsc.  The frames are saved with
tsave and parsed here from the trace file (format: protocol reference 6),
so every frame is checked, not a sample:

- none torn: counter2 == counter1 - 1 and the CPU is one of the two;
- per CPU, frames come in call order with increasing $rdtsc, and the
  global frame order is time order up to the few-cycle gap between a
  hit's $rdtsc and the frame's own timestamp;
- discard mode, room for all: frames == created == hits, no drop;
- discard mode, small buffer: the trace stops full, nothing lost silently;
- circular mode, small buffer: created == hits, the frames kept are the
  newest of each CPU (a run of calls ending at the last one, if any).
"""
import struct

from gtplib import GDB_HEAD, gdb_script, expect, expect_not, reset_target

N = 400                     # calls per CPU
TF = "/tmp/ring_e2e.tf"
# Holds about a quarter of the 2 * N frames: each is an 80-byte ring
# record (header, an 'r' block of rsi, rdi and rip, two V blocks); 64 KiB
# held them all once the frames stored only the registers collected.
SMALL = 16 << 10

HEAD = GDB_HEAD


def run(circular, size):
    # Earlier sessions leave their definitions on the target (gdb would
    # adopt them): start from nothing.
    reset_target()
    body = """tvariable $cpu_id
tvariable $rdtsc
set circular-trace-buffer %s
set trace-buffer-size %d
trace gtp_test_function
actions
collect $rdi, $rsi, $cpu_id, $rdtsc
end
tstart
shell taskset -c 0 sh -c 'echo %d > /proc/gtp_test' & taskset -c 1 sh -c 'echo %d > /proc/gtp_test' & wait
tstop
tstatus
tsave %s
delete
set circular-trace-buffer off
set trace-buffer-size unlimited
""" % ("on" if circular else "off", size, N, N, TF)
    out = gdb_script(HEAD + body, timeout=300)
    expect_not(out, r"Fatal signal|internal-error|Remote connection closed|"
               r"Remote failure")
    return out, parse(TF)


def parse(path):
    data = open(path, "rb").read()
    assert data.startswith(b"\x7fTRACE0\n"), data[:16]
    end = data.index(b"\n\n", 8)
    defs = data[8:end].decode().split("\n")
    pos = end + 2
    regsize = None
    tsv = {}
    status = {}
    hits = 0
    for d in defs:
        if d.startswith("R "):
            regsize = int(d[2:], 16)
        elif d.startswith("tsv "):
            num, _, _, name = d[4:].split(":")[:4]
            tsv[int(num, 16)] = bytes.fromhex(name).decode()
        elif d.startswith("status "):
            for kv in d[7:].split(";"):
                if ":" in kv:
                    k, v = kv.split(":", 1)
                    status[k] = v
        elif d.startswith("tp V"):
            hits += int(d[4:].split(":")[2], 16)
    assert regsize, defs
    frames = []
    while True:
        tpnum, = struct.unpack_from("<h", data, pos)
        if tpnum == 0:          # end marker
            break
        size, = struct.unpack_from("<I", data, pos + 2)
        pos += 6
        blk, stop = pos, pos + size
        f = {}
        while blk < stop:
            kind = data[blk:blk + 1]
            if kind == b"R":
                regs = data[blk + 1:blk + 1 + regsize]
                f["rsi"], f["rdi"] = struct.unpack_from("<qq", regs, 4 * 8)
                blk += 1 + regsize
            elif kind == b"V":
                num, val = struct.unpack_from("<iq", data, blk + 1)
                f[tsv.get(num, num)] = val
                blk += 13
            elif kind == b"M":
                _, ln = struct.unpack_from("<QH", data, blk + 1)
                blk += 11 + ln
            else:
                raise AssertionError("block %r in frame %d" % (kind, len(frames)))
        assert blk == stop, (blk, stop)
        pos = stop
        frames.append(f)
    return status, hits, frames


def check_frames(frames):
    """Not torn; per-CPU call and time order; global time order."""
    per_cpu = {0: [], 1: []}
    for i, f in enumerate(frames):
        assert f["rsi"] == f["rdi"] - 1, (i, f)
        assert f["cpu_id"] in per_cpu, (i, f)
        per_cpu[f["cpu_id"]].append(f)
    for cpu, fs in per_cpu.items():
        for a, b in zip(fs, fs[1:]):
            assert b["rdi"] == a["rdi"] + 1, (cpu, a, b)
            assert b["rdtsc"] > a["rdtsc"], (cpu, a, b)
    # Frames are ordered by the ring's own timestamp, taken a little after
    # $rdtsc was read: allow only a few near-ties to invert.
    inversions = sum(1 for a, b in zip(frames, frames[1:])
                     if b["rdtsc"] < a["rdtsc"])
    assert inversions <= max(2, len(frames) // 20), inversions
    return per_cpu


def test_discard_room_for_all():
    """Python: every frame of the trace file, parsed here, checked."""
    out, (status, hits, frames) = run(False, 4 << 20)
    assert hits == 2 * N, (hits, out)
    assert len(frames) == 2 * N, (len(frames), status)
    assert int(status["tframes"], 16) == 2 * N, status
    assert int(status["tcreated"], 16) == 2 * N, status
    per_cpu = check_frames(frames)
    for cpu in (0, 1):
        assert [f["rdi"] for f in per_cpu[cpu]] == list(range(1, N + 1)), cpu


def test_discard_full_stops():
    """Python: every frame of the trace file, parsed here, checked."""
    out, (status, hits, frames) = run(False, SMALL)
    expect(out, r"^Trace stopped because the buffer was full\.$")
    assert "tfull" in status, status
    created = int(status["tcreated"], 16)
    assert len(frames) == int(status["tframes"], 16) == created, status
    assert 0 < created < 2 * N, status
    assert hits >= created, (hits, created)
    per_cpu = check_frames(frames)
    for cpu in (0, 1):                  # the oldest are kept
        vals = [f["rdi"] for f in per_cpu[cpu]]
        assert vals == list(range(1, len(vals) + 1)), (cpu, vals)


def test_circular_keeps_newest():
    """Python: every frame of the trace file, parsed here, checked."""
    out, (status, hits, frames) = run(True, SMALL)
    assert hits == 2 * N, (hits, out)
    assert status.get("circular") == "1", status
    assert int(status["tcreated"], 16) == 2 * N, status
    assert len(frames) == int(status["tframes"], 16), status
    assert 0 < len(frames) < 2 * N, status
    per_cpu = check_frames(frames)
    for cpu in (0, 1):                  # the newest are kept
        # (a global store may have overwritten all of a CPU that
        # finished first; per-CPU buffers keep each CPU's newest)
        vals = [f["rdi"] for f in per_cpu[cpu]]
        assert vals == list(range(N - len(vals) + 1, N + 1)), (cpu, vals)
