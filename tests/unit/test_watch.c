// SPDX-License-Identifier: GPL-2.0
/*
 * test_watch.c - watch tracepoints in the core (watch.h): the marks gdb
 * sends ("teval $watch = 4", gdb 13's bytecode) read at QTStart, the
 * refusals with their console message, and $watch_val / $watch_prev at
 * a hit, as the host (user_trace.c) gives them.  The kernel side, the
 * hardware breakpoints, is tests/e2e/test_watch.py's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "user_host.h"
#include "packets.h"
#include "tracepoint.h"
#include "tsv.h"
#include "collect.h"
#include "user_rsp.h"

#define ADDR		0xffffffffc0004070ull	/* a module's data, 16-aligned */
#define ADDR_S		"ffffffffc0004070"
#define CODE_S		"ffffffffc0000170"

/* $watch, $awatch, $watch_val, $watch_prev, $kret as variables 5 to 9 */
#define DEF_WATCH	"QTDV:5:0000000000000000:0:7761746368"
#define DEF_AWATCH	"QTDV:6:0000000000000000:0:617761746368"
#define DEF_VAL		"QTDV:7:0000000000000000:0:77617463685f76616c"
#define DEF_PREV	"QTDV:8:0000000000000000:0:77617463685f70726576"
#define DEF_KRET	"QTDV:9:0000000000000000:0:6b726574"
/* $watch_arm_1, $watch_arm_3, $watch_addr, $watch_arm_01 as 10 to 13 */
#define DEF_ARM1	"QTDV:a:0000000000000000:0:77617463685f61726d5f31"
#define DEF_ARM3	"QTDV:b:0000000000000000:0:77617463685f61726d5f33"
#define DEF_ADDR	"QTDV:c:0000000000000000:0:77617463685f61646472"
#define DEF_ARM01	"QTDV:d:0000000000000000:0:77617463685f61726d5f3031"

/* "teval $VAR = N": const8 N; setv VAR; pop; end */
#define SET(var, n)	"X7,22" n "2d000" var "2927"
#define WATCH4		SET("5", "04")
/* "if $watch_val == 0x1234": getv 7; const16 0x1234; equal; end */
#define COND_VAL	"X8,2c00072312341327"

static struct gtp_conn *gc;
static char console[4096];

static const char *ask(const char *data)
{
	const char *reply = user_rsp_ask(gc, data, console, sizeof(console));

	assert_non_null(reply);
	return reply;
}

static void define_vars(void)
{
	assert_string_equal(ask(DEF_WATCH), "OK");
	assert_string_equal(ask(DEF_AWATCH), "OK");
	assert_string_equal(ask(DEF_VAL), "OK");
	assert_string_equal(ask(DEF_PREV), "OK");
	assert_string_equal(ask(DEF_KRET), "OK");
	assert_string_equal(ask(DEF_ARM1), "OK");
	assert_string_equal(ask(DEF_ARM3), "OK");
	assert_string_equal(ask(DEF_ADDR), "OK");
	assert_string_equal(ask(DEF_ARM01), "OK");
}

static int setup(void **state)
{
	gc = user_rsp_session();
	assert_non_null(gc);
	define_vars();
	return 0;
}

static int teardown(void **state)
{
	user_rsp_session_end(gc);
	gc = NULL;
	return 0;
}

static void test_watch_marked(void **state)
{
	struct ax_env env = { 0 };
	struct gtp_tp *tp, *code;
	s64 val;

	/* 1: a 4-byte write watch if $watch_val == 0x1234; 2: code */
	assert_string_equal(ask("QTDP:1:" ADDR_S ":E:0:0:" COND_VAL "-"), "OK");
	assert_string_equal(ask("QTDP:-1:" ADDR_S ":" WATCH4), "OK");
	assert_string_equal(ask("QTDP:2:" CODE_S ":E:0:0"), "OK");
	assert_string_equal(ask("QTStart"), "OK");
	tp = gtp_tp_find(1, ADDR);
	code = gtp_tp_find(2, 0xffffffffc0000170ull);
	assert_int_equal(tp->watch_len, 4);
	assert_false(tp->watch_reads);
	assert_int_equal(code->watch_len, 0);
	/* the mark does nothing at a hit */
	assert_true(gtp_prog_marks_only(tp->actions[0].prog));

	/* read as getv reads them (ax_hook_getv(): gtp_tsv_get_hit()) */
	user_watch_vals[0] = 0x1234;
	user_watch_vals[1] = 0x1233;
	env.tp = tp;
	assert_int_equal(gtp_tsv_get_hit(7, &env, &val), 0);
	assert_int_equal(val, 0x1234);
	assert_int_equal(gtp_tsv_get_hit(8, &env, &val), 0);
	assert_int_equal(val, 0x1233);
	/* elsewhere both are 0, whatever the host holds */
	env.tp = code;
	assert_int_equal(gtp_tsv_get_hit(7, &env, &val), 0);
	assert_int_equal(val, 0);
	/* read-only */
	assert_int_equal(gtp_tsv_set(7, 1, 1), -EPERM);
	assert_string_equal(ask("QTStop"), "OK");

	/* $awatch, 8 bytes: reads too */
	assert_string_equal(ask("QTDP:1:" ADDR_S ":E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-1:" ADDR_S ":" SET("6", "08")), "OK");
	assert_string_equal(ask("QTStart"), "OK");
	tp = gtp_tp_find(1, ADDR);
	assert_int_equal(tp->watch_len, 8);
	assert_true(tp->watch_reads);
	memset(user_watch_vals, 0, sizeof(user_watch_vals));
}

