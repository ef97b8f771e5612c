// SPDX-License-Identifier: GPL-2.0
/*
 * ring.c - per-CPU lock-free ring buffer: allocation and the write side.
 *
 * Design (Desnoyers, Dagenais, Toupin; LTTng's lib/ringbuffer; this code
 * is our own and simpler):
 *
 * Each CPU owns a buffer of 2^n sub-buffers ("slots") of 2^m bytes, plus one
 * spare page owned by the reader.  Per CPU:
 *
 *   offset	write position, free running.  Moved only by writers of this
 *		CPU with a CPU-local cmpxchg (no lock prefix, no irq-off): a
 *		writer interrupted by a nested writer (IRQ/NMI, or a signal
 *		handler in userspace) simply retries.
 *   cc[slot]	commit count of a slot, in bytes, free running across laps;
 *		bumped with a CPU-local add after the record is written.  Lap
 *		L of a slot is complete when cc[slot] == (L + 1) << m.
 *   consumed	read position, a multiple of 2^m.  Moved with an SMP cmpxchg
 *		by the reader (after reading a sub-buffer) and, in overwrite
 *		mode, by writers pushing the reader ahead of them.
 *   wsb[slot]	slot word: page id | NOREF | lap tag (ring_internal.h).
 *		Changed only with SMP cmpxchg, by three parties:
 *		- claim (writer, once per slot and lap): the first writer of
 *		  lap L+1 moves the tag to L+1 and clears NOREF before any
 *		  byte of lap L+1 is written into the page;
 *		- deliver (the writer whose commit completes lap L): sets
 *		  NOREF, but only if the word still says "lap L, in use";
 *		- swap (reader): replaces a "lap L, NOREF" page by its spare.
 *		Because all three are compare-and-swaps on one word, a page is
 *		either still in the slot (and then writers of a later lap own
 *		it, having counted its records as overwritten) or in the
 *		reader's hands (and then writers write into the old spare):
 *		the reader's page is never overwritten, in either mode.
 *
 * Write path, with the code points used by race comments below and by
 * ring.pml:
 *
 *   /A/ read offset; compute begin (skipping the tail of the current
 *	sub-buffer if the record does not fit: that tail becomes padding);
 *   /B/ entering a new sub-buffer: discard mode needs it consumed, both
 *	modes need its previous lap fully committed; else drop and count;
 *	read the TSC;
 *   /C/ local cmpxchg offset: old -> begin + size.  Failure means a nested
 *	writer reserved meanwhile: retry from A (so timestamps stay in
 *	buffer order on a CPU);
 *   /D/ claim the slot of every position we write (padding, record);
 *	overwrite mode pushes the reader first;
 *   --- caller writes the payload ---
 *   /E/ commit: count the record in its page, smp_wmb(), local add to cc;
 *   /F/ if that add completed the lap: deliver (set NOREF).
 *
 * Races: a nested writer may run between any two points.  Interrupted
 * between A and C: our cmpxchg fails, we retry.  Between C and D: the
 * nested writer, whose record lies after ours in the same lap, claims the
 * slot itself (claim is idempotent and every writer claims before
 * writing).  Between D and E: the sub-buffer cannot complete without our
 * commit, so it is neither delivered nor reusable (B checks commit counts),
 * and a reader cannot take it (no NOREF).  Between E and F: a nested writer
 * may even wrap around and claim lap L+1 (overwrite mode, tiny buffers);
 * our deliver cmpxchg then fails harmlessly, and the claim counted lap L's
 * records as overwritten.
 *
 * Accounting is exact: records are counted in their page (rb_page.records)
 * and the count travels with the page, to the reader on a swap (consumed)
 * or to the overwritten counter on a claim of an unread page.  With no
 * writer running: written == overwritten + consumed + resident.
 *
 * Key functions: ring_reserve() -> __ring_reserve() -> __rb_reserve() ->
 * rb_claim_slot() -> __rb_claim_slot() -> rb_push_reader(); ring_commit()
 * -> __ring_commit() -> __rb_commit() -> rb_deliver().  The fast paths
 * (__ring_*, __rb_reserve, rb_claim_slot, __rb_commit) are inline in
 * ring_api.h; the read side is in ring_read.c.
 */
