// SPDX-License-Identifier: GPL-2.0
/*
 * test_stream.c - the live consumer (core/stream.c) on the real frame
 * store: records taken while hits keep coming, a full buffer that drops
 * instead of stopping while a consumer is attached, the drain and END
 * records after QTStop, and a byte stream that survives any read size.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "user_host.h"
#include "packets.h"
#include "trace.h"
#include "tracepoint.h"
#include "tsv.h"
#include "frame.h"
#include "ring.h"
#include "stream.h"
#include "collect.h"
#include "user_env.h"

#define ADDR16		"ffffffffc0000170"
#define ADDR		0xffffffffc0000170ull

static struct gtp_conn *gc;
static u8 scratch[GTP_SCRATCH_SIZE];

/* One packet straight to the dispatcher (no framing): its reply. */
static const char *ask(const char *pkt)
{
	static char in[RSP_PKT_MAX], reply[RSP_PKT_MAX + 1];
	struct rsp_conn *c = gtp_rsp(gc);

	snprintf(in, sizeof(in), "%s", pkt);
	rsp_reply_reset(c);
	gtp_dispatch(gc, in, strlen(in));
	memcpy(reply, c->reply, c->reply_len);
	reply[c->reply_len] = '\0';
	return reply;
}

static int setup(void **state)
{
	gtp_packets_init();
	gtp_trace_init();
	user_env_reset();
	gc = gtp_conn_open();
	assert_non_null(gc);
	assert_string_equal(ask("QTinit"), "OK");
	/* 8 KiB: 1 KiB sub-buffers hold five 192-byte records each */
	assert_string_equal(ask("QTBuffer:size:2000"), "OK");
	assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:0"), "OK");
	/* every general register: an 'R' block (regs.h), rdi at 5 * 8 */
	assert_string_equal(ask("QTDP:-1:" ADDR16 ":R1ffff"), "OK");
	return 0;
}

static int teardown(void **state)
{
	ask("QTStop");
	ask("QTinit");
	gtp_conn_close(gc);
	return 0;
}

/* Hit @n of tracepoint 1: rdi carries the number. */
static bool hit(u64 n)
{
	struct pt_regs regs = { .di = n, .ip = ADDR + 1 };

	return gtp_tp_hit(gtp_tp_find(1, ADDR), &regs, scratch,
			  sizeof(scratch));
}

/* What a reader reassembled from the byte stream. */
struct seen {
	u8 buf[1 << 17];		/* a 64 KiB DEFS piece and more */
	size_t len;
	unsigned int defs, packets, ends;
	u64 frames, next_rdi, lost;
	bool in_order;
	/* the run's DEFS pieces so far, NUL padding dropped */
	char defs_text[1 << 20];
	size_t defs_len;
	u32 defs_run;
	u64 defs_seq;			/* the next piece's */
	bool defs_open;			/* pieces came, "end" not yet */
	u32 defs_max;			/* the longest piece's payload */
};

static int copy_out(void *ctx, size_t off, const void *src, size_t n)
{
	memcpy((u8 *)ctx + off, src, n);
	return 0;
}

