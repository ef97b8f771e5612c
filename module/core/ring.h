/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ring.h - per-CPU lock-free ring buffer for trace frames (public API).
 *
 * One buffer per CPU of 2^n sub-buffers of 2^m bytes, after Desnoyers,
 * Dagenais and Toupin (LTTng).  Writers on a CPU reserve space with a
 * CPU-local compare-and-swap on that CPU's write offset and commit with a
 * CPU-local add to the sub-buffer's commit count: no lock, no interrupt
 * disabling, so a writer may be interrupted (IRQ, NMI; in userspace a
 * signal handler) by another writer on the same CPU at any point.  A reader
 * may run on any CPU; it takes whole, fully committed sub-buffers by
 * swapping its own spare sub-buffer into the writers' table.  See ring.c
 * for the algorithm and the race analysis, ring.pml for its model.
 *
 * Typical writer (probe context, preemption disabled, @cpu = this CPU):
 *
 *	struct ring_ctx ctx;
 *
 *	if (ring_reserve(ring, &ctx, cpu, len))
 *		return;			(counted by the ring: nothing to undo)
 *	memcpy(ctx.data, payload, len);
 *	ring_commit(ring, &ctx);
 *
 * The "current CPU" is always passed by the caller: the kernel passes
 * raw_smp_processor_id() with preemption disabled, userspace tests give
 * each writer thread its own index.
 */
#ifndef GTP_RING_H
#define GTP_RING_H

#include "compat.h"

enum ring_mode {
	RING_DISCARD,		/* full buffer: drop the new record, count it */
	RING_OVERWRITE,		/* flight recorder: reuse the oldest sub-buffer */
};

/**
 * struct ring_config - geometry of a ring, fixed at ring_create()
 * @nr_cpus:		number of per-CPU buffers (writers pass 0..nr_cpus-1)
 * @subbuf_order:	log2 of the sub-buffer size in bytes (m)
 * @nr_subbufs_order:	log2 of the number of sub-buffers per CPU (n >= 1)
 * @mode:		RING_DISCARD or RING_OVERWRITE
 */
struct ring_config {
	unsigned int nr_cpus;
	unsigned int subbuf_order;
	unsigned int nr_subbufs_order;
	enum ring_mode mode;
};

#define RING_SUBBUF_ORDER_MIN	6	/* 64 bytes: room for a header + data */
#define RING_SUBBUF_ORDER_MAX	26
#define RING_NR_SUBBUFS_ORDER_MAX 12

/**
 * struct ring_record - header in front of every record in a sub-buffer
 * @ts:		TSC at reservation; per CPU, ts order == buffer order
 * @len:	payload length in bytes (the record occupies
 *		ring_record_size(len) bytes, 8-byte aligned)
 * @type:	RING_REC_DATA, or RING_REC_PAD for the filler that ends a
 *		sub-buffer whose tail could not hold the next record
 *
 * The payload follows the header.  A tail of fewer than sizeof(header)
 * bytes at the end of a sub-buffer is padding without a header.
 */
struct ring_record {
	u64 ts;
	u32 len;
	u32 type;
};

#define RING_REC_DATA	1
#define RING_REC_PAD	2

static inline void *ring_record_data(const struct ring_record *rec)
{
	return (void *)(rec + 1);
}

static inline unsigned long ring_record_size(unsigned long len)
{
	return (sizeof(struct ring_record) + len + 7) & ~7UL;
}

struct ring;
struct rb_page;

/**
 * struct ring_ctx - one reservation, from ring_reserve() to ring_commit()
 * @data:	where the caller writes its @len payload bytes
 * @len:	payload length asked for
 * @ts:		the record's timestamp (already stored in its header)
 *
 * The remaining fields are private to ring.c.
 */
struct ring_ctx {
	void *data;
	u32 len;
	u64 ts;
	/* private: */
	unsigned int cpu;
	unsigned long begin;		/* buffer position of the record */
	unsigned long size;		/* bytes reserved */
	struct rb_page *page;		/* page the record lives in */
};

/**
 * struct ring_stats - exact counters, summed over CPUs
 * @size:	total data bytes (nr_cpus * 2^n * 2^m)
 * @used:	bytes between each CPU's read and write positions
 * @free:	@size - @used
 * @written:	records committed (gdb's tcreated)
 * @lost_full:	records dropped because the buffer was full (discard mode)
 * @lost_wrap:	records dropped because the sub-buffer to enter was still
 *		being written by an interrupted writer (tiny buffers only)
 * @lost_big:	records refused because they exceed a sub-buffer
 * @dropped:	@lost_full + @lost_wrap + @lost_big
 * @overwritten: committed records destroyed by overwrite mode
 * @consumed:	records handed to the reader by ring_get_subbuf()
 *
 * While no writer runs, @written == @overwritten + @consumed + the records
 * still in the buffer (ring_count_resident()).
 */
struct ring_stats {
	u64 size;
	u64 used;
	u64 free;
	u64 written;
	u64 lost_full;
	u64 lost_wrap;
	u64 lost_big;
	u64 dropped;
	u64 overwritten;
	u64 consumed;
};

/**
 * struct ring_subbuf - a sub-buffer owned by the reader (ring_get_subbuf)
 * @data:	its 2^m bytes, records back to back
 * @size:	2^m
 * @records:	data records in it
 * @pos:	its position in the CPU's buffer (free running)
 * @cpu:	the buffer it came from
 */
struct ring_subbuf {
	const void *data;
	unsigned long size;
	unsigned long records;
	unsigned long pos;
	unsigned int cpu;
};

/*
 * struct ring_iter - merged, non-destructive walk of a stopped ring
 *
 * Private to ring_read.c; the caller only allocates it
 * (ring_iter_size() bytes, it depends on nr_cpus).
 */
struct ring_iter;

struct ring *ring_create(const struct ring_config *cfg);
void ring_destroy(struct ring *ring);
void ring_reset(struct ring *ring);
const struct ring_config *ring_get_config(const struct ring *ring);

int ring_reserve(struct ring *ring, struct ring_ctx *ctx, unsigned int cpu,
		 u32 len);
void ring_commit(struct ring *ring, struct ring_ctx *ctx);
void ring_flush(struct ring *ring, unsigned int cpu);

void ring_get_stats(const struct ring *ring, struct ring_stats *st);
void ring_get_cpu_stats(const struct ring *ring, unsigned int cpu,
			struct ring_stats *st);
unsigned long ring_count_resident(const struct ring *ring);

int ring_get_subbuf(struct ring *ring, unsigned int cpu,
		    struct ring_subbuf *sb);
void ring_put_subbuf(struct ring *ring, struct ring_subbuf *sb);
const struct ring_record *ring_subbuf_next(const struct ring_subbuf *sb,
					   const struct ring_record *prev);

size_t ring_iter_size(const struct ring *ring);
void ring_iter_start(const struct ring *ring, struct ring_iter *iter);
const struct ring_record *ring_iter_next(struct ring_iter *iter,
					 unsigned int *cpu);

#endif /* GTP_RING_H */
