/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ring_api.h - the ring buffer's write fast path, inline (as LTTng's
 * frontend_api.h): for hot callers (probe handlers, the benchmark) that
 * want reserve + commit without two calls.  Everyone else uses
 * ring_reserve() / ring_commit() from ring.h, the same code out of line.
 *
 * The algorithm, the code points A..F and the race analysis are in ring.c;
 * the slow paths (claiming a slot for a new lap, pushing the reader,
 * delivering a sub-buffer, closing one with padding) live there too.
 */
#ifndef GTP_RING_API_H
#define GTP_RING_API_H

#include "ring_internal.h"

/*
 * Every writer calls this before writing any byte at @pos: fast path is
 * one load and a compare.  Returns the page mapped at @pos's slot, owned
 * by writers of @pos's lap until that lap completes.
 */
static __always_inline struct rb_page *rb_claim_slot(struct ring *ring,
						     struct rb_cpu *cpu_buf,
						     unsigned long pos)
{
	unsigned long w = atomic_long_read(&cpu_buf->wsb[rb_slot(ring, pos)]);

	if (likely(rb_word_lap(w) == rb_lap(ring, pos) && !(w & RB_NOREF)))
		return &cpu_buf->pages[rb_word_id(w)];
	return __rb_claim_slot(ring, cpu_buf, pos, w);
}

/* /E/ add @size bytes at @pos to its slot's commit count */
static __always_inline void __rb_commit(struct ring *ring,
					struct rb_cpu *cpu_buf,
					unsigned long pos, unsigned long size,
					struct rb_page *page)
{
	unsigned long full = (rb_lap(ring, pos) + 1) << ring->cfg.subbuf_order;
	unsigned long cc;

	/*
	 * Order the record bytes and the page's record count before the
	 * commit count.  Partner: rb_deliver()'s cmpxchg (the only reader
	 * of a completed count) and, through it, ring_get_subbuf().
	 */
	smp_wmb();
	cc = local_add_return(size, &cpu_buf->cc[rb_slot(ring, pos)]);
	if (unlikely(cc == full))
		rb_deliver(ring, cpu_buf, pos, page - cpu_buf->pages);
}

static __always_inline int __rb_reserve(struct ring *ring,
					struct rb_cpu *cpu_buf,
					struct ring_ctx *ctx,
					unsigned long size)
{
	unsigned long old, begin, pad;
	struct ring_record *rec;
	struct rb_page *page;
	u64 ts;
	int ret;

	for (;;) {
		/*A*/
		old = local_read(&cpu_buf->offset);
		begin = old;
		pad = 0;
		if (rb_sb_off(ring, begin) + size > ring->sb_size) {
			pad = ring->sb_size - rb_sb_off(ring, begin);
			begin += pad;
		}
		/*B*/
		if (unlikely(!rb_sb_off(ring, begin))) {
			ret = rb_check_enter(ring, cpu_buf, begin);
			if (ret)
				return ret;
		}
		/*
		 * Timestamp inside the retry loop: a nested writer that
		 * reserves after our read of offset makes our cmpxchg fail,
		 * so on one CPU timestamps grow with buffer positions.
		 * Only the compiler can move the TSC read past C: barrier().
		 * The CPU cannot move it past a nested writer's, since the
		 * interrupt between them is serializing (no partner needed:
		 * all parties are on this CPU).
		 */
		ts = gtp_tsc();
		barrier();
		/*C*/
		if (likely(local_cmpxchg(&cpu_buf->offset, old, begin + size) ==
			   (long)old))
			break;
	}

	if (unlikely(pad))
		rb_close_subbuf(ring, cpu_buf, old, pad, ts);

	page = rb_claim_slot(ring, cpu_buf, begin);
	rec = (struct ring_record *)((char *)page->data +
				     rb_sb_off(ring, begin));
	rec->ts = ts;
	rec->len = ctx->len;
	rec->type = RING_REC_DATA;
	ctx->data = rec + 1;
	ctx->ts = ts;
	ctx->begin = begin;
	ctx->size = size;
	ctx->page = page;
	return 0;
}

/**
 * __ring_reserve() - reserve room for one record on a CPU's buffer
 * @ring: the ring
 * @ctx: filled in on success; pass it to __ring_commit()
 * @cpu: the buffer; in the kernel, the current CPU (preemption disabled)
 * @len: payload bytes
 *
 * Lock-free and interrupt-safe: a nested writer (IRQ, NMI, signal) may
 * reserve and commit on the same @cpu between our reserve and commit.
 * Records larger than a sub-buffer are refused.  Every failure is counted
 * in the ring's statistics, so the caller need not count.
 *
 * Context: any, including NMI; no sleeping, no locks.  In the kernel the
 * caller must not migrate between ring_reserve() and ring_commit().
 * Return: 0 with @ctx->data pointing at @len writable bytes -- must then
 * be paired with __ring_commit() or ring_commit(); or -E2BIG (record larger
 * than a sub-buffer), -ENOBUFS (buffer full, discard mode), -EAGAIN (the
 * next sub-buffer is still being written by an interrupted writer), -EINVAL
 * (bad @cpu); on error nothing is to be committed.
 */
static __always_inline int __ring_reserve(struct ring *ring,
					  struct ring_ctx *ctx,
					  unsigned int cpu, u32 len)
{
	unsigned long size = ring_record_size(len);
	struct rb_cpu *cpu_buf;

	if (unlikely(cpu >= ring->cfg.nr_cpus))
		return -EINVAL;
	cpu_buf = &ring->cpus[cpu];
	if (unlikely(size > ring->sb_size)) {
		local_inc(&cpu_buf->lost_big);
		return -E2BIG;
	}
	ctx->cpu = cpu;
	ctx->len = len;
	return __rb_reserve(ring, cpu_buf, ctx, size);
}

/**
 * __ring_commit() - publish a record reserved by __ring_reserve()
 * @ring: the ring
 * @ctx: the reservation
 *
 * Context: same CPU and context as the matching ring_reserve().
 */
static __always_inline void __ring_commit(struct ring *ring,
					  struct ring_ctx *ctx)
{
	struct rb_cpu *cpu_buf = &ring->cpus[ctx->cpu];

	local_inc(&ctx->page->records);
	local_inc(&cpu_buf->written);
	__rb_commit(ring, cpu_buf, ctx->begin, ctx->size, ctx->page);
}

#endif /* GTP_RING_API_H */
