"""Random agent-expression bytecode for the live fuzz (test_live_fuzz.py).

Programs are well-formed by construction against the rules of
module/core/ax_verify.c, from the opcode table of module/core/ax_ops.c
(values of gdb's gdbsupport/ax.def): straight-line code and if / if-else /
loop constructs, each leaving the stack depth where it found it, at most
40 deep, every jump on an instruction boundary, nothing unreachable, 'end'
last.  The generator of tests/fuzz/fuzz_jit.c does the same in C for the
differential JIT fuzzer; this one aims at a live kernel: its reads are of
real registers and of addresses the caller says are readable (kernel
data, the probed function's stack) or not, its variables the trace state
variables the session defined.

refused() builds programs the verifier must refuse, one reason each.
"""
import struct

# module/core/ax.h: enum ax_opcode
ADD, SUB, MUL, DIV_S, DIV_U, REM_S, REM_U = 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08
LSH, RSH_S, RSH_U, TRACE, TRACE_QUICK, LOG_NOT = 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e
BIT_AND, BIT_OR, BIT_XOR, BIT_NOT, EQUAL, LESS_S, LESS_U = 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15
EXT, REF8, REF16, REF32, REF64 = 0x16, 0x17, 0x18, 0x19, 0x1a
IF_GOTO, GOTO, CONST8, CONST16, CONST32, CONST64 = 0x20, 0x21, 0x22, 0x23, 0x24, 0x25
REG, END, DUP, POP, ZERO_EXT, SWAP = 0x26, 0x27, 0x28, 0x29, 0x2a, 0x2b
GETV, SETV, TRACEV, TRACENZ, TRACE16, PICK, ROT, PRINTF = (
    0x2c, 0x2d, 0x2e, 0x2f, 0x30, 0x32, 0x33, 0x34)
FLOAT_OPS = (0x01, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f)
NR_REGS = 18            # AX_NR_GDB_REGS: rax..r15, rip, eflags
RSP = 7                 # gdb's amd64 number of rsp
MAX_CODE = 1024         # AX_MAX_CODE
MAX_STACK = 64          # AX_MAX_STACK
DEPTH_CAP = 40          # what the generator stays under

BINARY = (ADD, SUB, MUL, DIV_S, DIV_U, REM_S, REM_U, LSH, RSH_S, RSH_U,
          BIT_AND, BIT_OR, BIT_XOR, EQUAL, LESS_S, LESS_U)
INTERESTING = (0, 1, 2, 3, 7, 8, 31, 32, 63, 64, 127, 128, 255, 256,
               0x7fffffff, 0x80000000, 0xffffffff, 1 << 32, (1 << 63) - 1,
               1 << 63, (1 << 64) - 1, (1 << 64) - 2)


class Ctx:
    """What a program may refer to: readable addresses (a list of
    (address, length)), unreadable ones, the numbers of user variables
    (settable) and of built-ins (read-only but for setv's refusal at run
    time), and whether it is a condition."""

    def __init__(self, readable, unreadable, user_tsvs, builtin_tsvs):
        self.readable = readable
        self.unreadable = unreadable
        self.user_tsvs = user_tsvs
        self.builtin_tsvs = builtin_tsvs


