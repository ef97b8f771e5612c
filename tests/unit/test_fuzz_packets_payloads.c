// SPDX-License-Identifier: GPL-2.0
/*
 * test_fuzz_packets_payloads.c - packet fuzzer mode b: well-framed
 * packets with random payloads, most starting with a real packet name:
 * exactly one reply per packet (after console 'O' packets), of the shape
 * gdb expects for that packet.  Harness: fuzzlib_packets.h.
 */
#include "fuzzlib_packets.h"

static const char *const names[] = {
	"QTDP:", "QTDP:-", "QTDPsrc:", "QTDV:", "QTFrame:", "QTFrame:pc:",
	"QTFrame:tdp:", "QTFrame:range:", "QTFrame:outside:", "qTBuffer:",
	"QTBuffer:", "QTBuffer:size:", "QTBuffer:circular:", "m", "g", "qTP:",
	"qTV:", "qTfV", "qTsV", "qTfP", "qTsP", "QTEnable:", "QTDisable:",
	"QTro:", "QTNotes:", "QTDisconnected:", "qXfer:features:read:",
	"qXfer:features:read:target.xml:", "qXfer:traceframe-info:read::",
	"qSupported", "QStartNoAckMode", "qTStatus", "QTinit", "QTStart",
	"QTStop", "Hg", "T", "D", "?", "qC", "vMustReplyEmpty",
	"qGtpFrameOrigin:",
};

/* (b) well-framed packets, random payloads: one good reply each. */
static void test_random_payloads(void **state)
{
	unsigned long it;

	arm_crash_report();

	cur_mode = "b";
	for (it = 0; it < iters * 10; it++) {
		struct gtp_conn *gc;
		int k, npk;

		cur_seed = base_seed + it;
		rng_seed(cur_seed);
		alarm(20);
		gc = fresh_conn();
		npk = 1 + below(60);
		for (k = 0; k < npk; k++) {
			size_t n = 0, len, i;
			const char *nm = names[below(ARRAY_SIZE(names))];

			if (chance(90)) {
				n = strlen(nm);
				memcpy(gbuf, nm, n);
			}
			len = below(chance(5) ? RSP_PKT_MAX + 100 : 48);
			for (i = 0; i < len; i++)
				gbuf[n++] = chance(60) ?
					"0123456789abcdef:,-;X"[below(21)] :
					(char)rnd();
			send_pkt(gc, gbuf, n);
			if (chance(10))
				hit_all();
		}
		gtp_conn_close(gc);
		alarm(0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_payloads),
	};

	env_setup();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
