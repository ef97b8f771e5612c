// SPDX-License-Identifier: GPL-2.0
/*
 * packets.c - packet dispatch and the packets every gdb session needs.
 *
 * gdb's connection sequence (protocol reference 1.4) is: qSupported,
 * vMustReplyEmpty, QStartNoAckMode, Hg, qTStatus, ?, thread queries,
 * qAttached, qC, g, m...  This file answers the ones that are not about
 * tracing; tracing areas register their own tables (gtp_packets_register).
 *
 * We present the kernel as one stopped thread (S05, thread 1) that is
 * "attached", so quitting gdb detaches ('D') rather than killing.  'g' and
 * 'm' go through the connection's view: live kernel memory (read nofault,
 * never faulting on a bad address) or, later, the selected trace frame.
 */
#include "packets.h"

static struct gtp_pkt_table *tables;

/**
 * gtp_packets_register - add a table of packet handlers
 * @t: the table; it stays registered (and must stay alive) for good
 *
 * Tables are consulted in registration order, so a more specific table
 * registered earlier wins.  Registering the same table twice is a no-op,
 * which keeps unit tests that re-run init simple.
 */
void gtp_packets_register(struct gtp_pkt_table *t)
{
	struct gtp_pkt_table **pp;

	for (pp = &tables; *pp; pp = &(*pp)->next)
		if (*pp == t)
			return;
	t->next = NULL;
	*pp = t;
}

static bool pkt_matches(const struct gtp_pkt_handler *h, const char *pkt)
{
	size_t n = strlen(h->name);

	if (strncmp(pkt, h->name, n))
		return false;
	return !(h->flags & GTP_PKT_EXACT) || pkt[n] == '\0';
}

/**
 * gtp_dispatch - run the handler for one packet (the rsp callback)
 * @gc:		the connection the packet came from
 * @pkt:	the packet's payload (between '$' and '#'), NUL terminated
 * @len:	its length
 *
 * An unmatched packet gets the empty reply, which gdb reads as "not
 * supported" (vMustReplyEmpty relies on this).
 */
void gtp_dispatch(struct gtp_conn *gc, char *pkt, size_t len)
{
	const struct gtp_pkt_handler *h;
	struct gtp_pkt_table *t;

	if (strlen(pkt) != len)
		return;		/* binary payloads: nothing we support */
	for (t = tables; t; t = t->next)
		for (h = t->handlers; h->name; h++)
			if (pkt_matches(h, pkt)) {
				h->fn(gc, pkt + strlen(h->name));
				return;
			}
}

static void rsp_dispatch(struct rsp_conn *c, char *pkt, size_t len)
{
	gtp_dispatch(c->priv, pkt, len);
}

struct gtp_conn *gtp_conn_open(void)
{
	struct gtp_conn *gc = gtp_zalloc(sizeof(*gc));

	if (!gc)
		return NULL;
	gc->scratch = gtp_malloc(RSP_PKT_MAX);
	if (!gc->scratch || rsp_init(&gc->rsp, rsp_dispatch, gc)) {
		gtp_free(gc->scratch);
		gtp_free(gc);
		return NULL;
	}
	gc->frame = -1;
	return gc;
}

/* The connection went away: let every area react (disconnected tracing). */
void gtp_conn_close(struct gtp_conn *gc)
{
	struct gtp_pkt_table *t;

	for (t = tables; t; t = t->next)
		if (t->on_close)
			t->on_close(gc);
	rsp_destroy(&gc->rsp);
	gtp_free(gc->scratch);
	gtp_free(gc);
}

void gtp_reply_error(struct gtp_conn *gc, int code)
{
	rsp_reply_reset(&gc->rsp);
	gtp_replyf(gc, "E%02x", code & 0xff);
}

/* qSupported: advertise only what the registered tables implement. */
static void pkt_qsupported(struct gtp_conn *gc, char *args)
{
	struct gtp_pkt_table *t;

	gtp_replyf(gc, "PacketSize=%x;QStartNoAckMode+;qXfer:features:read+",
		   RSP_PKT_MAX - 1);
	for (t = tables; t; t = t->next)
		if (t->features)
			gtp_replyf(gc, ";%s", t->features);
}

static void pkt_noack(struct gtp_conn *gc, char *args)
{
	/* Our '+' for this packet is already queued; none after it. */
	gc->rsp.noack = true;
	gtp_reply(gc, "OK");
}

static void pkt_ok(struct gtp_conn *gc, char *args)
{
	gtp_reply(gc, "OK");
}

static void pkt_stop_reason(struct gtp_conn *gc, char *args)
{
	gtp_reply(gc, "S05");
}

static void pkt_attached(struct gtp_conn *gc, char *args)
{
	gtp_reply(gc, "1");
}

static void pkt_qc(struct gtp_conn *gc, char *args)
{
	gtp_reply(gc, "QC1");
}

static void pkt_thread_first(struct gtp_conn *gc, char *args)
{
	gtp_reply(gc, "m1");
}

static void pkt_thread_next(struct gtp_conn *gc, char *args)
{
	gtp_reply(gc, "l");
}

static void pkt_detach(struct gtp_conn *gc, char *args)
{
	struct gtp_pkt_table *t;

	for (t = tables; t; t = t->next)
		if (t->on_detach)
			t->on_detach(gc);
	gtp_reply(gc, "OK");
}

static void pkt_kill(struct gtp_conn *gc, char *args)
{
	/* gdb closes the connection without waiting for a reply. */
	gc->killed = true;
	gc->rsp.no_reply = true;
	pkt_detach(gc, args);
	gc->rsp.reply_len = 0;
}

