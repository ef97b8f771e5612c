# SPDX-License-Identifier: GPL-2.0
"""kimage.py - read a Debian kernel image (bzImage) without its debug files.

What the IBT check needs from an image, found in the image alone:

  vmlinux      the ELF inside the bzImage: the compressed payload is the
               kernel's vmlinux stripped of symbols (objcopy -S) but with its
               section headers, as scripts/extract-vmlinux finds it;
  symbols      decoded from the kernel's own kallsyms tables (what
               /proc/kallsyms prints), since Debian's System.map is a stub;
  seal list    .ibt_endbr_seal: an s32 per function whose endbr64 the
               kernel overwrites at boot on an IBT CPU (objtool lists every
               function whose address is never taken in the kernel image);
               an entry at address A names the function at A + *A.

The kallsyms layout moved between versions (6.1: offsets, relative_base,
num_syms, names, markers, seqs, tokens; 6.12: num_syms, names, markers,
tokens, offsets, relative_base; 7.x: offsets relative to themselves, no
base), so the tables are found by their shape and
every guess is verified: the token table by its 256 strings and index, the
names by the markers, the addresses by _text landing on .text.
"""
import lzma
import shutil
import struct
import subprocess

ELF_MAGIC = b"\x7fELF"
DECOMPRESSORS = [
    (b"\x28\xb5\x2f\xfd", ["zstd", "-dcq"]),
    (b"\xfd7zXZ\x00", ["xz", "-dcq"]),
    (b"\x1f\x8b\x08", ["gzip", "-dcq"]),
    (b"\x02\x21\x4c\x18", ["lz4", "-dcq"]),
]
ENDBR64 = bytes.fromhex("f30f1efa")


class ImageError(Exception):
    pass


def _xz(data):
    """xz in-process (Debian's 6.1 images): lzma is in the standard library."""
    try:
        return lzma.LZMADecompressor(lzma.FORMAT_XZ).decompress(data)
    except lzma.LZMAError:
        return b""


def extract_vmlinux(path):
    """The vmlinux ELF inside bzImage @path (bytes)."""
    data = open(path, "rb").read()
    missing = []
    for magic, cmd in DECOMPRESSORS:
        pos = data.find(magic)
        if pos >= 0 and cmd[0] != "xz" and not shutil.which(cmd[0]):
            missing.append(cmd[0])
            continue
        while pos >= 0:
            if cmd[0] == "xz":
                out = _xz(data[pos:])
            else:
                out = subprocess.run(cmd, input=data[pos:], capture_output=True).stdout
            if out[:4] == ELF_MAGIC:
                return out
            pos = data.find(magic, pos + 1)
    if missing:
        raise ImageError("%s: needs %s to unpack (make deps installs it)" %
                         (path, " or ".join(missing)))
    raise ImageError("%s: no compressed ELF payload found" % path)


