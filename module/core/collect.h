/* SPDX-License-Identifier: GPL-2.0 */
/*
 * collect.h - what happens when a tracepoint is hit.
 */
#ifndef GTP_COLLECT_H
#define GTP_COLLECT_H

#include "tracepoint.h"
#include "frame.h"

/* A frame being built in the host's per-CPU scratch buffer. */
struct gtp_fbuild {
	u8 *buf;
	u32 cap;
	u32 len;
	bool truncated;		/* something did not fit */
	u32 *faults;		/* the hit's fault count (ax.h), or NULL */
};

/*
 * The probe fast path, before any per-CPU state is looked at: most hits
 * of a selective tracepoint fail its condition, and a pure one (see
 * tp->cond_pure) can be decided first.  GTP_PRE_FALSE: the hit does
 * nothing at all; GTP_PRE_HELD (or no condition): call gtp_tp_hit_held();
 * GTP_PRE_UNKNOWN (a condition with side effects, or one that failed to
 * evaluate): call gtp_tp_hit_undecided().  @env: the caller's, private to
 * this CPU and context; it starts the hit's one step budget (ax.h), which
 * the rest of the hit continues.
 */
enum gtp_precheck { GTP_PRE_UNKNOWN, GTP_PRE_FALSE, GTP_PRE_HELD };

static __always_inline enum gtp_precheck
gtp_tp_precheck(struct gtp_tp *tp, struct pt_regs *regs, struct ax_env *env)
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

/*
 * A whole hit (precheck, then the rest) as a probe does it: check the
 * condition, collect, store.  Returns true if a frame was stored.
 */
bool gtp_tp_hit(struct gtp_tp *tp, struct pt_regs *regs, u8 *scratch,
		u32 cap);

/* Side effects of agent expressions in actions (the ax_hook_* bodies). */
int gtp_fb_trace(struct gtp_fbuild *fb, u64 addr, u32 size, bool upto_nul);
int gtp_fb_put_mem(struct gtp_fbuild *fb, u64 addr, const void *data,
		   u32 len);
int gtp_fb_tracev(struct gtp_fbuild *fb, u32 tsv, const struct ax_env *env);

/*
 * Where "collect $kstack" puts the call stack in a frame: non-canonical
 * in 4- and 5-level paging alike, so never an address of kernel memory
 * that the same frame could also hold.  Up to GTP_KSTACK_MAX entries.
 */
#define GTP_KSTACK_ADDR		0x4b53544b00000000ULL	/* "KSTK" */
#define GTP_KSTACK_MAX		32

/*
 * The bytes every frame of @tp takes at least: header, R block, M blocks
 * (expressions record a size known only at the hit, so they count 0).
 */
u64 gtp_tp_min_frame_len(const struct gtp_tp *tp);

/*
 * Can @cond fail in nothing, read no memory and no gdb register outside
 * @regs (bit i = register i)?  Then a probe that saved only those may run
 * it before saving anything else.
 */
bool gtp_cond_reads_only(const struct ax_prog *cond, u64 regs);

/* Can @cond run at any time, with no trace, TSV or output effect? */
bool gtp_cond_is_pure(const struct ax_prog *cond);

/*
 * The size every frame of @tp has, if the actions alone fix it (registers,
 * expressions that record nothing); 0 if it is known only at the hit.
 */
u32 gtp_tp_exact_frame_len(const struct gtp_tp *tp);

/*
 * Decide once, when the actions change, what a hit has to do: the exact
 * frame size, which expressions can be skipped (tp->actions[].noop) and
 * whether a frame is a lone R block (tp->regs_only).
 */
void gtp_tp_plan(struct gtp_tp *tp);

/* pt_regs in gdb's amd64 'g' layout (GTP_G_SIZE bytes), rip = @pc. */
void gtp_regs_to_g(const struct pt_regs *regs, u64 pc, u8 *out);

/* Value of gdb register @regno (0..17) from pt_regs. */
u64 gtp_reg_value(const struct pt_regs *regs, int regno);

#define GTP_SCRATCH_SIZE	(32 * 1024)	/* per-CPU frame build space */

#endif /* GTP_COLLECT_H */