#include "compat.h"
#include "ring_api.h"

/* ------------------------------------------------------------------ */
/* allocation */

static bool rb_config_valid(const struct ring_config *cfg)
{
	return cfg->nr_cpus >= 1 && cfg->nr_cpus <= 4096 &&
	       cfg->subbuf_order >= RING_SUBBUF_ORDER_MIN &&
	       cfg->subbuf_order <= RING_SUBBUF_ORDER_MAX &&
	       cfg->nr_subbufs_order >= 1 &&
	       cfg->nr_subbufs_order <= RING_NR_SUBBUFS_ORDER_MAX &&
	       (cfg->mode == RING_DISCARD || cfg->mode == RING_OVERWRITE);
}

/* per-CPU metadata: cc[nr], wsb[nr], pages[nr + 1], rounded to a line */
static size_t rb_meta_size(unsigned long nr)
{
	size_t sz = nr * sizeof(local_t) + nr * sizeof(atomic_long_t) +
		    (nr + 1) * sizeof(struct rb_page);

	return (sz + 63) & ~(size_t)63;
}

/**
 * ring_reset() - empty a ring and zero its counters
 * @ring: the ring
 *
 * Context: no writer or reader may run (e.g. at QTStart, before probes are
 * armed).
 */
void ring_reset(struct ring *ring)
{
	unsigned long nr = ring->nr_subbufs, i;
	unsigned int cpu;

	for (cpu = 0; cpu < ring->cfg.nr_cpus; cpu++) {
		struct rb_cpu *cpu_buf = &ring->cpus[cpu];

		local_set(&cpu_buf->offset, 0);
		local_set(&cpu_buf->written, 0);
		atomic_long_set(&cpu_buf->consumed, 0);
		local_set(&cpu_buf->lost_full, 0);
		local_set(&cpu_buf->lost_wrap, 0);
		local_set(&cpu_buf->lost_big, 0);
		local_set(&cpu_buf->overwritten, 0);
		for (i = 0; i < nr; i++) {
			local_set(&cpu_buf->cc[i], 0);
			/* slot i starts with page i, lap 0, in use */
			atomic_long_set(&cpu_buf->wsb[i], rb_word(0, 0, i));
		}
		for (i = 0; i <= nr; i++)
			local_set(&cpu_buf->pages[i].records, 0);
		cpu_buf->rsb = nr;		/* the spare: page nr */
		cpu_buf->read_records = 0;
	}
	smp_mb();	/* publish before probes are armed; partner: arming */
}

/**
 * ring_create() - allocate a ring
 * @cfg: geometry and mode
 *
 * Context: process context (allocates; call at QTStart, never in a probe).
 * Return: the ring, or NULL on a bad config or out of memory.
 */
struct ring *ring_create(const struct ring_config *cfg)
{
	unsigned long nr, sb;
	size_t meta_sz, page_sz;
	struct ring *ring;
	unsigned int cpu;
	char *meta, *mem;
	unsigned long i;

	if (!rb_config_valid(cfg))
		return NULL;
	nr = 1UL << cfg->nr_subbufs_order;
	sb = 1UL << cfg->subbuf_order;
	meta_sz = rb_meta_size(nr);
	page_sz = (nr + 1) * sb;

	ring = gtp_zalloc(sizeof(*ring));
	if (!ring)
		return NULL;
	ring->cfg = *cfg;
	ring->sb_size = sb;
	ring->sb_mask = sb - 1;
	ring->nr_subbufs = nr;
	ring->buf_order = cfg->subbuf_order + cfg->nr_subbufs_order;
	ring->buf_size = nr * sb;

