// SPDX-License-Identifier: GPL-2.0
/*
 * opt.c - optimizer passes over the JIT's IR (see jit_internal.h).
 *
 * Every pass is a local rewrite inside one basic block (jit_prev() and
 * jit_next() never cross a jump target), replaces removed insns by JIT_NOP
 * and keeps each surviving insn's 'depth' equal to the stack depth before
 * it, so the code generator's slot homes stay right.  A pass never moves a
 * side effect or an error past another one, and never across a chunk of
 * the step budget: it only deletes, fuses into the *later* insn, or swaps
 * two adjacent pure pushes.
 *
 *   opt_load_ext    reg N; ext 8/16/32       -> one movsx/movzx load
 *                   ref32; ext 32 (8, 16)    -> the read value loaded movsx
 *   opt_ext         ext/zero_ext of a value already that narrow -> gone
 *                   (constants, compares, loads, previous ext/zero_ext)
 *   opt_const_fold  const a; const b; op     -> const (a op b), also unary
 *                   ops and if_goto on a constant (-> goto or nothing)
 *   opt_swap        swap; commutative op     -> op
 *                   swap; compare            -> reversed compare
 *   opt_dup_pop     dup (or any pure push); pop -> nothing
 *   opt_commute     const c; reg N; op       -> reg N; const c; op'
 *   opt_operands    const c; op              -> op with an immediate
 *                   reg N; op                -> op with a pt_regs operand
 *   opt_cmp_branch  compare; log_not         -> inverted compare
 *                   compare; if_goto         -> cmp + jcc
 *   opt_jump_thread jcc L1; goto L2; L1:     -> jncc L2 (L2 forward)
 *
 * jit_optimize() runs them to a fixed point, then these once:
 *
 *   opt_test_mask   and imm; compare ==/!= 0 -> test lhs, imm
 *   opt_low32       ext 32 of an operand of add/sub/mul/and/or/xor/not/
 *                   lsh imm whose own result is ext 32 -> gone (the low
 *                   32 bits of those depend on their operands' only)
 *   opt_cmp32       ext 32; compare imm32    -> compare the low 32 bits
 *                   (JF_CMP32: sign extension from 32 bits keeps the
 *                   signed and the unsigned order, and equality)
 *
 * Every pass is a pure rewrite of the IR: none asks the host anything or
 * takes a reference.  Binding constant addresses to direct loads, which
 * pins memory, is the next step (jit/bind.c).
 */
#include "jit_internal.h"
#include "x86_emit.h"	/* is_simm32(): what an x86 immediate holds */

static void kill(struct jit_insn *in)
{
	in->op = JIT_NOP;
}

static bool is_const(const struct jit_ir *ir, int i)
{
	return i >= 0 && ir->insn[i].op == AX_CONST64;
}

static bool is_plain_reg(const struct jit_ir *ir, int i)
{
	return i >= 0 && ir->insn[i].op == AX_REG &&
	       !(ir->insn[i].flags & (JF_SX | JF_ZX)) &&
	       ir->insn[i].imm != (u32)-1;
}

/* a reg load already sign-extended from at least @bits bits */
static bool is_sx_reg(const struct jit_ir *ir, int i, u64 bits)
{
	return i >= 0 && ir->insn[i].op == AX_REG &&
	       (ir->insn[i].flags & JF_SX) && ir->insn[i].ext >= bits &&
	       ir->insn[i].imm != (u32)-1;
}

static bool is_ref_of(const struct jit_ir *ir, int i, u64 bits)
{
	u8 op = i >= 0 ? ir->insn[i].op : 0;

	return op >= AX_REF8 && op <= AX_REF32 &&
	       !(ir->insn[i].flags & JF_SX) && (8ULL << (op - AX_REF8)) == bits;
}

/*
 * reg N; ext 8/16/32 (or zero_ext): load only the low bytes, extended.
 * ref8/16/32; ext of the same width: the value read is loaded
 * sign-extended (gdb follows every 'int' read with 'ext 32').
 */
