#!/usr/bin/env python3
"""Streaming throughput on the host: the copy path against the conversion.

    python3 tests/bench/stream_host.py [EVENTS]

A synthetic producer (a child process) writes a record stream as
/proc/gtp_stream hands it out: one DEFS record, then PACKET records of
64 KiB sub-buffers full of the Fig. 11 frame (`collect $v`: a 'V' block,
40 bytes a ring record), alternating between two CPUs, then the END
records.  It writes into a pipe, in reads' worth (128 KiB), as fast as
the pipe takes them.

  copy     gtp-ctl stream's reading process (gtpctl/cmd_stream.py _copy
           and copier.py): the pipe to a spool file, record headers only
  convert  the conversion of the same bytes to CTF (streamer.py), the
           child process that follows the spool

Rows: events/s and MB/s, and the ratio of the two.  The copy rate is what
the consumer sustains without loss as long as the ring it drains holds a
poll interval's worth of events (the conversion may fall behind: it reads
the spool).  Wall clock: compare the rows of one run.
"""
import fcntl
import os
import shutil
import struct
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "gdb-scripts"))

from gtpctl import cmd_stream, stream_ctf  # noqa: E402
from gtpctl.copier import Copier  # noqa: E402
from gtpctl.stream_defs import FORMAT_VERSION, REC  # noqa: E402
from gtpctl.streamer import Streamer  # noqa: E402

SUBBUF = 64 << 10
READ = 128 << 10                # what one read of the proc file hands out at most
A1 = 0xffffffffc0a01000
KHZ, TSC = 2893123, 5 * 10**12


def _rec(typ, cpu, run, payload=b"", tsb=0, tse=0, seq=0, lost=0):
    return REC.pack(0x53505447, typ, cpu, len(payload), run, tsb, tse, seq, lost) + payload


def _defs():
    text = "\n".join([
        "gtp-stream %d" % FORMAT_VERSION, "run 1",
        "clock tsc_khz=%d tsc=%d real_ns=1760000000123456789 mono_ns=1" % (KHZ, TSC),
        "cpus 2", "buffer size=1048576 subbuf=%d circular=0" % SUBBUF,
        "tsv 1:0:0:%s" % b"v".hex(), "tp T1:%x:E:0:0" % A1,
        "tp Z1:%x:at:0:11:%s" % (A1, b"gtp_test_function".hex()),
        "tp Z1:%x:cmd:0:9:%s" % (A1, b"collect $v".hex()), "end"]) + "\n"
    b = text.encode()
    return _rec(1, 0, 1, b + b"\0" * (-len(b) % 8), tsb=TSC)


def _packet(cpu, seq, first_k, n):
    """n Fig. 11 frames, calls first_k.., as one sub-buffer."""
    recs = []
    ts = TSC + 100 * first_k
    for k in range(first_k, first_k + n):
        frame = struct.pack("<hIciq", 1, 13, b"V", 1, 5 * k - 3)
        recs.append(struct.pack("<QII", ts + 100 * (k - first_k), len(frame), 1)
                    + frame + b"\0" * (-len(frame) % 8))
    body = b"".join(recs)
    return _rec(2, cpu, 1, body, ts, ts + 100 * (n - 1), seq, 0)


def stream(events):
    """(the record stream, events in it, bytes per event)."""
    per = SUBBUF // 40
    parts, k, seq = [_defs()], 1, [0, 0]
    while k <= events:
        n = min(per, events - k + 1)
        cpu = (k // per) % 2
        parts.append(_packet(cpu, seq[cpu], k, n))
        seq[cpu] += 1
        k += n
    parts += [_rec(3, 0, 1), _rec(3, 1, 1)]
    data = b"".join(parts)
    return data, events, len(data) / events


def produce(data, fd):
    for o in range(0, len(data), READ):
        view = memoryview(data)[o:o + READ]
        while view:
            view = view[os.write(fd, view):]
    os.close(fd)


def copy_rate(data, spool):
    """Seconds for the copy path to move data from a producer's pipe to
    the spool, and whether it ended where the stream ends."""
    r, w = os.pipe()
    try:                        # a ring's worth in flight, as the proc file has
        fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, 1 << 20)
    except OSError:
        pass
    pid = os.fork()
    if pid == 0:
        os.close(r)
        produce(data, w)
        os._exit(0)
    os.close(w)
    out = os.open(spool, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    cp = Copier("pipe", True)
    t0 = time.perf_counter()
    cmd_stream._copy(cp, r, out, lambda: False, 0.001, lambda: True)
    t = time.perf_counter() - t0
    os.close(out)
    os.close(r)
    os.waitpid(pid, 0)
    return t, cp.done and os.path.getsize(spool) == len(data)


def convert_rate(data, d):
    st = Streamer(d, "bench", True, stream_ctf.Host("bench"))
    t0 = time.perf_counter()
    for o in range(0, len(data), 1 << 20):
        st.feed(data[o:o + (1 << 20)])
    st.close()
    return time.perf_counter() - t0, st.events()


def main():
    events = int(sys.argv[1]) if len(sys.argv) > 1 else 2000000
    data, n, per = stream(events)
    tmp = tempfile.mkdtemp(prefix="gtp-stream-host-")
    try:
        tc, whole = copy_rate(data, os.path.join(tmp, "spool"))
        tv, converted = convert_rate(data, os.path.join(tmp, "ctf"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if not whole or converted != n:
        print("failed: copy whole=%s, converted %d of %d events" % (whole, converted, n))
        return 1
    print("gtp-ctl stream on the host: %d Fig. 11 events, %.1f bytes/event, "
          "synthetic producer" % (n, per))
    print("%-8s %14s %10s" % ("path", "events/s", "MB/s"))
    for name, t in (("copy", tc), ("convert", tv)):
        print("%-8s %14.0f %10.1f" % (name, n / t, len(data) / t / 1e6))
    print("copy / convert: %.1fx" % (tv / tc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
