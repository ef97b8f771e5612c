// SPDX-License-Identifier: GPL-2.0
/*
 * frame_ring.c - the frame store (frame.h) on the per-CPU lock-free ring.
 *
 * Writers (probe handlers, preemption off, maybe NMI) reserve on their own
 * CPU's buffer with __ring_reserve() and commit with __ring_commit(): no
 * lock, no irq-off, nothing shared between CPUs on the write path.  A frame
 * is one ring record; its payload is exactly the frame's bytes (tfile
 * format), so qTBuffer/tsave readers copy records as they are.
 *
 * Geometry: QTBuffer:size is split evenly over the CPUs, each CPU's share
 * rounded down to a power of two and cut into 8 sub-buffers (fewer for
 * tiny buffers).  tsize reports the bytes actually allocated.  A frame
 * larger than a sub-buffer minus its header is refused and counted
 * (gtp_frames_max_len(size) lets QTDP/QTStart refuse it earlier).
 *
 * Modes: non-circular = RING_DISCARD (a full CPU buffer drops the frame,
 * the slot says -ENOSPC so the probe stops the trace: tfull); circular =
 * RING_OVERWRITE (oldest sub-buffers reused; counted).
 *
 * Stop: writers check @accepting; gtp_frames_stop() clears it, then
 * waits once for every handler in flight (gtp_sync_writers(), i.e.
 * synchronize_rcu(), as probe handlers run preempt-disabled), so readers
 * after it see a quiescent ring.  Readers walk the ring in place, merged
 * across CPUs by timestamp (ring_iter_*): frame numbers are global time
 * order.  Sequential gtp_frame_get() is O(1) through a cached walk
 * position; going backwards restarts the walk.
 *
 * Consumer (gtp_frames_take(), for /proc/gtp_stream): takes one CPU's
 * oldest complete sub-buffer with ring_get_subbuf() while writers run,
 * copies it out and gives it straight back, so the writers never wait for
 * the consumer's reader.  Once the store is quiet it also flushes each
 * CPU's partial sub-buffer (drain), while gdb may be reading the frames:
 * the ones left are then numbered anew, which gtp_frames_taken() tells
 * gdb's reader (traceframe.c).  While a consumer is attached a full
 * non-circular store drops (and counts) instead of stopping the trace:
 * the consumer is expected to catch up.
 *
 * Writers reserve and commit inline (frame.h, on ring_api.h): what they
 * read of the store is gtp_frame_writer, set here.
 */
#include "compat.h"
#include "frame.h"
#include "ring_api.h"

struct gtp_frame_writer gtp_frame_writer;
#define fw gtp_frame_writer

/*
 * Takes that removed frames, since load: kept across runs and rings
 * (never reset), so that a reader's number from before any of them
 * differs from the current one (gtp_frames_taken()).
 */
static u64 fr_taken;

#define FR_NR_SUBBUFS_ORDER	3	/* 8 sub-buffers per CPU */
#define FR_MIN_CPU_ORDER	(RING_SUBBUF_ORDER_MIN + 1)

static struct {
	struct ring_iter *iter;		/* reader walk, ring_iter_size() */
	u64 size;			/* as requested */
	bool circular;
	bool quiet;			/* stopped and waited for writers */
	/* reader cache: the walk is at frame @next, holding @cur */
	bool walk_valid;
	u64 next;
	const struct ring_record *cur;
	unsigned int cur_cpu;		/* the CPU @cur was written on */
	u64 start_ts;			/* gtp_tsc() when the run started */
	u32 run;			/* runs started since load */
} rfs;

static unsigned int fr_log2(u64 v)
{
	unsigned int o = 0;

	while (v >>= 1)
		o++;
	return o;
}

static void fr_walk_reset(void)
{
	rfs.walk_valid = false;
	rfs.next = 0;
	rfs.cur = NULL;
}

/* The ring a buffer of @size bytes becomes; -EINVAL if too small. */
static int fr_geometry(u64 size, bool circular, struct ring_config *cfg)
{
	unsigned int ncpu = gtp_nr_cpus(), cpu_order;

	if (!ncpu || size / ncpu < (1ull << FR_MIN_CPU_ORDER))
		return -EINVAL;
	cpu_order = fr_log2(size / ncpu);
	if (cpu_order > RING_SUBBUF_ORDER_MAX + FR_NR_SUBBUFS_ORDER)
		cpu_order = RING_SUBBUF_ORDER_MAX + FR_NR_SUBBUFS_ORDER;
	memset(cfg, 0, sizeof(*cfg));
	cfg->nr_cpus = ncpu;
	cfg->nr_subbufs_order = min_t(unsigned int, FR_NR_SUBBUFS_ORDER,
				      cpu_order - RING_SUBBUF_ORDER_MIN);
	cfg->subbuf_order = cpu_order - cfg->nr_subbufs_order;
	cfg->mode = circular ? RING_OVERWRITE : RING_DISCARD;
	return 0;
}