	/* vzalloc: page aligned, so the per-CPU cache-line split holds */
	ring->cpus = gtp_vzalloc(cfg->nr_cpus * sizeof(*ring->cpus));
	if (!ring->cpus)
		goto out_free_ring;
	ring->meta = gtp_vzalloc(cfg->nr_cpus * meta_sz);
	if (!ring->meta)
		goto out_free_cpus;
	ring->mem = gtp_vzalloc(cfg->nr_cpus * page_sz);
	if (!ring->mem)
		goto out_free_meta;

	meta = ring->meta;
	mem = ring->mem;
	for (cpu = 0; cpu < cfg->nr_cpus; cpu++) {
		struct rb_cpu *cpu_buf = &ring->cpus[cpu];
		char *m = meta + cpu * meta_sz;

		cpu_buf->cc = (local_t *)m;
		cpu_buf->wsb = (atomic_long_t *)(m + nr * sizeof(local_t));
		cpu_buf->pages = (struct rb_page *)(m + nr * sizeof(local_t) +
					nr * sizeof(atomic_long_t));
		for (i = 0; i <= nr; i++)
			cpu_buf->pages[i].data = mem + cpu * page_sz + i * sb;
	}
	ring_reset(ring);
	return ring;

out_free_meta:
	gtp_vfree(ring->meta);
out_free_cpus:
	gtp_vfree(ring->cpus);
out_free_ring:
	gtp_free(ring);
	return NULL;
}

/**
 * ring_destroy() - free a ring
 * @ring: the ring, or NULL
 *
 * Context: process context; no writer may still run (unregister probes and
 * wait for them, e.g. synchronize_rcu(), first).
 */
void ring_destroy(struct ring *ring)
{
	if (!ring)
		return;
	gtp_vfree(ring->mem);
	gtp_vfree(ring->meta);
	gtp_vfree(ring->cpus);
	gtp_free(ring);
}

const struct ring_config *ring_get_config(const struct ring *ring)
{
	return &ring->cfg;
}

/* ------------------------------------------------------------------ */
/* write side */

/*
 * Overwrite mode: before writing the sub-buffer at @pos, make sure the
 * reader's position is less than one buffer behind it, moving it past the
 * oldest sub-buffer if needed.  SMP cmpxchg: the reader moves it too
 * (ring_put_subbuf); whoever wins, consumed moves once per sub-buffer.
 */
static void rb_push_reader(struct ring *ring, struct rb_cpu *cpu_buf,
			   unsigned long pos)
{
	unsigned long c = atomic_long_read(&cpu_buf->consumed);
	unsigned long want = rb_sb_trunc(ring, pos);

	while ((long)(want - c) >= (long)ring->buf_size) {
		unsigned long old;

		old = atomic_long_cmpxchg(&cpu_buf->consumed, c,
					  c + ring->sb_size);
		c = old == c ? c + ring->sb_size : old;
	}
}

/*
 * Slow path of rb_claim_slot(): the slot still shows an older lap.  Take it
 * for @pos's lap; if the page in it still holds unread records of the old
 * lap (the reader did not swap it out), they are overwritten now: count
 * them.
 */