/* Parse every complete record at the head of @s->buf. */
static void parse(struct seen *s)
{
	struct gtp_stream_rec h;
	size_t used = 0;

	while (s->len - used >= sizeof(h)) {
		memcpy(&h, s->buf + used, sizeof(h));
		assert_int_equal(h.magic, GTP_STREAM_MAGIC);
		assert_int_equal(h.len % 8, 0);
		if (s->len - used < sizeof(h) + h.len)
			break;
		if (h.type == GTP_STREAM_DEFS) {
			const char *text = (char *)s->buf + used + sizeof(h);
			size_t n = strnlen(text, h.len);

			s->defs++;
			/* piece 0 starts a run's; the rest follow in order */
			if (h.seq == 0) {
				s->defs_len = 0;
				s->defs_run = h.run;
			} else {
				assert_true(s->defs_open);
				assert_int_equal(h.run, s->defs_run);
				assert_int_equal(h.seq, s->defs_seq);
			}
			s->defs_seq = h.seq + 1;
			/* whole lines, at most 64 KiB, then padding only */
			assert_true(h.len <= 64 << 10);
			assert_true(n > 0 && text[n - 1] == '\n');
			assert_true(h.len - n < 8);
			s->defs_max = max(s->defs_max, h.len);
			assert_true(s->defs_len + n < sizeof(s->defs_text));
			memcpy(s->defs_text + s->defs_len, text, n);
			s->defs_len += n;
			s->defs_text[s->defs_len] = '\0';
			s->defs_open = !(n == 4 && !memcmp(text, "end\n", 4)) &&
				       !(n > 4 && !memcmp(text + n - 5, "\nend\n", 5));
		} else if (h.type == GTP_STREAM_PACKET) {
			const u8 *p = s->buf + used + sizeof(h);
			const struct ring_record *rec;
			u32 off = 0;
			u64 rdi;

			/* a run's frames only once it is described */
			assert_false(s->defs_open);
			s->packets++;
			while (off < h.len) {
				rec = (const void *)(p + off);
				/* frame: tpnum, size, 'R', rax..rdi */
				memcpy(&rdi, p + off + sizeof(*rec) + 7 + 5 * 8, 8);
				if (rdi != s->next_rdi)
					s->in_order = false;
				s->next_rdi = rdi + 1;
				s->frames++;
				off += ring_record_size(rec->len);
			}
			assert_int_equal(off, h.len);
			s->lost = h.lost;
		} else {
			assert_int_equal(h.type, GTP_STREAM_END);
			assert_false(s->defs_open);
			s->ends++;
			s->lost = h.lost;
		}
		used += sizeof(h) + h.len;
	}
	memmove(s->buf, s->buf + used, s->len - used);
	s->len -= used;
}

/* Read everything there is now, @chunk bytes at a time. */
static void drain(struct gtp_stream *st, struct seen *s, size_t chunk)
{
	long n;

	while ((n = gtp_stream_read(st, copy_out, s->buf + s->len,
				    min(chunk, sizeof(s->buf) - s->len))) > 0) {
		s->len += n;
		parse(s);
	}
	assert_int_equal(n, -EAGAIN);
}

/* A consumer that keeps up loses nothing, in order, across many laps. */
static void test_stream_keeps_up(void **state)
{
	struct gtp_stream *st = gtp_stream_open();
	static struct seen s = { .in_order = true, .next_rdi = 1 };
	u64 i;

	assert_non_null(st);
	drain(st, &s, 4096);
	assert_int_equal(s.defs, 0);		/* no run yet */
	assert_string_equal(ask("QTStart"), "OK");
	for (i = 1; i <= 1000; i++) {
		assert_true(hit(i));
		if (i % 10 == 0)
			drain(st, &s, 4096);
	}
	assert_int_equal(s.defs, 1);
	assert_non_null(strstr(s.defs_text, "gtp-stream 3\nrun "));
	assert_non_null(strstr(s.defs_text, "\ncpus 1\n"));
	assert_non_null(strstr(s.defs_text, "\ntp T1:" ADDR16 ":E:0:0\n"));
	assert_non_null(strstr(s.defs_text, "\ntp A1:" ADDR16 ":R1ffff\nend\n"));
	/* complete sub-buffers only while running: the last partial waits */
	assert_true(s.frames >= 995 && s.frames < 1000);
	assert_int_equal(s.ends, 0);
	assert_string_equal(ask("QTStop"), "OK");
	drain(st, &s, 4096);
	assert_int_equal(s.frames, 1000);
	assert_true(s.in_order);
	assert_int_equal(s.ends, 1);
	assert_int_equal(s.lost, 0);
	/* what the consumer took is gone for gdb */
	assert_memory_equal(ask("qTStatus"), "T0;tstop::0;tframes:0;", 22);
	gtp_stream_close(st);
}

