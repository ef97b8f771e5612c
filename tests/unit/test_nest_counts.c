// SPDX-License-Identifier: GPL-2.0
/*
 * test_nest_counts.c - per-CPU counts that a nested hit updates while an
 * interrupted one is half-way through its own update (core/agg.c,
 * core/budget.c).
 *
 * Hits nest on a CPU: an irq's kprobe or static hit lands inside an
 * ftrace hit, static hits nest four deep (core/nest.h).  A per-CPU
 * count updated by load, add, store loses the nested hit's update when
 * the nested hit runs between the load and the store.  Nothing in the
 * core may lock, so every such update must be one instruction that an
 * interrupt cannot split (local_t, this_cpu_*), or a compare-and-swap
 * that starts again when a nested hit got in between.
 *
 * The test interrupts the outer update after each of its instructions in
 * turn, with no hook in the code under test: it single-steps the update
 * (x86's trap flag: every instruction raises SIGTRAP), and the signal
 * handler, which runs on the interrupted thread as an interrupt runs on
 * the interrupted CPU, makes the nested update after the k-th step.  For
 * every k, the counts must come out exact.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <signal.h>
#include <cmocka.h>

#include "agg.h"
#include "budget.h"

#if defined(__x86_64__)

/* What the "interrupt" does, and after which step of the outer update. */
static void (*nested)(void);
static volatile unsigned long step, at;
static volatile bool injected;

static void on_trap(int sig, siginfo_t *si, void *uc)
{
	/* the kernel clears the trap flag for the handler: no stepping here */
	if (++step == at && !injected) {
		injected = true;
		nested();
	}
}

static noinline void trap_flag_on(void)
{
	__asm__ __volatile__("pushfq; orq $0x100, (%%rsp); popfq"
			     ::: "memory", "cc");
}

static noinline void trap_flag_off(void)
{
	__asm__ __volatile__("pushfq; andq $~0x100, (%%rsp); popfq"
			     ::: "memory", "cc");
}

/*
 * Run @outer single-stepped, @nested after its @k-th instruction.
 * Returns false once @k is past @outer's end (no injection happened).
 */
static bool interrupt_at(unsigned long k, void (*outer)(void),
			 void (*inner)(void))
{
	nested = inner;
	step = 0;
	at = k;
	injected = false;
	trap_flag_on();
	outer();
	trap_flag_off();
	return injected;
}