static void pkt_regs(struct gtp_conn *gc, char *args)
{
	(gc->view ? gc->view : &gtp_live_view)->regs(gc);
}

/* m ADDR,LEN: as many bytes as are readable from ADDR, or E01. */
static void pkt_mem(struct gtp_conn *gc, char *args)
{
	const struct gtp_view_ops *v = gc->view ? gc->view : &gtp_live_view;
	const char *p;
	u64 addr, len;
	size_t got;

	p = rsp_parse_hex(args, &addr);
	if (!p || *p != ',' || !(p = rsp_parse_hex(p + 1, &len)) || *p) {
		gtp_reply_error(gc, 1);
		return;
	}
	/* A short reply is fine: gdb asks again for the rest. */
	len = min_t(u64, len, rsp_reply_room(&gc->rsp) / 2);
	got = v->mem(gc, addr, gc->scratch, len);
	if (!got && len) {
		gtp_reply_error(gc, 1);
		return;
	}
	rsp_reply_hex(&gc->rsp, gc->scratch, got);
}

/*
 * No registers beyond 'g' are served individually: an empty 'p' reply
 * makes gdb mark them unavailable instead of erroring.
 */

/*
 * The target description: architecture and OS ABI only.  gdb then builds
 * its standard amd64 GNU/Linux register set, the layout of our 'g' reply,
 * even when it was started without a vmlinux.
 */
static const char target_xml[] =
	"<?xml version=\"1.0\"?>\n"
	"<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
	"<target>\n"
	"  <architecture>i386:x86-64</architecture>\n"
	"  <osabi>GNU/Linux</osabi>\n"
	"</target>\n";

/* qXfer reply for a constant object: 'm' = more follows, 'l' = last. */
static void reply_xfer(struct gtp_conn *gc, const char *obj, size_t objlen,
		       const char *range)
{
	u64 off, len;
	const char *p;

	p = rsp_parse_hex(range, &off);
	if (!p || *p != ',' || !(p = rsp_parse_hex(p + 1, &len)) || *p) {
		gtp_reply_error(gc, 0);
		return;
	}
	if (off >= objlen) {
		gtp_reply(gc, "l");
		return;
	}
	len = min_t(u64, len, objlen - off);
	len = min_t(u64, len, rsp_reply_room(&gc->rsp) / 2);
	gtp_reply(gc, off + len < objlen ? "m" : "l");
	rsp_reply_mem(&gc->rsp, obj + off, len);
}

static void pkt_xfer_features(struct gtp_conn *gc, char *args)
{
	static const char annex[] = "target.xml:";

	if (strncmp(args, annex, sizeof(annex) - 1)) {
		gtp_reply_error(gc, 0);
		return;
	}
	reply_xfer(gc, target_xml, sizeof(target_xml) - 1,
		   args + sizeof(annex) - 1);
}

/* Exposed for other areas that serve XML objects (traceframe-info). */
void gtp_reply_xfer(struct gtp_conn *gc, const char *obj, size_t objlen,
		    const char *range)
{
	reply_xfer(gc, obj, objlen, range);
}

/* Live registers: the kernel is not stopped, so there are none to show. */
static void live_regs(struct gtp_conn *gc)
{
	static const u8 zeros[GTP_G_SIZE];

	rsp_reply_hex(&gc->rsp, zeros, sizeof(zeros));
}

#define LIVE_CHUNK	4096	/* faults are per page: read page by page */

/*
 * Live memory, nofault: stop at the first unreadable chunk.  Kernel
 * memory only: the user half here would be the reader's own process,
 * never a traced task's (a hit reads that, hitmem.h).
 */
static size_t live_mem(struct gtp_conn *gc, u64 addr, u8 *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		u64 a = addr + done;
		size_t n = min_t(u64, len - done,
				 LIVE_CHUNK - (a & (LIVE_CHUNK - 1)));

		if (gtp_user_addr(a) || gtp_read_nofault(buf + done, a, n))
			break;
		done += n;
	}
	return done;
}

const struct gtp_view_ops gtp_live_view = {
	.regs = live_regs,
	.mem = live_mem,
};

static const struct gtp_pkt_handler base_handlers[] = {
	{ "qSupported", 0, pkt_qsupported },
	{ "QStartNoAckMode", GTP_PKT_EXACT, pkt_noack },
	{ "?", GTP_PKT_EXACT, pkt_stop_reason },
	{ "g", GTP_PKT_EXACT, pkt_regs },
	{ "m", 0, pkt_mem },
	{ "qAttached", 0, pkt_attached },
	{ "qC", GTP_PKT_EXACT, pkt_qc },
	{ "qfThreadInfo", GTP_PKT_EXACT, pkt_thread_first },
	{ "qsThreadInfo", GTP_PKT_EXACT, pkt_thread_next },
	{ "Hg", 0, pkt_ok },
	{ "Hc", 0, pkt_ok },
	{ "T", 0, pkt_ok },		/* thread alive */
	{ "qSymbol:", 0, pkt_ok },	/* no symbols needed */
	{ "D", 0, pkt_detach },
	{ "k", GTP_PKT_EXACT, pkt_kill },
	{ "qXfer:features:read:", 0, pkt_xfer_features },
	{ NULL },
};

static struct gtp_pkt_table base_table = {
	.handlers = base_handlers,
};

/* Register the base packets; other areas register theirs after this. */
void gtp_packets_init(void)
{
	gtp_packets_register(&base_table);
}
