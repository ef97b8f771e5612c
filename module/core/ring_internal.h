/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ring_internal.h - layout and position arithmetic shared by ring.c (write
 * side) and ring_read.c (read side).  Not for users of the ring.
 *
 * Positions are free-running byte counts (unsigned long, never reset while
 * the ring lives), so "which lap" and "which sub-buffer" are shifts and
 * masks of one number and no counter ever wraps in practice:
 *
 *	pos:  | lap ........................ | slot (n bits) | offset (m bits) |
 *
 * A slot word (rb_cpu::wsb[slot], the "write sub-buffer" table of LTTng's
 * backend) names the page currently mapped at that slot and its state:
 *
 *	word: | lap tag ........ | NOREF (1 bit) | page id (RB_ID_BITS) |
 *
 * lap tag = the lap whose data the page holds (or is being filled with);
 * NOREF   = that lap is fully committed and no writer will touch the page
 *	     again until a writer of a later lap claims the slot: only then
 *	     may the reader swap the page out (see ring.c, "Slot words").
 */
#ifndef GTP_RING_INTERNAL_H
#define GTP_RING_INTERNAL_H

#include "ring.h"

#define RB_ID_BITS	16
#define RB_ID_MASK	((1UL << RB_ID_BITS) - 1)
#define RB_NOREF	(1UL << RB_ID_BITS)
#define RB_TAG_SHIFT	(RB_ID_BITS + 1)

/**
 * struct rb_page - one sub-buffer's memory; nr_subbufs + 1 per CPU
 * @data:	2^m bytes
 * @records:	data records committed into the page's current contents.
 *		Travels with the page: when the reader swaps the page out it
 *		takes the count along; when a writer reclaims an unread page
 *		(overwrite) the count is what was overwritten.
 */
struct rb_page {
	void *data;
	local_t records;
};

/*
 * Per-CPU buffer.  Hot fields (touched by every write on the owning CPU)
 * and cold ones (touched once per sub-buffer, or by the remote reader) sit
 * on separate cache lines, as LTTng's commit_counters_hot/_cold, so that a
 * reader polling @consumed and @wsb does not bounce the writer's line.
 */
struct rb_cpu {
	/* hot: owning CPU only, local_t */
	local_t offset ____cacheline_aligned;	/* write position */
	local_t written;			/* records committed */
	local_t *cc;				/* [nr_subbufs] commit counts */
	struct rb_page *pages;			/* [nr_subbufs + 1] */
	atomic_long_t *wsb;			/* [nr_subbufs] slot words */

	/* cold: SMP-shared or rarely written */
	atomic_long_t consumed ____cacheline_aligned;	/* read position */
	local_t lost_full;
	local_t lost_wrap;
	local_t lost_big;
	local_t overwritten;

	/* reader-owned (one reader at a time per ring) */
	unsigned long rsb ____cacheline_aligned;	/* spare page id */
	unsigned long read_records;		/* records handed out */
};

struct ring {
	struct ring_config cfg;
	unsigned long sb_size;		/* 2^m */
	unsigned long sb_mask;		/* 2^m - 1 */
	unsigned long nr_subbufs;	/* 2^n */
	unsigned int buf_order;		/* m + n */
	unsigned long buf_size;		/* 2^(m+n) per CPU */
	struct rb_cpu *cpus;		/* [nr_cpus] */
	void *mem;			/* every page, one allocation */
	void *meta;			/* cc/wsb/pages arrays, one allocation */
};

static inline unsigned long rb_sb_off(const struct ring *ring,
				      unsigned long pos)
{
	return pos & ring->sb_mask;
}

static inline unsigned long rb_sb_trunc(const struct ring *ring,
					unsigned long pos)
{
	return pos & ~ring->sb_mask;
}

static inline unsigned long rb_slot(const struct ring *ring,
				    unsigned long pos)
{
	return (pos >> ring->cfg.subbuf_order) & (ring->nr_subbufs - 1);
}

static inline unsigned long rb_lap(const struct ring *ring, unsigned long pos)
{
	return pos >> ring->buf_order;
}

static inline unsigned long rb_word(unsigned long lap, unsigned long noref,
				    unsigned long id)
{
	return (lap << RB_TAG_SHIFT) | noref | id;
}

static inline unsigned long rb_word_id(unsigned long w)
{
	return w & RB_ID_MASK;
}

static inline unsigned long rb_word_lap(unsigned long w)
{
	return w >> RB_TAG_SHIFT;
}

/* slow paths of the write side (ring.c), called from ring_api.h */
struct rb_page *__rb_claim_slot(struct ring *ring, struct rb_cpu *cpu_buf,
				unsigned long pos, unsigned long w);
void rb_deliver(struct ring *ring, struct rb_cpu *cpu_buf, unsigned long pos,
		unsigned long id);
int rb_check_enter(struct ring *ring, struct rb_cpu *cpu_buf,
		   unsigned long begin);
void rb_close_subbuf(struct ring *ring, struct rb_cpu *cpu_buf,
		     unsigned long old, unsigned long pad, u64 ts);

/* Next data record in @limit bytes of a sub-buffer, after @prev (or first). */
const struct ring_record *__rb_page_next(const void *data,
					 unsigned long limit,
					 const struct ring_record *prev);

#endif /* GTP_RING_INTERNAL_H */
