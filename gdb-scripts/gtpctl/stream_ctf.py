# SPDX-License-Identifier: GPL-2.0
"""gtpctl/stream_ctf.py - a run's frames as a CTF trace (ctf.py).

One CTF packet per PACKET record (one ring sub-buffer of one CPU), one
data stream per CPU.  Each frame becomes an event of a class chosen by
its tracepoint and its shape (which blocks, in which order, how long):
registers by name (an 'r' block's registers only: those its R action
named, rip always), trace state variables by name, $_sdata as the static
event's own fields (named by the DEFS `sdata` line), $kstack as a
sequence of return addresses, $ustack as its program's text start and a
sequence of addresses, other memory by its `collect` item where
that is unambiguous (Tracepoint.mem_names), else mem0, mem1...  Event
names are tp<N>, plus the location (`tp1_gtp_test_function`; a `trace
*ADDR` location is named from /proc/kallsyms on the live target, a
static tracepoint by its event: `tp2_gtp_test_event`), plus _2, _3... for
further shapes of one tracepoint.  The metadata is rewritten as classes
appear.

Speed: converting a frame costs two struct unpacks and one pack: a frame's
layout is compiled once per (tracepoint, frame size) into a check (block
types, lengths, special addresses), a `take` Struct that lifts the bytes
to keep, and the event's Struct; every field is passed through as the
frame's own little-endian bytes.  The check does not look at the address
of a memory block named mem<k> (it may change from hit to hit), only at
those of $_sdata, $kstack, $ustack and named blocks.

Lost frames: each PACKET and END carries its CPU's lost count so far;
it is the packet's events_discarded, and babeltrace2 warns about the
increase between two packets.  A CPU whose first packet already lost
frames gets an empty packet at the run's start first (so the count is
exact), and one whose count rose after its last packet an empty one at
the end.
"""
from __future__ import annotations

import os
import struct
import uuid as uuidlib
from typing import TYPE_CHECKING, Any, Callable, Optional

from . import ctf, ksyms
from .abi import KSTACK_ADDR, RSUB_BLOCK, SDATA_ADDR, USTACK_ADDR
from .stream_defs import FRAME_HEAD, REGSIZE, RING_DATA, RING_REC
from .trace import REGS32, REGS64, TraceError, reg_offset, rsub_regs, walk_blocks

if TYPE_CHECKING:
    from .stream_defs import Defs
    from .trace import Tracepoint

MAX_PLANS = 1 << 16                     # compiled layouts kept per run


def _symbol_event(name):
    """A kallsyms name of a location as an event name: `vfs_read` for
    vfs_read+0x0, the event for a static tracepoint's __traceiter_EVENT;
    "" when the address is far into a symbol (probably not its code)."""
    name = name.split(":", 1)[-1]
    sym, _, off = name.partition("+")
    off = int(off, 16) if off else 0
    if off >= 0x1000:
        return ""
    if sym.startswith("__traceiter_"):
        sym = sym[len("__traceiter_"):]
    return sym if not off else "%s+0x%x" % (sym, off)


def event_base_name(tp: Optional[Tracepoint], num: int,
                    symbolize: Optional[Callable[[int], Optional[str]]] = None) -> str:
    """tp<N>, plus the tracepoint's location when it has a name: gdb's
    source text of it, or for `trace *0xADDR` (and gtp-strace) ADDR's
    symbol on the live target."""
    at = (tp.at or "").strip() if tp else ""
    if at.startswith("-m "):                # strace -m MARKER
        at = at[3:].strip()
    if at.startswith("*"):
        at = at[1:].strip()
        try:
            addr = int(at, 0)
        except ValueError:
            addr = None                     # *vfs_read+16: the text names it
        if addr is not None:
            name = symbolize(addr) if symbolize else None
            at = _symbol_event(name) if name else ""
    base = "tp%d" % num
    return "%s_%s" % (base, ctf.display_name(at)[:48]) if at else base


class _Layout:
    """A frame shape being compiled: what to check, what to take, what the
    event's fields are."""

    def __init__(self):
        self.check, self.expect = ["<"], []
        self.take = []                # ("x", n) skip | ("s", n) keep | ("c", bytes) constant
        self.fields = []
        self.counts = []              # element counts of the sequences

    def skip(self, n):
        if n:
            self.take.append(("x", n))

    def keep(self, n):
        if n:
            self.take.append(("s", n))

    def compile(self):
        """(check Struct, expected tuple, take Struct, out format without
        the event header, constants [(value index, bytes)])"""
        merged = []
        for kind, n in self.take:
            if merged and merged[-1][0] == kind and kind != "c":
                merged[-1] = (kind, merged[-1][1] + n)
            else:
                merged.append((kind, n))
        take, out, consts, nvals = ["<"], [], [], 0
        for kind, n in merged:
            if kind == "x":
                take.append("%dx" % n)
            elif kind == "s":
                take.append("%ds" % n)
                out.append("%ds" % n)
                nvals += 1
            else:
                out.append("%ds" % len(n))
                consts.append((nvals, n))
                nvals += 1
        return (struct.Struct("".join(self.check)), tuple(self.expect),
                struct.Struct("".join(take)), "".join(out), consts)