class _Gen:
    def __init__(self, rng, ctx, max_len):
        self.rng = rng
        self.ctx = ctx
        self.code = bytearray()
        self.depth = 0
        self.nest = 0
        self.max_len = max_len
        self.fix = []           # (position of the operand, label)
        self.labels = []

    # -- emitting --
    def op(self, o, delta, operand=b""):
        self.code.append(o)
        self.code += operand
        self.depth += delta

    def full(self):
        return len(self.code) > self.max_len

    def const(self, v):
        v &= (1 << 64) - 1
        r = self.rng.randrange(2)
        if v < 0x100 and r:
            self.op(CONST8, 1, struct.pack(">B", v))
        elif v < 0x10000 and r:
            self.op(CONST16, 1, struct.pack(">H", v))
        elif v < 1 << 32 and self.rng.randrange(2):
            self.op(CONST32, 1, struct.pack(">I", v))
        else:
            self.op(CONST64, 1, struct.pack(">Q", v))

    def reg(self, n):
        self.op(REG, 1, struct.pack(">H", n))

    def label(self):
        self.labels.append(None)
        return len(self.labels) - 1

    def place(self, l):
        self.labels[l] = len(self.code)

    def jump(self, o, l):
        self.op(o, -1 if o == IF_GOTO else 0)
        self.fix.append((len(self.code), l))
        self.code += b"\0\0"

    def finish(self):
        for at, l in self.fix:
            self.code[at:at + 2] = struct.pack(">H", self.labels[l])
        return bytes(self.code)

    # -- values --
    def value(self):
        r = self.rng.randrange(4)
        if r == 0:
            return self.rng.choice(INTERESTING)
        if r == 1:
            return self.rng.randrange(20) - 10
        if r == 2:
            return self.rng.getrandbits(64)
        return self.rng.getrandbits(31) - (1 << 30)

    def address(self):
        """Push an address: mostly readable, sometimes not."""
        c = self.ctx
        r = self.rng.randrange(10)
        if r < 3:
            # the probed function's stack, as gdb's $sp-relative reads
            self.reg(RSP)
            self.const(8 * self.rng.randrange(16))
            self.op(ADD, -1)
        elif r < 8 and c.readable:
            a, n = self.rng.choice(c.readable)
            self.const(a + self.rng.randrange(max(1, n - 8)))
        elif r < 9:
            # an argument register used as a pointer: valid or not
            self.reg(self.rng.choice((4, 5, 2, 3)))
        else:
            self.const(self.rng.choice(c.unreadable))

    def tsv(self, settable):
        c = self.ctx
        pool = list(c.user_tsvs) if settable else list(c.user_tsvs) + list(c.builtin_tsvs)
        if not pool or self.rng.randrange(12) == 0:
            return self.rng.choice((0x300, 0x7fff))      # undefined: a run-time error
        return self.rng.choice(pool)

    # -- code --
    def gen_op(self):
        d = self.depth
        rng = self.rng
        r = rng.randrange(4 if d >= DEPTH_CAP else 13 if d >= 2 else 9 if d >= 1 else 3)
        if r in (0, 1, 2) and d < DEPTH_CAP:
            k = rng.randrange(5)
            if k == 0:
                self.reg(rng.randrange(NR_REGS))
            elif k == 1:
                self.op(GETV, 1, struct.pack(">H", self.tsv(False)))
            else:
                self.const(self.value())
        elif r == 3 and d >= 1:
            self.op(POP, -1)
        elif r == 3:
            self.const(self.value())
        elif r == 4:
            o = rng.choice((LOG_NOT, BIT_NOT, EXT, ZERO_EXT, REF8, REF16, REF32, REF64))
            if o in (REF8, REF16, REF32, REF64) and rng.randrange(4):
                self.op(POP, -1)
                self.address()
            if o in (EXT, ZERO_EXT):
                self.op(o, 0, bytes([rng.choice((1, 7, 8, 15, 16, 31, 32, 33, 63, 64))]))
            else:
                self.op(o, 0)
        elif r == 5:
            k = rng.randrange(8)
            if k == 0:
                self.op(DUP, 1)
            elif k == 1:
                self.op(PICK, 1, bytes([rng.randrange(d)]))
            elif k == 2:
                # trace_quick / trace16: record N bytes at the address on top
                self.op(POP, -1)
                self.address()
                if rng.randrange(2):
                    self.op(TRACE_QUICK, 0, bytes([rng.choice((1, 2, 4, 8, 16, 64))]))
                else:
                    self.op(TRACE16, 0, struct.pack(">H", rng.choice((8, 100, 600))))
            elif k == 3:
                self.op(SETV, 0, struct.pack(">H", self.tsv(True)))
            elif k == 4:
                self.op(TRACEV, 0, struct.pack(">H", self.tsv(False)))
            elif k == 5:
                self.op(GETV, 1, struct.pack(">H", self.tsv(False)))
            else:
                self.address()
                self.const(rng.choice((0, 1, 4, 8, 32, 200)))
                self.op(rng.choice((TRACE, TRACENZ)), -2)
        elif r in (6, 7, 8) and d >= 1 and self.nest < 3:
            self.construct()
        elif r in (6, 7, 8):
            self.const(self.value())
        else:
            o = rng.choice(BINARY + (SWAP, ROT, ADD, LESS_S))
            if o == ROT and d < 3:
                o = SWAP
            if o in (SWAP, ROT):
                self.op(o, 0)
            else:
                self.op(o, -1)

    def rebalance(self, d):
        while self.depth > d:
            self.op(ADD if self.depth >= 2 and self.rng.randrange(2) else POP, -1)
        while self.depth < d:
            self.const(self.value())

    def line(self, n):
        start = self.depth
        while n > 0 and not self.full():
            self.gen_op()
            n -= 1
        self.rebalance(start)

    def construct(self):
        """if / if-else / counted loop / budget loop at depth d >= 1,
        leaving the depth unchanged (tests/fuzz/fuzz_jit.c's shapes)."""
        rng = self.rng
        self.nest += 1
        l1, l2 = self.label(), self.label()
        k = rng.randrange(4)
        if k == 0:
            self.op(DUP, 1)
            self.jump(IF_GOTO, l1)
            self.line(1 + rng.randrange(5))
            self.place(l1)
        elif k == 1:
            self.op(DUP, 1)
            self.jump(IF_GOTO, l1)
            self.line(1 + rng.randrange(5))
            self.jump(GOTO, l2)
            self.place(l1)
            self.line(1 + rng.randrange(5))
            self.place(l2)
        elif k == 2 and self.ctx.user_tsvs:
            # v = n; do { ... } while (--v): a loop on a trace state variable
            v = rng.choice(self.ctx.user_tsvs)
            self.const(1 + rng.randrange(20))
            self.op(SETV, 0, struct.pack(">H", v))
            self.op(POP, -1)
            self.place(l1)
            self.line(1 + rng.randrange(5))
            self.op(GETV, 1, struct.pack(">H", v))
            self.const(1)
            self.op(SUB, -1)
            self.op(SETV, 0, struct.pack(">H", v))
            self.jump(IF_GOTO, l1)
        else:
            # a loop on a copy of the top: it may well run out of budget
            self.op(DUP, 1)
            self.place(l1)
            self.line(1 + rng.randrange(4))
            self.const(1)
            self.op(SUB, -1)
            self.op(DUP, 1)
            self.jump(IF_GOTO, l1)
            self.op(POP, -1)
        self.nest -= 1