/* A run that ended before the consumer came is left to gdb. */
static void test_stream_skips_ended_run(void **state)
{
	static struct seen s = { .in_order = true, .next_rdi = 1 };
	struct gtp_stream *st;
	u64 i;

	assert_string_equal(ask("QTStart"), "OK");
	for (i = 1; i <= 20; i++)
		assert_true(hit(i));
	assert_string_equal(ask("QTStop"), "OK");
	st = gtp_stream_open();
	assert_non_null(st);
	drain(st, &s, 4096);
	assert_int_equal(s.len + s.defs + s.frames, 0);
	assert_memory_equal(ask("qTStatus"), "T0;tstop::0;tframes:14;", 23);
	/* the next run is streamed */
	assert_string_equal(ask("QTStart"), "OK");
	assert_true(hit(1));
	assert_string_equal(ask("QTStop"), "OK");
	drain(st, &s, 4096);
	assert_int_equal(s.defs, 1);
	assert_int_equal(s.frames, 1);
	assert_int_equal(s.ends, 1);
	gtp_stream_close(st);
}

/* Nobody reading: the full buffer drops and counts, the trace runs on. */
static void test_stream_full_drops(void **state)
{
	struct gtp_stream *st = gtp_stream_open();
	static struct seen s = { .in_order = true, .next_rdi = 1 };
	u64 i;

	assert_non_null(st);
	assert_string_equal(ask("QTStart"), "OK");
	for (i = 1; i <= 1000; i++)
		hit(i);
	assert_memory_equal(ask("qTStatus"), "T1;", 3);
	assert_string_equal(ask("QTStop"), "OK");
	/* one byte at a time: records split anywhere still parse */
	drain(st, &s, 1);
	assert_int_equal(s.defs, 1);
	assert_int_equal(s.ends, 1);
	assert_true(s.frames >= 30 && s.frames <= 40);
	assert_int_equal(s.frames + s.lost, 1000);
	assert_true(s.in_order);		/* the oldest kept, no gaps */
	gtp_stream_close(st);
	/* without a consumer a full buffer stops the trace again */
	assert_string_equal(ask("QTStart"), "OK");
	for (i = 1; i <= 1000 && hit(i); i++)
		;
	assert_memory_equal(ask("qTStatus"), "T0;tfull:0;", 11);
}

/* A new run under a consumer that is mid-record: the stream stays whole. */
static void test_stream_new_run(void **state)
{
	struct gtp_stream *st = gtp_stream_open();
	static struct seen s = { .in_order = true, .next_rdi = 1 };
	long n;
	u64 i;

	assert_non_null(st);
	assert_string_equal(ask("QTStart"), "OK");
	for (i = 1; i <= 20; i++)
		assert_true(hit(i));
	/* half a DEFS record, then a QTStart resets the ring */
	n = gtp_stream_read(st, copy_out, s.buf, 100);
	assert_int_equal(n, 100);
	s.len = n;
	assert_string_equal(ask("QTStart"), "OK");
	for (i = 1; i <= 20; i++)
		assert_true(hit(i));
	assert_string_equal(ask("QTStop"), "OK");
	drain(st, &s, 333);
	assert_int_equal(s.defs, 2);
	assert_int_equal(s.ends, 1);
	assert_int_equal(s.frames, 20);		/* the second run's */
	assert_true(s.in_order);
	gtp_stream_close(st);
}

/* Every line of @text starting with @prefix, in order. */
static size_t lines_with(const char *text, const char *prefix, char *out,
			 size_t size)
{
	const char *p = text, *nl;
	size_t n = 0, len;

	for (; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		assert_non_null(nl);
		len = nl + 1 - p;
		if (strncmp(p, prefix, strlen(prefix)))
			continue;
		assert_true(n + len < size);
		memcpy(out + n, p, len);
		n += len;
	}
	out[n] = '\0';
	return n;
}

