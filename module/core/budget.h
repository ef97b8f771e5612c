/* SPDX-License-Identifier: GPL-2.0 */
/*
 * budget.h - what the probes cost, and a ceiling on it.
 *
 * A tracer must not take the box down: a true condition on a hot function
 * (or hundreds of functions at once) can eat a CPU.  Timing every hit
 * would cost more than a false condition itself, so each CPU times one
 * hit in GTP_BUDGET_EVERY, from the start of its condition to the end of
 * its frame (gtp_tp_precheck() to gtp_tp_hit_*()), and counts that time
 * GTP_BUDGET_EVERY times: every other hit pays one per-CPU decrement and
 * a test.  Each tracepoint adds up its estimated cost (tp->cost, the
 * total in TSC ticks); each CPU adds up what all of them cost it in the
 * current second.  When that passes the budget (a percentage of one CPU)
 * over at least GTP_BUDGET_MIN_SAMPLES timed hits, the tracepoint being
 * timed, the one that is statistically spending the time, is disabled on
 * every CPU (tp->enabled, as gdb's "disable" does) and its probe is then
 * disarmed from process context (tp->tripped, the host's ->tripped: a
 * probe may not sleep, lock or wake, and unregistering does all three),
 * or the whole trace stops, as configured; the first such trips are kept
 * for qTStatus, which gdb's tstatus shows as its trace notes or as the
 * error that stopped the trace.  Frames already collected stay.
 *
 * Not counted: the kernel's own attach mechanism before our handler runs
 * (a kprobe's breakpoint exception, ftrace's trampoline), and a condition
 * found false by a probe that is the JIT-compiled condition itself (a
 * static tracepoint's probe or entry, a direct trampoline, a kprobe's
 * pre-handler): only its true hits come this way.
 *
 * The window state is per CPU, and hits nest on a CPU: an irq's kprobe or
 * static hit inside an ftrace hit, static hits up to GTP_STATIC_NEST_MAX
 * deep (nest.h), an NMI's inside any.  A nested hit runs to its end
 * before the one it interrupted goes on, so every update is one per-CPU
 * read-modify-write instruction (compat.h's this_cpu ops) that no
 * interrupt can split: the count down, each window's time and samples,
 * and the claim of a new window (a cmpxchg of its key, budget.c).  No
 * lock, no lost count.
 */
#ifndef GTP_BUDGET_H
#define GTP_BUDGET_H

#include "compat.h"
#include "tracepoint.h"

#define GTP_BUDGET_SHIFT	6
#define GTP_BUDGET_EVERY	(1u << GTP_BUDGET_SHIFT)
#define GTP_BUDGET_DEFAULT	10	/* percent of one CPU, per second */
#define GTP_BUDGET_MAX_TRIPS	4
#define GTP_BUDGET_MIN_SAMPLES	16	/* timed hits in a window to trip */

struct gtp_budget_trip {
	u32 tp;			/* the tracepoint disabled (or that stopped it) */
	u32 cpu;
	u32 pct;		/* its CPU's share spent in probes, in percent */
	u64 at_ns;		/* gtp_mono_ns() */
};

struct gtp_budget {
	u64 window;		/* TSC ticks in a second; 0: not armed */
	u64 limit;		/* ticks of probe time per window; 0: no budget */
	u32 pct;		/* the budget, in percent of a CPU */
	bool stop;		/* stop the trace rather than disable */
	u32 gen;		/* counts arms: a new run's windows start afresh */
	u64 start_ns;		/* when the run was armed */
	atomic_long_t ntrips;
	struct gtp_budget_trip trips[GTP_BUDGET_MAX_TRIPS];
};

extern struct gtp_budget gtp_budget;
extern unsigned int gtp_budget_pct;	/* the module parameter cpu_budget */
extern bool gtp_budget_stop_param;	/* the module parameter budget_stop */

GTP_DECLARE_PER_CPU(unsigned int, gtp_budget_tick);	/* hits on this CPU */

/*
 * Probe context: the TSC at the start of a hit to time, or 0.  A per-CPU
 * count of hits, one xadd: the hit that takes it to 1 modulo
 * GTP_BUDGET_EVERY (the first, then every GTP_BUDGET_EVERY-th) is timed.
 * Nothing is written back, so a hit nested between the add and the test
 * cannot make two timed hits of one, nor none.  An untimed hit pays the
 * add, a mask and a branch, and its caller a store of 0 to env->t0.
 */
static __always_inline u64 gtp_budget_sample(void)
{
	if (likely((gtp_this_cpu_inc_return(gtp_budget_tick) &
		    (GTP_BUDGET_EVERY - 1)) != 1))
		return 0;
	return gtp_tsc() | 1;
}

/* Probe context: a timed hit of @tp that started at @t0 is over. */
void gtp_budget_account(struct gtp_tp *tp, u64 t0);

/*
 * Process context, before a run's probes are attached: take the budget
 * from the module parameters, or from the run's $gtp_cpu_budget and
 * $gtp_budget_stop (gtp_budget_set()), and forget the last run's trips.
 */
void gtp_budget_arm(void);

/* QTDV of $gtp_cpu_budget / $gtp_budget_stop: this session's setting. */
void gtp_budget_set(int pct, int stop);
void gtp_budget_reset(void);	/* QTinit: back to the module parameters */

/* @tp's estimated time in hits this run, in microseconds. */
static inline u64 gtp_budget_cost_us(const struct gtp_tp *tp)
{
	u64 khz = gtp_tsc_khz();

	return khz ? (u64)atomic_long_read(&tp->cost) * 1000 / khz : 0;
}

/*
 * One line per trip ("" if none), for qTStatus; returns its length.
 * @armed(num): tripped tracepoint @num's probe is not yet disarmed.
 */
size_t gtp_budget_report(char *buf, size_t size, bool (*armed)(u32 num));

#endif /* GTP_BUDGET_H */
