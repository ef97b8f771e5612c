# SPDX-License-Identifier: GPL-2.0
"""gtp-trace-errno FUNC ERRNO [COLLECT...]: which check of FUNC makes it
return -ERRNO, found in FUNC's machine code (no kernel source needed).

An optimized kernel rarely keeps one `return -EINVAL` per check: gcc
merges them into one load of the constant that every failing check jumps
to, and the line table gives that load the line of one of them (or of
none: 6.1's do_prlimit() has its two -EINVAL checks on lines 1454 and
1459, and both loads say 1455).  What tells the checks apart is the
conditional jump each one ends in, so the tracepoints go there:

  1. FUNC's code, every range of it (a .cold part too, and all that was
     inlined into it), is disassembled from the target: the live kernel
     text once connected.
  2. Each `mov $-ERRNO,%REG` is a load.  From it, every path is followed
     forward while some register holds the value (a `mov %r15d,%eax`
     copies it; a compare of it with a constant goes the one way the value
     sends it, as an error path's `if (err == -ESTALE) goto retry;` does).
     A path "returns it" when it gets to a ret with the value in rax; it
     "loses it" when every holder is written, or it leaves by a tail call
     or an indirect jump.  A path into a BUG or a noreturn call counts as
     neither.
  3. When every path from the load returns it, the checks are the ways in:
     a conditional jump to the load's basic block is one check (taken), a
     conditional jump just before it one check (not taken), and an
     unconditional way in (a jmp, falling in) is followed back to that
     block's own ways in, up to MAX_BLOCKS blocks.  Each check gets a
     tracepoint on its jump with the jump's own condition on $eflags
     (gtp gives a probe the flags the instruction sees; gdb register 17),
     so a hit is that check failing, and the frame's $pc is at its line.
  4. When some path loses it (`err = -EINVAL; if (!x) goto out; ...
     err = do_it();`: the error is set before the check), the checks are
     the conditional jumps on those paths that choose between returning
     it and losing it: each gets a tracepoint with the condition that it
     goes the returning way and REG == -ERRNO (the same jump may run with
     another value in REG, coming from elsewhere).
  5. A load no check can be found for (reached from the function's entry,
     or by an indirect jump, or too far back) gets a tracepoint right
     after it, with the condition REG == -ERRNO, and says so: the frame's
     $pc is then the instruction after the load.

Every tracepoint gets `collect ITEM` for each COLLECT item gdb can collect
there (an item not in scope at one is left out there, with a line saying
so).  One line per tracepoint tells where it is: the file:line of the
check, the function it is in (the inlined one, then the one it was
inlined into), and the load of -ERRNO it leads to.
"""
from __future__ import annotations

import os
import re
from typing import NamedTuple, Optional

import gdb

from . import lazy

tempfile = lazy.module("tempfile")

# errno names a user may give, Linux x86-64 values (errno-base.h, errno.h).
ERRNOS = {
    "EPERM": 1, "ENOENT": 2, "ESRCH": 3, "EINTR": 4, "EIO": 5, "ENXIO": 6,
    "E2BIG": 7, "ENOEXEC": 8, "EBADF": 9, "ECHILD": 10, "EAGAIN": 11,
    "ENOMEM": 12, "EACCES": 13, "EFAULT": 14, "ENOTBLK": 15, "EBUSY": 16,
    "EEXIST": 17, "EXDEV": 18, "ENODEV": 19, "ENOTDIR": 20, "EISDIR": 21,
    "EINVAL": 22, "ENFILE": 23, "EMFILE": 24, "ENOTTY": 25, "ETXTBSY": 26,
    "EFBIG": 27, "ENOSPC": 28, "ESPIPE": 29, "EROFS": 30, "EMLINK": 31,
    "EPIPE": 32, "EDOM": 33, "ERANGE": 34, "EDEADLK": 35, "ENAMETOOLONG": 36,
    "ENOLCK": 37, "ENOSYS": 38, "ENOTEMPTY": 39, "ELOOP": 40, "ENOMSG": 42,
    "EOVERFLOW": 75, "EOPNOTSUPP": 95, "EADDRINUSE": 98, "ETIMEDOUT": 110,
}

MAX_BLOCKS = 64         # blocks followed back from one load