class Elf:
    """The few ELF64 facts needed: sections by name, bytes by address."""

    def __init__(self, data):
        if data[:4] != ELF_MAGIC or data[4] != 2:
            raise ImageError("not an ELF64 image")
        self.data = data
        shoff, = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
        raw = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
               for i in range(shnum)]
        strtab = raw[shstrndx][4]
        self.sections = {}
        for s in raw:
            name = data[strtab + s[0]:data.index(b"\0", strtab + s[0])].decode()
            # name: (type, addr, file offset, size)
            self.sections[name] = (s[1], s[3], s[4], s[5])
        phoff, = struct.unpack_from("<Q", data, 0x20)
        phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
        # PT_LOAD segments: (vaddr, file offset, file size)
        self.loads = []
        for i in range(phnum):
            typ, _, off, vaddr, _, filesz, _, _ = struct.unpack_from(
                "<IIQQQQQQ", data, phoff + i * phentsize)
            if typ == 1:
                self.loads.append((vaddr, off, filesz))

    def section(self, name):
        if name not in self.sections:
            raise ImageError("no section %s" % name)
        return self.sections[name]

    def read(self, addr, size):
        """Bytes at virtual address @addr, from the segment holding them."""
        for base, off, sz in self.loads:
            if base <= addr and addr + size <= base + sz:
                return self.data[off + addr - base:off + addr - base + size]
        raise ImageError("0x%x is in no section with contents" % addr)

    def seal_list(self):
        """The addresses .ibt_endbr_seal names (empty without IBT)."""
        if ".ibt_endbr_seal" not in self.sections:
            return set()
        _, base, off, size = self.section(".ibt_endbr_seal")
        rel = struct.unpack_from("<%di" % (size // 4), self.data, off)
        return {base + 4 * i + r for i, r in enumerate(rel)}


def _find_tokens(d, lo, hi):
    """(token_table, token_index, tokens) within d[lo:hi]."""
    digits = b"".join(bytes([c]) + b"\0" for c in b"0123456789")
    p = d.find(digits, lo, hi)
    while p >= 0:
        for q in range(p + (p & 1), min(p + 8192, hi), 2):
            if d[q] or d[q + 1]:
                continue
            idx = struct.unpack_from("<256H", d, q)
            if any(idx[i] >= idx[i + 1] for i in range(255)):
                continue
            start = p - idx[0x30]
            toks = []
            for i in range(256):
                end = d.find(b"\0", start + idx[i])
                if i < 255 and end != start + idx[i + 1] - 1:
                    break
                toks.append(d[start + idx[i]:end])
            else:
                if end < q:
                    return start, q, toks
        p = d.find(digits, p + 1, hi)
    raise ImageError("kallsyms token table not found")


def _find_markers(d, lo, end):
    """(start, markers): the u32 array ending closest before @end."""
    best = None
    base = lo - lo % 4
    vals = struct.unpack_from("<%dI" % ((end - base) // 4), d, base)
    i = 0
    n = len(vals)
    while i < n - 8:
        if vals[i] == 0 and 200 < vals[i + 1] < 40000:
            j = i + 1
            while j < n and 200 < vals[j] - vals[j - 1] < 40000:
                j += 1
            if j - i >= 8:
                best = (base + 4 * i, list(vals[i:j]))
                i = j
                continue
        i += 1
    if not best:
        raise ImageError("kallsyms markers not found")
    return best


def _hop(d, pos, count):
    """Skip @count names entries from @pos (a length, 2 bytes when >127)."""
    for _ in range(count):
        n = d[pos]
        if n & 0x80:
            n = (n & 0x7f) | (d[pos + 1] << 7)
            pos += 1
        pos += 1 + n
    return pos


def _find_names(d, mstart, markers):
    """(num_syms_pos, names_start, num_syms)."""
    m = len(markers)
    lo_n, hi_n = 256 * (m - 1) + 1, 256 * m
    top = mstart - markers[-1]
    for p in range(top - top % 4, max(top - 256 * 300, 0), -4):
        num, = struct.unpack_from("<I", d, p)
        if not lo_n <= num <= hi_n:
            continue
        for names in (p + 4, p + 8):
            if m > 2 and (_hop(d, names, 256) != names + markers[1] or
                          _hop(d, names, 512) != names + markers[2]):
                continue
            if _hop(d, names + markers[-1], num - 256 * (m - 1)) > mstart:
                continue
            return p, names, num
    raise ImageError("kallsyms names not found")


class Kallsyms:
    """name -> address (the first of a name) of every kallsyms symbol."""

    def __init__(self, elf):
        d = elf.data
        _, rbase, roff, rsize = elf.section(".rodata")
        tt, ti, toks = _find_tokens(d, roff, roff + rsize)
        mstart, markers = _find_markers(d, max(tt - 16 * 2**20, roff), tt)
        nump, names, num = _find_names(d, mstart, markers)
        syms = []
        pos = names
        for _ in range(num):
            n = d[pos]
            if n & 0x80:
                n = (n & 0x7f) | (d[pos + 1] << 7)
                pos += 1
            s = b"".join(toks[c] for c in d[pos + 1:pos + 1 + n])
            syms.append((chr(s[0]), s[1:].decode("ascii", "replace")))
            pos += 1 + n
        anchors = {"_text": elf.section(".text")[1]}
        for sym, sec in (("_sdata", ".data"), ("__bss_start", ".bss")):
            if sec in elf.sections:
                anchors[sym] = elf.section(sec)[1]
        # file offset -> virtual address, within .rodata
        vaddr = rbase - roff
        self.addr, self.type = self._addresses(d, syms, num, nump, ti,
                                               anchors, vaddr)
        self.syms = syms

    @staticmethod
    def _addresses(d, syms, num, nump, ti, anchors, vaddr):
        """name -> address, name -> type: the first layout whose
        addresses put every section anchor (_text, _sdata, __bss_start)
        where the ELF's section headers say."""
        index = {}
        for i, (_, name) in enumerate(syms):
            index.setdefault(name, i)
        if "_text" not in index:
            raise ImageError("no _text in kallsyms")
        after = ti + 512
        # 6.12 on: after the token index (4- or 8-aligned); 6.1: before num_syms
        cands = [after, after + 4, nump - 8 - 4 * num, nump - 12 - 4 * num]

        def decoders(off, offs):
            # 6.15 on: each entry is relative to itself, no base
            yield lambda i: vaddr + off + 4 * i + offs[i]
            end = off + 4 * num
            for rb in (end, end + 4, nump - 8):
                base, = struct.unpack_from("<Q", d, rb)
                yield lambda i, b=base: b + (offs[i] & 0xffffffff)
                yield lambda i, b=base: (offs[i] if offs[i] >= 0 else
                                         b - 1 - offs[i])

        for off in cands:
            offs = struct.unpack_from("<%di" % num, d, off)
            for dec in decoders(off, offs):
                if all(name not in index or
                       dec(index[name]) & (2**64 - 1) == want
                       for name, want in anchors.items()):
                    a, t = {}, {}
                    for name, i in index.items():
                        a[name] = dec(i) & (2**64 - 1)
                        t[name] = syms[i][0]
                    return a, t
        raise ImageError("kallsyms addresses not found")


class Image:
    """A kernel image: its ELF, symbols and seal list."""

    def __init__(self, path):
        self.path = path
        self.elf = Elf(extract_vmlinux(path))
        self.ksyms = Kallsyms(self.elf)
        self.sealed = self.elf.seal_list()

    def lookup(self, name):
        """(type letter, address) or None."""
        if name not in self.ksyms.addr:
            return None
        return self.ksyms.type[name], self.ksyms.addr[name]

    def is_text(self, addr):
        """In the kernel's text (_stext.._etext), as kernel_text_address()
        and so register_kprobe() see it.  Not the type letter: 7.x marks
        .data symbols 'T' too."""
        a = self.ksyms.addr
        return a["_stext"] <= addr < a["_etext"]

    def head(self, addr, n=4):
        return self.elf.read(addr, n)
