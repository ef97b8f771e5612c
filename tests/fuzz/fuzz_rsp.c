// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_rsp.c - libFuzzer harness of the RSP framer (module/core/rsp.c): the
 * input is the raw byte stream gdb (or anyone) writes to /proc/gtp.
 *
 * The bytes go through rsp_feed() in random pieces, and when it stops
 * short (output queue full) the reader drains some output first, exactly
 * as gtp_write() and gtp_read() do.  A test handler answers each packet
 * in a way derived from its contents (echo, hex, printf, console line,
 * no reply, no-ack mode), exercising every reply builder and their
 * overflow paths.
 *
 * The oracle is a separate model of the protocol (reference 2.1): it
 * parses the same bytes and builds the exact output gdb must read (acks,
 * naks, each reply framed and escaped, E01 for oversized packets and
 * replies).  Only console lines may be missing from the real output:
 * rsp_console() drops them when the queue is short of room.
 */
#include "harness.h"

/* ---- the handler under test ------------------------------------------- */

static void handler(struct rsp_conn *c, char *pkt, size_t len)
{
	switch (len ? pkt[0] : 0) {
	case 'k':
		c->no_reply = true;
		break;
	case 'N':
		c->noack = true;
		rsp_reply_str(c, "OK");
		break;
	case 'h':
		rsp_reply_hex(c, pkt, len);
		break;
	case 'p':
		rsp_reply_printf(c, "%zx;%s", len, pkt);
		break;
	case 'c':
		rsp_console(c, "%.*s", (int)len, pkt);
		rsp_reply_mem(c, pkt, len);
		break;
	case 'r':
		/* a reply started, then thrown away */
		rsp_reply_str(c, "E99");
		rsp_reply_reset(c);
		rsp_reply_mem(c, pkt, len);
		break;
	default:
		rsp_reply_mem(c, pkt, len);
		break;
	}
}

/* ---- the model: what must come out ------------------------------------ */

struct obuf {
	char *b;
	size_t len, cap;
};

static void put(struct obuf *o, const char *p, size_t n)
{
	if (o->len + n > o->cap) {
		o->cap = 2 * (o->len + n) + 4096;
		o->b = realloc(o->b, o->cap);
		assert_non_null(o->b);
	}
	memcpy(o->b + o->len, p, n);
	o->len += n;
}

static void put_framed(struct obuf *o, const char *data, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	char t[3];
	u8 sum = 0;
	size_t i;

	put(o, "$", 1);
	for (i = 0; i < n; i++) {
		char ch = data[i];

		if (ch == '#' || ch == '$' || ch == '}' || ch == '*') {
			put(o, "}", 1);
			sum += '}';
			ch ^= 0x20;
		}
		put(o, &ch, 1);
		sum += (u8)ch;
	}
	t[0] = '#';
	t[1] = hex[sum >> 4];
	t[2] = hex[sum & 0xf];
	put(o, t, 3);
}

/* Expected output, with console packets marked optional. */
struct expect {
	struct obuf out;
	/* offsets in out.b of optional console packets: [start, end) */
	size_t opt_start[4096], opt_end[4096];
	unsigned int nopt;
	bool opt_lost;		/* too many to track: skip the exact match */
	unsigned long interrupts, bad;
	bool noack;
};

/* The model's own, not rsp_hexval(): the oracle shares no code with rsp.c. */
static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

static void model_reply(struct expect *e, const char *pkt, size_t len)
{
	static char r[2 * RSP_PKT_MAX + 64];
	size_t n, i;

	switch (len ? pkt[0] : 0) {
	case 'k':
		return;
	case 'N':
		e->noack = true;
		put_framed(&e->out, "OK", 2);
		return;
	case 'h':
		if (2 * len > RSP_PKT_MAX) {
			put_framed(&e->out, "E01", 3);
			return;
		}
		for (i = 0; i < len; i++)
			sprintf(r + 2 * i, "%02x", (u8)pkt[i]);
		put_framed(&e->out, r, 2 * len);
		return;
	case 'p':
		n = snprintf(r, sizeof(r), "%zx;%.*s", len, (int)len, pkt);
		if (n > RSP_PKT_MAX)
			put_framed(&e->out, "E01", 3);
		else
			put_framed(&e->out, r, n);
		return;
	case 'c':
		n = min_t(size_t, strnlen(pkt, len), 255);
		r[0] = 'O';
		for (i = 0; i < n; i++)
			sprintf(r + 1 + 2 * i, "%02x", (u8)pkt[i]);
		if (e->nopt < ARRAY_SIZE(e->opt_start)) {
			e->opt_start[e->nopt] = e->out.len;
			put_framed(&e->out, r, 1 + 2 * n);
			e->opt_end[e->nopt++] = e->out.len;
		} else {
			e->opt_lost = true;
		}
		break;
	}
	put_framed(&e->out, pkt, len);
}

