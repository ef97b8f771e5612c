// SPDX-License-Identifier: GPL-2.0
/*
 * test_tracepoint.c - the tracepoint packets end to end in userspace:
 * QTDP parsing (real gdb 13 packets from the protocol reference), refusals
 * with their console message, TSVs, the run state, hits through
 * gtp_tp_hit() with fake registers, QTFrame in all forms, g/m from frames,
 * traceframe-info, qTBuffer, and the frame store's circular mode.
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
#include "tsv.h"
#include "frame.h"
#include "collect.h"
#include "jit.h"
#include "entryval.h"
#include "user_env.h"
#include "user_rsp.h"


#define ADDR		0xffffffffc0000170ull
#define ADDR_S		"ffffffffc0000170"
#define ADDR16		"ffffffffc0000170"
#define ADDR2		"ffffffffc0001700"
#define GLOBAL		0xffffffffc0004074ull

static struct gtp_conn *gc;
static char console[4096];	/* 'O' text of the last exchange */
static u8 scratch[GTP_SCRATCH_SIZE];

/* Send @data; the final reply, gdb's console text in @console. */
static const char *ask(const char *data)
{
	const char *reply = user_rsp_ask(gc, data, console, sizeof(console));

	assert_non_null(reply);
	return reply;
}

static int setup(void **state)
{
	gc = user_rsp_session();
	assert_non_null(gc);
	assert_string_equal(ask("QTBuffer:circular:0"), "OK");
	assert_string_equal(ask("QTBuffer:size:-1"), "OK");
	assert_string_equal(ask("QTDisconnected:0"), "OK");
	return 0;
}

static int teardown(void **state)
{
	user_rsp_session_end(gc);
	gc = NULL;
	return 0;
}

/* The reference's "trace work if x >= 0" condition, 0x13 bytes. */
#define COND_X	"X13,26000622100222ec1608021916202200140e27"

static void test_qtdp_define_and_upload(void **state)
{
	struct gtp_tp *tp;

	assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:3:" COND_X "-"), "OK");
	assert_string_equal(ask("QTDP:-1:" ADDR16 ":R0fffffffffffffff-"), "OK");
	assert_string_equal(ask("QTDP:-1:" ADDR16
		":M-1,ffffffffc0004074,4X0000000F,26000622100222ec16080222040c27"),
		"OK");
	assert_string_equal(ask("QTDPsrc:1:" ADDR_S ":at:0:4:776f726b"), "OK");
	assert_string_equal(ask("QTDPsrc:1:" ADDR_S ":cond:0:6:78203e3d2030"),
			    "OK");
	/* "*(work + 5)": accepted, not uploaded (gdb uses the address) */
	assert_string_equal(ask("QTDPsrc:1:" ADDR_S
				":at:0:c:2a28776f726b202b203529"), "OK");

	tp = gtp_tp_find(1, ADDR);
	assert_non_null(tp);
	assert_true(tp->enabled);
	assert_int_equal(tp->pass, 3);
	assert_non_null(tp->cond);
	assert_int_equal(tp->nactions, 3);
	assert_int_equal(tp->actions[0].type, GTP_ACT_REGS);
	assert_int_equal(tp->regmask, 0x0fffffffffffffffull);
	assert_int_equal(tp->actions[1].type, GTP_ACT_MEM);
	assert_int_equal(tp->actions[1].basereg, -1);
	assert_int_equal(tp->actions[1].offset, GLOBAL);
	assert_int_equal(tp->actions[1].len, 4);
	assert_int_equal(tp->actions[2].type, GTP_ACT_EXPR);

	/* Upload gives back what gdb needs to rebuild the tracepoint. */
	assert_string_equal(ask("qTfP"), "T1:" ADDR_S ":E:0:3:" COND_X);
	assert_string_equal(ask("qTsP"), "A1:" ADDR_S ":R0fffffffffffffff");
	assert_string_equal(ask("qTsP"), "A1:" ADDR_S
		":M-1,ffffffffc0004074,4X0000000F,26000622100222ec16080222040c27");
	assert_string_equal(ask("qTsP"), "Z1:" ADDR_S ":at:0:4:776f726b");
	assert_string_equal(ask("qTsP"), "Z1:" ADDR_S ":cond:0:6:78203e3d2030");
	assert_string_equal(ask("qTsP"), "l");
	assert_string_equal(ask("qTsP"), "l");
	/* Disabled, redefined: the old definition is replaced. */
	assert_string_equal(ask("QTDP:1:" ADDR16 ":D:0:0"), "OK");
	assert_string_equal(ask("qTfP"), "T1:" ADDR_S ":D:0:0");
	assert_string_equal(ask("qTsP"), "l");
}

static void test_while_stepping_refused(void **state)
{
	assert_string_equal(ask("QTDP:2:" ADDR16 ":E:2:0-"), "E01");
	assert_non_null(strstr(console, "while-stepping is not supported"));
	assert_null(gtp_tp_find(2, ADDR));

	assert_string_equal(ask("QTDP:2:" ADDR16 ":E:0:0-"), "OK");
	assert_string_equal(ask("QTDP:-2:" ADDR16 ":SR010000"), "E01");
	assert_non_null(strstr(console, "while-stepping"));
}

static void test_verifier_refusal_explained(void **state)
{
	/* goto 0x10 in a 3-byte program */
	assert_string_equal(ask("QTDP:3:" ADDR16 ":E:0:0:X3,210010"), "E01");
	assert_non_null(strstr(console, "tracepoint 3: condition refused by the verifier: "));
	assert_null(gtp_tp_find(3, ADDR));
	assert_string_equal(ask("QTDP:3:" ADDR16 ":E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-3:" ADDR16 ":X00000001,01"), "E01");
	assert_non_null(strstr(console, "action refused by the verifier"));
}

/*
 * A tracepoint without actions is planned when defined: its frames are
 * the header alone, of fixed size, written on the lean path (tp->lean);
 * with 'collect $regs' they are the header and one R block.
 */
static void test_plan_without_actions(void **state)
{
	struct gtp_tp *tp;

	assert_string_equal(ask("QTDP:5:" ADDR16 ":E:0:0"), "OK");
	tp = gtp_tp_find(5, ADDR);
	assert_int_equal(tp->frame_len, GTP_FRAME_HDR);
	assert_true(tp->lean);
	assert_string_equal(ask("QTDP:-5:" ADDR16 ":R1ffff"), "OK");
	assert_int_equal(tp->frame_len, GTP_FRAME_HDR + 1 + GTP_G_SIZE);
	assert_true(tp->lean);
	assert_string_equal(ask("QTDP:-5:" ADDR16 ":M-1,0,8"), "OK");
	assert_false(tp->lean);
}

/*
 * An M length near 2^64 used to wrap gtp_tp_min_frame_len(),
 * so QTStart's size check passed.  Such a length is refused at QTDP, and
 * the frame-length bound saturates rather than wraps.
 */
static void test_huge_mem_length_refused(void **state)
{
	assert_string_equal(ask("QTDP:4:" ADDR16 ":E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-4:" ADDR16 ":M-1,0,ffffffffffffffff"),
			    "E01");
	assert_non_null(strstr(console, "tracepoint 4: memory range of 18446744073709551615 bytes is longer than any trace buffer"));
	assert_string_equal(ask("QTDP:-4:" ADDR16 ":M-1,0,40000001"), "E01");
	/* the largest a buffer can hold is accepted, and QTStart refuses it */
	assert_string_equal(ask("QTDP:-4:" ADDR16 ":M-1,0,40000000"), "OK");
	assert_true(gtp_tp_min_frame_len(gtp_tp_find(4, ADDR)) > (1ull << 30));
	assert_string_equal(ask("QTStart"), "E01");
	assert_non_null(strstr(console, "tracepoint 4: its frames need at least"));
}

/*
 * A second condition in one QTDP used to overwrite (and leak)
 * the first one's program and image.  gdb never sends two: refused.
 */
static void test_two_conditions_refused(void **state)
{
	assert_string_equal(ask("QTDP:5:" ADDR16 ":E:0:0:" COND_X ":" COND_X),
			    "E01");
	assert_non_null(strstr(console, "tracepoint 5: more than one condition"));
	assert_null(gtp_tp_find(5, ADDR));
}

static void test_malformed_refused(void **state)
{
	static const char *const bad[] = {
		"QTDP:", "QTDP:zz", "QTDP:1:" ADDR16 ":Q:0:0",
		"QTDP:1:" ADDR16 ":E:0", "QTDP:1:" ADDR16 ":E:0:0:X5,00",
		"QTDP:1:" ADDR16 ":E:0:0:Xzz", "QTDP:1:" ADDR16 ":E:0:0junk",
		"QTDP:-9:" ADDR16 ":R01", "QTDPsrc:9:1:at:0:1:41",
		"QTDV:1", "QTFrame:pc:zz", "qTP:1", "QTBuffer:size:2",
		"QTEnable:77:1",
	};
	unsigned int i;

	assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-1:" ADDR16 ":Q12"), "E01");
	assert_string_equal(ask("QTDP:-1:" ADDR16 ":M5,1"), "E01");
	assert_string_equal(ask("QTDP:-1:" ADDR16 ":M-2,1,1"), "E01");
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		const char *r = ask(bad[i]);

		assert_true(r[0] == 'E' || r[0] == 'F');
	}
}

