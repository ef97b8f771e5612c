// SPDX-License-Identifier: GPL-2.0
/*
 * trace.c - the trace experiment's run state (qTStatus, QTinit).
 */
#include "trace.h"

#define GTP_DEFAULT_BUF_SIZE	(4 << 20)

static void pkt_qtstatus(struct gtp_conn *gc, char *args)
{
	gtp_replyf(gc, "T0;tnotrun:0;tframes:0;tcreated:0;tsize:%x;tfree:%x;circular:0;disconn:0",
		   GTP_DEFAULT_BUF_SIZE, GTP_DEFAULT_BUF_SIZE);
}

static void pkt_qtinit(struct gtp_conn *gc, char *args)
{
	gtp_reply(gc, "OK");
}

static const struct gtp_pkt_handler trace_handlers[] = {
	{ "qTStatus", GTP_PKT_EXACT, pkt_qtstatus },
	{ "QTinit", GTP_PKT_EXACT, pkt_qtinit },
	{ NULL },
};

static struct gtp_pkt_table trace_table = {
	.handlers = trace_handlers,
};

void gtp_trace_init(void)
{
	gtp_packets_register(&trace_table);
}
