// SPDX-License-Identifier: GPL-2.0
/*
 * stream.c - the live consumer (stream.h): records out of the frame store.
 *
 * Each read hands out whole or partial records in order; the record being
 * handed out lives in the consumer's own buffers (the sub-buffer was
 * copied out by gtp_frames_take() and given back to the writers at once),
 * so a record survives a QTStart that resets the ring under it and the
 * byte stream never loses sync.
 *
 * A consumer streams the run going on when it opens, or the next one: the
 * frames of a run that ended before are left to gdb.
 *
 * CPUs are visited round robin so that one busy CPU cannot starve the
 * others.  Once the run stopped (gtp_trace_frames_readable()) each CPU is
 * drained, partial sub-buffer included, and then gets its END record.
 *
 * Context: process context under the packet lock (gtp_mutex in the
 * module), which also excludes gdb's frame reads and QTStart.
 */
#include "stream.h"
#include "frame.h"
#include "packets.h"
#include "run.h"
#include "tracepoint.h"
#include "tsv.h"
#include "host.h"

/*
 * The most text one DEFS piece holds: whole lines, then NUL padding to a
 * multiple of 8 that this size (itself one) never exceeds.  Any one line
 * fits: a tp line is one qTfP piece, at most RSP_PKT_MAX.
 */
#define DEFS_PIECE_MAX	(64u << 10)
_Static_assert(DEFS_PIECE_MAX % 8 == 0 && DEFS_PIECE_MAX > RSP_PKT_MAX + 4,
	       "a DEFS piece holds a tp line");

enum defs_part {
	DEFS_HEAD,			/* version, run, clock, cpus, buffer */
	DEFS_TSVS,			/* "tsv" lines */
	DEFS_TPS,			/* "tp" lines */
	DEFS_SDATA,			/* "sdata" lines */
	DEFS_END,			/* the "end" line */
	DEFS_DONE,			/* all handed out: PACKET and END next */
};

/*
 * How far the run's definitions went, between two pieces.  A tracepoint
 * location is held by its number and address, not by a pointer: the next
 * piece looks it up again, so the cursor stays good whatever happened to
 * the list between two reads (after QTStop, a QTDP may replace and free
 * a location while the stopped run's pieces still go out).
 */
struct defs_cursor {
	enum defs_part part;
	u32 seq;			/* the next piece's number in the run */
	u32 tsv;			/* the next trace state variable */
	bool have_tp;			/* num:addr below is a location */
	bool tp_done;			/* ... whose lines are all out */
	u32 num;
	u64 addr;
	u32 sub;			/* ... its next qTfP piece */
};

struct gtp_stream {
	u32 run;			/* run being streamed, 0 = none yet */
	unsigned int ncpus;
	unsigned int next_cpu;		/* round robin start */
	u8 *ended;			/* [ncpus]: END sent */
	unsigned int nended;

	/* the record being handed out */
	bool busy;
	struct gtp_stream_rec hdr;
	const u8 *payload;
	size_t off;			/* bytes of hdr + payload handed out */

	u8 *chunk;			/* a sub-buffer's records */
	u32 chunk_size;
	struct defs_cursor dc;
	/* dc's location, found once per piece (the lock is held that long) */
	struct gtp_tp *dc_tp;
	char *defs;			/* [DEFS_PIECE_MAX]: one DEFS piece */
	size_t defs_len;
};

struct gtp_stream *gtp_stream_open(void)
{
	struct gtp_stream *s = gtp_zalloc(sizeof(*s));

	if (!s)
		return NULL;
	s->defs = gtp_vzalloc(DEFS_PIECE_MAX);
	if (!s->defs) {
		gtp_stream_close(s);
		return NULL;
	}
	/*
	 * A run that already ended is gdb's to look at: stream the running
	 * one, or wait for the next.
	 */
	if (!gtp_trace_running())
		s->run = gtp_frames_run();
	s->dc.part = DEFS_DONE;
	gtp_frames_set_consumer(true);
	return s;
}

void gtp_stream_close(struct gtp_stream *s)
{
	if (!s)
		return;
	gtp_frames_set_consumer(false);
	gtp_vfree(s->defs);
	gtp_vfree(s->chunk);
	gtp_free(s->ended);
	gtp_free(s);
}