static int setup(void **state)
{
	struct sigaction sa = { .sa_sigaction = on_trap, .sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	return sigaction(SIGTRAP, &sa, NULL);
}

/* ---- aggregation: histograms ---- */

static struct gtp_agg *agg;
static s64 outer_val, nested_val;

static void agg_outer(void)
{
	gtp_agg_add(agg, 0, outer_val);
}

static void agg_nested(void)
{
	gtp_agg_add(agg, 0, nested_val);
}

static u64 bucket(const u64 *b, s64 val)
{
	return b[gtp_agg_bucket(val) - GTP_AGG_BUCKET_MIN];
}

/*
 * @before values already in (one, -100, or none), then 5 with -3 nested
 * in it: count, sum, min, max and both buckets exact at every step.
 */
static void hist_case(bool first)
{
	u64 buckets[GTP_AGG_NR_BUCKETS];
	struct gtp_agg_sum sum;
	unsigned long k;

	outer_val = 5;
	nested_val = -3;
	for (k = 1; ; k++) {
		agg = gtp_agg_alloc(GTP_AGG_HIST, 1);
		assert_non_null(agg);
		if (!first)
			gtp_agg_add(agg, 0, 2);
		if (!interrupt_at(k, agg_outer, agg_nested)) {
			gtp_agg_free(agg);
			break;
		}
		gtp_agg_hist(agg, buckets, &sum);
		if (sum.n != 3 - first || sum.sum != 4 - 2 * first ||
		    sum.min != -3 || sum.max != 5 ||
		    bucket(buckets, 5) != 1 || bucket(buckets, -3) != 1)
			fail_msg("nested at step %lu: n=%llu sum=%lld min=%lld max=%lld b(5)=%llu b(-3)=%llu",
				 k, (unsigned long long)sum.n,
				 (long long)sum.sum, (long long)sum.min,
				 (long long)sum.max,
				 (unsigned long long)bucket(buckets, 5),
				 (unsigned long long)bucket(buckets, -3));
		gtp_agg_free(agg);
	}
	assert_true(k > 10);
}

static void test_hist_first_value_nested(void **state)
{
	hist_case(true);
}

static void test_hist_value_nested(void **state)
{
	hist_case(false);
}

/* ---- aggregation: count tables ---- */

/* The table's total, its key count, and @key's count, merged. */
static void table_read(u64 *n, u32 *nkeys, u64 *count, s64 key)
{
	struct gtp_agg_entry out[8];
	struct gtp_agg_sum sum;
	u32 nout, i;

	assert_int_equal(gtp_agg_count_page(agg, false, 0, out, 8, &nout,
					    &sum), 0);
	*n = sum.n;
	*nkeys = sum.nkeys;
	*count = 0;
	for (i = 0; i < nout; i++)
		if (out[i].key == key)
			*count = out[i].count;
}

/*
 * Key 7, with key 7 (@same) or 9 nested in it, into a table that holds
 * @pre (0: nothing): every value counted, each under its key.
 */
static void table_case(bool same, s64 pre)
{
	unsigned long k;
	u64 n, c7, c9;
	u32 nkeys, nk;

	outer_val = 7;
	nested_val = same ? 7 : 9;
	for (k = 1; ; k++) {
		agg = gtp_agg_alloc(GTP_AGG_COUNT, 1);
		assert_non_null(agg);
		if (pre)
			gtp_agg_add(agg, 0, pre);
		if (!interrupt_at(k, agg_outer, agg_nested)) {
			gtp_agg_free(agg);
			break;
		}
		table_read(&n, &nkeys, &c7, 7);
		table_read(&n, &nk, &c9, 9);
		if (n != 2 + !!pre ||
		    c7 != (same ? 2 : 1) + (pre == 7) ||
		    (!same && c9 != 1) ||
		    nkeys != (same ? 1 : 2) + (pre && pre != 7))
			fail_msg("nested at step %lu: n=%llu keys=%u [7]=%llu [9]=%llu",
				 k, (unsigned long long)n, nkeys,
				 (unsigned long long)c7, (unsigned long long)c9);
		gtp_agg_free(agg);
	}
	assert_true(k > 10);
}

static void test_table_new_key_nested_same(void **state)
{
	table_case(true, 0);
}

static void test_table_new_key_nested_other(void **state)
{
	table_case(false, 0);
}

static void test_table_known_key_nested(void **state)
{
	table_case(true, 7);
}

/* ---- the CPU budget ---- */

static struct gtp_tp budget_tp;

static void budget_hit(void)
{
	gtp_budget_account(&budget_tp, gtp_tsc() - 1000);
}

/* A fresh run: a window that never ends in the test, tripping on time. */
static void budget_fresh(void)
{
	gtp_budget_arm();
	gtp_budget.window = 1ull << 40;
	gtp_budget.limit = 1;
	gtp_budget.stop = false;
	budget_tp.enabled = true;
}

/*
 * GTP_BUDGET_MIN_SAMPLES timed hits, two of them nested (the first two
 * of the window, which start it, or the last two): the budget trips, on
 * the last, once.  A lost sample leaves one short of tripping.
 */
static void budget_case(bool window_start)
{
	unsigned long k;
	int i;

	for (k = 1; ; k++) {
		budget_fresh();
		for (i = 0; !window_start && i < GTP_BUDGET_MIN_SAMPLES - 2; i++)
			budget_hit();
		if (!interrupt_at(k, budget_hit, budget_hit))
			break;
		for (i = 0; window_start && i < GTP_BUDGET_MIN_SAMPLES - 2; i++)
			budget_hit();
		if (atomic_long_read(&gtp_budget.ntrips) != 1 ||
		    budget_tp.enabled)
			fail_msg("nested at step %lu: %ld trips after %d timed hits",
				 k, atomic_long_read(&gtp_budget.ntrips),
				 GTP_BUDGET_MIN_SAMPLES);
	}
	assert_true(k > 10);
}

static void test_budget_samples_nested(void **state)
{
	budget_case(false);
}

static void test_budget_window_start_nested(void **state)
{
	budget_case(true);
}

static unsigned int timed;

static void sample_hit(void)
{
	timed += gtp_budget_sample() != 0;
}

/*
 * One hit in GTP_BUDGET_EVERY is timed, nested or not: any
 * 2 * GTP_BUDGET_EVERY hits in a row hold exactly two timed ones, from
 * every phase of the count down, the outer hit nested at every step.
 */
static void test_budget_sample_nested(void **state)
{
	unsigned int phase, i;
	unsigned long k;

	for (phase = 0; phase < GTP_BUDGET_EVERY; phase++) {
		for (k = 1; ; k++) {
			timed = 0;
			for (i = 0; i < phase; i++)
				sample_hit();
			if (!interrupt_at(k, sample_hit, sample_hit)) {
				/* a whole run without nesting: fill it up */
				for (i = phase + 1; i < 2 * GTP_BUDGET_EVERY; i++)
					sample_hit();
				assert_int_equal(timed, 2);
				break;
			}
			for (i = phase + 2; i < 2 * GTP_BUDGET_EVERY; i++)
				sample_hit();
			if (timed != 2)
				fail_msg("phase %u, nested at step %lu: %u timed hits in %u",
					 phase, k, timed, 2 * GTP_BUDGET_EVERY);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_first_value_nested),
		cmocka_unit_test(test_hist_value_nested),
		cmocka_unit_test(test_table_new_key_nested_same),
		cmocka_unit_test(test_table_new_key_nested_other),
		cmocka_unit_test(test_table_known_key_nested),
		cmocka_unit_test(test_budget_samples_nested),
		cmocka_unit_test(test_budget_window_start_nested),
		cmocka_unit_test(test_budget_sample_nested),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}

#else /* no trap flag to single-step with: nothing to run */

int main(void)
{
	return 0;
}

#endif
