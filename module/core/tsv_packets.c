// SPDX-License-Identifier: GPL-2.0
/*
 * tsv_packets.c - the trace state variables' packets: QTDV defines one,
 * qTfV/qTsV hand the definitions back (gtp_tsv_format()), qTV reads a
 * value (from the selected frame if there is one, traceframe.c), qGtpAgg
 * reads an aggregating variable's tables (agg.c), qGtpPcpu a per-CPU
 * variable's values (tsv.c).  The
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
	int ret;

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
	ret = gtp_tsv_define(num, (s64)val, builtin, name);
	if (ret == -ENOMEM) {
		gtp_console(gc, "gtp: out of memory for the tables of $%s\n",
			    name);
		gtp_reply_error(gc, 1);
		return;
	}
	if (ret) {
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
		switch (gtp_traceframe_tsv(gc, num, &val)) {
		case 0:
			gtp_replyf(gc, "V%llx", (unsigned long long)val);
			break;
		case -ESTALE:	/* the stream took the frame: said why */
			gtp_reply_error(gc, 1);
			break;
		default:
			gtp_reply(gc, "U");
		}
		return;
	}
	if (gtp_tsv_get(num, &val))
		gtp_reply(gc, "U");
	else
		gtp_replyf(gc, "V%llx", (unsigned long long)val);
}

/* qGtpAgg's signed numbers: hex with a '-' for negatives. */
static void reply_shex(struct gtp_conn *gc, const char *pre, s64 v)
{
	gtp_replyf(gc, "%s%s%llx", pre, v < 0 ? "-" : "",
		   v < 0 ? 0ULL - (u64)v : (u64)v);
}

static const char *parse_shex(const char *p, s64 *v)
{
	bool neg = *p == '-';
	u64 u;

	p = rsp_parse_hex(p + neg, &u);
	if (p)
		*v = neg ? (s64)(0ULL - u) : (s64)u;
	return p;
}

/* Room one ";<key>=<count>" entry can take: '-', 16 + 16 hex digits. */
#define AGG_ENTRY_MAX	36
/* and the header and the end: "c;n:<16>;over:<16>;keys:<8>" ";l" */
#define AGG_HEAD_MAX	64

static void reply_agg_hist(struct gtp_conn *gc, const struct gtp_agg *agg)
{
	u64 buckets[GTP_AGG_NR_BUCKETS];
	struct gtp_agg_sum sum;
	int b;

	gtp_agg_hist(agg, buckets, &sum);
	gtp_replyf(gc, "h;n:%llx", (unsigned long long)sum.n);
	reply_shex(gc, ";sum:", sum.sum);
	reply_shex(gc, ";min:", sum.min);
	reply_shex(gc, ";max:", sum.max);
	/* at most GTP_AGG_NR_BUCKETS entries: always one page */
	for (b = GTP_AGG_BUCKET_MIN; b <= GTP_AGG_BUCKET_MAX; b++) {
		u64 n = buckets[b - GTP_AGG_BUCKET_MIN];

		if (!n)
			continue;
		reply_shex(gc, ";", b);
		gtp_replyf(gc, "=%llx", (unsigned long long)n);
	}
	gtp_reply(gc, ";l");
}

static void reply_agg_count(struct gtp_conn *gc, const struct gtp_agg *agg,
			    bool after, s64 cursor)
{
	/* a page's entries: 16 bytes each, far fewer than scratch holds */
	struct gtp_agg_entry *e = (struct gtp_agg_entry *)gc->scratch;
	u32 max = (RSP_PKT_MAX - AGG_HEAD_MAX) / AGG_ENTRY_MAX;
	struct gtp_agg_sum sum;
	u32 i, n;
	int more;

	more = gtp_agg_count_page(agg, after, cursor, e, max, &n, &sum);
	if (more < 0) {
		gtp_console(gc, "gtp: qGtpAgg: out of memory\n");
		gtp_reply_error(gc, 4);
		return;
	}
	gtp_replyf(gc, "c;n:%llx;over:%llx;keys:%x",
		   (unsigned long long)sum.n,
		   (unsigned long long)sum.overflow, sum.nkeys);
	for (i = 0; i < n; i++) {
		reply_shex(gc, ";", e[i].key);
		gtp_replyf(gc, "=%llx", (unsigned long long)e[i].count);
	}
	gtp_reply(gc, more ? ";m" : ";l");
}

