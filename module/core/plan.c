// SPDX-License-Identifier: GPL-2.0
/*
 * plan.c - what a tracepoint's hits will have to do, decided once when its
 * actions are defined (QTDP) or the run starts (QTStart), never at a hit:
 * which expressions the hit path may skip, whether a condition is pure
 * (probes run it first), the exact frame size when the actions fix it,
 * the least size a frame can take, whether a hit needs a frame at all;
 * and, at QTStart, what each program's variable numbers stand for (its
 * bound facts, gtp_tps_bind()).  collect.c reads the results from the
 * tracepoint (tp->frame_len, tp->lean, tp->agg_only, tp->actions[].noop).
 */
#include "plan.h"
#include "frame.h"
#include "fbuild.h"
#include "tsv.h"
#include "entryval.h"

/* Does running @prog leave the frame as it was? */
static bool prog_records_nothing(const struct ax_prog *prog)
{
	return !prog->facts.records;
}

bool gtp_cond_is_pure(const struct ax_prog *cond)
{
	const struct ax_facts *f = &cond->facts;

	/* trace ops in a condition fail (no frame): an error, counted */
	return !f->sets_tsv && !f->prints && !f->records;
}

/*
 * The 'r' block (regs.h) of an R action of @regmask, or mask 0 when its
 * frame gets an 'R' block: the mask names more than GTP_RSUB_MAX_REGS of
 * the registers pt_regs holds, rip counted, which it always holds.
 */
void gtp_rsub_plan(u64 regmask, struct gtp_rsub *rs)
{
	u32 mask = (regmask & GTP_RSUB_REGS) | (1u << GTP_RSUB_PC);
	u32 i, nregs = 0;

	memset(rs, 0, sizeof(*rs));
	for (i = 0; i < 20; i++)
		nregs += !!(mask & (1u << i));
	if (nregs > GTP_RSUB_MAX_REGS)
		return;
	for (i = 0; i < GTP_RSUB_PC; i++)
		if (mask & (1u << i))
			rs->off[rs->n++] = ax_reg_offset(i);
	rs->mask = mask;
	rs->len = GTP_RSUB_HDR + gtp_rsub_vals_len(mask);
}

/* The bytes an R action adds to a frame: its 'r' block, or an 'R' block. */
static u32 regs_block_len(const struct gtp_action *a)
{
	return a->rsub.mask ? a->rsub.len : 1 + GTP_G_SIZE;
}

u32 gtp_tp_exact_frame_len(const struct gtp_tp *tp)
{
	u32 len = GTP_FRAME_HDR;
	bool may_end = false;
	u32 i;

	for (i = 0; i < tp->nactions; i++) {
		const struct gtp_action *a = &tp->actions[i];

		switch (a->type) {
		case GTP_ACT_REGS:
			/*
			 * An expression before it may end the hit (out of
			 * budget): the frame then stops short of this block.
			 * A frame reserved at the full size would commit
			 * whatever the store held there, another frame's
			 * bytes.
			 */
			if (may_end)
				return 0;
			len += regs_block_len(a);
			break;
		case GTP_ACT_EXPR:
			if (!prog_records_nothing(a->prog))
				return 0;
			/* the hit skips a no-op (tp_collect()): it runs no step */
			may_end |= !a->noop;
			break;
		default:
			/* M: unreadable memory shrinks it; $_sdata varies */
			return 0;
		}
	}
	return len;
}

/*
 * Is @prog straight code (forward jumps if @jumps) on constants and the
 * gdb registers in @regs only, with no memory (a fault is an error), no
 * division (by zero), no hook and no backward jump (a loop may run out of
 * budget)?  Then it can fail in nothing and change nothing but its result.
 */
static bool prog_is_simple(const struct ax_prog *prog, u64 regs, bool jumps)
{
	const struct ax_facts *f = &prog->facts;

	return f->plain && !(f->regs & ~regs) && (jumps || !f->jumps);
}

/*
 * gdb sends such a program for 'collect EXPR' when EXPR lives in
 * registers: the R block it also asks for is what holds the value, the
 * program only computes it and drops it.  Skipped at the hit.
 */
static bool prog_is_noop(const struct ax_prog *prog)
{
	return prog_is_simple(prog, (1ull << AX_NR_GDB_REGS) - 1, false);
}

bool gtp_cond_reads_only(const struct ax_prog *cond, u64 regs)
{
	return prog_is_simple(cond, regs, true);
}

/*
 * A lean frame with an 'r' block starts with 11 bytes no hit changes:
 * tracepoint number, size, 'r', mask.  The hit stores them as two words
 * (16 bytes: the first value overwrites the last 5), not field by field.
 */
static void plan_lean_head(struct gtp_tp *tp)
{
	s16 num = tp->num;
	u32 size = tp->frame_len - GTP_FRAME_HDR;
	u8 *h = tp->lean_head;

	memset(h, 0, sizeof(tp->lean_head));
	if (!tp->lean || !tp->rsub.mask)
		return;
	memcpy(h, &num, 2);
	memcpy(h + 2, &size, 4);
	h[GTP_FRAME_HDR] = GTP_RSUB_BLOCK;
	memcpy(h + GTP_FRAME_HDR + 1, &tp->rsub.mask, 4);
}