int opt_load_ext(struct jit_ir *ir)
{
	int i, p, n = 0;

	for (i = 0; i < (int)ir->n; i++) {
		struct jit_insn *in = &ir->insn[i];

		if (in->op != AX_EXT && in->op != AX_ZERO_EXT)
			continue;
		if (in->imm != 8 && in->imm != 16 && in->imm != 32)
			continue;
		p = jit_prev(ir, i);
		if (in->op == AX_EXT && is_ref_of(ir, p, in->imm)) {
			ir->insn[p].flags |= JF_SX;
			kill(in);
			n++;
			continue;
		}
		if (is_sx_reg(ir, p, in->imm)) {
			/*
			 * reg N; ext 32 (loaded movsx); ext 16 or zero_ext 16:
			 * the low 16 bits are the register's, so one narrower
			 * load (gdb's '(short)x' of an int, '(unsigned)x')
			 */
			ir->insn[p].flags &= ~JF_SX;
		} else if (!is_plain_reg(ir, p)) {
			continue;
		}
		ir->insn[p].flags |= in->op == AX_EXT ? JF_SX : JF_ZX;
		ir->insn[p].ext = in->imm;
		kill(in);
		n++;
	}
	return n;
}

/*
 * What is known about a stack slot's value: it is the sign extension of
 * its low 'sx' bits, and it is below 2^zx.  64 means nothing is known.
 */
struct width {
	u8 sx, zx;
};

static const struct width unknown = { 64, 64 };

static struct width const_width(u64 v)
{
	struct width w = { 64, 64 };
	unsigned int b;

	for (b = 1; b < 64; b++) {
		if (jit_eval_ext(v, b) == v) {
			w.sx = b;
			break;
		}
	}
	for (b = 0; b < 64; b++) {
		if (jit_eval_zext(v, b) == v) {
			w.zx = b;
			break;
		}
	}
	return w;
}

static struct width zx_width(unsigned int bits)
{
	struct width w = { bits < 64 ? bits + 1 : 64, bits };

	return w;
}

static u8 max_u8(u8 a, u8 b)
{
	return a > b ? a : b;
}

static u8 min_u8(u8 a, u8 b)
{
	return a < b ? a : b;
}

/*
 * The width of (a op b) for the ops that keep one: gdb re-extends every
 * 'int' result with 'ext 32', which after these is a no-op.
 *  and: sign extensions from <= n bits stay one (every bit above n-1
 *       copies bit n-1 in both); below 2^min(zx) if either is;
 *  or, xor: sign extension from max(sx) bits, below 2^max(zx);
 *  arithmetic >>: magnitude only shrinks, the sign stays: both kept;
 *  logical >>: below 2^zx stays; a negative value becomes huge.
 */
static struct width binop_width(u8 op, struct width a, struct width b)
{
	switch (op) {
	case AX_BIT_AND:
		return (struct width){ max_u8(a.sx, b.sx), min_u8(a.zx, b.zx) };
	case AX_BIT_OR: case AX_BIT_XOR:
		return (struct width){ max_u8(a.sx, b.sx), max_u8(a.zx, b.zx) };
	case AX_RSH_SIGNED:
		return a;
	case AX_RSH_UNSIGNED:
		return a.zx < 64 ? zx_width(a.zx) : unknown;
	default:
		return unknown;
	}
}

/*
 * ext/zero_ext after a value known to fit: removed.  A forward walk over
 * each block tracks 'struct width' per stack slot.
 */