/**
 * gtp_frames_setup() - (re)allocate the store, empty
 * @size: total bytes (split over CPUs, rounded down to powers of two)
 * @circular: overwrite the oldest frames when full
 *
 * Context: process context, no writer running (QTStart before arming).
 * Keeps the old ring if the geometry and mode are unchanged.
 * Return: 0, -EINVAL (too small), -ENOMEM.
 */
int gtp_frames_setup(u64 size, bool circular)
{
	struct ring_config cfg;
	struct ring_iter *iter;
	struct ring *ring;

	if (fr_geometry(size, circular, &cfg))
		return -EINVAL;

	if (fw.ring && !memcmp(ring_get_config(fw.ring), &cfg, sizeof(cfg))) {
		rfs.size = size;
		rfs.circular = circular;
		gtp_frames_clear();
		return 0;
	}
	ring = ring_create(&cfg);
	if (!ring)
		return -ENOMEM;
	iter = gtp_zalloc(ring_iter_size(ring));
	if (!iter) {
		ring_destroy(ring);
		return -ENOMEM;
	}
	gtp_frames_release();
	fw.ring = ring;
	rfs.iter = iter;
	rfs.size = size;
	rfs.circular = circular;
	rfs.quiet = true;
	fr_walk_reset();
	return 0;
}

/* Context: process context, no writer running. */
void gtp_frames_release(void)
{
	u32 run = rfs.run;
	bool consumer = fw.consumer;

	ring_destroy(fw.ring);
	gtp_free(rfs.iter);
	memset(&rfs, 0, sizeof(rfs));
	memset(&fw, 0, sizeof(fw));
	rfs.run = run;			/* a consumer compares run numbers */
	fw.consumer = consumer;
}

/* Drop every frame (QTinit, QTStart).  No writer may be running. */
void gtp_frames_clear(void)
{
	if (fw.ring)
		ring_reset(fw.ring);
	fr_walk_reset();
}

/* Open the store to writers (QTStart, after arming the probes). */
void gtp_frames_start(void)
{
	fr_walk_reset();
	rfs.quiet = false;
	rfs.start_ts = gtp_tsc();
	rfs.run++;
	/* ring_reset()'s stores before writers see @accepting: its smp_mb() */
	WRITE_ONCE(fw.accepting, fw.ring != NULL);
}

/**
 * gtp_frames_stop() - close the store to writers and wait for them
 *
 * After it returns no frame is being written or will be.  Context: process
 * context (may sleep the first time after a start).  Cheap when repeated.
 */
void gtp_frames_stop(void)
{
	WRITE_ONCE(fw.accepting, false);
	if (rfs.quiet)
		return;
	/*
	 * Every writer that saw @accepting true is in a preempt-disabled
	 * probe handler; wait for all of them.  Partner: the READ_ONCE in
	 * gtp_frame_reserve().
	 */
	gtp_sync_writers();
	rfs.quiet = true;
	fr_walk_reset();
}

/**
 * gtp_frames_stats() - qTStatus figures
 * @st: filled in; exact once stopped
 */
void gtp_frames_stats(struct gtp_frame_stats *st)
{
	struct ring_stats rs;

	memset(st, 0, sizeof(*st));
	st->circular = rfs.circular;
	if (!fw.ring)
		return;
	ring_get_stats(fw.ring, &rs);
	st->size = rs.size;
	st->free = rs.free;
	st->created = rs.written;
	st->frames = rs.written - rs.overwritten - rs.consumed;
	st->dropped = rs.dropped;
}

/**
 * gtp_frames_max_len() - largest frame a buffer of @size accepts
 * @size: as for gtp_frames_setup()
 *
 * Lets QTDP/QTStart refuse a tracepoint whose frames can never fit.
 *
 * Return: a sub-buffer minus the record header; 0 if @size is too small.
 */
u32 gtp_frames_max_len(u64 size)
{
	struct ring_config cfg;

	if (fr_geometry(size, false, &cfg))
		return 0;
	return (1u << cfg.subbuf_order) - sizeof(struct ring_record);
}

/* Frames held: for readers after gtp_frames_stop(). */
u64 gtp_frames_count(void)
{
	struct gtp_frame_stats st;

	if (!fw.ring)
		return 0;
	if (rfs.quiet)
		return ring_count_resident(fw.ring);
	gtp_frames_stats(&st);
	return st.frames;
}

/**
 * gtp_frame_get() - frame @idx in global time order (after stop)
 * @idx: frame number, 0 = oldest
 * @len: set to the frame's length
 *
 * Return: the frame's bytes (valid until the next start/clear), or NULL if
 * there is no such frame or writers may still run.
 */
const u8 *gtp_frame_get(u64 idx, u32 *len)
{
	if (!fw.ring || !rfs.quiet)
		return NULL;
	if (!rfs.walk_valid || idx + 1 < rfs.next ||
	    (idx + 1 == rfs.next && !rfs.cur)) {
		ring_iter_start(fw.ring, rfs.iter);
		rfs.walk_valid = true;
		rfs.next = 0;
		rfs.cur = NULL;
	}
	while (rfs.next <= idx) {
		rfs.cur = ring_iter_next(rfs.iter, &rfs.cur_cpu);
		if (!rfs.cur) {
			rfs.walk_valid = false;
			return NULL;
		}
		rfs.next++;
	}
	*len = rfs.cur->len;
	return ring_record_data(rfs.cur);
}

