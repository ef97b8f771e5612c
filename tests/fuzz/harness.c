// SPDX-License-Identifier: GPL-2.0
/*
 * harness.c - setup, per-input seeding and line splitting for the
 * libFuzzer harnesses of the packet layer (see harness.h).
 */
#include "harness.h"
#include "fz_hash.h"

void fz_init(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	setenv("CMOCKA_TEST_ABORT", "1", 1);
	/*
	 * Not env_setup(): its SIGALRM hang report would replace
	 * libFuzzer's own -timeout handler.
	 */
	gtp_packets_init();
	gtp_trace_init();
}

static unsigned long line_nr;	/* of the input being run */

void fz_begin(const u8 *data, size_t size, const char *mode)
{
	line_nr = 0;
	cur_mode = mode;
	cur_seed = fz_hash(data, size);
	rng_seed(cur_seed);
}

/*
 * fresh_conn() with a trace buffer of at most FZ_BUF_MAX bytes: cheap to
 * allocate and to check on every input, and a small buffer fills, wraps
 * and stops the trace far more often.
 */
struct gtp_conn *fz_conn(void)
{
	struct gtp_conn *gc = fresh_conn();

	fz_buffer(gc, 0x400 + below(FZ_BUF_MAX - 0x400 + 1));
	return gc;
}

void fz_buffer(struct gtp_conn *gc, u64 size)
{
	char pkt[48];
	const char *r;

	snprintf(pkt, sizeof(pkt), "QTBuffer:size:%llx",
		 (unsigned long long)size);
	r = send_str(gc, pkt);
	FZ_CHECK(!strcmp(r, "OK"), "%s refused: %s", pkt, r);
}

/*
 * Each line also reseeds the generator from its own bytes and position:
 * a mutation of one packet then changes only what happens around that
 * packet (piece sizes, hits, reconnects), not the whole run, which keeps
 * libFuzzer's coverage feedback meaningful.
 */
bool fz_line(const u8 **p, const u8 *end, const char **line, size_t *len)
{
	const u8 *nl;

	if (*p >= end)
		return false;
	nl = memchr(*p, '\n', end - *p);
	*line = (const char *)*p;
	*len = (nl ? nl : end) - *p;
	*p = nl ? nl + 1 : end;
	rng_seed(fz_hash((const u8 *)*line, *len) ^ ++line_nr * 0x9e3779b97f4a7c15ull);
	return true;
}
