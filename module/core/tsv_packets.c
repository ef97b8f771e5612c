// SPDX-License-Identifier: GPL-2.0
/*
 * tsv_packets.c - the trace state variables' packets: QTDV defines one,
 * qTfV/qTsV hand the definitions back (gtp_tsv_format()), qTV reads a
 * value (from the selected frame if there is one, traceframe.c).  The
 * store itself is tsv.c, below the probe path; these sit with the other
 * readers.
 */
#include "tsv.h"
#include "traceframe.h"
#include "run.h"

/* QTDV:<n>:<value16>:<builtin>:<hexname> */
static void pkt_qtdv(struct gtp_conn *gc, char *args)
{
	char name[GTP_TSV_NAME];
	u64 num, val, builtin;
	const char *p = args;
	size_t nhex;

	if (!(p = rsp_parse_hex(p, &num)) || *p++ != ':' ||
	    !(p = rsp_parse_hex(p, &val)) || *p++ != ':' ||
	    !(p = rsp_parse_hex(p, &builtin)) || *p++ != ':')
		goto malformed;
	nhex = strlen(p);
	if (nhex / 2 >= sizeof(name) || rsp_hex2bin(p, nhex, (u8 *)name) < 0)
		goto malformed;
	name[nhex / 2] = '\0';
	/*
	 * Probes read the table without locks, trusting that a slot does
	 * not change under them (tsv.c): no redefining while they run.
	 * gdb's tstart defines every variable after QTinit, before QTStart.
	 */
	if (gtp_trace_busy()) {
		gtp_console(gc, "gtp: cannot define trace state variable %llu while a trace runs (tstop first)\n",
			    (unsigned long long)num);
		gtp_reply_error(gc, 1);
		return;
	}
	if (gtp_tsv_define(num, (s64)val, builtin, name)) {
		gtp_console(gc, "gtp: too many trace state variables (at most %u)\n",
			    GTP_MAX_TSV);
		gtp_reply_error(gc, 1);
		return;
	}
	gtp_reply(gc, "OK");
	return;
malformed:
	gtp_console(gc, "gtp: malformed QTDV packet\n");
	gtp_reply_error(gc, 1);
}

/* The variable at this connection's qTfV/qTsV cursor, or 'l'. */
static void reply_tsv(struct gtp_conn *gc)
{
	size_t size;
	char *buf = rsp_reply_tail(&gc->rsp, &size);
	int n = gtp_tsv_format(gc->tsv_upload.next, buf, size);

	if (n == -ENOENT) {
		gtp_reply(gc, "l");
		return;
	}
	gc->tsv_upload.next++;
	rsp_reply_added(&gc->rsp, n);
}

static void pkt_qtfv(struct gtp_conn *gc, char *args)
{
	gc->tsv_upload.next = 0;
	reply_tsv(gc);
}

static void pkt_qtsv(struct gtp_conn *gc, char *args)
{
	reply_tsv(gc);
}

/* qTV:<n> -> V<value> or U; from the selected frame if there is one. */
static void pkt_qtv(struct gtp_conn *gc, char *args)
{
	const char *p;
	u64 num;
	s64 val;

	p = rsp_parse_hex(args, &num);
	if (!p || *p) {
		gtp_reply_error(gc, 1);
		return;
	}
	if (gc->frame >= 0) {
		if (gtp_traceframe_tsv(gc, num, &val))
			gtp_reply(gc, "U");
		else
			gtp_replyf(gc, "V%llx", (unsigned long long)val);
		return;
	}
	if (gtp_tsv_get(num, &val))
		gtp_reply(gc, "U");
	else
		gtp_replyf(gc, "V%llx", (unsigned long long)val);
}

static const struct gtp_pkt_handler tsv_handlers[] = {
	{ "QTDV:", 0, pkt_qtdv },
	{ "qTfV", GTP_PKT_EXACT, pkt_qtfv },
	{ "qTsV", GTP_PKT_EXACT, pkt_qtsv },
	{ "qTV:", 0, pkt_qtv },
	{ NULL },
};

static struct gtp_pkt_table tsv_table = {
	.handlers = tsv_handlers,
};

void gtp_tsv_init(void)
{
	gtp_packets_register(&tsv_table);
}
