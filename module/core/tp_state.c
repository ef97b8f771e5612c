// SPDX-License-Identifier: GPL-2.0
/*
 * tp_state.c - packets about a defined location: QTDPsrc (its source
 * strings), QTEnable/QTDisable (also while a trace runs) and qTP (hits
 * and frame bytes so far).
 */
#include "tracepoint.h"
#include "tp_internal.h"
#include "host.h"
#include "budget.h"

/*
 * <at|cond|cmd>:<start>:<slen>:<hex>, as gdb sends it.  qTfP hands it
 * back to every gdb that connects, whose parser follows the colons blindly
 * (a missing one crashes it) and hex-decodes the rest.
 */
static bool src_ok(const char *p)
{
	u64 v;
	size_t n;

	if (!strncmp(p, "at:", 3))
		p += 3;
	else if (!strncmp(p, "cond:", 5))
		p += 5;
	else if (!strncmp(p, "cmd:", 4))
		p += 4;
	else
		return false;
	if (!(p = rsp_parse_hex(p, &v)) || *p++ != ':' ||
	    !(p = rsp_parse_hex(p, &v)) || *p++ != ':')
		return false;
	for (n = 0; p[n]; n++)
		if (rsp_hexval(p[n]) < 0)
			return false;
	return !(n & 1);
}

/*
 * "at:<start>:<len>:<hex of '*...'>": a location given as an address
 * expression, e.g. "*(gtp_test_function + 5)".  A gdb that connects
 * without those symbols cannot re-create such a tracepoint from our upload
 * and refuses the whole connection ("No symbol table is loaded"), so we
 * keep no such source: gdb then uses the address, which is the same.
 */
static bool src_is_address_expr(const char *p)
{
	if (strncmp(p, "at:", 3))
		return false;
	p = strchr(p + 3, ':');		/* after <start> */
	if (p)
		p = strchr(p + 1, ':');	/* after <len> */
	return p && !strncmp(p + 1, "2a", 2);
}

/* QTDPsrc:<n>:<addr>:<type>:<start>:<slen>:<hex> - kept for Z pieces. */
void gtp_pkt_qtdpsrc(struct gtp_conn *gc, char *args)
{
	const char *p = args;
	struct gtp_tp *tp = gtp_tp_parse_ref(&p);
	size_t len;

	if (!tp || *p++ != ':') {
		gtp_console(gc, "gtp: QTDPsrc for an undefined tracepoint, or malformed\n");
		gtp_reply_error(gc, 1);
		return;
	}
	if (!src_ok(p)) {
		gtp_console(gc, "gtp: tracepoint %u: malformed QTDPsrc packet\n",
			    tp->num);
		gtp_reply_error(gc, 1);
		return;
	}
	if (src_is_address_expr(p)) {
		gtp_reply(gc, "OK");	/* upload "*0xADDR" instead */
		return;
	}
	len = strlen(p);
	if (tp->srcs.n >= GTP_TP_SRCS_MAX ||
	    tp->src_bytes + len > GTP_TP_SRC_BYTES_MAX) {
		gtp_console(gc, "gtp: tracepoint %u: more than %u source strings or %u bytes of them\n",
			    tp->num, GTP_TP_SRCS_MAX, GTP_TP_SRC_BYTES_MAX);
		gtp_reply_error(gc, 1);
		return;
	}
	if (gtp_strlist_add(&tp->srcs, p)) {
		gtp_console(gc, "gtp: tracepoint %u: out of memory\n", tp->num);
		gtp_reply_error(gc, 1);
		return;
	}
	tp->src_bytes += len;
	gtp_reply(gc, "OK");
}

/* QTEnable:<n>:<addr> / QTDisable:<n>:<addr>, also while running. */
static void set_enabled(struct gtp_conn *gc, char *args, bool enabled)
{
	const char *p = args;
	struct gtp_tp *tp = gtp_tp_parse_ref(&p);

	if (!tp || *p) {
		gtp_console(gc, "gtp: %s of an undefined tracepoint, or malformed\n",
			    enabled ? "QTEnable" : "QTDisable");
		gtp_reply_error(gc, 1);
		return;
	}
	/*
	 * A location the CPU budget tripped lost its probe (host.h
	 * @tripped): enabling it again would collect nothing, so say so.
	 */
	if (enabled && tp->probe && READ_ONCE(tp->tripped)) {
		gtp_console(gc, "gtp: tracepoint %u tripped the CPU budget and its probe is disarmed: tstart arms it again\n",
			    tp->num);
		gtp_reply_error(gc, 1);
		return;
	}
	WRITE_ONCE(tp->enabled, enabled);
	tp->gdb_enabled = enabled;
	/* a trigger may enable it again: its probe stays (trigger.c) */
	if (tp->probe && !tp->keep_armed)
		gtp_host->set_enabled(tp, enabled);
	gtp_reply(gc, "OK");
}

void gtp_pkt_qtenable(struct gtp_conn *gc, char *args)
{
	set_enabled(gc, args, true);
}

void gtp_pkt_qtdisable(struct gtp_conn *gc, char *args)
{
	set_enabled(gc, args, false);
}

/*
 * qTP:<n>:<addr> -> V<hits>:<usage>:<errors>:<last error>, all hex.  gdb
 * reads the first two and ignores the rest (remote.c); gtp-ctl status
 * shows the evaluation errors (enum ax_error) too.
 */
void gtp_pkt_qtp(struct gtp_conn *gc, char *args)
{
	const char *p = args;
	struct gtp_tp *tp = gtp_tp_parse_ref(&p);

	if (!tp || *p) {
		gtp_reply_error(gc, 1);
		return;
	}
	/* gdb reads the first two; gtp-ctl status the rest too */
	gtp_replyf(gc, "V%lx:%lx:%lx:%x:%llx", atomic_long_read(&tp->hits),
		   atomic_long_read(&tp->usage), atomic_long_read(&tp->errors),
		   READ_ONCE(tp->last_err),
		   (unsigned long long)gtp_budget_cost_us(tp));
}
