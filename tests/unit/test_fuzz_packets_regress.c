// SPDX-License-Identifier: GPL-2.0
/*
 * test_fuzz_packets_regress.c - the bugs the packet fuzzers found
 * (test_fuzz_packets_*.c), each as a plain cmocka test through the same
 * harness (fuzzlib_packets.h).
 */
#include "fuzzlib_packets.h"

/* Run QTinit + one tracepoint collecting @mlen bytes, hit it @hits times. */
static void one_run(struct gtp_conn *gc, unsigned int mlen, int hits)
{
	char pkt[96];

	assert_string_equal(send_str(gc, "QTinit"), "OK");
	assert_string_equal(send_str(gc, "QTDP:1:ffffffff81000000:E:0:0-"),
			    "OK");
	snprintf(pkt, sizeof(pkt),
		 "QTDP:-1:ffffffff81000000:M-1,ffffffff81000000,%x", mlen);
	assert_string_equal(send_str(gc, pkt), "OK");
	assert_string_equal(send_str(gc, "QTStart"), "OK");
	while (hits--)
		hit_all();
	assert_string_equal(send_str(gc, "QTStop"), "OK");
}

/*
 * traceframe.c kept qTBuffer's position cache (frame index, offset) across
 * runs: after reading a first run's buffer, a read of the second run's at
 * an offset past the cached one started from the wrong frame.
 */
static void test_qtbuffer_cache_across_runs(void **state)
{
	struct gtp_conn *gc;
	const u8 *f;
	u8 want[0x40], got[0x40];
	u32 flen;
	u64 i, off = 0;
	char pkt[64];

	cur_mode = "regress";
	cur_seed = 0;
	rng_seed(0);
	gc = fresh_conn();
	one_run(gc, 0x200, 3);		/* frames of 0x211 bytes */
	assert_int_equal(gtp_frames_count(), 3);
	/* As tsave reads it: the cache ends on the last frame (0x422). */
	for (;;) {
		snprintf(pkt, sizeof(pkt), "qTBuffer:%llx,7d0",
			 (unsigned long long)off);
		if (!strcmp(send_str(gc, pkt), "l"))
			break;
		off += strlen(gdb_out.pkts[gdb_out.npkts - 1]) / 2;
	}
	assert_int_equal(off, 3 * 0x211);
	off = 0;
	one_run(gc, 0x10, 50);		/* frames of 0x21 bytes */
	assert_int_equal(gtp_frames_count(), 50);
	/* Frame 40 of the second run, read at its offset. */
	for (i = 0; i < 40; i++) {
		gtp_frame_get(i, &flen);
		off += flen;
	}
	f = gtp_frame_get(40, &flen);
	memcpy(want, f, flen);
	snprintf(pkt, sizeof(pkt), "qTBuffer:%llx,%x", (unsigned long long)off,
		 flen);
	assert_int_equal(rsp_hex2bin(send_str(gc, pkt), 2 * flen, got), flen);
	assert_memory_equal(got, want, flen);
	gtp_conn_close(gc);
}

/* A handler that explains itself at length before replying. */
static void flood_handler(struct rsp_conn *c, char *pkt, size_t len)
{
	char line[300];
	int i, n = atoi(pkt);

	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	for (i = 0; i < n; i++)
		rsp_console(c, "%d %s\n", i, line);
	rsp_reply_str(c, "OK");
}

/*
 * rsp.c queued every console line a handler emitted, so a handler with
 * many of them (tracepoint.c says "JIT failed" once per X action, and a
 * QTDP:- packet can hold thousands) overran the output queue: a WARN, and
 * bytes dropped from the middle of a packet.  Lines that do not fit are
 * dropped whole now; the reply always goes out.
 */
