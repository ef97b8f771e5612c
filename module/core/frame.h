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
 *   is gone from the store: gdb's frames are what it left, numbered anew
 *   (gtp_frames_taken() changes).
 *
 * A frame's bytes are exactly one frame of gdb's trace file format
 * (protocol reference 6.3): int16 tracepoint number, u32 size of the
 * blocks, then the 'R'/'M'/'V' blocks.  qTBuffer is the frames back to
 * back.
 */
#ifndef GTP_FRAME_H
#define GTP_FRAME_H

#include "compat.h"
#include "ring_api.h"

#define GTP_FRAME_HDR	6	/* int16 tpnum + u32 data size */

struct gtp_frame_slot {
	struct ring_ctx ctx;	/* the reservation, from reserve to commit */
	int err;		/* why reserve returned NULL */
};

/* What a writer reads of the store (frame_ring.c sets it). */
struct gtp_frame_writer {
	struct ring *ring;
	bool accepting;		/* writers may write */
	bool consumer;		/* a consumer drains the store */
};
extern struct gtp_frame_writer gtp_frame_writer;

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

/**
 * gtp_frame_reserve() - room for one frame of @len bytes on this CPU
 * @slot: filled in; pass to gtp_frame_commit()
 * @len: frame bytes
 *
 * Inline, as the ring's own fast path (ring_api.h): a true hit's frame
 * costs no call.
 *
 * Context: probe context, preemption disabled (kprobe pre-handler,
 * tracepoint probe), maybe NMI; never sleeps, takes no lock.
 * Return: where to write, to be paired with gtp_frame_commit(); or
 * NULL with @slot->err = -ENOSPC (full, non-circular: the caller stops the
 * trace), -E2BIG (frame larger than a sub-buffer), -EAGAIN (store stopped,
 * or the next sub-buffer still held by an interrupted writer).  Every NULL
 * but "stopped" is counted in the dropped figure.
 */
static __always_inline void *gtp_frame_reserve(struct gtp_frame_slot *slot,
					       u32 len)
{
	struct ring *ring = gtp_frame_writer.ring;
	int ret;

	if (!READ_ONCE(gtp_frame_writer.accepting) || !ring) {
		slot->err = -EAGAIN;
		return NULL;
	}
	ret = __ring_reserve(ring, &slot->ctx, gtp_cpu_id(), len);
	if (unlikely(ret)) {
		/* full: stop the trace, unless a consumer will make room */
		if (ret == -ENOBUFS)
			ret = READ_ONCE(gtp_frame_writer.consumer) ? -EAGAIN :
								     -ENOSPC;
		slot->err = ret;
		return NULL;
	}
	slot->err = 0;
	return slot->ctx.data;
}

/* Publish the frame reserved in @slot; same CPU and context. */
static __always_inline void gtp_frame_commit(struct gtp_frame_slot *slot)
{
	__ring_commit(gtp_frame_writer.ring, &slot->ctx);
}

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
u64 gtp_frames_taken(void);
u64 gtp_frames_cpu_lost(unsigned int cpu);

/* Largest frame a store of @size bytes accepts: for QTDP-time checks. */
u32 gtp_frames_max_len(u64 size);

#endif /* GTP_FRAME_H */