/*
 * End the line of @n bytes formatted at the piece's tail (@n as
 * snprintf() counts: the room left or more means it was cut short).
 * -ENOSPC leaves the piece as it was: the line starts the next piece.
 */
static int defs_commit(struct gtp_stream *s, size_t n)
{
	if (n >= DEFS_PIECE_MAX - s->defs_len)
		return -ENOSPC;
	s->defs[s->defs_len + n] = '\n';
	s->defs_len += n + 1;
	return 0;
}

/* A line of printf output (without its '\n') at the piece's tail. */
static int __attribute__((format(printf, 2, 3)))
defs_printf(struct gtp_stream *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(s->defs + s->defs_len, DEFS_PIECE_MAX - s->defs_len,
		      fmt, ap);
	va_end(ap);
	return n < 0 ? -EINVAL : defs_commit(s, n);
}

/*
 * Start a line with @prefix: where its text goes, with *@room bytes for
 * the text and a NUL; *@n is the prefix's length.  NULL if it is full.
 */
static char *defs_start(struct gtp_stream *s, const char *prefix,
			size_t *n, size_t *room)
{
	size_t left = DEFS_PIECE_MAX - s->defs_len;

	*n = strlen(prefix);
	if (*n >= left)
		return NULL;
	memcpy(s->defs + s->defs_len, prefix, *n);
	*room = left - *n;
	return s->defs + s->defs_len + *n;
}

/*
 * The first lines of the run's definitions: what it is, where it runs.
 * They start piece 0, which has room for them all.
 */
static int defs_head(struct gtp_stream *s)
{
	struct gtp_frame_stats st;
	u64 tsc, real, mono;

	/* the three clocks as close together as we can read them */
	mono = gtp_mono_ns();
	tsc = gtp_tsc();
	real = gtp_real_us();
	gtp_frames_stats(&st);
	return defs_printf(s, "gtp-stream %d", GTP_STREAM_VERSION) ?:
	       defs_printf(s, "run %u", s->run) ?:
	       defs_printf(s, "clock tsc_khz=%lu tsc=%llu real_ns=%llu mono_ns=%llu",
			   (unsigned long)gtp_tsc_khz(),
			   (unsigned long long)tsc,
			   (unsigned long long)real * 1000,
			   (unsigned long long)mono) ?:
	       defs_printf(s, "cpus %u", s->ncpus) ?:
	       defs_printf(s, "buffer size=%llu subbuf=%u circular=%d",
			   (unsigned long long)st.size,
			   gtp_frames_subbuf_size(), st.circular);
}

/*
 * The next "tsv PIECE" line, PIECE what qTfV/qTsV answer for that trace
 * state variable (tsv.c formats both); 1 past the last one.
 */
static int defs_tsv(struct gtp_stream *s)
{
	size_t n, room;
	char *p = defs_start(s, "tsv ", &n, &room);
	int m;

	if (!p)
		return -ENOSPC;
	m = gtp_tsv_format(s->dc.tsv, p, room);
	if (m == -ENOENT)
		return 1;
	if (m < 0)
		return m;
	if (defs_commit(s, n + m))
		return -ENOSPC;
	s->dc.tsv++;
	return 0;
}

/* Does location @tp come after @num:@addr (by number, then address)? */
static bool tp_after(const struct gtp_tp *tp, u32 num, u64 addr)
{
	return tp->num > num || (tp->num == num && tp->addr > addr);
}

/*
 * The location whose lines are under way, else the first after it (with
 * @is_static, static tracepoints only): by number, then address, which is
 * how gdb orders its tracepoints and one tracepoint's locations when it
 * downloads them.  NULL past the last one.
 */
static struct gtp_tp *defs_tp(struct gtp_stream *s, bool is_static)
{
	struct defs_cursor *dc = &s->dc;
	struct gtp_tp *tp, *next = NULL;

	if (s->dc_tp && !dc->tp_done)
		return s->dc_tp;
	for (tp = gtp_tps; tp; tp = tp->next) {
		if (is_static && !tp->is_static)
			continue;
		if (dc->have_tp && !tp_after(tp, dc->num, dc->addr)) {
			if (!dc->tp_done && tp->num == dc->num &&
			    tp->addr == dc->addr) {
				s->dc_tp = tp;
				return tp;
			}
			continue;
		}
		if (!next || tp_after(next, tp->num, tp->addr))
			next = tp;
	}
	if (next) {
		dc->have_tp = true;
		dc->tp_done = false;
		dc->num = next->num;
		dc->addr = next->addr;
		dc->sub = 0;
	}
	s->dc_tp = next;
	return next;
}

