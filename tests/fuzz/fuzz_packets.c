// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_packets.c - libFuzzer harness of a whole gdb connection: packet
 * dispatch over every packet table, with the userspace backend (fake
 * memory, faked probe attachment, tracepoint hits).
 *
 * The input is a session, one packet payload per line; an empty line
 * fires every armed tracepoint once (a hit, as the kprobe handler would
 * make it).  Each packet is framed the way gdb frames it and fed as
 * gtp_write() does (fuzzlib_packets_wire.c): it must get an ack, exactly one
 * reply, and the reply must have the shape gdb expects for that packet.
 * A refused QTDP must change no definition; every tracepoint must hold
 * exactly the actions of its chunks.  At the end the trace is stopped
 * and the frame store checked (check_store(): qTStatus, qTBuffer read
 * whole and in pieces, QTFrame, 'g').
 *
 * Now and then, as the input's hash decides, arming a probe fails or gdb
 * goes away and reconnects (disconnected tracing).  The trace buffer
 * stays within FZ_BUF_MAX (harness.h).
 */
#include "harness.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fz_init();
	return 0;
}

/*
 * An accepted QTBuffer:size larger than FZ_BUF_MAX (or -1, the default
 * size) is parsed and answered as usual, then lowered to FZ_BUF_MAX.
 */
static void clamp_buffer(struct gtp_conn *gc, const char *line, size_t len,
			 const char *r)
{
	static char arg[FZ_PKT_MAX + 1];
	u64 v;

	if (!r || strcmp(r, "OK") || len < 14 ||
	    memcmp(line, "QTBuffer:size:", 14))
		return;
	len = min_t(size_t, len - 14, FZ_PKT_MAX);
	memcpy(arg, line + 14, len);
	arg[len] = '\0';
	if (!strcmp(arg, "-1") || !rsp_parse_hex(arg, &v) || v > FZ_BUF_MAX)
		fz_buffer(gc, FZ_BUF_MAX);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	const u8 *p = data, *end = data + size;
	struct gtp_conn *gc;
	const char *line;
	size_t len;

	fz_begin(data, size, "libfuzzer packets");
	gc = fz_conn();
	while (fz_line(&p, end, &line, &len)) {
		u64 sig = tps_signature();
		const char *r;

		if (!len) {
			hit_all();
			continue;
		}
		if (chance(3))
			user_trace_fail_arm = chance(50) ? -22 : -84;
		r = send_pkt(gc, line, min_t(size_t, len, FZ_PKT_MAX));
		clamp_buffer(gc, line, len, r);
		if (r && r[0] == 'E' && starts(line, "QTDP:"))
			FZ_CHECK(tps_signature() == sig,
				 "a refused QTDP changed the definitions");
		check_definitions();
		if (chance(2)) {
			gtp_conn_close(gc);
			gc = gtp_conn_open();
			assert_non_null(gc);
			noack = false;
		}
	}
	check_store(gc);
	gtp_conn_close(gc);
	return 0;
}
