// SPDX-License-Identifier: GPL-2.0
/*
 * codegen.c - x86-64 code generation from the optimized IR.
 *
 * Calling convention (SysV): u64 fn(struct ax_env *env), env in rdi, the
 * condition's value returned in rax.
 *
 * Register map.  Stack slot i lives in jit_slot_reg[i] (i < 5), else in the
 * frame at [rsp + 8 * i]:
 *
 *   slot 0..4   rax rsi r8 r9 r10    (caller-saved: leaf code saves nothing)
 *   scratch     rcx rdx              (shift counts, div, memory operands)
 *   env         rdi  (leaf)  | rbx   (framed: survives hook calls)
 *   env->regs   r11  (leaf)  | rbp   (framed), loaded once when used
 *
 * A program is "leaf" when it calls no hook and fits in the five slot
 * registers: then there is no frame and no memory traffic but the pt_regs
 * loads and the step charge (the paper's Table 3 condition: 15 insns up
 * to its ret, 3 of them fetching env->regs and checking it for NULL, 2
 * the charge).  Otherwise it is "framed":
 *
 *   push rbx; push rbp; sub rsp, F     F = 8 * (max_depth + 1), rounded
 *   [rsp + 8 * i]        home of slot i (spilled around hook calls)
 *   [rsp + 8 * max_depth] scratch: the hooks' out-parameter, div spill
 *
 * and each hook call spills the register slots that outlive it to their
 * homes, calls, tests the hook's return value, and reloads them.
 *
 * Every evaluation first charges the hit's step budget the program's insn
 * count (ax.h), one sub and a jb on env->steps, even in a leaf.
 *
 * Errors (div by zero, failing hooks, the step budget) jump to out-of-line
 * stubs after the body that store env->err and env->err_pc and return 0,
 * exactly like ax_interp().  A NULL env->regs hands the evaluation to
 * ax_interp() (see emit_prologue()).  Returns go through the kernel's
 * return thunk when it has one (see emit_epilogue()), and calls are
 * counted first where the kernel tracks call depth (emit_call_fn()).
 *
 * Layout converges like the kernel's BPF JIT: pass 0 emits every branch and
 * call in its long form to size the image; later passes pick rel8 branches
 * and rel32 calls from the previous pass's addrs[] until two passes agree
 * (at most JIT_MAX_PASSES, else -EFAULT and the interpreter runs).  Each
 * insn is emitted into temp[] first and size-checked before it is copied
 * out.
 */
#include "jit.h"
#include "host.h"
#include "jit_internal.h"
#include "x86_emit.h"

const u8 jit_slot_reg[JIT_NR_SLOT_REGS] = {
	X86_RAX, X86_RSI, X86_R8, X86_R9, X86_R10,
};

/*
 * A probe keeps every argument register as it got them, for the hit it
 * may jump to: its slots are the three registers no caller passes
 * anything in.
 */
static const u8 jit_probe_slot_reg[JIT_PROBE_SLOT_REGS] = {
	X86_RAX, X86_R10, X86_R11,
};

#define JIT_MAX_INSN	256	/* bytes one IR insn may need (checked) */
#define JIT_MAX_PASSES	20
#define ENV_OFF(f)	((s32)offsetof(struct ax_env, f))

enum stub_kind {
	STUB_ERR,	/* env->err = code, env->err_pc = pc, return 0 */
	STUB_INTERP,	/* env->regs == NULL: tail-call ax_interp() */
	STUB_ENTRY,	/* the entry charge failed: undo it, budget error */
};

struct jit_stub {
	u8 kind;
	u8 code;	/* enum ax_error */
	u32 pc;		/* bytecode offset of the failing insn */
};

struct jit_ctx {
	const struct jit_ir *ir;
	const u8 *slot_reg;	/* jit_slot_reg or jit_probe_slot_reg */
	int nslot_regs;
	const struct jit_probe_target *probe;	/* a probe's exit, or NULL */
	bool framed;
	bool uses_regs;
	int env;		/* register holding env */
	int regs;		/* register holding env->regs */
	s32 frame;		/* bytes subtracted from rsp */
	s32 scratch;		/* [rsp + scratch]: 8 bytes for hooks */
	u8 *image;		/* final address, NULL in pass 0 */
	u32 image_size;		/* allocated bytes (calls decide on it) */
	u8 *out;		/* where this pass writes, NULL to measure */
	u32 out_size;		/* bytes at out */
	u32 *addrs;		/* start offset of insn i, this pass */
	u32 *prev_addrs;	/* same, previous pass (NULL in pass 0) */
	u32 *stub_addrs;
	u32 *prev_stub_addrs;
	struct jit_stub *stubs;
	u32 nstubs, max_stubs;
	void *ret_thunk;	/* jmp here instead of ret, or NULL */
	bool call_depth;	/* account each call (call-depth tracking) */
	s32 call_depth_var;	/* %gs:this is the per-CPU depth counter */
	bool endbr;		/* IBT: the entry is an indirect-call target */
	u32 unit_prev;		/* previous-pass offset of the current unit */
	u8 temp[JIT_MAX_INSN * 2];
	int err;
};

static bool slot_in_reg(const struct jit_ctx *ctx, int s)
{
	return s < ctx->nslot_regs;
}

static s32 slot_home(int s)
{
	return 8 * s;
}

/* The register holding slot @s: its own, or @tmp loaded from memory. */
static int get_slot(const struct jit_ctx *ctx, u8 **pprog, int s, int tmp)
{
	if (slot_in_reg(ctx, s))
		return ctx->slot_reg[s];
	emit_load(pprog, 8, false, tmp, X86_RSP, slot_home(s));
	return tmp;
}

/* Where to compute a new value of slot @s before put_slot(). */
static int dst_slot(const struct jit_ctx *ctx, int s, int tmp)
{
	return slot_in_reg(ctx, s) ? ctx->slot_reg[s] : tmp;
}

/* Slot @s = register @r. */
static void put_slot(const struct jit_ctx *ctx, u8 **pprog, int s, int r)
{
	if (slot_in_reg(ctx, s))
		emit_mov_rr(pprog, ctx->slot_reg[s], r);
	else
		emit_store(pprog, 8, X86_RSP, slot_home(s), r);
}

/*
 * A probe reads registers where its caller left them: the pt_regs field at
 * @off as the machine register, or -1 for one a probe cannot read (its
 * own slots rax, r10, r11, and what is not a general register at a call:
 * rsp, rip, flags, segments).
 */
static int probe_reg(u32 off)
{
	switch (off) {
	case offsetof(struct pt_regs, di): return X86_RDI;
	case offsetof(struct pt_regs, si): return X86_RSI;
	case offsetof(struct pt_regs, dx): return X86_RDX;
	case offsetof(struct pt_regs, cx): return X86_RCX;
	case offsetof(struct pt_regs, r8): return X86_R8;
	case offsetof(struct pt_regs, r9): return X86_R9;
	case offsetof(struct pt_regs, bx): return X86_RBX;
	case offsetof(struct pt_regs, bp): return X86_RBP;
	case offsetof(struct pt_regs, r12): return X86_R12;
	case offsetof(struct pt_regs, r13): return X86_R13;
	case offsetof(struct pt_regs, r14): return X86_R14;
	case offsetof(struct pt_regs, r15): return X86_R15;
	}
	return -1;
}

/*
 * Does this probe read registers from where its caller left them?  A
 * pt_regs probe (a kprobe's handler) reads them from the block it was
 * handed instead, as an image reads env->regs.
 */
static bool regs_in_place(const struct jit_ctx *ctx)
{
	return ctx->probe && !ctx->probe->pt_regs;
}

