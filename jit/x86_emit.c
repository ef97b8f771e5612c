// SPDX-License-Identifier: GPL-2.0
/*
 * x86_emit.c - x86-64 instruction encoders (see x86_emit.h).
 *
 * Encoding reminders used throughout:
 *   REX    = 0100WRXB: W = 64-bit operand, R extends ModRM.reg,
 *            B extends ModRM.rm (or the opcode register).
 *   ModRM  = mod(2) reg(3) rm(3): mod 11 = register, 00/01/10 = memory
 *            with no/8-bit/32-bit displacement.
 *   rm 100 (rsp, r12) as a base needs a SIB byte (0x24 = no index);
 *   rm 101 (rbp, r13) with mod 00 means rip-relative, so those bases
 *   always carry a displacement.
 *   Byte registers 4..7 are ah..bh without a REX prefix and spl..dil with
 *   one: byte accesses to them force an (empty) REX.
 */
#include "x86_emit.h"

u8 *emit_code(u8 *ptr, u32 bytes, unsigned int len)
{
	/* little endian: the first byte of the instruction is the low byte */
	while (len--) {
		*ptr++ = bytes & 0xff;
		bytes >>= 8;
	}
	return ptr;
}

static bool is_ereg(int reg)
{
	return reg >= X86_R8;
}

/* Low byte of sp/bp/si/di: only addressable with a REX prefix. */
static bool needs_rex_byte(int reg)
{
	return reg >= X86_RSP && reg <= X86_RDI;
}

static u8 modrm(int mod, int reg, int rm)
{
	return (mod << 6) | ((reg & 7) << 3) | (rm & 7);
}

static void emit_rex(u8 **pprog, bool w, int reg, int rm, bool force)
{
	u8 *prog = *pprog;
	u8 rex = 0x40 | (w << 3) | (is_ereg(reg) << 2) | is_ereg(rm);

	if (rex != 0x40 || force)
		EMIT1(rex);
	*pprog = prog;
}

/* ModRM (+SIB) (+disp) for [base + off], with 'reg' in ModRM.reg. */
static void emit_mem(u8 **pprog, int reg, int base, s32 off)
{
	u8 *prog = *pprog;
	int mod;

	if (off == 0 && (base & 7) != X86_RBP)
		mod = 0;
	else if (is_imm8(off))
		mod = 1;
	else
		mod = 2;
	EMIT1(modrm(mod, reg, base));
	if ((base & 7) == X86_RSP)
		EMIT1(0x24);	/* SIB: base only, no index */
	if (mod == 1)
		EMIT1((u8)off);
	else if (mod == 2)
		EMIT_imm32(off);
	*pprog = prog;
}

/* mov dst, src */
void emit_mov_rr(u8 **pprog, int dst, int src)
{
	u8 *prog = *pprog;

	if (dst == src)
		return;
	emit_rex(&prog, true, src, dst, false);
	EMIT2(0x89, modrm(3, src, dst));
	*pprog = prog;
}

/* mov dst32, src32: also zero-extends into the upper half */
void emit_mov_rr32(u8 **pprog, int dst, int src)
{
	u8 *prog = *pprog;

	emit_rex(&prog, false, src, dst, false);
	EMIT2(0x89, modrm(3, src, dst));
	*pprog = prog;
}

/*
 * mov dst, imm64 in its shortest form.  Clobbers the flags when imm is 0
 * (xor): callers never have live flags across a constant load.
 */