# $eflags bits: CF, PF, ZF, SF, OF
CF, PF, ZF, SF, OF = 0x1, 0x4, 0x40, 0x80, 0x800
_F = "(long)$eflags"    # gdb's flags type takes no `&` uncast
_SF_NE_OF = "(((%s >> 7) ^ (%s >> 11)) & 1)" % (_F, _F)
# jcc -> (its condition on $eflags, the jcc of the opposite condition)
JCC = {
    "jo": ("(%s & %#x) != 0" % (_F, OF), "jno"),
    "jno": ("(%s & %#x) == 0" % (_F, OF), "jo"),
    "jb": ("(%s & %#x) != 0" % (_F, CF), "jae"),
    "jae": ("(%s & %#x) == 0" % (_F, CF), "jb"),
    "je": ("(%s & %#x) != 0" % (_F, ZF), "jne"),
    "jne": ("(%s & %#x) == 0" % (_F, ZF), "je"),
    "jbe": ("(%s & %#x) != 0" % (_F, CF | ZF), "ja"),
    "ja": ("(%s & %#x) == 0" % (_F, CF | ZF), "jbe"),
    "js": ("(%s & %#x) != 0" % (_F, SF), "jns"),
    "jns": ("(%s & %#x) == 0" % (_F, SF), "js"),
    "jp": ("(%s & %#x) != 0" % (_F, PF), "jnp"),
    "jnp": ("(%s & %#x) == 0" % (_F, PF), "jp"),
    "jl": ("%s != 0" % _SF_NE_OF, "jge"),
    "jge": ("%s == 0" % _SF_NE_OF, "jl"),
    "jle": ("((%s & %#x) != 0 || %s != 0)" % (_F, ZF, _SF_NE_OF), "jg"),
    "jg": ("((%s & %#x) == 0 && %s == 0)" % (_F, ZF, _SF_NE_OF), "jle"),
}
# the disassembler's synonyms
JCC_ALIAS = {"jc": "jb", "jnae": "jb", "jnc": "jae", "jnb": "jae", "jz": "je",
             "jnz": "jne", "jna": "jbe", "jnbe": "ja", "jpe": "jp", "jpo": "jnp",
             "jnge": "jl", "jnl": "jge", "jng": "jle", "jnle": "jg"}

# Calls that never return: what follows them is another block's code.
NORETURN = re.compile(r"^(__stack_chk_fail|__fortify_panic|panic|do_exit|make_task_dead|"
                      r"__ubsan_handle_\w+|BUG_func)$")
RETURN_THUNK = "__x86_return_thunk"

# every name of each 64-bit register
_ALIASES = {
    "rax": ("eax", "ax", "al", "ah"), "rbx": ("ebx", "bx", "bl", "bh"),
    "rcx": ("ecx", "cx", "cl", "ch"), "rdx": ("edx", "dx", "dl", "dh"),
    "rsi": ("esi", "si", "sil"), "rdi": ("edi", "di", "dil"),
    "rbp": ("ebp", "bp", "bpl"), "rsp": ("esp", "sp", "spl"),
}
_ALIASES.update({"r%d" % i: ("r%dd" % i, "r%dw" % i, "r%db" % i) for i in range(8, 16)})
_REG = {a: r for r, names in _ALIASES.items() for a in names + (r,)}
_REG32 = {names[0] for names in _ALIASES.values()}
# what a call may leave anything in (the SysV caller-saved registers)
_CLOBBERED = ("rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11")
# registers instructions write without naming them
_IMPLICIT = {"cltq": ("rax",), "cwtl": ("rax",), "cltd": ("rdx",), "cqto": ("rdx",),
             "rdtsc": ("rax", "rdx"), "rdtscp": ("rax", "rcx", "rdx"), "rdmsr": ("rax", "rdx"),
             "cpuid": ("rax", "rbx", "rcx", "rdx"), "syscall": ("rcx", "r11")}
_RAX_RDX = ("mul", "imul", "div", "idiv")     # the one-operand forms
_STRING = ("movs", "stos", "lods", "cmps", "scas")

# successors that are not instructions
RET, LOST = -1, -2


class Insn(NamedTuple):
    addr: int
    size: int
    op: str             # mnemonic, jcc synonyms folded
    args: str
    target: Optional[int]       # a direct jump's or call's destination
    target_name: str            # its symbol, e.g. "__x86_return_thunk"

    @property
    def end(self) -> int:
        return self.addr + self.size