/*
 * A watch's frame names the code that wrote: its pc is the debug trap's
 * ip (past the store), not the watched address a code location's frame
 * would show.
 */
static void test_watch_frame_pc(void **state)
{
	static u8 scratch[GTP_SCRATCH_SIZE];
	struct pt_regs regs = { .ip = 0xffffffff81234567ull,
				.sp = 0xffffc90000123450ull };
	const char *g;

	/* collect $regs; teval $watch = 8 */
	assert_string_equal(ask("QTDP:1:" ADDR_S ":E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-1:" ADDR_S ":R1ffff" SET("5", "08")),
			    "OK");
	assert_string_equal(ask("QTStart"), "OK");
	assert_true(gtp_tp_hit(gtp_tp_find(1, ADDR), &regs, scratch,
			       sizeof(scratch)));
	assert_string_equal(ask("QTStop"), "OK");
	assert_string_equal(ask("QTFrame:0"), "F0T1");
	g = ask("g");
	assert_true(strlen(g) >= 17 * 16);
	/* rip, register 16, little-endian */
	assert_memory_equal(g + 16 * 16, "67452381ffffffff", 16);
}

/*
 * A dynamic watch: tracepoint 1 at address 0 watches nothing until
 * tracepoint 2's action "teval $watch_arm_1 = ADDR" moves it, through the
 * host's ->watch_arm; $watch_addr is where the host watched.
 */
static void test_watch_dynamic(void **state)
{
	struct ax_env env = { 0 };
	s64 val;

	assert_int_equal(gtp_tsv_find(10)->builtin, GTP_TSV_WATCH_ARM);
	assert_int_equal(gtp_tsv_find(10)->arg, 1);
	assert_int_equal(gtp_tsv_find(11)->arg, 3);
	assert_int_equal(gtp_tsv_find(12)->builtin, GTP_TSV_WATCH_ADDR);
	assert_int_equal(gtp_tsv_find(13)->builtin, GTP_TSV_USER);
	assert_string_equal(ask("QTDP:1:0:E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-1:0:" SET("5", "04")), "OK");
	/* teval $watch_arm_1 = 0xffff888000001000 */
	assert_string_equal(ask("QTDP:2:" CODE_S ":E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-2:" CODE_S
				":Xe,25ffff8880000010002d000a2927"), "OK");
	assert_string_equal(ask("QTStart"), "OK");
	assert_int_equal(gtp_tp_find(1, 0)->watch_len, 4);
	assert_int_equal(gtp_tsv_set(10, (s64)0xffff888000001000ull, 2), 0);
	assert_true(user_watch_armed[0] == 1);
	assert_true(user_watch_armed[1] == 0xffff888000001000ull);
	/* read back: the last address asked */
	assert_int_equal(gtp_tsv_get_hit(10, &env, &val), 0);
	assert_true((u64)val == 0xffff888000001000ull);
	user_watch_vals[GTP_WATCH_ADDR] = 0xffff888000001000ull;
	env.tp = gtp_tp_find(1, 0);
	assert_int_equal(gtp_tsv_get_hit(12, &env, &val), 0);
	assert_true((u64)val == 0xffff888000001000ull);
	memset(user_watch_vals, 0, sizeof(user_watch_vals));
	memset(user_watch_armed, 0, sizeof(user_watch_armed));
}

/* QTStart with tracepoint 1 at @addr and actions @acts fails, saying @why. */
static void refused(const char *addr, const char *acts, const char *why)
{
	char pkt[256];

	assert_string_equal(ask("QTinit"), "OK");
	define_vars();
	snprintf(pkt, sizeof(pkt), "QTDP:1:%s:E:0:0", addr);
	assert_string_equal(ask(pkt), "OK");
	snprintf(pkt, sizeof(pkt), "QTDP:-1:%s:%s", addr, acts);
	assert_string_equal(ask(pkt), "OK");
	assert_string_equal(ask("QTStart"), "E01");
	if (!strstr(console, why))
		fail_msg("%s: console says \"%s\", not \"%s\"", acts, console,
			 why);
	assert_non_null(strstr(console, "tracepoint 1 at 0x"));
}

static void test_watch_refused(void **state)
{
	refused(ADDR_S, SET("5", "03"), "1, 2, 4 or 8");
	/* "teval $watch = $rax": reg 0; setv 5; pop; end */
	refused(ADDR_S, "X8,2600002d00052927", "constant length");
	refused(ADDR_S, WATCH4 SET("6", "04"), "once");
	refused(ADDR_S, WATCH4 SET("5", "08"), "once");
	refused("ffffffffc0004072", WATCH4, "aligned to its length");
	refused("00007f0000001000", WATCH4, "kernel address");
	refused(ADDR_S, WATCH4 SET("9", "00"), "return probe");
	/* tracepoint 1 moves watch 3, which there is none of */
	refused(ADDR_S, WATCH4 SET("b", "00"),
		"sets $watch_arm_3, but tracepoint 3 is no watch");
	/* a watch refused leaves nothing armed: a plain run starts */
	assert_string_equal(ask("QTinit"), "OK");
	assert_string_equal(ask("QTDP:1:" CODE_S ":E:0:0"), "OK");
	assert_string_equal(ask("QTStart"), "OK");
}

int main(void)
{
#define T(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_watch_marked),
		T(test_watch_frame_pc),
		T(test_watch_dynamic),
		T(test_watch_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
