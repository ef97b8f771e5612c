// SPDX-License-Identifier: GPL-2.0
/*
 * test_hit_budget.c - one step budget per probe hit, whatever the hit
 * runs: counted in the reads one hit makes, interpreted and JIT-compiled.
 *
 * Tracepoints are defined with QTDP packets as gdb sends them and hit the
 * way module/probes/kprobe.c does (gtp_tp_precheck(), then gtp_tp_hit_held() or
 * gtp_tp_hit_undecided() on the precheck's environment).  Every ref in
 * these programs is one ax_hook_read() (user_env_nr_reads()), so reads
 * bound the insns a hit ran:
 *
 *  (a) a pure condition that loops until the budget runs out is run once
 *      per hit, not once in the precheck and again with a new budget;
 *  (b) straight-line code is charged per insn: a program's steps, and a
 *      location's bytecode, capped at definition time with a message;
 *  (c) a condition and the actions after it share the budget: the actions
 *      are cut where it ends, the error is counted, and the frame keeps
 *      what the hit collected before;
 *  (d) and only that: the bytes of the actions the cut skipped are no
 *      part of the frame, even when its size was planned without the cut.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "user_host.h"
#include "packets.h"
#include "trace.h"
#include "tracepoint.h"
#include "collect.h"
#include "jit.h"
#include "user_env.h"
#include "user_rsp.h"

#define ADDR16		"ffffffffc0000170"
#define ADDR		0xffffffffc0000170ull
/* 8 readable bytes holding their own address: ref64 chains stay on it */
#define MEM		0xffffffffc0005000ull
#define MEM_HEX		"ffffffffc0005000"
#define ADDR2_16	"ffffffffc0001700"
#define ADDR2		0xffffffffc0001700ull
/* memory another tracepoint collects */
#define MEM2		0xffffffffc0006000ull
#define MEM2_HEX	"ffffffffc0006000"

static struct gtp_conn *gc;
static char console[4096];
static u8 scratch[GTP_SCRATCH_SIZE];
static char pkt[RSP_PKT_MAX];

/* Send @data; the final reply, gdb's console text in @console. */
static const char *ask(const char *data)
{
	const char *reply = user_rsp_ask(gc, data, console, sizeof(console));

	assert_non_null(reply);
	return reply;
}

static int setup(void **state)
{
	static const u64 self = MEM;

	gtp_packets_init();
	gtp_trace_init();
	user_env_reset();
	assert_int_equal(user_env_add_region(MEM, &self, sizeof(self)), 0);
	gc = gtp_conn_open();
	assert_non_null(gc);
	assert_string_equal(ask("QStartNoAckMode"), "OK");
	assert_string_equal(ask("QTinit"), "OK");
	user_jit_off = *state != NULL;
	return 0;
}

static int teardown(void **state)
{
	ask("QTStop");
	ask("QTinit");
	gtp_conn_close(gc);
	gc = NULL;
	user_jit_off = false;
	return 0;
}

/* One hit, as module/probes/kprobe.c's handler makes it. */
static bool probe_hit(struct gtp_tp *tp)
{
	static struct ax_env env;	/* the probe's per-CPU environment */
	struct pt_regs regs = { .di = 0x1111, .si = 0x2222, .ip = ADDR + 1,
				.sp = 0xffffc90000123450ull, .cs = 0x10,
				.ss = 0x18, .flags = 0x246 };
	enum gtp_precheck pre = gtp_tp_precheck(tp, &regs, &env);

	if (pre == GTP_PRE_FALSE)
		return false;
	if (pre == GTP_PRE_HELD)
		return gtp_tp_hit_held(tp, &regs, scratch, sizeof(scratch),
				       &env);
	return gtp_tp_hit_undecided(tp, &regs, scratch, sizeof(scratch),
				    &env);
}

/* Is every program of @tp compiled (or, with user_jit_off, none)? */
static void assert_compiled(const struct gtp_tp *tp)
{
	u32 i;

	if (tp->cond)
		assert_int_equal(tp->cond->jit != NULL, !user_jit_off);
	for (i = 0; i < tp->nactions; i++)
		if (tp->actions[i].prog)
			assert_int_equal(tp->actions[i].prog->jit != NULL,
					 !user_jit_off);
}

/* "X<len>,<hex>" of: const64 MEM; ref64 x @n; end (@n + 2 insns). */
static const char *reads_action(unsigned int n)
{
	static char x[2 * AX_MAX_CODE + 16];
	size_t len;
	unsigned int i;

	len = snprintf(x, sizeof(x), "X%x,25" MEM_HEX, 9 + n + 1);
	for (i = 0; i < n; i++)
		len += snprintf(x + len, sizeof(x) - len, "1a");
	snprintf(x + len, sizeof(x) - len, "27");
	return x;
}

/*
 * (a) L: const64 MEM; ref64; if_goto L; const8 1; end -- never ends: 5
 * insns at entry, then a read per taken jump of span 3.  Before, the
 * precheck ran it out of budget and the hit ran it again on a new one:
 * twice the reads.
 */
