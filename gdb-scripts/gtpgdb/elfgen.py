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

# Elf64_Sym: st_name, st_info, st_other, st_shndx, st_value, st_size
_SYM = struct.Struct("<IBBHQQ")
# Elf64_Ehdr: e_ident (magic, ELFCLASS64, ELFDATA2LSB, EV_CURRENT, ELFOSABI_NONE,
# ABI version, padding), e_type, e_machine, e_version, e_entry, e_phoff,
# e_shoff, e_flags, e_ehsize, e_phentsize, e_phnum, e_shentsize, e_shnum,
# e_shstrndx
_EHDR = struct.Struct("<4sBBBBB7sHHIQQQIHHHHHH")
ET_EXEC, EM_X86_64 = 2, 62
# Elf64_Shdr: sh_name, sh_type, sh_flags, sh_addr, sh_offset, sh_size,
# sh_link, sh_info, sh_addralign, sh_entsize
_SHDR = struct.Struct("<IIQQQQIIQQ")


def _symbols(funcs: list[tuple[str, int, int, int]]) -> tuple[bytes, bytes]:
    """(.symtab, .strtab) of funcs: a global STT_FUNC each, in the section
    after the null one of its text range.  A name kallsyms lists more than
    once (static functions of one name) is stored once."""
    strtab = bytearray(b"\0")
    syms = [bytes(_SYM.size)]          # symbol 0: the null symbol
    seen = {}
    for name, addr, size, sec in funcs:
        o = seen.get(name)
        if o is None:
            o = seen[name] = len(strtab)
            strtab += name.encode() + b"\0"
        syms.append(_SYM.pack(o, (STB_GLOBAL << 4) | STT_FUNC, 0, sec + 1, addr, size))
    return b"".join(syms), bytes(strtab)


def build(texts: list[tuple[str, int, int]], funcs: list[tuple[str, int, int, int]],
          debug: list[tuple[str, bytes]]) -> bytes:
    """The file's bytes.

    texts: [(section name, start, end)]; funcs: [(name, address, size,
    index into texts)]; debug: [(section name, bytes)].

    Laid out as: ELF header, the debug sections, .symtab (8-aligned),
    .strtab, .shstrtab, the section headers (8-aligned): null, texts,
    debug, .symtab, .strtab, .shstrtab.  The texts are SHT_NOBITS: no
    bytes in the file.
    """
    symtab, strtab = _symbols(funcs)
    shstr = bytearray(b"\0")

    def sname(s):
        o = len(shstr)
        shstr.extend(s.encode() + b"\0")
        return o

    heads = [(0, 0, 0, 0, 0, 0, 0, 0, 0, 0)]
    blobs = []
    off = _EHDR.size
    for name, start, end in texts:
        heads.append((sname(name), SHT_NOBITS, SHF_ALLOC | SHF_EXECINSTR, start, off,
                      end - start, 0, 0, 16, 0))
    for name, data in debug:
        heads.append((sname(name), SHT_PROGBITS, 0, 0, off, len(data), 0, 0, 1, 0))
        blobs.append(data)
        off += len(data)
    off = (off + 7) & ~7
    blobs.append(b"\0" * ((-sum(len(x) for x in blobs) - _EHDR.size) % 8))
    sym_idx = len(heads)
    # sh_link: its string table (next); sh_info: one past the last local
    # symbol (only the null one is local)
    heads.append((sname(".symtab"), SHT_SYMTAB, 0, 0, off, len(symtab), sym_idx + 1, 1, 8,
                  _SYM.size))
    blobs.append(symtab)
    off += len(symtab)
    heads.append((sname(".strtab"), SHT_STRTAB, 0, 0, off, len(strtab), 0, 0, 1, 0))
    blobs.append(strtab)
    off += len(strtab)
    shstrndx = len(heads)
    name_off = sname(".shstrtab")
    heads.append((name_off, SHT_STRTAB, 0, 0, off, len(shstr), 0, 0, 1, 0))
    blobs.append(bytes(shstr))
    off += len(shstr)
    shoff = (off + 7) & ~7
    blobs.append(b"\0" * (shoff - off))

    ehdr = _EHDR.pack(b"\x7fELF", 2, 1, 1, 0, 0, bytes(7), ET_EXEC, EM_X86_64, 1, 0, 0, shoff,
                      0, _EHDR.size, 0, 0, _SHDR.size, len(heads), shstrndx)
    sh = b"".join(_SHDR.pack(*h) for h in heads)
    return ehdr + b"".join(blobs) + sh
