// SPDX-License-Identifier: GPL-2.0
/*
 * user_rsp.c - one gdb exchange over a connection's RSP framer (see
 * user_rsp.h).  No test framework here: the fuzzers link it too, so a
 * malformed answer is reported as NULL for the caller to assert on.
 */
#include <stdio.h>
#include <string.h>

#include "user_host.h"
#include "packets.h"
#include "rsp.h"
#include "trace.h"
#include "user_env.h"
#include "user_rsp.h"

const char *user_rsp_frame(const char *data)
{
	static char buf[2 * RSP_PKT_MAX + 8];
	unsigned int sum = 0;
	const char *p;

	for (p = data; *p; p++)
		sum += (unsigned char)*p;
	snprintf(buf, sizeof(buf), "$%s#%02x", data, sum & 0xff);
	return buf;
}

/* Append the hex text of console packet @payload ("O...") to @console. */
static void take_console(const char *payload, char *console, size_t size)
{
	size_t len = strlen(console), k;
	unsigned int c;

	for (k = 1; payload[k] && payload[k + 1] && len + 1 < size; k += 2) {
		if (sscanf(payload + k, "%2x", &c) != 1)
			break;
		console[len++] = c;
	}
	console[len] = '\0';
}

const char *user_rsp_ask(struct gtp_conn *gc, const char *data,
			 char *console, size_t console_size)
{
	static char out[RSP_OUT_MAX + 1], payload[RSP_OUT_MAX];
	const char *pkt = user_rsp_frame(data), *p = out, *hash;
	size_t n = strlen(pkt);

	if (rsp_feed(&gc->rsp, pkt, n) != n)
		return NULL;
	n = rsp_out_read(&gc->rsp, out, sizeof(out) - 1);
	out[n] = '\0';
	console[0] = '\0';
	if (*p == '+')
		p++;
	for (;;) {
		hash = strchr(p, '#');
		if (*p != '$' || !hash || hash - p - 1 >= (long)sizeof(payload))
			return NULL;
		memcpy(payload, p + 1, hash - p - 1);
		payload[hash - p - 1] = '\0';
		p = hash + 3;
		if (payload[0] != 'O' || !*p)
			return payload;
		take_console(payload, console, console_size);
	}
}

static bool ask_ok(struct gtp_conn *gc, const char *data)
{
	char console[256] = "";
	const char *r = user_rsp_ask(gc, data, console, sizeof(console));

	return r && !strcmp(r, "OK");
}

struct gtp_conn *user_rsp_session(void)
{
	struct gtp_conn *gc;

	gtp_packets_init();
	gtp_trace_init();
	user_env_reset();
	gc = gtp_conn_open();
	if (gc && ask_ok(gc, "QStartNoAckMode") && ask_ok(gc, "QTinit"))
		return gc;
	if (gc)
		gtp_conn_close(gc);
	return NULL;
}

void user_rsp_session_end(struct gtp_conn *gc)
{
	char console[256] = "";

	user_rsp_ask(gc, "QTStop", console, sizeof(console));
	user_rsp_ask(gc, "QTinit", console, sizeof(console));
	gtp_conn_close(gc);
}
