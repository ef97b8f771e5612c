// SPDX-License-Identifier: GPL-2.0
/*
 * ir.c - decode a verified struct ax_prog into the JIT's IR.
 *
 * The IR is one struct jit_insn per bytecode insn, so insn indexes keep
 * their meaning through every pass: jump targets, err_pc, and the step
 * budget (which counts *bytecode* insns, deleted ones included).  Decoding
 * normalizes the opcodes into fewer shapes the passes can match:
 *
 *   const8/16/32/64   -> AX_CONST64 imm
 *   reg N             -> AX_REG imm = pt_regs byte offset (ax_reg_offset())
 *   equal/less_*      -> JIT_CMP cc=E/L/B src=STACK
 *   log_not           -> JIT_CMP cc=E src=IMM imm=0       ("a == 0")
 *   if_goto           -> JIT_CMP_JCC cc=NE src=IMM imm=0  ("if a != 0")
 *   trace16 N         -> AX_TRACE_QUICK imm=N (same semantics, wider size)
 *
 * so that, e.g., "less_signed; log_not; if_goto" is three compares the
 * cmp_branch pass folds into one cmp/jge.
 *
 * Helpers shared by the passes and the code generator (constant
 * evaluation, condition codes) live here too: the constant folder must
 * compute exactly what the emitted code and the interpreter compute.
 */
#include "jit_internal.h"

static void decode_one(const struct ax_insn *ai, struct jit_insn *ji)
{
	ji->op = ai->op;
	ji->imm = ai->imm;
	ji->depth = ai->depth;
	ji->off = ai->off;

	switch (ai->op) {
	case AX_CONST8:
	case AX_CONST16:
	case AX_CONST32:
	case AX_CONST64:
		ji->op = AX_CONST64;
		break;
	case AX_REG:
		/* the interpreter's own mapping (ax_verify.c) */
		ji->imm = (u32)ax_reg_offset(ai->imm);
		break;
	case AX_EQUAL:
	case AX_LESS_SIGNED:
	case AX_LESS_UNSIGNED:
		ji->op = JIT_CMP;
		ji->src = JSRC_STACK;
		ji->cc = ai->op == AX_EQUAL ? JCC_E :
			 ai->op == AX_LESS_SIGNED ? JCC_L : JCC_B;
		break;
	case AX_LOG_NOT:
		ji->op = JIT_CMP;
		ji->src = JSRC_IMM;
		ji->cc = JCC_E;
		ji->imm = 0;
		break;
	case AX_IF_GOTO:
		ji->op = JIT_CMP_JCC;
		ji->src = JSRC_IMM;
		ji->cc = JCC_NE;
		ji->imm = 0;
		ji->target = ai->imm;
		break;
	case AX_GOTO:
		ji->target = ai->imm;
		break;
	case AX_TRACE16:
		ji->op = AX_TRACE_QUICK;
		break;
	default:
		break;
	}
}

/**
 * jit_decode - build the IR of a verified program
 * @prog: accepted by ax_verify()
 * @ir:   filled in; free with jit_ir_free()
 *
 * Return: 0, -ENOMEM, or -EFAULT if @prog breaks a verifier promise (a
 * jump out of range), which would be a verifier bug.
 */
int jit_decode(const struct ax_prog *prog, struct jit_ir *ir)
{
	u32 i;

	memset(ir, 0, sizeof(*ir));
	if (!prog->ninsns)
		return -EFAULT;
	ir->insn = gtp_vzalloc(sizeof(*ir->insn) * prog->ninsns);
	if (!ir->insn)
		return -ENOMEM;
	ir->n = prog->ninsns;
	ir->prog = prog;
	ir->max_depth = prog->max_depth;
	ir->backjump = prog->backjump;

	for (i = 0; i < ir->n; i++)
		decode_one(&prog->insns[i], &ir->insn[i]);
	/*
	 * The original program's, not what the passes leave of it: the code
	 * generator checks env->regs against it (see emit_prologue()).
	 */
	ir->has_reg = prog->facts.regs != 0;

	for (i = 0; i < ir->n; i++) {
		struct jit_insn *in = &ir->insn[i];

		if (in->op != AX_GOTO && in->op != JIT_CMP_JCC)
			continue;
		if (in->target >= ir->n) {
			jit_ir_free(ir);
			return -EFAULT;
		}
		ir->insn[in->target].flags |= JF_TARGET;
	}
	return 0;
}

/* The insns only: pins are jit_bind_direct()'s, released by its caller. */
void jit_ir_free(struct jit_ir *ir)
{
	gtp_vfree(ir->insn);
	ir->insn = NULL;
	ir->n = 0;
}

static bool ends_block(const struct jit_insn *in)
{
	return in->op == AX_GOTO || in->op == AX_END;
}

/**
 * jit_prev - the live insn executed just before @i on every path to @i
 * @ir:	the IR
 * @i:	an insn index
 *
 * Return: its index, or -1 when @i (or a removed insn just before it)
 * starts a basic block: then a pattern may not reach back across it.
 */
int jit_prev(const struct jit_ir *ir, int i)
{
	if (ir->insn[i].flags & JF_TARGET)
		return -1;
	for (i--; i >= 0; i--) {
		const struct jit_insn *in = &ir->insn[i];

		if (in->op != JIT_NOP)
			return ends_block(in) ? -1 : i;
		if (in->flags & JF_TARGET)
			return -1;
	}
	return -1;
}

/**
 * jit_next - the live insn that always runs right after @i
 * @ir:	the IR
 * @i:	an insn index
 *
 * Return: its index, or -1 if the next live insn can also be reached by a
 * jump (or there is none).
 */
