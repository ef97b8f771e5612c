// SPDX-License-Identifier: GPL-2.0
/*
 * collect.c - a hit's stages 3 and 4 (collect.h): what a hit stage 2 did
 * not end does, read top down: the entry points, the late condition, the
 * frame, the commit.
 *
 * Runs in probe context (kprobe pre-handler: preemption off, maybe IRQs
 * off, maybe NMI): no sleeping, no allocation, every read of kernel memory
 * nofault.  When the actions fix a frame's size (registers, expressions
 * that record nothing: tp->frame_len) it is built in place in the frame
 * store, between one reserve and its commit.  Otherwise the size is known
 * only after the actions ran: the frame is built in a per-CPU scratch
 * buffer, then copied into the store.
 *
 * Frame layout (gdb's trace file format, protocol reference 6.3):
 *
 *	int16 tpnum | u32 size | 'R' regs[164] | 'M' u64 addr u16 len bytes
 *	| 'V' s32 tsv s64 value | ...
 *
 * An R action naming few registers writes an 'r' block instead (regs.h):
 * 'r' u32 mask, then only those registers, rip always among them.
 * Readers serve it to gdb as an 'R' block (traceframe.c).
 *
 * A tracepoint whose actions only feed aggregating variables (tp->agg_only,
 * plan.c) runs them and writes no frame.
 *
 * Unreadable memory is left out of the M blocks (gdb then shows it as
 * <unavailable>); a condition that fails to evaluate is false and counted.
 *
 * Which functions are out of line is decided by cost, not by stage: the
 * lean path and the environment of a hit with actions are noinline so
 * that each keeps its own stack frame (and stack canary) off the others'.
 */
#include "collect.h"
#include "run.h"
#include "static_data.h"

/* The stages below, in the order a hit reaches them. */
static bool hit_undecided(struct gtp_tp *tp, struct pt_regs *regs,
			  u8 *scratch, u32 cap, const struct ax_env *pre);
static bool hit_held(struct gtp_tp *tp, struct pt_regs *regs, u8 *scratch,
		     u32 cap, const struct ax_env *pre);
static bool hit_held_actions(struct gtp_tp *tp, struct pt_regs *regs,
			     u8 *scratch, u32 cap, const struct ax_env *pre);
static __always_inline bool tp_collect(struct gtp_tp *tp,
					struct ax_env *env, u8 *scratch,
					u32 cap);
static bool tp_collect_lean(struct gtp_tp *tp, struct pt_regs *regs);
static void run_action(struct gtp_tp *tp, const struct gtp_action *a,
		       struct ax_env *env, struct gtp_fbuild *fb);
static __always_inline bool frame_commit(struct gtp_tp *tp,
					 struct gtp_fbuild *fb,
					 struct gtp_frame_slot *slot, u32 len,
					 u8 *dst, int err, long hits);
static bool store_frame(struct gtp_tp *tp, struct gtp_fbuild *fb);
static void store_failed(struct gtp_tp *tp, int err);
static __always_inline void put_frame_hdr(const struct gtp_tp *tp, u8 *buf,
					  u32 len);
static inline void pass_count_check(struct gtp_tp *tp, long hits);
static void note_error(struct gtp_tp *tp, struct ax_env *env);

/* ---- Entry points ---- */

/**
 * gtp_tp_hit - tracepoint @tp was hit with registers @regs
 * @tp:		the tracepoint
 * @regs:	the registers at the hit
 * @scratch:	this CPU's scratch area for building a frame
 * @cap:	bytes at @scratch
 *
 * Context: probe context.  The four stages in one call, as a backend
 * runs them in two (gtp_hit_begin(), gtp_hit_finish()).
 *
 * Return: true when a frame was collected.
 */
bool gtp_tp_hit(struct gtp_tp *tp, struct pt_regs *regs, u8 *scratch,
		u32 cap)
{
	struct ax_env env = { 0 };
	enum gtp_precheck pre = gtp_hit_begin(tp, regs, &env, false);

	if (pre == GTP_PRE_FALSE)
		return false;
	return gtp_hit_finish(tp, regs, scratch, cap, &env, pre);
}