/* Numbers must fit a frame's int16; locations are bounded. */
static void test_limits(void **state)
{
	char pkt[64];
	unsigned int i;

	assert_string_equal(ask("QTDP:8000:" ADDR16 ":E:0:0"), "E01");
	assert_string_equal(ask("QTDP:0:" ADDR16 ":E:0:0"), "E01");
	assert_string_equal(ask("QTDP:7fff:" ADDR16 ":E:0:0"), "OK");
	for (i = 1; i < GTP_TP_MAX; i++) {
		snprintf(pkt, sizeof(pkt), "QTDP:%x:%016x:E:0:0", i, 0x1000 + i);
		assert_string_equal(ask(pkt), "OK");
	}
	assert_string_equal(ask("QTDP:1:0000000000000001:E:0:0"), "E01");
	/* redefining an existing location is still allowed */
	assert_string_equal(ask("QTDP:1:0000000000001001:D:0:0"), "OK");
	assert_string_equal(ask("QTinit"), "OK");
	assert_string_equal(ask("QTDP:1:0000000000000001:E:0:0"), "OK");
}

/*
 * One hit runs its condition and all its actions on one budget (ax.h):
 * before, each of a thousand actions had its own step budget and its own
 * faults, and one hit could fault millions of times with preemption off.
 */
static bool hit(struct gtp_tp *tp, u64 a, u64 b);

static void test_hit_budget_shared(void **state)
{
	const char *r;
	struct gtp_tp *tp;
	unsigned int i, faults;

	/* condition and action each loop 9999 times (39996 steps): true */
	assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:0:"
				"Xe,2327102201032820000322010227"), "OK");
	assert_string_equal(ask("QTDP:-1:" ADDR16 ":Xb,2327102201032820000327"),
			    "OK");
	/* 1024 reads of unmapped memory, one fault each */
	assert_string_equal(ask("QTDP:2:" ADDR2 ":E:0:0"), "OK");
	for (i = 0; i < GTP_TP_ACTIONS_MAX / 16; i++)
		assert_string_equal(ask("QTDP:-2:" ADDR2 ":"
			"M-1,ffff888000000000,100M-1,ffff888000000000,100"
			"M-1,ffff888000000000,100M-1,ffff888000000000,100"
			"M-1,ffff888000000000,100M-1,ffff888000000000,100"
			"M-1,ffff888000000000,100M-1,ffff888000000000,100"
			"M-1,ffff888000000000,100M-1,ffff888000000000,100"
			"M-1,ffff888000000000,100M-1,ffff888000000000,100"
			"M-1,ffff888000000000,100M-1,ffff888000000000,100"
			"M-1,ffff888000000000,100M-1,ffff888000000000,100-"),
			"OK");
	assert_string_equal(ask("QTStart"), "OK");

	tp = gtp_tp_find(1, ADDR);
	assert_true(hit(tp, 1, 2));
	assert_int_equal(atomic_long_read(&tp->errors), 1);
	assert_int_equal(tp->last_err, AX_ERR_BUDGET);
	/*
	 * qTP: hits, bytes, then (gtp-ctl status) errors, the last one and
	 * the time spent in hits (budget.h)
	 */
	r = ask("qTP:1:" ADDR_S);
	assert_true(r[0] == 'V' && strlen(r) > 4);
	assert_non_null(strstr(r, ":1:3:"));

	tp = gtp_tp_find(2, 0xffffffffc0001700ull);
	faults = user_env_nr_faults();
	hit(tp, 1, 2);
	assert_int_equal(user_env_nr_faults() - faults, AX_HIT_FAULTS_MAX);
	/* the next hit has a budget of its own */
	hit(tp, 1, 2);
	assert_int_equal(user_env_nr_faults() - faults, 2 * AX_HIT_FAULTS_MAX);
	assert_string_equal(ask("QTStop"), "OK");
}

/* Per-location limits: refused with a reason, nothing half-added. */
static void test_action_limits(void **state)
{
	static char pkt[RSP_PKT_MAX];
	struct gtp_tp *tp;
	unsigned int i;
	const char *why;

	assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:0"), "OK");
	/* GTP_TP_ACTIONS_MAX actions in chunks of 16: all accepted */
	for (i = 0; i < GTP_TP_ACTIONS_MAX / 16; i++)
		assert_string_equal(ask("QTDP:-1:" ADDR16 ":R01R01R01R01R01R01"
					"R01R01R01R01R01R01R01R01R01R01-"), "OK");
	tp = gtp_tp_find(1, ADDR);
	assert_int_equal(tp->nactions, GTP_TP_ACTIONS_MAX);
	assert_string_equal(ask("QTDP:-1:" ADDR16 ":R01X3,220127"), "E01");
	assert_non_null(strstr(console, "more than 1024 actions"));
	assert_int_equal(tp->nactions, GTP_TP_ACTIONS_MAX);
	assert_int_equal(tp->chunks.n, GTP_TP_ACTIONS_MAX / 16);

	/* action packets */
	assert_string_equal(ask("QTDP:2:" ADDR2 ":E:0:0"), "OK");
	for (i = 0; i < GTP_TP_CHUNKS_MAX; i++)
		assert_string_equal(ask("QTDP:-2:" ADDR2 ":-"), "OK");
	assert_string_equal(ask("QTDP:-2:" ADDR2 ":R01"), "E01");
	assert_non_null(strstr(console, "more than 128 action packets"));
	assert_int_equal(gtp_tp_find(2, 0xffffffffc0001700ull)->nactions, 0);

	/* source strings: a count, then total bytes */
	for (i = 0; i < GTP_TP_SRCS_MAX; i++)
		assert_string_equal(ask("QTDPsrc:1:" ADDR16 ":cmd:0:2:6162"), "OK");
	assert_string_equal(ask("QTDPsrc:1:" ADDR16 ":cmd:0:2:6162"), "E01");
	assert_non_null(strstr(console, "more than 256 source strings"));
	assert_int_equal(tp->srcs.n, GTP_TP_SRCS_MAX);
	i = snprintf(pkt, sizeof(pkt), "QTDPsrc:2:" ADDR2 ":cmd:0:800:");
	memset(pkt + i, '6', 4096);
	pkt[i + 4096] = '\0';
	for (i = 0; i < GTP_TP_SRC_BYTES_MAX / 4106; i++)
		assert_string_equal(ask(pkt), "OK");
	assert_string_equal(ask(pkt), "E01");
	assert_non_null(strstr(console, "bytes of them"));

	/* JIT images: past the limit, interpreted, and QTStart's note says why */
	assert_string_equal(ask("QTinit"), "OK");
	for (i = 1; i <= GTP_JIT_IMAGES_MAX; i++) {
		snprintf(pkt, sizeof(pkt), "QTDP:%x:%016x:E:0:0:X3,220127",
			 i, 0x1000 + i);
		assert_string_equal(ask(pkt), "OK");
	}
	assert_non_null(gtp_tp_find_num(GTP_JIT_IMAGES_MAX)->cond->jit);
	assert_int_equal(gtp_tps_interpreted(&why), 0);
	snprintf(pkt, sizeof(pkt), "QTDP:-1:%016x:X3,220127", 0x1001);
	assert_string_equal(ask(pkt), "OK");
	assert_null(gtp_tp_find_num(1)->actions[0].prog->jit);
	assert_int_equal(gtp_tps_interpreted(&why), 1);
	assert_non_null(strstr(why, "limit of 1024 images"));
	/* QTinit gives the images back */
	assert_string_equal(ask("QTinit"), "OK");
	assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:0:X3,220127"), "OK");
	assert_non_null(gtp_tp_find(1, ADDR)->cond->jit);
}

/* Where a probe of test_jit_probe_images_counted() would go on: never. */
static void probe_held(void)
{
	fail_msg("a probe ran");
}

/*
 * A probe's own image (kprobe-jit, a direct trampoline, static-jit: all
 * through gtp_tp_jit_probe()) takes executable memory as a definition's
 * program does: it counts toward GTP_JIT_IMAGES_MAX with them.
 */
static void test_jit_probe_images_counted(void **state)
{
	static char pkt[RSP_PKT_MAX];
	struct ax_jit_probe probe, probe2;
	const char *why;
	char log[96];
	unsigned int i;

	assert_string_equal(ask("QTinit"), "OK");
	/* condition "$rdi": reg 5; end */
	for (i = 1; i < GTP_JIT_IMAGES_MAX; i++) {
		snprintf(pkt, sizeof(pkt), "QTDP:%x:%016x:E:0:0:X4,26000527",
			 i, 0x1000 + i);
		assert_string_equal(ask(pkt), "OK");
	}
	assert_non_null(gtp_tp_find_num(GTP_JIT_IMAGES_MAX - 1)->cond->jit);
	/* the last image left: a probe takes it */
	assert_int_equal(gtp_tp_jit_probe(gtp_tp_find_num(1)->cond,
					  probe_held, NULL, 0, &probe, log,
					  sizeof(log)), 0);
	assert_non_null(probe.entry);
	/* so the next definition is interpreted, and QTStart will say why */
	snprintf(pkt, sizeof(pkt), "QTDP:%x:%016x:E:0:0:X4,26000527",
		 GTP_JIT_IMAGES_MAX, 0x1000 + GTP_JIT_IMAGES_MAX);
	assert_string_equal(ask(pkt), "OK");
	assert_null(gtp_tp_find_num(GTP_JIT_IMAGES_MAX)->cond->jit);
	assert_int_equal(gtp_tps_interpreted(&why), 1);
	assert_non_null(strstr(why, "limit of 1024 images"));
	/* and so is the next probe: its backend takes the generic handler */
	assert_int_equal(gtp_tp_jit_probe(gtp_tp_find_num(1)->cond,
					  probe_held, NULL, 0, &probe2, log,
					  sizeof(log)), -ENOSPC);
	assert_null(probe2.entry);
	assert_non_null(strstr(log, "limit of 1024 images"));
	/* freeing the probe gives its image back */
	gtp_tp_jit_probe_free(&probe);
	assert_null(probe.entry);
	snprintf(pkt, sizeof(pkt), "QTDP:-1:%016x:X3,220127", 0x1001);
	assert_string_equal(ask(pkt), "OK");
	assert_non_null(gtp_tp_find_num(1)->actions[0].prog->jit);
}