class Host:
    """What the trace says about the traced machine.  Only the live target
    is known to be this machine: a replayed stream gets a name (--hostname)
    and nothing else."""

    def __init__(self, name: str, live: bool = False, mapping: Optional[ClockMapping] = None
                 ) -> None:
        self.name = name
        self.mapping = mapping
        self.kernel = self.tracer = self.clock_uuid = self.symbolize = None
        if live:
            u = os.uname()
            self.kernel = (u.sysname, u.release, u.version)
            self.tracer = _tracer_version()
            self.clock_uuid = _clock_uuid()
            self.symbolize = _Symbols()

    def env(self) -> dict[str, Any]:
        env = {"hostname": self.name, "domain": "kernel"}
        if self.kernel:
            env["sysname"], env["kernel_release"], env["kernel_version"] = self.kernel
        env["tracer_name"] = "gtp"
        if self.tracer:
            env["tracer_major"], env["tracer_minor"] = self.tracer
        if self.mapping:
            env["clock_offset_ns"] = self.mapping.offset_ns
            env["clock_offset_uncertainty_ns"] = self.mapping.uncertainty_ns
        return env


class ClockMapping:
    """This host's CLOCK_REALTIME minus a reference machine's (gtp-ctl
    fleet measures it over its ssh channel: fleet_clock.py), to within
    uncertainty_ns.  The trace's clock offset is the reference's time at
    TSC 0 rather than this host's, so the traces of several hosts sit on
    the reference's timeline whatever their own clocks say."""

    def __init__(self, offset_ns: int, uncertainty_ns: int) -> None:
        self.offset_ns = int(offset_ns)
        self.uncertainty_ns = int(uncertainty_ns)

    def clock(self, name: str, freq: int, cycles: int, real_ns: int, host: str,
              **kw: Any) -> ctf.Clock:
        return ctf.Clock.from_sample(
            name, freq, cycles, real_ns - self.offset_ns,
            precision=-(-self.uncertainty_ns * freq // 10**9),
            description="TSC of %s; offset: the fleet controller's CLOCK_REALTIME at "
                        "TSC 0 (this host's minus %d ns, +-%d ns)"
                        % (host, self.offset_ns, self.uncertainty_ns), **kw)


class RunTrace:
    """One run written as one CTF trace."""

    def __init__(self, defs: Defs, path: str, host: Host, tap: Any = None) -> None:
        self.defs = defs
        self.run = defs.run
        self.path = path
        self.symbolize = host.symbolize
        self.start_ts = None          # the DEFS record's ts_begin
        c = defs.clock
        if host.mapping is not None:
            clock = host.mapping.clock("gtp_tsc", c["tsc_khz"] * 1000, c["tsc"],
                                       c["real_ns"], host.name, uuid=host.clock_uuid)
        else:
            clock = ctf.Clock.from_sample(
                "gtp_tsc", c["tsc_khz"] * 1000, c["tsc"], c["real_ns"], uuid=host.clock_uuid,
                description="TSC of %s; offset: CLOCK_REALTIME at TSC 0" % host.name)
        env = host.env()
        env.update({"gtp_run": defs.run, "gtp_stream_version": defs.version,
                    "tsc_khz": c["tsc_khz"], "cpus": defs.cpus})
        for k in ("size", "subbuf", "circular"):
            if k in defs.buffer:
                env["buffer_" + k] = defs.buffer[k]
        self.ctf = ctf.Trace(path, clock, env, tap=tap)
        self.plans = {}               # (tpnum, size) -> plan
        self.classes = {}             # (tpnum, fields) -> EventClass
        self.shapes = {}              # tpnum -> number of classes so far
        self.lost = {}                # cpu -> lost so far
        self.ended = set()
        self.events = 0
        self.last_ts = 0

    # -- records ---------------------------------------------------------
    def packet(self, cpu: int, ts_begin: int, ts_end: int, lost: int, buf: bytes, start: int,
               end: int) -> None:
        events = self._events(buf, start, end)
        self.lost[cpu] = max(lost, self.lost.get(cpu, 0))
        if not events:
            return              # nothing to write; the next packet carries lost
        s = self._stream(cpu, lost, ts_begin)
        s.packet(ts_begin, ts_end, b"".join(events), lost)
        self.events += len(events)
        self.last_ts = max(self.last_ts, ts_end)

    def end(self, cpu: int, lost: int) -> None:
        """END of cpu: the lost frames after its last packet get an empty
        packet, so they are reported too."""
        self.ended.add(cpu)
        self.lost[cpu] = max(lost, self.lost.get(cpu, 0))
        s = self.ctf.streams.get(cpu)
        if lost and (s is None or lost > s.discarded):
            ts = max(s.last_ts if s else 0, self.last_ts, self.start_ts or 0)
            s = self._stream(cpu, lost, ts)
            s.packet(ts, ts, b"", lost)

    def complete(self) -> bool:
        return len(self.ended) >= self.defs.cpus

    def _stream(self, cpu, lost, first_ts):
        """cpu's data stream; a new one whose first packet reports lost
        frames starts with an empty packet at the run's start, so that
        babeltrace2 can count them (it cannot for a first packet)."""
        s = self.ctf.streams.get(cpu)
        if s is None:
            s = self.ctf.stream(cpu)
            if lost:
                ts = min(first_ts, self.start_ts if self.start_ts is not None else first_ts)
                s.packet(ts, ts, b"", 0)
        return s

    # -- frames ----------------------------------------------------------
    def _events(self, buf, o, end):
        """The encoded events of the ring records in buf[o:end]."""
        out = []
        append = out.append
        plans = self.plans
        rec = RING_REC.unpack_from
        head = FRAME_HEAD.unpack_from
        while o < end:
            ts, ln, typ = rec(buf, o)
            fo = o + 16
            o = fo + ((ln + 7) & ~7)
            if typ != RING_DATA:
                continue
            tpnum, size = head(buf, fo)
            if size + 6 > ln or o > end:
                raise TraceError("a ring record of %d bytes holds a frame of %d: "
                                 "the stream is corrupt" % (ln, size + 6))
            fo += 6
            p = plans.get((tpnum, size))
            if p is None or p[0](buf, fo) != p[1]:
                p = self._plan(tpnum, size, buf, fo)
            if p[5] is None:
                append(p[3](p[4], ts, *p[2](buf, fo)))
            else:
                append(p[5](ts, buf, fo))
        return out

    def _plan(self, tpnum, size, buf, fo):
        """Compile the layout of the frame at buf[fo:fo+size] (blocks only)
        and remember it for its (tracepoint, size)."""
        try:
            blocks = walk_blocks(buf, REGSIZE, fo, fo + size)
        except TraceError as e:
            raise TraceError("tracepoint %d's frame: %s" % (tpnum, e))
        lay = _Layout()
        tp = self.defs.trace.tracepoints.get(tpnum)
        names = tp.mem_names() if tp else {}
        nmem = 0
        for kind, i, a, b in blocks:
            if kind == "R":
                self._regs(lay)
            elif kind == "r":
                self._rsub(lay, a, b)
            elif kind == "V":
                lay.check.append("Bi8x")
                lay.expect += [0x56, a]
                lay.skip(5)
                lay.keep(8)
                lay.fields.append(ctf.Field(self.defs.trace.tsvs.get(a, "tsv%d" % a), 64, True))
            elif a == SDATA_ADDR and b >= 16 and b % 8 == 0:
                self._sdata(lay, tpnum, a, b)
            elif a == KSTACK_ADDR and b % 8 == 0:
                lay.check.append("BQH%dx" % b)
                lay.expect += [0x4d, a, b]
                lay.skip(11)
                lay.take.append(("c", struct.pack("<Q", b // 8)))
                lay.keep(b)
                lay.fields += [ctf.Field("kstack_len"), ctf.Field("kstack", hex=True, seq=True)]
                lay.counts.append(b // 8)
            elif a == USTACK_ADDR - 8 and b >= 16 and b % 8 == 0:
                # the program's text start, then the user stack
                lay.check.append("BQH%dx" % b)
                lay.expect += [0x4d, a, b]
                lay.skip(11)
                lay.keep(8)
                lay.take.append(("c", struct.pack("<Q", b // 8 - 1)))
                lay.keep(b - 8)
                lay.fields += [ctf.Field("ustack_text", hex=True), ctf.Field("ustack_len"),
                               ctf.Field("ustack", hex=True, seq=True)]
                lay.counts.append(b // 8 - 1)
            else:
                name = names.get((a, b))
                if name is None:
                    name = "mem%d" % nmem
                    nmem += 1
                    lay.check.append("B8xH%dx" % b)     # any address
                    lay.expect += [0x4d, b]
                else:
                    lay.check.append("BQH%dx" % b)
                    lay.expect += [0x4d, a, b]
                self._mem(lay, name, b)
        return self._remember(tpnum, size, lay)

    @staticmethod
    def _regs(lay):
        lay.check.append("B%dx" % REGSIZE)
        lay.expect.append(0x52)
        lay.skip(1)
        lay.keep(REGSIZE)
        for num, name in enumerate(REGS64 + REGS32):
            lay.fields.append(ctf.Field(name, reg_offset(num)[1] * 8, hex=True))

    @staticmethod
    def _rsub(lay, mask, ln):
        """An 'r' block: the registers of its mask, as in an R block."""
        lay.check.append("BI%dx" % ln)
        lay.expect += [RSUB_BLOCK, mask]
        lay.skip(5)
        lay.keep(ln)
        names = REGS64 + REGS32
        for num in rsub_regs(mask):
            lay.fields.append(ctf.Field(names[num], reg_offset(num)[1] * 8, hex=True))

    def _sdata(self, lay, tpnum, addr, ln):
        """$_sdata: word i as the static event's field i (its low SIZE
        bytes), arg<i+1> where the DEFS named none."""
        lay.check.append("BQH%dx" % ln)
        lay.expect += [0x4d, addr, ln]
        lay.skip(11 + 16)                   # marker address, nwords, unread
        named = self.defs.sdata.get(tpnum, [])
        for w in range((ln - 16) // 8):
            name, size, signed = named[w] if w < len(named) else ("arg%d" % (w + 1), 8, False)
            if size not in (1, 2, 4, 8):
                size, signed = 8, False
            lay.keep(size)
            lay.skip(8 - size)
            lay.fields.append(ctf.Field(name, size * 8, signed))

    @staticmethod
    def _mem(lay, name, ln):
        """A memory block: its address and value (1, 2, 4 or 8 bytes: a
        signed integer), or its address, length and bytes."""
        lay.skip(1)
        if ln in (1, 2, 4, 8):
            lay.keep(8)
            lay.skip(2)
            lay.keep(ln)
            lay.fields += [ctf.Field(name + "_addr", hex=True), ctf.Field(name, ln * 8, True)]
        else:
            lay.keep(10 + ln)
            lay.fields += [ctf.Field(name + "_addr", hex=True), ctf.Field(name + "_len", 16),
                           ctf.Field(name, 8, hex=True, seq=True)]
            lay.counts.append(ln)

    def _remember(self, tpnum, size, lay):
        check, expect, take, out_fmt, consts = lay.compile()
        ec = self._event_class(tpnum, lay.fields)
        out = struct.Struct(ctf.EVENT_HEADER + out_fmt)
        if out.size != struct.calcsize(ec.format(tuple(lay.counts))):
            raise AssertionError("event layout of %s differs from ctf.py's" % ec.name)
        conv = None
        if consts:
            conv = _with_constants(out.pack, ec.id, take.unpack_from, consts)
        plan = (check.unpack_from, expect, take.unpack_from, out.pack, ec.id, conv)
        if len(self.plans) >= MAX_PLANS:
            self.plans.clear()
        self.plans[(tpnum, size)] = plan
        return plan

    def _event_class(self, tpnum, fields):
        key = (tpnum, tuple((f.name, f.bits, f.signed, f.hex, f.seq) for f in fields))
        ec = self.classes.get(key)
        if ec is None:
            k = self.shapes.get(tpnum, 0) + 1
            self.shapes[tpnum] = k
            name = event_base_name(self.defs.trace.tracepoints.get(tpnum), tpnum,
                                   self.symbolize)
            ec = self.classes[key] = self.ctf.event_class(
                name if k == 1 else "%s_%d" % (name, k), fields)
        return ec

    def flush(self) -> None:
        self.ctf.flush()

    def close(self) -> None:
        self.ctf.close()


def _with_constants(pack, cid, take, consts):
    """An event encoder for a layout with constants among the values (a
    sequence's element count)."""
    def conv(ts, buf, fo):
        vals = list(take(buf, fo))
        for k, c in consts:
            vals.insert(k, c)
        return pack(cid, ts, *vals)
    return conv


def _tracer_version():
    """(major, minor) of the loaded gtptrace.ko, or None."""
    try:
        with open("/sys/module/gtptrace/version") as f:
            major, minor = f.read().strip().split(".")[:2]
        return int(major), int(minor)
    except (OSError, ValueError):
        return None


def _clock_uuid():
    """The TSC clock of this boot: one UUID for every run of the boot."""
    try:
        return str(uuidlib.uuid5(uuidlib.UUID(ksyms.boot_id()), "gtp_tsc"))
    except ValueError:
        return None


class _Symbols:
    """/proc/kallsyms, read the first time a location needs a name."""

    def __init__(self):
        self.ks = None
        self.failed = False

    def __call__(self, addr):
        if self.ks is None and not self.failed:
            try:
                self.ks = ksyms.Kallsyms()
            except TraceError:
                self.failed = True
        return self.ks.name(addr) if self.ks else None
