// SPDX-License-Identifier: GPL-2.0
/*
 * tp_upload.c - qTfP/qTsP: the definitions, handed back piece by piece.
 *
 * A gdb that connects to a running trace (or tsave) rebuilds the same
 * tracepoints from them: T (the definition with its condition), one A per
 * action chunk as QTDP sent it, one Z per QTDPsrc string.
 */
#include "tracepoint.h"
#include "tp_internal.h"

/*
 * Upload piece @sub of @tp: 0 = T (definition), then one A per action
 * chunk, then one Z per source string.  Returns false past the last.
 */
static bool upload_piece(struct gtp_conn *gc, struct gtp_tp *tp, u32 sub)
{
	if (sub == 0) {
		gtp_replyf(gc, "T%x:%llx:%c:%llx:%llx", tp->num,
			   (unsigned long long)tp->addr, tp->enabled ? 'E' : 'D',
			   (unsigned long long)tp->step,
			   (unsigned long long)tp->pass);
		if (tp->is_static)
			gtp_reply(gc, ":S");
		if (tp->cond_hex)
			gtp_replyf(gc, ":%s", tp->cond_hex);
		return true;
	}
	sub--;
	if (sub < tp->chunks.n) {
		gtp_replyf(gc, "A%x:%llx:%s", tp->num,
			   (unsigned long long)tp->addr, tp->chunks.s[sub]);
		return true;
	}
	sub -= tp->chunks.n;
	if (sub < tp->srcs.n) {
		gtp_replyf(gc, "Z%x:%llx:%s", tp->num,
			   (unsigned long long)tp->addr, tp->srcs.s[sub]);
		return true;
	}
	return false;
}

/* Next upload piece after the cursor in @gc, or 'l'. */
static void upload_next(struct gtp_conn *gc)
{
	struct gtp_tp *tp;
	u32 i;

	for (;;) {
		for (tp = gtp_tps, i = 0; tp && i < gc->upload_pos; i++)
			tp = tp->next;
		if (!tp) {
			gtp_reply(gc, "l");
			return;
		}
		if (upload_piece(gc, tp, gc->upload_sub++))
			return;
		gc->upload_pos++;
		gc->upload_sub = 0;
	}
}

void gtp_pkt_qtfp(struct gtp_conn *gc, char *args)
{
	gc->upload_pos = 0;
	gc->upload_sub = 0;
	upload_next(gc);
}

void gtp_pkt_qtsp(struct gtp_conn *gc, char *args)
{
	upload_next(gc);
}