void emit_mov_imm(u8 **pprog, int dst, u64 imm)
{
	u8 *prog = *pprog;

	if (imm == 0) {
		/* xor dst32, dst32: 2-3 bytes instead of 5-7 */
		emit_rex(&prog, false, dst, dst, false);
		EMIT2(0x31, modrm(3, dst, dst));
	} else if (is_uimm32(imm)) {
		/* mov dst32, imm32 zero-extends */
		emit_rex(&prog, false, 0, dst, false);
		EMIT1(0xb8 + (dst & 7));
		EMIT_imm32(imm);
	} else if (is_simm32((s64)imm)) {
		/* mov dst, simm32 (sign-extended) */
		emit_rex(&prog, true, 0, dst, false);
		EMIT2(0xc7, modrm(3, 0, dst));
		EMIT_imm32(imm);
	} else {
		/* movabs dst, imm64 */
		emit_rex(&prog, true, 0, dst, false);
		EMIT1(0xb8 + (dst & 7));
		EMIT_imm32(imm);
		EMIT_imm32(imm >> 32);
	}
	*pprog = prog;
}

/* REX + opcode of a load of @size bytes (sign- or zero-extended) */
static void emit_load_op(u8 **pprog, int size, bool sx, int dst, int base)
{
	u8 *prog = *pprog;

	switch (size) {
	case 1:
		/* movsx dst, byte [m] / movzx dst32, byte [m] */
		emit_rex(&prog, sx, dst, base, false);
		EMIT2(0x0f, sx ? 0xbe : 0xb6);
		break;
	case 2:
		/* movsx dst, word [m] / movzx dst32, word [m] */
		emit_rex(&prog, sx, dst, base, false);
		EMIT2(0x0f, sx ? 0xbf : 0xb7);
		break;
	case 4:
		/* movsxd dst, dword [m] / mov dst32, dword [m] */
		emit_rex(&prog, sx, dst, base, false);
		EMIT1(sx ? 0x63 : 0x8b);
		break;
	default:
		/* mov dst, qword [m] */
		emit_rex(&prog, true, dst, base, false);
		EMIT1(0x8b);
		break;
	}
	*pprog = prog;
}

/* dst = *(u<size*8> or s<size*8> *)(base + off), extended to 64 bits */
void emit_load(u8 **pprog, int size, bool sx, int dst, int base, s32 off)
{
	u8 *prog = *pprog;

	emit_load_op(&prog, size, sx, dst, base);
	emit_mem(&prog, dst, base, off);
	*pprog = prog;
}

/*
 * The same load from the absolute address @addr (sign-extended disp32, as
 * kernel and module addresses are): ModRM rm=100 + SIB 0x25, i.e. no base
 * and no index (rm=101 alone would be rip-relative in 64-bit mode).
 */
void emit_load_abs(u8 **pprog, int size, bool sx, int dst, s32 addr)
{
	u8 *prog = *pprog;

	emit_load_op(&prog, size, sx, dst, X86_RAX);
	EMIT2(modrm(0, dst, X86_RSP), 0x25);
	EMIT_imm32(addr);
	*pprog = prog;
}


/* *(u<size*8> *)(base + off) = src */
void emit_store(u8 **pprog, int size, int base, s32 off, int src)
{
	u8 *prog = *pprog;

	switch (size) {
	case 1:
		emit_rex(&prog, false, src, base, needs_rex_byte(src));
		EMIT1(0x88);
		break;
	case 2:
		EMIT1(0x66);	/* operand-size prefix */
		emit_rex(&prog, false, src, base, false);
		EMIT1(0x89);
		break;
	case 4:
		emit_rex(&prog, false, src, base, false);
		EMIT1(0x89);
		break;
	default:
		emit_rex(&prog, true, src, base, false);
		EMIT1(0x89);
		break;
	}
	emit_mem(&prog, src, base, off);
	*pprog = prog;
}

/* mov dword/qword [base + off], simm32 */
void emit_store_imm(u8 **pprog, int size, int base, s32 off, s32 imm)
{
	u8 *prog = *pprog;

	emit_rex(&prog, size == 8, 0, base, false);
	EMIT1(0xc7);
	emit_mem(&prog, 0, base, off);
	EMIT_imm32(imm);
	*pprog = prog;
}

/* add/or/and/sub/xor/cmp dst, src: opcode (alu << 3) | 1 is "r/m64, r64" */
void emit_alu_rr(u8 **pprog, int alu, int dst, int src)
{
	u8 *prog = *pprog;

	emit_rex(&prog, true, src, dst, false);
	EMIT2((alu << 3) | 1, modrm(3, src, dst));
	*pprog = prog;
}