/**
 * gtp_frame_origin() - where and when frame @idx was written
 * @idx: frame number, 0 = oldest
 * @cpu: set to the CPU whose buffer holds it
 * @ticks: set to gtp_tsc() ticks from the start of the run to its reservation
 *
 * The trace file format has no room for either; gtp-ctl asks for them.
 *
 * Return: 0, or -ENOENT as gtp_frame_get() returns NULL.
 */
int gtp_frame_origin(u64 idx, unsigned int *cpu, u64 *ticks)
{
	u32 len;

	if (!gtp_frame_get(idx, &len))
		return -ENOENT;
	*cpu = rfs.cur_cpu;
	*ticks = rfs.cur->ts > rfs.start_ts ? rfs.cur->ts - rfs.start_ts : 0;
	return 0;
}

/* Runs started since the module loaded: a new number means a new ring. */
u32 gtp_frames_run(void)
{
	return rfs.run;
}

/* gtp_tsc() when the current (or last) run started. */
u64 gtp_frames_start_tsc(void)
{
	return rfs.start_ts;
}

/* Per-CPU buffers of the store, 0 if there is none. */
unsigned int gtp_frames_nr_cpus(void)
{
	return fw.ring ? ring_get_config(fw.ring)->nr_cpus : 0;
}

/* Bytes of one sub-buffer: the most gtp_frames_take() copies. */
u32 gtp_frames_subbuf_size(void)
{
	return fw.ring ? 1u << ring_get_config(fw.ring)->subbuf_order : 0;
}

/* A consumer attaches (full store: drop, do not stop) or goes away. */
void gtp_frames_set_consumer(bool on)
{
	WRITE_ONCE(fw.consumer, on);
}

/* Frames @cpu lost in this run: full, wrapped, too big, overwritten. */
u64 gtp_frames_cpu_lost(unsigned int cpu)
{
	struct ring_stats st;

	if (!fw.ring || cpu >= gtp_frames_nr_cpus())
		return 0;
	ring_get_cpu_stats(fw.ring, cpu, &st);
	return st.dropped + st.overwritten;
}

/**
 * gtp_frames_take() - copy out and free @cpu's oldest complete sub-buffer
 * @cpu: which CPU's buffer
 * @drain: the store is quiet (gtp_frames_stop() returned): take the
 *	partial sub-buffer too
 * @buf: where the records go
 * @size: bytes at @buf, at least gtp_frames_subbuf_size()
 * @c: filled in on success
 *
 * Context: process context, the packet lock held (one consumer; frame
 * readers and QTStart excluded).  Writers may run unless @drain.
 * Return: 0; -EAGAIN if no complete sub-buffer is there now; -ENODATA
 * with @drain once @cpu is empty; -EINVAL if @size is too small.
 */
int gtp_frames_take(unsigned int cpu, bool drain, void *buf, u32 size,
		    struct gtp_frame_chunk *c)
{
	const struct ring_record *rec, *last = NULL;
	struct ring_subbuf sb;
	unsigned long end = 0;

	if (!fw.ring || cpu >= gtp_frames_nr_cpus())
		return -ENODATA;
	if (size < gtp_frames_subbuf_size())
		return -EINVAL;
	if (drain && !rfs.quiet)
		return -EAGAIN;
	if (ring_get_subbuf(fw.ring, cpu, &sb)) {
		if (!drain)
			return -EAGAIN;
		/* no writer runs: close the partial one and retry once */
		ring_flush(fw.ring, cpu);
		if (ring_get_subbuf(fw.ring, cpu, &sb))
			return -ENODATA;
	}
	memset(c, 0, sizeof(*c));
	for (rec = ring_subbuf_next(&sb, NULL); rec;
	     rec = ring_subbuf_next(&sb, rec)) {
		if (!last)
			c->ts_begin = rec->ts;
		last = rec;
		end = (const char *)rec - (const char *)sb.data +
		      ring_record_size(rec->len);
	}
	memcpy(buf, sb.data, end);
	c->cpu = cpu;
	c->len = end;
	c->seq = sb.pos >> ring_get_config(fw.ring)->subbuf_order;
	c->ts_end = last ? last->ts : 0;
	ring_put_subbuf(fw.ring, &sb);
	c->lost = gtp_frames_cpu_lost(cpu);
	fr_walk_reset();		/* the walk may be in what went back */
	if (last)
		fr_taken++;		/* frame numbers moved */
	return 0;
}

/**
 * gtp_frames_taken() - how often the consumer has taken frames
 *
 * Each gtp_frames_take() that removed frames changes it: the frames left
 * are numbered anew (gtp_frame_get()), and qTBuffer's byte offsets move.
 * A reader that keeps a frame number or an offset across packets keeps
 * this with it, and trusts the number only while it is unchanged.
 *
 * Context: under the packet lock, as gtp_frames_take().
 * Return: the number of takes that removed frames since the module loaded.
 */
u64 gtp_frames_taken(void)
{
	return fr_taken;
}