/* The flight recorder's trigger: an action sets $gtp_stop (tsv.c). */
static void test_stop_trigger(void **state)
{
	const char *why = "$gtp_stop set by tracepoint 7";
	char want[128], *w;
	const char *r;

	w = want + sprintf(want, "T0;tstop:");
	for (; *why; why++)
		w += sprintf(w, "%02x", (unsigned char)*why);
	strcpy(w, ":7;");

	assert_string_equal(ask("QTDV:1:0000000000000000:0:6774705f73746f70"),
			    "OK");
	assert_string_equal(ask("QTDP:7:" ADDR16 ":E:0:0"), "OK");
	assert_string_equal(ask("QTStart"), "OK");
	assert_string_equal(ask("qTV:1"), "V0");	/* 0: running */
	assert_int_equal(gtp_tsv_set(1, 0, 7), 0);	/* 0 changes nothing */
	assert_true(gtp_trace_running());
	assert_int_equal(gtp_tsv_set(1, 5, 7), 0);
	assert_false(gtp_trace_running());
	assert_string_equal(ask("qTV:1"), "V1");
	r = ask("qTStatus");
	assert_non_null(strstr(r, want));
	/* the first stopper's reason stays, through a later setter and QTStop */
	assert_int_equal(gtp_tsv_set(1, 1, 9), 0);
	assert_string_equal(ask("QTStop"), "OK");
	r = ask("qTStatus");
	assert_non_null(strstr(r, want));
	/* the next run starts */
	assert_string_equal(ask("QTStart"), "OK");
	assert_true(gtp_trace_running());
	assert_string_equal(ask("qTV:1"), "V0");
}

/* @s as qTStatus's notes carry it: hex. */
static void hexof(char *out, const char *s)
{
	for (; *s; s++)
		out += sprintf(out, "%02x", (unsigned char)*s);
	*out = '\0';
}

/*
 * Trigger chains (trigger.c): tracepoint 1, disabled at QTStart on two
 * locations, is enabled by tracepoint 2's "teval $gtp_enable = 1" and
 * disabled again by tracepoint 3's "teval $gtp_disable = 1" (their setv,
 * as the kernel's hook makes it: user_env.c's only stores); both of its
 * locations switch, its probes stay armed throughout (keep_armed), and
 * tstatus's notes say who switched it last.  tests/e2e/test_trigger.py
 * runs the actions themselves.
 */
static void test_trigger_chain(void **state)
{
	struct gtp_tp *t1, *t1b, *t2;
	char want[256];
	long frames;

	assert_string_equal(ask("QTDV:1:0000000000000000:0:6774705f656e61626c65"),
			    "OK");	/* $gtp_enable */
	assert_string_equal(ask("QTDV:2:0000000000000000:0:6774705f64697361626c65"),
			    "OK");	/* $gtp_disable */
	assert_string_equal(ask("QTDP:1:" ADDR16 ":D:0:0"), "OK");
	assert_string_equal(ask("QTDP:1:" ADDR2 ":D:0:0"), "OK");
	/* const8 1; setv 1 (or 2); pop; end */
	assert_string_equal(ask("QTDP:2:ffffffffc0002000:E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-2:ffffffffc0002000:X7,22012d00012927"),
			    "OK");
	assert_string_equal(ask("QTDP:3:ffffffffc0003000:E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-3:ffffffffc0003000:X7,22012d00022927"),
			    "OK");
	assert_string_equal(ask("QTStart"), "OK");
	t1 = gtp_tp_find(1, ADDR);
	t1b = gtp_tp_find(1, 0xffffffffc0001700ull);
	t2 = gtp_tp_find_num(2);
	assert_true(t1->keep_armed && t1b->keep_armed && t2->keep_armed);

	frames = gtp_frames_count();
	assert_false(hit(t1, 1, 2));
	assert_false(hit(t1b, 1, 2));
	assert_int_equal(gtp_frames_count(), frames);
	assert_null(strstr(ask("qTStatus"), ";notes:"));

	/* what tracepoint 2's action does (user_env.c's setv stores alone) */
	assert_int_equal(gtp_tsv_set(1, 1, 2), 0);
	assert_true(READ_ONCE(t1->enabled) && READ_ONCE(t1b->enabled));
	assert_true(hit(t1, 1, 2));
	assert_true(hit(t1b, 1, 2));
	strcpy(want, ";notes:");
	hexof(want + strlen(want), "tracepoint 1 enabled by 2 (1 switch)");
	assert_non_null(strstr(ask("qTStatus"), want));
	/* the upload (gdb, gtp-ctl save-session) says what gdb defined */
	assert_memory_equal(ask("qTfP"), "T1:" ADDR16 ":D:", 22);

	assert_int_equal(gtp_tsv_set(2, 1, 3), 0);
	assert_false(hit(t1, 1, 2));
	assert_false(hit(t1b, 1, 2));
	assert_int_equal(gtp_tsv_set(1, 1, 2), 0);
	assert_int_equal(gtp_tsv_set(2, 1, 3), 0);
	strcpy(want, ";notes:");
	hexof(want + strlen(want), "tracepoint 1 disabled by 3 (4 switches)");
	assert_non_null(strstr(ask("qTStatus"), want));

	/* a tracepoint the CPU budget tripped stays off */
	WRITE_ONCE(t1->tripped, GTP_TRIP_PENDING);
	assert_int_equal(gtp_tsv_set(1, 1, 2), 0);
	assert_false(READ_ONCE(t1->enabled));
	assert_true(READ_ONCE(t1b->enabled));
	WRITE_ONCE(t1->tripped, GTP_TRIP_NONE);

	/* 0 names no tracepoint: nothing changes */
	assert_int_equal(gtp_tsv_set(1, 0, 2), 0);
	assert_false(READ_ONCE(t1->enabled));
	/* a number no tracepoint has is the setter's error */
	assert_int_equal(gtp_tsv_set(1, 99, 2), -ENOENT);
	assert_int_equal(gtp_tsv_set(1, -1, 2), -ENOENT);
	assert_int_equal(gtp_tsv_set(2, 0x10000, 2), -ENOENT);
	assert_string_equal(ask("QTStop"), "OK");

	/* a run no action enables anything in keeps no probe armed for it */
	assert_string_equal(ask("QTinit"), "OK");
	assert_string_equal(ask("QTDV:2:0000000000000000:0:6774705f64697361626c65"),
			    "OK");
	assert_string_equal(ask("QTDP:1:" ADDR16 ":D:0:0"), "OK");
	assert_string_equal(ask("QTDP:3:ffffffffc0003000:E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-3:ffffffffc0003000:X7,22012d00022927"),
			    "OK");
	assert_string_equal(ask("QTStart"), "OK");
	assert_false(gtp_tp_find_num(1)->keep_armed);
	assert_false(gtp_tp_find_num(3)->keep_armed);
}

/*
 * A per-CPU variable ("$p_calls", tsv.c): a hit reads and sets its CPU's
 * value, readers get the sum (one CPU here: compat.h), qGtpPcpu each
 * CPU's; a run starts every CPU's at the initial value.
 */
static void test_pcpu_tsv(void **state)
{
	const struct ax_env env = { 0 };
	s64 v;

	/* $p_calls = 5, $plain = 0 */
	assert_string_equal(ask("QTDV:1:0000000000000005:0:705f63616c6c73"),
			    "OK");
	assert_string_equal(ask("QTDV:2:0000000000000000:0:706c61696e"), "OK");
	assert_non_null(gtp_tsv_find(1)->pcpu);
	assert_null(gtp_tsv_find(2)->pcpu);
	assert_string_equal(ask("QTStart"), "OK");
	assert_string_equal(ask("qTV:1"), "V5");
	assert_string_equal(ask("qGtpPcpu:1"), "p;0=5;l");
	assert_int_equal(gtp_tsv_set(1, -3, 1), 0);
	assert_int_equal(gtp_tsv_get_hit(1, &env, &v), 0);
	assert_int_equal(v, -3);
	assert_int_equal(gtp_tsv_get_cpu(gtp_tsv_find(1), 0, &v), 0);
	assert_int_equal(v, -3);
	assert_int_equal(gtp_tsv_get_cpu(gtp_tsv_find(1), 1, &v), -EINVAL);
	assert_int_equal(gtp_tsv_get_cpu(gtp_tsv_find(2), 0, &v), -EINVAL);
	assert_string_equal(ask("qTV:1"), "Vfffffffffffffffd");
	assert_string_equal(ask("qGtpPcpu:1"), "p;0=-3;l");
	assert_string_equal(ask("qGtpPcpu:1:1"), "p;l");	/* past the last */
	assert_string_equal(ask("qGtpPcpu:2"), "E03");
	assert_string_equal(ask("qGtpPcpu:9"), "E02");
	assert_string_equal(ask("qGtpPcpu:1x"), "E01");
	assert_string_equal(ask("QTStop"), "OK");
	assert_string_equal(ask("QTStart"), "OK");
	assert_string_equal(ask("qGtpPcpu:1"), "p;0=5;l");
	assert_string_equal(ask("QTStop"), "OK");
	/* "$p_" alone names no per-CPU variable */
	assert_string_equal(ask("QTDV:3:0000000000000000:0:705f"), "OK");
	assert_null(gtp_tsv_find(3)->pcpu);
	/* redefined under another name, it is plain again */
	assert_string_equal(ask("QTinit"), "OK");
	assert_string_equal(ask("QTDV:1:0000000000000005:0:706c61696e"), "OK");
	assert_null(gtp_tsv_find(1)->pcpu);
}

/*
 * The kernel's counters as variables ($perf_*, tsv.c, host.h): QTStart
 * opens the kinds the programs read, before arming, and a refusal fails
 * it with nothing armed; a hit and qTV read the host's counter; QTStop
 * closes them, and a run that reads none opens none.
 */
