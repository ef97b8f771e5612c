// SPDX-License-Identifier: GPL-2.0
/*
 * test_fuzz_packets_bytes.c - packet fuzzer mode a: random byte streams
 * on /proc/gtp (junk, stray '$' '#' '}', bad checksums, occasional
 * well-framed random payloads): the output must be acks and well-framed
 * packets only, nothing half-written.  Harness: fuzzlib_packets.h.
 */
#include "fuzzlib_packets.h"

/* (a) random bytes: only well-framed output may come back. */
static void test_random_bytes(void **state)
{
	static char buf[3 * RSP_PKT_MAX];
	unsigned long it;

	arm_crash_report();

	cur_mode = "a";
	for (it = 0; it < iters * 20; it++) {
		struct gtp_conn *gc;
		int chunk, nchunks;

		cur_seed = base_seed + it;
		rng_seed(cur_seed);
		alarm(20);
		gc = fresh_conn();
		nchunks = 1 + below(20);
		for (chunk = 0; chunk < nchunks; chunk++) {
			size_t n = below(chance(10) ? sizeof(buf) - 16 : 256), i;

			for (i = 0; i < n; i++) {
				switch (below(10)) {
				case 0: buf[i] = "$#}+-\x03"[below(6)]; break;
				case 1: buf[i] = "0123456789abcdef"[below(16)]; break;
				case 2: buf[i] = "qQTDPm:,-X"[below(10)]; break;
				default: buf[i] = rnd(); break;
				}
			}
			/* Sometimes a well-framed packet with random content. */
			if (chance(30) && n < sizeof(buf) / 3 - 8) {
				memcpy(gbuf, buf, n);
				n = frame_pkt(buf, gbuf, n);
			}
			remember(buf, n);
			collect_reset();
			feed(gc, buf, n);
			if (chance(20))
				hit_all();
		}
		gtp_conn_close(gc);
		alarm(0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_bytes),
	};

	env_setup();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