/* "PREFIX reply\n" for each reply to @first, then @next... until "l". */
static void upload_lines(const char *prefix, const char *first,
			 const char *next, char *out, size_t size)
{
	const char *r = ask(first);
	size_t n = 0;

	while (strcmp(r, "l")) {
		assert_true(strlen(r) > 0 && r[0] != 'E');
		n += snprintf(out + n, size - n, "%s %s\n", prefix, r);
		assert_true(n < size);
		r = ask(next);
	}
}

/*
 * The DEFS record's trace state variables and tracepoints are, byte for
 * byte and in order, what qTfV/qTsV and qTfP/qTsP hand gdb: gtp-ctl's
 * stream reader (gdb-scripts/gtpctl/stream_defs.py) parses them with the
 * same code as an upload.
 */
static void test_stream_defs_match_upload(void **state)
{
	static struct seen s = { .in_order = true, .next_rdi = 1 };
	static char want[4096], got[4096];
	struct gtp_stream *st;

	/* tracepoint 1 (setup) gets a source string; 2 is disabled with a
	 * condition and two actions; 3 is static */
	assert_string_equal(ask("QTDPsrc:1:" ADDR16 ":at:0:4:776f726b"), "OK");
	assert_string_equal(ask("QTDP:2:ffffffffc0000200:D:0:7:X3,220127"),
			    "OK");
	assert_string_equal(ask("QTDP:-2:ffffffffc0000200:R0f-"), "OK");
	assert_string_equal(ask("QTDP:-2:ffffffffc0000200:X4,2e000127"), "OK");
	assert_string_equal(ask("QTDPsrc:2:ffffffffc0000200:cond:0:6:"
				"78203e3d2030"), "OK");
	assert_string_equal(ask("QTDPsrc:2:ffffffffc0000200:cmd:0:2:6162"),
			    "OK");
	assert_string_equal(ask("QTDP:3:ffffffffc0000300:E:0:0:S"), "OK");
	assert_string_equal(ask("QTDP:-3:ffffffffc0000300:R01"), "OK");
	assert_string_equal(ask("QTDV:1:0000000000000005:0:68697473"), "OK");
	assert_string_equal(ask("QTDV:2:ffffffffffffffff:0:6d696e7573"), "OK");
	assert_string_equal(ask("QTDV:1f:0000000000000000:1:"
				"6770745f6275696c74696e"), "OK");

	st = gtp_stream_open();
	assert_non_null(st);
	assert_string_equal(ask("QTStart"), "OK");
	drain(st, &s, 4096);
	assert_int_equal(s.defs, 1);

	upload_lines("tsv", "qTfV", "qTsV", want, sizeof(want));
	lines_with(s.defs_text, "tsv ", got, sizeof(got));
	assert_string_equal(got, want);
	assert_non_null(strstr(got, "tsv 2:ffffffffffffffff:0:6d696e7573\n"));
	/* cut short as snprintf() is: the whole length, a terminated prefix */
	assert_int_equal(gtp_tsv_format(1, got, 12), 31);
	assert_string_equal(got, "2:fffffffff");
	assert_int_equal(gtp_tsv_format(1, got, 26), 31);
	assert_string_equal(got, "2:ffffffffffffffff:0:6d69");
	assert_int_equal(gtp_tsv_format(3, got, sizeof(got)), -ENOENT);

	upload_lines("tp", "qTfP", "qTsP", want, sizeof(want));
	lines_with(s.defs_text, "tp ", got, sizeof(got));
	assert_string_equal(got, want);
	assert_non_null(strstr(got, "tp T3:ffffffffc0000300:E:0:0:S\n"));
	assert_non_null(strstr(got, "tp Z2:ffffffffc0000200:cmd:0:2:6162\n"));
	/* the variables, then the tracepoints, then the static one's fields */
	assert_non_null(strstr(s.defs_text,
		"\ntsv 1f:0:1:6770745f6275696c74696e\ntp T1:"));
	assert_non_null(strstr(s.defs_text,
		"\nsdata 3 counter1:4:s counter2:4:s\n"));
	gtp_stream_close(st);
}