/* The protocol as documented, independently of rsp.c. */
static void model(struct expect *e, const u8 *data, size_t size)
{
	static char in[RSP_PKT_MAX + 1];
	enum { IDLE, DATA, ESC, CS1, CS2 } st = IDLE;
	size_t len = 0, i;
	bool over = false;
	int d1 = 0, d2;
	u8 sum = 0;

	for (i = 0; i < size; i++) {
		char ch = data[i];

		switch (st) {
		case IDLE:
			if (ch == '$') {
				st = DATA;
				sum = 0;
				len = 0;
				over = false;
			} else if (ch == '\x03') {
				e->interrupts++;
			}
			break;
		case DATA:
			if (ch == '$') {
				sum = 0;
				len = 0;
				over = false;
			} else if (ch == '#') {
				st = CS1;
			} else {
				sum += (u8)ch;
				if (ch == '}') {
					st = ESC;
					break;
				}
				if (len < RSP_PKT_MAX)
					in[len++] = ch;
				else
					over = true;
			}
			break;
		case ESC:
			sum += (u8)ch;
			if (len < RSP_PKT_MAX)
				in[len++] = ch ^ 0x20;
			else
				over = true;
			st = DATA;
			break;
		case CS1:
			d1 = hexval(ch);
			st = CS2;
			break;
		case CS2:
			d2 = hexval(ch);
			st = IDLE;
			if (d1 < 0 || d2 < 0 || (d1 << 4 | d2) != sum) {
				e->bad++;
				if (!e->noack)
					put(&e->out, "-", 1);
				break;
			}
			if (!e->noack)
				put(&e->out, "+", 1);
			if (over) {
				put_framed(&e->out, "E01", 3);
				break;
			}
			in[len] = '\0';
			model_reply(e, in, len);
			break;
		}
	}
}

/* The real output equals the expected one, console packets optional. */
static void compare(const struct expect *e, const struct obuf *got)
{
	size_t g = 0, x = 0;
	unsigned int k = 0;

	while (x < e->out.len) {
		if (k < e->nopt && x == e->opt_start[k]) {
			size_t n = e->opt_end[k] - x;

			if (got->len - g >= n &&
			    !memcmp(got->b + g, e->out.b + x, n))
				g += n;
			x += n;
			k++;
			continue;
		}
		FZ_CHECK(g < got->len && got->b[g] == e->out.b[x],
			 "output differs from the model at byte %zu (model's %zu): got 0x%02x, want 0x%02x",
			 g, x, g < got->len ? (u8)got->b[g] : 0,
			 (u8)e->out.b[x]);
		g++;
		x++;
	}
	FZ_CHECK(g == got->len, "%zu bytes of output beyond the model's",
		 got->len - g);
}

/* ---- the fuzz target --------------------------------------------------- */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fz_init();
	return 0;
}

/* gtp_read(): whatever the reader asks for, into @got. */
static void reader(struct rsp_conn *c, struct obuf *got)
{
	static char buf[RSP_OUT_MAX];
	size_t n;

	while ((n = rsp_out_read(c, buf, 1 + below(sizeof(buf)))))
		put(got, buf, n);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct expect e;
	static struct rsp_conn c;
	struct obuf got = { 0 };
	size_t done = 0;
	int stuck = 0;

	fz_begin(data, size, "libfuzzer rsp");
	remember((const char *)data, size);
	free(e.out.b);
	memset(&e, 0, sizeof(e));
	model(&e, data, size);

	assert_int_equal(rsp_init(&c, handler, NULL), 0);
	while (done < size) {
		size_t piece = 1 + below(chance(50) ? 16 : 4096);
		size_t n;

		piece = min_t(size_t, size - done, piece);
		n = rsp_feed(&c, (const char *)data + done, piece);
		done += n;
		FZ_CHECK(rsp_out_pending(&c) <= RSP_OUT_MAX,
			 "output queue overflow");
		if (n < piece) {
			/* Only a full queue stops the framer. */
			FZ_CHECK(!rsp_out_has_room(&c),
				 "rsp_feed stopped with room in the queue");
			FZ_CHECK(++stuck < 100000, "rsp_feed stuck");
			reader(&c, &got);
		} else if (chance(30)) {
			reader(&c, &got);
		}
	}
	reader(&c, &got);
	FZ_CHECK(c.interrupts == e.interrupts, "%lu interrupts, model %lu",
		 c.interrupts, e.interrupts);
	FZ_CHECK(c.bad_packets == e.bad, "%lu bad packets, model %lu",
		 c.bad_packets, e.bad);
	FZ_CHECK(c.noack == e.noack, "no-ack mode %d, model %d", c.noack,
		 e.noack);
	if (!e.opt_lost)
		compare(&e, &got);
	rsp_destroy(&c);
	free(got.b);
	return 0;
}