int jit_next(const struct jit_ir *ir, int i)
{
	if (ends_block(&ir->insn[i]))
		return -1;
	for (i++; i < (int)ir->n; i++) {
		const struct jit_insn *in = &ir->insn[i];

		if (in->flags & JF_TARGET)
			return -1;
		if (in->op != JIT_NOP)
			return i;
	}
	return -1;
}

/* ops taking two stack operands (or one plus src IMM/REGS) */
bool jit_is_binop(u8 op)
{
	switch (op) {
	case AX_ADD: case AX_SUB: case AX_MUL:
	case AX_DIV_SIGNED: case AX_DIV_UNSIGNED:
	case AX_REM_SIGNED: case AX_REM_UNSIGNED:
	case AX_LSH: case AX_RSH_SIGNED: case AX_RSH_UNSIGNED:
	case AX_BIT_AND: case AX_BIT_OR: case AX_BIT_XOR:
	case JIT_CMP: case JIT_CMP_JCC:
		return true;
	default:
		return false;
	}
}

bool jit_is_commutative(const struct jit_insn *in)
{
	switch (in->op) {
	case AX_ADD: case AX_MUL:
	case AX_BIT_AND: case AX_BIT_OR: case AX_BIT_XOR:
		return true;
	case JIT_CMP: case JIT_CMP_JCC:
		return in->cc == JCC_E || in->cc == JCC_NE;
	default:
		return false;
	}
}

/* insns that call out of the JIT code (need a frame and env kept alive) */
bool jit_has_calls(const struct jit_ir *ir)
{
	u32 i;

	for (i = 0; i < ir->n; i++) {
		switch (ir->insn[i].op) {
		case AX_REF8: case AX_REF16: case AX_REF32: case AX_REF64:
		case AX_TRACE: case AX_TRACE_QUICK: case AX_TRACENZ:
		case AX_GETV: case AX_SETV: case AX_TRACEV:
			return true;
		}
	}
	return false;
}

/* The condition that holds for (b, a) when @cc holds for (a, b). */
u8 jit_cc_swap(u8 cc)
{
	switch (cc) {
	case JCC_L: return JCC_G;
	case JCC_G: return JCC_L;
	case JCC_LE: return JCC_GE;
	case JCC_GE: return JCC_LE;
	case JCC_B: return JCC_A;
	case JCC_A: return JCC_B;
	case JCC_BE: return JCC_AE;
	case JCC_AE: return JCC_BE;
	default: return cc;	/* E, NE */
	}
}

static bool eval_cc(u8 cc, u64 a, u64 b)
{
	switch (cc) {
	case JCC_E: return a == b;
	case JCC_NE: return a != b;
	case JCC_L: return (s64)a < (s64)b;
	case JCC_GE: return (s64)a >= (s64)b;
	case JCC_LE: return (s64)a <= (s64)b;
	case JCC_G: return (s64)a > (s64)b;
	case JCC_B: return a < b;
	case JCC_AE: return a >= b;
	case JCC_BE: return a <= b;
	default: return a > b;	/* JCC_A */
	}
}

/* ext n: sign-extend from bit n-1 (n is 1..64, verified; 64: no-op) */
u64 jit_eval_ext(u64 v, unsigned int bits)
{
	u64 m;

	if (bits == 0 || bits >= 64)
		return v;
	m = 1ULL << (bits - 1);
	v &= (m << 1) - 1;
	return (v ^ m) - m;
}

/* zero_ext n: keep the low n bits (no-op when n >= 64) */
u64 jit_eval_zext(u64 v, unsigned int bits)
{
	if (bits >= 64)
		return v;
	return v & ((1ULL << bits) - 1);
}

/**
 * jit_eval_binop - what the interpreter computes for "a b op"
 * @op:		the binary opcode
 * @cc:		its condition, for comparisons
 * @a:		the first operand (pushed first)
 * @b:		the second operand
 * @res:	set to the result
 *
 * Shift counts are taken modulo 64 and INT64_MIN / -1 wraps to INT64_MIN
 * (remainder 0), as ax.h specifies and ax_interp() computes.
 *
 * Return: true with @res set; false when the result is an error (division
 * by zero): such operations are left for run time, where they report it;
 * false too when @op is not a binary operation.
 */
bool jit_eval_binop(u8 op, u8 cc, u64 a, u64 b, u64 *res)
{
	switch (op) {
	case AX_ADD: *res = a + b; break;
	case AX_SUB: *res = a - b; break;
	case AX_MUL: *res = a * b; break;
	case AX_BIT_AND: *res = a & b; break;
	case AX_BIT_OR: *res = a | b; break;
	case AX_BIT_XOR: *res = a ^ b; break;
	case AX_LSH: *res = a << (b & 63); break;
	case AX_RSH_UNSIGNED: *res = a >> (b & 63); break;
	case AX_RSH_SIGNED: *res = (u64)((s64)a >> (b & 63)); break;
	case AX_DIV_UNSIGNED:
	case AX_REM_UNSIGNED:
		if (!b)
			return false;
		*res = op == AX_DIV_UNSIGNED ? a / b : a % b;
		break;
	case AX_DIV_SIGNED:
	case AX_REM_SIGNED:
		if (!b)
			return false;
		if ((s64)b == -1)
			*res = op == AX_DIV_SIGNED ? 0 - a : 0;
		else
			*res = op == AX_DIV_SIGNED ? (u64)((s64)a / (s64)b)
						   : (u64)((s64)a % (s64)b);
		break;
	case JIT_CMP:
	case JIT_CMP_JCC:
		*res = eval_cc(cc, a, b);
		break;
	default:
		return false;
	}
	return true;
}