#define MANY_TPS	300
#define MEM_ACTIONS	100	/* "M-1,ffffffffc0001000,8" each */

/*
 * Tracepoints 2..MANY_TPS+1, each with MEM_ACTIONS memory ranges in one
 * action packet: some 700 KiB of definitions, a dozen DEFS pieces.
 */
static void define_many(void)
{
	static char pkt[RSP_PKT_MAX];
	u32 num, i;
	int n;

	for (num = 2; num < MANY_TPS + 2; num++) {
		u64 addr = ADDR + 0x1000 + 0x10 * num;

		snprintf(pkt, sizeof(pkt), "QTDP:%x:%llx:E:0:0", num,
			 (unsigned long long)addr);
		assert_string_equal(ask(pkt), "OK");
		n = snprintf(pkt, sizeof(pkt), "QTDP:-%x:%llx:", num,
			     (unsigned long long)addr);
		for (i = 0; i < MEM_ACTIONS; i++)
			n += snprintf(pkt + n, sizeof(pkt) - n,
				      "M-1,%llx,8", ADDR + 8 * i);
		assert_true(n < (int)sizeof(pkt));
		assert_string_equal(ask(pkt), "OK");
	}
	/* sub-buffers that hold their frames */
	assert_string_equal(ask("QTBuffer:size:40000"), "OK");
}

/*
 * Definitions longer than a DEFS piece come in several, whole lines of at
 * most 64 KiB each, numbered in order (parse() checks all that), and the
 * run's frames only after the last one, which ends with "end".  Put
 * together they hold every tracepoint, as qTfP hands them out.
 */
static void test_stream_defs_pieces(void **state)
{
	static struct seen s = { .in_order = true, .next_rdi = 1 };
	static char want[1 << 20], got[1 << 20];
	struct gtp_stream *st;
	u64 i;

	define_many();
	st = gtp_stream_open();
	assert_non_null(st);
	assert_string_equal(ask("QTStart"), "OK");
	for (i = 1; i <= 20; i++)
		assert_true(hit(i));
	assert_string_equal(ask("QTStop"), "OK");
	drain(st, &s, 5000);
	assert_true(s.defs >= 10);
	assert_int_equal(s.defs_seq, s.defs);
	assert_false(s.defs_open);
	assert_true(s.defs_max > (60 << 10) && s.defs_max <= (64 << 10));
	assert_true(s.defs_len > 10 * (64 << 10));
	assert_int_equal(s.frames, 20);
	assert_true(s.in_order);
	assert_int_equal(s.ends, 1);

	assert_memory_equal(s.defs_text, "gtp-stream 3\nrun ", 17);
	assert_string_equal(s.defs_text + s.defs_len - 5, "\nend\n");
	upload_lines("tp", "qTfP", "qTsP", want, sizeof(want));
	lines_with(s.defs_text, "tp ", got, sizeof(got));
	assert_string_equal(got, want);
	assert_non_null(strstr(got, "\ntp T12d:"));	/* the last one */
	gtp_stream_close(st);
}