/* May a probe read the register at pt_regs offset @off? */
static bool probe_reads(bool pt_regs, u32 off)
{
	return pt_regs ? off != (u32)-1 : probe_reg(off) >= 0;
}

static int add_stub(struct jit_ctx *ctx, u8 kind, u8 code, u32 pc)
{
	struct jit_stub *st;

	if (ctx->nstubs >= ctx->max_stubs || ctx->probe) {
		ctx->err = -EFAULT;
		return 0;
	}
	st = &ctx->stubs[ctx->nstubs];
	st->kind = kind;
	st->code = code;
	st->pc = pc;
	return ctx->nstubs++;
}

/*
 * jmp/jcc from the current position to a previous-pass offset.  In pass 0
 * nothing is known: the long form, displacement 0.  Later passes use the
 * previous pass's layout for both ends; once two passes agree it is exact.
 */
static void emit_branch(struct jit_ctx *ctx, u8 **pprog, int cc, u32 tgt)
{
	u8 *prog = *pprog;
	s64 here, disp;
	bool known = ctx->prev_addrs != NULL;

	here = (s64)ctx->unit_prev + (prog - ctx->temp);
	if (cc < 0) {
		disp = (s64)tgt - (here + X86_JMP8_LEN);
		if (known && is_imm8(disp))
			emit_jmp8(&prog, disp);
		else
			emit_jmp32(&prog, known ?
				   (s32)(tgt - (here + X86_JMP32_LEN)) : 0);
	} else {
		disp = (s64)tgt - (here + X86_JCC8_LEN);
		if (known && is_imm8(disp))
			emit_jcc8(&prog, cc, disp);
		else
			emit_jcc32(&prog, cc, known ?
				   (s32)(tgt - (here + X86_JCC32_LEN)) : 0);
	}
	*pprog = prog;
}

static void emit_jump_insn(struct jit_ctx *ctx, u8 **pprog, int cc, u32 idx)
{
	emit_branch(ctx, pprog, cc,
		    ctx->prev_addrs ? ctx->prev_addrs[idx] : 0);
}

static void emit_jump_stub(struct jit_ctx *ctx, u8 **pprog, int cc, int k)
{
	emit_branch(ctx, pprog, cc,
		    ctx->prev_stub_addrs ? ctx->prev_stub_addrs[k] : 0);
}

/* if (cc) goto error(code, this insn) */
static void emit_error_if(struct jit_ctx *ctx, u8 **pprog, int cc, u8 code,
			  const struct jit_insn *in)
{
	int k = add_stub(ctx, STUB_ERR, code, in->off);

	emit_jump_stub(ctx, pprog, cc, k);
}

static void emit_call_fn(struct jit_ctx *ctx, u8 **pprog, void *fn,
			 bool tail, int reg);

/* Return: 'ret; int3', or a jump to the kernel's return thunk. */
static void emit_epilogue(struct jit_ctx *ctx, u8 **pprog)
{
	u8 *prog = *pprog;

	if (ctx->framed) {
		emit_alu_ri(&prog, X86_ADD, X86_RSP, ctx->frame);
		emit_pop(&prog, X86_RBP);
		emit_pop(&prog, X86_RBX);
	}
	if (ctx->ret_thunk)
		/* r11: rax holds the result */
		emit_call_fn(ctx, &prog, ctx->ret_thunk, true, X86_R11);
	else
		emit_ret(&prog);
	*pprog = prog;
}

/*
 * A probe whose hit gets the flags and its slot registers as it got them
 * (jit_probe_target.save_scratch) pushes, on entry, the slots its
 * condition computes in: slot i is used only at depth i + 1, so the first
 * max_depth.  The hit's block is completed by emit_probe_exit(), which
 * pushes the others, still untouched, in the same order.
 */
static int probe_saved_at_entry(const struct jit_ctx *ctx)
{
	return ctx->probe->save_scratch ? (int)ctx->ir->max_depth : 0;
}

/*
 * A program reading registers needs env->regs.  When a probe has none, the
 * interpreter knows which insn fails and what ran before it: the JIT code
 * simply hands the whole evaluation over to it (a tail call, before any
 * push), so this costs one test + jz on the hot path.  The check is made
 * when the *original* bytecode has a 'reg' insn, so the passes may treat
 * 'reg' as a pure push and delete it.
 */
static void emit_prologue(struct jit_ctx *ctx, u8 **pprog)
{
	u8 *prog = *pprog;
	int tmp = ctx->framed ? X86_RAX : ctx->regs;
	int s;

	if (ctx->endbr) {
		/* endbr64: probes call the image through a pointer */
		*prog++ = 0xf3;
		*prog++ = 0x0f;
		*prog++ = 0x1e;
		*prog++ = 0xfa;
	}
	if (ctx->probe) {
		/*
		 * Flags first: the call-depth count and the condition change
		 * them.  Then the slots the condition computes in; the hit
		 * gets the rest pushed by emit_probe_exit().
		 */
		if (ctx->probe->save_scratch)
			*prog++ = 0x9c;	/* pushfq */
		/* no env, no frame; no charge: probe_ok() said it cannot fail */
		if (ctx->probe->count_call && ctx->call_depth)
			emit_call_depth(&prog, ctx->call_depth_var);
		for (s = 0; s < probe_saved_at_entry(ctx); s++)
			emit_push(&prog, ctx->slot_reg[s]);
		*pprog = prog;
		return;
	}
	if (ctx->uses_regs) {
		/* mov tmp, [rdi + regs]; test tmp, tmp; jz interp */
		emit_load(&prog, 8, false, tmp, X86_RDI, ENV_OFF(regs));
		if (ctx->ir->prog) {
			emit_test_rr(&prog, tmp, tmp);
			emit_jump_stub(ctx, &prog, JCC_E,
				       add_stub(ctx, STUB_INTERP, 0, 0));
		}
	}
	if (ctx->framed) {
		/* push rbx; push rbp; sub rsp, F; mov rbx, rdi */
		emit_push(&prog, X86_RBX);
		emit_push(&prog, X86_RBP);
		emit_alu_ri(&prog, X86_SUB, X86_RSP, ctx->frame);
		emit_mov_rr(&prog, X86_RBX, X86_RDI);
		if (ctx->uses_regs)
			emit_mov_rr(&prog, ctx->regs, X86_RAX);
	}
	/*
	 * The entry charge (ax.h): sub dword [env + steps], ninsns; jb.
	 * After the regs check, whose tail call lets ax_interp() charge
	 * instead; the stub adds the steps back, as if nothing ran.
	 */
	emit_alu_mi32(&prog, X86_SUB, ctx->env, ENV_OFF(steps), ctx->ir->n);
	emit_jump_stub(ctx, &prog, JCC_B, add_stub(ctx, STUB_ENTRY, 0, 0));
	*pprog = prog;
}

static bool is_pow2(u64 v)
{
	return v && !(v & (v - 1));
}

static u8 ilog2_u64(u64 v)
{
	u8 n = 0;

	while (v >>= 1)
		n++;
	return n;
}