static void test_console_flood(void **state)
{
	static char wire[64];
	struct rsp_conn c;
	int n;

	cur_mode = "regress";
	for (n = 0; n <= 1000; n += n < 10 ? 1 : 97) {
		char num[16];
		size_t w;

		assert_int_equal(rsp_init(&c, flood_handler, NULL), 0);
		snprintf(num, sizeof(num), "%d", n);
		remember(num, strlen(num));
		w = frame_pkt(wire, num, strlen(num));
		gdb_out.state = 0;
		collect_reset();
		assert_int_equal(rsp_feed(&c, wire, w), w);
		while (rsp_out_pending(&c)) {
			char buf[512];
			size_t i, got = rsp_out_read(&c, buf, sizeof(buf));

			for (i = 0; i < got; i++)
				out_byte(buf[i]);
		}
		assert_int_equal(gdb_out.state, 0);
		assert_int_equal(gdb_out.acks, 1);
		assert_true(gdb_out.npkts >= 1 + (n > 0));
		assert_string_equal(gdb_out.pkts[min_t(unsigned int, gdb_out.npkts,
						   MAX_PKTS) - 1], "OK");
		rsp_destroy(&c);
	}
}

/*
 * gtp_fb_trace() scanned the whole range of an M action or trace op, up to
 * 4 GiB, page by page: over unmapped kernel memory that is a million
 * faulting nofault reads inside one probe hit (seconds with preemption
 * off).  A frame cannot hold more than its capacity, so the scan stops
 * there: memory further than that from the start is not looked at.
 */
static void test_trace_scan_bounded(void **state)
{
	struct gtp_fbuild fb = { .buf = scratch, .cap = sizeof(scratch) };

	cur_mode = "regress";
	world_reset();
	/* 1 MiB of hole, then the readable region: out of reach. */
	assert_int_equal(gtp_fb_trace(&fb, MEM_KERN - 0x100000, 0x200000,
				      false), 0);
	assert_int_equal(fb.len, 0);
	/* Within reach it is collected as before. */
	assert_int_equal(gtp_fb_trace(&fb, MEM_KERN - 0x1000, 0x2000, false),
			 0);
	assert_int_equal(fb.len, 11 + 0x1000);
	/* The largest request over a hole returns (quickly). */
	fb.len = 0;
	assert_int_equal(gtp_fb_trace(&fb, 0xffff800000000000ull, 0xffffffffu,
				      false), 0);
	assert_int_equal(fb.len, 0);
}

/*
 * tracepoint.c kept the actions parsed before a bad one in a refused
 * QTDP:- chunk: gdb was told E01, yet the tracepoint collected half the
 * chunk (and qTfP did not show it).  A refused packet has no effect.
 */
static void test_refused_chunk_has_no_effect(void **state)
{
	struct gtp_conn *gc;
	const char *r;
	u32 flen;

	cur_mode = "regress";
	cur_seed = 0;
	rng_seed(0);
	gc = fresh_conn();
	assert_string_equal(send_str(gc, "QTDP:1:ffffffff81000000:E:0:0-"),
			    "OK");
	/* R and M are fine, the expression fails verification (no end). */
	r = send_str(gc, "QTDP:-1:ffffffff81000000:R40M-1,ffffffff81000000,4X00000002,2201");
	assert_string_equal(r, "E01");
	r = send_str(gc, "QTDP:-1:ffffffff81000000:M-1,ffffffff81000000,4Q");
	assert_string_equal(r, "E01");
	/* Upload: the definition only. */
	assert_true(send_str(gc, "qTfP")[0] == 'T');
	assert_string_equal(send_str(gc, "qTsP"), "l");
	/* A hit collects nothing: an empty frame. */
	assert_string_equal(send_str(gc, "QTStart"), "OK");
	hit_all();
	assert_string_equal(send_str(gc, "QTStop"), "OK");
	assert_int_equal(gtp_frames_count(), 1);
	gtp_frame_get(0, &flen);
	assert_int_equal(flen, GTP_FRAME_HDR);
	/* 'g' in that frame: nothing collected, only the pc is known. */
	assert_string_equal(send_str(gc, "QTFrame:0"), "F0T1");
	r = send_str(gc, "g");
	assert_int_equal(strspn(r, "x"), 16 * 16);
	assert_memory_equal(r + 16 * 16, "00000081ffffffff", 16);
	assert_int_equal(strspn(r + 17 * 16, "x"), 7 * 8);
	gtp_conn_close(gc);
}

/* Store one raw frame of @len bytes tagged with @seq; false if dropped. */
static bool put_tagged(u32 len, u32 seq)
{
	struct gtp_frame_slot slot;
	u8 *d = gtp_frame_reserve(&slot, len);

	if (!d)
		return false;
	memset(d, 0, len);
	memcpy(d, &seq, 4);
	gtp_frame_commit(&slot);
	return true;
}

