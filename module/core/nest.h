/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nest.h - probe hits nesting on one CPU: which per-CPU slot a hit uses.
 * The one guard of every backend whose hits nest (tracepoint probes,
 * ftrace callbacks; kprobe handlers do not nest on a CPU).
 *
 * Tracepoint probes nest on a CPU: an interrupt, an NMI, or a kprobe's
 * int3 may fire a tracepoint while a hit runs, and a hit's own work may
 * fire one too (a kprobe on a function it calls, a page fault).  The
 * kernel runs a kernel int3 as NMI context, so a real NMI can still come
 * on top of a hit that runs inside an int3: context levels (task,
 * softirq, hardirq, NMI) cannot tell those two apart, and per-CPU areas
 * indexed by them would be shared.  So each hit running on a CPU takes
 * the next slot of an explicit per-CPU depth count, with preemption off,
 * and owns that slot's areas until it returns; past @max, a hit is
 * refused (the caller counts it as missed).
 *
 * A hit from the very context of the innermost running one is that hit's
 * own recursion (its work fired the tracepoint again) and is refused too,
 * so one hit cannot fan out into nested copies of itself.  @ctx is the
 * interrupt bits of preempt_count + 1, NMI nesting count included: an
 * interrupt (or a real NMI inside an int3) always has a different one.
 *
 * No atomics: an interrupt between any two steps runs its own hit to the
 * end and restores both words before it returns (hits nest strictly LIFO
 * on a CPU), and preemption is off, so no other task can interleave.
 * Portable (module/core) so the unit tests drive it with made-up contexts.
 */
#ifndef GTP_NEST_H
#define GTP_NEST_H

#include "compat.h"

struct gtp_nest {
	u32 depth;		/* hits running on this CPU */
	u32 owner;		/* @ctx of the innermost one, 0 if none */
};

/*
 * Enter a hit from context @ctx (nonzero).  Returns its slot, 0 .. @max - 1,
 * and in *@prev what gtp_nest_exit() gives back; or -EDEADLK (recursion)
 * or -ENOSPC (@max hits already run here): then the hit does nothing.
 */
static __always_inline int gtp_nest_enter(struct gtp_nest *n, u32 ctx,
					  u32 max, u32 *prev)
{
	u32 d;

	*prev = READ_ONCE(n->owner);
	if (unlikely(*prev == ctx))
		return -EDEADLK;
	d = READ_ONCE(n->depth);
	if (unlikely(d >= max))
		return -ENOSPC;
	WRITE_ONCE(n->depth, d + 1);	/* slot d is ours from here */
	WRITE_ONCE(n->owner, ctx);
	barrier();	/* claimed before anything can fire a tracepoint */
	return d;
}

static __always_inline void gtp_nest_exit(struct gtp_nest *n, u32 prev)
{
	barrier();
	WRITE_ONCE(n->owner, prev);
	WRITE_ONCE(n->depth, READ_ONCE(n->depth) - 1);
}

/*
 * The same guard with one slot, for a backend with one area per CPU: it
 * refuses every hit that comes while another runs, so which context
 * comes never matters and @owner stays 0.  Then the depth count is one
 * interrupt-safe per-CPU add each way, not a pointer and four accesses:
 * the hit is counted in even when refused, and counted out either way.
 * @pn: the per-CPU struct gtp_nest itself (per-CPU ops address it with
 * no pointer); preemption off.  gtp_nest_enter_one() is true when the
 * hit may run; gtp_nest_exit_one() follows it whatever it said.
 */
#define gtp_nest_enter_one(pn)	(gtp_this_cpu_inc_return((pn).depth) == 1)
#define gtp_nest_exit_one(pn)	gtp_this_cpu_sub((pn).depth, 1)

#endif /* GTP_NEST_H */