/* add/sub/and/or/xor/mul/cmp of slot lhs with the insn's right operand */
static void emit_alu_src(struct jit_ctx *ctx, u8 **pprog,
			 const struct jit_insn *in, int alu, int l, int d)
{
	u8 *prog = *pprog;
	int r;

	switch (in->src) {
	case JSRC_STACK:
		r = get_slot(ctx, &prog, d - 1, X86_RCX);
		if (alu < 0)
			emit_imul_rr(&prog, l, r);
		else
			emit_alu_rr(&prog, alu, l, r);
		break;
	case JSRC_IMM:
		if (alu < 0) {
			if (is_pow2(in->imm))
				/* x * 2^k: shl x, k */
				emit_shift_imm(&prog, X86_SHL, l,
					       ilog2_u64(in->imm));
			else
				emit_imul_rri(&prog, l, l, (s32)in->imm);
		} else if (alu == X86_CMP && (in->flags & JF_TEST)) {
			/* (x & mask) ==/!= 0: test x, mask (opt_test_mask) */
			emit_test_ri(&prog, l, (s32)in->imm);
		} else if (alu == X86_CMP && (in->flags & JF_CMP32)) {
			/* the low halves (opt_cmp32); test r32, r32 for 0 */
			if (in->imm == 0)
				emit_test_rr32(&prog, l, l);
			else
				emit_alu_ri32(&prog, X86_CMP, l, (s32)in->imm);
		} else if (alu == X86_CMP && in->imm == 0) {
			/* cmp x, 0 == test x, x: same flags, shorter */
			emit_test_rr(&prog, l, l);
		} else {
			emit_alu_ri(&prog, alu, l, (s32)in->imm);
		}
		break;
	default:	/* JSRC_REGS */
		if (regs_in_place(ctx) && alu < 0)
			emit_imul_rr(&prog, l, probe_reg(in->imm));
		else if (regs_in_place(ctx))
			emit_alu_rr(&prog, alu, l, probe_reg(in->imm));
		else if (alu < 0)
			emit_imul_rm(&prog, l, ctx->regs, in->imm);
		else
			emit_alu_rm(&prog, alu, l, ctx->regs, in->imm);
		break;
	}
	*pprog = prog;
}

static int lhs_slot(const struct jit_insn *in)
{
	return in->src == JSRC_STACK ? in->depth - 2 : in->depth - 1;
}

static int alu_of(u8 op)
{
	switch (op) {
	case AX_ADD: return X86_ADD;
	case AX_SUB: return X86_SUB;
	case AX_BIT_AND: return X86_AND;
	case AX_BIT_OR: return X86_OR;
	case AX_BIT_XOR: return X86_XOR;
	case AX_MUL: return -1;
	default: return X86_CMP;
	}
}

static void emit_alu_op(struct jit_ctx *ctx, u8 **pprog,
			const struct jit_insn *in)
{
	int s = lhs_slot(in);
	int l = get_slot(ctx, pprog, s, X86_RDX);

	emit_alu_src(ctx, pprog, in, alu_of(in->op), l, in->depth);
	if (!slot_in_reg(ctx, s))
		put_slot(ctx, pprog, s, l);
}

/* Patch a forward rel8 whose displacement byte is at @at to land here. */
static void patch_rel8(u8 *at, u8 *here)
{
	*at = (u8)(here - (at + 1));
}

/*
 * Shifts: the count is taken modulo 64 (ax.h), which is exactly what x86
 * shl/sar/shr do with cl or an imm8.
 */
static void emit_shift(struct jit_ctx *ctx, u8 **pprog,
		       const struct jit_insn *in)
{
	u8 *prog = *pprog;
	int s = lhs_slot(in);
	int sh = in->op == AX_LSH ? X86_SHL :
		 in->op == AX_RSH_SIGNED ? X86_SAR : X86_SHR;
	int l = get_slot(ctx, &prog, s, X86_RDX), r;

	if (in->src == JSRC_IMM) {
		if (in->imm & 63)
			emit_shift_imm(&prog, sh, l, in->imm & 63);
	} else {
		r = get_slot(ctx, &prog, in->depth - 1, X86_RCX);
		emit_mov_rr(&prog, X86_RCX, r);
		emit_shift_cl(&prog, sh, l);
	}
	if (!slot_in_reg(ctx, s))
		put_slot(ctx, &prog, s, l);
	*pprog = prog;
}

/*
 * div/rem.  x86 idiv traps on a zero divisor and on INT64_MIN / -1, so
 * both are decided before it: zero is an AX_ERR_DIV0 error, and -1 gives
 * -a (wrapping) and remainder 0, as ax_interp() computes.
 *
 *   mov rcx, b; test rcx, rcx; jz div0      (unless b is a constant)
 *   cmp rcx, -1; jne 1f; neg a; jmp 2f      (signed only)
 *   1: xchg rax, a; cqo; idiv rcx; xchg rax, a   (rem: mov a, rdx)
 *   2:
 */
/*
 * x / 2^k and x % 2^k (1 <= k <= 31) without idiv, as compilers do.
 * Unsigned: shr k / and 2^k - 1.  Signed (truncating, like idiv): add
 * 2^k - 1 to a negative x first ((x >> 63) >>> (64 - k) is that bias),
 * then sar k for the quotient; the remainder is x minus the biased
 * value rounded down to a multiple of 2^k.
 */
static void emit_divrem_pow2(struct jit_ctx *ctx, u8 **pprog,
			     const struct jit_insn *in, bool sgn, bool rem,
			     int s)
{
	u8 k = ilog2_u64(in->imm);
	int l = get_slot(ctx, pprog, s, X86_RDX);

	if (!sgn) {
		if (rem)
			emit_alu_ri(pprog, X86_AND, l, (s32)(in->imm - 1));
		else
			emit_shift_imm(pprog, X86_SHR, l, k);
	} else {
		int t = l == X86_RDX ? X86_RCX : X86_RDX;

		emit_mov_rr(pprog, t, l);
		emit_shift_imm(pprog, X86_SAR, t, 63);
		emit_shift_imm(pprog, X86_SHR, t, 64 - k);
		emit_alu_rr(pprog, X86_ADD, t, l);
		if (rem) {
			emit_alu_ri(pprog, X86_AND, t, (s32)-(s64)in->imm);
			emit_alu_rr(pprog, X86_SUB, l, t);
		} else {
			emit_shift_imm(pprog, X86_SAR, t, k);
			emit_mov_rr(pprog, l, t);
		}
	}
	if (!slot_in_reg(ctx, s))
		put_slot(ctx, pprog, s, l);
}

static void emit_divrem(struct jit_ctx *ctx, u8 **pprog,
			const struct jit_insn *in)
{
	u8 *prog = *pprog, *fix_ne = NULL, *fix_done = NULL;
	bool sgn = in->op == AX_DIV_SIGNED || in->op == AX_REM_SIGNED;
	bool rem = in->op == AX_REM_SIGNED || in->op == AX_REM_UNSIGNED;
	int s = lhs_slot(in), l, r;

	if (in->src == JSRC_IMM && sgn && (s64)in->imm == -1) {
		l = get_slot(ctx, &prog, s, X86_RDX);
		if (rem)
			emit_mov_imm(&prog, l, 0);
		else
			emit_neg(&prog, l);
		goto out_put;
	}
	if (in->src == JSRC_IMM && is_pow2(in->imm) && in->imm >= 2 &&
	    in->imm <= (1ULL << 31)) {
		emit_divrem_pow2(ctx, &prog, in, sgn, rem, s);
		*pprog = prog;
		return;
	}
	if (in->src == JSRC_IMM) {
		emit_mov_imm(&prog, X86_RCX, in->imm);
	} else {
		r = get_slot(ctx, &prog, in->depth - 1, X86_RCX);
		emit_mov_rr(&prog, X86_RCX, r);
		emit_test_rr(&prog, X86_RCX, X86_RCX);
		emit_error_if(ctx, &prog, JCC_E, AX_ERR_DIV0, in);
		if (sgn) {
			emit_alu_ri(&prog, X86_CMP, X86_RCX, -1);
			emit_jcc8(&prog, JCC_NE, 0);
			fix_ne = prog - 1;
			l = get_slot(ctx, &prog, s, X86_RDX);
			if (rem)
				emit_mov_imm(&prog, l, 0);
			else
				emit_neg(&prog, l);
			if (!slot_in_reg(ctx, s))
				put_slot(ctx, &prog, s, l);
			emit_jmp8(&prog, 0);
			fix_done = prog - 1;
			patch_rel8(fix_ne, prog);
		}
	}

	if (slot_in_reg(ctx, s)) {
		l = ctx->slot_reg[s];
		if (l != X86_RAX)
			emit_xchg(&prog, X86_RAX, l);
	} else {
		emit_store(&prog, 8, X86_RSP, ctx->scratch, X86_RAX);
		emit_load(&prog, 8, false, X86_RAX, X86_RSP, slot_home(s));
		l = -1;
	}
	if (sgn) {
		emit_cqo(&prog);
	} else {
		emit_mov_imm(&prog, X86_RDX, 0);
	}
	emit_div(&prog, sgn, X86_RCX);
	if (l < 0) {
		emit_store(&prog, 8, X86_RSP, slot_home(s),
			   rem ? X86_RDX : X86_RAX);
		emit_load(&prog, 8, false, X86_RAX, X86_RSP, ctx->scratch);
	} else if (l == X86_RAX) {
		if (rem)
			emit_mov_rr(&prog, X86_RAX, X86_RDX);
	} else if (rem) {
		emit_mov_rr(&prog, X86_RAX, l);
		emit_mov_rr(&prog, l, X86_RDX);
	} else {
		emit_xchg(&prog, X86_RAX, l);
	}
	if (fix_done)
		patch_rel8(fix_done, prog);
	*pprog = prog;
	return;

out_put:
	if (!slot_in_reg(ctx, s))
		put_slot(ctx, &prog, s, l);
	*pprog = prog;
}

