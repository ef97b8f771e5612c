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

#define DEFS_MAX	(4u << 20)	/* 1024 tracepoints' pieces fit */
/* A tsv or tp piece: at most what one qTfV/qTfP reply carries */
#define PIECE_MAX	(RSP_PKT_MAX + 1)

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
	char *defs;
	size_t defs_len;
	char *piece;			/* [PIECE_MAX]: one piece's text */
};

struct gtp_stream *gtp_stream_open(void)
{
	struct gtp_stream *s = gtp_zalloc(sizeof(*s));

	if (!s)
		return NULL;
	s->defs = gtp_vzalloc(DEFS_MAX);
	s->piece = gtp_malloc(PIECE_MAX);
	if (!s->defs || !s->piece) {
		gtp_stream_close(s);
		return NULL;
	}
	/*
	 * A run that already ended is gdb's to look at: stream the running
	 * one, or wait for the next.
	 */
	if (!gtp_trace_running())
		s->run = gtp_frames_run();
	gtp_frames_set_consumer(true);
	return s;
}

void gtp_stream_close(struct gtp_stream *s)
{
	if (!s)
		return;
	gtp_frames_set_consumer(false);
	gtp_vfree(s->defs);
	gtp_free(s->piece);
	gtp_vfree(s->chunk);
	gtp_free(s->ended);
	gtp_free(s);
}

/* Append printf output to the DEFS text; false once it is full. */
static bool __attribute__((format(printf, 2, 3)))
defs_printf(struct gtp_stream *s, const char *fmt, ...)
{
	size_t room = DEFS_MAX - s->defs_len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(s->defs + s->defs_len, room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room)
		return false;
	s->defs_len += n;
	return true;
}

/*
 * One "tsv PIECE" line per trace state variable, PIECE what qTfV/qTsV
 * answer for it (tsv.c formats both); false once the text is full.
 */
static bool defs_tsvs(struct gtp_stream *s)
{
	u32 i;
	int n;

	for (i = 0; (n = gtp_tsv_format(i, s->piece, PIECE_MAX)) >= 0; i++)
		if (n >= PIECE_MAX || !defs_printf(s, "tsv %s\n", s->piece))
			return false;
	return true;
}

/* One "tp PIECE" line per qTfP/qTsP piece (tp_upload.c formats both). */
static bool defs_tps(struct gtp_stream *s)
{
	const struct gtp_tp *tp;
	u32 sub;
	int n;

	for (tp = gtp_tps; tp; tp = tp->next) {
		for (sub = 0;; sub++) {
			n = gtp_tp_format_piece(tp, sub, s->piece, PIECE_MAX);
			if (n == -ENOENT)
				break;
			if (n >= PIECE_MAX ||
			    !defs_printf(s, "tp %s\n", s->piece))
				return false;
		}
	}
	return true;
}

/* The DEFS text of the current run; false if it does not fit. */
static bool build_defs(struct gtp_stream *s)
{
	struct gtp_frame_stats st;
	struct gtp_tp *tp;
	u64 tsc, real, mono;
	char *line;
	bool ok;

	s->defs_len = 0;
	/* the three clocks as close together as we can read them */
	mono = gtp_mono_ns();
	tsc = gtp_tsc();
	real = gtp_real_us();
	gtp_frames_stats(&st);
	ok = defs_printf(s, "gtp-stream %d\nrun %u\n", GTP_STREAM_VERSION,
			 s->run) &&
	     defs_printf(s, "clock tsc_khz=%lu tsc=%llu real_ns=%llu mono_ns=%llu\n",
			 (unsigned long)gtp_tsc_khz(), (unsigned long long)tsc,
			 (unsigned long long)real * 1000,
			 (unsigned long long)mono) &&
	     defs_printf(s, "cpus %u\nbuffer size=%llu subbuf=%u circular=%d\n",
			 s->ncpus, (unsigned long long)st.size,
			 gtp_frames_subbuf_size(), st.circular) &&
	     defs_tsvs(s) && defs_tps(s);
	for (tp = gtp_tps; ok && tp; tp = tp->next) {
		size_t room;
		int n;

		if (!tp->is_static)
			continue;
		ok = defs_printf(s, "sdata %x ", tp->num);
		line = s->defs + s->defs_len;
		room = DEFS_MAX - s->defs_len;
		n = ok ? gtp_host->sdata_fields(tp->addr, line, room) : 0;
		if (n < 0 || (size_t)n >= room)
			n = 0;
		s->defs_len += n;
		ok = ok && defs_printf(s, "\n");
	}
	/* NUL padding to the record's 8-byte multiple */
	while (ok && s->defs_len % 8)
		s->defs[s->defs_len++] = '\0';
	return ok;
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
	if (!build_defs(s))
		return -E2BIG;
	set_record(s, GTP_STREAM_DEFS, 0, s->defs, s->defs_len);
	s->hdr.ts_begin = gtp_frames_start_tsc();
	return 0;
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
 * Return: bytes handed out; -EAGAIN if none are ready; -E2BIG if a run's
 * definitions exceed what a DEFS record holds; -ENOMEM; or @copy's error.
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