static void test_perf_tsv(void **state)
{
	const struct ax_env env = { 0 };
	s64 v;

	assert_string_equal(ask("QTDV:1:0000000000000000:0:706572665f6379636c6573"),
			    "OK");	/* $perf_cycles */
	assert_string_equal(ask("QTDV:2:0000000000000000:0:706572665f706167655f6661756c7473"),
			    "OK");	/* $perf_page_faults */
	/* collect $perf_cycles; collect $perf_page_faults (tracev N; end) */
	assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-1:" ADDR16 ":X4,2e000127"), "OK");
	assert_string_equal(ask("QTDP:2:" ADDR2 ":E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-2:" ADDR2 ":X4,2e000227"), "OK");
	user_perf_fail_open = 2;
	assert_string_equal(ask("QTStart"), "E01");
	assert_int_equal(user_trace_armed, 0);
	assert_int_equal(user_perf_open_kinds, 0);
	assert_string_equal(ask("QTStart"), "OK");
	assert_int_equal(user_perf_open_kinds,
			 (1u << GTP_PERF_CYCLES) | (1u << GTP_PERF_PAGE_FAULTS));
	user_perf_value[GTP_PERF_CYCLES] = 12345;
	assert_int_equal(gtp_tsv_get_hit(1, &env, &v), 0);
	assert_int_equal(v, 12345);
	assert_string_equal(ask("qTV:1"), "V3039");
	assert_true(hit(gtp_tp_find_num(1), 0, 0));
	assert_string_equal(ask("QTStop"), "OK");
	assert_int_equal(user_perf_open_kinds, 0);
	assert_string_equal(ask("qTV:1"), "U");
	assert_int_equal(gtp_tsv_get_hit(1, &env, &v), -EIO);

	/* no program reads a counter: none is opened */
	assert_string_equal(ask("QTinit"), "OK");
	assert_string_equal(ask("QTDV:1:0000000000000000:0:706572665f6379636c6573"),
			    "OK");
	assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:0"), "OK");
	assert_string_equal(ask("QTStart"), "OK");
	assert_int_equal(user_perf_open_kinds, 0);
}

static void test_tsv_packets(void **state)
{
	char want[96];
	s64 v;

	/*
	 * $hits = 5, then the built-in $current_task_pid: defined with 0, it
	 * reads as the pid of whoever asks (compat.h: getpid() here).
	 */
	assert_string_equal(ask("QTDV:1:0000000000000005:0:68697473"), "OK");
	assert_string_equal(ask("QTDV:2:0000000000000000:0:"
				"63757272656e745f7461736b5f706964"), "OK");
	/* the upload gives the initial values (as gdbserver), qTV the values now */
	assert_string_equal(ask("qTfV"), "1:5:0:68697473");
	assert_string_equal(ask("qTsV"), "2:0:0:63757272656e745f7461736b5f706964");
	assert_string_equal(ask("qTsV"), "l");
	assert_string_equal(ask("qTV:1"), "V5");
	snprintf(want, sizeof(want), "V%x", (unsigned int)getpid());
	assert_string_equal(ask("qTV:2"), want);
	assert_string_equal(ask("qTV:9"), "U");
	/* setv: ordinary variables change, built-ins refuse */
	assert_int_equal(gtp_tsv_set(1, -2, 1), 0);
	assert_string_equal(ask("qTV:1"), "Vfffffffffffffffe");
	assert_int_equal(gtp_tsv_set(2, 7, 1), -EPERM);
	assert_int_equal(gtp_tsv_get(2, &v), 0);
	assert_int_equal(v, getpid());
	assert_int_equal(gtp_tsv_set(9, 7, 1), -ENOENT);
	/* QTStart resets values to their initial value */
	assert_string_equal(ask("QTStart"), "OK");
	assert_string_equal(ask("qTV:1"), "V5");
}

/* A hit of @tp with the x86-64 argument registers (rdi, rsi) = (a, b). */
static bool hit(struct gtp_tp *tp, u64 a, u64 b)
{
	struct pt_regs regs = { .di = a, .si = b, .ip = tp->addr + 1,
				.sp = 0xffffc90000123450ull, .ax = 0x1234,
				.flags = 0x246, .cs = 0x10, .ss = 0x18 };

	return gtp_tp_hit(tp, &regs, scratch, sizeof(scratch));
}

/* Define tracepoint 1 collecting $regs and a 4-byte global; start. */
static struct gtp_tp *start_regs_and_global(const char *def)
{
	static const u32 global_val = 0xcafe;

	assert_int_equal(user_env_add_region(GLOBAL, &global_val, 4), 0);
	assert_string_equal(ask(def), "OK");
	assert_string_equal(ask("QTDP:-1:" ADDR16 ":R0fffffffffffffff"
				"M-1,ffffffffc0004074,4"), "OK");
	assert_string_equal(ask("QTStart"), "OK");
	return gtp_tp_find(1, ADDR);
}

static u64 hexfield(const char *status, const char *name)
{
	const char *p = strstr(status, name);
	u64 v = 0;

	assert_non_null(p);
	assert_non_null(rsp_parse_hex(p + strlen(name), &v));
	return v;
}

static void test_run_and_frames(void **state)
{
	struct gtp_tp *tp = start_regs_and_global("QTDP:1:" ADDR16 ":E:0:0");
	const char *r;
	char want[64];
	int i;

	assert_non_null(tp);
	r = ask("qTStatus");
	assert_memory_equal(r, "T1;tnotrun:0;", 13);
	for (i = 1; i <= 3; i++)
		assert_true(hit(tp, i, i - 1));
	assert_string_equal(ask("QTStop"), "OK");
	r = ask("qTStatus");
	assert_memory_equal(r, "T0;tstop::0;", 12);
	assert_int_equal(hexfield(r, ";tframes:"), 3);
	assert_int_equal(hexfield(r, ";tcreated:"), 3);
	assert_true(hexfield(r, ";tfree:") < hexfield(r, ";tsize:"));
	assert_true(hexfield(r, ";starttime:") > 0);
	assert_true(hexfield(r, ";stoptime:") >= hexfield(r, ";starttime:"));
	snprintf(want, sizeof(want), "V3:%x:0:0:0",
		 3 * (6 + 1 + GTP_G_SIZE + 11 + 4));
	assert_string_equal(ask("qTP:1:" ADDR_S), want);

	assert_string_equal(ask("QTFrame:1"), "F1T1");
	assert_string_equal(ask("QTFrame:1"), "F1T1");	/* repeat: harmless */
	r = ask("g");
	assert_int_equal(strlen(r), 2 * GTP_G_SIZE);
	assert_memory_equal(r, "3412000000000000", 16);	/* rax */
	assert_memory_equal(r + 2 * 40, "0200000000000000", 16); /* rdi */
	assert_memory_equal(r + 2 * 128, "700100c0ffffffff", 16); /* rip */
	assert_memory_equal(r + 2 * 136, "46020000", 8);	/* eflags */
	assert_memory_equal(r + 2 * 148, "xxxxxxxx", 8);	/* ds */
	assert_string_equal(ask("mffffffffc0004074,4"), "feca0000");
	assert_string_equal(ask("mffffffffc0004074,10"), "feca0000");
	assert_string_equal(ask("mffffffffc0004078,4"), "E01");
	r = ask("qXfer:traceframe-info:read::0,1000");
	assert_non_null(strstr(r,
		"<memory start=\"0xffffffffc0004074\" length=\"0x4\"/>"));
	assert_int_equal(r[0], 'l');

	/* Searches run forward from the current frame. */
	assert_string_equal(ask("QTFrame:0"), "F0T1");
	assert_string_equal(ask("QTFrame:pc:" ADDR_S), "F1T1");
	assert_string_equal(ask("QTFrame:tdp:1"), "F2T1");
	assert_string_equal(ask("QTFrame:tdp:1"), "F-1");
	assert_string_equal(ask("QTFrame:range:" ADDR_S ":" ADDR_S), "F0T1");
	assert_string_equal(ask("QTFrame:outside:" ADDR_S ":" ADDR_S), "F-1");
	assert_string_equal(ask("QTFrame:outside:0:1"), "F0T1");
	assert_string_equal(ask("QTFrame:7"), "F-1");
	assert_string_equal(ask("QTFrame:ffffffff"), "OK");
	/* Back to the live view. */
	assert_int_equal(strlen(ask("g")), 2 * GTP_G_SIZE);
	assert_null(strchr(ask("g"), 'x'));
}

/* The served frames (qTBuffer:0,...) as bytes into @buf; their length. */
static int served(u8 *buf, size_t cap)
{
	const char *r = ask("qTBuffer:0,7d0");
	int n = strlen(r) / 2;

	assert_true((size_t)n <= cap);
	assert_int_equal(rsp_hex2bin(r, strlen(r), buf), n);
	return n;
}

/*
 * An R action naming few registers stores an 'r' block (regs.h): its mask,
 * rip always added, then those registers alone, rip the tracepoint's
 * address.  'g' shows the others unavailable; qTBuffer serves the frame
 * as gdb's trace file has it: a whole 'R' block, the others zero.  Both
 * paths write it: the lean one (tracepoint 1) and the action loop (2, with
 * a memory action; eflags, cs, ss too).
 */