class Site(NamedTuple):
    addr: int           # where the tracepoint goes
    cond: str
    check: str          # what it traces, for the user
    note: str


# "   0xADDR <+OFF>:\tBYTES\tMNEMONIC OPERANDS" (disassemble /r)
_DIS = re.compile(r"^\s*(?:=>\s*)?0x([0-9a-f]+) <[^>]*>:\t([0-9a-f ]+)\t(\S+)\s*(.*)$")
_TARGET = re.compile(r"^(?:0x)?([0-9a-f]+)(?: <([^>+]*)(?:\+\d+)?>)?$")
_PREFIX = ("rep", "repz", "repnz", "lock", "notrack", "bnd", "cs", "ds")


def _err(msg):
    return gdb.GdbError("gtp-trace-errno: " + msg)


def disassemble(func: str) -> list[Insn]:
    """FUNC's instructions (every range of it), in address order, as the
    target's memory has them."""
    try:
        text = gdb.execute("disassemble /r %s" % func, to_string=True)
    except gdb.error as e:
        raise _err("%s: %s" % (func, e))
    insns = []
    for line in text.splitlines():
        m = _DIS.match(line)
        if not m:
            continue
        op, args = m.group(3), m.group(4).strip()
        if op in _PREFIX and args:
            # a prefix printed as a word: the instruction is what follows
            op, _, args = args.partition(" ")
            args = args.strip()
        op = JCC_ALIAS.get(op, op)
        target, name = None, ""
        if op.startswith(("j", "call")):
            t = _TARGET.match(args)
            if t:
                target, name = int(t.group(1), 16), t.group(2) or ""
        insns.append(Insn(int(m.group(1), 16), len(m.group(2).split()), op, args, target, name))
    if not insns:
        raise _err("%s: no code" % func)
    insns.sort(key=lambda i: i.addr)
    return insns


def _is_jcc(i: Insn) -> bool:
    return i.op in JCC


def _dead_end(i: Insn) -> bool:
    """Nothing runs after i, and it returns nothing: ud2 (BUG), int3, a
    call that never returns."""
    if i.op in ("ud2", "int3", "hlt"):
        return True
    return i.op.startswith("call") and bool(NORETURN.match(i.target_name))


def _no_fallthrough(i: Insn) -> bool:
    return i.op.startswith(("jmp", "ret")) or _dead_end(i)


def _writes(i: Insn, reg: str) -> bool:
    """Does i overwrite reg (any of its names)?  AT&T's destination is the
    last operand; compares, tests and pushes write none; a call leaves
    the caller-saved registers undefined."""
    op = i.op
    if op.startswith("call"):
        return reg in _CLOBBERED
    if op.startswith(("cmp", "test", "push", "bt", "j", "ret", "nop")) and \
            not op.startswith("cmpxchg"):
        return False
    if reg in _IMPLICIT.get(op, ()):
        return True
    if op.rstrip("bwlq") in _RAX_RDX and "," not in i.args and reg in ("rax", "rdx"):
        return True
    if op.rstrip("bwlq") in _STRING and reg in ("rax", "rcx", "rsi", "rdi"):
        return True
    if op.startswith(("xchg", "xadd", "cmpxchg")):
        # both operands, and cmpxchg's rax
        names = [a.strip() for a in i.args.split(",")]
        if op.startswith("cmpxchg") and reg == "rax":
            return True
    else:
        names = [i.args.rsplit(",", 1)[-1].strip()]
    return any(n.startswith("%") and _REG.get(n[1:]) == reg for n in names)


def _transfer(i: Insn, held: frozenset) -> frozenset:
    """The registers holding the value after i, given those before."""
    m = re.fullmatch(r"%(\w+),%(\w+)", i.args) if i.op.startswith("mov") else None
    if m and m.group(1) in _REG and m.group(2) in _REG:
        src, dst = _REG[m.group(1)], _REG[m.group(2)]
        return held | {dst} if src in held else held - {dst}
    return frozenset(r for r in held if not _writes(i, r))


# instructions that leave the flags alone, between a compare and its jcc
_FLAGS_KEPT = ("mov", "lea", "nop", "push", "pop", "cmov", "set", "xchg")


