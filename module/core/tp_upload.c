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

/**
 * gtp_tp_format_piece() - one upload piece of a tracepoint, as qTfP/qTsP
 * hand it out
 * @tp: the tracepoint location
 * @sub: which piece: 0 = T (definition), then one A per action chunk,
 *	then one Z per source string
 * @buf: where the text goes, NUL terminated if @size is not 0
 * @size: room at @buf, NUL included
 *
 * The stream's definitions (stream.c) carry the same text.
 *
 * Return: the text's length as snprintf() counts it (@size or more: cut
 * short); -ENOENT past the last piece.
 */
int gtp_tp_format_piece(const struct gtp_tp *tp, u32 sub, char *buf,
			size_t size)
{
	unsigned long long addr = tp->addr;

	if (sub == 0)
		return snprintf(buf, size, "T%x:%llx:%c:%llx:%llx%s%s%s",
				tp->num, addr,
				tp->gdb_enabled && !READ_ONCE(tp->tripped) ?
				'E' : 'D',
				(unsigned long long)tp->step,
				(unsigned long long)tp->pass,
				tp->is_static ? ":S" : "",
				tp->cond_hex ? ":" : "",
				tp->cond_hex ? tp->cond_hex : "");
	sub--;
	if (sub < tp->chunks.n)
		return snprintf(buf, size, "A%x:%llx:%s", tp->num, addr,
				tp->chunks.s[sub]);
	sub -= tp->chunks.n;
	if (sub < tp->srcs.n)
		return snprintf(buf, size, "Z%x:%llx:%s", tp->num, addr,
				tp->srcs.s[sub]);
	return -ENOENT;
}

/* Next upload piece after the cursor in @gc, or 'l'. */
static void upload_next(struct gtp_conn *gc)
{
	struct gtp_tp_upload *cur = &gc->tp_upload;
	struct gtp_tp *tp;
	size_t size;
	char *buf = rsp_reply_tail(&gc->rsp, &size);
	int n;
	u32 i;

	for (;;) {
		for (tp = gtp_tps, i = 0; tp && i < cur->tp; i++)
			tp = tp->next;
		if (!tp) {
			gtp_reply(gc, "l");
			return;
		}
		n = gtp_tp_format_piece(tp, cur->piece++, buf, size);
		if (n != -ENOENT) {
			rsp_reply_added(&gc->rsp, n);
			return;
		}
		cur->tp++;
		cur->piece = 0;
	}
}

void gtp_pkt_qtfp(struct gtp_conn *gc, char *args)
{
	gc->tp_upload.tp = 0;
	gc->tp_upload.piece = 0;
	upload_next(gc);
}

void gtp_pkt_qtsp(struct gtp_conn *gc, char *args)
{
	upload_next(gc);
}
