// SPDX-License-Identifier: GPL-2.0
/*
 * test_ax_any.c - ax_cond_any(): the joined condition is true exactly
 * when one of its parts is, on random registers, for gdb's own conditions
 * (jumps and several 'end's included), alone, in pairs and all at once;
 * it verifies, compiles as a probe, and refuses what cannot join.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ax_any.h"
#include "jit.h"
#include "ax_test.h"
#include "user_host.h"

/* As gdb sends them (tests/bench/corpus/conditions.txt). */
static const char *const gdb_hex[] = {
	"220226000516200416202203260004162004162002162022001427",
	"260005162022051327",
	"260005162022052b1420000f210022260004162022031420001d2100222201210024220027",
	"260005162022641420001b260004162022071320001b220021001d220127",
	"2600051620220a2b140e20001a2600051620220a031620210024220a260005162003162027",
	"2600051620160822611327",
	"2600041620161022001427",
};
#define NCONDS	(sizeof(gdb_hex) / sizeof(gdb_hex[0]))

static struct ax_prog *conds[NCONDS];

static u64 rng = 0x2545f4914f6cdd1dULL;

static u64 next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* values around the corpus's constants: each condition goes both ways */
static u64 small(void)
{
	return (u64)((s64)(next_rand() % 140) - 16);
}

static u64 eval(const struct ax_prog *p, struct pt_regs *regs)
{
	struct ax_env env = { .regs = regs };
	u64 v = ax_run(p, &env);

	assert_int_equal(env.err, 0);
	return v;
}

/*
 * @any of @parts against each part on @rounds register sets; returns in
 * how many rounds it was true (a test that never saw both would prove
 * nothing: the callers check).
 */
static int check_joined(struct ax_prog *const *parts, u32 n, int rounds)
{
	struct ax_prog *any;
	int r, trues = 0;
	char log[128];
	u32 k;

	if (ax_cond_any(parts, n, &any, log, sizeof(log)))
		fail_msg("not joined: %s", log);
	for (r = 0; r < rounds; r++) {
		struct pt_regs regs = { 0 };
		bool want = false;

		regs.di = small();
		regs.si = small();
		for (k = 0; k < n; k++)
			want |= eval(parts[k], &regs) != 0;
		trues += want;
		if ((eval(any, &regs) != 0) != want)
			fail_msg("%u joined, round %d: rdi %lld rsi %lld: want %d",
				 n, r, (long long)regs.di, (long long)regs.si,
				 want);
	}
	ax_prog_free(any);
	return trues;
}

static void test_alone_pairs_and_all(void **state)
{
	int rounds = 500, t, mixed = 0;
	u32 a, b;

	for (a = 0; a < NCONDS; a++) {
		struct ax_prog *one[1] = { conds[a] };

		/* each part alone goes both ways on these registers */
		t = check_joined(one, 1, rounds);
		if (!t || t == rounds)
			fail_msg("condition %u: %d of %d rounds true", a, t,
				 rounds);
		for (b = 0; b < NCONDS; b++) {
			struct ax_prog *two[2] = { conds[a], conds[b] };

			t = check_joined(two, 2, rounds);
			mixed += t && t < rounds;
		}
	}
	/* some pairs cover every case; most must not */
	if (mixed < NCONDS * NCONDS / 2)
		fail_msg("only %d pairs went both ways", mixed);
	check_joined(conds, NCONDS, 2000);
}

/* The joined condition of several compiles as a probe (no memory, no loop). */
static void test_compiles_as_probe(void **state)
{
	struct ax_jit_probe p;
	struct ax_prog *any;
	char log[128];

	assert_int_equal(ax_cond_any(conds, NCONDS, &any, log, sizeof(log)),
			 0);
	if (ax_jit_probe_compile(any, (void *)0x1000, NULL, 0, &p, log,
				 sizeof(log)))
		fail_msg("not a probe: %s", log);
	assert_non_null(p.entry);
	ax_jit_probe_free(&p);
	ax_prog_free(any);
}

static void test_refused(void **state)
{
	struct ax_prog *parts[2], *any = (void *)1;
	char log[128];
	u32 k;

	/* two values left at its end: the next part would start on one */
	parts[0] = conds[0];
	parts[1] = ax_test_prog("reg 5 reg 4 end", true);
	assert_int_equal(ax_cond_any(parts, 2, &any, log, sizeof(log)),
			 -EINVAL);
	assert_null(any);
	assert_non_null(strstr(log, "more than its value"));
	ax_prog_free(parts[1]);

	/* longer than gdb's limit, joined */
	{
		struct ax_prog *many[40];

		for (k = 0; k < 40; k++)
			many[k] = conds[2];
		assert_int_equal(ax_cond_any(many, 40, &any, log,
					     sizeof(log)), -E2BIG);
		assert_null(any);
	}
}

static int setup(void **state)
{
	u32 k;

	user_exec_near = true;
	for (k = 0; k < NCONDS; k++) {
		u8 code[AX_MAX_CODE + 16];

		conds[k] = ax_test_verify(code, ax_test_hex(gdb_hex[k], code,
							    sizeof(code)),
					  true, gdb_hex[k]);
	}
	return 0;
}

static int teardown(void **state)
{
	u32 k;

	for (k = 0; k < NCONDS; k++)
		ax_prog_free(conds[k]);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alone_pairs_and_all),
		cmocka_unit_test(test_compiles_as_probe),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
