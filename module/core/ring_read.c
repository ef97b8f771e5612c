// SPDX-License-Identifier: GPL-2.0
/*
 * ring_read.c - read side of the per-CPU ring buffer (see ring.c).
 *
 * Two ways to read:
 *
 * 1. Consuming, concurrent with writers, from any CPU:
 *    ring_get_subbuf() takes the oldest fully committed sub-buffer of one
 *    CPU by swapping the reader's spare page into the writers' slot table
 *    (one SMP cmpxchg on the slot word, which succeeds only while the word
 *    says "lap L, NOREF": lap L complete and not reclaimed by a writer).
 *    From then on the page is the reader's alone: writers of the next lap
 *    fill the old spare instead, so overwrite mode never overwrites what
 *    is being read.  ring_put_subbuf() moves the read position past it
 *    (cmpxchg: in overwrite mode a writer may have pushed it already).
 *
 *	    slot table (writers)            reader
 *	  +----+----+----+----+            +-------+
 *	  | p0 | p1 | p2 | p3 |   swap     | spare |
 *	  +----+----+----+----+  <------>  +-------+
 *	         ^ consumed: lap L, NOREF -> the reader's spare goes in,
 *	                                     p1 comes out
 *
 *    One reader at a time per ring (the caller serializes readers).
 *
 * 2. Merged, non-destructive, after tracing stopped (ring_iter_*): walks
 *    every CPU from its read position to its write position in place and
 *    merges the CPUs by timestamp, so frames can be numbered in global
 *    time order and walked again (tfind) without copying.
 */
#include "compat.h"
#include "ring_internal.h"

#define RB_READ_RETRIES	1000

const struct ring_record *__rb_page_next(const void *data, unsigned long limit,
					 const struct ring_record *prev)
{
	const struct ring_record *rec;
	unsigned long off = 0;

	if (prev)
		off = (const char *)prev - (const char *)data +
		      ring_record_size(prev->len);
	if (off + sizeof(*rec) > limit)
		return NULL;		/* end, or a short tail of padding */
	rec = (const struct ring_record *)((const char *)data + off);
	if (rec->type == RING_REC_PAD)
		return NULL;		/* padding always runs to the end */
	if (WARN_ON_ONCE(rec->type != RING_REC_DATA ||
			 ring_record_size(rec->len) > limit - off))
		return NULL;		/* corrupt: stop, never run off */
	return rec;
}

/**
 * ring_get_subbuf() - take a CPU's oldest complete sub-buffer
 * @ring: the ring
 * @cpu: which buffer
 * @sb: filled in on success
 *
 * Context: any CPU, process or softirq context; one reader at a time.
 * Return: 0 and @sb, which must be given back with ring_put_subbuf()
 * before the next ring_get_subbuf() on @cpu; -EAGAIN if no complete
 * sub-buffer is available now (use ring_flush() for a partial one).
 */
int ring_get_subbuf(struct ring *ring, unsigned int cpu,
		    struct ring_subbuf *sb)
{
	struct rb_cpu *cpu_buf = &ring->cpus[cpu];
	int tries;

	for (tries = 0; tries < RB_READ_RETRIES; tries++) {
		unsigned long c, slot, lap, w, spare;
		struct rb_page *page;
		long n;

		/*R1*/
		c = atomic_long_read(&cpu_buf->consumed);
		slot = rb_slot(ring, c);
		lap = rb_lap(ring, c);
		w = atomic_long_read(&cpu_buf->wsb[slot]);
		if (w != rb_word(lap, RB_NOREF, rb_word_id(w))) {
			/* not complete yet -- or a writer pushed us on */
			if (atomic_long_read(&cpu_buf->consumed) != (long)c)
				continue;
			return -EAGAIN;
		}
		spare = cpu_buf->rsb;
		/* zero the spare's count before it becomes visible: partner
		 * is the smp_rmb() in __rb_claim_slot() */
		local_set(&cpu_buf->pages[spare].records, 0);
		/*R2*/
		if (atomic_long_cmpxchg(&cpu_buf->wsb[slot], w,
					rb_word(lap, 0, spare)) != (long)w)
			continue;	/* a writer reclaimed it meanwhile */
		/*
		 * The cmpxchg is a full barrier: the page's bytes and count,
		 * published by the deliver cmpxchg (ring.c /F/), are read
		 * after it.
		 */
		cpu_buf->rsb = rb_word_id(w);
		page = &cpu_buf->pages[cpu_buf->rsb];
		n = local_read(&page->records);
		WRITE_ONCE(cpu_buf->read_records, cpu_buf->read_records + n);
		sb->data = page->data;
		sb->size = ring->sb_size;
		sb->records = n;
		sb->pos = c;
		sb->cpu = cpu;
		return 0;
	}
	return -EAGAIN;
}

/**
 * ring_put_subbuf() - done with a sub-buffer from ring_get_subbuf()
 * @ring: the ring
 * @sb: the sub-buffer; its data must not be used afterwards
 */
void ring_put_subbuf(struct ring *ring, struct ring_subbuf *sb)
{
	struct rb_cpu *cpu_buf = &ring->cpus[sb->cpu];

	/*R3*/
	/* fails only if a writer already pushed past it (overwrite mode) */
	atomic_long_cmpxchg(&cpu_buf->consumed, sb->pos,
			    sb->pos + ring->sb_size);
}

