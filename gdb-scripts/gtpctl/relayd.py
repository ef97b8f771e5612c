# SPDX-License-Identifier: GPL-2.0
"""gtpctl/relayd.py - LTTng's relay daemon protocol, the sending side.

lttng-relayd takes traces from LTTng's consumer daemons over two TCP
connections: commands on the control socket (default port 5342), each a
header (circuit id, payload size, command, command version) and a
payload, answered by a reply; and packets on the data socket (5343), each
a data header (circuit id, relayd's stream handle, the stream's network
sequence number, size, padding) and the packet.  Every integer is big
endian.  Relayd writes what it gets as a CTF trace and serves it to live
viewers (babeltrace2's lttng-live source, port 5344).  The layouts are
lttng-tools' src/common/sessiond-comm/relayd.h and its command numbers
sessiond-comm.h's enum lttcomm_relayd_command; this module speaks the
subset a tracer needs: version, create session (and, from 2.11, its trace
chunk), add stream, streams sent, metadata, data, index (and the live
beacon, an index of packet size 0), data pending, quiescent control,
rotation to no chunk (2.11), close stream.

Versions: we offer PROTOCOL and relayd answers its own; both then use the
lower minor (relayd adapts to an older peer).  A different major, or a
relayd older than MIN_MINOR (2.4: live sessions, indexes and streams_sent
came then), is refused before any session exists.  Minors 4 to 10 carry
session and stream names in fixed-size fields and the stream's whole
path; from 11 names have lengths, the session's directory is relayd's
and streams belong to a trace chunk (TraceChunk); indexes carry the
stream instance and packet sequence number from 8.
"""
from __future__ import annotations

import os
import socket
import struct
import time
import uuid as uuidlib

from .trace import TraceError

CONTROL_PORT, DATA_PORT, LIVE_PORT = 5342, 5343, 5344
PROTOCOL = (2, 13)                      # what we offer: lttng-tools 2.13's relayd
MIN_MINOR = 4

# enum lttcomm_relayd_command
ADD_STREAM, CREATE_SESSION, VERSION, SEND_METADATA = 1, 2, 5, 6
CLOSE_STREAM, DATA_PENDING, QUIESCENT_CONTROL = 7, 8, 9
SEND_INDEX, STREAMS_SENT, ROTATE_STREAMS, CREATE_TRACE_CHUNK = 13, 16, 18, 19
_NAMES = {ADD_STREAM: "ADD_STREAM", CREATE_SESSION: "CREATE_SESSION", VERSION: "VERSION",
          SEND_METADATA: "SEND_METADATA", CLOSE_STREAM: "CLOSE_STREAM",
          DATA_PENDING: "DATA_PENDING", QUIESCENT_CONTROL: "QUIESCENT_CONTROL",
          SEND_INDEX: "SEND_INDEX", STREAMS_SENT: "STREAMS_SENT", ROTATE_STREAMS: "ROTATE_STREAMS",
          CREATE_TRACE_CHUNK: "CREATE_TRACE_CHUNK"}

LTTNG_OK = 10                           # enum lttng_error_code
_ERRORS = {11: "unknown error", 12: "undefined command", 25: "fatal error",
           26: "out of memory", 104: "invalid protocol"}

