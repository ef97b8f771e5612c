/* SPDX-License-Identifier: GPL-2.0 */
/*
 * traceframe.h - looking at collected frames: QTFrame, 'g'/'m' from the
 * selected frame, qXfer:traceframe-info, qTV in a frame, qTBuffer.
 */
#ifndef GTP_TRACEFRAME_H
#define GTP_TRACEFRAME_H

#include "packets.h"

void gtp_traceframe_init(void);
void gtp_traceframe_deselect(struct gtp_conn *gc);

/*
 * Value of @tsv as recorded in the selected frame; -ENOENT if not;
 * -ESTALE if the stream took frames since it was selected (gdb was told).
 */
int gtp_traceframe_tsv(struct gtp_conn *gc, u32 tsv, s64 *val);

#endif /* GTP_TRACEFRAME_H */