/*
 * frame.c, circular mode: dropping a record that ended exactly at the end
 * of the buffer left head == size, which place() then took for free space
 * up to the end: the next frame overwrote the oldest one.  The frames
 * read back out of order (mode d found it as a frame whose header said
 * another size).
 */
static void test_circular_head_at_end(void **state)
{
	static const u32 lens[] = { 28, 28, 12, 28, 12, 12, 28, 12, 28, 28 };
	u32 i, seq, prev = 0, n;

	cur_mode = "regress";
	gtp_trace_exit();
	/* A store may refuse a buffer this small (the ring does). */
	if (gtp_frames_setup(64, true))
		skip();
	gtp_frames_start();
	for (i = 0; i < ARRAY_SIZE(lens); i++)
		assert_true(put_tagged(lens[i], i + 1));
	gtp_frames_stop();
	n = gtp_frames_count();
	assert_true(n >= 1);
	/* Oldest first, no repeats, and the last one is the newest. */
	for (i = 0; i < n; i++) {
		u32 flen;
		const u8 *f = gtp_frame_get(i, &flen);

		assert_non_null(f);
		memcpy(&seq, f, 4);
		assert_true(seq > prev);
		assert_int_equal(flen, lens[seq - 1]);
		prev = seq;
	}
	assert_int_equal(prev, ARRAY_SIZE(lens));
	gtp_frames_release();
}

/*
 * traceframe.c built qXfer:traceframe-info in the 16 KiB scratch buffer
 * and silently stopped listing blocks when it was nearly full (about 300
 * <memory> elements): gdb then showed collected memory as <unavailable>.
 */
static void test_tframe_info_lists_every_block(void **state)
{
	static char xml[256 * 1024], pkt[RSP_PKT_MAX];
	struct gtp_conn *gc;
	size_t got = 0;
	const char *r, *p;
	int i, n = 0;
	char *q = pkt;

	cur_mode = "regress";
	cur_seed = 0;
	rng_seed(0);
	gc = fresh_conn();
	assert_string_equal(send_str(gc, "QTDP:1:ffffffff81000000:E:0:0-"),
			    "OK");
	q += sprintf(q, "QTDP:-1:ffffffff81000000:");
	for (i = 0; i < 600; i++)
		q += sprintf(q, "M-1,%llx,1",
			     (unsigned long long)MEM_KERN + 2 * i);
	assert_string_equal(send_str(gc, pkt), "OK");
	assert_string_equal(send_str(gc, "QTStart"), "OK");
	hit_all();
	assert_string_equal(send_str(gc, "QTStop"), "OK");
	assert_string_equal(send_str(gc, "QTFrame:0"), "F0T1");
	for (;;) {
		char rq[64];
		size_t len;

		snprintf(rq, sizeof(rq), "qXfer:traceframe-info:read::%zx,fff",
			 got);
		r = send_str(gc, rq);
		assert_true(r[0] == 'm' || r[0] == 'l');
		len = strlen(r + 1);
		assert_true(got + len < sizeof(xml));
		memcpy(xml + got, r + 1, len);
		got += len;
		if (r[0] == 'l')
			break;
	}
	xml[got] = '\0';
	for (p = xml; (p = strstr(p, "<memory ")); p++)
		n++;
	assert_int_equal(n, 600);
	assert_non_null(strstr(xml, "</traceframe-info>"));
	gtp_conn_close(gc);
}

/*
 * trace.c stored QTNotes fields as sent; qTStatus hands them back and gdb
 * hex-decodes them, failing every later tstatus (and connect: QTinit does
 * not clear notes) on one bad digit.  Non-hex notes are refused now.
 */
