/* SPDX-License-Identifier: GPL-2.0 */
/*
 * collect.h - a tracepoint's hit, in four stages, the same for every
 * backend (module/probes/hit.h is how a backend enters them):
 *
 *  1. precheck:  is the tracepoint enabled, and is this hit the one in
 *                GTP_BUDGET_EVERY the CPU budget times?  Here, inline.
 *  2. condition: a pure one (tp->cond_pure) is decided here, inline, so
 *                that a false hit, the common one, ends here having
 *                touched nothing else; a JIT-compiled probe may have
 *                decided it already (held).  One with side effects, or
 *                one that failed, is left to collect.c, where a hit that
 *                goes on continues.
 *  3. frame:     the actions into one frame: lean (its header and one
 *                register block, straight into the store), in place (the
 *                actions fix its size) or in the backend's scratch
 *                (collect.c).
 *  4. commit:    the frame into the store, its counts, the pass count,
 *                the budget's time of a timed hit (collect.c).
 *
 * A backend calls gtp_hit_begin() (stages 1 and 2) and, unless that
 * ended the hit, gtp_hit_finish() (stages 3 and 4); collect.c reads in
 * the same order, top down.
 */
#ifndef GTP_COLLECT_H
#define GTP_COLLECT_H

#include "tracepoint.h"
#include "frame.h"
#include "regs.h"
#include "fbuild.h"
#include "plan.h"
#include "budget.h"

#define GTP_SCRATCH_SIZE	(32 * 1024)	/* per-CPU frame build space */

/*
 * What stages 1 and 2 leave: GTP_PRE_FALSE, the hit does nothing at all;
 * GTP_PRE_HELD, the condition held (or there is none); GTP_PRE_UNKNOWN, a
 * condition with side effects (it runs in stage 3's side), or a pure one
 * that failed to evaluate (its error is counted there).  @env: the
 * caller's, private to this CPU and context; it starts the hit's one step
 * budget (ax.h), which the later stages continue, and the CPU budget's
 * sampling (budget.h): a timed hit is accounted for where it ends.
 */
enum gtp_precheck { GTP_PRE_UNKNOWN, GTP_PRE_FALSE, GTP_PRE_HELD };

/* Stage 2 for a hit the budget times (one in GTP_BUDGET_EVERY), out of line. */
enum gtp_precheck gtp_tp_precheck_timed(struct gtp_tp *tp,
					struct pt_regs *regs,
					struct ax_env *env, u64 t0);

/* Stage 2: a pure condition decided now, the others left to stage 3. */
static __always_inline enum gtp_precheck
gtp_tp_precheck_cond(struct gtp_tp *tp, struct pt_regs *regs,
		     struct ax_env *env)
{
	u64 res;

	env->steps = AX_STEP_BUDGET;
	env->faults = 0;
	if (!tp->cond_pure)
		return tp->cond ? GTP_PRE_UNKNOWN : GTP_PRE_HELD;
	env->regs = regs;
	env->frame = NULL;
	env->tp = tp;
	res = ax_run_hit(tp->cond, env);
	if (env->err)
		return GTP_PRE_UNKNOWN;
	return res ? GTP_PRE_HELD : GTP_PRE_FALSE;
}

/*
 * Stage 1's budget part, then stage 2.  An untimed hit, the common case,
 * pays the budget's count down and a store of env->t0 = 0, and nothing
 * else: a false condition keeps no time to account for.
 */
static __always_inline enum gtp_precheck
gtp_tp_precheck(struct gtp_tp *tp, struct pt_regs *regs, struct ax_env *env)
{
	u64 t0 = gtp_budget_sample();

	if (unlikely(t0))
		return gtp_tp_precheck_timed(tp, regs, env, t0);
	env->t0 = 0;
	return gtp_tp_precheck_cond(tp, regs, env);
}

/*
 * gtp_tp_precheck() for a hit whose pure condition a JIT-compiled probe
 * (ax_jit_probe_compile()) has just found true on the same registers: the
 * CPU budget's share as there (a timed hit decides the condition again,
 * its time counted from there), and no second run of it otherwise.
 */
static __always_inline enum gtp_precheck
gtp_tp_precheck_held(struct gtp_tp *tp, struct pt_regs *regs,
		     struct ax_env *env)
{
	u64 t0 = gtp_budget_sample();

	if (unlikely(t0))
		return gtp_tp_precheck_timed(tp, regs, env, t0);
	env->t0 = 0;
	/* what running it would have charged: straight code, each insn once */
	env->steps = AX_STEP_BUDGET - tp->cond->ninsns;
	env->faults = 0;
	return GTP_PRE_HELD;
}

/*
 * Stages 1 and 2, as every backend enters them: gdb's disable (the probe
 * stays armed, the hit does nothing), the budget, the condition (@held:
 * a compiled probe found it true).
 */
static __always_inline enum gtp_precheck
gtp_hit_begin(struct gtp_tp *tp, struct pt_regs *regs, struct ax_env *env,
	      bool held)
{
	if (unlikely(!READ_ONCE(tp->enabled)))
		return GTP_PRE_FALSE;
	if (held)
		return gtp_tp_precheck_held(tp, regs, env);
	return gtp_tp_precheck(tp, regs, env);
}

/*
 * Stages 3 and 4 of a hit stage 2 found true (held) or left open
 * (undecided): out of line, in collect.c.  They continue on what is left
 * of @pre's budget.  @scratch must be private to this CPU (and nesting
 * level) for the duration of the call.  Return true if a frame was stored.
 */
bool gtp_tp_hit_held(struct gtp_tp *tp, struct pt_regs *regs, u8 *scratch,
		     u32 cap, const struct ax_env *pre);
bool gtp_tp_hit_undecided(struct gtp_tp *tp, struct pt_regs *regs,
			  u8 *scratch, u32 cap, const struct ax_env *pre);

/* Stages 3 and 4, as gtp_hit_begin() left the hit (not GTP_PRE_FALSE). */
static __always_inline bool gtp_hit_finish(struct gtp_tp *tp,
					   struct pt_regs *regs, u8 *scratch,
					   u32 cap, const struct ax_env *pre_env,
					   enum gtp_precheck pre)
{
	if (pre == GTP_PRE_HELD)
		return gtp_tp_hit_held(tp, regs, scratch, cap, pre_env);
	return gtp_tp_hit_undecided(tp, regs, scratch, cap, pre_env);
}

/*
 * All four stages in one call, for the unit tests and the fuzzer (probes
 * split them around their own work).  Returns true if a frame was stored.
 */
bool gtp_tp_hit(struct gtp_tp *tp, struct pt_regs *regs, u8 *scratch,
		u32 cap);

#endif /* GTP_COLLECT_H */