/* A QTStart between two pieces: the new run's pieces start over from 0. */
static void test_stream_defs_cut(void **state)
{
	static struct seen s = { .in_order = true, .next_rdi = 1 };
	struct gtp_stream *st;
	u32 run;

	define_many();
	st = gtp_stream_open();
	assert_non_null(st);
	assert_string_equal(ask("QTStart"), "OK");
	/* piece 0 and the start of piece 1 */
	s.len = gtp_stream_read(st, copy_out, s.buf, (64 << 10) + 100);
	assert_int_equal(s.len, (64 << 10) + 100);
	parse(&s);
	assert_int_equal(s.defs, 1);
	assert_true(s.defs_open);
	run = s.defs_run;
	assert_string_equal(ask("QTStart"), "OK");
	assert_true(hit(1));
	assert_string_equal(ask("QTStop"), "OK");
	drain(st, &s, 4096);
	assert_int_equal(s.defs_run, run + 1);
	assert_false(s.defs_open);
	assert_int_equal(s.frames, 1);
	/* pieces 0 and 1 of the first run (1 was under way), all of this one */
	assert_int_equal(s.defs, 2 + s.defs_seq);
	assert_non_null(strstr(s.defs_text, "\ntp T12d:"));

	/*
	 * Again, and QTinit before piece 1: the frame store is gone, nothing
	 * more of that run comes; the next run's pieces start over.
	 */
	assert_string_equal(ask("QTStart"), "OK");
	s.defs = 0;
	s.len = gtp_stream_read(st, copy_out, s.buf, 1000);
	assert_int_equal(s.len, 1000);
	assert_string_equal(ask("QTStop"), "OK");
	assert_string_equal(ask("QTinit"), "OK");
	drain(st, &s, 4096);
	assert_int_equal(s.defs, 1);
	assert_true(s.defs_open);
	assert_string_equal(ask("QTDP:7:" ADDR16 ":E:0:0"), "OK");
	assert_string_equal(ask("QTStart"), "OK");
	assert_string_equal(ask("QTStop"), "OK");
	drain(st, &s, 4096);
	assert_int_equal(s.defs, 2);
	assert_false(s.defs_open);
	assert_int_equal(s.defs_run, run + 3);
	assert_non_null(strstr(s.defs_text, "\ntp T7:" ADDR16 ":E:0:0\nend\n"));
	assert_int_equal(s.ends, 2);
	gtp_stream_close(st);
}

/*
 * @pkt's reply, and in @said the text of the console lines ('O' packets)
 * it sent before it, which ask() leaves in the output queue.
 */
static const char *ask_said(const char *pkt, char *said, size_t size)
{
	static char out[RSP_OUT_MAX + 1];
	struct rsp_conn *c = gtp_rsp(gc);
	const char *p, *hash, *r;
	size_t n = 0;

	rsp_out_read(c, out, sizeof(out) - 1);	/* what earlier asks said */
	r = ask(pkt);
	out[rsp_out_read(c, out, sizeof(out) - 1)] = '\0';
	for (p = out; (p = strstr(p, "$O")) && (hash = strchr(p, '#'));
	     p = hash) {
		int len = (hash - p - 2) / 2;

		assert_true(n + len < size);
		assert_int_equal(rsp_hex2bin(p + 2, 2 * len, (u8 *)said + n),
				 len);
		n += len;
	}
	said[n] = '\0';
	return r;
}

/* rdi of the 'g' reply @r (hits carry their number in rdi). */
static u64 g_rdi(const char *r)
{
	u8 b[8];
	u64 v;

	assert_int_equal(strlen(r), 2 * GTP_G_SIZE);
	assert_int_equal(rsp_hex2bin(r + 2 * 40, 16, b), 8);
	memcpy(&v, b, 8);
	return v;
}

/*
 * gdb looks at the frames of a run that has stopped while the stream
 * drains them: what the stream took is gone from the store and the frames
 * left are numbered anew, so neither the frame gdb selected before nor a
 * qTBuffer read under way (tsave) may answer from whatever now has that
 * number or offset.  Each fails, saying why, until gdb selects a frame
 * (the first selection fails too: "tfind" asks for the frame after the
 * one gdb thinks it is on) or starts the read again from 0; from then on
 * the numbers are those of the frames left.
 */