static void emit_compare(struct jit_ctx *ctx, u8 **pprog,
			 const struct jit_insn *in, int *lhs)
{
	int s = lhs_slot(in);
	int l = get_slot(ctx, pprog, s, X86_RDX);

	emit_alu_src(ctx, pprog, in, X86_CMP, l, in->depth);
	*lhs = l;
}

static void emit_ext(struct jit_ctx *ctx, u8 **pprog, const struct jit_insn *in)
{
	int s = in->depth - 1;
	int l = get_slot(ctx, pprog, s, X86_RDX);
	unsigned int n = in->imm;

	if (in->op == AX_EXT) {
		if (n == 0 || n >= 64)
			return;
		if (n == 8 || n == 16 || n == 32) {
			emit_movsx_rr(pprog, n, l, l);
		} else {
			emit_shift_imm(pprog, X86_SHL, l, 64 - n);
			emit_shift_imm(pprog, X86_SAR, l, 64 - n);
		}
	} else {
		if (n >= 64)
			return;
		if (n == 0)
			emit_mov_imm(pprog, l, 0);
		else if (n == 8 || n == 16 || n == 32)
			emit_movzx_rr(pprog, n, l, l);
		else if (n < 32)
			emit_alu_ri(pprog, X86_AND, l, (s32)((1U << n) - 1));
		else {
			emit_shift_imm(pprog, X86_SHL, l, 64 - n);
			emit_shift_imm(pprog, X86_SHR, l, 64 - n);
		}
	}
	if (!slot_in_reg(ctx, s))
		put_slot(ctx, pprog, s, l);
}

/* A probe's reg N: a move from where the caller left it. */
static void emit_probe_reg(u8 **pprog, const struct jit_insn *in, int r)
{
	int src = probe_reg(in->imm);

	if (in->flags & JF_SX)
		emit_movsx_rr(pprog, in->ext, r, src);
	else if (in->flags & JF_ZX)
		emit_movzx_rr(pprog, in->ext, r, src);
	else
		emit_mov_rr(pprog, r, src);
}

/* reg N: one load from the pt_regs slot, extended as opt_load_ext said */
static void emit_reg(struct jit_ctx *ctx, u8 **pprog,
		     const struct jit_insn *in)
{
	int d = in->depth, r = dst_slot(ctx, d, X86_RCX);

	if (in->imm == (u32)-1) {
		emit_error_if(ctx, pprog, -1, AX_ERR_REG, in);
		return;
	}
	if (regs_in_place(ctx))
		emit_probe_reg(pprog, in, r);
	else if (in->flags & (JF_SX | JF_ZX))
		emit_load(pprog, in->ext / 8, in->flags & JF_SX, r,
			  ctx->regs, in->imm);
	else
		emit_load(pprog, 8, false, r, ctx->regs, in->imm);
	if (!slot_in_reg(ctx, d))
		put_slot(ctx, pprog, d, r);
}

static void emit_move_slot(struct jit_ctx *ctx, u8 **pprog, int dst, int src)
{
	int r = get_slot(ctx, pprog, src, X86_RDX);

	put_slot(ctx, pprog, dst, r);
}

static void emit_stack_op(struct jit_ctx *ctx, u8 **pprog, const struct jit_insn *in)
{
	u8 *prog = *pprog;
	int d = in->depth, a, b;

	switch (in->op) {
	case AX_DUP:
		emit_move_slot(ctx, &prog, d, d - 1);
		break;
	case AX_PICK:
		emit_move_slot(ctx, &prog, d, d - 1 - in->imm);
		break;
	case AX_SWAP:
		if (slot_in_reg(ctx, d - 1)) {
			emit_xchg(&prog, ctx->slot_reg[d - 2],
				  ctx->slot_reg[d - 1]);
			break;
		}
		a = get_slot(ctx, &prog, d - 2, X86_RDX);
		emit_mov_rr(&prog, X86_RDX, a);
		b = get_slot(ctx, &prog, d - 1, X86_RCX);
		put_slot(ctx, &prog, d - 2, b);
		put_slot(ctx, &prog, d - 1, X86_RDX);
		break;
	case AX_ROT:
		/* a b c => c a b */
		b = get_slot(ctx, &prog, d - 1, X86_RCX);
		emit_mov_rr(&prog, X86_RCX, b);
		emit_move_slot(ctx, &prog, d - 1, d - 2);
		emit_move_slot(ctx, &prog, d - 2, d - 3);
		put_slot(ctx, &prog, d - 3, X86_RCX);
		break;
	}
	*pprog = prog;
}

/* Which env->err a failing hook reports, as ax_interp() does. */
static u8 hook_error(u8 op)
{
	switch (op) {
	case AX_REF8: case AX_REF16: case AX_REF32: case AX_REF64:
		return AX_ERR_MEM;
	case AX_GETV: case AX_SETV:
		return AX_ERR_TSV;
	default:
		return AX_ERR_TRACE;
	}
}

static void *hook_of(u8 op)
{
	switch (op) {
	case AX_REF8: case AX_REF16: case AX_REF32: case AX_REF64:
		return (void *)ax_hook_read;
	case AX_TRACE: case AX_TRACE_QUICK: case AX_TRACENZ:
		return (void *)ax_hook_trace;
	case AX_GETV:
		return (void *)ax_hook_getv;
	case AX_SETV:
		return (void *)ax_hook_setv;
	default:
		return (void *)ax_hook_tracev;
	}
}

/*
 * call (or tail-jump to) a C function: rel32 when it is within +-2GB of
 * the whole image (as module_alloc() guarantees for kernel and module
 * text), else movabs @reg + call/jmp @reg.
 */
