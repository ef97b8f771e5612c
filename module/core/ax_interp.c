// SPDX-License-Identifier: GPL-2.0
/*
 * ax_interp.c - the reference evaluator of verified agent expressions.
 *
 * This file *defines* what a program computes: the JIT is fuzzed against
 * it (make fuzz-jit), so every edge case is decided here, written down in
 * ax.h ("Evaluation semantics"), and nowhere left to C's undefined
 * behaviour (shift counts, INT64_MIN / -1, signed overflow: all arithmetic
 * is done on u64, which wraps).
 *
 * It runs in probe context, so it trusts ax_verify() completely and checks
 * nothing the verifier proved:
 *
 *   - the stack is a local array of AX_MAX_STACK u64 (512 bytes, like the
 *     BPF interpreter's stack); no push or pop is bounds-checked because
 *     the verifier fixed the depth before every insn;
 *   - operands are decoded (jump targets are insn indexes, constants are
 *     zero-extended, reg numbers are 0..17, ext widths 1..64);
 *   - control never falls off the end of insns[].
 *
 * What remains dynamic is what depends on the hit: memory reads, hooks,
 * division by zero, and the hit's step budget (ninsns at entry, then the
 * span of every taken backward jump).
 * Each of those stops the run through fail(): err, err_pc, result 0.
 *
 * Stack layout: the top of stack lives in the local 'top'; the items
 * below it are stack[1..sp-1] (bottom first) and sp is the depth.
 * stack[0] is a scratch slot that absorbs the push from depth 0, so a push
 * is always "stack[sp++] = top; top = x" and a pop "top = stack[--sp]".
 */
#include "ax.h"

#define AX_S64_MIN	(-0x7fffffffffffffffLL - 1)
#define AX_TRACE_MAX	0xffffffffULL	/* the hooks take a u32 size */

static __always_inline u64 fail(struct ax_env *env,
				const struct ax_insn *insn, u32 err)
{
	env->err = err;
	env->err_pc = insn->off;
	return 0;
}

/* Sign-extend the low @bits (1..64) of @val. */
static __always_inline u64 do_ext(u64 val, u64 bits)
{
	u64 m;

	if (bits >= 64)
		return val;
	m = 1ULL << (bits - 1);
	val &= (1ULL << bits) - 1;
	return (val ^ m) - m;
}

static __always_inline u64 do_zero_ext(u64 val, u64 bits)
{
	if (bits >= 64)
		return val;
	return val & ((1ULL << bits) - 1);
}

/* ref8..ref64: target byte order, zero-extended.  Returns 0 or -errno. */
static __always_inline int do_ref(struct ax_env *env, u8 op, u64 *val)
{
	u64 addr = *val;
	u8 v8;
	u16 v16;
	u32 v32;
	u64 v64;
	int ret;

	switch (op) {
	case AX_REF8:
		ret = ax_hook_read(env, addr, &v8, sizeof(v8));
		*val = v8;
		break;
	case AX_REF16:
		ret = ax_hook_read(env, addr, &v16, sizeof(v16));
		*val = v16;
		break;
	case AX_REF32:
		ret = ax_hook_read(env, addr, &v32, sizeof(v32));
		*val = v32;
		break;
	default:
		ret = ax_hook_read(env, addr, &v64, sizeof(v64));
		*val = v64;
		break;
	}
	return ret;
}

/*
 * Threaded dispatch, as the BPF interpreter does it (kernel/bpf/core.c): each
 * handler ends with its own indirect jump through 'jumptable' (a magic-name
 * local), so the CPU predicts each opcode's successor separately instead of
 * funnelling every insn through one switch branch.  That is worth about 2x
 * on gdb's bytecode.
 */
#define DISPATCH()	goto *jumptable[insn->op]
#define CONT		do { insn++; DISPATCH(); } while (0)
#define JUMP(idx)	do { insn = insns + (idx); DISPATCH(); } while (0)

/**
 * ax_interp - evaluate a verified program
 * @prog:	from ax_verify()
 * @env:	registers, frame and hook context of this hit; env->steps
 *		holds what is left of the hit's budget (ax_run() sets a
 *		fresh one)
 *
 * Return: the top of stack at 'end', 0 if the stack is empty there, and 0
 * with env->err / env->err_pc set if the evaluation stopped on an error.
 */