/* add/or/and/sub/xor/cmp dst, simm32 (imm8 form when it fits) */
static void emit_alu_imm(u8 **pprog, bool w, int alu, int dst, s32 imm)
{
	u8 *prog = *pprog;

	emit_rex(&prog, w, 0, dst, false);
	if (is_imm8(imm)) {
		EMIT3(0x83, modrm(3, alu, dst), (u8)imm);
	} else if (dst == X86_RAX) {
		/* the short "op rax, imm32" form saves the ModRM byte */
		EMIT1((alu << 3) | 5);
		EMIT_imm32(imm);
	} else {
		EMIT2(0x81, modrm(3, alu, dst));
		EMIT_imm32(imm);
	}
	*pprog = prog;
}

void emit_alu_ri(u8 **pprog, int alu, int dst, s32 imm)
{
	emit_alu_imm(pprog, true, alu, dst, imm);
}

/* The same on 32 bits (cmp esi, 5): an int argument compared in place. */
void emit_alu_ri32(u8 **pprog, int alu, int dst, s32 imm)
{
	emit_alu_imm(pprog, false, alu, dst, imm);
}

/* add/or/and/sub/xor/cmp dst, qword [base + off]: opcode (alu << 3) | 3 */
void emit_alu_rm(u8 **pprog, int alu, int dst, int base, s32 off)
{
	u8 *prog = *pprog;

	emit_rex(&prog, true, dst, base, false);
	EMIT1((alu << 3) | 3);
	emit_mem(&prog, dst, base, off);
	*pprog = prog;
}

/* add/or/and/sub/xor/cmp dword [base + off], simm32 */
void emit_alu_mi32(u8 **pprog, int alu, int base, s32 off, s32 imm)
{
	u8 *prog = *pprog;

	emit_rex(&prog, false, 0, base, false);
	EMIT1(is_imm8(imm) ? 0x83 : 0x81);
	emit_mem(&prog, alu, base, off);
	if (is_imm8(imm))
		EMIT1((u8)imm);
	else
		EMIT_imm32(imm);
	*pprog = prog;
}

/* imul dst, src */
void emit_imul_rr(u8 **pprog, int dst, int src)
{
	u8 *prog = *pprog;

	emit_rex(&prog, true, dst, src, false);
	EMIT3(0x0f, 0xaf, modrm(3, dst, src));
	*pprog = prog;
}

/* imul dst, src, simm32 */
void emit_imul_rri(u8 **pprog, int dst, int src, s32 imm)
{
	u8 *prog = *pprog;

	emit_rex(&prog, true, dst, src, false);
	if (is_imm8(imm)) {
		EMIT3(0x6b, modrm(3, dst, src), (u8)imm);
	} else {
		EMIT2(0x69, modrm(3, dst, src));
		EMIT_imm32(imm);
	}
	*pprog = prog;
}

/* imul dst, qword [base + off] */
void emit_imul_rm(u8 **pprog, int dst, int base, s32 off)
{
	u8 *prog = *pprog;

	emit_rex(&prog, true, dst, base, false);
	EMIT2(0x0f, 0xaf);
	emit_mem(&prog, dst, base, off);
	*pprog = prog;
}

/* shl/shr/sar dst, cl (the CPU masks cl to 6 bits) */
void emit_shift_cl(u8 **pprog, int sh, int dst)
{
	u8 *prog = *pprog;

	emit_rex(&prog, true, 0, dst, false);
	EMIT2(0xd3, modrm(3, sh, dst));
	*pprog = prog;
}

/* shl/shr/sar dst, imm8 */
static void emit_shift(u8 **pprog, bool w, int sh, int dst, u8 count)
{
	u8 *prog = *pprog;

	emit_rex(&prog, w, 0, dst, false);
	if (count == 1)
		EMIT2(0xd1, modrm(3, sh, dst));
	else
		EMIT3(0xc1, modrm(3, sh, dst), count);
	*pprog = prog;
}