struct rb_page *__rb_claim_slot(struct ring *ring, struct rb_cpu *cpu_buf,
				unsigned long pos, unsigned long w)
{
	atomic_long_t *wp = &cpu_buf->wsb[rb_slot(ring, pos)];
	unsigned long lap = rb_lap(ring, pos);

	if (ring->cfg.mode == RING_OVERWRITE)
		rb_push_reader(ring, cpu_buf, pos);

	for (;;) {
		unsigned long id = rb_word_id(w), old;
		struct rb_page *page = &cpu_buf->pages[id];
		long n;

		if (rb_word_lap(w) == lap && !(w & RB_NOREF))
			return page;	/* a nested writer claimed it */
		WARN_ON_ONCE(rb_word_lap(w) >= lap);
		/*
		 * Read the count after the word: if it names the reader's old
		 * spare, the reader zeroed the count before swapping it in.
		 * Partner: the full barrier of the swap cmpxchg in
		 * ring_get_subbuf().
		 */
		smp_rmb();
		n = local_read(&page->records);
		/*D*/
		old = atomic_long_cmpxchg(wp, w, rb_word(lap, 0, id));
		if (old == w) {
			/*
			 * Nested writers of the new lap may already have
			 * bumped the count: subtract our snapshot, taken while
			 * the page held only the old lap's records.
			 */
			if (n) {
				local_add(n, &cpu_buf->overwritten);
				local_sub(n, &page->records);
			}
			return page;
		}
		w = old;	/* reader swapped, or a nested writer claimed */
	}
}


/*
 * /F/ The commit that completed lap L of a slot hands the page to the
 * reader by setting NOREF.  Only if the word still says "lap L, page id, in
 * use": in overwrite mode a nested writer may already have claimed lap L+1
 * (and counted our records as overwritten), and then the page is theirs.
 * The cmpxchg is a full barrier: every record byte written on this CPU for
 * lap L (ordered before their commits by the smp_wmb() at E) is visible to
 * a reader that sees NOREF (partner: the swap cmpxchg in ring_get_subbuf).
 */
void rb_deliver(struct ring *ring, struct rb_cpu *cpu_buf, unsigned long pos,
		unsigned long id)
{
	unsigned long w = rb_word(rb_lap(ring, pos), 0, id);

	atomic_long_cmpxchg(&cpu_buf->wsb[rb_slot(ring, pos)], w,
			    w | RB_NOREF);
}


static void rb_write_pad(struct rb_page *page, unsigned long off,
			 unsigned long pad, u64 ts)
{
	struct ring_record *rec;

	if (pad < sizeof(*rec))
		return;		/* a short tail needs no header */
	rec = (struct ring_record *)((char *)page->data + off);
	rec->ts = ts;
	rec->len = pad - sizeof(*rec);
	rec->type = RING_REC_PAD;
}

/*
 * /B/ May a writer enter the sub-buffer starting at @begin?  Discard mode:
 * only once the reader is done with the one a whole buffer earlier.  Both
 * modes: only once that one is fully committed (it may still be held by an
 * interrupted writer if a nested writer wrapped all the way round).
 */
int rb_check_enter(struct ring *ring, struct rb_cpu *cpu_buf,
		   unsigned long begin)
{
	unsigned long slot = rb_slot(ring, begin);
	unsigned long need = rb_lap(ring, begin) << ring->cfg.subbuf_order;

	if (ring->cfg.mode == RING_DISCARD &&
	    (long)(begin - atomic_long_read(&cpu_buf->consumed)) >=
	    (long)ring->buf_size) {
		local_inc(&cpu_buf->lost_full);
		return -ENOBUFS;
	}
	if ((long)(local_read(&cpu_buf->cc[slot]) - need) < 0) {
		local_inc(&cpu_buf->lost_wrap);
		return -EAGAIN;
	}
	return 0;
}

/* Close the sub-buffer holding @old: pad its tail, commit the padding. */
void rb_close_subbuf(struct ring *ring, struct rb_cpu *cpu_buf,
		     unsigned long old, unsigned long pad, u64 ts)
{
	struct rb_page *page = rb_claim_slot(ring, cpu_buf, old);

	rb_write_pad(page, rb_sb_off(ring, old), pad, ts);
	__rb_commit(ring, cpu_buf, old, pad, page);
}

/**
 * ring_reserve() - out-of-line __ring_reserve() (see ring_api.h)
 * @ring: the ring
 * @ctx: filled in on success
 * @cpu: the buffer (the current CPU in the kernel)
 * @len: payload bytes
 *
 * Return: as __ring_reserve(); 0 must be paired with ring_commit().
 */