int opt_ext(struct jit_ir *ir)
{
	struct width w[AX_MAX_STACK + 2];
	int i, d, n = 0;

	for (d = 0; d < (int)ARRAY_SIZE(w); d++)
		w[d] = unknown;

	for (i = 0; i < (int)ir->n; i++) {
		struct jit_insn *in = &ir->insn[i];
		struct width t;

		if (in->flags & JF_TARGET)
			for (d = 0; d < (int)ARRAY_SIZE(w); d++)
				w[d] = unknown;
		d = in->depth;
		if (d > AX_MAX_STACK)
			return n;

		switch (in->op) {
		case JIT_NOP:
			break;
		case AX_CONST64:
			w[d] = const_width(in->imm);
			break;
		case AX_REG:
			w[d] = unknown;
			if (in->flags & JF_SX)
				w[d].sx = in->ext;
			else if (in->flags & JF_ZX)
				w[d] = zx_width(in->ext);
			break;
		case AX_EXT:
			if (in->imm >= 64 || (in->imm && w[d - 1].sx <= in->imm)) {
				kill(in);
				n++;
				break;
			}
			if (in->imm)
				w[d - 1] = (struct width){ in->imm, 64 };
			break;
		case AX_ZERO_EXT:
			if (in->imm >= 64 || w[d - 1].zx <= in->imm) {
				kill(in);
				n++;
				break;
			}
			w[d - 1] = zx_width(in->imm);
			break;
		case JIT_CMP:
			t = zx_width(1);
			w[in->src == JSRC_STACK ? d - 2 : d - 1] = t;
			break;
		case AX_REF8: case AX_REF16: case AX_REF32:
			if (in->flags & JF_SX)
				w[d - 1] = (struct width){
					8 << (in->op - AX_REF8), 64 };
			else
				w[d - 1] = zx_width(8 << (in->op - AX_REF8));
			break;
		case AX_DUP:
			w[d] = w[d - 1];
			break;
		case AX_PICK:
			w[d] = w[d - 1 - in->imm];
			break;
		case AX_SWAP:
			t = w[d - 1];
			w[d - 1] = w[d - 2];
			w[d - 2] = t;
			break;
		case AX_ROT:
			t = w[d - 1];
			w[d - 1] = w[d - 2];
			w[d - 2] = w[d - 3];
			w[d - 3] = t;
			break;
		case AX_POP: case AX_SETV: case AX_TRACEV: case AX_TRACE:
		case AX_TRACENZ: case AX_TRACE_QUICK: case JIT_CMP_JCC:
			break;
		case AX_GOTO: case AX_END:
			for (d = 0; d < (int)ARRAY_SIZE(w); d++)
				w[d] = unknown;
			break;
		case AX_BIT_NOT:
			/* ~x = -x - 1: a sign extension stays one */
			w[d - 1] = (struct width){ w[d - 1].sx, 64 };
			break;
		case AX_BIT_AND: case AX_BIT_OR: case AX_BIT_XOR:
		case AX_RSH_SIGNED: case AX_RSH_UNSIGNED:
			if (in->src == JSRC_STACK)
				w[d - 2] = binop_width(in->op, w[d - 2], w[d - 1]);
			else if (in->src == JSRC_IMM)
				w[d - 1] = binop_width(in->op, w[d - 1],
						       in->op == AX_RSH_SIGNED ||
						       in->op == AX_RSH_UNSIGNED ?
						       unknown :
						       const_width(in->imm));
			else
				w[d - 1] = unknown;
			break;
		default:
			/* result in the lowest operand slot, or a push */
			if (jit_is_binop(in->op))
				w[in->src == JSRC_STACK ? d - 2 : d - 1] = unknown;
			else if (in->op == AX_GETV)
				w[d] = unknown;
			else if (d > 0)
				w[d - 1] = unknown;
			break;
		}
	}
	return n;
}

static bool fold_unary(struct jit_insn *in, u64 v, u64 *res)
{
	switch (in->op) {
	case AX_EXT: *res = jit_eval_ext(v, in->imm); return true;
	case AX_ZERO_EXT: *res = jit_eval_zext(v, in->imm); return true;
	case AX_BIT_NOT: *res = ~v; return true;
	default: return false;
	}
}

/* Constant folding: the result of an op on constants is a constant. */
int opt_const_fold(struct jit_ir *ir)
{
	int i, p, q, n = 0;
	u64 r;

	for (i = 0; i < (int)ir->n; i++) {
		struct jit_insn *in = &ir->insn[i];

		p = jit_prev(ir, i);
		if (!is_const(ir, p))
			continue;
		if (in->op == JIT_CMP_JCC && in->src != JSRC_STACK) {
			/* if (const cc imm) goto: decided now */
			if (in->src != JSRC_IMM ||
			    !jit_eval_binop(JIT_CMP, in->cc, ir->insn[p].imm,
					    in->imm, &r))
				continue;
			in->op = r ? AX_GOTO : JIT_NOP;
			in->depth = ir->insn[p].depth;
			kill(&ir->insn[p]);
			n++;
			continue;
		}
		if (in->op == JIT_CMP_JCC)
			continue;
		if (jit_is_binop(in->op) && in->src == JSRC_STACK) {
			q = jit_prev(ir, p);
			if (!is_const(ir, q) ||
			    !jit_eval_binop(in->op, in->cc, ir->insn[q].imm,
					    ir->insn[p].imm, &r))
				continue;
			in->depth = ir->insn[q].depth;
			kill(&ir->insn[q]);
		} else if (jit_is_binop(in->op) && in->src == JSRC_IMM) {
			if (!jit_eval_binop(in->op, in->cc, ir->insn[p].imm,
					    in->imm, &r))
				continue;
			in->depth = ir->insn[p].depth;
		} else if (fold_unary(in, ir->insn[p].imm, &r)) {
			in->depth = ir->insn[p].depth;
		} else {
			continue;
		}
		kill(&ir->insn[p]);
		in->op = AX_CONST64;
		in->imm = r;
		in->src = 0;
		n++;
	}
	return n;
}

