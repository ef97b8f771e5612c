# SPDX-License-Identifier: GPL-2.0
"""gtpctl/ctf.py - write a CTF 1.8 trace (https://diamon.org/ctf/v1.8.3/)
that babeltrace2 reads (tests/ctf/test_ctf_writer.py checks it with 2.0).

A trace is a directory: `metadata` (TSDL text) and one data stream file
per CPU, `stream_<cpu>`, made of packets.  This module knows CTF, not
gtp: the caller declares event classes (a name and integer fields), hands
over packets of encoded events and says how many events the tracer lost.

Choices that make the writer cheap and the trace easy to read:

  - one stream class (id 0); every integer is byte-aligned (align = 8
    bits), so an event is its header (u32 class id, u64 timestamp) then
    the fields' little-endian encodings back to back, with no padding:
    a caller can build events with one precompiled struct.Struct and pass
    byte strings through untouched (EventClass.format() is that layout);
  - a sequence field (Field(seq=True)) takes its length from the field
    just before it and is passed as the raw bytes of its elements;
  - the clock is absolute (its offset is the CLOCK_REALTIME of cycle 0),
    so babeltrace2 puts traces of several machines on one time axis
    (`babeltrace2 DIR1 DIR2`): its muxer accepts clock classes of
    different traces only when all have a Unix-epoch origin (or share one
    UUID);
  - events_discarded in each packet context is the stream's running count
    of lost events; babeltrace2 reports an increase from one packet to the
    next as "discarded events" between the two;
  - the metadata is rewritten (temporary file, then rename) before a
    packet that uses an event class it does not list yet, so what is on
    disk is always a complete trace; files starting with '.' are ignored
    by readers, so the temporary file never looks like a stream.
"""
from __future__ import annotations

import os
import struct
import uuid as uuidlib
from fractions import Fraction
from typing import Any, Optional, Sequence

MAGIC = 0xC1FC1FC1
EVENT_HEADER = "<IQ"        # id, timestamp: the start of every event's format
# packet header (magic, uuid, stream_id, stream_instance_id) and context
# (timestamp_begin, timestamp_end, content_size, packet_size,
# packet_seq_num, events_discarded, cpu_id), packed as declared below
PACKET_HEAD = struct.Struct("<I16sIQQQQQQQI")

# TSDL keywords (babeltrace2's lexer) and the type names declared below:
# neither can name a field
_TYPE_NAMES = ("uint8_t", "uint16_t", "uint32_t", "uint64_t", "uint64_clock_t")
RESERVED = frozenset((
    "align", "callsite", "const", "char", "clock", "double", "enum", "env",
    "event", "floating_point", "float", "integer", "int", "long", "short",
    "signed", "stream", "string", "struct", "trace", "typealias", "typedef",
    "unsigned", "variant", "void", "_Bool", "_Complex", "_Imaginary") + _TYPE_NAMES)

_INT_CODES = {(8, False): "B", (16, False): "H", (32, False): "I", (64, False): "Q",
              (8, True): "b", (16, True): "h", (32, True): "i", (64, True): "q"}


def display_name(name: str) -> str:
    """name with every character outside [A-Za-z0-9_] made '_'."""
    return "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in name) or "_"


def identifier(name: str) -> str:
    """The TSDL identifier that babeltrace2 shows as display_name(name).
    babeltrace2 strips one leading '_' of a field name (LTTng's way to
    spell a keyword), so a name that starts with '_' or a digit, or is a
    keyword, is written with one more '_' in front: `int` is `_int`."""
    out = display_name(name)
    if out[0] == "_" or out[0].isdigit() or out in RESERVED:
        out = "_" + out
    return out


def _tsdl_string(text):
    """A TSDL string literal."""
    text = "".join(c if c.isprintable() else "?" for c in str(text))
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"')


class Field:
    """An integer field of an event: bits 8/16/32/64, signed or not, shown
    in hex or decimal; seq: a sequence of such integers whose length is
    the field just before it (an unsigned integer)."""
    __slots__ = ("name", "bits", "signed", "hex", "seq")

    def __init__(self, name: str, bits: int = 64, signed: bool = False, hex: bool = False,
                 seq: bool = False) -> None:
        if (bits, signed) not in _INT_CODES:
            raise ValueError("unsupported integer size %r" % bits)
        self.name, self.bits, self.signed, self.hex, self.seq = name, bits, signed, hex, seq

    def type_tsdl(self) -> str:
        return "integer { size = %d; align = 8; signed = %s;%s }" % (
            self.bits, "true" if self.signed else "false", " base = 16;" if self.hex else "")