/* Stage 2 of a hit the CPU budget times: a false one is accounted here. */
enum gtp_precheck gtp_tp_precheck_timed(struct gtp_tp *tp,
					struct pt_regs *regs,
					struct ax_env *env, u64 t0)
{
	enum gtp_precheck pre;

	env->t0 = t0;
	pre = gtp_tp_precheck_cond(tp, regs, env);
	if (pre == GTP_PRE_FALSE)
		gtp_budget_account(tp, t0);
	return pre;
}

/* Stages 3 and 4 of a held hit, then its time if the budget times it. */
bool gtp_tp_hit_held(struct gtp_tp *tp, struct pt_regs *regs, u8 *scratch,
		     u32 cap, const struct ax_env *pre)
{
	bool ret = hit_held(tp, regs, scratch, cap, pre);

	if (unlikely(pre->t0))
		gtp_budget_account(tp, pre->t0);
	return ret;
}

/* The late condition, stages 3 and 4, then the hit's time as above. */
bool gtp_tp_hit_undecided(struct gtp_tp *tp, struct pt_regs *regs,
			  u8 *scratch, u32 cap, const struct ax_env *pre)
{
	bool ret = hit_undecided(tp, regs, scratch, cap, pre);

	if (unlikely(pre->t0))
		gtp_budget_account(tp, pre->t0);
	return ret;
}

/* ---- Stage 2, late: a condition stage 2 left open ---- */

/**
 * hit_undecided - the rest of a hit gtp_tp_precheck() left open
 * @tp:		the tracepoint
 * @regs:	the registers at the hit
 * @scratch:	this CPU's scratch area for building a frame
 * @cap:	bytes at @scratch
 * @pre:	the precheck's environment: the hit's budget so far, and the
 *		error of a pure condition that failed there
 *
 * Context: probe context.  Collects one frame if the trace runs, @tp is
 * enabled and its condition holds; enforces the pass count.  A pure
 * condition is never evaluated twice in one hit: that would give it a
 * second budget.
 *
 * Return: true when a frame was collected.
 */
static bool hit_undecided(struct gtp_tp *tp, struct pt_regs *regs,
			  u8 *scratch, u32 cap, const struct ax_env *pre)
{
	struct ax_env env = { .regs = regs, .tp = tp, .steps = pre->steps,
			      .faults = pre->faults };
	u64 res = 1;

	if (!gtp_trace_running() || !READ_ONCE(tp->enabled))
		return false;
	if (tp->cond_pure) {
		env.err = pre->err;
		env.err_pc = pre->err_pc;
	} else if (tp->cond) {
		res = ax_run_hit(tp->cond, &env);
	}
	if (env.err) {
		note_error(tp, &env);
		return false;
	}
	if (!res)
		return false;
	return tp_collect(tp, &env, scratch, cap);
}

/* ---- Stage 3: the frame ---- */

/* A held hit, unless the run stopped or gdb disabled @tp meanwhile. */
static bool hit_held(struct gtp_tp *tp, struct pt_regs *regs, u8 *scratch,
		     u32 cap, const struct ax_env *pre)
{
	if (!gtp_trace_running() || !READ_ONCE(tp->enabled))
		return false;
	if (tp->lean)
		return tp_collect_lean(tp, regs);
	return hit_held_actions(tp, regs, scratch, cap, pre);
}

/* Out of line: its environment costs a stack canary the lean path avoids. */
static noinline bool hit_held_actions(struct gtp_tp *tp, struct pt_regs *regs,
				      u8 *scratch, u32 cap,
				      const struct ax_env *pre)
{
	struct ax_env env = { .regs = regs, .tp = tp, .steps = pre->steps,
			      .faults = pre->faults };

	return tp_collect(tp, &env, scratch, cap);
}

