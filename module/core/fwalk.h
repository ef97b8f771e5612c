/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fwalk.h - reading the blocks of a stored frame, one at a time (fwalk.c).
 *
 * A frame is its header (frame.h) and then blocks: 'R' (all registers),
 * 'r' (some registers, regs.h), 'M' (memory; also $_sdata and $kstack at
 * addresses no kernel memory has) and 'V' (a variable).  Everything that
 * looks into a stored frame walks it here, so a new block type, or a
 * stricter bound, is one change.
 */
#ifndef GTP_FWALK_H
#define GTP_FWALK_H

#include "compat.h"

/* One block of a frame. */
struct gtp_fblock {
	char type;
	const u8 *data;		/* R, r: regs; M: bytes */
	u64 addr;		/* M */
	u32 mask;		/* r: its registers */
	u32 len;		/* R, r, M: bytes of data */
	s32 tsv;		/* V */
	s64 val;		/* V */
};

struct gtp_fwalk {
	const u8 *p, *end;
};

/*
 * Start at the first block of frame @f, of which @flen bytes are at hand
 * (a header's size past them counts only up to @flen).
 */
void gtp_fwalk_init(struct gtp_fwalk *w, const u8 *f, u32 flen);

/* The next block, or false at the end (or at a malformed block). */
bool gtp_fwalk_next(struct gtp_fwalk *w, struct gtp_fblock *b);

#endif /* GTP_FWALK_H */