static void emit_call_fn(struct jit_ctx *ctx, u8 **pprog, void *fn,
			 bool tail, int reg)
{
	u8 *prog = *pprog;
	s64 lo, hi, here;

	/*
	 * The callee returns through the kernel's call-depth return thunk,
	 * which expects the call to have been counted, as the kernel's own
	 * calls are by their call thunks.  Tail jumps are not calls.
	 */
	if (ctx->call_depth && !tail)
		emit_call_depth(&prog, ctx->call_depth_var);
	if (ctx->image) {
		here = (s64)(unsigned long)ctx->image;
		lo = (s64)(unsigned long)fn - here;
		hi = (s64)(unsigned long)fn - (here + ctx->image_size);
		if (is_simm32(lo) && is_simm32(hi)) {
			here += ctx->unit_prev + (prog - ctx->temp) +
				X86_CALL32_LEN;
			if (tail)
				emit_jmp32(&prog, (s32)((s64)(unsigned long)fn -
							here));
			else
				emit_call32(&prog, (s32)((s64)(unsigned long)fn -
							 here));
			*pprog = prog;
			return;
		}
	}
	/*
	 * Out of rel32 reach: only an indirect branch gets there, which a
	 * kernel that mitigates them must not be given (under IBT its
	 * target needs an endbr64 the return thunks and sealed functions
	 * lack; retpolines exist to avoid one).  The host allocates images
	 * near kernel text (->exec_alloc), so there this is refused, never
	 * emitted: the interpreter runs instead.
	 */
	if (ctx->image && (ctx->endbr || ctx->ret_thunk || ctx->call_depth))
		ctx->err = -ERANGE;
	emit_mov_imm(&prog, reg, (u64)(unsigned long)fn);
	if (!ctx->image)
		/* pass 0 sizes the worst case: a full movabs */
		while (prog - *pprog < 10)
			*prog++ = 0x90;
	if (tail)
		emit_jmp_reg(&prog, reg);
	else
		emit_call_reg(&prog, reg);
	*pprog = prog;
}

/* Argument register @dst = slot @s, from its register or its home. */
static void load_arg(struct jit_ctx *ctx, u8 **pprog, int dst, int s)
{
	if (slot_in_reg(ctx, s))
		emit_mov_rr(pprog, dst, ctx->slot_reg[s]);
	else
		emit_load(pprog, 8, false, dst, X86_RSP, slot_home(s));
}

/*
 * Hook calls.  The register slots that outlive the call ('keep': those
 * below the operands, and operands that stay on the stack) go to their
 * homes; the arguments are moved straight from the operand slots, rdx and
 * rcx before rsi (rsi is also slot 1, and slot registers are never rdx or
 * rcx, so that order has no conflicts); after the call the kept slots come
 * back and a result goes straight into its slot.
 */
static void emit_hook(struct jit_ctx *ctx, u8 **pprog,
		      const struct jit_insn *in)
{
	u8 *prog = *pprog;
	int d = in->depth, s, keep, res = -1, size = 0;

	switch (in->op) {
	case AX_REF8: case AX_REF16: case AX_REF32: case AX_REF64:
		keep = d - 1;
		res = d - 1;
		size = 1 << (in->op - AX_REF8);
		break;
	case AX_TRACE: case AX_TRACENZ:
		keep = d - 2;
		break;
	case AX_GETV:
		keep = d;
		res = d;
		size = 8;
		break;
	default:	/* trace_quick, setv, tracev: the stack is unchanged */
		keep = d;
		break;
	}
	for (s = 0; s < keep && slot_in_reg(ctx, s); s++)
		emit_store(&prog, 8, X86_RSP, slot_home(s), ctx->slot_reg[s]);

	switch (in->op) {
	case AX_REF8: case AX_REF16: case AX_REF32: case AX_REF64:
		/* ax_hook_read(env, addr, &scratch, size) */
		emit_lea(&prog, X86_RDX, X86_RSP, ctx->scratch);
		emit_mov_imm(&prog, X86_RCX, size);
		load_arg(ctx, &prog, X86_RSI, d - 1);
		break;
	case AX_TRACE: case AX_TRACENZ:
		/* ax_hook_trace(env, addr, size, upto_nul) */
		load_arg(ctx, &prog, X86_RDX, d - 1);
		load_arg(ctx, &prog, X86_RSI, d - 2);
		/* a size above U32_MAX fails before the hook: mov ecx, edx;
		 * cmp rcx, rdx; jne error */
		emit_mov_rr32(&prog, X86_RCX, X86_RDX);
		emit_alu_rr(&prog, X86_CMP, X86_RCX, X86_RDX);
		emit_error_if(ctx, &prog, JCC_NE, AX_ERR_TRACE, in);
		emit_mov_imm(&prog, X86_RCX, in->op == AX_TRACENZ);
		break;
	case AX_TRACE_QUICK:
		emit_mov_imm(&prog, X86_RDX, in->imm);
		emit_mov_imm(&prog, X86_RCX, 0);
		load_arg(ctx, &prog, X86_RSI, d - 1);
		break;
	case AX_GETV:
		/* ax_hook_getv(env, tsv, &scratch) */
		emit_lea(&prog, X86_RDX, X86_RSP, ctx->scratch);
		emit_mov_imm(&prog, X86_RSI, in->imm);
		break;
	case AX_SETV:
		/* ax_hook_setv(env, tsv, top) */
		load_arg(ctx, &prog, X86_RDX, d - 1);
		emit_mov_imm(&prog, X86_RSI, in->imm);
		break;
	default:
		/* ax_hook_tracev(env, tsv) */
		emit_mov_imm(&prog, X86_RSI, in->imm);
		break;
	}
	emit_mov_rr(&prog, X86_RDI, ctx->env);
	emit_call_fn(ctx, &prog, hook_of(in->op), false, X86_RAX);
	/* test eax, eax (the int return value) */
	EMIT2(0x85, 0xc0);
	emit_error_if(ctx, &prog, JCC_NE, hook_error(in->op), in);

	if (res >= 0) {
		int r = dst_slot(ctx, res, X86_RCX);

		emit_load(&prog, size, in->flags & JF_SX, r, X86_RSP,
			  ctx->scratch);
		if (!slot_in_reg(ctx, res))
			put_slot(ctx, &prog, res, r);
	}
	for (s = 0; s < keep && slot_in_reg(ctx, s); s++)
		emit_load(&prog, 8, false, ctx->slot_reg[s], X86_RSP,
			  slot_home(s));
	*pprog = prog;
}

/*
 * A probe's end: a true condition jumps to the hit with every register the
 * probe got but its slots as it got them (a tail call: the hit returns to
 * the probe's caller), r11 = its context if it has one; a false one
 * returns.  @cc is the jump's condition on the flags just set, or -1 for
 * an empty stack (false: return).
 */
static void emit_probe_exit(struct jit_ctx *ctx, u8 **pprog, int cc)
{
	int s, saved = probe_saved_at_entry(ctx);
	u8 *prog = *pprog, *fix = NULL;

	if (cc >= 0) {
		emit_jcc8(&prog, cc ^ 1, 0);
		fix = prog - 1;
		if (ctx->probe->save_scratch)
			for (s = saved; s < JIT_PROBE_SLOT_REGS; s++)
				emit_push(&prog, ctx->slot_reg[s]);
		if (ctx->probe->ctx)
			emit_mov_imm(&prog, X86_R11,
				     (u64)(unsigned long)ctx->probe->ctx);
		emit_call_fn(ctx, &prog, ctx->probe->hit, true, X86_RAX);
		patch_rel8(fix, prog);
	}
	/*
	 * False: drop what the entry saved.  Nothing is put back: the
	 * function's code reads neither the flags nor these registers at its
	 * entry (rax's al counts vector registers for varargs, and the
	 * kernel passes none).
	 */
	if (ctx->probe->save_scratch)
		emit_lea(&prog, X86_RSP, X86_RSP, 8 * (saved + 1));
	if (ctx->probe->pt_regs)
		emit_mov_imm(&prog, X86_RAX, 0);	/* a handler returns 0 */
	emit_epilogue(ctx, &prog);
	*pprog = prog;
}