/*
 * The condition held: run the actions, store one frame (none when they
 * only feed aggregating variables: tp->agg_only).  A frame whose
 * size the actions fix (tp->frame_len) is built in place in the store,
 * saving the copy out of scratch; should the store refuse it, the actions
 * still run (into scratch) for their side effects and errors, as they do
 * for any frame the store refuses.
 */
static __always_inline bool tp_collect(struct gtp_tp *tp,
					struct ax_env *env, u8 *scratch,
					u32 cap)
{
	struct gtp_fbuild fb = { .buf = scratch, .cap = cap, .env = env };
	struct gtp_frame_slot slot __gtp_noinit;
	u32 len = tp->frame_len;
	u8 *dst = NULL;
	int err = 0;
	long hits;
	u32 i;

	if (tp->lean)
		return tp_collect_lean(tp, env->regs);
	hits = atomic_long_add_return(1, &tp->hits);
	if (len && !tp->agg_only) {
		dst = gtp_frame_reserve(&slot, len);
		if (dst) {
			fb.buf = dst;
			fb.cap = len;
		} else {
			err = slot.err;
		}
	}
	fb.len = GTP_FRAME_HDR;
	for (i = 0; i < tp->nactions; i++) {
		run_action(tp, &tp->actions[i], env, &fb);
		/*
		 * The hit's budget is spent: it ends, keeping what it has.
		 * A frame built in place is whole already: no R action
		 * follows one that can spend it (plan.c).
		 */
		if (unlikely(env->err == AX_ERR_BUDGET))
			break;
	}
	return frame_commit(tp, &fb, &slot, len, dst, err, hits);
}

/*
 * The lean path for a frame that is its header and at most one R block
 * (tp->lean: 'collect $regs', a collect of what lives in registers, or
 * no action at all; the block an 'r' block of the registers the action
 * names, unless it names most: plan.c): stages 3 and 4 in one, written
 * straight into the store, no scratch, no action loop, no environment,
 * and no call inside.  Itself out of line: inlined, its slot would cost
 * every other hit a stack canary and a heavier prologue.
 */
/*
 * The pc a frame's registers show: the location's address, which an int3
 * or a call has left the ip past; but a watch's hit is in the code that
 * accessed the data, and the debug trap's ip is what names it (the
 * instruction after the access).
 */
static __always_inline u64 frame_pc(const struct gtp_tp *tp,
				    const struct pt_regs *regs)
{
	return unlikely(tp->watch_len) ? regs->ip : tp->addr;
}

static noinline bool tp_collect_lean(struct gtp_tp *tp, struct pt_regs *regs)
{
	struct gtp_frame_slot slot __gtp_noinit;
	u32 len = tp->frame_len;
	long hits = atomic_long_add_return(1, &tp->hits);
	bool stored = false;
	u8 *dst;

	dst = gtp_frame_reserve(&slot, len);
	if (likely(dst)) {
		if (len == GTP_FRAME_HDR) {
			put_frame_hdr(tp, dst, len);
		} else if (tp->rsub.mask) {
			/* header, 'r', mask: planned (the rest values) */
			memcpy(dst, tp->lean_head, 16);
			gtp_rsub_put_vals(regs, frame_pc(tp, regs), &tp->rsub,
					  dst + GTP_FRAME_HDR + GTP_RSUB_HDR);
		} else {
			put_frame_hdr(tp, dst, len);
			dst[GTP_FRAME_HDR] = 'R';
			gtp_regs_to_g(regs, frame_pc(tp, regs),
				      dst + GTP_FRAME_HDR + 1);
		}
		gtp_frame_commit(&slot);
		atomic_long_add(len, &tp->usage);
		stored = true;
	} else {
		store_failed(tp, slot.err);
	}
	pass_count_check(tp, hits);
	return stored;
}

/* One action's blocks into the frame @fb builds. */
static void run_action(struct gtp_tp *tp, const struct gtp_action *a,
		       struct ax_env *env, struct gtp_fbuild *fb)
{
	struct pt_regs *regs = env->regs;
	u8 *b;
	u64 addr;

