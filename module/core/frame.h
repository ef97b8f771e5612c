/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frame.h - the frame store: where probe hits put trace frames.
 *
 * The whole interface between the tracing code and the storage is here, so
 * the store can be swapped without touching the writers or the readers.
 * The store is the per-CPU lock-free ring (frame_ring.c on ring.h):
 *
 *   writer (probe context, any CPU, never sleeps):
 *	data = gtp_frame_reserve(&slot, len);	NULL: dropped (counted)
 *	... fill len bytes ...
 *	gtp_frame_commit(&slot);
 *
 *   reader (process context, under the packet lock, after gtp_frames_stop()):
 *	gtp_frames_count(), gtp_frame_get(i): frames oldest first;
 *	gtp_frame_origin(i): its CPU and time (gtp_tsc() ticks into the run).
 *
 *   consumer (process context, under the packet lock, while tracing runs
 *   and after; core/stream.c): gtp_frames_take() copies out one CPU's
 *   oldest complete sub-buffer and frees it for the writers.  What it took
 *   is gone from the store: gdb's frames are what it left.
 *
 * A frame's bytes are exactly one frame of gdb's trace file format
 * (protocol reference 6.3): int16 tracepoint number, u32 size of the
 * blocks, then the 'R'/'M'/'V' blocks.  qTBuffer is the frames back to
 * back.
 */
#ifndef GTP_FRAME_H
#define GTP_FRAME_H

#include "compat.h"

#define GTP_FRAME_HDR	6	/* int16 tpnum + u32 data size */

struct gtp_frame_slot {
	u8 *data;
	u32 len;
	u32 cpu;		/* the store's, from reserve to commit */
	unsigned long flags;
	void *page;
	int err;		/* why reserve returned NULL */
};

struct gtp_frame_stats {
	u64 size;		/* bytes of storage */
	u64 free;		/* bytes not used by frames */
	u64 frames;		/* frames held now */
	u64 created;		/* frames written since the run started */
	u64 dropped;		/* frames refused (full, non-circular) */
	bool circular;
};

int gtp_frames_setup(u64 size, bool circular);
void gtp_frames_release(void);
void gtp_frames_start(void);
void gtp_frames_stop(void);
void gtp_frames_clear(void);
void gtp_frames_stats(struct gtp_frame_stats *st);

void *gtp_frame_reserve(struct gtp_frame_slot *slot, u32 len);
void gtp_frame_commit(struct gtp_frame_slot *slot);

u64 gtp_frames_count(void);
const u8 *gtp_frame_get(u64 idx, u32 *len);
int gtp_frame_origin(u64 idx, unsigned int *cpu, u64 *ticks);

/*
 * One sub-buffer taken by the consumer: ring records (ring.h struct
 * ring_record, each followed by one frame) back to back.
 */
struct gtp_frame_chunk {
	unsigned int cpu;
	u32 len;		/* bytes of records copied */
	u64 seq;		/* the CPU's sub-buffer number in this run */
	u64 ts_begin, ts_end;	/* first and last record's timestamp */
	u64 lost;		/* this CPU's frames lost in this run so far */
};

u32 gtp_frames_run(void);
u64 gtp_frames_start_tsc(void);
unsigned int gtp_frames_nr_cpus(void);
u32 gtp_frames_subbuf_size(void);
void gtp_frames_set_consumer(bool on);
int gtp_frames_take(unsigned int cpu, bool drain, void *buf, u32 size,
		    struct gtp_frame_chunk *c);
u64 gtp_frames_cpu_lost(unsigned int cpu);

/* Largest frame a store of @size bytes accepts: for QTDP-time checks. */
u32 gtp_frames_max_len(u64 size);

#endif /* GTP_FRAME_H */