HDR = struct.Struct(">QQII")            # lttcomm_relayd_hdr
DATA_HDR = struct.Struct(">QQQII")      # lttcomm_relayd_data_hdr
VERSION_MSG = struct.Struct(">II")
GENERIC_REPLY = struct.Struct(">I")
STATUS_SESSION = struct.Struct(">QI")   # session id, ret_code
STATUS_STREAM = struct.Struct(">QI")    # stream handle, ret_code
# 2.11: name lengths, live timer, snapshot, name holds the creation time,
# sessiond uuid, sessiond session id, creation time, current chunk (unset)
CREATE_2_11 = struct.Struct(">IIIIBB16sQQBQ")
CREATE_2_11_REPLY = struct.Struct(">QII")
CREATE_2_4 = struct.Struct(">255s64sII")
ADD_STREAM_2_11 = struct.Struct(">IIQQQ")
ADD_STREAM_2_2 = struct.Struct(">264s4096sQQ")
CHUNK_MSG = struct.Struct(">QQI")       # chunk id, creation time, no name
# stream count, then the new chunk (unset: none) as unpatched 2.11 x86-64
# peers laid it out (7 bytes after is_set), which every relayd since reads
ROTATE_HEAD = struct.Struct(">IB7xQ")
ROTATE_POS = struct.Struct(">QQ")       # stream handle, first packet_seq_num of the new chunk
METADATA_HEAD = struct.Struct(">QI")    # stream handle, padding
CLOSE_MSG = struct.Struct(">QQ")        # stream handle, last network sequence number
INDEX = struct.Struct(">10Q")           # lttcomm_relayd_index, 2.8 and later
INDEX_2_4 = 8 * 8                       # before 2.8: no instance id, packet seq num
HOST_NAME_MAX_2_4, NAME_MAX_2_4 = 64, 255

TIMEOUT = 30.0                          # seconds for a connection or a reply


class RelaydError(TraceError):
    """relayd cannot be reached, is incompatible or refused a command."""


def parse_address(text: str) -> tuple[str, int, int]:
    """HOST[:CONTROL_PORT[:DATA_PORT]] (lttng's net:// URL syntax, an IPv6
    address in brackets) -> (host, control port, data port)."""
    host, rest = text, ""
    if text.startswith("["):
        end = text.find("]")
        if end < 0:
            raise TraceError("--relayd %s: no ']' after the IPv6 address" % text)
        host, rest = text[1:end], text[end + 1:]
        if rest and not rest.startswith(":"):
            raise TraceError("--relayd %s: ':' expected after ']'" % text)
        rest = rest[1:]
    elif ":" in text:
        host, rest = text.split(":", 1)
    ports = [CONTROL_PORT, DATA_PORT]
    for i, p in enumerate(rest.split(":") if rest else []):
        if i > 1 or not p.isdigit() or not 0 < int(p) < 65536:
            raise TraceError("--relayd %s: HOST[:CONTROL_PORT[:DATA_PORT]] expected" % text)
        ports[i] = int(p)
    if not host:
        raise TraceError("--relayd %s: no host" % text)
    return host, ports[0], ports[1]


def _names(*names: str) -> bytes:
    return b"".join(n.encode() + b"\0" for n in names)


def _fixed(text: str, size: int, what: str) -> bytes:
    raw = text.encode()
    if len(raw) >= size:
        raise RelaydError("%s %r is longer than protocol 2.4's %d bytes" % (what, text, size - 1))
    return raw