/* swap before a commutative op or a compare costs nothing at run time. */
int opt_swap(struct jit_ir *ir)
{
	int i, x, n = 0;

	for (i = 0; i < (int)ir->n; i++) {
		struct jit_insn *in = &ir->insn[i];
		struct jit_insn *nx;

		if (in->op != AX_SWAP)
			continue;
		x = jit_next(ir, i);
		if (x < 0)
			continue;
		nx = &ir->insn[x];
		if (nx->op == AX_SWAP) {
			kill(nx);
		} else if (jit_is_binop(nx->op) && nx->src == JSRC_STACK &&
			   (jit_is_commutative(nx) || nx->op == JIT_CMP ||
			    nx->op == JIT_CMP_JCC)) {
			if (nx->op == JIT_CMP || nx->op == JIT_CMP_JCC)
				nx->cc = jit_cc_swap(nx->cc);
		} else {
			continue;
		}
		kill(in);
		n++;
	}
	return n;
}

static bool is_pure_push(const struct jit_insn *in)
{
	return in->op == AX_CONST64 || in->op == AX_DUP ||
	       in->op == AX_PICK ||
	       (in->op == AX_REG && in->imm != (u32)-1);
}

/* A value pushed and popped right away was never needed. */
int opt_dup_pop(struct jit_ir *ir)
{
	int i, p, n = 0;

	for (i = 0; i < (int)ir->n; i++) {
		if (ir->insn[i].op != AX_POP)
			continue;
		p = jit_prev(ir, i);
		if (p < 0 || !is_pure_push(&ir->insn[p]))
			continue;
		kill(&ir->insn[p]);
		kill(&ir->insn[i]);
		n++;
	}
	return n;
}

/* Exchange what two adjacent pushes push (positions keep their flags). */
static void swap_pushes(struct jit_insn *a, struct jit_insn *b)
{
	struct jit_insn t = *a;
	u16 fa = a->flags & JF_TARGET, fb = b->flags & JF_TARGET;

	a->op = b->op;
	a->imm = b->imm;
	a->ext = b->ext;
	a->flags = (b->flags & ~JF_TARGET) | fa;
	b->op = t.op;
	b->imm = t.imm;
	b->ext = t.ext;
	b->flags = (t.flags & ~JF_TARGET) | fb;
}

/*
 * "const c; reg N; op": push the register first so the constant can
 * become an immediate (gdb puts the constant first in '2 * x').
 */
int opt_commute(struct jit_ir *ir)
{
	int i, p, q, n = 0;

	for (i = 0; i < (int)ir->n; i++) {
		struct jit_insn *in = &ir->insn[i];
		bool cmp = in->op == JIT_CMP || in->op == JIT_CMP_JCC;

		if (!jit_is_binop(in->op) || in->src != JSRC_STACK)
			continue;
		if (!jit_is_commutative(in) && !cmp)
			continue;
		p = jit_prev(ir, i);
		if (p < 0 || ir->insn[p].op != AX_REG ||
		    ir->insn[p].imm == (u32)-1)
			continue;
		q = jit_prev(ir, p);
		if (!is_const(ir, q))
			continue;
		swap_pushes(&ir->insn[q], &ir->insn[p]);
		if (cmp)
			in->cc = jit_cc_swap(in->cc);
		n++;
	}
	return n;
}

static bool imm_ok(const struct jit_insn *in, u64 v)
{
	switch (in->op) {
	case AX_ADD: case AX_SUB: case AX_MUL:
	case AX_BIT_AND: case AX_BIT_OR: case AX_BIT_XOR:
	case JIT_CMP: case JIT_CMP_JCC:
		return is_simm32((s64)v);
	case AX_LSH: case AX_RSH_SIGNED: case AX_RSH_UNSIGNED:
		return true;
	case AX_DIV_SIGNED: case AX_DIV_UNSIGNED:
	case AX_REM_SIGNED: case AX_REM_UNSIGNED:
		return v != 0 && is_simm32((s64)v);
	default:
		return false;
	}
}