static void emit_end(struct jit_ctx *ctx, u8 **pprog,
		     const struct jit_insn *in)
{
	int r;

	if (ctx->probe) {
		if (in->depth) {
			r = ctx->slot_reg[in->depth - 1];
			emit_test_rr(pprog, r, r);
		}
		emit_probe_exit(ctx, pprog, in->depth ? JCC_NE : -1);
		return;
	}
	if (in->depth == 0) {
		emit_mov_imm(pprog, X86_RAX, 0);
	} else {
		r = get_slot(ctx, pprog, in->depth - 1, X86_RAX);
		emit_mov_rr(pprog, X86_RAX, r);
	}
	emit_epilogue(ctx, pprog);
}

/*
 * A taken backward jump from insn i to t costs i - t + 1 steps (ax.h):
 *
 *   cmp dword [env + steps], span; jb budget_error
 *   sub dword [env + steps], span; jmp target
 */
static void emit_back_jump(struct jit_ctx *ctx, u8 **pprog,
			   const struct jit_insn *in, u32 i)
{
	s32 span = i - in->target + 1;

	emit_alu_mi32(pprog, X86_CMP, ctx->env, ENV_OFF(steps), span);
	emit_error_if(ctx, pprog, JCC_B, AX_ERR_BUDGET, in);
	emit_alu_mi32(pprog, X86_SUB, ctx->env, ENV_OFF(steps), span);
	emit_jump_insn(ctx, pprog, -1, in->target);
}

/*
 * A direct load (jit_bind_direct): the host vouched that the address stays
 * mapped, so no nofault copy and no call.  What ax_hook_read() would still
 * refuse, it refuses too: a hit past its fault budget (ax.h) reads nothing,
 * so
 *
 *   cmp dword [env + faults], AX_HIT_FAULTS_MAX; jae mem_error
 *   mov/movsx/movzx slot, [addr]      (disp32, or through rcx)
 */
static void emit_direct_load(struct jit_ctx *ctx, u8 **pprog,
			     const struct jit_insn *in)
{
	int r = dst_slot(ctx, in->depth, X86_RCX), size = in->ext / 8;
	bool sx = in->flags & JF_SX;

	emit_alu_mi32(pprog, X86_CMP, ctx->env, ENV_OFF(faults),
		      AX_HIT_FAULTS_MAX);
	emit_error_if(ctx, pprog, JCC_AE, AX_ERR_MEM, in);
	if (is_simm32((s64)in->imm)) {
		emit_load_abs(pprog, size, sx, r, (s32)in->imm);
	} else {
		emit_mov_imm(pprog, X86_RCX, in->imm);
		emit_load(pprog, size, sx, r, X86_RCX, 0);
	}
	if (!slot_in_reg(ctx, in->depth))
		put_slot(ctx, pprog, in->depth, r);
}

static void emit_const(struct jit_ctx *ctx, u8 **pprog,
		       const struct jit_insn *in)
{
	int l = dst_slot(ctx, in->depth, X86_RCX);

	emit_mov_imm(pprog, l, in->imm);
	if (!slot_in_reg(ctx, in->depth))
		put_slot(ctx, pprog, in->depth, l);
}

/* The first live insn at or after @i, or ir->n. */
static u32 live_from(const struct jit_ir *ir, u32 i)
{
	while (i < ir->n && ir->insn[i].op == JIT_NOP)
		i++;
	return i;
}

/*
 * A forward goto to 'end' or to 'const; end' (gdb's join after '&&',
 * '||', '?:') is emitted as that return itself, as compilers duplicate
 * small tails: a forward jump charges no steps and these two insns have no
 * side effect and no error, so running a copy of them is the same.
 */
static bool emit_tail_copy(struct jit_ctx *ctx, u8 **pprog, u32 t)
{
	const struct jit_ir *ir = ctx->ir;
	u32 a = live_from(ir, t), b;

	if (a < ir->n && ir->insn[a].op == AX_END) {
		emit_end(ctx, pprog, &ir->insn[a]);
		return true;
	}
	if (a >= ir->n || ir->insn[a].op != AX_CONST64)
		return false;
	b = live_from(ir, a + 1);
	if (b >= ir->n || ir->insn[b].op != AX_END)
		return false;
	emit_const(ctx, pprog, &ir->insn[a]);
	emit_end(ctx, pprog, &ir->insn[b]);
	return true;
}

/*
 * 'reg N' loaded sign-extended from 32 bits (an int argument) and popped
 * right away by a compare with an immediate: compare the pt_regs field in
 * place, 'cmp dword [regs + off], imm', as compilers do.  The same result
 * for every condition: sign extension from 32 to 64 bits is one-to-one and
 * keeps both the signed and the unsigned order, and an s32 immediate is
 * the sign extension of its own low 32 bits.  (Not for 'x < 0', which is
 * a load and a shift, nor for a test against a mask.)
 */
static bool cmp_takes_load(const struct jit_ir *ir, u32 i)
{
	const struct jit_insn *in = &ir->insn[i], *pv;
	int p;

	if ((in->op != JIT_CMP && in->op != JIT_CMP_JCC) ||
	    in->src != JSRC_IMM || (in->flags & JF_TEST) ||
	    !is_simm32((s64)in->imm))
		return false;
	if (in->op == JIT_CMP && in->imm == 0 && in->cc == JCC_L)
		return false;
	p = jit_prev(ir, i);
	if (p < 0)
		return false;
	pv = &ir->insn[p];
	return pv->op == AX_REG && (pv->flags & JF_SX) && pv->ext == 32 &&
	       pv->imm != (u32)-1 && pv->depth + 1 == in->depth;
}

static void emit_compare_load(struct jit_ctx *ctx, u8 **pprog, u32 i)
{
	const struct jit_insn *in = &ctx->ir->insn[i];
	const struct jit_insn *pv = &ctx->ir->insn[jit_prev(ctx->ir, i)];

	if (regs_in_place(ctx))
		emit_alu_ri32(pprog, X86_CMP, probe_reg(pv->imm),
			      (s32)in->imm);
	else
		emit_alu_mi32(pprog, X86_CMP, ctx->regs, (s32)pv->imm,
			      (s32)in->imm);
}

/*
 * A probe's compare whose value is the condition ('compare; end'): jump
 * to the hit on the compare's own flags, no setcc.  The 'end' is emitted
 * only when a jump lands on it.
 */
static bool probe_cmp_ends(const struct jit_ctx *ctx, u32 i)
{
	u32 e = live_from(ctx->ir, i + 1);

	return ctx->probe && ctx->ir->insn[i].op == JIT_CMP &&
	       e < ctx->ir->n && ctx->ir->insn[e].op == AX_END;
}