static void test_stream_drain_under_gdb(void **state)
{
	static struct seen s = { .in_order = true, .next_rdi = 1 };
	struct gtp_stream *st = gtp_stream_open();
	char said[1024];
	const char *r;
	long n;
	u64 i;

	assert_non_null(st);
	assert_string_equal(ask("QTStart"), "OK");
	for (i = 1; i <= 20; i++)
		assert_true(hit(i));
	assert_string_equal(ask("QTStop"), "OK");
	assert_memory_equal(ask("qTStatus"), "T0;tstop::0;tframes:14;", 23);
	/* tfind 12: hit 13; a tsave has read its first piece */
	assert_string_equal(ask("QTFrame:c"), "FcT1");
	assert_int_equal(g_rdi(ask("g")), 13);
	r = ask("qTBuffer:0,40");
	assert_int_equal(strlen(r), 0x80);

	/* the stream takes the oldest sub-buffer: hits 1 to 5 */
	while (!s.packets) {
		n = gtp_stream_read(st, copy_out, s.buf + s.len, 1);
		assert_int_equal(n, 1);
		s.len += n;
		parse(&s);
	}
	assert_int_equal(s.frames, 5);
	assert_memory_equal(ask("qTStatus"), "T0;tstop::0;tframes:f;", 22);

	/*
	 * frame 12 is now hit 18: nothing is read from it ('g': every
	 * register unavailable).  'g', 'm' and qXfer say nothing on the
	 * console: gdb would take the line for their reply.
	 */
	r = ask_said("g", said, sizeof(said));
	assert_int_equal(strlen(r), 2 * GTP_G_SIZE);
	assert_int_equal(strspn(r, "x"), 2 * GTP_G_SIZE);
	assert_string_equal(said, "");
	assert_string_equal(ask_said("mffffffffc0004074,4", said,
				     sizeof(said)), "E01");
	assert_string_equal(said, "");
	r = ask_said("qXfer:traceframe-info:read::0,1000", said, sizeof(said));
	assert_string_equal(r, "E01");
	assert_string_equal(said, "");
	assert_string_equal(ask_said("qTV:1", said, sizeof(said)), "E01");
	assert_non_null(strstr(said, "trace frame 12 is gone"));
	/* the tsave: its next piece would be another frame's bytes */
	r = ask_said("qTBuffer:40,40", said, sizeof(said));
	assert_string_equal(r, "E01");
	assert_non_null(strstr(said, "took frames"));
	assert_string_equal(ask("qTBuffer:80,40"), "E01");

	/* tfind: the frame after 12 of which numbers?  Refused once */
	r = ask_said("QTFrame:d", said, sizeof(said));
	assert_string_equal(r, "E01");
	assert_non_null(strstr(said, "trace frame 12 is gone"));
	assert_int_equal(strspn(ask("g"), "x"), 2 * GTP_G_SIZE); /* none */
	/* then a selection is one of the frames left */
	assert_string_equal(ask("QTFrame:d"), "FdT1");
	assert_int_equal(g_rdi(ask("g")), 19);
	assert_string_equal(ask("QTFrame:pc:" ADDR16), "FeT1");
	assert_int_equal(g_rdi(ask("g")), 20);
	assert_string_equal(ask("QTFrame:ffffffff"), "OK");
	/* and a tsave from the start reads them */
	assert_int_equal(strlen(ask("qTBuffer:0,40")), 0x80);
	assert_int_equal(strlen(ask("qTBuffer:40,40")), 0x80);

	/* a selection after the drain is not affected by a later one */
	assert_string_equal(ask("QTFrame:0"), "F0T1");
	assert_int_equal(g_rdi(ask("g")), 6);
	gtp_stream_close(st);
}

int main(void)
{
#define T(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_stream_keeps_up),
		T(test_stream_skips_ended_run),
		T(test_stream_full_drops),
		T(test_stream_new_run),
		T(test_stream_defs_match_upload),
		T(test_stream_defs_pieces),
		T(test_stream_defs_cut),
		T(test_stream_drain_under_gdb),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
