/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86_emit.h - x86-64 instruction encoders for the agent-expression JIT.
 *
 * In the manner of arch/x86/net/bpf_jit_comp.c: every encoder takes the
 * emit cursor by reference (u8 **pprog), works on a local named 'prog'
 * through the EMIT*() macros, and stores the cursor back.  Nothing here
 * knows about agent expressions; jit/codegen.c composes these.
 *
 * Registers are hardware numbers (X86_RAX..X86_R15).  All arithmetic is
 * 64-bit unless the name says otherwise.
 */
#ifndef GTP_X86_EMIT_H
#define GTP_X86_EMIT_H

#include "compat.h"

enum x86_reg {
	X86_RAX = 0, X86_RCX, X86_RDX, X86_RBX, X86_RSP, X86_RBP, X86_RSI,
	X86_RDI, X86_R8, X86_R9, X86_R10, X86_R11, X86_R12, X86_R13,
	X86_R14, X86_R15,
};

/* ModRM.reg opcode extensions of the 0x81/0x83 immediate ALU group. */
enum x86_alu {
	X86_ADD = 0, X86_OR = 1, X86_AND = 4, X86_SUB = 5, X86_XOR = 6,
	X86_CMP = 7,
};

/* ModRM.reg opcode extensions of the 0xD3/0xC1 shift group. */
enum x86_shift {
	X86_SHL = 4, X86_SHR = 5, X86_SAR = 7,
};

u8 *emit_code(u8 *ptr, u32 bytes, unsigned int len);

#define EMIT(bytes, len) \
	do { prog = emit_code(prog, bytes, len); } while (0)
#define EMIT1(b1)		EMIT(b1, 1)
#define EMIT2(b1, b2)		EMIT((b1) + ((b2) << 8), 2)
#define EMIT3(b1, b2, b3)	EMIT((b1) + ((b2) << 8) + ((b3) << 16), 3)
#define EMIT4(b1, b2, b3, b4) \
	EMIT((b1) + ((b2) << 8) + ((b3) << 16) + ((u32)(b4) << 24), 4)
#define EMIT_imm32(v)		EMIT((u32)(v), 4)

static inline bool is_imm8(s64 v)
{
	return v >= -128 && v <= 127;
}

static inline bool is_simm32(s64 v)
{
	return v == (s64)(s32)v;
}

static inline bool is_uimm32(u64 v)
{
	return v == (u32)v;
}

void emit_mov_rr(u8 **pprog, int dst, int src);
void emit_mov_rr32(u8 **pprog, int dst, int src);
void emit_mov_imm(u8 **pprog, int dst, u64 imm);
void emit_load(u8 **pprog, int size, bool sx, int dst, int base, s32 off);
void emit_load_abs(u8 **pprog, int size, bool sx, int dst, s32 addr);
void emit_store(u8 **pprog, int size, int base, s32 off, int src);
void emit_store_imm(u8 **pprog, int size, int base, s32 off, s32 imm);
void emit_alu_rr(u8 **pprog, int alu, int dst, int src);
void emit_alu_ri(u8 **pprog, int alu, int dst, s32 imm);
void emit_alu_ri32(u8 **pprog, int alu, int dst, s32 imm);
void emit_alu_rm(u8 **pprog, int alu, int dst, int base, s32 off);
void emit_alu_mi32(u8 **pprog, int alu, int base, s32 off, s32 imm);
void emit_imul_rr(u8 **pprog, int dst, int src);
void emit_imul_rri(u8 **pprog, int dst, int src, s32 imm);
void emit_imul_rm(u8 **pprog, int dst, int base, s32 off);
void emit_shift_cl(u8 **pprog, int sh, int dst);
void emit_shift_imm(u8 **pprog, int sh, int dst, u8 count);
void emit_shift_imm32(u8 **pprog, int sh, int dst, u8 count);
void emit_neg(u8 **pprog, int dst);
void emit_not(u8 **pprog, int dst);
void emit_div(u8 **pprog, bool is_signed, int src);
void emit_cqo(u8 **pprog);
void emit_test_rr(u8 **pprog, int a, int b);
void emit_test_rr32(u8 **pprog, int a, int b);
void emit_test_ri(u8 **pprog, int a, s32 imm);
void emit_setcc_zx(u8 **pprog, u8 cc, int dst);
void emit_cmov(u8 **pprog, u8 cc, int dst, int src);
void emit_xchg(u8 **pprog, int a, int b);
void emit_movsx_rr(u8 **pprog, int bits, int dst, int src);
void emit_movzx_rr(u8 **pprog, int bits, int dst, int src);
void emit_lea(u8 **pprog, int dst, int base, s32 off);
void emit_push(u8 **pprog, int reg);
void emit_pop(u8 **pprog, int reg);
void emit_ret(u8 **pprog);
void emit_call_reg(u8 **pprog, int reg);
void emit_jmp_reg(u8 **pprog, int reg);

/* Branches: displacements are relative to the end of the instruction. */
void emit_jcc8(u8 **pprog, u8 cc, s8 disp);
void emit_jcc32(u8 **pprog, u8 cc, s32 disp);
void emit_jmp8(u8 **pprog, s8 disp);
void emit_jmp32(u8 **pprog, s32 disp);
void emit_call32(u8 **pprog, s32 disp);
void emit_call_depth(u8 **pprog, s32 var);
#define X86_CALL_DEPTH_LEN	10

#define X86_JCC8_LEN	2
#define X86_JCC32_LEN	6
#define X86_JMP8_LEN	2
#define X86_JMP32_LEN	5
#define X86_CALL32_LEN	5

#endif /* GTP_X86_EMIT_H */
