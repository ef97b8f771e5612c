// SPDX-License-Identifier: GPL-2.0
/*
 * tp_packets.c - the one packet table of the tracepoint files: QTDP
 * (tp_define.c), QTDPsrc, QTEnable/QTDisable, qTP (tp_state.c), qTfP/qTsP
 * (tp_upload.c).  Above all three, so that the table of locations they
 * work on (tracepoint.c) does not call up into its own packets.
 */
#include "tracepoint.h"
#include "tp_internal.h"

static const struct gtp_pkt_handler tp_handlers[] = {
	{ "QTDPsrc:", 0, gtp_pkt_qtdpsrc },
	{ "QTDP:", 0, gtp_pkt_qtdp },
	{ "QTEnable:", 0, gtp_pkt_qtenable },
	{ "QTDisable:", 0, gtp_pkt_qtdisable },
	{ "qTP:", 0, gtp_pkt_qtp },
	{ "qTfP", GTP_PKT_EXACT, gtp_pkt_qtfp },
	{ "qTsP", GTP_PKT_EXACT, gtp_pkt_qtsp },
	{ NULL },
};

static struct gtp_pkt_table tp_table = {
	.handlers = tp_handlers,
	/* tracenz: the interpreter and JIT run it, ax_hook_trace() stops at NUL */
	.features = "ConditionalTracepoints+;TracepointSource+;"
		    "EnableDisableTracepoints+;tracenz+",
};

/* Register the tracepoint packets (trace.c's gtp_trace_init()). */
void gtp_tp_packets_init(void)
{
	gtp_packets_register(&tp_table);
}
