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
 *     zero-extended, reg numbers are 0..16, ext widths 1..64);
 *   - control never falls off the end of insns[].
 *
 * What remains dynamic is what depends on the hit: memory reads, hooks,
 * division by zero, and the step budget of programs with backward jumps.
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

/**
 * ax_interp - evaluate a verified program
 * @prog:	from ax_verify()
 * @env:	registers, frame and hook context of this hit; env->steps must
 *		hold the budget when prog->backjump (ax_run() does that)
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

	stack[0] = 0;
	for (;;) {
		switch (insn->op) {
		/* binary arithmetic: a b => a OP b, b is top */
		case AX_ADD:
			top = stack[--sp] + top;
			break;
		case AX_SUB:
			top = stack[--sp] - top;
			break;
		case AX_MUL:
			top = stack[--sp] * top;
			break;
		case AX_DIV_SIGNED:
			if (unlikely(!top))
				return fail(env, insn, AX_ERR_DIV0);
			a = stack[--sp];
			if (unlikely((s64)a == AX_S64_MIN && (s64)top == -1))
				top = a;	/* wraps; x86 idiv would trap */
			else
				top = (u64)((s64)a / (s64)top);
			break;
		case AX_DIV_UNSIGNED:
			if (unlikely(!top))
				return fail(env, insn, AX_ERR_DIV0);
			top = stack[--sp] / top;
			break;
		case AX_REM_SIGNED:
			if (unlikely(!top))
				return fail(env, insn, AX_ERR_DIV0);
			a = stack[--sp];
			if (unlikely((s64)top == -1))
				top = 0;	/* also covers INT64_MIN % -1 */
			else
				top = (u64)((s64)a % (s64)top);
			break;
		case AX_REM_UNSIGNED:
			if (unlikely(!top))
				return fail(env, insn, AX_ERR_DIV0);
			top = stack[--sp] % top;
			break;
		case AX_LSH:
			top = stack[--sp] << (top & 63);
			break;
		case AX_RSH_SIGNED:
			top = (u64)((s64)stack[--sp] >> (top & 63));
			break;
		case AX_RSH_UNSIGNED:
			top = stack[--sp] >> (top & 63);
			break;
		case AX_BIT_AND:
			top = stack[--sp] & top;
			break;
		case AX_BIT_OR:
			top = stack[--sp] | top;
			break;
		case AX_BIT_XOR:
			top = stack[--sp] ^ top;
			break;
		case AX_EQUAL:
			top = stack[--sp] == top;
			break;
		case AX_LESS_SIGNED:
			top = (s64)stack[--sp] < (s64)top;
			break;
		case AX_LESS_UNSIGNED:
			top = stack[--sp] < top;
			break;

		/* unary */
		case AX_LOG_NOT:
			top = !top;
			break;
		case AX_BIT_NOT:
			top = ~top;
			break;
		case AX_EXT:
			top = do_ext(top, insn->imm);
			break;
		case AX_ZERO_EXT:
			top = do_zero_ext(top, insn->imm);
			break;
		case AX_REF8:
		case AX_REF16:
		case AX_REF32:
		case AX_REF64:
			if (unlikely(do_ref(env, insn->op, &top)))
				return fail(env, insn, AX_ERR_MEM);
			break;

		/* trace: addr size => ; trace_quick/trace16: addr => addr */
		case AX_TRACE:
		case AX_TRACENZ:
			if (unlikely(top > AX_TRACE_MAX))
				return fail(env, insn, AX_ERR_TRACE);
			a = stack[--sp];
			if (unlikely(ax_hook_trace(env, a, top,
						   insn->op == AX_TRACENZ)))
				return fail(env, insn, AX_ERR_TRACE);
			top = stack[--sp];
			break;
		case AX_TRACE_QUICK:
		case AX_TRACE16:
			if (unlikely(ax_hook_trace(env, top, insn->imm, false)))
				return fail(env, insn, AX_ERR_TRACE);
			break;

		/* control flow */
		case AX_IF_GOTO:
			b = top;
			top = stack[--sp];
			if (!b)
				break;
			fallthrough;
		case AX_GOTO:
			if (unlikely(insn->imm <= (u64)(insn - insns))) {
				/* backward: charge the span, see ax.h */
				span = insn - insns - insn->imm + 1;
				if (unlikely(env->steps < span))
					return fail(env, insn, AX_ERR_BUDGET);
				env->steps -= span;
			}
			insn = insns + insn->imm;
			continue;
		case AX_END:
			return sp ? top : 0;

		/* pushes */
		case AX_CONST8:
		case AX_CONST16:
		case AX_CONST32:
		case AX_CONST64:
			stack[sp++] = top;
			top = insn->imm;
			break;
		case AX_REG:
			if (unlikely(!env->regs))
				return fail(env, insn, AX_ERR_REG);
			off = ax_reg_offset(insn->imm);
			stack[sp++] = top;
			top = *(const unsigned long *)((const u8 *)env->regs +
						       off);
			break;
		case AX_GETV:
			sval = 0;
			if (unlikely(ax_hook_getv(env, insn->imm, &sval)))
				return fail(env, insn, AX_ERR_TSV);
			stack[sp++] = top;
			top = sval;
			break;
		case AX_SETV:
			if (unlikely(ax_hook_setv(env, insn->imm, top)))
				return fail(env, insn, AX_ERR_TSV);
			break;
		case AX_TRACEV:
			if (unlikely(ax_hook_tracev(env, insn->imm)))
				return fail(env, insn, AX_ERR_TRACE);
			break;

		/* stack shuffles */
		case AX_DUP:
			stack[sp++] = top;
			break;
		case AX_POP:
			top = stack[--sp];
			break;
		case AX_SWAP:
			a = stack[sp - 1];
			stack[sp - 1] = top;
			top = a;
			break;
		case AX_PICK:
			/* item n below the top; n == 0 is dup */
			a = insn->imm ? stack[sp - insn->imm] : top;
			stack[sp++] = top;
			top = a;
			break;
		case AX_ROT:
			/* a b c => c a b */
			a = stack[sp - 2];
			b = stack[sp - 1];
			stack[sp - 2] = top;
			stack[sp - 1] = a;
			top = b;
			break;

		default:
			/* ax_verify() admits nothing else */
			WARN_ON_ONCE(1);
			return fail(env, insn, AX_ERR_INTERNAL);
		}
		insn++;
	}
}