/* One IR insn.  Returns 0 or -errno (ctx->err for stubs overflow). */
static int do_insn(struct jit_ctx *ctx, u8 **pprog, u32 i)
{
	const struct jit_insn *in = &ctx->ir->insn[i];
	u8 *fix;
	int l;

	switch (in->op) {
	case JIT_NOP:
	case AX_POP:
		break;
	case AX_CONST64:
		emit_const(ctx, pprog, in);
		break;
	case AX_REG:
		l = jit_next(ctx->ir, i);
		if (l >= 0 && cmp_takes_load(ctx->ir, l))
			break;	/* the compare reads the field itself */
		emit_reg(ctx, pprog, in);
		break;
	case AX_ADD: case AX_SUB: case AX_MUL:
	case AX_BIT_AND: case AX_BIT_OR: case AX_BIT_XOR:
		emit_alu_op(ctx, pprog, in);
		break;
	case AX_LSH: case AX_RSH_SIGNED: case AX_RSH_UNSIGNED:
		emit_shift(ctx, pprog, in);
		break;
	case AX_DIV_SIGNED: case AX_DIV_UNSIGNED:
	case AX_REM_SIGNED: case AX_REM_UNSIGNED:
		emit_divrem(ctx, pprog, in);
		break;
	case AX_BIT_NOT:
		l = get_slot(ctx, pprog, in->depth - 1, X86_RDX);
		emit_not(pprog, l);
		if (!slot_in_reg(ctx, in->depth - 1))
			put_slot(ctx, pprog, in->depth - 1, l);
		break;
	case AX_EXT: case AX_ZERO_EXT:
		emit_ext(ctx, pprog, in);
		break;
	case JIT_CMP:
		if (probe_cmp_ends(ctx, i)) {
			if (cmp_takes_load(ctx->ir, i))
				emit_compare_load(ctx, pprog, i);
			else
				emit_compare(ctx, pprog, in, &l);
			emit_probe_exit(ctx, pprog, in->cc);
			break;
		}
		if (in->src == JSRC_IMM && in->imm == 0 && in->cc == JCC_L &&
		    !(in->flags & JF_TEST)) {
			/* x < 0 is x's sign bit: shr x, 63 (of 32: shr x32, 31) */
			l = get_slot(ctx, pprog, lhs_slot(in), X86_RDX);
			if (in->flags & JF_CMP32)
				emit_shift_imm32(pprog, X86_SHR, l, 31);
			else
				emit_shift_imm(pprog, X86_SHR, l, 63);
		} else if (cmp_takes_load(ctx->ir, i)) {
			emit_compare_load(ctx, pprog, i);
			l = dst_slot(ctx, lhs_slot(in), X86_RDX);
			emit_setcc_zx(pprog, in->cc, l);
		} else {
			emit_compare(ctx, pprog, in, &l);
			emit_setcc_zx(pprog, in->cc, l);
		}
		if (!slot_in_reg(ctx, lhs_slot(in)))
			put_slot(ctx, pprog, lhs_slot(in), l);
		break;
	case JIT_CMP_JCC:
		if (cmp_takes_load(ctx->ir, i))
			emit_compare_load(ctx, pprog, i);
		else
			emit_compare(ctx, pprog, in, &l);
		if (in->target > i) {
			emit_jump_insn(ctx, pprog, in->cc, in->target);
			break;
		}
		/* backward: jn<cc> 1f; <budget>; jmp target; 1: */
		emit_jcc8(pprog, in->cc ^ 1, 0);
		fix = *pprog - 1;
		emit_back_jump(ctx, pprog, in, i);
		patch_rel8(fix, *pprog);
		break;
	case AX_GOTO:
		if (in->target > i && emit_tail_copy(ctx, pprog, in->target))
			break;
		if (in->target > i)
			emit_jump_insn(ctx, pprog, -1, in->target);
		else
			emit_back_jump(ctx, pprog, in, i);
		break;
	case AX_END:
		l = jit_prev(ctx->ir, i);	/* -1 when a jump lands here */
		if (l >= 0 && probe_cmp_ends(ctx, l))
			break;	/* only the compare before it reaches it */
		emit_end(ctx, pprog, in);
		break;
	case AX_DUP: case AX_PICK: case AX_SWAP: case AX_ROT:
		emit_stack_op(ctx, pprog, in);
		break;
	case AX_REF8: case AX_REF16: case AX_REF32: case AX_REF64:
	case AX_TRACE: case AX_TRACE_QUICK: case AX_TRACENZ:
	case AX_GETV: case AX_SETV: case AX_TRACEV:
		emit_hook(ctx, pprog, in);
		break;
	case JIT_LOAD:
		emit_direct_load(ctx, pprog, in);
		break;
	default:
		return -EINVAL;
	}
	return ctx->err;
}

/*
 * Error stub: env->err = code; env->err_pc = pc; return 0.
 * Interp stub (reached before the prologue pushed anything):
 * return ax_interp(prog, env).
 */
static void do_stub(struct jit_ctx *ctx, u8 **pprog, const struct jit_stub *st)
{
	if (st->kind == STUB_INTERP) {
		emit_mov_rr(pprog, X86_RSI, X86_RDI);
		emit_mov_imm(pprog, X86_RDI,
			     (u64)(unsigned long)ctx->ir->prog);
		emit_call_fn(ctx, pprog, (void *)ax_interp, true, X86_RAX);
		return;
	}
	if (st->kind == STUB_ENTRY)
		emit_alu_mi32(pprog, X86_ADD, ctx->env, ENV_OFF(steps),
			      ctx->ir->n);
	emit_store_imm(pprog, 4, ctx->env, ENV_OFF(err),
		       st->kind == STUB_ENTRY ? AX_ERR_BUDGET : st->code);
	emit_store_imm(pprog, 8, ctx->env, ENV_OFF(err_pc), st->pc);
	emit_mov_imm(pprog, X86_RAX, 0);
	emit_epilogue(ctx, pprog);
}

/* Copy one unit out of temp[] (or just count it). */
static int flush_unit(struct jit_ctx *ctx, u8 *prog, u32 *pos)
{
	u32 len = prog - ctx->temp;

	if (len > JIT_MAX_INSN)
		return -EFAULT;
	if (ctx->out && *pos + len > ctx->out_size)
		return -EFAULT;	/* cannot happen: pass 0 is the longest */
	if (ctx->out)
		memcpy(ctx->out + *pos, ctx->temp, len);
	*pos += len;
	return 0;
}

/* One full emission of the program; returns its size or -errno. */
static int do_pass(struct jit_ctx *ctx)
{
	const struct jit_ir *ir = ctx->ir;
	u32 pos = 0, i, k;
	u8 *prog;
	int err;

	ctx->nstubs = 0;
	ctx->unit_prev = 0;
	prog = ctx->temp;
	emit_prologue(ctx, &prog);
	err = ctx->err ?: flush_unit(ctx, prog, &pos);
	if (err)
		return err;

	for (i = 0; i < ir->n; i++) {
		ctx->addrs[i] = pos;
		ctx->unit_prev = ctx->prev_addrs ? ctx->prev_addrs[i] : pos;
		prog = ctx->temp;
		err = do_insn(ctx, &prog, i);
		if (!err)
			err = flush_unit(ctx, prog, &pos);
		if (err)
			return err;
	}
	for (k = 0; k < ctx->nstubs; k++) {
		ctx->stub_addrs[k] = pos;
		ctx->unit_prev = ctx->prev_stub_addrs ?
				 ctx->prev_stub_addrs[k] : pos;
		prog = ctx->temp;
		do_stub(ctx, &prog, &ctx->stubs[k]);
		err = ctx->err ?: flush_unit(ctx, prog, &pos);
		if (err)
			return err;
	}
	return pos;
}

static bool same_layout(const struct jit_ctx *ctx)
{
	return !memcmp(ctx->addrs, ctx->prev_addrs,
		       sizeof(u32) * ctx->ir->n) &&
	       !memcmp(ctx->stub_addrs, ctx->prev_stub_addrs,
		       sizeof(u32) * ctx->nstubs);
}

static bool uses_regs(const struct jit_ir *ir)
{
	u32 i;

	if (ir->has_reg && ir->prog)
		return true;	/* the env->regs == NULL check is needed */

	for (i = 0; i < ir->n; i++) {
		const struct jit_insn *in = &ir->insn[i];

		if (in->op == AX_REG && in->imm != (u32)-1)
			return true;
		if (jit_is_binop(in->op) && in->src == JSRC_REGS)
			return true;
	}
	return false;
}

