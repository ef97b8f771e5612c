// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_qtdp.c - libFuzzer harness of the tracepoint definition parsers
 * (QTDP, its actions, QTDV, QTDPsrc: module/core/tp_define.c, tsv.c) and
 * of what a definition does once the trace runs.
 *
 * The input is one definition per line.  A line that starts with "QTD"
 * (QTDP:, QTDV:, QTDPsrc:) is sent as it is; any other line is the
 * argument of a QTDP: packet, so the fuzzer spends its time inside the
 * parser rather than on packet names.  After every packet: a refused
 * QTDP changed no definition, and every tracepoint holds exactly the
 * actions of its chunks (check_definitions()).  Then the trace starts,
 * every tracepoint is hit, gdb uploads the definitions back (qTfP/qTsP,
 * qTfV/qTsV: each piece of the shape gdb parses), and the frame store is
 * checked after QTStop (check_store()).
 */
#include "harness.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fz_init();
	return 0;
}

/* More pieces than any input of -max_len bytes can define. */
#define UPLOAD_MAX	(1 << 16)

/* gdb's upload after a reconnect: first, then next until "l". */
static void upload(struct gtp_conn *gc, const char *first, const char *next)
{
	const char *r = send_str(gc, first);
	int i;

	for (i = 0; i < UPLOAD_MAX && r && strcmp(r, "l") && r[0] != 'E'; i++)
		r = send_str(gc, next);
	FZ_CHECK(i < UPLOAD_MAX, "%s/%s never ends", first, next);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static char pkt[FZ_PKT_MAX + 8];
	const u8 *p = data, *end = data + size;
	struct gtp_conn *gc;
	const char *line, *r;
	size_t len, n;
	int h;

	fz_begin(data, size, "libfuzzer qtdp");
	gc = fz_conn();
	while (fz_line(&p, end, &line, &len)) {
		u64 sig = tps_signature();

		n = 0;
		if (len < 3 || memcmp(line, "QTD", 3))
			n = sprintf(pkt, "QTDP:");
		len = min_t(size_t, len, FZ_PKT_MAX - n);
		memcpy(pkt + n, line, len);
		n += len;
		r = send_pkt(gc, pkt, n);
		if (r && r[0] == 'E' && n >= 5 && !memcmp(pkt, "QTDP:", 5))
			FZ_CHECK(tps_signature() == sig,
				 "a refused QTDP changed the definitions");
		check_definitions();
	}
	r = send_str(gc, "QTStart");
	if (!strcmp(r, "OK"))
		for (h = 1 + below(3); h > 0; h--)
			hit_all();
	upload(gc, "qTfP", "qTsP");
	upload(gc, "qTfV", "qTsV");
	check_store(gc);
	gtp_conn_close(gc);
	return 0;
}