static void test_failing_pure_condition_runs_once(void **state)
{
	struct gtp_tp *tp;
	unsigned int reads;

	assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:0:X10,25" MEM_HEX
				"1a200000220127"), "OK");
	assert_string_equal(ask("QTDP:-1:" ADDR16 ":R0fffffffffffffff"), "OK");
	tp = gtp_tp_find(1, ADDR);
	assert_true(tp->cond_pure);
	assert_compiled(tp);
	assert_string_equal(ask("QTStart"), "OK");

	assert_false(probe_hit(tp));
	reads = user_env_nr_reads();
	print_message("one hit: %u reads (budget %u steps)\n", reads,
		      AX_STEP_BUDGET);
	assert_int_equal(reads, 1 + (AX_STEP_BUDGET - 5) / 3);
	assert_int_equal(atomic_long_read(&tp->errors), 1);
	assert_int_equal(tp->last_err, AX_ERR_BUDGET);
	assert_int_equal(atomic_long_read(&tp->hits), 0);
}

/* (b) a straight-line program pays its insns: 1000 reads, 1002 steps. */
static void test_straight_line_charged(void **state)
{
	struct ax_prog *prog;
	struct ax_env env = { 0 };
	char log[128];
	u8 code[AX_MAX_CODE];
	u32 len = 0, i;

	code[len++] = AX_CONST64;
	for (i = 0; i < 8; i++)
		code[len++] = MEM >> (56 - 8 * i);
	for (i = 0; i < 1000; i++)
		code[len++] = AX_REF64;
	code[len++] = AX_END;
	assert_int_equal(ax_verify(code, len, false, &prog, log, sizeof(log)),
			 0);
	if (!user_jit_off)
		assert_int_equal(ax_jit_compile(prog, log, sizeof(log)), 0);
	assert_int_equal(ax_run(prog, &env), MEM);
	assert_int_equal(env.err, 0);
	assert_int_equal(user_env_nr_reads(), 1000);
	assert_int_equal(env.steps, AX_STEP_BUDGET - 1002);
	/* one step short: nothing runs */
	env.steps = 1001;
	assert_int_equal(ax_run_hit(prog, &env), 0);
	assert_int_equal(env.err, AX_ERR_BUDGET);
	assert_int_equal(env.steps, 1001);
	assert_int_equal(user_env_nr_reads(), 1000);
	if (prog->jit)
		ax_jit_free(prog);
	ax_prog_free(prog);
}

/*
 * (b) A location's bytecode is capped at definition time: 64 actions of
 * 1000 straight-line reads fit, and one hit makes all 64 000 reads; the
 * 65th action is refused, saying why.  Before, a location took up to 1024
 * such actions, a million reads per hit with preemption off.
 */
static void test_location_code_capped(void **state)
{
	struct gtp_tp *tp;
	char want[160];
	unsigned int i;

	assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:0"), "OK");
	for (i = 0; i < 64; i++) {
		snprintf(pkt, sizeof(pkt), "QTDP:-1:" ADDR16 ":%s",
			 reads_action(1000));
		assert_string_equal(ask(pkt), "OK");
	}
	snprintf(pkt, sizeof(pkt), "QTDP:-1:" ADDR16 ":%s", reads_action(1000));
	assert_string_equal(ask(pkt), "E01");
	snprintf(want, sizeof(want), "tracepoint 1: its condition and actions would hold %u bytes of bytecode, more than the %u a location may have",
		 65 * 1010, GTP_TP_CODE_MAX);
	assert_non_null(strstr(console, want));
	tp = gtp_tp_find(1, ADDR);
	assert_int_equal(tp->nactions, 64);
	assert_compiled(tp);

	assert_string_equal(ask("QTStart"), "OK");
	assert_true(probe_hit(tp));
	assert_int_equal(user_env_nr_reads(), 64 * 1000);
	assert_int_equal(atomic_long_read(&tp->errors), 0);
}

/*
 * (c) const16 15000; L: const8 1; sub; dup; if_goto L; pop; const8 1; end
 * is true after 8 + 14999 * 4 = 60004 steps (@setv: it also sets TSV 1,
 * one insn more, so it is not pure and runs after the precheck).  Then
 * $regs, then six actions of 1000 reads (1002 insns each): the 5532 (5531)
 * steps left pay for five; the sixth is refused at entry and ends the
 * hit.  Before, straight-line actions cost nothing: all 6000 reads ran.  The frame keeps
 * the R block and is stored; the error is counted.
 */
