// SPDX-License-Identifier: GPL-2.0
/*
 * test_fuzz_packets_sessions.c - packet fuzzer mode c: sessions built
 * from real gdb packets (fuzzlib_packets_corpus.c), each mutated with some
 * probability, interleaved with QTinit/QTStart/QTStop, with gdb going
 * away and coming back, and with tracepoint hits.  A refused QTDP changes
 * no definition.  After each session the frame store is checked:
 * qTStatus's tframes, qTBuffer read front to back and in random pieces
 * equals the stored frames, every frame parses, QTFrame selects each
 * one.  The same sessions unmutated (c0) must collect frames.
 * Harness: fuzzlib_packets.h.
 */
#include "fuzzlib_packets.h"

/* A session: define, start, hit, stop, look, with mutated packets. */
static void run_session(struct gtp_conn **gcp, bool mutating)
{
	int k, npk = 5 + below(80);
	int i;

	for (i = 0; i < 4; i++) {
		tp_nums[i] = 1 + below(3);
		tp_addrs[i] = chance(50) ? MEM_KERN + 0x100 * i : rnd_addr();
	}
	if (chance(50))
		send_str(*gcp, "qSupported:multiprocess+;xmlRegisters=i386");
	if (chance(50))
		send_str(*gcp, "QStartNoAckMode");
	for (k = 0; k < npk; k++) {
		size_t n = gen_real();

		if (mutating && chance(25))
			n = mutate(n);
		u64 sig = tps_signature();
		const char *r;

		if (chance(3))
			user_trace_fail_arm = chance(50) ? -22 : -84;
		r = send_pkt(*gcp, gbuf, n);
		if (r && r[0] == 'E' && !strncmp(gbuf, "QTDP:", 5))
			FZ_CHECK(tps_signature() == sig,
				 "a refused QTDP changed the definitions");
		check_definitions();
		if (chance(30))
			hit_all();
		if (chance(2)) {
			/* gdb goes away and comes back (disconnected tracing). */
			gtp_conn_close(*gcp);
			*gcp = gtp_conn_open();
			assert_non_null(*gcp);
			noack = false;
		}
	}
}

/* (c) mutated real gdb traffic, with state, then a store check. */
static void test_mutated_sessions(void **state)
{
	unsigned long it;

	arm_crash_report();

	cur_mode = "c";
	for (it = 0; it < iters * 10; it++) {
		struct gtp_conn *gc;

		cur_seed = base_seed + it;
		rng_seed(cur_seed);
		alarm(20);
		gc = fresh_conn();
		run_session(&gc, true);
		check_store(gc);
		gtp_conn_close(gc);
		alarm(0);
	}
	print_stats();
}

/* The unmutated sessions must actually trace: frames get collected. */
static void test_real_sessions_collect(void **state)
{
	unsigned long it, with_frames = 0;

	arm_crash_report();

	cur_mode = "c0";
	for (it = 0; it < 50; it++) {
		struct gtp_conn *gc;
		const char *r;

		cur_seed = base_seed + it;
		rng_seed(cur_seed);
		alarm(20);
		gc = fresh_conn();
		tp_nums[0] = 1;
		tp_addrs[0] = MEM_KERN;
		send_str(gc, "QTDP:1:ffffffff81000000:E:0:0-");
		send_str(gc, "QTDP:-1:ffffffff81000000:R0fffffffffffffffffffffffffffffffffffff-");
		send_str(gc, "QTDP:-1:ffffffff81000000:M-1,ffffffff81000010,40");
		run_session(&gc, false);
		r = send_str(gc, "QTStart");
		if (!strcmp(r, "OK")) {
			hit_all();
			hit_all();
		}
		check_store(gc);
		with_frames += gtp_frames_count() > 0;
		gtp_conn_close(gc);
		alarm(0);
	}
	print_stats();
	assert_true(with_frames > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mutated_sessions),
		cmocka_unit_test(test_real_sessions_collect),
	};

	env_setup();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