u64 ax_interp(const struct ax_prog *prog, struct ax_env *env)
{
	const struct ax_insn *insns = prog->insns;
	const struct ax_insn *insn = insns;
	u64 stack[AX_MAX_STACK];
	u64 top = 0, a, b;
	u32 sp = 0, span;
	s64 sval;
	int off;
	static const void * const jumptable[256] __annotate_jump_table = {
		/* what ax_verify() refuses; listed so that no entry is NULL */
		[0] = &&op_bad,
		[AX_FLOAT] = &&op_bad,
		[AX_REF_FLOAT ... AX_D_TO_L] = &&op_bad,
		[AX_INVALID2] = &&op_bad,
		[AX_PRINTF ... 255] = &&op_bad,
		/* the opcodes */
		[AX_ADD] = &&op_add,
		[AX_SUB] = &&op_sub,
		[AX_MUL] = &&op_mul,
		[AX_DIV_SIGNED] = &&op_div_signed,
		[AX_DIV_UNSIGNED] = &&op_div_unsigned,
		[AX_REM_SIGNED] = &&op_rem_signed,
		[AX_REM_UNSIGNED] = &&op_rem_unsigned,
		[AX_LSH] = &&op_lsh,
		[AX_RSH_SIGNED] = &&op_rsh_signed,
		[AX_RSH_UNSIGNED] = &&op_rsh_unsigned,
		[AX_BIT_AND] = &&op_bit_and,
		[AX_BIT_OR] = &&op_bit_or,
		[AX_BIT_XOR] = &&op_bit_xor,
		[AX_EQUAL] = &&op_equal,
		[AX_LESS_SIGNED] = &&op_less_signed,
		[AX_LESS_UNSIGNED] = &&op_less_unsigned,
		[AX_LOG_NOT] = &&op_log_not,
		[AX_BIT_NOT] = &&op_bit_not,
		[AX_EXT] = &&op_ext,
		[AX_ZERO_EXT] = &&op_zero_ext,
		[AX_REF8] = &&op_ref8,
		[AX_REF16] = &&op_ref16,
		[AX_REF32] = &&op_ref32,
		[AX_REF64] = &&op_ref64,
		[AX_TRACE] = &&op_trace,
		[AX_TRACENZ] = &&op_tracenz,
		[AX_TRACE_QUICK] = &&op_trace_quick,
		[AX_TRACE16] = &&op_trace16,
		[AX_IF_GOTO] = &&op_if_goto,
		[AX_GOTO] = &&op_goto,
		[AX_END] = &&op_end,
		[AX_CONST8] = &&op_const8,
		[AX_CONST16] = &&op_const16,
		[AX_CONST32] = &&op_const32,
		[AX_CONST64] = &&op_const64,
		[AX_REG] = &&op_reg,
		[AX_GETV] = &&op_getv,
		[AX_SETV] = &&op_setv,
		[AX_TRACEV] = &&op_tracev,
		[AX_DUP] = &&op_dup,
		[AX_POP] = &&op_pop,
		[AX_SWAP] = &&op_swap,
		[AX_PICK] = &&op_pick,
		[AX_ROT] = &&op_rot,
	};

	/* the most this program runs without a backward jump, see ax.h */
	if (unlikely(env->steps < prog->ninsns))
		return fail(env, insn, AX_ERR_BUDGET);
	env->steps -= prog->ninsns;
	stack[0] = 0;
	DISPATCH();

	/* binary arithmetic: a b => a OP b, b is top */
	op_add:
		top = stack[--sp] + top;
		CONT;
	op_sub:
		top = stack[--sp] - top;
		CONT;
	op_mul:
		top = stack[--sp] * top;
		CONT;
	op_div_signed:
		if (unlikely(!top))
			return fail(env, insn, AX_ERR_DIV0);
		a = stack[--sp];
		if (unlikely((s64)a == AX_S64_MIN && (s64)top == -1))
			top = a;	/* wraps; x86 idiv would trap */
		else
			top = (u64)((s64)a / (s64)top);
		CONT;
	op_div_unsigned:
		if (unlikely(!top))
			return fail(env, insn, AX_ERR_DIV0);
		top = stack[--sp] / top;
		CONT;
	op_rem_signed:
		if (unlikely(!top))
			return fail(env, insn, AX_ERR_DIV0);
		a = stack[--sp];
		if (unlikely((s64)top == -1))
			top = 0;	/* also covers INT64_MIN % -1 */
		else
			top = (u64)((s64)a % (s64)top);
		CONT;
	op_rem_unsigned:
		if (unlikely(!top))
			return fail(env, insn, AX_ERR_DIV0);
		top = stack[--sp] % top;
		CONT;
	op_lsh:
		top = stack[--sp] << (top & 63);
		CONT;
	op_rsh_signed:
		top = (u64)((s64)stack[--sp] >> (top & 63));
		CONT;
	op_rsh_unsigned:
		top = stack[--sp] >> (top & 63);
		CONT;
	op_bit_and:
		top = stack[--sp] & top;
		CONT;
	op_bit_or:
		top = stack[--sp] | top;
		CONT;
	op_bit_xor:
		top = stack[--sp] ^ top;
		CONT;
	op_equal:
		top = stack[--sp] == top;
		CONT;
	op_less_signed:
		top = (s64)stack[--sp] < (s64)top;
		CONT;
	op_less_unsigned:
		top = stack[--sp] < top;
		CONT;

	/* unary */
	op_log_not:
		top = !top;
		CONT;
	op_bit_not:
		top = ~top;
		CONT;
	op_ext:
		top = do_ext(top, insn->imm);
		CONT;
	op_zero_ext:
		top = do_zero_ext(top, insn->imm);
		CONT;
	op_ref8:
	op_ref16:
	op_ref32:
	op_ref64:
		if (unlikely(do_ref(env, insn->op, &top)))
			return fail(env, insn, AX_ERR_MEM);
		CONT;

	/* trace: addr size => ; trace_quick/trace16: addr => addr */
	op_trace:
	op_tracenz:
		if (unlikely(top > AX_TRACE_MAX))
			return fail(env, insn, AX_ERR_TRACE);
		a = stack[--sp];
		if (unlikely(ax_hook_trace(env, a, top,
					   insn->op == AX_TRACENZ)))
			return fail(env, insn, AX_ERR_TRACE);
		top = stack[--sp];
		CONT;
	op_trace_quick:
	op_trace16:
		if (unlikely(ax_hook_trace(env, top, insn->imm, false)))
			return fail(env, insn, AX_ERR_TRACE);
		CONT;

	/* control flow */
	op_if_goto:
		b = top;
		top = stack[--sp];
		if (!b)
			CONT;
		/* taken: same as goto */
	op_goto:
		if (unlikely(insn->imm <= (u64)(insn - insns))) {
			/* backward: charge the span, see ax.h */
			span = insn - insns - insn->imm + 1;
			if (unlikely(env->steps < span))
				return fail(env, insn, AX_ERR_BUDGET);
			env->steps -= span;
		}
		JUMP(insn->imm);
	op_end:
		return sp ? top : 0;

	/* pushes */
	op_const8:
	op_const16:
	op_const32:
	op_const64:
		stack[sp++] = top;
		top = insn->imm;
		CONT;
	op_reg:
		if (unlikely(!env->regs))
			return fail(env, insn, AX_ERR_REG);
		off = ax_reg_offset(insn->imm);
		stack[sp++] = top;
		top = *(const unsigned long *)((const u8 *)env->regs +
					       off);
		CONT;
	op_getv:
		sval = 0;
		if (unlikely(ax_hook_getv(env, insn->imm, &sval)))
			return fail(env, insn, AX_ERR_TSV);
		stack[sp++] = top;
		top = sval;
		CONT;
	op_setv:
		if (unlikely(ax_hook_setv(env, insn->imm, top)))
			return fail(env, insn, AX_ERR_TSV);
		CONT;
	op_tracev:
		if (unlikely(ax_hook_tracev(env, insn->imm)))
			return fail(env, insn, AX_ERR_TRACE);
		CONT;

	/* stack shuffles */
	op_dup:
		stack[sp++] = top;
		CONT;
	op_pop:
		top = stack[--sp];
		CONT;
	op_swap:
		a = stack[sp - 1];
		stack[sp - 1] = top;
		top = a;
		CONT;
	op_pick:
		/* item n below the top; n == 0 is dup */
		a = insn->imm ? stack[sp - insn->imm] : top;
		stack[sp++] = top;
		top = a;
		CONT;
	op_rot:
		/* a b c => c a b */
		a = stack[sp - 2];
		b = stack[sp - 1];
		stack[sp - 2] = top;
		stack[sp - 1] = a;
		top = b;
		CONT;

	op_bad:
		/* ax_verify() admits nothing else */
		WARN_ON_ONCE(1);
		return fail(env, insn, AX_ERR_INTERNAL);
}