/*
 * The next "tp PIECE" line, PIECE one qTfP/qTsP piece (tp_upload.c
 * formats both); 1 past the last one.
 */
static int defs_tp_piece(struct gtp_stream *s)
{
	struct gtp_tp *tp;
	size_t n, room;
	char *p;
	int m;

	for (;;) {
		tp = defs_tp(s, false);
		if (!tp)
			return 1;
		p = defs_start(s, "tp ", &n, &room);
		if (!p)
			return -ENOSPC;
		m = gtp_tp_format_piece(tp, s->dc.sub, p, room);
		if (m != -ENOENT)
			break;
		s->dc.tp_done = true;
	}
	if (m < 0)
		return m;
	if (defs_commit(s, n + m))
		return -ENOSPC;
	s->dc.sub++;
	return 0;
}

/*
 * The next static tracepoint's "sdata NUM FIELDS" line: its $_sdata
 * field names (none if its marker is gone); 1 past the last one.
 */
static int defs_sdata(struct gtp_stream *s)
{
	char prefix[sizeof("sdata ffffffff ")];
	struct gtp_tp *tp = defs_tp(s, true);
	size_t n, room;
	char *p;
	int m;

	if (!tp)
		return 1;
	snprintf(prefix, sizeof(prefix), "sdata %x ", tp->num);
	p = defs_start(s, prefix, &n, &room);
	if (!p)
		return -ENOSPC;
	m = gtp_host->sdata_fields(tp->addr, p, room);
	if (m < 0)
		m = 0;
	else if ((size_t)m + 1 >= room)
		return -ENOSPC;	/* filled up: perhaps cut short */
	if (defs_commit(s, n + m))
		return -ENOSPC;
	s->dc.tp_done = true;
	return 0;
}

/* The next line of the run's definitions, or the next part of them. */
static int defs_step(struct gtp_stream *s)
{
	struct defs_cursor *dc = &s->dc;
	int ret;

	switch (dc->part) {
	case DEFS_HEAD:
		ret = defs_head(s);
		break;
	case DEFS_TSVS:
		ret = defs_tsv(s);
		break;
	case DEFS_TPS:
		ret = defs_tp_piece(s);
		break;
	case DEFS_SDATA:
		ret = defs_sdata(s);
		break;
	case DEFS_END:
		/* tells the reader the definitions are all there */
		ret = defs_printf(s, "end");
		break;
	default:
		return 1;
	}
	if (ret < 0 || (ret == 0 && dc->part != DEFS_HEAD &&
			dc->part != DEFS_END))
		return ret;
	/* a part done: the next one, from its start */
	dc->part++;
	dc->have_tp = false;
	s->dc_tp = NULL;
	return 0;
}

static void set_record(struct gtp_stream *s, u16 type, u16 cpu,
		       const void *payload, u32 len)
{
	memset(&s->hdr, 0, sizeof(s->hdr));
	s->hdr.magic = GTP_STREAM_MAGIC;
	s->hdr.type = type;
	s->hdr.cpu = cpu;
	s->hdr.len = len;
	s->hdr.run = s->run;
	s->payload = payload;
	s->off = 0;
	s->busy = true;
}

/*
 * The run's next DEFS piece: as many whole lines as fit.  -EMSGSIZE if a
 * line is too long for a piece of its own (none is: a tp line is one
 * qTfP piece); the cursor stays on it, so every read says so again
 * rather than hand out records of a run that was never described.
 */
static int defs_piece(struct gtp_stream *s)
{
	int ret = 0;

	s->defs_len = 0;
	s->dc_tp = NULL;		/* the list may have changed since */
	while (s->dc.part != DEFS_DONE) {
		ret = defs_step(s);
		if (ret)
			break;
	}
	if (ret == -ENOSPC && !s->defs_len)
		return -EMSGSIZE;
	if (ret && ret != -ENOSPC)
		return ret;
	/* NUL padding to the record's 8-byte multiple */
	while (s->defs_len % 8)
		s->defs[s->defs_len++] = '\0';
	set_record(s, GTP_STREAM_DEFS, 0, s->defs, s->defs_len);
	s->hdr.ts_begin = gtp_frames_start_tsc();
	s->hdr.seq = s->dc.seq++;
	return 0;
}

