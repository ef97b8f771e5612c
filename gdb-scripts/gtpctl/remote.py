# SPDX-License-Identifier: GPL-2.0
"""gtpctl/remote.py - gdb's remote protocol on /proc/gtp, without gdb.

Remote is a minimal client: $packet#checksum out, one reply back (the
stub's '+' acknowledgements skipped, run-length encoding and '}' escapes
decoded).  It asks for no-ack mode first, as gdb does.  It sends only
packets check_packet() passes: printable ASCII without the framing's
'$', '#', '}' and '*', at most the target's packet size (none of the
packets gtp-ctl sends carries binary data; text travels hex-encoded), so
no field can end a packet early and smuggle in another.  Every reply is
waited for at most `timeout` seconds (poll(), which /proc/gtp supports):
RemoteTimeout names the packet, and the connection is closed (its replies
can no longer be paired with its requests).

load() reads a stopped trace the way gdb's tsave does: qTStatus, the
trace state variables (qTfV/qTsV), the tracepoint definitions with their
source strings (qTfP/qTsP), then the frames in trace-file format
(qTBuffer:offset,length until 'l') and the target description, so a live
trace and a tsave'd file become the same Trace.
"""
from __future__ import annotations

import argparse
import errno
import os
import re
import select
import time
from typing import List, Optional

from .trace import Trace, TraceError

DEFAULT_TARGET = "/proc/gtp"
DEFAULT_TIMEOUT = 120.0     # seconds per reply: a debug kernel under TCG is slow
PACKET_MAX = 0x3fff         # the stub's PacketSize (module/core/rsp.h)
_FRAMING = frozenset("$#}*")


class RemoteTimeout(TraceError):
    """No reply within the timeout; .packet is what went unanswered."""

    def __init__(self, msg: str, packet: str):
        super().__init__(msg)
        self.packet = packet


def check_packet(pkt: str) -> None:
    """TraceError unless pkt can go on the wire as it is: printable ASCII,
    none of the framing characters, at most PACKET_MAX bytes."""
    for i, c in enumerate(pkt):
        if c in _FRAMING or not " " <= c <= "~":
            raise TraceError("%r at %d of packet %s... would corrupt the packet framing"
                             % (c, i, pkt[:24]))
    if len(pkt) > PACKET_MAX:
        raise TraceError("a %s packet of %d bytes is longer than the target's %d"
                         % (pkt.split(":")[0], len(pkt), PACKET_MAX))
_PKT = re.compile(rb"\$([^#$]*)#([0-9a-fA-F]{2})")


def _is_hex(text):
    return bool(text) and len(text) % 2 == 0 and all(c in "0123456789abcdefABCDEF" for c in text)


def _decode(raw):
    """Undo '}' escapes and '*' run-length encoding of a reply."""
    out = bytearray()
    i, n = 0, len(raw)
    while i < n:
        c = raw[i]
        if c == 0x7d and i + 1 < n:             # '}' escape
            out.append(raw[i + 1] ^ 0x20)
            i += 2
        elif c == 0x2a and out and i + 1 < n:   # '*' run length
            out += bytes([out[-1]]) * (raw[i + 1] - 29)
            i += 2
        else:
            out.append(c)
            i += 1
    return bytes(out)


def add_target_argument(p: argparse.ArgumentParser) -> None:
    """--target PATH, for the subcommands that talk to a live target."""
    p.add_argument("--target", default=DEFAULT_TARGET, metavar="PATH",
                   help="the gtp device (default %(default)s)")


def open_proc(path: str, flags: int, busy: str, missing: str) -> int:
    """os.open of one of gtp's proc files, or TraceError saying why not:
    busy and missing are the texts for EBUSY and ENOENT ("%s": path)."""
    try:
        return os.open(path, flags)
    except OSError as e:
        if e.errno == errno.EBUSY:
            raise TraceError(busy % path)
        if e.errno == errno.ENOENT:
            raise TraceError(missing % path)
        if e.errno in (errno.EACCES, errno.EPERM):
            raise TraceError("%s: permission denied (needs root: CAP_SYS_ADMIN; "
                             "refused under kernel lockdown)" % path)
        raise TraceError("cannot open %s: %s" % (path, e.strerror))


def open_target(path: str = DEFAULT_TARGET) -> int:
    """An O_RDWR descriptor of the target, or TraceError saying why not."""
    return open_proc(path, os.O_RDWR,
                     "%s is busy: a gdb (or another gtp-ctl) has it open; "
                     "detach it, or tsave in gdb and use -f FILE",
                     "%s does not exist: is gtptrace.ko loaded?")