def _alias_width(name: str) -> Optional[int]:
    """Bits of a register name: rax 64, eax 32, ax 16, al 8, r12d 32, ...;
    None for ah..dh (not the low bits)."""
    if name in ("ah", "bh", "ch", "dh") or name not in _REG:
        return None
    if name in _ALIASES:
        return 64
    if name.endswith("d") and name.startswith("r") or name in _REG32:
        return 32
    if name.endswith("w") or len(name) == 2 and name.endswith(("x", "i", "p")):
        return 16
    return 8


def _flags(op: str, a: int, b: int, w: int) -> dict[str, bool]:
    """The flags `cmp b,a` (a - b) or `test b,a` (a & b) leaves, w bits."""
    mask = (1 << w) - 1
    a, b = a & mask, b & mask
    if op == "cmp":
        r = (a - b) & mask
        cf, of = a < b, bool((((a ^ b) & (a ^ r)) >> (w - 1)) & 1)
    else:
        r, cf, of = a & b, False, False
    sf = bool((r >> (w - 1)) & 1)
    return {"cf": cf, "zf": r == 0, "sf": sf, "of": of, "pf": bin(r & 0xff).count("1") % 2 == 0}


# jcc -> whether it jumps, from the flags
_TAKEN = {
    "jo": lambda f: f["of"], "jno": lambda f: not f["of"],
    "jb": lambda f: f["cf"], "jae": lambda f: not f["cf"],
    "je": lambda f: f["zf"], "jne": lambda f: not f["zf"],
    "jbe": lambda f: f["cf"] or f["zf"], "ja": lambda f: not (f["cf"] or f["zf"]),
    "js": lambda f: f["sf"], "jns": lambda f: not f["sf"],
    "jp": lambda f: f["pf"], "jnp": lambda f: not f["pf"],
    "jl": lambda f: f["sf"] != f["of"], "jge": lambda f: f["sf"] == f["of"],
    "jle": lambda f: f["zf"] or f["sf"] != f["of"],
    "jg": lambda f: not f["zf"] and f["sf"] == f["of"],
}


def _known(setter: Insn, jcc: str, reg: str, value: int) -> Optional[bool]:
    """Does jcc jump, after setter, when reg holds value?  None if setter's
    outcome depends on more than reg (another register, memory)."""
    op = setter.op.rstrip("bwlq") if setter.op not in ("cmp", "test") else setter.op
    if op not in ("cmp", "test"):
        return None
    ops = [a.strip() for a in setter.args.split(",")]
    if len(ops) != 2 or not ops[1].startswith("%"):
        return None
    w = _alias_width(ops[1][1:])
    if w is None or _REG.get(ops[1][1:]) != reg:
        return None
    if ops[0].startswith("$"):
        try:
            b = int(ops[0][1:], 0)
        except ValueError:
            return None
    elif ops[0] == ops[1]:
        b = value
    else:
        return None
    return _TAKEN[jcc](_flags(op, value, b, w))