class Relayd:
    """One sender's two connections to a relayd and its session there."""

    def __init__(self, address: str, timeout: float = TIMEOUT) -> None:
        self.host, self.cport, self.dport = parse_address(address)
        self.where = "relayd %s:%d" % (self.host, self.cport)
        self.timeout = timeout
        self.version = None             # the (major, minor) both use
        self.session_id = None
        self.output_path = None         # the session's directory, relative to relayd's output
        self.chunk_id = None
        self.control = self._connect(self.cport, "control")
        try:
            self.data = self._connect(self.dport, "data")
        except RelaydError:
            self.control.close()
            raise

    def _connect(self, port: int, what: str) -> socket.socket:
        try:
            s = socket.create_connection((self.host, port), timeout=self.timeout)
        except OSError as e:
            raise RelaydError("relayd %s:%d (%s port) unreachable: %s"
                              % (self.host, port, what, e.strerror or e))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return s

    def close(self) -> None:
        """Close both connections: relayd ends the session (and closes
        the streams still open in it)."""
        for s in (self.control, self.data):
            try:
                s.close()
            except OSError:
                pass

    # -- the control connection --------------------------------------------
    def _send(self, cmd: int, payload: bytes = b"") -> None:
        try:
            self.control.sendall(HDR.pack(0, len(payload), cmd, 0) + payload)
        except OSError as e:
            raise self._lost(cmd, e)

    def _recv(self, cmd: int, n: int) -> bytes:
        out = b""
        while len(out) < n:
            try:
                got = self.control.recv(n - len(out))
            except OSError as e:
                raise self._lost(cmd, e)
            if not got:
                raise RelaydError("%s closed the connection (answering %s)"
                                  % (self.where, _NAMES[cmd]))
            out += got
        return out

    def _lost(self, cmd: int, e: OSError) -> RelaydError:
        if isinstance(e, socket.timeout):
            return RelaydError("%s did not answer %s within %g s"
                               % (self.where, _NAMES[cmd], self.timeout))
        return RelaydError("%s: %s (sending %s)" % (self.where, e.strerror or e, _NAMES[cmd]))

    def _command(self, cmd: int, payload: bytes = b"") -> None:
        """A command whose reply is a return code alone."""
        self._send(cmd, payload)
        self._check(cmd, GENERIC_REPLY.unpack(self._recv(cmd, GENERIC_REPLY.size))[0])

    def _check(self, cmd: int, code: int, what: str = "") -> None:
        if code != LTTNG_OK:
            raise RelaydError("%s refused %s%s (LTTng error %d: %s)" % (
                self.where, _NAMES[cmd], what, code, _ERRORS.get(code, "see lttng-relayd's log")))

    def negotiate(self, offer: tuple[int, int] = PROTOCOL) -> tuple[int, int]:
        """VERSION: the protocol both speak, the lower minor; RelaydError
        naming both versions if relayd's is not one we speak."""
        self._send(VERSION, VERSION_MSG.pack(*offer))
        major, minor = VERSION_MSG.unpack(self._recv(VERSION, VERSION_MSG.size))
        if major != offer[0] or minor < MIN_MINOR:
            raise RelaydError("%s speaks protocol %d.%d; gtp-ctl speaks %d.%d to %d.%d"
                              % (self.where, major, minor, offer[0], MIN_MINOR, *offer))
        self.version = (major, min(minor, offer[1]))
        return self.version

    def create_session(self, name: str, hostname: str, live_timer_us: int) -> None:
        """CREATE_SESSION of a live session; from 2.11 also its first
        trace chunk, which the streams will belong to."""
        now = int(time.time())
        what = " (session %r of host %r)" % (name, hostname)
        if self.version[1] >= 11:
            names = _names(name, hostname, "")
            msg = CREATE_2_11.pack(len(name.encode()) + 1, len(hostname.encode()) + 1, 1,
                                   live_timer_us, 0, 0, uuidlib.uuid4().bytes, os.getpid(),
                                   now, 0, 0)
            self._send(CREATE_SESSION, msg + names)
            sid, code, plen = CREATE_2_11_REPLY.unpack(
                self._recv(CREATE_SESSION, CREATE_2_11_REPLY.size))
            path = self._recv(CREATE_SESSION, plen) if plen else b""
            self._check(CREATE_SESSION, code, what)
            self.output_path = path.rstrip(b"\0").decode(errors="replace")
            self.session_id = sid
            self.chunk_id = 0
            self._command(CREATE_TRACE_CHUNK, CHUNK_MSG.pack(self.chunk_id, now, 0))
            return
        msg = CREATE_2_4.pack(_fixed(name, NAME_MAX_2_4, "session name"),
                              _fixed(hostname, HOST_NAME_MAX_2_4, "host name"),
                              live_timer_us, 0)
        self._send(CREATE_SESSION, msg)
        sid, code = STATUS_SESSION.unpack(self._recv(CREATE_SESSION, STATUS_SESSION.size))
        self._check(CREATE_SESSION, code, what)
        self.session_id = sid
        # before 2.11 the sender names the directory, as lttng 2.10 did
        self.output_path = "%s/%s-%s" % (hostname, name, time.strftime("%Y%m%d-%H%M%S"))

    def add_stream(self, channel: str, path: str) -> int:
        """ADD_STREAM of the file `channel` in the trace directory `path`
        (relative to the session's); relayd's handle of it."""
        if self.version[1] >= 11:
            msg = ADD_STREAM_2_11.pack(len(channel.encode()) + 1, len(path.encode()) + 1,
                                       0, 0, self.chunk_id) + _names(channel, path)
        else:
            whole = "%s/%s" % (self.output_path, path)
            msg = ADD_STREAM_2_2.pack(channel.encode(), whole.encode(), 0, 0)
        self._send(ADD_STREAM, msg)
        handle, code = STATUS_STREAM.unpack(self._recv(ADD_STREAM, STATUS_STREAM.size))
        self._check(ADD_STREAM, code, " (%s/%s)" % (path, channel))
        return handle

    def streams_sent(self) -> None:
        """The streams added so far are complete: relayd shows them to
        viewers."""
        self._command(STREAMS_SENT)

    def metadata(self, handle: int, text: bytes) -> None:
        """SEND_METADATA: text appended to the metadata stream.  relayd
        does not answer it."""
        self._send(SEND_METADATA, METADATA_HEAD.pack(handle, 0) + text)

    def index(self, handle: int, seq: int, packet_bits: int, content_bits: int,
              ts_begin: int, ts_end: int, discarded: int, instance: int,
              packet_seq: int) -> None:
        """SEND_INDEX of the packet sent with network sequence number seq;
        packet_bits 0 would be a live beacon, the stream having nothing new
        up to ts_end (relay_trace.py says why gtp-ctl sends none)."""
        msg = INDEX.pack(handle, seq, packet_bits, content_bits, ts_begin, ts_end,
                         discarded, 0, instance, packet_seq)
        self._command(SEND_INDEX, msg if self.version[1] >= 8 else msg[:INDEX_2_4])

    def data_pending(self, handle: int, last_seq: int) -> bool:
        """True while relayd has not written the stream's packets up to
        last_seq (data and index)."""
        self._send(DATA_PENDING, CLOSE_MSG.pack(handle, last_seq))
        code = GENERIC_REPLY.unpack(self._recv(DATA_PENDING, GENERIC_REPLY.size))[0]
        if code not in (0, 1):
            raise RelaydError("%s: DATA_PENDING of stream %d answered %d"
                              % (self.where, handle, code))
        return code == 1

    def quiescent(self, handle: int) -> None:
        """QUIESCENT_CONTROL: relayd has handled every command before it
        (the metadata sent without a reply included)."""
        self._command(QUIESCENT_CONTROL, struct.pack(">Q", handle))

    def rotate_to_no_chunk(self, positions: list[tuple[int, int]]) -> None:
        """ROTATE_STREAMS (2.11 and later) of each (handle, next
        packet_seq_num) to no trace chunk, as lttng-sessiond does before
        it destroys a session: relayd keeps the current chunk for the
        live viewers still reading it, which a stream closed while in a
        chunk would take from them."""
        self._command(ROTATE_STREAMS, ROTATE_HEAD.pack(len(positions), 0, 0)
                      + b"".join(ROTATE_POS.pack(h, seq) for h, seq in positions))

    def close_stream(self, handle: int, last_seq: int) -> None:
        self._command(CLOSE_STREAM, CLOSE_MSG.pack(handle, last_seq))

    # -- the data connection -----------------------------------------------
    def packet(self, handle: int, seq: int, data: bytes) -> None:
        """One packet of a data stream, network sequence number seq."""
        try:
            self.data.sendall(DATA_HDR.pack(0, handle, seq, len(data), 0) + data)
        except OSError as e:
            if isinstance(e, socket.timeout):
                raise RelaydError("%s: the data port %d took no data for %g s"
                                  % (self.where, self.dport, self.timeout))
            raise RelaydError("%s: %s (sending data to port %d)"
                              % (self.where, e.strerror or e, self.dport))
