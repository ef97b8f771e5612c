/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frame_ring.h - the frame store of frame.h, backed by the per-CPU
 * lock-free ring (ring.h).  Same contract, function for function, under a
 * gtp_ring_ prefix so that it can live beside the simple store (frame.c)
 * until it replaces it: switching is renaming gtp_ring_frame -> gtp_frame
 * in frame_ring.c and removing frame.c (see frame_ring.c).
 */
#ifndef GTP_FRAME_RING_H
#define GTP_FRAME_RING_H

#include "frame.h"

int gtp_ring_frames_setup(u64 size, bool circular);
void gtp_ring_frames_release(void);
void gtp_ring_frames_start(void);
void gtp_ring_frames_stop(void);
void gtp_ring_frames_clear(void);
void gtp_ring_frames_stats(struct gtp_frame_stats *st);

void *gtp_ring_frame_reserve(struct gtp_frame_slot *slot, u32 len);
void gtp_ring_frame_commit(struct gtp_frame_slot *slot);

u64 gtp_ring_frames_count(void);
const u8 *gtp_ring_frame_get(u64 idx, u32 *len);

/* Largest frame a store of @size bytes accepts: for QTDP-time checks. */
u32 gtp_ring_frames_max_len(u64 size);

#endif /* GTP_FRAME_RING_H */