class Func:
    """FUNC's instructions, its basic blocks' first instructions (leaders)
    and who jumps where."""

    def __init__(self, insns: list[Insn]):
        self.insns = insns
        self.index = {i.addr: n for n, i in enumerate(insns)}
        self.jumps_to: dict[int, list[int]] = {}
        for n, i in enumerate(insns):
            if i.op.startswith("j") and i.target in self.index:
                self.jumps_to.setdefault(i.target, []).append(n)
        self.leaders = set(self.jumps_to) | {insns[0].addr}
        for n in range(1, len(insns)):
            if not self.falls_into(n) or insns[n - 1].op.startswith("j"):
                self.leaders.add(insns[n].addr)

    def falls_into(self, n: int) -> bool:
        """Does insn n - 1 run on into insn n?  Not across ranges."""
        prev = self.insns[n - 1] if n else None
        return prev is not None and prev.end == self.insns[n].addr and not _no_fallthrough(prev)

    def block_start(self, n: int) -> int:
        while self.insns[n].addr not in self.leaders:
            n -= 1
        return n

    def successors(self, n: int) -> list[int]:
        """Where control goes after insn n: indexes, RET (the function
        returns) or LOST (a tail call or an indirect jump: what returns is
        not this function's value)."""
        i = self.insns[n]
        if i.op.startswith("ret"):
            return [RET]
        if _dead_end(i):
            return []
        out = []
        if i.op.startswith("j"):
            if i.target in self.index:
                out.append(self.index[i.target])
            elif i.target_name == RETURN_THUNK:
                out.append(RET)
            else:
                out.append(LOST)
            if i.op.startswith("jmp"):
                return out
        if n + 1 < len(self.insns) and self.falls_into(n + 1):
            out.append(n + 1)
        return out

    def known(self, k: int, held: frozenset, value: int, seen: set[int]) -> Optional[bool]:
        """Whether the jcc at k jumps, when the registers held hold value
        since before the compare that sets its flags (in k's block, and
        reached from the load: in seen); None if that cannot be told."""
        j = k
        while self.insns[j].addr not in self.leaders:
            j -= 1
            i = self.insns[j]
            if i.op.startswith(_FLAGS_KEPT):
                continue
            if j not in seen:
                return None
            for reg in held:
                taken = _known(i, self.insns[k].op, reg, value)
                if taken is not None:
                    return taken
            return None
        return None

    def losing(self, start: int, reg: str, value: int) -> tuple[set, set]:
        """Every path from insn start on, with value in reg, followed while
        some register holds it (`mov %r15d,%eax` copies it into rax).
        Returns (the nodes (insn, registers holding it) reached, those from
        which some path loses it: every holder written, a ret without it
        in rax, a tail call or indirect jump).  A conditional jump on the
        value alone goes the one way the value sends it (an error path's
        `if (err == -ESTALE) goto retry;`)."""
        nodes, lost, seen = set(), set(), set()
        preds: dict[tuple, list[tuple]] = {}
        todo = [(start, frozenset((reg,)))]
        while todo:
            node = todo.pop()
            if node in nodes:
                continue
            nodes.add(node)
            k, held = node
            seen.add(k)
            i = self.insns[k]
            after = _transfer(i, held)
            succ = self.successors(k)
            if _is_jcc(i) and len(succ) == 2:
                taken = self.known(k, held, value, seen)
                if taken is not None:
                    succ = succ[:1] if taken else succ[1:]
            if not succ:
                continue        # BUG, a noreturn call: neither returns nor loses it
            if not after:
                lost.add(node)
                continue
            for nxt in succ:
                if nxt == LOST or nxt == RET and "rax" not in after:
                    lost.add(node)
                elif nxt != RET:
                    preds.setdefault((nxt, after), []).append(node)
                    todo.append((nxt, after))
        todo = list(lost)
        while todo:
            for p in preds.get(todo.pop(), ()):
                if p not in lost:
                    lost.add(p)
                    todo.append(p)
        return nodes, lost

    def ways_in(self, n: int) -> Optional[list[tuple[int, bool]]]:
        """The conditional jumps after which insn n runs for certain:
        [(index of the jcc, taken)]; None if n can also be reached
        otherwise (from the entry, an indirect jump, or past MAX_BLOCKS)."""
        edges = set()
        todo, done = [self.block_start(n)], set()
        while todo:
            b = todo.pop()
            if b in done:
                continue
            done.add(b)
            if b == 0 or len(done) > MAX_BLOCKS:
                return None
            for j in self.jumps_to.get(self.insns[b].addr, ()):
                if _is_jcc(self.insns[j]):
                    edges.add((j, True))
                else:
                    todo.append(self.block_start(j))
            if self.falls_into(b):
                if _is_jcc(self.insns[b - 1]):
                    edges.add((b - 1, False))
                else:
                    todo.append(self.block_start(b - 1))
        return sorted(edges) or None

    def deciding(self, nodes: set, lost: set, value: int) -> list[tuple[int, bool, str]]:
        """The conditional jumps reached from the load with one way that
        returns the value and one that loses it: [(index, whether taken
        returns it, a register holding the value there)]."""
        out = set()
        seen = {k for k, _ in nodes}
        for node in nodes:
            k, held = node
            i = self.insns[k]
            if not _is_jcc(i) or k + 1 >= len(self.insns) or not self.falls_into(k + 1) \
                    or self.known(k, held, value, seen) is not None:
                continue
            if i.target in self.index:
                keeps_taken = (self.index[i.target], held) not in lost
            else:
                keeps_taken = i.target_name == RETURN_THUNK and "rax" in held
            if keeps_taken != ((k + 1, held) not in lost):
                out.add((k, keeps_taken, min(held)))
        return sorted(out)


