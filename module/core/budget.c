// SPDX-License-Identifier: GPL-2.0
/*
 * budget.c - what the probes cost, and a ceiling on it (budget.h).
 */
#include "budget.h"
#include "host.h"
#include "run.h"

struct gtp_budget gtp_budget;
unsigned int gtp_budget_pct = GTP_BUDGET_DEFAULT;
bool gtp_budget_stop_param;

GTP_DEFINE_PER_CPU(unsigned int, gtp_budget_tick);

/*
 * This CPU's window.  @key names it in one word, so that one cmpxchg
 * claims a new window: the TSC at its start, its low byte replaced by the
 * run's (gtp_budget.gen's low byte; 256 ticks are nothing to a window of
 * a second).  Every field changes by one per-CPU instruction (budget.h).
 */
struct budget_cpu {
	u64 key;		/* start TSC & ~0xff | run & 0xff */
	u64 spent;		/* estimated probe ticks in it */
	u64 samples;		/* timed hits in it */
};
static GTP_DEFINE_PER_CPU(struct budget_cpu, budget_cpu);

#define KEY_RUN		0xffull

static __always_inline u64 window_key(const struct gtp_budget *b, u64 now)
{
	return (now & ~KEY_RUN) | (b->gen & KEY_RUN);
}

/*
 * Signed: a hit that read the TSC before a hit nested in it started a new
 * window finds that window starting after its @now, and current.
 */
static __always_inline bool window_over(const struct gtp_budget *b, u64 key,
					u64 now)
{
	return (key & KEY_RUN) != (b->gen & KEY_RUN) ||
	       (s64)(now - (key & ~KEY_RUN)) >= (s64)b->window;
}

/*
 * Start a new window at @now if the one of @key is over.  The hit whose
 * cmpxchg of the key succeeds takes away what it read of the old window
 * before, and no more: a hit nested before its cmpxchg found the same
 * window over and started the new one itself (this cmpxchg then fails),
 * and one nested after it found the new window and added to it, which
 * the subtraction leaves.
 */
static void window_start(const struct gtp_budget *b, u64 key, u64 now)
{
	u64 spent = gtp_this_cpu_read(budget_cpu.spent);
	u64 samples = gtp_this_cpu_read(budget_cpu.samples);

	if (gtp_this_cpu_cmpxchg(budget_cpu.key, key, window_key(b, now)) != key)
		return;
	gtp_this_cpu_sub(budget_cpu.spent, spent);
	gtp_this_cpu_sub(budget_cpu.samples, samples);
}

/* The session's setting (QTDV), -1: the module parameter's. */
static int session_pct = -1, session_stop = -1;

void gtp_budget_set(int pct, int stop)
{
	if (pct >= 0)
		session_pct = pct;
	if (stop >= 0)
		session_stop = stop;
}

void gtp_budget_reset(void)
{
	session_pct = session_stop = -1;
}

void gtp_budget_arm(void)
{
	struct gtp_budget *b = &gtp_budget;
	u32 pct = session_pct >= 0 ? session_pct : READ_ONCE(gtp_budget_pct);

	b->pct = min_t(u32, pct, 100);
	b->stop = session_stop >= 0 ? session_stop :
		  READ_ONCE(gtp_budget_stop_param);
	b->window = (u64)gtp_tsc_khz() * 1000;
	b->limit = b->window * b->pct / 100;
	b->start_ns = gtp_mono_ns();
	atomic_long_set(&b->ntrips, 0);
	b->gen++;	/* every CPU starts a new window at its next sample */
}

/* Past the budget on this CPU: @tp goes, or the whole run does. */
static noinline void trip(struct gtp_tp *tp, u64 spent)
{
	struct gtp_budget *b = &gtp_budget;
	long n = atomic_long_add_return(1, &b->ntrips) - 1;

	WRITE_ONCE(tp->enabled, false);
	/*
	 * Disabled, its hits return at once, but its probe still runs on
	 * every call (an int3, a trampoline, a JIT'd condition): the host
	 * takes it away from process context.
	 */
	WRITE_ONCE(tp->tripped, GTP_TRIP_PENDING);
	gtp_host->tripped(tp);
	if (n < GTP_BUDGET_MAX_TRIPS) {
		struct gtp_budget_trip *t = &b->trips[n];

		t->tp = tp->num;
		t->cpu = gtp_cpu_id();
		t->pct = spent * 100 / b->window;
		t->at_ns = gtp_mono_ns();
	}
	if (b->stop)
		gtp_run_stop(GTP_STOP_BUDGET, tp->num);
}

void gtp_budget_account(struct gtp_tp *tp, u64 t0)
{
	const struct gtp_budget *b = &gtp_budget;
	u64 now = gtp_tsc();
	u64 cost = (now - t0) << GTP_BUDGET_SHIFT;
	u64 key, spent, samples;

	atomic_long_add(cost, &tp->cost);
	if (!b->limit)
		return;
	key = gtp_this_cpu_read(budget_cpu.key);
	if (window_over(b, key, now))
		window_start(b, key, now);
	/*
	 * One timed hit stands for GTP_BUDGET_EVERY: an interrupt, or a
	 * hypervisor taking the CPU away, inside one would count that many
	 * times.  So no sample counts for more than a 2048th of the window
	 * (4 of them, at most, are a 10% budget), and the budget trips on
	 * GTP_BUDGET_MIN_SAMPLES or more in one window, never on a few
	 * slow hits of a tracepoint that is barely hit.
	 */
	spent = gtp_this_cpu_add_return(budget_cpu.spent,
					min(cost, (b->window >> 11) << GTP_BUDGET_SHIFT));
	samples = gtp_this_cpu_inc_return(budget_cpu.samples);
	if (unlikely(spent > b->limit) &&
	    samples >= GTP_BUDGET_MIN_SAMPLES && READ_ONCE(tp->enabled))
		trip(tp, spent);
}

/*
 * What became of the tripped tracepoint @num's probe: @armed (the
 * caller's: the tracepoints are above this file) says whether it is still
 * waiting to be disarmed.
 */
static const char *trip_outcome(const struct gtp_budget *b, u32 num,
				bool (*armed)(u32 num))
{
	if (b->stop)
		return "stopped the trace";
	if (armed(num))
		return "disabled, its probe not yet disarmed";
	return "disabled and disarmed";
}

size_t gtp_budget_report(char *buf, size_t size, bool (*armed)(u32 num))
{
	const struct gtp_budget *b = &gtp_budget;
	long n = min_t(long, atomic_long_read(&b->ntrips),
		       GTP_BUDGET_MAX_TRIPS);
	size_t len = 0;
	long i;

	buf[0] = 0;
	for (i = 0; i < n; i++) {
		const struct gtp_budget_trip *t = &b->trips[i];
		u64 ms = (t->at_ns - b->start_ns) / 1000000;

		len += scnprintf(buf + len, size - len,
				 "%scpu budget: tracepoint %u %s at %llu.%03llu s: %u%% of CPU %u (budget %u%%)",
				 i ? "; " : "", t->tp, trip_outcome(b, t->tp, armed),
				 (unsigned long long)ms / 1000,
				 (unsigned long long)ms % 1000, t->pct, t->cpu,
				 b->pct);
	}
	if (atomic_long_read(&b->ntrips) > n)
		len += scnprintf(buf + len, size - len, "; %ld more",
				 atomic_long_read(&b->ntrips) - n);
	return len;
}