static void test_qtnotes_non_hex_refused(void **state)
{
	struct gtp_conn *gc;
	const char *r;

	cur_mode = "regress";
	cur_seed = 0;
	rng_seed(0);
	gc = fresh_conn();
	assert_string_equal(send_str(gc, "QTNotes:user:6a6f65;notes:6869;"),
			    "OK");
	assert_string_equal(send_str(gc, "QTNotes:user:,,6a6f65;"), "E01");
	assert_string_equal(send_str(gc, "QTNotes:notes:zz;"), "E01");
	assert_string_equal(send_str(gc, "QTNotes:tstop:7g;"), "E01");
	r = send_str(gc, "qTStatus");
	assert_non_null(strstr(r, ";username:6a6f65"));
	assert_non_null(strstr(r, ";notes:6869"));
	send_str(gc, "QTNotes:user:;notes:;tstop:;");
	gtp_conn_close(gc);
}

/*
 * tracepoint.c stored QTDPsrc bodies unchecked and qTfP/qTsP replayed them
 * as Z pieces to every gdb that connects.  gdb's parser follows the
 * colons blindly (strchr(..., ':') + 1 on a missing one: a crash) and
 * hex-decodes the text (an error on a bad digit), so one bad QTDPsrc broke
 * every later connection.  Malformed ones are refused now.
 */
static void test_qtdpsrc_checked(void **state)
{
	struct gtp_conn *gc;

	cur_mode = "regress";
	cur_seed = 0;
	rng_seed(0);
	gc = fresh_conn();
	assert_string_equal(send_str(gc, "QTDP:1:ffffffff81000000:E:0:0"),
			    "OK");
	assert_string_equal(send_str(gc, "QTDPsrc:1:ffffffff81000000:at:0:4:776f726b"),
			    "OK");
	assert_string_equal(send_str(gc, "QTDPsrc:1:ffffffff81000000:cmd"),
			    "E01");
	assert_string_equal(send_str(gc, "QTDPsrc:1:ffffffff81000000:cmd:0:1:7g"),
			    "E01");
	assert_string_equal(send_str(gc, "QTDPsrc:1:ffffffff81000000:cond:0:1:7"),
			    "E01");
	assert_string_equal(send_str(gc, "QTDPsrc:1:ffffffff81000000:foo:0:1:77"),
			    "E01");
	assert_true(send_str(gc, "qTfP")[0] == 'T');
	assert_string_equal(send_str(gc, "qTsP"),
			    "Z1:ffffffff81000000:at:0:4:776f726b");
	assert_string_equal(send_str(gc, "qTsP"), "l");
	gtp_conn_close(gc);
}

/*
 * Every refused definition says why on gdb's console before its E reply
 * (gdb prints the line; a bare E01 leaves the user guessing): tsv.c
 * refused a malformed QTDV, and tp_state.c a QTDPsrc or QTEnable of an
 * undefined tracepoint, with E01 alone.
 */
static void test_definition_refusals_explained(void **state)
{
	static const char *const bad[] = {
		"QTDV:1:0:0:zz",		/* name not hex */
		"QTDV:1:0:0",			/* no name */
		"QTDV:x",
		"QTDPsrc:5:ffffffff81000000:cond:0:2:6131",	/* no tp 5 */
		"QTDPsrc:1",
		"QTEnable:5:ffffffff81000000",
		"QTDisable:1:zz",
	};
	struct gtp_conn *gc;
	unsigned int i;

	cur_mode = "regress";
	cur_seed = 0;
	rng_seed(0);
	gc = fresh_conn();
	assert_string_equal(send_str(gc, "QTDP:1:ffffffff81000000:E:0:0"), "OK");
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_string_equal(send_str(gc, bad[i]), "E01");
		if (gdb_out.npkts < 2)
			fail_msg("%s: refused without a console line", bad[i]);
		assert_int_equal(gdb_out.pkts[0][0], 'O');
	}
	assert_string_equal(send_str(gc, "QTinit"), "OK");
	gtp_conn_close(gc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qtbuffer_cache_across_runs),
		cmocka_unit_test(test_console_flood),
		cmocka_unit_test(test_trace_scan_bounded),
		cmocka_unit_test(test_refused_chunk_has_no_effect),
		cmocka_unit_test(test_circular_head_at_end),
		cmocka_unit_test(test_tframe_info_lists_every_block),
		cmocka_unit_test(test_qtnotes_non_hex_refused),
		cmocka_unit_test(test_qtdpsrc_checked),
		cmocka_unit_test(test_definition_refusals_explained),
	};

	env_setup();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
