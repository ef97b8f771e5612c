"""A raw gdb remote-protocol connection to /proc/gtp (no gdb), for tests
that send packets gdb would not: one open file, each packet framed as gdb
frames it, the console lines ('O' packets) gtp sends before a reply kept
apart from the reply itself.
"""
import os
import re
import select

_O_PKT = re.compile(r"O(?:[0-9a-f]{2})+$")


class NoReply(AssertionError):
    pass


class Conn:
    def __init__(self, path="/proc/gtp", timeout=120):
        self.fd = os.open(path, os.O_RDWR)
        self.buf = b""
        self.timeout = timeout

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def _fill(self, what):
        r, _, _ = select.select([self.fd], [], [], self.timeout)
        if not r:
            raise NoReply("no reply within %ss to %r (have %r)"
                          % (self.timeout, what, self.buf[-200:]))
        data = os.read(self.fd, 65536)
        if not data:
            raise NoReply("/proc/gtp closed while waiting for %r" % what)
        self.buf += data

    def _packet(self, what):
        """The next framed packet's payload, unescaped."""
        while True:
            i = self.buf.find(b"$")
            j = self.buf.find(b"#", i + 1) if i >= 0 else -1
            if i >= 0 and j >= 0 and len(self.buf) >= j + 3:
                break
            self._fill(what)
        junk = self.buf[:i].replace(b"+", b"")
        if junk:
            raise AssertionError("unexpected bytes %r before a reply to %r" % (junk, what))
        body, csum = self.buf[i + 1:j], self.buf[j + 1:j + 3]
        self.buf = self.buf[j + 3:]
        if int(csum, 16) != sum(body) & 0xff:
            raise AssertionError("bad checksum in a reply to %r: %r" % (what, body))
        out, k = bytearray(), 0
        while k < len(body):
            if body[k] == 0x7d:             # '}' escapes the next byte
                out.append(body[k + 1] ^ 0x20)
                k += 2
            else:
                out.append(body[k])
                k += 1
        os.write(self.fd, b"+")
        return out.decode("latin-1")

    def send(self, payload):
        """Send one packet; (reply, [console lines]) back."""
        raw = payload.encode("latin-1")
        os.write(self.fd, b"$" + raw + b"#%02x" % (sum(raw) & 0xff))
        console = []
        while True:
            p = self._packet(payload[:60])
            if _O_PKT.match(p):
                console.append(bytes.fromhex(p[1:]).decode("latin-1").rstrip("\n"))
                continue
            return p, console