/**
 * ring_subbuf_next() - iterate over the data records of a taken sub-buffer
 * @sb: from ring_get_subbuf()
 * @prev: the previous record, or NULL for the first
 *
 * Return: the next record (in timestamp order), or NULL at the end.
 */
const struct ring_record *ring_subbuf_next(const struct ring_subbuf *sb,
					   const struct ring_record *prev)
{
	return __rb_page_next(sb->data, sb->size, prev);
}

/* ------------------------------------------------------------------ */
/* after stop: merged, in place */

struct rb_iter_cpu {
	unsigned long pos;		/* sub-buffer being walked */
	unsigned long end;		/* write position */
	const void *data;		/* its page */
	unsigned long limit;		/* valid bytes in it */
	const struct ring_record *rec;	/* current record, NULL = done */
};

struct ring_iter {
	const struct ring *ring;
	struct rb_iter_cpu cpu[];
};

size_t ring_iter_size(const struct ring *ring)
{
	return sizeof(struct ring_iter) +
	       ring->cfg.nr_cpus * sizeof(struct rb_iter_cpu);
}

/* Page holding the sub-buffer at @pos, or NULL if it is not there. */
static const struct rb_page *rb_page_at(const struct ring *ring,
					const struct rb_cpu *cpu_buf,
					unsigned long pos)
{
	unsigned long w = atomic_long_read(&cpu_buf->wsb[rb_slot(ring, pos)]);

	if (WARN_ON_ONCE(rb_word_lap(w) != rb_lap(ring, pos)))
		return NULL;
	return &cpu_buf->pages[rb_word_id(w)];
}

/* Move @ic to the first record at or after sub-buffer @ic->pos. */
static void rb_iter_seek(const struct ring *ring, const struct rb_cpu *cpu_buf,
			 struct rb_iter_cpu *ic)
{
	for (; ic->pos < ic->end; ic->pos += ring->sb_size) {
		const struct rb_page *page = rb_page_at(ring, cpu_buf, ic->pos);

		if (!page)
			continue;
		ic->data = page->data;
		ic->limit = min_t(unsigned long, ring->sb_size,
				  ic->end - ic->pos);
		ic->rec = __rb_page_next(ic->data, ic->limit, NULL);
		if (ic->rec)
			return;
	}
	ic->rec = NULL;
}

/**
 * ring_iter_start() - begin a merged walk of every record in the ring
 * @ring: the ring
 * @iter: ring_iter_size() bytes
 *
 * Context: no writer may run (tracing stopped) and no sub-buffer may be
 * held by ring_get_subbuf().  Partly filled sub-buffers are walked up to
 * the write position, so ring_flush() is not required.
 */
void ring_iter_start(const struct ring *ring, struct ring_iter *iter)
{
	unsigned int cpu;

	iter->ring = ring;
	for (cpu = 0; cpu < ring->cfg.nr_cpus; cpu++) {
		const struct rb_cpu *cpu_buf = &ring->cpus[cpu];
		struct rb_iter_cpu *ic = &iter->cpu[cpu];

		ic->pos = rb_sb_trunc(ring, atomic_long_read(&cpu_buf->consumed));
		ic->end = local_read(&cpu_buf->offset);
		rb_iter_seek(ring, cpu_buf, ic);
	}
}

/**
 * ring_iter_next() - the oldest record not yet returned, across CPUs
 * @iter: from ring_iter_start()
 * @cpu: if not NULL, set to the record's CPU
 *
 * Records come in timestamp order (ties: lower CPU first); on each CPU in
 * buffer order.  The record stays valid until the ring is written again.
 * Return: the record, or NULL when all were returned.
 */
const struct ring_record *ring_iter_next(struct ring_iter *iter,
					 unsigned int *cpu)
{
	const struct ring *ring = iter->ring;
	struct rb_iter_cpu *best = NULL;
	const struct ring_record *rec;
	unsigned int i, best_cpu = 0;

	for (i = 0; i < ring->cfg.nr_cpus; i++) {
		struct rb_iter_cpu *ic = &iter->cpu[i];

		if (ic->rec && (!best || ic->rec->ts < best->rec->ts)) {
			best = ic;
			best_cpu = i;
		}
	}
	if (!best)
		return NULL;
	rec = best->rec;
	best->rec = __rb_page_next(best->data, best->limit, rec);
	if (!best->rec) {
		best->pos += ring->sb_size;
		rb_iter_seek(ring, &ring->cpus[best_cpu], best);
	}
	if (cpu)
		*cpu = best_cpu;
	return rec;
}

/**
 * ring_count_resident() - records still in the ring, not yet consumed
 * @ring: the ring
 *
 * Context: as ring_iter_start().
 *
 * Return: the number of records, exact: counted from the pages' counts.
 */
unsigned long ring_count_resident(const struct ring *ring)
{
	unsigned long total = 0, pos, end;
	unsigned int cpu;

	for (cpu = 0; cpu < ring->cfg.nr_cpus; cpu++) {
		const struct rb_cpu *cpu_buf = &ring->cpus[cpu];

		pos = rb_sb_trunc(ring, atomic_long_read(&cpu_buf->consumed));
		end = local_read(&cpu_buf->offset);
		for (; pos < end; pos += ring->sb_size) {
			const struct rb_page *page;

			page = rb_page_at(ring, cpu_buf, pos);
			if (page)
				total += local_read(&page->records);
		}
	}
	return total;
}