/*
 * What a probe compiles: straight-line or forward-branching code over
 * registers it can read (probe_reads()) and constants, in its three slot
 * registers, that can fail in nothing (no hook, no memory, no division,
 * no loop, so no charge either: AX_STEP_BUDGET steps cover every insn
 * once), and that needs no scratch register (rcx and rdx are arguments):
 * no shift by a variable count, no rot.
 */
static bool probe_ok(const struct jit_ir *ir, bool pt_regs)
{
	u32 i;

	if (ir->backjump || ir->max_depth > JIT_PROBE_SLOT_REGS ||
	    ir->n > AX_STEP_BUDGET)
		return false;
	for (i = 0; i < ir->n; i++) {
		const struct jit_insn *in = &ir->insn[i];

		switch (in->op) {
		case JIT_NOP: case AX_POP: case AX_CONST64: case AX_END:
		case AX_DUP: case AX_PICK: case AX_SWAP: case AX_BIT_NOT:
		case AX_EXT: case AX_ZERO_EXT: case AX_GOTO:
			break;
		case AX_REG:
			if (!probe_reads(pt_regs, in->imm))
				return false;
			break;
		case AX_LSH: case AX_RSH_SIGNED: case AX_RSH_UNSIGNED:
			if (in->src != JSRC_IMM)
				return false;
			break;
		case AX_ADD: case AX_SUB: case AX_MUL:
		case AX_BIT_AND: case AX_BIT_OR: case AX_BIT_XOR:
		case JIT_CMP: case JIT_CMP_JCC:
			if (in->src == JSRC_REGS &&
			    !probe_reads(pt_regs, in->imm))
				return false;
			break;
		default:
			return false;
		}
	}
	return true;
}

static void setup_frame(struct jit_ctx *ctx, const struct jit_ir *ir)
{
	ctx->ir = ir;
	if (ctx->probe) {
		ctx->slot_reg = jit_probe_slot_reg;
		ctx->nslot_regs = JIT_PROBE_SLOT_REGS;
		ctx->regs = X86_RSI;	/* a pt_regs probe's regs argument */
		return;	/* no frame, no env, registers in place */
	}
	ctx->slot_reg = jit_slot_reg;
	ctx->nslot_regs = JIT_NR_SLOT_REGS;
	ctx->framed = jit_has_calls(ir) || ir->max_depth > JIT_NR_SLOT_REGS;
	ctx->uses_regs = uses_regs(ir);
	ctx->env = ctx->framed ? X86_RBX : X86_RDI;
	ctx->regs = ctx->framed ? X86_RBP : X86_R11;
	/* entry rsp = 8 mod 16; two pushes keep that; F = 8 mod 16 aligns */
	ctx->scratch = 8 * ir->max_depth;
	ctx->frame = ((ctx->scratch + 8 + 15) & ~15) + 8;
}

/**
 * jit_codegen - emit @ir for freshly allocated executable memory
 * @ir:  optimized IR
 * @probe: NULL for an image (u64 fn(struct ax_env *)); else compile @ir
 *       as a probe that jumps to probe->hit when it holds (probe_ok())
 * @out: on success: the bytes in @out->code (gtp_vzalloc'ed, the caller
 *       installs them with gtp_host->exec_install() and frees them), laid out
 *       to run at @out->image (allocated, not yet written), its allocated
 *       size in @out->alloc and the code size in @out->size
 * @log:  a one-line reason on failure
 * @logsz: bytes at @log
 *
 * Return: 0, -EINVAL (an op the JIT cannot compile, or a probe that
 * cannot decide @ir alone), -ENOMEM, or -EFAULT (layout did not converge,
 * an insn overflowed: a JIT bug).
 */
int jit_codegen(const struct jit_ir *ir, const struct jit_probe_target *probe,
		struct jit_image *out, char *log, size_t logsz)
{
	struct jit_ctx *ctx;
	u32 n = ir->n, max_stubs = 2 * ir->n + 4;
	int size, prev_size, pass, err = -ENOMEM;
	u32 *arrays;

	memset(out, 0, sizeof(*out));
	if (probe && !probe_ok(ir, probe->pt_regs)) {
		scnprintf(log, logsz, "jit: not a condition a probe can decide alone");
		return -EINVAL;
	}
	ctx = gtp_zalloc(sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	arrays = gtp_vzalloc(sizeof(u32) * 2 * (n + max_stubs));
	ctx->stubs = gtp_vzalloc(sizeof(*ctx->stubs) * max_stubs);
	if (!arrays || !ctx->stubs)
		goto out_free;
	ctx->max_stubs = max_stubs;
	ctx->ret_thunk = gtp_host->exec_return_thunk();
	ctx->call_depth = gtp_host->exec_call_depth(&ctx->call_depth_var);
	ctx->endbr = gtp_host->exec_want_endbr();
	ctx->probe = probe;
	setup_frame(ctx, ir);

	/* pass 0: everything long, nothing written: an upper bound */
	ctx->addrs = arrays;
	ctx->stub_addrs = arrays + n;
	size = do_pass(ctx);
	if (size < 0) {
		err = size;
		scnprintf(log, logsz, "jit: cannot compile (error %d)", err);
		goto out_free;
	}
	out->alloc = size;
	out->image = gtp_host->exec_alloc(size);
	out->code = gtp_vzalloc(size);
	if (!out->image || !out->code) {
		scnprintf(log, logsz, "jit: out of memory for %d bytes", size);
		goto out_free_image;
	}
	ctx->image = out->image;
	ctx->image_size = size;

	for (pass = 1; pass <= JIT_MAX_PASSES; pass++) {
		u32 *t;

		/* this pass's addrs become 'prev'; write into the other half */
		ctx->prev_addrs = ctx->addrs;
		ctx->prev_stub_addrs = ctx->stub_addrs;
		t = ctx->addrs == arrays ? arrays + n + max_stubs : arrays;
		ctx->addrs = t;
		ctx->stub_addrs = t + n;
		ctx->out = out->code;
		ctx->out_size = out->alloc;
		prev_size = size;
		size = do_pass(ctx);
		/*
		 * Pass 0 had every branch and call in its longest form, so no
		 * pass can outgrow out->code; a pass may still grow a little
		 * over the previous one (a backward branch judged short from a
		 * shrinking unit), which the next pass corrects.
		 */
		if (size == -ERANGE) {
			err = size;
			scnprintf(log, logsz, "jit: image out of rel32 reach of what it calls: no indirect branch on this kernel");
			goto out_free_image;
		}
		if (size < 0 || size > out->alloc) {
			err = size < 0 ? size : -EFAULT;
			scnprintf(log, logsz, "jit: internal error %d in pass %d",
				  err, pass);
			goto out_free_image;
		}
		/*
		 * Done when no insn moved, not merely when the total agrees:
		 * one branch growing while another shrinks keeps the size and
		 * shifts every target between them (CVE-2021-29154's class).
		 */
		if (size == prev_size && same_layout(ctx))
			break;
	}
	if (pass > JIT_MAX_PASSES) {
		err = -EFAULT;
		scnprintf(log, logsz, "jit: layout did not converge");
		goto out_free_image;
	}
	/* out->code is installed into out->image by the caller */
	out->size = size;
	gtp_vfree(ctx->stubs);
	gtp_vfree(arrays);
	gtp_free(ctx);
	return 0;

out_free_image:
	if (out->image)
		gtp_host->exec_free(out->image, out->alloc);
	gtp_vfree(out->code);
	memset(out, 0, sizeof(*out));
out_free:
	gtp_vfree(ctx->stubs);
	gtp_vfree(arrays);
	gtp_free(ctx);
	return err;
}