static void test_rsub_block(void **state)
{
	static const u32 global_val = 0xcafe;
	static const u8 lean[] = {
		1, 0, 29, 0, 0, 0,			/* tp 1, 29 bytes */
		'r', 0x30, 0, 1, 0,			/* rsi, rdi, rip */
		2, 0, 0, 0, 0, 0, 0, 0,			/* rsi */
		3, 0, 0, 0, 0, 0, 0, 0,			/* rdi */
		0x70, 0x01, 0, 0xc0, 0xff, 0xff, 0xff, 0xff, /* rip */
	};
	u8 buf[2 * (6 + 1 + GTP_G_SIZE + 11 + 4)];
	struct gtp_tp *tp1, *tp2;
	const u8 *f;
	const char *r;
	u32 flen, size;
	int n;

	assert_int_equal(user_env_add_region(GLOBAL, &global_val, 4), 0);
	assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-1:" ADDR16 ":R30"), "OK");
	assert_string_equal(ask("QTDP:2:" ADDR2 ":E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-2:" ADDR2 ":Re0030M-1,ffffffffc0004074,4"),
			    "OK");
	tp1 = gtp_tp_find(1, ADDR);
	tp2 = gtp_tp_find(2, 0xffffffffc0001700ull);
	assert_true(tp1->lean);
	assert_int_equal(tp1->frame_len, sizeof(lean));
	assert_false(tp2->lean);
	/* $regs stays an 'R' block: R1ffff in test_plan_without_actions */
	assert_string_equal(ask("QTStart"), "OK");
	assert_true(hit(tp1, 3, 2));
	assert_true(hit(tp2, 5, 4));
	assert_string_equal(ask("QTStop"), "OK");

	f = gtp_frame_get(0, &flen);
	assert_int_equal(flen, sizeof(lean));
	assert_memory_equal(f, lean, sizeof(lean));
	f = gtp_frame_get(1, &flen);
	/* 'r' mask rsi rdi rip eflags cs ss: 3 * 8 + 3 * 4, then 'M' */
	assert_int_equal(flen, 6 + 5 + 36 + 11 + 4);
	assert_int_equal(f[6], 'r');
	assert_int_equal(f[6 + 5 + 36], 'M');

	assert_string_equal(ask("QTFrame:0"), "F0T1");
	r = ask("g");
	assert_int_equal(strlen(r), 2 * GTP_G_SIZE);
	assert_memory_equal(r, "xxxxxxxxxxxxxxxx", 16);		/* rax */
	assert_memory_equal(r + 2 * 32, "0200000000000000", 16);	/* rsi */
	assert_memory_equal(r + 2 * 40, "0300000000000000", 16);	/* rdi */
	assert_memory_equal(r + 2 * 48, "xxxxxxxxxxxxxxxx", 16);	/* rbp */
	assert_memory_equal(r + 2 * 128, "700100c0ffffffff", 16);	/* rip */
	assert_memory_equal(r + 2 * 136, "xxxxxxxx", 8);		/* eflags */
	assert_string_equal(ask("QTFrame:1"), "F1T2");
	r = ask("g");
	assert_memory_equal(r + 2 * 120, "xxxxxxxxxxxxxxxx", 16);	/* r15 */
	assert_memory_equal(r + 2 * 40, "0500000000000000", 16);	/* rdi */
	assert_memory_equal(r + 2 * 128, "001700c0ffffffff", 16);	/* rip */
	assert_memory_equal(r + 2 * 136, "460200001000000018000000", 24);
	assert_memory_equal(r + 2 * 148, "xxxxxxxx", 8);		/* ds */
	assert_string_equal(ask("mffffffffc0004074,4"), "feca0000");
	/* tfind pc: the 'r' block's rip */
	assert_string_equal(ask("QTFrame:pc:ffffffffc0001700"), "F-1");
	assert_string_equal(ask("QTFrame:0"), "F0T1");
	assert_string_equal(ask("QTFrame:pc:ffffffffc0001700"), "F1T2");

	/* qTBuffer: two frames, each with a whole 'R' block */
	n = served(buf, sizeof(buf));
	assert_int_equal(n, 2 * (6 + 1 + GTP_G_SIZE) + 11 + 4);
	memcpy(&size, buf + 2, 4);
	assert_int_equal(size, 1 + GTP_G_SIZE);
	assert_int_equal(buf[6], 'R');
	assert_int_equal(buf[7 + 32], 2);			/* rsi */
	assert_int_equal(buf[7 + 40], 3);			/* rdi */
	assert_int_equal(buf[7], 0);				/* rax: zero */
	assert_int_equal(buf[7 + 128], 0x70);			/* rip */
	f = buf + 6 + 1 + GTP_G_SIZE;
	memcpy(&size, f + 2, 4);
	assert_int_equal(size, 1 + GTP_G_SIZE + 11 + 4);
	assert_int_equal(f[7 + 40], 5);				/* rdi */
	assert_int_equal(f[7 + 136], 0x46);			/* eflags */
	assert_int_equal(f[7 + 140], 0x10);			/* cs */
	assert_int_equal(f[7 + 144], 0x18);			/* ss */
	assert_int_equal(f[7 + GTP_G_SIZE], 'M');
	/* a piece from inside the 'R' block the frame did not store */
	r = ask("qTBuffer:2f,3");				/* rdi */
	assert_string_equal(r, "030000");
	snprintf((char *)buf, sizeof(buf), "qTBuffer:%x,10",
		 2 * (6 + 1 + GTP_G_SIZE) + 11 + 4);
	assert_string_equal(ask((char *)buf), "l");
}

/*
 * Two R actions in one tracepoint keep whole 'R' blocks: g takes a frame's
 * registers from its first register block, so that one must hold the
 * registers of both (tp->regmask); here r8 of the second.
 */
static void test_rsub_two_r_actions(void **state)
{
	struct gtp_tp *tp;
	const u8 *f;
	const char *r;
	u32 flen;

	assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-1:" ADDR16 ":R30R100"), "OK");
	tp = gtp_tp_find(1, ADDR);
	assert_int_equal(tp->frame_len, 6 + 2 * (1 + GTP_G_SIZE));
	assert_string_equal(ask("QTStart"), "OK");
	assert_true(hit(tp, 3, 2));
	assert_string_equal(ask("QTStop"), "OK");
	f = gtp_frame_get(0, &flen);
	assert_int_equal(f[6], 'R');
	assert_int_equal(f[7 + GTP_G_SIZE], 'R');
	assert_string_equal(ask("QTFrame:0"), "F0T1");
	r = ask("g");
	assert_memory_equal(r + 2 * 40, "0300000000000000", 16);	/* rdi */
	assert_memory_equal(r + 2 * 64, "0000000000000000", 16);	/* r8 */
	assert_memory_equal(r + 2 * 72, "xxxxxxxxxxxxxxxx", 16);	/* r9 */
}

static void test_uncollected_regs_and_pc(void **state)
{
	struct gtp_tp *tp;
	const char *r;

	assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:0"), "OK");
	/* Only rbp (bit 6) collected. */
	assert_string_equal(ask("QTDP:-1:" ADDR16 ":R40"), "OK");
	assert_string_equal(ask("QTDP:2:" ADDR2 ":E:0:0"), "OK");
	assert_string_equal(ask("QTStart"), "OK");
	tp = gtp_tp_find(1, ADDR);
	assert_true(hit(tp, 1, 0));
	assert_true(hit(gtp_tp_find(2, 0xffffffffc0001700ull), 1, 0));
	assert_string_equal(ask("QTStop"), "OK");
	assert_string_equal(ask("QTFrame:0"), "F0T1");
	r = ask("g");
	assert_memory_equal(r, "xxxxxxxxxxxxxxxx", 16);	/* rax */
	assert_memory_equal(r + 2 * 48, "0000000000000000", 16); /* rbp */
	assert_memory_equal(r + 2 * 128, "700100c0ffffffff", 16);
	/* No R block at all: only the pc, from the tracepoint's address. */
	assert_string_equal(ask("QTFrame:1"), "F1T2");
	r = ask("g");
	assert_memory_equal(r + 2 * 128, "001700c0ffffffff", 16);
	assert_memory_equal(r + 2 * 48, "xxxxxxxxxxxxxxxx", 16);
}

static void test_condition_and_pass_count(void **state)
{
	struct gtp_tp *tp;
	const char *r;
	int i;

	/* condition "reg rdi (5) == 2": 26 0005 22 02 13 27 */
	assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:2:X6,260005220213270"
				), "E01");
	assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:2:X6,260005220213"),
			    "E01");
	assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:0:X7,26000522021327"),
			    "OK");
	assert_string_equal(ask("QTStart"), "OK");
	tp = gtp_tp_find(1, ADDR);
	assert_false(hit(tp, 1, 0));
	assert_true(hit(tp, 2, 0));
	assert_false(hit(tp, 3, 0));
	assert_string_equal(ask("qTP:1:" ADDR_S), "V1:6:0:0:0");
	/* pass count 2: the second frame stops the run */
	assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:2"), "E01");
	assert_non_null(strstr(console, "cannot change while a trace runs"));
	assert_string_equal(ask("QTStop"), "OK");
	assert_string_equal(ask("QTinit"), "OK");
	assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:2"), "OK");
	assert_string_equal(ask("QTStart"), "OK");
	tp = gtp_tp_find(1, ADDR);
	for (i = 0; i < 5; i++)
		hit(tp, i, 0);
	r = ask("qTStatus");
	assert_memory_equal(r, "T0;tpasscount:1;", 16);
	assert_int_equal(hexfield(r, ";tframes:"), 2);
}

static void test_disable_while_running(void **state)
{
	struct gtp_tp *tp;

	assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:0"), "OK");
	assert_string_equal(ask("QTStart"), "OK");
	tp = gtp_tp_find(1, ADDR);
	assert_true(hit(tp, 1, 0));
	assert_string_equal(ask("QTDisable:1:" ADDR16), "OK");
	assert_false(hit(tp, 2, 0));
	assert_string_equal(ask("QTEnable:1:" ADDR16), "OK");
	assert_true(hit(tp, 3, 0));
	assert_string_equal(ask("qTP:1:" ADDR_S), "V2:c:0:0:0");
}