	switch (a->type) {
	case GTP_ACT_REGS:
		if (a->rsub.mask) {
			b = gtp_fb_room(fb, a->rsub.len);
			if (b)
				gtp_regs_to_rsub(regs, frame_pc(tp, regs),
						 &a->rsub, b);
			break;
		}
		b = gtp_fb_room(fb, 1 + GTP_G_SIZE);
		if (b) {
			b[0] = 'R';
			gtp_regs_to_g(regs, frame_pc(tp, regs), b + 1);
		}
		break;
	case GTP_ACT_MEM:
		addr = a->offset;
		if (a->basereg >= 0)
			addr += gtp_reg_value(regs, a->basereg);
		gtp_fb_trace(fb, addr, min_t(u64, a->len, 0xffffffffu), false);
		break;
	case GTP_ACT_EXPR:
		if (a->noop)
			break;
		env->frame = fb;
		ax_run_hit(a->prog, env);
		if (env->err)
			note_error(tp, env);
		break;
	case GTP_ACT_SDATA:
		/* Only a static tracepoint's regs carry $_sdata. */
		if (tp->is_static)
			gtp_fb_sdata(fb, regs);
		break;
	}
}

/* ---- Stage 4: the commit ---- */

/*
 * The frame the actions built, into the store: it is there already when
 * built in place (@dst, @len bytes, unless the store refused it: @err),
 * or copied
 * out of scratch; none when the actions only feed variables.  Then the
 * pass count.
 */
static __always_inline bool frame_commit(struct gtp_tp *tp,
					 struct gtp_fbuild *fb,
					 struct gtp_frame_slot *slot, u32 len,
					 u8 *dst, int err, long hits)
{
	bool stored = false;

	if (tp->agg_only) {
		stored = false;	/* its effect is in the variables alone */
	} else if (!len) {
		stored = store_frame(tp, fb);
	} else if (dst) {
		put_frame_hdr(tp, dst, len);
		gtp_frame_commit(slot);
		atomic_long_add(len, &tp->usage);
		stored = true;
	} else {
		store_failed(tp, err);
	}
	pass_count_check(tp, hits);
	return stored;
}

/* Copy the frame built in scratch into the store. */
static bool store_frame(struct gtp_tp *tp, struct gtp_fbuild *fb)
{
	struct gtp_frame_slot slot __gtp_noinit;
	u8 *dst;

	put_frame_hdr(tp, fb->buf, fb->len);
	dst = gtp_frame_reserve(&slot, fb->len);
	if (!dst) {
		store_failed(tp, slot.err);
		return false;
	}
	memcpy(dst, fb->buf, fb->len);
	gtp_frame_commit(&slot);
	atomic_long_add(fb->len, &tp->usage);
	return true;
}

/*
 * No room for a frame (@err from gtp_frame_reserve()): stop the trace if
 * the store is full.  A frame the store can never hold (larger than a
 * sub-buffer: QTStart refuses the ones it can predict) is an error of this
 * tracepoint.
 */
static void store_failed(struct gtp_tp *tp, int err)
{
	if (err == -ENOSPC)
		gtp_run_stop(GTP_STOP_FULL, 0);
	if (err == -E2BIG) {
		atomic_long_inc(&tp->errors);
		WRITE_ONCE(tp->last_err, AX_ERR_TRACE);
	}
}

static __always_inline void put_frame_hdr(const struct gtp_tp *tp, u8 *buf,
					  u32 len)
{
	s16 num = tp->num;
	u32 size = len - GTP_FRAME_HDR;

	memcpy(buf, &num, 2);
	memcpy(buf + 2, &size, 4);
}

/* The hit that reaches the pass count stops the trace (gdb's "passcount"). */
static inline void pass_count_check(struct gtp_tp *tp, long hits)
{
	if (tp->pass && hits >= tp->pass)
		gtp_run_stop(GTP_STOP_PASSCOUNT, tp->num);
}

static void note_error(struct gtp_tp *tp, struct ax_env *env)
{
	atomic_long_inc(&tp->errors);
	WRITE_ONCE(tp->last_err, env->err);
}
