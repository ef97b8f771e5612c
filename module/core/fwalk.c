// SPDX-License-Identifier: GPL-2.0
/*
 * fwalk.c - the one walker over a stored frame's blocks (fwalk.h): gdb's
 * frame reads (traceframe.c) and the $_sdata lookup (static_data.c).  It
 * trusts no length in the frame: every block is checked against the
 * bytes at hand before it is handed out.
 */
#include "fwalk.h"
#include "frame.h"	/* GTP_FRAME_HDR */
#include "packets.h"	/* GTP_G_SIZE */
#include "regs.h"	/* the 'r' block */

void gtp_fwalk_init(struct gtp_fwalk *w, const u8 *f, u32 flen)
{
	u32 size;

	if (flen < GTP_FRAME_HDR) {	/* not even a header: no block */
		w->p = w->end = f;
		return;
	}
	memcpy(&size, f + 2, 4);
	w->p = f + GTP_FRAME_HDR;
	w->end = w->p + min_t(u32, size, flen - GTP_FRAME_HDR);
}

bool gtp_fwalk_next(struct gtp_fwalk *w, struct gtp_fblock *b)
{
	u16 len16;

	if (w->p >= w->end)
		return false;
	b->type = *w->p++;
	switch (b->type) {
	case 'R':
		if (w->end - w->p < GTP_G_SIZE)
			return false;
		b->data = w->p;
		b->len = GTP_G_SIZE;
		break;
	case GTP_RSUB_BLOCK: {
		int vlen;

		if (w->end - w->p < 4)
			return false;
		memcpy(&b->mask, w->p, 4);
		vlen = gtp_rsub_vals_len(b->mask);
		w->p += 4;
		/* only pt_regs' registers: an 'R' block is always larger */
		if ((b->mask & ~GTP_RSUB_REGS) || w->end - w->p < vlen)
			return false;
		b->data = w->p;
		b->len = vlen;
		break;
	}
	case 'M':
		if (w->end - w->p < 10)
			return false;
		memcpy(&b->addr, w->p, 8);
		memcpy(&len16, w->p + 8, 2);
		w->p += 10;
		if (w->end - w->p < len16)
			return false;
		b->data = w->p;
		b->len = len16;
		break;
	case 'V':
		if (w->end - w->p < 12)
			return false;
		memcpy(&b->tsv, w->p, 4);
		memcpy(&b->val, w->p + 4, 8);
		b->len = 12;
		break;
	default:
		return false;
	}
	w->p += b->len;
	return true;
}
