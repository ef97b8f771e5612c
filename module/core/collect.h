/* SPDX-License-Identifier: GPL-2.0 */
/*
 * collect.h - what happens when a tracepoint is hit.
 */
#ifndef GTP_COLLECT_H
#define GTP_COLLECT_H

#include "tracepoint.h"
#include "frame.h"
#include "regs.h"
#include "fbuild.h"
#include "plan.h"
#include "budget.h"

/*
 * The probe fast path, before any per-CPU state is looked at: most hits
 * of a selective tracepoint fail its condition, and a pure one (see
 * tp->cond_pure) can be decided first.  GTP_PRE_FALSE: the hit does
 * nothing at all; GTP_PRE_HELD (or no condition): call gtp_tp_hit_held();
 * GTP_PRE_UNKNOWN (a condition with side effects, or one that failed to
 * evaluate): call gtp_tp_hit_undecided().  @env: the caller's, private to
 * this CPU and context; it starts the hit's one step budget (ax.h), which
 * the rest of the hit continues, and the CPU budget's sampling (budget.h):
 * a timed hit is accounted for where it ends.
 */
enum gtp_precheck { GTP_PRE_UNKNOWN, GTP_PRE_FALSE, GTP_PRE_HELD };

/* gtp_tp_precheck() without the CPU budget's part. */
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

/* A hit the CPU budget times (one in GTP_BUDGET_EVERY), out of line. */
enum gtp_precheck gtp_tp_precheck_timed(struct gtp_tp *tp,
					struct pt_regs *regs,
					struct ax_env *env, u64 t0);

/*
 * An untimed hit, the common case, pays the budget's count down and a
 * store of env->t0 = 0, and nothing else: a false condition keeps no
 * time to account for.
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
 * The rest of a hit whose condition gtp_tp_precheck() saw hold: the
 * actions continue on what is left of @pre's budget.
 * @scratch must be private to this CPU (and nesting level) for the
 * duration of the call.  Returns true if a frame was stored.
 */
bool gtp_tp_hit_held(struct gtp_tp *tp, struct pt_regs *regs, u8 *scratch,
		     u32 cap, const struct ax_env *pre);

/*
 * The rest of a hit gtp_tp_precheck() left undecided: a condition with
 * side effects runs now, on what is left of @pre's budget; a pure one
 * already failed there and is not run again (its error is counted).
 */
bool gtp_tp_hit_undecided(struct gtp_tp *tp, struct pt_regs *regs,
			  u8 *scratch, u32 cap, const struct ax_env *pre);

/* The rest of a hit, as gtp_tp_precheck() left it (not GTP_PRE_FALSE). */
static __always_inline bool gtp_tp_hit_rest(struct gtp_tp *tp,
					    struct pt_regs *regs, u8 *scratch,
					    u32 cap, const struct ax_env *pre_env,
					    enum gtp_precheck pre)
{
	if (pre == GTP_PRE_HELD)
		return gtp_tp_hit_held(tp, regs, scratch, cap, pre_env);
	return gtp_tp_hit_undecided(tp, regs, scratch, cap, pre_env);
}

/*
 * A whole hit (precheck, then the rest) as a probe does it: check the
 * condition, collect, store.  Returns true if a frame was stored.
 */
bool gtp_tp_hit(struct gtp_tp *tp, struct pt_regs *regs, u8 *scratch,
		u32 cap);

#define GTP_SCRATCH_SIZE	(32 * 1024)	/* per-CPU frame build space */

#endif /* GTP_COLLECT_H */