static void test_full_buffer_stops(void **state)
{
	struct gtp_tp *tp;
	const char *r;
	int n = 0;

	/* 8 KiB: sub-buffers of 1 KiB hold five 191-byte frames each */
	assert_string_equal(ask("QTBuffer:size:2000"), "OK");
	tp = start_regs_and_global("QTDP:1:" ADDR16 ":E:0:0");
	while (hit(tp, n, 0))
		n++;
	r = ask("qTStatus");
	assert_memory_equal(r, "T0;tfull:0;", 11);
	assert_int_equal(hexfield(r, ";tframes:"), n);
	assert_true(n >= 8 && n <= 0x2000 / 191);
	assert_string_equal(ask("QTBuffer:size:2"), "E01");
}

static void test_circular_keeps_newest(void **state)
{
	struct gtp_tp *tp;
	const char *r;
	u64 n, i;

	assert_string_equal(ask("QTBuffer:size:2000"), "OK");
	assert_string_equal(ask("QTBuffer:circular:1"), "OK");
	tp = start_regs_and_global("QTDP:1:" ADDR16 ":E:0:0");
	for (i = 1; i <= 100; i++)
		assert_true(hit(tp, i, 0));
	assert_string_equal(ask("QTStop"), "OK");
	r = ask("qTStatus");
	n = hexfield(r, ";tframes:");
	assert_int_equal(hexfield(r, ";tcreated:"), 100);
	assert_int_equal(hexfield(r, ";circular:"), 1);
	/* some sub-buffers were reused, the newest kept */
	assert_true(n >= 8 && n < 0x2000 / 191);
	/* frames 0..n-1 hold calls 100-n+1 .. 100, in order */
	for (i = 0; i < n; i++) {
		char pkt[32], rdi[17];

		snprintf(pkt, sizeof(pkt), "QTFrame:%llx", (unsigned long long)i);
		ask(pkt);
		/* rdi's low byte (little-endian) is the call number */
		memcpy(rdi, ask("g") + 80, 2);
		rdi[2] = '\0';
		assert_int_equal(strtoull(rdi, NULL, 16), 100 - n + 1 + i);
	}
}

static void test_qtbuffer_is_tfile_frames(void **state)
{
	struct gtp_tp *tp = start_regs_and_global("QTDP:1:" ADDR16 ":E:0:0");
	static u8 all[65536];
	size_t total = 0, off = 0;
	int i, frames = 0;

	for (i = 0; i < 20; i++)
		assert_true(hit(tp, i, 0));
	assert_string_equal(ask("QTStop"), "OK");
	for (;;) {
		char pkt[64];
		const char *r;

		snprintf(pkt, sizeof(pkt), "qTBuffer:%zx,7d0", total);
		r = ask(pkt);
		if (!strcmp(r, "l"))
			break;
		assert_true(strlen(r) > 0 && strlen(r) <= 2 * 0x7d0);
		total += rsp_hex2bin(r, strlen(r), all + total);
	}
	/* Walk it as gdb's tfile reader does. */
	while (off < total) {
		s16 num;
		u32 size;

		memcpy(&num, all + off, 2);
		memcpy(&size, all + off + 2, 4);
		assert_int_equal(num, 1);
		assert_int_equal(all[off + 6], 'R');
		assert_int_equal(all[off + 7 + GTP_G_SIZE], 'M');
		off += 6 + size;
		frames++;
	}
	assert_int_equal(off, total);
	assert_int_equal(frames, 20);
}

/* qGtpFrameOrigin: each frame's CPU, and times that never go backwards */
static void test_frame_origin(void **state)
{
	struct gtp_tp *tp;
	unsigned long long last = 0, ticks;
	unsigned int cpu, i;
	unsigned long khz;

	tp = start_regs_and_global("QTDP:1:" ADDR16 ":E:0:0");
	/* running: the frames may still change */
	assert_string_equal(ask("qGtpFrameOrigin:0"), "E01");
	for (i = 0; i < 3; i++)
		assert_true(hit(tp, i, 0));
	assert_string_equal(ask("QTStop"), "OK");
	for (i = 0; i < 3; i++) {
		char pkt[32];

		snprintf(pkt, sizeof(pkt), "qGtpFrameOrigin:%x", i);
		assert_int_equal(sscanf(ask(pkt), "%x:%llx:%lx", &cpu, &ticks,
					&khz), 3);
		/* the test program writes every frame from CPU 0's buffer */
		assert_int_equal(cpu, 0);
		assert_true(ticks >= last);
		last = ticks;
	}
	assert_string_equal(ask("qGtpFrameOrigin:3"), "E01");
	assert_string_equal(ask("qGtpFrameOrigin:zz"), "E01");
}

static void test_start_failure_rolls_back(void **state)
{
	const char *r;

	assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:0"), "OK");
	user_trace_fail_arm = EINVAL;
	assert_string_equal(ask("QTStart"), "E01");
	assert_non_null(strstr(console, "refused"));
	r = ask("qTStatus");
	assert_memory_equal(r, "T0;tnotrun:0;", 13);
	assert_false(gtp_trace_busy());
}

static void test_disconnect(void **state)
{
	const char *r;

	/* disconnected tracing on: the run survives the connection */
	assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:0"), "OK");
	assert_string_equal(ask("QTDisconnected:1"), "OK");
	assert_string_equal(ask("QTStart"), "OK");
	gtp_conn_close(gc);
	gc = gtp_conn_open();
	ask("QStartNoAckMode");
	r = ask("qTStatus");
	assert_memory_equal(r, "T1;", 3);
	assert_int_equal(hexfield(r, ";disconn:"), 1);
	assert_string_equal(ask("qTfP"), "T1:" ADDR_S ":E:0:0");
	/* off: detaching stops it, the frames stay */
	assert_string_equal(ask("QTDisconnected:0"), "OK");
	assert_true(hit(gtp_tp_find(1, ADDR), 1, 0));
	assert_string_equal(ask("D"), "OK");
	r = ask("qTStatus");
	assert_memory_equal(r, "T0;tdisconnected:0;", 19);
	assert_int_equal(hexfield(r, ";tframes:"), 1);
}

static void test_frame_store_wrap_order(void **state)
{
	struct gtp_frame_slot slot;
	u32 seq, len, kept = 0;
	u64 i, n;

	assert_int_equal(gtp_frames_setup(4096, true), 0);
	gtp_frames_start();
	/* sizes 1..40 so records wrap at every possible offset */
	for (seq = 0; seq < 500; seq++) {
		u32 sz = 4 + seq % 37;
		u8 *p = gtp_frame_reserve(&slot, sz);

		assert_non_null(p);
		memset(p, 0, sz);
		memcpy(p, &seq, 4);
		gtp_frame_commit(&slot);
	}
	gtp_frames_stop();
	assert_null(gtp_frame_reserve(&slot, 4));
	assert_int_equal(slot.err, -EAGAIN);
	n = gtp_frames_count();
	assert_true(n > 3);
	for (i = 0; i < n; i++) {
		const u8 *f = gtp_frame_get(i, &len);

		assert_non_null(f);
		memcpy(&seq, f, 4);
		assert_int_equal(seq, 500 - n + i);
		assert_int_equal(len, 4 + seq % 37);
		kept++;
	}
	/* random access agrees with sequential access */
	memcpy(&seq, gtp_frame_get(0, &len), 4);
	assert_int_equal(seq, 500 - n);
	assert_null(gtp_frame_get(n, &len));
	/* not circular: refuses when full, counts the drop */
	assert_int_equal(gtp_frames_setup(4096, false), 0);
	gtp_frames_start();
	kept = 0;
	while (gtp_frame_reserve(&slot, 20)) {
		gtp_frame_commit(&slot);
		kept++;
	}
	assert_int_equal(slot.err, -ENOSPC);
	gtp_frames_stop();
	assert_int_equal(gtp_frames_count(), kept);
	assert_true(kept > 4096 / 2 / 24 && kept <= 4096 / 20);
}

/*
 * What a program's variable numbers stand for is learnt at QTStart (its
 * bound facts, ax.h), not at QTDP: here every variable is defined after
 * the programs that name it, and then redefined between two runs.  Facts
 * kept from QTDP, or from the first run, would get every assert wrong.
 */
static void test_bound_facts_follow_definitions(void **state)
{
	struct gtp_tp *tp1, *tp2, *tp3;
	const struct ax_prog *p1, *p3;

	/* 1: teval $v5 = 0;  2: teval $v6 = 0;  3: collect $v7 (tracev) */
	assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-1:" ADDR16 ":X7,22002d00052927"), "OK");
	assert_string_equal(ask("QTDP:2:" ADDR2 ":E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-2:" ADDR2 ":X7,22002d00062927"), "OK");
	assert_string_equal(ask("QTDP:3:" ADDR2 ":E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-3:" ADDR2 ":X4,2e000727"), "OK");
	tp1 = gtp_tp_find(1, ADDR);
	tp2 = gtp_tp_find(2, 0xffffffffc0001700ull);
	tp3 = gtp_tp_find(3, 0xffffffffc0001700ull);
	p1 = tp1->actions[0].prog;
	p3 = tp3->actions[0].prog;
	assert_int_equal(p1->bound.gen, 0);	/* QTDP binds nothing */

	/* $v5 is $kret, $v6 a histogram, $v7 $kstack */
	assert_string_equal(ask("QTDV:5:0000000000000000:0:6b726574"), "OK");
	assert_string_equal(ask("QTDV:6:0000000000000000:0:686973745f6c6174"),
			    "OK");
	assert_string_equal(ask("QTDV:7:0000000000000000:0:6b737461636b"),
			    "OK");
	assert_string_equal(ask("QTStart"), "OK");
	assert_int_equal(p1->bound.gen, gtp_tsv_gen());
	assert_int_equal(p3->bound.gen, gtp_tsv_gen());
	assert_true(tp1->at_return);
	assert_true(gtp_prog_marks_only(p1));
	assert_true(tp2->agg_only);
	assert_false(tp2->at_return);
	assert_true(gtp_prog_uses_builtin(p3, GTP_TSV_KSTACK));
	assert_false(gtp_prog_uses_builtin(p3, GTP_TSV_KRET));
	assert_false(tp3->at_return);
	assert_string_equal(ask("QTStop"), "OK");

	/* now $v5 and $v6 are ordinary, $v7 is $kret (read, not set) */
	assert_string_equal(ask("QTDV:5:0000000000000000:0:78"), "OK");
	assert_string_equal(ask("QTDV:6:0000000000000000:0:79"), "OK");
	assert_string_equal(ask("QTDV:7:0000000000000000:0:6b726574"), "OK");
	/* the first run's facts are told stale until QTStart binds again */
	assert_true(p1->bound.gen != gtp_tsv_gen());
	assert_string_equal(ask("QTStart"), "OK");
	assert_int_equal(p1->bound.gen, gtp_tsv_gen());
	assert_false(tp1->at_return);
	assert_false(gtp_prog_marks_only(p1));
	assert_false(tp2->agg_only);
	assert_false(gtp_prog_feeds_aggs_only(tp2->actions[0].prog));
	assert_false(gtp_prog_uses_builtin(p3, GTP_TSV_KSTACK));
	assert_true(gtp_prog_uses_builtin(p3, GTP_TSV_KRET));
	assert_false(tp3->at_return);
	assert_string_equal(ask("QTStop"), "OK");
}