/*
 * qGtpAgg:<n>[:<key>] -> an aggregating variable's tables merged over the
 * CPUs, while the trace runs or after (until QTinit):
 *
 *	h;n:<count>;sum:<s>;min:<s>;max:<s>[;<bucket>=<count>]...;l
 *	c;n:<count>;over:<count>;keys:<nkeys>[;<key>=<count>]...;<l|m>
 *
 * Numbers are hex, <s> ones signed ('-' before the digits).  A histogram's
 * non-empty buckets are numbered as summary.py's log2_bucket() (-1: the
 * negatives, 0: zero, k: [2^(k-1), 2^k)), all in one reply.  A count
 * table's keys come in ascending order, as many as fit; 'm' says more
 * follow: ask again with the last key shown.  Errors: E01 malformed, E02
 * no such variable, E03 not an aggregating one, E04 out of memory.
 */
/*
 * The variable @num a gtp packet @pkt reads; NULL, having replied E02 and
 * said why, when there is none.
 */
static const struct gtp_tsv *tsv_for(struct gtp_conn *gc, const char *pkt,
				     u64 num)
{
	const struct gtp_tsv *v = gtp_tsv_find(num);

	if (!v) {
		gtp_console(gc, "gtp: %s: no trace state variable %llu\n", pkt,
			    (unsigned long long)num);
		gtp_reply_error(gc, 2);
	}
	return v;
}

static void pkt_qgtpagg(struct gtp_conn *gc, char *args)
{
	const struct gtp_tsv *v;
	const char *p;
	s64 cursor = 0;
	bool after;
	u64 num;

	p = rsp_parse_hex(args, &num);
	if (!p)
		goto malformed;
	after = *p == ':';
	if (after && !(p = parse_shex(p + 1, &cursor)))
		goto malformed;
	if (*p)
		goto malformed;
	v = tsv_for(gc, "qGtpAgg", num);
	if (!v)
		return;
	if (!v->agg) {
		gtp_console(gc, "gtp: qGtpAgg: $%s does not aggregate (name it $hist_NAME or $count_NAME)\n",
			    v->name);
		gtp_reply_error(gc, 3);
		return;
	}
	if (gtp_agg_kind(v->agg) == GTP_AGG_HIST)
		reply_agg_hist(gc, v->agg);
	else
		reply_agg_count(gc, v->agg, after, cursor);
	return;
malformed:
	gtp_console(gc, "gtp: malformed qGtpAgg packet\n");
	gtp_reply_error(gc, 1);
}

/* Per-CPU values one qGtpPcpu reply carries at most (fits any packet). */
#define PCPU_PAGE	64

/*
 * qGtpPcpu:<n>[:<cpu>] -> "p;<cpu>=<value>;...;l" (or ";m": more follow,
 * ask again from the CPU after the last one shown): a per-CPU variable's
 * value on each CPU from <cpu> on, hex, values signed as qGtpAgg's.
 * Errors: E01 malformed, E02 no such variable, E03 not per CPU.
 */
static void pkt_qgtppcpu(struct gtp_conn *gc, char *args)
{
	const struct gtp_tsv *v;
	u64 num, from = 0;
	const char *p;
	u32 cpu, n = 0;
	s64 val;

	p = rsp_parse_hex(args, &num);
	if (p && *p == ':')
		p = rsp_parse_hex(p + 1, &from);
	if (!p || *p) {
		gtp_console(gc, "gtp: malformed qGtpPcpu packet\n");
		gtp_reply_error(gc, 1);
		return;
	}
	v = tsv_for(gc, "qGtpPcpu", num);
	if (!v)
		return;
	if (!v->pcpu) {
		gtp_console(gc, "gtp: qGtpPcpu: $%s is not per CPU (name it $p_NAME)\n",
			    v->name);
		gtp_reply_error(gc, 3);
		return;
	}
	gtp_reply(gc, "p");
	for (cpu = from < gtp_nr_cpus() ? from : gtp_nr_cpus();
	     cpu < gtp_nr_cpus() && n < PCPU_PAGE; cpu++, n++) {
		gtp_tsv_get_cpu(v, cpu, &val);
		gtp_replyf(gc, ";%x=", cpu);
		reply_shex(gc, "", val);
	}
	gtp_reply(gc, cpu < gtp_nr_cpus() ? ";m" : ";l");
}

static const struct gtp_pkt_handler tsv_handlers[] = {
	{ "QTDV:", 0, pkt_qtdv },
	{ "qTfV", GTP_PKT_EXACT, pkt_qtfv },
	{ "qTsV", GTP_PKT_EXACT, pkt_qtsv },
	{ "qTV:", 0, pkt_qtv },
	{ "qGtpAgg:", 0, pkt_qgtpagg },
	{ "qGtpPcpu:", 0, pkt_qgtppcpu },
	{ NULL },
};

static struct gtp_pkt_table tsv_table = {
	.handlers = tsv_handlers,
};

void gtp_tsv_init(void)
{
	gtp_packets_register(&tsv_table);
}