void gtp_tp_plan(struct gtp_tp *tp)
{
	u32 i, nregs = 0;
	bool others = false;

	memset(&tp->rsub, 0, sizeof(tp->rsub));
	for (i = 0; i < tp->nactions; i++)
		nregs += tp->actions[i].type == GTP_ACT_REGS;
	for (i = 0; i < tp->nactions; i++) {
		struct gtp_action *a = &tp->actions[i];

		a->noop = a->type == GTP_ACT_EXPR && prog_is_noop(a->prog);
		if (a->type == GTP_ACT_REGS) {
			/*
			 * Several R actions (gdb sends one per location)
			 * keep 'R' blocks: readers take a frame's registers
			 * from its first register block, which then holds
			 * every register (g masks them with tp->regmask).
			 */
			if (nregs == 1)
				gtp_rsub_plan(a->regmask, &a->rsub);
			else
				memset(&a->rsub, 0, sizeof(a->rsub));
			/* the lean path's copy: no walk to the action */
			tp->rsub = a->rsub;
		} else if (!a->noop) {
			others = true;
		}
	}
	tp->frame_len = gtp_tp_exact_frame_len(tp);
	tp->lean = nregs <= 1 && !others && tp->frame_len;
	plan_lean_head(tp);
}

/*
 * A frame would say only that @tp was hit when every action is an
 * expression that records nothing: if they all feed aggregating variables
 * (and set no other), the hit's effect is in those tables and a frame is
 * not written at all (hits are still counted, the pass count holds).  The
 * mark of a return probe ("teval $kret = 0") has no effect at a hit, so
 * it does not stop a return probe from feeding only aggregates.
 */
static bool tp_feeds_aggs_only(const struct gtp_tp *tp)
{
	bool any = false;
	u32 i;

	if (tp->step)
		return false;
	for (i = 0; i < tp->nactions; i++) {
		const struct gtp_action *a = &tp->actions[i];

		if (a->type != GTP_ACT_EXPR)
			return false;
		if (a->noop)
			continue;
		if (!prog_records_nothing(a->prog))
			return false;
		if (gtp_prog_marks_only(a->prog))
			continue;
		if (!gtp_prog_feeds_aggs_only(a->prog))
			return false;
		any = true;
	}
	return any;
}

/*
 * gdb compiles a rewritten entry value to "const K; trace_quick 8; ref64"
 * (or "const K; ref64" in a condition): a constant in the range that the
 * next insn reads or records.  Insn @i is such a constant.
 */
static bool const_reads_entry(const struct ax_prog *prog, u32 i)
{
	u8 next;

	if (i + 1 >= prog->ninsns || !gtp_ev_addr(prog->insns[i].imm))
		return false;
	next = prog->insns[i + 1].op;
	return next == AX_TRACE_QUICK || next == AX_TRACE16 ||
	       (next >= AX_REF8 && next <= AX_REF64);
}

/* @prog's bound facts (ax.h), in one pass over its insns, into @all too. */
static void prog_bind(struct ax_prog *prog, struct ax_bound *all)
{
	struct ax_bound *b = &prog->bound;
	u32 i;

	memset(b, 0, sizeof(*b));
	for (i = 0; i < prog->ninsns; i++) {
		const struct ax_insn *in = &prog->insns[i];

		if (in->op == AX_SETV)
			b->sets |= gtp_tsv_sets_bit(in->imm);
		if (in->op == AX_SETV || in->op == AX_GETV ||
		    in->op == AX_TRACEV)
			b->uses |= gtp_tsv_uses_bit(in->imm);
		else if (in->op >= AX_CONST8 && in->op <= AX_CONST64)
			b->reads_entry |= const_reads_entry(prog, i);
	}
	b->gen = gtp_tsv_gen();
	all->uses |= b->uses;
	all->sets |= b->sets;
	all->reads_entry |= b->reads_entry;
}

struct ax_bound gtp_tps_bind(void)
{
	struct ax_bound all = { .gen = gtp_tsv_gen() };
	struct gtp_tp *tp;
	u32 i;

	for (tp = gtp_tps; tp; tp = tp->next) {
		if (tp->cond)
			prog_bind(tp->cond, &all);
		for (i = 0; i < tp->nactions; i++)
			if (tp->actions[i].type == GTP_ACT_EXPR &&
			    tp->actions[i].prog)
				prog_bind(tp->actions[i].prog, &all);
	}
	return all;
}

void gtp_tps_plan_aggs(void)
{
	struct gtp_tp *tp;

	for (tp = gtp_tps; tp; tp = tp->next)
		tp->agg_only = tp_feeds_aggs_only(tp);
}

/* Frames are u32-sized: any bound past this says "never fits" alike. */
#define FRAME_LEN_CAP	0xffffffffULL

u64 gtp_tp_min_frame_len(const struct gtp_tp *tp)
{
	u64 len = GTP_FRAME_HDR;
	u32 i;

	for (i = 0; i < tp->nactions; i++) {
		const struct gtp_action *a = &tp->actions[i];

		if (a->type == GTP_ACT_REGS)
			len += regs_block_len(a);
		else if (a->type == GTP_ACT_MEM && a->len)
			/*
			 * gtp_fb_trace() splits at 65535 bytes a block.  QTDP
			 * bounds a->len (<= 1 GiB), and the sum saturates, so
			 * it cannot wrap under QTStart's size check.
			 */
			len += min_t(u64, a->len, FRAME_LEN_CAP) +
			       GTP_M_HDR * ((min_t(u64, a->len, FRAME_LEN_CAP) +
					 0xfffe) / 0xffff);
		if (len > FRAME_LEN_CAP)
			return FRAME_LEN_CAP + 1;
	}
	return len;
}