void emit_shift_imm(u8 **pprog, int sh, int dst, u8 count)
{
	emit_shift(pprog, true, sh, dst, count);
}

/* The same on 32 bits (shr eax, 31): the result zero-extends to 64. */
void emit_shift_imm32(u8 **pprog, int sh, int dst, u8 count)
{
	emit_shift(pprog, false, sh, dst, count);
}

/* neg dst */
void emit_neg(u8 **pprog, int dst)
{
	u8 *prog = *pprog;

	emit_rex(&prog, true, 0, dst, false);
	EMIT2(0xf7, modrm(3, 3, dst));
	*pprog = prog;
}

/* not dst */
void emit_not(u8 **pprog, int dst)
{
	u8 *prog = *pprog;

	emit_rex(&prog, true, 0, dst, false);
	EMIT2(0xf7, modrm(3, 2, dst));
	*pprog = prog;
}

/* idiv/div src: rdx:rax / src -> rax quotient, rdx remainder */
void emit_div(u8 **pprog, bool is_signed, int src)
{
	u8 *prog = *pprog;

	emit_rex(&prog, true, 0, src, false);
	EMIT2(0xf7, modrm(3, is_signed ? 7 : 6, src));
	*pprog = prog;
}

/* cqo: sign-extend rax into rdx:rax */
void emit_cqo(u8 **pprog)
{
	u8 *prog = *pprog;

	EMIT2(0x48, 0x99);
	*pprog = prog;
}

/* test a, b */
static void emit_test(u8 **pprog, bool w, int a, int b)
{
	u8 *prog = *pprog;

	emit_rex(&prog, w, b, a, false);
	EMIT2(0x85, modrm(3, b, a));
	*pprog = prog;
}

void emit_test_rr(u8 **pprog, int a, int b)
{
	emit_test(pprog, true, a, b);
}

/* test a32, b32: the flags of the low halves */
void emit_test_rr32(u8 **pprog, int a, int b)
{
	emit_test(pprog, false, a, b);
}

/* test a, imm (sign-extended imm32): the flags of a & imm, a unchanged */
void emit_test_ri(u8 **pprog, int a, s32 imm)
{
	u8 *prog = *pprog;

	if (a == X86_RAX) {
		EMIT2(0x48, 0xa9);	/* test rax, imm32 */
	} else {
		emit_rex(&prog, true, 0, a, false);
		EMIT2(0xf7, modrm(3, 0, a));
	}
	EMIT_imm32(imm);
	*pprog = prog;
}

/* setcc dst8; movzx dst32, dst8: materialize a flag as 0/1 */
void emit_setcc_zx(u8 **pprog, u8 cc, int dst)
{
	u8 *prog = *pprog;

	emit_rex(&prog, false, 0, dst, needs_rex_byte(dst));
	EMIT3(0x0f, 0x90 | cc, modrm(3, 0, dst));
	emit_rex(&prog, false, dst, dst, needs_rex_byte(dst));
	EMIT3(0x0f, 0xb6, modrm(3, dst, dst));
	*pprog = prog;
}

/* cmovcc dst, src */
void emit_cmov(u8 **pprog, u8 cc, int dst, int src)
{
	u8 *prog = *pprog;

	emit_rex(&prog, true, dst, src, false);
	EMIT3(0x0f, 0x40 | cc, modrm(3, dst, src));
	*pprog = prog;
}

/* xchg a, b (register form: no implied lock) */
void emit_xchg(u8 **pprog, int a, int b)
{
	u8 *prog = *pprog;

	emit_rex(&prog, true, b, a, false);
	EMIT2(0x87, modrm(3, b, a));
	*pprog = prog;
}

