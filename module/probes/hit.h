/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hit.h - the one hit sequence every backend (attach.h) runs.
 *
 * A backend's handler finds the tracepoint, guards against its own
 * nesting as its mechanism needs (kprobes do not nest on a CPU, ftrace
 * callbacks and tracepoint probes do), and then runs this: the
 * tracepoint's enable flag, its condition (or, when a JIT-compiled probe
 * already found it true, only the CPU budget's share: @held), and the
 * actions into a frame built in the backend's per-CPU scratch area with
 * its per-CPU environment.  gtp_hit_pre() and the core's
 * gtp_tp_hit_rest() are the two halves, for a backend with something to
 * do between them (ftrace shows the kprobe's ip to a hit that goes on).
 *
 * Inline: the false-condition path is the hot one, and each backend's
 * handler is its only caller.
 */
#ifndef GTP_HIT_H
#define GTP_HIT_H

#include "collect.h"

/* The area of @base (nr_cpu_ids * @per_cpu areas) for this CPU's @slot. */
static __always_inline u8 *gtp_hit_scratch(u8 *base, unsigned int per_cpu,
					   unsigned int slot)
{
	return base + ((size_t)raw_smp_processor_id() * per_cpu + slot) *
		      GTP_SCRATCH_SIZE;
}

/*
 * The condition, or the budget's share of one a compiled probe decided
 * (@held): GTP_PRE_FALSE ends the hit.  gdb's disable and the CPU
 * budget's (core/budget.h) end it too.
 */
static __always_inline enum gtp_precheck
gtp_hit_pre(struct gtp_tp *tp, struct pt_regs *regs, struct ax_env *env,
	    bool held)
{
	if (unlikely(!READ_ONCE(tp->enabled)))
		return GTP_PRE_FALSE;
	if (held)
		return gtp_tp_precheck_held(tp, regs, env);
	return gtp_tp_precheck(tp, regs, env);
}

/*
 * The whole sequence, for a backend with one scratch area per CPU in
 * @base: a false hit does not look for it.
 */
static __always_inline void gtp_hit(struct gtp_tp *tp, struct pt_regs *regs,
				    struct ax_env *env, u8 *base, bool held)
{
	enum gtp_precheck pre = gtp_hit_pre(tp, regs, env, held);

	if (pre != GTP_PRE_FALSE)
		gtp_tp_hit_rest(tp, regs, gtp_hit_scratch(base, 1, 0),
				GTP_SCRATCH_SIZE, env, pre);
}

/*
 * A condition a JIT-compiled probe can decide alone: pure, compiled.  Each
 * backend adds what its probe reads (ax_jit_probe_compile() refuses the
 * rest).
 */
static inline bool gtp_cond_probe_ok(const struct gtp_tp *tp)
{
	return tp->cond && tp->cond_pure && tp->cond->jit;
}

#endif /* GTP_HIT_H */