def loads(f: Func, errno: int) -> list[tuple[int, str, int]]:
    """[(index, register, width)] of each `mov $-errno, %REG`."""
    want = {(1 << 32) - errno: 32, (1 << 64) - errno: 64}
    out = []
    for n, i in enumerate(f.insns):
        m = re.fullmatch(r"\$0x([0-9a-f]+),%(\w+)", i.args) if i.op.startswith("mov") else None
        if m and int(m.group(1), 16) in want and (m.group(2) in _ALIASES or m.group(2) in _REG32):
            out.append((n, _REG[m.group(2)], want[int(m.group(1), 16)]))
    return out


def _is_value(reg: str, width: int, errno: int) -> str:
    """The condition that reg holds -errno (in its low 32 bits for a 32-bit
    load)."""
    return "%s == -%d" % ("(int)$%s" % reg if width == 32 else "$%s" % reg, errno)


def line(addr: int) -> str:
    """file:line of addr, or the address."""
    sal = gdb.find_pc_line(addr)
    return "%s:%d" % (sal.symtab.filename, sal.line) if sal.symtab and sal.line else "0x%x" % addr


def where(addr: int) -> str:
    """`file:line in FUNC` for addr; for code inlined into FUNC, the inlined
    function and `, inlined into FUNC`."""
    names = []
    try:
        b = gdb.block_for_pc(addr)
    except RuntimeError:
        b = None
    while b is not None and not b.is_static and not b.is_global:
        if b.function is not None and (not names or names[-1] != b.function.name):
            names.append(b.function.name)
        b = b.superblock
    s = line(addr)
    if names:
        s += " in " + names[0]
    if len(names) > 1:
        s += ", inlined into " + names[-1]
    return s


def _symoff(addr: int) -> str:
    out = gdb.execute("info symbol 0x%x" % addr, to_string=True).strip()
    m = re.match(r"^(\S+)(?: \+ (\d+))? in section", out)
    if not m:
        return "0x%x" % addr
    return m.group(1) + ("+%s" % m.group(2) if m.group(2) else "")


def sites(f: Func, errno: int, name: str) -> tuple[int, list[Site]]:
    """(how many loads of -errno some path returns, where their
    tracepoints go)."""
    out: list[Site] = []
    seen: dict[tuple[int, str], int] = {}
    nloads = 0

    def add(addr, cond, check, note=""):
        """One tracepoint per jump and condition: a jump that decides for
        several loads (a shared error path's) names them all."""
        k = seen.get((addr, cond))
        if k is None:
            seen[(addr, cond)] = len(out)
            out.append(Site(addr, cond, check, note))
        else:
            load = check.rsplit(" at ", 1)[-1].split(" ")[0]
            out[k] = out[k]._replace(check=out[k].check + ", or at " + load)

    for n, reg, width in loads(f, errno):
        load = f.insns[n]
        if n + 1 >= len(f.insns) or not f.falls_into(n + 1):
            continue
        value = (1 << width) - errno
        nodes, lost = f.losing(n + 1, reg, value)
        dest = "-%s at %s (%s)" % (name, _symoff(load.addr), line(load.addr))
        if (n + 1, frozenset((reg,))) not in lost:
            nloads += 1
            edges = f.ways_in(n)
            for j, taken in edges or ():
                i = f.insns[j]
                cc = i.op if taken else JCC[i.op][1]
                add(i.addr, JCC[cc][0], "%s %s -> %s" % (
                    i.op, "taken" if taken else "not taken", dest))
            if not edges:
                add(f.insns[n + 1].addr, _is_value(reg, width, errno),
                    "after %s %s -> %s" % (load.op, load.args, dest),
                    "reached other than by a conditional jump: $pc is the instruction after "
                    "the load")
            continue
        checks = f.deciding(nodes, lost, value)
        if not checks:
            continue        # never returned: the register is reused first
        nloads += 1
        for k, taken, holder in checks:
            i = f.insns[k]
            cc = i.op if taken else JCC[i.op][1]
            is_errno = _is_value(holder, width, errno)
            add(i.addr, "%s && %s" % (is_errno, JCC[cc][0]), "%s %s if %s -> %s" % (
                i.op, "taken" if taken else "not taken", is_errno.replace("(int)", ""), dest))
    return nloads, out


