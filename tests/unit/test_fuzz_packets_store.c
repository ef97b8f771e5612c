// SPDX-License-Identifier: GPL-2.0
/*
 * test_fuzz_packets_store.c - packet fuzzer mode d: the frame store under
 * pressure through the packets: small buffers, circular or not, frames of
 * random sizes, several runs per connection.  Harness: fuzzlib_packets.h.
 */
#include "fuzzlib_packets.h"

/*
 * (d) the frame store under pressure: small buffers, circular or not,
 * frames of random sizes from several tracepoints, runs restarted; the
 * store must stay consistent and a full non-circular buffer stops the run.
 */
static void test_store_stress(void **state)
{
	unsigned long it;
	char pkt[128];

	arm_crash_report();

	cur_mode = "d";
	for (it = 0; it < iters * 5; it++) {
		struct gtp_conn *gc;
		int run, nruns, t, ntp, h;
		bool circ;

		cur_seed = base_seed + it;
		rng_seed(cur_seed);
		alarm(20);
		gc = fresh_conn();
		nruns = 1 + below(3);
		for (run = 0; run < nruns; run++) {
			const char *r;

			circ = chance(50);
			send_str(gc, "QTinit");
			ntp = 1 + below(4);
			for (t = 0; t < ntp; t++) {
				snprintf(pkt, sizeof(pkt), "QTDP:%x:%llx:E:0:0-",
					 t + 1, (unsigned long long)MEM_KERN + t);
				send_str(gc, pkt);
				snprintf(pkt, sizeof(pkt),
					 "QTDP:-%x:%llx:%sM-1,%llx,%x%s", t + 1,
					 (unsigned long long)MEM_KERN + t,
					 chance(50) ? "R40" : "",
					 (unsigned long long)rnd_addr(),
					 below(chance(10) ? 0x9000 : 0x300),
					 chance(30) ? "X00000003,2e000127" : "");
				send_str(gc, pkt);
			}
			snprintf(pkt, sizeof(pkt), "QTBuffer:circular:%d", circ);
			send_str(gc, pkt);
			snprintf(pkt, sizeof(pkt), "QTBuffer:size:%x",
				 0x400 + below(0x8000));
			send_str(gc, pkt);
			send_str(gc, "QTDV:1:0000000000000005:0:78");
			r = send_str(gc, "QTStart");
			/* refused only when a frame can never fit the buffer */
			FZ_CHECK(!strcmp(r, "OK") || !strcmp(r, "E01"),
				 "QTStart: %s", r);
			FZ_CHECK(!strcmp(r, "OK") || !gtp_trace_running(),
				 "QTStart refused but running");
			for (h = strcmp(r, "OK") ? 0 : below(300); h > 0; h--)
				hit_all();
			if (!circ && gtp_frames_count() && !gtp_trace_running()) {
				r = send_str(gc, "qTStatus");
				FZ_CHECK(strstr(r, "tfull:0"),
					 "stopped without tfull: %s", r);
			}
			/* Reads of the previous run must not leak into this one. */
			if (chance(50))
				send_str(gc, "qTBuffer:0,7d0");
			check_store(gc);
		}
		gtp_conn_close(gc);
		alarm(0);
	}
	print_stats();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_store_stress),
	};

	env_setup();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