/* A new run: forget the old one's CPUs, describe the new one. */
static int start_run(struct gtp_stream *s, u32 run)
{
	unsigned int ncpus = gtp_frames_nr_cpus();
	u32 size = gtp_frames_subbuf_size();

	if (ncpus != s->ncpus) {
		gtp_free(s->ended);
		s->ncpus = 0;
		s->ended = gtp_zalloc(ncpus ? ncpus : 1);
		if (!s->ended)
			return -ENOMEM;
		s->ncpus = ncpus;
	}
	if (size > s->chunk_size) {
		gtp_vfree(s->chunk);
		s->chunk_size = 0;
		s->chunk = gtp_vzalloc(size);
		if (!s->chunk)
			return -ENOMEM;
		s->chunk_size = size;
	}
	memset(s->ended, 0, s->ncpus);
	s->nended = 0;
	s->next_cpu = 0;
	s->run = run;
	memset(&s->dc, 0, sizeof(s->dc));
	s->dc.part = DEFS_HEAD;
	return defs_piece(s);
}

/* Set up the next record; -EAGAIN if there is none now. */
static int next_record(struct gtp_stream *s)
{
	struct gtp_frame_chunk c;
	unsigned int i, cpu;
	u32 run = gtp_frames_run();
	bool drain;
	int ret;

	if (!run || !gtp_frames_nr_cpus())
		return -EAGAIN;
	if (run != s->run)
		return start_run(s, run);
	/* all of the run's definitions before any of its frames */
	if (s->dc.part != DEFS_DONE)
		return defs_piece(s);
	if (s->nended == s->ncpus)
		return -EAGAIN;		/* this run is over: wait for the next */
	drain = gtp_trace_frames_readable();
	for (i = 0; i < s->ncpus; i++) {
		cpu = (s->next_cpu + i) % s->ncpus;
		if (s->ended[cpu])
			continue;
		for (;;) {
			ret = gtp_frames_take(cpu, drain, s->chunk,
					      s->chunk_size, &c);
			if (ret || c.len)
				break;	/* a sub-buffer of padding: next */
		}
		if (ret == -ENODATA) {
			s->ended[cpu] = 1;
			s->nended++;
			set_record(s, GTP_STREAM_END, cpu, NULL, 0);
			s->hdr.lost = gtp_frames_cpu_lost(cpu);
			return 0;
		}
		if (ret)
			continue;
		s->next_cpu = cpu + 1;
		set_record(s, GTP_STREAM_PACKET, cpu, s->chunk, c.len);
		s->hdr.ts_begin = c.ts_begin;
		s->hdr.ts_end = c.ts_end;
		s->hdr.seq = c.seq;
		s->hdr.lost = c.lost;
		return 0;
	}
	return -EAGAIN;
}

/**
 * gtp_stream_read() - hand out up to @count bytes of the record stream
 * @s: the consumer
 * @copy: how bytes reach the reader
 * @ctx: for @copy
 * @count: room in the reader's buffer
 *
 * Return: bytes handed out; -EAGAIN if none are ready; -EMSGSIZE if a
 * line of a run's definitions exceeds a DEFS piece; -ENOMEM; or @copy's
 * error.
 */
long gtp_stream_read(struct gtp_stream *s, gtp_stream_copy_t copy, void *ctx,
		     size_t count)
{
	size_t done = 0, n, hlen = sizeof(s->hdr);
	int ret = 0;

	while (done < count) {
		if (!s->busy) {
			ret = next_record(s);
			if (ret)
				break;
		}
		if (s->off < hlen) {
			n = min_t(size_t, hlen - s->off, count - done);
			ret = copy(ctx, done, (const u8 *)&s->hdr + s->off, n);
		} else {
			n = min_t(size_t, hlen + s->hdr.len - s->off,
				  count - done);
			ret = copy(ctx, done, s->payload + (s->off - hlen), n);
		}
		if (ret)
			break;
		done += n;
		s->off += n;
		if (s->off == hlen + s->hdr.len)
			s->busy = false;
	}
	if (done)
		return done;
	return ret;
}