/*
 * $kret and $kstack: a location whose actions set $kret is marked a return
 * probe at QTStart, and there $kret reads rax; tracev of $kstack records
 * the host's stack (user_trace.c: ip, then made-up addresses) at
 * GTP_KSTACK_ADDR and its depth as the value.
 */
static void test_kret_and_kstack(void **state)
{
	u8 buf[512], *p;
	struct pt_regs regs = { .ax = 0x1234, .ip = ADDR + 1 };
	struct gtp_fbuild fb = { .buf = buf, .cap = sizeof(buf) };
	struct ax_env env = { .regs = &regs };
	struct gtp_tp *ret, *entry;
	u64 addr;
	u16 mlen;
	s32 num;
	s64 val;

	assert_string_equal(ask("QTDV:1:0000000000000000:0:6b726574"), "OK");
	assert_string_equal(ask("QTDV:2:0000000000000000:0:6b737461636b"),
			    "OK");
	/* 1: teval $kret = 0; collect $kret; collect $kstack */
	assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-1:" ADDR16 ":X7,22002d00012927"), "OK");
	assert_string_equal(ask("QTDP:-1:" ADDR16 ":X4,2e000127"), "OK");
	assert_string_equal(ask("QTDP:-1:" ADDR16 ":X4,2e000227"), "OK");
	/* 2: collect $kret at an entry */
	assert_string_equal(ask("QTDP:2:" ADDR2 ":E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-2:" ADDR2 ":X4,2e000127"), "OK");
	assert_string_equal(ask("QTStart"), "OK");
	ret = gtp_tp_find(1, ADDR);
	entry = gtp_tp_find(2, 0xffffffffc0001700ull);
	assert_true(ret->at_return);
	assert_false(entry->at_return);
	env.tp = ret;
	/*
	 * The frame blocks tracev writes (the tests' own hooks stand in for
	 * ax_hooks.c, so call it as they would).
	 */
	memset(buf, 0, sizeof(buf));
	assert_int_equal(gtp_fb_tracev(&fb, 1, &env), 0);
	assert_int_equal(gtp_fb_tracev(&fb, 2, &env), 0);
	env.tp = entry;
	assert_int_equal(gtp_fb_tracev(&fb, 1, &env), 0);
	assert_int_equal(fb.len, 13 + (11 + 24) + 13 + 13);
	memcpy(&num, buf + 1, 4);
	memcpy(&val, buf + 5, 8);
	assert_int_equal(buf[0], 'V');
	assert_int_equal(num, 1);
	assert_int_equal(val, 0x1234);		/* $kret at the return: rax */
	p = buf + 13;
	assert_int_equal(p[0], 'M');
	memcpy(&addr, p + 1, 8);
	memcpy(&mlen, p + 9, 2);
	assert_true(addr == GTP_KSTACK_ADDR);
	assert_int_equal(mlen, 24);
	memcpy(&addr, p + 11, 8);
	assert_true(addr == ADDR + 1);		/* user_kstack: ip first */
	memcpy(&addr, p + 19, 8);
	assert_true(addr == 0xffffffff81000010ull);
	p += 11 + 24;
	memcpy(&val, p + 5, 8);
	assert_int_equal(p[0], 'V');
	assert_int_equal(val, 3);		/* $kstack: its depth */
	p += 13;
	memcpy(&val, p + 5, 8);
	assert_int_equal(val, 0);		/* $kret at an entry */
	/* a return probe's frame ends where the stack would not fit */
	fb.len = 0;
	fb.cap = 11 + 8 * GTP_KSTACK_MAX - 1;
	env.tp = ret;
	assert_int_equal(gtp_fb_tracev(&fb, 2, &env), -ENOSPC);
	assert_true(fb.truncated);
}

/*
 * The filter built-ins: $caller is the host's (user_trace.c: the word at
 * sp, as at a kernel function's entry; 0 at a return probe or without
 * registers), $ns_pid/$ns_tgid the task's in its pid namespace (here
 * getpid()), $cgroup_id 0 in userspace, $kret_ns the host's at a return
 * probe (user_kret_time) and 0 elsewhere.  Read as getv reads them in the
 * interpreter and the JIT alike (ax_hook_getv(), gtp_tsv_get_hit()).
 */
static void test_filter_builtins(void **state)
{
	const u64 stack = 0xffffc90000a03e80ull;
	const u64 caller = 0xffffffff81234567ull;
	struct pt_regs regs = { .ip = ADDR + 1, .sp = stack };
	struct ax_env env = { .regs = &regs };
	s64 val;

	assert_string_equal(ask("QTDV:1:0000000000000000:0:63616c6c6572"), "OK");
	assert_string_equal(ask("QTDV:2:0000000000000000:0:6e735f706964"), "OK");
	assert_string_equal(ask("QTDV:3:0000000000000000:0:6e735f74676964"),
			    "OK");
	assert_string_equal(ask("QTDV:4:0000000000000000:0:6367726f75705f6964"),
			    "OK");
	assert_string_equal(ask("QTDV:5:0000000000000000:0:6b726574"), "OK");
	assert_string_equal(ask("QTDV:6:0000000000000000:0:6b7265745f6e73"),
			    "OK");
	assert_int_equal(gtp_tsv_find(1)->builtin, GTP_TSV_CALLER);
	assert_int_equal(gtp_tsv_find(6)->builtin, GTP_TSV_KRET_NS);
	assert_int_equal(gtp_tsv_find(2)->builtin, GTP_TSV_NS_PID);
	assert_int_equal(gtp_tsv_find(3)->builtin, GTP_TSV_NS_TGID);
	assert_int_equal(gtp_tsv_find(4)->builtin, GTP_TSV_CGROUP_ID);
	/* 1: an entry tracepoint; 2: a return probe (teval $kret = 0) */
	assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:0"), "OK");
	assert_string_equal(ask("QTDP:2:" ADDR2 ":E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-2:" ADDR2 ":X7,22002d00052927"), "OK");
	assert_string_equal(ask("QTStart"), "OK");
	assert_int_equal(user_env_add_region(stack, &caller, 8), 0);

	env.tp = gtp_tp_find(1, ADDR);
	assert_int_equal(gtp_tsv_get_hit(1, &env, &val), 0);
	assert_true((u64)val == caller);
	assert_int_equal(gtp_tsv_get_hit(2, &env, &val), 0);
	assert_int_equal(val, getpid());
	assert_int_equal(gtp_tsv_get_hit(3, &env, &val), 0);
	assert_int_equal(val, getpid());
	assert_int_equal(gtp_tsv_get_hit(4, &env, &val), 0);
	assert_int_equal(val, 0);
	/* an entry has no call to time, whatever the host would say */
	user_kret_time = 12345;
	assert_int_equal(gtp_tsv_get_hit(6, &env, &val), 0);
	assert_int_equal(val, 0);
	/* an unreadable stack, no registers: 0, not an error */
	regs.sp = stack + 4096;
	assert_int_equal(gtp_tsv_get_hit(1, &env, &val), 0);
	assert_int_equal(val, 0);
	regs.sp = stack;
	env.regs = NULL;
	assert_int_equal(gtp_tsv_get_hit(1, &env, &val), 0);
	assert_int_equal(val, 0);
	env.regs = &regs;
	/* a return probe: the user host keeps no return address */
	env.tp = gtp_tp_find(2, 0xffffffffc0001700ull);
	assert_true(((struct gtp_tp *)env.tp)->at_return);
	assert_int_equal(gtp_tsv_get_hit(1, &env, &val), 0);
	assert_int_equal(val, 0);
	/* ... but its call's time since the entry */
	assert_int_equal(gtp_tsv_get_hit(6, &env, &val), 0);
	assert_int_equal(val, 12345);
	user_kret_time = 0;
	/* read-only, as every built-in but $gtp_stop and $kret */
	assert_int_equal(gtp_tsv_set(1, 1, 1), -EPERM);
	assert_int_equal(gtp_tsv_set(4, 1, 1), -EPERM);
	assert_int_equal(gtp_tsv_set(6, 1, 1), -EPERM);
}

/*
 * Several locations of one tracepoint (an inline's sites): each frame's
 * registers are reported with its own location's mask, and a location
 * that collects no register still records its pc, which is how gdb tells
 * the locations apart.
 */