class EventClass:
    """One event class: its id, name and fields.  Field names are made
    identifiers, unique as babeltrace2 shows them (a second `v` is
    `v_2`)."""

    def __init__(self, cid: int, name: str, fields: list[Field], stream_id: int = 0) -> None:
        self.id, self.name, self.stream_id = cid, name, stream_id
        self.fields = []
        seen = set()
        for f in fields:
            base = display_name(f.name)
            name, k = base, 2
            while name in seen:
                name = "%s_%d" % (base, k)
                k += 1
            seen.add(name)
            self.fields.append(Field(identifier(name), f.bits, f.signed, f.hex, f.seq))
        for i, f in enumerate(self.fields):
            if f.seq and (i == 0 or self.fields[i - 1].seq or self.fields[i - 1].signed):
                raise ValueError("sequence %s needs an unsigned length field before it" % f.name)
        self._structs = {}

    def tsdl(self) -> str:
        lines = ["event {",
                 "\tname = %s;" % _tsdl_string(self.name),
                 "\tid = %d;" % self.id,
                 "\tstream_id = %d;" % self.stream_id,
                 "\tfields := struct {"]
        prev = None
        for f in self.fields:
            if f.seq:
                lines.append("\t\t%s %s[%s];" % (f.type_tsdl(), f.name, prev.name))
            else:
                lines.append("\t\t%s %s;" % (f.type_tsdl(), f.name))
            prev = f
        lines += ["\t};", "};", ""]
        return "\n".join(lines)

    def format(self, counts: Sequence[int] = ()) -> str:
        """The struct format of a whole event (header included) whose
        sequences hold counts[i] elements (in field order): integers as
        integers, sequences as the raw bytes of their elements."""
        out, k = [EVENT_HEADER], 0
        for f in self.fields:
            if f.seq:
                out.append("%ds" % (counts[k] * f.bits // 8))
                k += 1
            else:
                out.append(_INT_CODES[(f.bits, f.signed)])
        return "".join(out)

    def pack(self, ts: int, values: Sequence[int], counts: Sequence[int] = ()) -> bytes:
        """One event (the general, slower path: a Struct per counts)."""
        st = self._structs.get(counts)
        if st is None:
            st = self._structs[counts] = struct.Struct(self.format(counts))
        return st.pack(self.id, ts, *values)


class Clock:
    """A clock class.  freq in Hz; offset_s + offset (cycles, less than
    freq) is the clock's value 0 in seconds since the Unix epoch when
    absolute."""

    def __init__(self, name: str, freq: int, offset_s: int = 0, offset: int = 0,
                 uuid: Optional[uuidlib.UUID] = None, description: Optional[str] = None,
                 absolute: bool = True, precision: int = 0) -> None:
        self.name, self.freq = identifier(name), int(freq)
        self.precision = int(precision)     # cycles
        self.offset_s, self.offset = offset_s, offset
        self.uuid = uuid or str(uuidlib.uuid4())
        self.description = description
        self.absolute = absolute

    @classmethod
    def from_sample(cls, name: str, freq: int, cycles: int, epoch_ns: int, **kw: Any) -> Clock:
        """The clock whose value `cycles` was sampled at `epoch_ns`
        nanoseconds since the epoch: offset_s + offset is cycle 0, rounded
        to a cycle; offset is never negative (offset_s is the floor)."""
        freq = int(freq)
        zero_ns = Fraction(epoch_ns) - Fraction(cycles * 10**9, freq)   # at cycle 0
        offset_s = zero_ns.numerator // (zero_ns.denominator * 10**9)
        offset = round((zero_ns - offset_s * 10**9) * freq / 10**9)
        if offset >= freq:
            offset_s, offset = offset_s + 1, offset - freq
        return cls(name, freq, offset_s, offset, **kw)

    def ns(self, value: int) -> int:
        """Nanoseconds since the origin of clock value `value`, as
        babeltrace2 2.0 computes them: each part in double precision,
        truncated.  That is within a nanosecond or two of exact while
        value is worth less than ~50 days; beyond, doubles cost a few ns
        (TSC values count from boot)."""
        f = float(self.freq)
        return (self.offset_s * 10**9 + int(1e9 * float(self.offset) / f)
                + int(1e9 * float(value) / f))

    def tsdl(self) -> str:
        lines = ["clock {",
                 "\tname = %s;" % self.name,
                 "\tuuid = %s;" % _tsdl_string(self.uuid)]
        if self.description:
            lines.append("\tdescription = %s;" % _tsdl_string(self.description))
        lines += ["\tfreq = %d;" % self.freq,
                  "\tprecision = %d;" % self.precision,
                  "\toffset_s = %d;" % self.offset_s,
                  "\toffset = %d;" % self.offset,
                  "\tabsolute = %s;" % ("true" if self.absolute else "false"),
                  "};", ""]
        return "\n".join(lines)


class Stream:
    """One data stream file (stream_<instance>): packets in order."""

    def __init__(self, trace: Trace, instance: int) -> None:
        self.trace = trace
        self.instance = instance
        self.path = os.path.join(trace.path, "stream_%d" % instance)
        self.file = open(self.path, "wb")
        self.seq = 0
        self.discarded = 0
        self.last_ts = None

    def packet(self, ts_begin: int, ts_end: int, events: bytes, discarded: Optional[int] = None,
               cpu: Optional[int] = None) -> None:
        """Write one packet: events is the encoded events back to back
        (timestamps within [ts_begin, ts_end], in order); discarded the
        running count of events lost so far in this stream (None: as
        before)."""
        tr = self.trace
        if tr.dirty:
            tr.write_metadata()
        if discarded is not None:
            self.discarded = discarded
        content = PACKET_HEAD.size + len(events)
        pad = -content % 8
        head = PACKET_HEAD.pack(MAGIC, tr.uuid.bytes, 0, self.instance,
                                ts_begin, ts_end, content * 8, (content + pad) * 8,
                                self.seq, self.discarded,
                                self.instance if cpu is None else cpu)
        data = b"".join((head, events, b"\0" * pad))
        self.file.write(data)
        if tr.tap is not None:
            tr.tap.packet(self.instance, data, ts_begin, ts_end, content * 8,
                          (content + pad) * 8, self.seq, self.discarded)
        self.seq += 1
        self.last_ts = ts_end
        tr.bytes_written += content + pad

    def close(self) -> None:
        self.file.close()


class Trace:
    """A CTF trace being written to directory path (created if needed).

    tap, if given, sees what is written as it is: tap.metadata(text) the
    whole metadata each time it is rewritten, tap.packet(instance, bytes,
    ts_begin, ts_end, content bits, packet bits, packet_seq_num,
    events_discarded) each packet, and tap.close() (a relay daemon's
    session, relay_trace.py)."""

    def __init__(self, path: str, clock: Clock, env: Optional[dict[str, Any]] = None,
                 uuid: Optional[uuidlib.UUID] = None, tap: Any = None) -> None:
        self.path = path
        self.tap = tap
        self.clock = clock
        self.env = dict(env or {})
        self.uuid = uuid or uuidlib.uuid4()
        self.classes = []
        self.streams = {}
        self.bytes_written = 0
        self.dirty = True
        os.makedirs(path, exist_ok=True)
        self.write_metadata()

    def event_class(self, name: str, fields: list[Field]) -> EventClass:
        """A new event class; the metadata is rewritten before the next
        packet."""
        ec = EventClass(len(self.classes), name, fields)
        self.classes.append(ec)
        self.dirty = True
        return ec

    def stream(self, instance: int) -> Stream:
        s = self.streams.get(instance)
        if s is None:
            s = self.streams[instance] = Stream(self, instance)
        return s

    def metadata(self) -> str:
        parts = ["/* CTF 1.8 */", ""]
        for bits in (8, 16, 32, 64):
            parts.append("typealias integer { size = %d; align = 8; signed = false; } := uint%d_t;"
                         % (bits, bits))
        parts += ["",
                  "trace {",
                  "\tmajor = 1;",
                  "\tminor = 8;",
                  "\tuuid = %s;" % _tsdl_string(self.uuid),
                  "\tbyte_order = le;",
                  "\tpacket.header := struct {",
                  "\t\tuint32_t magic;",
                  "\t\tuint8_t uuid[16];",
                  "\t\tuint32_t stream_id;",
                  "\t\tuint64_t stream_instance_id;",
                  "\t};",
                  "};",
                  "",
                  "env {"]
        for k, v in self.env.items():
            val = str(int(v)) if isinstance(v, int) else _tsdl_string(v)
            parts.append("\t%s = %s;" % (identifier(k), val))
        parts += ["};", "", self.clock.tsdl(),
                  "typealias integer { size = 64; align = 8; signed = false; "
                  "map = clock.%s.value; } := uint64_clock_t;" % self.clock.name,
                  "",
                  "stream {",
                  "\tid = 0;",
                  "\tevent.header := struct {",
                  "\t\tuint32_t id;",
                  "\t\tuint64_clock_t timestamp;",
                  "\t};",
                  "\tpacket.context := struct {",
                  "\t\tuint64_clock_t timestamp_begin;",
                  "\t\tuint64_clock_t timestamp_end;",
                  "\t\tuint64_t content_size;",
                  "\t\tuint64_t packet_size;",
                  "\t\tuint64_t packet_seq_num;",
                  "\t\tuint64_t events_discarded;",
                  "\t\tuint32_t cpu_id;",
                  "\t};",
                  "};",
                  ""]
        parts += [ec.tsdl() for ec in self.classes]
        return "\n".join(parts)

    def write_metadata(self) -> None:
        """Replace the metadata file at once: a reader sees the old one or
        the new one, never a part."""
        path = os.path.join(self.path, "metadata")
        tmp = os.path.join(self.path, ".metadata.tmp")
        text = self.metadata()
        with open(tmp, "w") as f:
            f.write(text)
        os.rename(tmp, path)
        self.dirty = False
        if self.tap is not None:
            self.tap.metadata(text)

    def flush(self) -> None:
        """Push what the streams buffered to the files (a reader looking
        now sees every packet written so far)."""
        if self.dirty:
            self.write_metadata()
        for s in self.streams.values():
            s.file.flush()

    def close(self) -> None:
        self.flush()
        for s in self.streams.values():
            s.close()
        if self.tap is not None:
            self.tap.close()


def clear(path: str) -> None:
    """Remove what a previous trace left in path (metadata and stream
    files), so a new one does not mix with it; other files stay."""
    try:
        names = os.listdir(path)
    except FileNotFoundError:
        return
    for n in names:
        if n in ("metadata", ".metadata.tmp") or (n.startswith("stream_") and n[7:].isdigit()):
            os.unlink(os.path.join(path, n))