def _source(text: str) -> None:
    """Run gdb commands (actions ... end) from a file: gdb.execute takes one
    line at a time, and `actions` would read the rest from gdb's input."""
    with tempfile.NamedTemporaryFile("w", suffix=".gdb", prefix="gtp-errno-", delete=False) as f:
        f.write(text)
    try:
        gdb.execute("source %s" % f.name, to_string=True)
    finally:
        os.unlink(f.name)


def set_actions(num: int, items: list[str], raw: tuple[str, ...] = ()
                ) -> list[tuple[str, str]]:
    """Give tracepoint num `collect ITEM` for each item gdb can collect
    there, then the action lines raw as they are; return [(item, why)] of
    the items left out.  A raw line gdb refuses raises its gdb.error."""
    def attempt(keep):
        _source("actions %d\n%s%send\n" % (num, "".join("collect %s\n" % i for i in keep),
                                           "".join("%s\n" % a for a in raw)))
    if raw:
        attempt([])     # the raw lines alone: their error is not an item's
    try:
        attempt(items)
        return []
    except gdb.error:
        pass
    keep, dropped = [], []
    for item in items:
        try:
            attempt(keep + [item])
            keep.append(item)
        except gdb.error as e:
            dropped.append((item, str(e).splitlines()[-1]))
    attempt(keep)
    return dropped


def parse_errno(arg: str) -> tuple[int, str]:
    """"EINVAL", "-EINVAL", "22" or "-22" -> (22, "EINVAL")."""
    a = arg.lstrip("-").upper()
    if a in ERRNOS:
        return ERRNOS[a], a
    if a.isdigit() and 0 < int(a) < 4096:
        n = int(a)
        names = [k for k, v in ERRNOS.items() if v == n]
        return n, names[0] if names else str(n)
    raise _err("%s: not an errno (a name such as EINVAL, or a number)" % arg)


class TraceErrno(gdb.Command):
    """Trace each check of FUNC that makes it return -ERRNO.

Usage: gtp-trace-errno FUNC ERRNO [COLLECT...]
ERRNO: a name (EINVAL) or number (22).  COLLECT: what each tracepoint
collects ($locals, $args, *how, ...; quote an item with spaces).
FUNC's code, with what was inlined into it, is read from the target; each
`mov $-ERRNO,%REG` that reaches a return is a place FUNC returns -ERRNO
from.  Each conditional jump that decides for it gets a tracepoint on it,
with the condition that it goes that way: a hit is that check failing, at
the check's own line.  A load no such jump leads to gets a tracepoint right
after it, if $REG == -ERRNO.  One line per tracepoint says where it is;
in a trace frame, `gtp-where` says it again."""

    def __init__(self) -> None:
        super().__init__("gtp-trace-errno", gdb.COMMAND_TRACEPOINTS, gdb.COMPLETE_SYMBOL)

    def invoke(self, arg: str, from_tty: bool) -> None:
        argv = gdb.string_to_argv(arg)
        if len(argv) < 2:
            raise gdb.GdbError("usage: gtp-trace-errno FUNC ERRNO [COLLECT...]")
        func, items = argv[0], argv[2:]
        errno, name = parse_errno(argv[1])
        nloads, found = sites(Func(disassemble(func)), errno, name)
        if not found:
            gdb.write("gtp-trace-errno: %s: no load of -%s (-%d) that it returns: it does "
                      "not return -%s itself (one passed on from a callee is the callee's: "
                      "trace the callee)\n" % (func, name, errno, name))
            return
        gdb.write("gtp-trace-errno: %s: -%s (-%d) loaded at %d place%s, %d tracepoint%s\n" % (
            func, name, errno, nloads, "" if nloads == 1 else "s",
            len(found), "" if len(found) == 1 else "s"))
        for s in found:
            gdb.execute("trace *0x%x if %s" % (s.addr, s.cond), to_string=True)
            num = int(gdb.parse_and_eval("$tpnum"))
            dropped = set_actions(num, items) if items else []
            gdb.write("tracepoint %d: %s: %s\n" % (num, where(s.addr), s.check))
            if s.note:
                gdb.write("  (%s)\n" % s.note)
            for item, why in dropped:
                gdb.write("  (collect %s left out here: %s)\n" % (item, why))


def register() -> None:
    TraceErrno()