static void test_locations_each_their_own(void **state)
{
	struct gtp_tp *a, *b, *c;
	const char *r;

	/* 1.1 collects rdi (bit 5), 1.2 rbx (bit 1), 1.3 only memory */
	assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-1:" ADDR16 ":R20"), "OK");
	assert_string_equal(ask("QTDP:1:" ADDR2 ":E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-1:" ADDR2 ":R02"), "OK");
	assert_string_equal(ask("QTDP:1:ffffffffc0002000:E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-1:ffffffffc0002000:X6,22100d041a27"),
			    "OK");
	assert_string_equal(ask("QTStart"), "OK");
	a = gtp_tp_find(1, ADDR);
	b = gtp_tp_find(1, 0xffffffffc0001700ull);
	c = gtp_tp_find(1, 0xffffffffc0002000ull);
	assert_false(a->site_pc || b->site_pc);
	assert_true(c->site_pc);
	assert_true(hit(b, 1, 0));
	assert_true(hit(c, 1, 0));
	assert_string_equal(ask("QTStop"), "OK");
	assert_string_equal(ask("QTFrame:0"), "F0T1");
	r = ask("g");
	assert_memory_equal(r + 2 * 8, "0000000000000000", 16);	/* rbx */
	assert_memory_equal(r + 2 * 40, "xxxxxxxxxxxxxxxx", 16);	/* rdi */
	assert_memory_equal(r + 2 * 128, "001700c0ffffffff", 16);
	assert_string_equal(ask("QTFrame:1"), "F1T1");
	r = ask("g");
	assert_memory_equal(r + 2 * 128, "002000c0ffffffff", 16);
	assert_memory_equal(r + 2 * 8, "xxxxxxxxxxxxxxxx", 16);
	/* the added R is not gdb's: uploads show only what gdb sent */
	r = ask("qTfP");
	assert_null(strstr(r, "R10000"));
}

/*
 * User memory (hitmem.h): an address in the user half is the current
 * task's, read only where the host says the hit runs in that task's own
 * context (user_task_ctx).  A condition on a user byte, a memory action
 * of a user range and "collect $ustack", out of and in task context; the
 * live view ('m' with no frame selected) never reads user memory.
 */
#define UADDR_S		"7f0000001000"

static void test_user_memory(void **state)
{
	static const char path[] = "/etc/passwd";
	struct pt_regs regs = { .ip = ADDR + 1 };
	struct ax_env env = { .regs = &regs };
	u8 buf[512];
	struct gtp_fbuild fb = { .buf = buf, .cap = sizeof(buf) };
	struct gtp_tp *tp;
	u64 w[4];
	u16 mlen;
	s64 val;

	assert_int_equal(user_env_add_region(USER_ENV_USER_LO + 0x1000, path,
					     sizeof(path)), 0);
	/* $ustack */
	assert_string_equal(ask("QTDV:1:0000000000000000:0:75737461636b"),
			    "OK");
	/* if *(char *)0x7f0000001000 == '/': 25 <u64> 17 22 2f 13 27 */
	assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:0:Xe,25"
				"00007f0000001000" "17222f1327"), "OK");
	/* collect *(char (*)[12])0x7f0000001000 */
	assert_string_equal(ask("QTDP:-1:" ADDR16 ":M-1," UADDR_S ",c"), "OK");
	assert_string_equal(ask("QTStart"), "OK");
	tp = gtp_tp_find(1, ADDR);

	user_task_ctx = false;		/* an interrupt: the read fails */
	assert_false(hit(tp, 0, 0));
	assert_int_equal(atomic_long_read(&tp->errors), 1);
	user_task_ctx = true;
	assert_true(hit(tp, 0, 0));
	assert_string_equal(ask("QTStop"), "OK");
	assert_string_equal(ask("m" UADDR_S ",1"), "E01");	/* live */
	assert_string_equal(ask("QTFrame:0"), "F0T1");
	assert_string_equal(ask("m" UADDR_S ",c"),
			    "2f6574632f70617373776400");
	assert_string_equal(ask("QTFrame:ffffffff"), "OK");

	/*
	 * "collect $ustack" (the tests' hooks stand in for ax_hooks.c: call
	 * its tracev as they would): the text start, then the addresses
	 * user_ustack() made up, in one block at GTP_USTACK_ADDR - 8; out of
	 * task context no block, and $ustack 0.
	 */
	env.tp = tp;
	user_ustack_depth = 2;
	assert_int_equal(gtp_fb_tracev(&fb, 1, &env), 0);
	assert_int_equal(fb.len, 11 + 24 + 13);
	assert_int_equal(buf[0], 'M');
	memcpy(w, buf + 1, 8);
	memcpy(&mlen, buf + 9, 2);
	assert_true(w[0] == GTP_USTACK_ADDR - 8);
	assert_int_equal(mlen, 24);
	memcpy(w, buf + 11, 24);
	assert_true(w[0] == user_ustack_text);
	assert_true(w[1] == user_ustack_text + 0x100);
	assert_true(w[2] == user_ustack_text + 0x110);
	memcpy(&val, buf + 35 + 5, 8);
	assert_int_equal(val, 2);
	fb.len = 0;
	user_task_ctx = false;
	assert_int_equal(gtp_fb_tracev(&fb, 1, &env), 0);
	assert_int_equal(fb.len, 13);
	assert_int_equal(buf[0], 'V');
	memcpy(&val, buf + 5, 8);
	assert_int_equal(val, 0);
	user_ustack_depth = 0;
}

/*
 * Entry values (entryval.h): a location whose bytecode reads the range is
 * marked at QTStart; reads there give what the host recorded at the
 * function's entry (user_trace.c: user_entry_regs), and collecting one
 * writes it as memory at its address in the range.
 */
static void test_entry_values(void **state)
{
	struct pt_regs regs = { .ip = ADDR + 1 };
	struct ax_env env = { .regs = &regs };
	struct gtp_fbuild fb;
	struct gtp_tp *tp, *plain;
	u8 buf[64];
	u64 v = 0, addr;
	u16 len;
	u32 v32 = 0;

	/* 1: collect count (DW_OP_entry_value(rdx) rewritten: K = 0x18) */
	assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-1:" ADDR16 ":X7,22180d081a2927"),
			    "OK");
	/* 2: a constant in the range that nothing reads */
	assert_string_equal(ask("QTDP:2:" ADDR2 ":E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-2:" ADDR2 ":X4,22182927"), "OK");
	assert_string_equal(ask("QTStart"), "OK");
	tp = gtp_tp_find(1, ADDR);
	plain = gtp_tp_find(2, 0xffffffffc0001700ull);
	assert_true(tp->reads_entry);
	assert_false(plain->reads_entry);

	user_entry_regs[1] = 0x1122334455667788ull;
	env.tp = tp;
	assert_int_equal(gtp_ev_read(&env, 0x18, &v, 8), 0);
	assert_true(v == 0x1122334455667788ull);
	assert_int_equal(gtp_ev_read(&env, 0x1c, &v32, 4), 0);
	assert_true(v32 == 0x11223344);
	/* across two registers, or a register ftrace does not save: none */
	assert_int_equal(gtp_ev_read(&env, 0x1c, &v, 8), -EFAULT);
	assert_int_equal(gtp_ev_read(&env, 0x10, &v, 8), -EFAULT);
	assert_int_equal(gtp_ev_read(&env, 0x28, &v, 8), -EFAULT);

	fb = (struct gtp_fbuild){ .buf = buf, .cap = sizeof(buf) };
	assert_int_equal(gtp_ev_trace(&fb, &env, 0x18, 8), 0);
	assert_int_equal(fb.len, 11 + 8);
	assert_int_equal(buf[0], 'M');
	memcpy(&addr, buf + 1, 8);
	memcpy(&len, buf + 9, 2);
	memcpy(&v, buf + 11, 8);
	assert_true(addr == 0x18);
	assert_int_equal(len, 8);
	assert_true(v == 0x1122334455667788ull);
	/* not recorded (entered before the trace started): nothing kept */
	user_entry_ok = false;
	assert_int_equal(gtp_ev_trace(&fb, &env, 0x18, 8), 0);
	assert_int_equal(fb.len, 11 + 8);
	assert_int_equal(gtp_ev_read(&env, 0x18, &v, 8), -EFAULT);
	user_entry_ok = true;
	/* in a condition there is no frame to record into */
	assert_int_equal(gtp_ev_trace(NULL, &env, 0x18, 8), -EINVAL);
}

int main(void)
{
#define T(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_qtdp_define_and_upload),
		T(test_while_stepping_refused),
		T(test_verifier_refusal_explained),
		T(test_huge_mem_length_refused),
		T(test_plan_without_actions),
		T(test_two_conditions_refused),
		T(test_malformed_refused),
		T(test_limits),
		T(test_action_limits),
		T(test_jit_probe_images_counted),
		T(test_hit_budget_shared),
		T(test_stop_trigger),
		T(test_perf_tsv),
		T(test_pcpu_tsv),
		T(test_trigger_chain),
		T(test_tsv_packets),
		T(test_bound_facts_follow_definitions),
		T(test_kret_and_kstack),
		T(test_filter_builtins),
		T(test_locations_each_their_own),
		T(test_user_memory),
		T(test_entry_values),
		T(test_run_and_frames),
		T(test_rsub_block),
		T(test_rsub_two_r_actions),
		T(test_uncollected_regs_and_pc),
		T(test_condition_and_pass_count),
		T(test_disable_while_running),
		T(test_full_buffer_stops),
		T(test_circular_keeps_newest),
		T(test_qtbuffer_is_tfile_frames),
		T(test_frame_origin),
		T(test_start_failure_rolls_back),
		T(test_disconnect),
		T(test_frame_store_wrap_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