/* movsx dst, src8/src16 or movsxd dst, src32 */
void emit_movsx_rr(u8 **pprog, int bits, int dst, int src)
{
	u8 *prog = *pprog;

	emit_rex(&prog, true, dst, src, false);
	if (bits == 8)
		EMIT3(0x0f, 0xbe, modrm(3, dst, src));
	else if (bits == 16)
		EMIT3(0x0f, 0xbf, modrm(3, dst, src));
	else
		EMIT2(0x63, modrm(3, dst, src));
	*pprog = prog;
}

/* movzx dst32, src8/src16 or mov dst32, src32 */
void emit_movzx_rr(u8 **pprog, int bits, int dst, int src)
{
	u8 *prog = *pprog;

	if (bits == 32) {
		emit_mov_rr32(&prog, dst, src);
	} else {
		emit_rex(&prog, false, dst, src,
			 bits == 8 && needs_rex_byte(src));
		EMIT3(0x0f, bits == 8 ? 0xb6 : 0xb7, modrm(3, dst, src));
	}
	*pprog = prog;
}

/* lea dst, [base + off] */
void emit_lea(u8 **pprog, int dst, int base, s32 off)
{
	u8 *prog = *pprog;

	emit_rex(&prog, true, dst, base, false);
	EMIT1(0x8d);
	emit_mem(&prog, dst, base, off);
	*pprog = prog;
}

void emit_push(u8 **pprog, int reg)
{
	u8 *prog = *pprog;

	emit_rex(&prog, false, 0, reg, false);
	EMIT1(0x50 + (reg & 7));
	*pprog = prog;
}

void emit_pop(u8 **pprog, int reg)
{
	u8 *prog = *pprog;

	emit_rex(&prog, false, 0, reg, false);
	EMIT1(0x58 + (reg & 7));
	*pprog = prog;
}

/* ret; int3: the int3 stops straight-line speculation past the ret */
void emit_ret(u8 **pprog)
{
	u8 *prog = *pprog;

	EMIT2(0xc3, 0xcc);
	*pprog = prog;
}

/* call reg */
void emit_call_reg(u8 **pprog, int reg)
{
	u8 *prog = *pprog;

	emit_rex(&prog, false, 0, reg, false);
	EMIT2(0xff, modrm(3, 2, reg));
	*pprog = prog;
}

/* jmp reg */
void emit_jmp_reg(u8 **pprog, int reg)
{
	u8 *prog = *pprog;

	emit_rex(&prog, false, 0, reg, false);
	EMIT2(0xff, modrm(3, 4, reg));
	*pprog = prog;
}

void emit_jcc8(u8 **pprog, u8 cc, s8 disp)
{
	u8 *prog = *pprog;

	EMIT2(0x70 | cc, (u8)disp);
	*pprog = prog;
}

void emit_jcc32(u8 **pprog, u8 cc, s32 disp)
{
	u8 *prog = *pprog;

	EMIT2(0x0f, 0x80 | cc);
	EMIT_imm32(disp);
	*pprog = prog;
}

void emit_jmp8(u8 **pprog, s8 disp)
{
	u8 *prog = *pprog;

	EMIT2(0xeb, (u8)disp);
	*pprog = prog;
}

void emit_jmp32(u8 **pprog, s32 disp)
{
	u8 *prog = *pprog;

	EMIT1(0xe9);
	EMIT_imm32(disp);
	*pprog = prog;
}

void emit_call32(u8 **pprog, s32 disp)
{
	u8 *prog = *pprog;

	EMIT1(0xe8);
	EMIT_imm32(disp);
	*pprog = prog;
}

/*
 * sarq $5, %gs:var - call-depth accounting before a call (the kernel's
 * INCREMENT_CALL_DEPTH): @var is the per-CPU counter's absolute,
 * %gs-relative address (disp32, no base, no index).
 */
void emit_call_depth(u8 **pprog, s32 var)
{
	u8 *prog = *pprog;

	EMIT4(0x65, 0x48, 0xc1, modrm(0, 7, 4));
	EMIT1(0x25);			/* SIB: no index, no base: disp32 */
	EMIT_imm32(var);
	EMIT1(5);
	*pprog = prog;
}
