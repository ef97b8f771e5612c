/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hit.h - how every backend (attach.h) enters a hit's four stages
 * (core/collect.h: precheck, condition, frame, commit).
 *
 * A backend's handler finds the tracepoint, takes its nesting guard
 * (core/nest.h; kprobes do not nest on a CPU and need none), and runs
 * the stages with its per-CPU environment and scratch area:
 * gtp_hit_begin() (precheck and condition; @held when a JIT-compiled
 * probe already found the condition true) and gtp_hit_finish() (frame and
 * commit).  gtp_hit() is both, for a backend with nothing to do between
 * them (ftrace has: it shows a hit that goes on the ip a kprobe would).
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
 * The whole sequence, for a backend with one scratch area per CPU in
 * @base: a false hit does not look for it.
 */
static __always_inline void gtp_hit(struct gtp_tp *tp, struct pt_regs *regs,
				    struct ax_env *env, u8 *base, bool held)
{
	enum gtp_precheck pre = gtp_hit_begin(tp, regs, env, held);

	if (pre != GTP_PRE_FALSE)
		gtp_hit_finish(tp, regs, gtp_hit_scratch(base, 1, 0),
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