static bool regs_ok(const struct jit_insn *in)
{
	switch (in->op) {
	case AX_ADD: case AX_SUB: case AX_MUL:
	case AX_BIT_AND: case AX_BIT_OR: case AX_BIT_XOR:
	case JIT_CMP: case JIT_CMP_JCC:
		return true;
	default:
		return false;
	}
}

/* The right operand straight from an immediate or the pt_regs slot. */
int opt_operands(struct jit_ir *ir)
{
	int i, p, n = 0;

	for (i = 0; i < (int)ir->n; i++) {
		struct jit_insn *in = &ir->insn[i];
		struct jit_insn *pv;

		if (!jit_is_binop(in->op) || in->src != JSRC_STACK)
			continue;
		p = jit_prev(ir, i);
		if (p < 0)
			continue;
		pv = &ir->insn[p];
		if (pv->op == AX_CONST64 && imm_ok(in, pv->imm))
			in->src = JSRC_IMM;
		else if (is_plain_reg(ir, p) && regs_ok(in))
			in->src = JSRC_REGS;
		else
			continue;
		in->imm = pv->imm;
		in->depth = pv->depth;
		kill(pv);
		n++;
	}
	return n;
}

/* "x == 0" applied to a compare: the inverted compare. */
static bool is_test_zero(const struct jit_insn *in)
{
	return in->src == JSRC_IMM && in->imm == 0 &&
	       (in->cc == JCC_E || in->cc == JCC_NE);
}

/*
 * compare; log_not -> inverted compare; compare; if_goto -> cmp/jcc.
 * The fused insn stays at the later index (where the branch was).
 */
int opt_cmp_branch(struct jit_ir *ir)
{
	int i, p, n = 0;

	for (i = 0; i < (int)ir->n; i++) {
		struct jit_insn *in = &ir->insn[i];
		struct jit_insn *pv;

		if ((in->op != JIT_CMP && in->op != JIT_CMP_JCC) ||
		    !is_test_zero(in))
			continue;
		if (in->op == JIT_CMP && in->cc != JCC_E)
			continue;
		p = jit_prev(ir, i);
		if (p < 0 || ir->insn[p].op != JIT_CMP)
			continue;
		pv = &ir->insn[p];
		in->cc = in->cc == JCC_E ? pv->cc ^ 1 : pv->cc;
		in->src = pv->src;
		in->imm = pv->imm;
		in->depth = pv->depth;
		kill(pv);
		n++;
	}
	return n;
}

/*
 * jcc L1; goto L2; L1: -> jncc L2 (gdb's '&&' and '?:' jump over a goto).
 * Only for a forward L2: a taken backward jump is charged steps by where it
 * starts (ax.h), so moving its start would change the budget.  The goto
 * must be reached only by falling through from the jcc, and L1 must be
 * where the goto falls through to (nothing but removed insns between).
 */
int opt_jump_thread(struct jit_ir *ir)
{
	int i, g, k, n = 0;

	for (i = 0; i < (int)ir->n; i++) {
		struct jit_insn *in = &ir->insn[i];

		if (in->op != JIT_CMP_JCC || (int)in->target <= i)
			continue;
		g = jit_next(ir, i);
		if (g < 0 || ir->insn[g].op != AX_GOTO ||
		    (int)ir->insn[g].target <= g || (int)in->target <= g)
			continue;
		for (k = g + 1; k < (int)in->target; k++)
			if (ir->insn[k].op != JIT_NOP)
				break;
		if (k < (int)in->target)
			continue;
		in->cc ^= 1;
		in->target = ir->insn[g].target;
		kill(&ir->insn[g]);
		n++;
	}
	return n;
}

/*
 * and imm; compare ==/!= 0 -> test lhs, imm (JF_TEST on the compare, which
 * stays at the later index; the and goes).  Runs once after the fixed
 * point: no other pass knows JF_TEST (folding would drop the mask).
 */
int opt_test_mask(struct jit_ir *ir)
{
	int i, p, n = 0;

	for (i = 0; i < (int)ir->n; i++) {
		struct jit_insn *in = &ir->insn[i];
		struct jit_insn *pv;

		if ((in->op != JIT_CMP && in->op != JIT_CMP_JCC) ||
		    !is_test_zero(in) || (in->flags & JF_TEST))
			continue;
		p = jit_prev(ir, i);
		if (p < 0)
			continue;
		pv = &ir->insn[p];
		if (pv->op != AX_BIT_AND || pv->src != JSRC_IMM ||
		    !is_simm32((s64)pv->imm))
			continue;
		in->imm = pv->imm;
		in->flags |= JF_TEST;
		kill(pv);
		n++;
	}
	return n;
}