def program(rng, ctx, is_cond, max_len=160):
    """A well-formed program; a condition leaves one value at 'end'."""
    g = _Gen(rng, ctx, max_len)
    if is_cond or rng.randrange(2):
        g.address() if rng.randrange(3) == 0 else g.const(g.value())
        g.line(rng.randrange(12))
        if is_cond and rng.randrange(2):
            g.const(rng.randrange(4))
            g.op(rng.choice((LESS_S, LESS_U, EQUAL)), -1)
    else:
        g.line(1 + rng.randrange(10))
    g.op(END, 0)
    return g.finish()


def set_tsv(n, value):
    """gdb's 'teval $v = value' (value < 256) of the variable numbered n."""
    return bytes([CONST8, value, SETV]) + struct.pack(">H", n) + bytes([POP, END])


def set_tsv64(n, value):
    """gdb's 'teval $v = value' of a 64-bit value (an address)."""
    return bytes([CONST64]) + struct.pack(">Q", value) + bytes([SETV]) + \
        struct.pack(">H", n) + bytes([POP, END])


def kret_mark(n):
    """gdb's 'teval $kret = 0' with $kret numbered n."""
    return set_tsv(n, 0)


def collect_tsv(n):
    """gdb's 'collect $v' of a trace state variable: tracev n."""
    return bytes([TRACEV]) + struct.pack(">H", n) + bytes([END])


def refused(rng, is_cond):
    """(bytecode, reason): a program ax_verify() must refuse."""
    r = rng.randrange(16)
    ok = bytes([CONST8, 1])
    if r == 0:
        o = rng.choice([0x00, 0x31] + list(range(0x35, 0x100)))
        return ok + bytes([o, END]), "unknown opcode 0x%02x" % o
    if r == 1:
        return ok + bytes([rng.choice(FLOAT_OPS), END]), "float opcode"
    if r == 2:
        return ok + ok + bytes([PRINTF, 0, 0, 0, END]), "printf"
    if r == 3:
        return ok + bytes([CONST32, 0, 1]), "truncated operand"
    if r == 4:
        return ok + bytes([GOTO, 0x03, 0x00, END]), "jump target out of range"
    if r == 5:
        return ok + bytes([IF_GOTO, 0, 1, CONST8, 1, END]), "jump into an operand"
    if r == 6:
        return bytes([ADD, END]), "stack underflow"
    if r == 7:
        return ok + bytes([END, POP, END]), "unreachable code"
    if r == 8:
        return ok + bytes([POP]), "no end"
    if r == 9:
        return bytes([REG, 0, rng.choice((18, 19, 0xff))]) + bytes([END]), "register past eflags"
    if r == 10:
        return ok + bytes([rng.choice((EXT, ZERO_EXT)), rng.choice((0, 65, 0xff)), END]), \
            "ext width"
    if r == 11:
        return ok * (MAX_STACK + 1) + bytes([END]), "stack deeper than 64"
    if r == 12:
        # if_goto joins with depth 1 on one path and 2 on the other
        return bytes([CONST8, 1, CONST8, 0, IF_GOTO, 0, 9, CONST8, 2, END]), \
            "unequal depth at a join"
    if r == 13:
        return ok + bytes([PICK, 1, END]), "pick below the stack"
    if r == 14 and is_cond:
        return bytes([END]), "condition with an empty stack"
    # a backward jump to depth 0 from depth 1, and an 'end' nothing reaches
    return ok + bytes([GOTO, 0, 0, END]), "loop with unequal depth"
