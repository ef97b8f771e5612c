# SPDX-License-Identifier: GPL-2.0
"""A minimal ELF64 symbol file for gdb: no code, only where things are.

The file is ET_EXEC for x86-64 and holds, like a separate debuginfo file
made by `objcopy --only-keep-debug`:
  - one SHT_NOBITS, allocated, executable section per text range (the
    kernel's .text, each module's): gdb classifies the symbols in them as
    code and reads the bytes from the target, never from the file;
  - .symtab/.strtab: one STT_FUNC per kallsyms function, at its live
    address, sized up to the next symbol: gdb's minimal symbols, enough for
    `trace FUNC` on functions BTF does not describe;
  - the DWARF sections handed in (dwarfgen.py).
add-symbol-file loads it at the addresses written in it.
"""
import struct

SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB, SHT_NOBITS = 1, 2, 3, 8
SHF_ALLOC, SHF_EXECINSTR = 0x2, 0x4
STT_FUNC, STB_GLOBAL = 2, 1

_SYM = struct.Struct("<IBBHQQ")


def build(texts: list[tuple[str, int, int]], funcs: list[tuple[str, int, int, int]],
          debug: list[tuple[str, bytes]]) -> bytes:
    """The file's bytes.

    texts: [(section name, start, end)]; funcs: [(name, address, size,
    index into texts)]; debug: [(section name, bytes)].
    """
    # section list: null, texts, debug, .symtab, .strtab, .shstrtab
    shstr = bytearray(b"\0")

    def sname(s):
        o = len(shstr)
        shstr.extend(s.encode() + b"\0")
        return o

    strtab = bytearray(b"\0")
    syms = [b"\0" * 24]
    seen = {}
    for name, addr, size, sec in funcs:
        o = seen.get(name)
        if o is None:
            o = seen[name] = len(strtab)
            strtab += name.encode() + b"\0"
        syms.append(_SYM.pack(o, (STB_GLOBAL << 4) | STT_FUNC, 0, sec + 1, addr, size))
    symtab = b"".join(syms)

    heads = [(0, 0, 0, 0, 0, 0, 0, 0, 0, 0)]
    blobs = []
    off = 64
    for name, start, end in texts:
        heads.append((sname(name), SHT_NOBITS, SHF_ALLOC | SHF_EXECINSTR, start, off,
                      end - start, 0, 0, 16, 0))
    for name, data in debug:
        heads.append((sname(name), SHT_PROGBITS, 0, 0, off, len(data), 0, 0, 1, 0))
        blobs.append(data)
        off += len(data)
    off = (off + 7) & ~7
    blobs.append(b"\0" * ((-sum(len(x) for x in blobs) - 64) % 8))
    sym_idx = len(heads)
    heads.append((sname(".symtab"), SHT_SYMTAB, 0, 0, off, len(symtab), sym_idx + 1, 1, 8, 24))
    blobs.append(symtab)
    off += len(symtab)
    heads.append((sname(".strtab"), SHT_STRTAB, 0, 0, off, len(strtab), 0, 0, 1, 0))
    blobs.append(bytes(strtab))
    off += len(strtab)
    shstrndx = len(heads)
    name_off = sname(".shstrtab")
    heads.append((name_off, SHT_STRTAB, 0, 0, off, len(shstr), 0, 0, 1, 0))
    blobs.append(bytes(shstr))
    off += len(shstr)
    shoff = (off + 7) & ~7
    blobs.append(b"\0" * (shoff - off))

    ehdr = struct.pack("<4sBBBBB7sHHIQQQIHHHHHH", b"\x7fELF", 2, 1, 1, 0, 0, b"\0" * 7,
                       2, 62, 1, 0, 0, shoff, 0, 64, 0, 0, 64, len(heads), shstrndx)
    sh = b"".join(struct.pack("<IIQQQQIIQQ", *h) for h in heads)
    return ehdr + b"".join(blobs) + sh
