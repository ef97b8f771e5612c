# SPDX-License-Identifier: GPL-2.0
"""gtpctl/bridge.py - what gtp-ctl stdio forwards from gdb to /proc/gtp.

The stream is gdb's remote protocol, untouched, with one exception.  While
acknowledgements are on (until QStartNoAckMode is accepted), gdb resends a
packet it sent remote_timeout (2 s) ago without seeing '+'.  Over a pipe
that is started slowly -- ssh still negotiating, python starting on a
loaded box -- the first qSupported is resent before anyone could read it,
/proc/gtp answers both copies, and gdb takes the second answer as the reply
to its next packet ("Remote replied unexpectedly to 'vMustReplyEmpty'").

A resent copy is recognisable exactly: in ack mode gdb sends its next
packet only after acknowledging the reply to the previous one with '+'.  So
a packet identical to the last one forwarded, with no '+' from gdb in
between, is a resend; it is dropped, and gdb takes the '+' of the first
copy as its acknowledgement.  A repeated command (a second qTStatus) is
preceded by gdb's '+' and passes.  With acks off gdb never resends, and
nothing is dropped.
"""

_NOACK = b"$QStartNoAckMode#b0"
_OK = b"$OK#9a"


class Bridge:
    """Splits gdb's byte stream into packets and single characters."""

    def __init__(self) -> None:
        self.partial = b""          # a packet not yet complete
        self.last = None            # last packet forwarded
        self.awaiting_ack = False   # no '+' from gdb since it was forwarded
        self.acks = True            # acknowledgement mode
        self.noack_asked = False    # QStartNoAckMode forwarded, reply unseen
        self.noack_ok = False       # ... and the target said OK
        self.tail = b""             # end of the target's last read
        self.dropped = 0

    def from_gdb(self, data: bytes) -> bytes:
        """Bytes of gdb's stream -> the bytes to write to the target."""
        out = []
        buf = self.partial + data
        i = 0
        while i < len(buf):
            c = buf[i:i + 1]
            if c != b"$":
                if c == b"+":
                    self._gdb_acked()
                out.append(c)
                i += 1
                continue
            end = buf.find(b"#", i)
            if end < 0 or end + 3 > len(buf):
                break           # wait for the rest (and its checksum)
            pkt = buf[i:end + 3]
            i = end + 3
            if self.acks and self.awaiting_ack and pkt == self.last:
                self.dropped += 1
                continue
            out.append(pkt)
            self.last = pkt
            self.awaiting_ack = self.acks
            if pkt == _NOACK:
                self.noack_asked, self.noack_ok = True, False
        self.partial = buf[i:]
        return b"".join(out)

    def from_target(self, data: bytes) -> bytes:
        """Watch the target's replies for the OK to QStartNoAckMode (which
        may arrive split over two reads)."""
        seen = self.tail + data
        if self.noack_asked and _OK in seen:
            self.noack_ok = True
        self.tail = seen[-(len(_OK) - 1):]
        return data

    def _gdb_acked(self):
        self.awaiting_ack = False
        if self.noack_asked:
            # gdb acknowledges the reply to QStartNoAckMode, then stops
            self.noack_asked = False
            if self.noack_ok:
                self.acks = False