int ring_reserve(struct ring *ring, struct ring_ctx *ctx, unsigned int cpu,
		 u32 len)
{
	return __ring_reserve(ring, ctx, cpu, len);
}

/**
 * ring_commit() - out-of-line __ring_commit() (see ring_api.h)
 * @ring: the ring
 * @ctx: the reservation from ring_reserve()
 */
void ring_commit(struct ring *ring, struct ring_ctx *ctx)
{
	__ring_commit(ring, ctx);
}




/**
 * ring_flush() - close a CPU's partly filled sub-buffer so it can be read
 * @ring: the ring
 * @cpu: the buffer
 *
 * Pads the current sub-buffer to its end (a reservation like any other).
 * Context: on @cpu itself with preemption disabled, or while no writer can
 * run on @cpu (after tracing stopped: probes unregistered and waited for).
 */
void ring_flush(struct ring *ring, unsigned int cpu)
{
	struct rb_cpu *cpu_buf = &ring->cpus[cpu];
	unsigned long old, pad;
	u64 ts;

	for (;;) {
		old = local_read(&cpu_buf->offset);
		if (!rb_sb_off(ring, old))
			return;
		pad = ring->sb_size - rb_sb_off(ring, old);
		ts = gtp_tsc();
		barrier();	/* TSC before the cmpxchg: see __rb_reserve() */
		if (local_cmpxchg(&cpu_buf->offset, old, old + pad) ==
		    (long)old)
			break;
	}
	rb_close_subbuf(ring, cpu_buf, old, pad, ts);
}

/**
 * ring_get_cpu_stats() - one CPU's counters
 * @ring: the ring
 * @cpu: the buffer
 * @st: filled in (@size is this CPU's share)
 *
 * Exact when no writer runs on @cpu; a consistent-enough snapshot otherwise.
 */
void ring_get_cpu_stats(const struct ring *ring, unsigned int cpu,
			struct ring_stats *st)
{
	const struct rb_cpu *cpu_buf = &ring->cpus[cpu];
	unsigned long off = local_read(&cpu_buf->offset);
	unsigned long c = atomic_long_read(&cpu_buf->consumed);
	long used = (long)(off - c);

	memset(st, 0, sizeof(*st));
	if (used < 0)
		used = 0;
	if (used > (long)ring->buf_size)	/* push in flight */
		used = ring->buf_size;
	st->size = ring->buf_size;
	st->used = used;
	st->free = st->size - st->used;
	st->written = local_read(&cpu_buf->written);
	st->lost_full = local_read(&cpu_buf->lost_full);
	st->lost_wrap = local_read(&cpu_buf->lost_wrap);
	st->lost_big = local_read(&cpu_buf->lost_big);
	st->overwritten = local_read(&cpu_buf->overwritten);
	st->consumed = READ_ONCE(cpu_buf->read_records);
	st->dropped = st->lost_full + st->lost_wrap + st->lost_big;
}

/**
 * ring_get_stats() - the ring's counters, summed over CPUs
 * @ring: the ring
 * @st: filled in
 *
 * Exact when no writer runs; a consistent-enough snapshot otherwise.
 */
void ring_get_stats(const struct ring *ring, struct ring_stats *st)
{
	struct ring_stats one;
	unsigned int cpu;

	memset(st, 0, sizeof(*st));
	for (cpu = 0; cpu < ring->cfg.nr_cpus; cpu++) {
		ring_get_cpu_stats(ring, cpu, &one);
		st->size += one.size;
		st->used += one.used;
		st->written += one.written;
		st->lost_full += one.lost_full;
		st->lost_wrap += one.lost_wrap;
		st->lost_big += one.lost_big;
		st->overwritten += one.overwritten;
		st->consumed += one.consumed;
	}
	st->free = st->size - st->used;
	st->dropped = st->lost_full + st->lost_wrap + st->lost_big;
}