static void hit_shares_budget(bool setv)
{
	struct gtp_tp *tp;
	const char *r;
	unsigned int i;

	if (setv)	/* ...; pop; const8 1; setv 1; end: 9 insns */
		assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:0:X11,233a98"
					"22010328200003292201" "2d0001" "27"),
				    "OK");
	else
		assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:0:Xe,233a98"
					"22010328200003292201" "27"), "OK");
	assert_string_equal(ask("QTDP:-1:" ADDR16 ":R0fffffffffffffff"), "OK");
	for (i = 0; i < 6; i++) {
		snprintf(pkt, sizeof(pkt), "QTDP:-1:" ADDR16 ":%s",
			 reads_action(1000));
		assert_string_equal(ask(pkt), "OK");
	}
	tp = gtp_tp_find(1, ADDR);
	assert_int_equal(tp->cond_pure, !setv);
	assert_compiled(tp);
	assert_string_equal(ask("QTStart"), "OK");

	assert_true(probe_hit(tp));
	print_message("one hit: %u reads\n", user_env_nr_reads());
	assert_int_equal(user_env_nr_reads(), 5 * 1000);
	if (setv)
		assert_int_equal(user_env_tsv(1), 1);
	assert_int_equal(atomic_long_read(&tp->hits), 1);
	assert_int_equal(atomic_long_read(&tp->errors), 1);
	assert_int_equal(tp->last_err, AX_ERR_BUDGET);
	/* the frame holds what was collected before: the registers */
	assert_string_equal(ask("QTStop"), "OK");
	assert_non_null(strstr(console, "tracepoint 1 at 0xffffffffc0000170: 1 evaluation error(s), last: step budget exhausted"));
	assert_string_equal(ask("QTFrame:0"), "F0T1");
	r = ask("g");
	/* rdi (register 5) = 0x1111, little-endian */
	assert_memory_equal(r + 5 * 16, "1111000000000000", 16);
}

static void test_condition_and_actions_share_budget(void **state)
{
	hit_shares_budget(false);
}

static void test_side_effect_condition_and_actions_share_budget(void **state)
{
	hit_shares_budget(true);
}

/*
 * (d) Tracepoint 2 collects 200 bytes of "SECRET!!"; the next run reuses
 * the store (same geometry), so its frame's bytes are still where the
 * next frame goes.  Tracepoint 1 runs "L: const8 1; if_goto L; end", then
 * $regs: the loop runs out of budget and ends the hit before the R block.
 * Its frame is the header alone, as a frame built in scratch would be.
 * Before, the frame was reserved at its planned size (header and R block)
 * and committed whole: its R block was the "SECRET!!" left there.
 */
static void test_budget_cut_leaves_no_stale_bytes(void **state)
{
	static u8 secret[200];
	struct gtp_tp *tp1, *tp2;
	const char *r;
	unsigned int i;

	for (i = 0; i < sizeof(secret); i++)
		secret[i] = "SECRET!!"[i % 8];
	assert_int_equal(user_env_add_region(MEM2, secret, sizeof(secret)), 0);
	assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-1:" ADDR16 ":X6,220120000027-"), "OK");
	assert_string_equal(ask("QTDP:-1:" ADDR16 ":R0fffffffffffffff"), "OK");
	assert_string_equal(ask("QTDP:2:" ADDR2_16 ":E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-2:" ADDR2_16 ":M-1," MEM2_HEX ",c8"),
			    "OK");
	tp1 = gtp_tp_find(1, ADDR);
	tp2 = gtp_tp_find(2, ADDR2);
	assert_compiled(tp1);

	assert_string_equal(ask("QTStart"), "OK");
	assert_true(probe_hit(tp2));
	assert_string_equal(ask("QTStop"), "OK");
	assert_string_equal(ask("QTFrame:0"), "F0T2");
	r = ask("m" MEM2_HEX ",8");
	assert_string_equal(r, "5345435245542121");	/* "SECRET!!" */

	assert_string_equal(ask("QTStart"), "OK");
	probe_hit(tp1);
	assert_int_equal(atomic_long_read(&tp1->hits), 1);
	assert_int_equal(atomic_long_read(&tp1->errors), 1);
	assert_int_equal(tp1->last_err, AX_ERR_BUDGET);
	assert_string_equal(ask("QTStop"), "OK");
	assert_non_null(strstr(console, "tracepoint 1 at 0xffffffffc0000170: 1 evaluation error(s), last: step budget exhausted"));
	/* one frame of tracepoint 1, 0 bytes of blocks: nothing else */
	assert_string_equal(ask("qTBuffer:0,1000"), "010000000000");
	assert_string_equal(ask("QTFrame:0"), "F0T1");
	r = ask("g");
	/* rdi (register 5) was never collected */
	assert_memory_equal(r + 5 * 16, "xxxxxxxxxxxxxxxx", 16);
	assert_null(strstr(r, "5345435245542121"));
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
#define TI(f) { #f " (interpreted)", f, setup, teardown, (void *)1 }

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_failing_pure_condition_runs_once),
		TI(test_failing_pure_condition_runs_once),
		T(test_straight_line_charged),
		TI(test_straight_line_charged),
		T(test_location_code_capped),
		TI(test_location_code_capped),
		T(test_condition_and_actions_share_budget),
		TI(test_condition_and_actions_share_budget),
		T(test_side_effect_condition_and_actions_share_budget),
		TI(test_side_effect_condition_and_actions_share_budget),
		T(test_budget_cut_leaves_no_stale_bytes),
		TI(test_budget_cut_leaves_no_stale_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