/* An op whose result's low 32 bits depend only on its operands' low 32. */
static bool low32_op(const struct jit_insn *in)
{
	switch (in->op) {
	case AX_ADD: case AX_SUB: case AX_MUL:
	case AX_BIT_AND: case AX_BIT_OR: case AX_BIT_XOR: case AX_BIT_NOT:
		return true;
	case AX_LSH:
		return in->src == JSRC_IMM;
	}
	return false;
}

static bool is_ext32(const struct jit_ir *ir, int i)
{
	return i >= 0 && ir->insn[i].op == AX_EXT && ir->insn[i].imm == 32;
}

/* The lowest stack slot @in reads (its depth if it reads none). */
static u32 lowest_read(const struct jit_insn *in)
{
	if (in->op == AX_REG || in->op == AX_CONST64)
		return in->depth;
	if (jit_is_binop(in->op) && in->src == JSRC_STACK)
		return in->depth - 2;
	return in->depth - 1;
}

/*
 * The insn after @i, in its block, that reads slot @s: only past insns
 * that push, extend or compute above it (none of which reads, moves or
 * copies @s), and only when it is a low32_op(); else -1.
 */
static int low32_consumer(const struct jit_ir *ir, int i, u32 s)
{
	for (i = jit_next(ir, i); i >= 0; i = jit_next(ir, i)) {
		const struct jit_insn *in = &ir->insn[i];

		if (in->op != AX_REG && in->op != AX_CONST64 &&
		    in->op != AX_EXT && in->op != AX_ZERO_EXT && !low32_op(in))
			return -1;
		if (in->op == AX_REG && in->imm == (u32)-1)
			return -1;	/* an error: must see the value as is */
		if (in->depth == 0 || lowest_read(in) > s)
			continue;
		return low32_op(in) ? i : -1;
	}
	return -1;
}

/*
 * Each ext 32 goes when its one consumer is a low32_op() whose result is
 * ext 32 right after: that ext makes the result depend on its low 32
 * bits only, and those on the operand's low 32 bits only.  A chain of
 * them keeps only its last ext.
 */
int opt_low32(struct jit_ir *ir)
{
	int i, c, e, n = 0;

	for (i = 0; i < (int)ir->n; i++) {
		if (!is_ext32(ir, i) || !ir->insn[i].depth)
			continue;
		c = low32_consumer(ir, i, ir->insn[i].depth - 1);
		e = c < 0 ? -1 : jit_next(ir, c);
		if (!is_ext32(ir, e) ||
		    ir->insn[e].depth != lowest_read(&ir->insn[c]) + 1)
			continue;
		kill(&ir->insn[i]);
		n++;
	}
	return n;
}

int opt_cmp32(struct jit_ir *ir)
{
	int i, p, n = 0;

	for (i = 0; i < (int)ir->n; i++) {
		struct jit_insn *in = &ir->insn[i];

		if ((in->op != JIT_CMP && in->op != JIT_CMP_JCC) ||
		    in->src != JSRC_IMM || (in->flags & JF_TEST) ||
		    (s64)in->imm != (s32)in->imm)
			continue;
		p = jit_prev(ir, i);
		if (!is_ext32(ir, p) || ir->insn[p].depth != in->depth)
			continue;
		kill(&ir->insn[p]);
		in->flags |= JF_CMP32;
		n++;
	}
	return n;
}

/**
 * jit_optimize - run every pass until none rewrites anything
 * @ir: the IR, rewritten in place
 *
 * Each pass only shrinks the program or moves an operand into a later
 * insn, so this terminates; the cap is a belt for that argument.
 */
void jit_optimize(struct jit_ir *ir)
{
	int round, n;

	for (round = 0; round < 32; round++) {
		n = opt_load_ext(ir);
		n += opt_ext(ir);
		n += opt_const_fold(ir);
		n += opt_swap(ir);
		n += opt_dup_pop(ir);
		n += opt_commute(ir);
		n += opt_operands(ir);
		n += opt_cmp_branch(ir);
		n += opt_jump_thread(ir);
		if (!n)
			break;
	}
	opt_test_mask(ir);
	opt_low32(ir);
	opt_cmp32(ir);
}
