/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jit_internal.h - the JIT's intermediate representation, its optimizer
 * passes and its x86-64 code generator.  Internal to jit/ (and the unit
 * tests, which drive each stage on hand-built programs).
 *
 * Pipeline (jit/jit.c):
 *
 *   struct ax_prog --jit_decode()--> struct jit_insn[] (1:1 with ax_insn)
 *        --jit_optimize()--> same array, rewritten in place: a removed insn
 *                            becomes JIT_NOP, so insn indexes (jump targets,
 *                            err_pc, step counting) never move
 *        --jit_bind_direct()--> const; ref -> JIT_LOAD where the host lets
 *                            the image read memory directly (and pins it)
 *        --jit_codegen()-->  x86-64 bytes (converging addrs[] passes)
 *
 * The stack machine is mapped onto fixed homes: stack slot i lives in
 * jit_slot_reg[i] for i < JIT_NR_SLOT_REGS, else in the frame at
 * [rsp + 8 * i].  Because the verifier guarantees one stack depth per insn,
 * every path reaching an insn finds each slot in the same home, so jumps
 * need no reshuffling and slot 0 (the result of a condition) is rax.
 */
#ifndef GTP_JIT_INTERNAL_H
#define GTP_JIT_INTERNAL_H

#include "ax.h"

/* IR opcodes beyond enum ax_opcode (which stops at 0x34). */
enum jit_op {
	JIT_NOP = 0x00,		/* removed by a pass */
	JIT_CMP = 0x80,		/* push (lhs cc rhs) as 0/1 */
	JIT_CMP_JCC = 0x81,	/* if (lhs cc rhs) goto target; pops operands */
	JIT_LOAD = 0x82,	/* push the 'ext'-bit value at host address imm
				 * (JF_SX: sign-extended): a 'const; ref' the
				 * host let us read directly (jit_bind_direct) */
};

/* Where the right-hand operand of a binary op (or compare) comes from. */
enum jit_src {
	JSRC_STACK = 0,	/* the top slot: lhs is slot depth-2 */
	JSRC_IMM,	/* imm (s32 for ALU ops): lhs is slot depth-1 */
	JSRC_REGS,	/* the u64 pt_regs field at byte offset imm */
};

/*
 * x86 condition codes (the low nibble of Jcc/SETcc/CMOVcc).  Inverting a
 * condition flips bit 0; jit_cc_swap() gives the condition for swapped
 * operands.
 */
enum jit_cc {
	JCC_B = 0x2, JCC_AE = 0x3, JCC_E = 0x4, JCC_NE = 0x5,
	JCC_BE = 0x6, JCC_A = 0x7, JCC_L = 0xc, JCC_GE = 0xd,
	JCC_LE = 0xe, JCC_G = 0xf,
};

/* jit_insn.flags */
#define JF_TARGET	0x01	/* some jump lands here: a basic block starts */
#define JF_SX		0x02	/* reg load: sign-extend from 'ext' bits;
				 * ref8..32: sign-extend the value read */
#define JF_ZX		0x04	/* JIT reg load: zero-extend from 'ext' bits */
#define JF_TEST		0x08	/* JIT_CMP/JIT_CMP_JCC, src IMM, cc E/NE:
				 * compare (lhs & imm) with 0 (opt_test_mask) */
#define JF_CMP32	0x10	/* JIT_CMP/JIT_CMP_JCC, src IMM: compare the
				 * low 32 bits of lhs (opt_cmp32) */

struct jit_insn {
	u8 op;		/* enum ax_opcode or enum jit_op */
	u8 src;		/* enum jit_src, binary ops and compares */
	u8 cc;		/* enum jit_cc, JIT_CMP and JIT_CMP_JCC */
	u8 ext;		/* reg load width when JF_SX/JF_ZX (8, 16, 32) */
	u16 depth;	/* stack depth before this insn, after rewriting */
	u16 flags;
	u32 off;	/* bytecode offset (err_pc) */
	u32 target;	/* jumps: insn index */
	u64 imm;
};

struct jit_ir {
	const struct ax_prog *prog;	/* NULL for IR built by tests */
	struct jit_insn *insn;
	u32 n;
	u32 max_depth;
	bool backjump;
	bool has_reg;	/* the bytecode reads registers (before any pass) */
	void **pins;	/* what gtp_host->jit_direct() pinned, npins of them */
	u32 npins;
};

int jit_decode(const struct ax_prog *prog, struct jit_ir *ir);
void jit_ir_free(struct jit_ir *ir);
int jit_prev(const struct jit_ir *ir, int i);
int jit_next(const struct jit_ir *ir, int i);
bool jit_is_commutative(const struct jit_insn *in);
bool jit_is_binop(u8 op);
bool jit_has_calls(const struct jit_ir *ir);
u8 jit_cc_swap(u8 cc);
bool jit_eval_binop(u8 op, u8 cc, u64 a, u64 b, u64 *res);
u64 jit_eval_ext(u64 v, unsigned int bits);
u64 jit_eval_zext(u64 v, unsigned int bits);

/* Optimizer passes (jit/opt.c); each returns the number of rewrites. */
int opt_load_ext(struct jit_ir *ir);
int opt_ext(struct jit_ir *ir);
int opt_const_fold(struct jit_ir *ir);
int opt_swap(struct jit_ir *ir);
int opt_dup_pop(struct jit_ir *ir);
int opt_commute(struct jit_ir *ir);
int opt_operands(struct jit_ir *ir);
int opt_cmp_branch(struct jit_ir *ir);
int opt_jump_thread(struct jit_ir *ir);
int opt_test_mask(struct jit_ir *ir);
int opt_low32(struct jit_ir *ir);
int opt_cmp32(struct jit_ir *ir);
void jit_optimize(struct jit_ir *ir);

/* Direct loads, after the passes (jit/bind.c). */
int jit_bind_direct(struct jit_ir *ir);
void jit_unpin_all(void **pins, u32 npins);

/* Code generation (jit/codegen.c). */
#define JIT_NR_SLOT_REGS	5
extern const u8 jit_slot_reg[JIT_NR_SLOT_REGS];
#define JIT_PROBE_SLOT_REGS	3	/* a probe's: rax r10 r11 */

struct jit_image {
	u8 *image;	/* where the code will run (call displacements) */
	u8 *code;	/* the bytes */
	u32 size;
	u32 alloc;
};

/* A probe's exit when its condition holds (ax_jit_probe_compile()). */
struct jit_probe_target {
	void *hit;	/* jumped to */
	void *ctx;	/* if not NULL, in r11 at that jump */
	bool count_call;	/* count the call that entered (call depth) */
	bool pt_regs;	/* registers are read from the pt_regs at rsi */
	bool save_scratch;	/* flags, rax, r10, r11 to the hit on the stack */
};

int jit_codegen(const struct jit_ir *ir, const struct jit_probe_target *probe,
		struct jit_image *out, char *log, size_t logsz);

#endif /* GTP_JIT_INTERNAL_H */