class Remote:
    def __init__(self, path: str = DEFAULT_TARGET, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.path = path
        self.timeout = timeout
        self.fd: Optional[int] = open_target(path)
        self.ack = True
        self.pending = b""
        self.console: List[str] = []    # 'O' text the target sent, oldest first
        try:
            if self.send("QStartNoAckMode") == "OK":
                self.ack = False
        except TraceError:
            self.close()
            raise

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def __enter__(self) -> "Remote":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def send(self, pkt: str) -> str:
        """Send pkt; its reply.  Console output ('O' + hex, as gdb's
        console shows it) that comes first goes to self.console.
        TraceError if pkt cannot be framed (check_packet) or the
        connection is closed; RemoteTimeout if no reply comes in time."""
        check_packet(pkt)
        if self.fd is None:
            raise TraceError("%s: the connection is closed" % self.path)
        raw = pkt.encode()
        os.write(self.fd, b"$" + raw + b"#%02x" % (sum(raw) & 0xff))
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._receive(pkt, deadline)
            if reply.startswith("O") and reply != "OK" and _is_hex(reply[1:]):
                self.console.append(bytes.fromhex(reply[1:]).decode(errors="replace"))
                continue
            return reply

    def _receive(self, pkt: str, deadline: float) -> str:
        data = self.pending
        while True:
            m = _PKT.search(data)
            if m:
                break
            self._wait_readable(pkt, deadline)
            chunk = os.read(self.fd, 65536)
            if not chunk:
                raise TraceError("%s closed the connection" % self.path)
            data += chunk
        self.pending = data[m.end():]
        if self.ack:
            os.write(self.fd, b"+")
        return _decode(m.group(1)).decode("latin-1")

    def _wait_readable(self, pkt: str, deadline: float) -> None:
        poller = select.poll()
        poller.register(self.fd, select.POLLIN)
        while True:
            left = deadline - time.monotonic()
            if left > 0 and poller.poll(int(left * 1000) + 1):
                return
            if left <= 0:
                self.close()
                raise RemoteTimeout("%s did not answer %s within %g s" % (
                    self.path, pkt.split(":")[0], self.timeout), pkt)


def list_pieces(rem: Remote, first: str, nxt: str) -> List[str]:
    out = []
    r = rem.send(first)
    while r and r != "l":
        if r.startswith("E"):
            raise TraceError("%s: %s answered %s" % (rem.path, first, r))
        out.append(r)
        r = rem.send(nxt)
    return out


def _frame_origins(rem, tr):
    """Frame.cpu and Frame.ns (since the run started; None if the tick
    rate is unknown) from qGtpFrameOrigin, which the trace file lacks."""
    for f in tr.frames:
        r = rem.send("qGtpFrameOrigin:%x" % f.index)
        try:
            cpu, ticks, khz = [int(x, 16) for x in r.split(":")]
        except ValueError:
            return                      # an older gtptrace.ko: no origins
        f.cpu = cpu
        f.ns = ticks * 1000000 // khz if khz else None


def target_description(rem: Remote) -> List[str]:
    """The target description XML as lines (qXfer:features:read), or []."""
    xml = ""
    while True:
        r = rem.send("qXfer:features:read:target.xml:%x,%x" % (len(xml), 0x1000))
        if not r or r[0] not in "ml":
            return []
        xml += r[1:]
        if r[0] == "l":
            return xml.splitlines()


def load(path: str = DEFAULT_TARGET, origins: bool = False) -> Trace:
    """The stopped trace on the target at path, as a Trace; with origins,
    each frame's CPU and time too (one packet per frame)."""
    with Remote(path) as rem:
        tr = Trace(path)
        st = rem.send("qTStatus")
        if not st.startswith("T"):
            raise TraceError("%s: unexpected trace status %r" % (path, st))
        tr.add_status(st[1:])
        if st.startswith("T1"):
            raise TraceError("%s: the trace is running; stop it first (tstop in gdb), "
                             "frames are readable once it stops" % path)
        for v in list_pieces(rem, "qTfV", "qTsV"):
            tr.add_tsv(v)
        for p in list_pieces(rem, "qTfP", "qTsP"):
            tr.add_piece(p)
        buf = bytearray()
        while True:
            r = rem.send("qTBuffer:%x,%x" % (len(buf), 0x1f00))
            if r == "l":
                break
            if not r or r.startswith("E"):
                raise TraceError("%s: cannot read the trace buffer (qTBuffer: %r)"
                                 % (path, r))
            buf += bytes.fromhex(r)
        tr.add_frames(bytes(buf))
        tr.tdesc = target_description(rem)
        if origins:
            _frame_origins(rem, tr)
        if tr.frames:
            # the register block size is the size of the 'g' reply
            r = rem.send("QTFrame:0")
            if r.startswith("F"):
                g = rem.send("g")
                if g and not g.startswith("E"):
                    tr.regsize = len(g) // 2
            rem.send("QTFrame:ffffffff")
        return tr
