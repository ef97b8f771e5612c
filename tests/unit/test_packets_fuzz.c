// SPDX-License-Identifier: GPL-2.0
/*
 * test_packets_fuzz.c - whatever bytes arrive on /proc/gtp, the portable
 * core neither crashes nor corrupts itself, and every reply is well framed.
 *
 * The whole connection is driven as the module drives it: bytes go through
 * rsp_feed() (split at random points, re-fed when the output queue is
 * full, like gtp_write()), the dispatcher runs the real packet tables, and
 * the framed output is drained and checked like gdb would read it.
 *
 *   mode a  random byte streams (junk, stray '$' '#' '}', bad checksums,
 *	     occasional well-framed random payloads): output must be acks and
 *	     well-framed packets only, nothing half-written.
 *   mode b  well-framed packets with random payloads, most starting with a
 *	     real packet name: exactly one reply per packet (after console 'O'
 *	     packets), of the shape gdb expects for that packet.
 *   mode c  sessions built from real gdb packets (protocol reference 2.3,
 *	     2.19: QTDP with conditions and actions, QTDPsrc, QTDV, QTFrame,
 *	     qTBuffer, m, qXfer, ...), each mutated with some probability
 *	     (bit flips, huge and negative numbers, non-hex digits, missing
 *	     fields, truncation, very long packets), interleaved with
 *	     QTinit/QTStart/QTStop and with tracepoint hits (gtp_tp_hit() on
 *	     every armed location, as the kprobe handler would call it:
 *	     attaching is faked by tests/unit/user_trace.c).  After each
 *	     session the frame store is checked: qTStatus's tframes, qTBuffer
 *	     read front to back and in random pieces equals the stored
 *	     frames, every frame parses, QTFrame selects each one.
 *   mode d  the frame store under pressure: small buffers, circular or
 *	     not, frames of random sizes, several runs per connection.
 *
 * Every iteration resets the global state and takes its own seed, so one
 * failure reproduces alone: the failing seed is printed as
 * GTP_FUZZ_SEED=<seed> GTP_FUZZ_ITERS=1.  GTP_FUZZ_ITERS (default 20)
 * scales the run; `make fuzz-packets` (tests/unit/fuzz.mk) runs many
 * iterations under ASan+UBSan.  Regressions for the bugs this found are
 * plain cmocka tests at the end.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <signal.h>
#include <unistd.h>
#include <cmocka.h>

#include "rsp.h"
#include "packets.h"
#include "trace.h"
#include "tracepoint.h"
#include "collect.h"
#include "frame.h"
#include "static_data.h"
#include "user_env.h"

extern int user_trace_fail_arm;

/* ---- deterministic randomness ---------------------------------------- */

static u64 rng_state;

static u64 rnd(void)
{
	u64 x = rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545f4914f6cdd1dull;
}

static void rng_seed(u64 seed)
{
	rng_state = seed * 0x9e3779b97f4a7c15ull + 0x1234567;
	if (!rng_state)
		rng_state = 1;
	rnd();
}

static u32 below(u32 n)
{
	return n ? rnd() % n : 0;
}

static bool chance(u32 percent)
{
	return below(100) < percent;
}

/* ---- failure reporting ------------------------------------------------ */

static u64 cur_seed;
static u64 base_seed = 1;
static unsigned long iters = 1;
static const char *cur_mode = "";
#define HIST 8
static char hist[HIST][160];	/* the last packets sent, for the report */
static unsigned int nhist;

static void remember(const char *pkt, size_t len)
{
	char *h = hist[nhist++ % HIST];
	size_t i, n = min_t(size_t, len, 150);

	for (i = 0; i < n; i++)
		h[i] = pkt[i] >= 0x20 && pkt[i] < 0x7f ? pkt[i] : '.';
	h[n] = '\0';
	if (len > n)
		strcat(h, "...");
}

static void report(const char *why)
{
	unsigned int i;

	print_message("FUZZ FAILURE (mode %s): %s\n", cur_mode, why);
	print_message("reproduce: GTP_FUZZ_SEED=%llu GTP_FUZZ_ITERS=1 %s\n",
		      (unsigned long long)cur_seed, "build/unit/test_packets_fuzz");
	for (i = nhist > HIST ? nhist - HIST : 0; i < nhist; i++)
		print_message("  sent: %s\n", hist[i % HIST]);
}

#define FZ_CHECK(cond, ...) do {					\
	if (!(cond)) {							\
		char why_[512];						\
		snprintf(why_, sizeof(why_), __VA_ARGS__);		\
		report(why_);						\
		fail();							\
	}								\
} while (0)

/* A hang is a failure too: the seed is printed before dying. */
static void on_alarm(int sig)
{
	static const char msg[] = "FUZZ FAILURE: iteration timed out (hang)\n";
	char buf[64];
	int n;

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	n = snprintf(buf, sizeof(buf), "reproduce: GTP_FUZZ_SEED=%llu\n",
		     (unsigned long long)cur_seed);
	if (write(2, buf, n) < 0)
		_exit(3);
	_exit(2);
}

/*
 * Crashes and sanitizer reports print the seed too.  Our handler runs
 * first and then hands over to the one it replaced (cmocka's).
 */
extern void __asan_set_death_callback(void (*cb)(void)) __attribute__((weak));

static void say_seed(void)
{
	char buf[96];
	int n = snprintf(buf, sizeof(buf),
			 "FUZZ FAILURE (mode %s): reproduce: GTP_FUZZ_SEED=%llu GTP_FUZZ_ITERS=1\n",
			 cur_mode, (unsigned long long)cur_seed);

	if (write(2, buf, n) < 0)
		_exit(3);
}

static struct sigaction old_act[32];

static void on_crash(int sig)
{
	say_seed();
	sigaction(sig, &old_act[sig], NULL);
	raise(sig);
}

static void arm_crash_report(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	struct sigaction sa = { .sa_handler = on_crash };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &sa, &old_act[sigs[i]]);
	if (__asan_set_death_callback)
		__asan_set_death_callback(say_seed);
}

/* ---- the output side: what gdb would read ----------------------------- */

#define MAX_PKTS 64

static struct {
	/* streaming parser state */
	int state;		/* 0 idle, 1 data, 2 esc, 3 csum1, 4 csum2 */
	u8 sum, rx;
	char cur[RSP_PKT_MAX + 16];
	size_t cur_len;
	/* what came out since the last collect_reset() */
	char pkts[MAX_PKTS][RSP_PKT_MAX + 16];
	size_t pkt_len[MAX_PKTS];
	unsigned int npkts;
	unsigned int acks, naks;
} out;

static void collect_reset(void)
{
	out.npkts = 0;
	out.acks = out.naks = 0;
}

static void out_byte(char ch)
{
	unsigned int k;
	int d;

	switch (out.state) {
	case 0:
		if (ch == '+') {
			out.acks++;
		} else if (ch == '-') {
			out.naks++;
		} else {
			FZ_CHECK(ch == '$', "junk byte 0x%02x between packets",
				 (u8)ch);
			out.state = 1;
			out.sum = 0;
			out.cur_len = 0;
		}
		break;
	case 1:
		if (ch == '#') {
			out.state = 3;
			break;
		}
		FZ_CHECK(ch != '$' && ch != '*',
			 "unescaped '%c' inside a reply", ch);
		out.sum += (u8)ch;
		if (ch == '}') {
			out.state = 2;
			break;
		}
		FZ_CHECK(out.cur_len < RSP_PKT_MAX, "reply longer than PacketSize");
		out.cur[out.cur_len++] = ch;
		break;
	case 2:
		out.sum += (u8)ch;
		FZ_CHECK(out.cur_len < RSP_PKT_MAX, "reply longer than PacketSize");
		out.cur[out.cur_len++] = ch ^ 0x20;
		out.state = 1;
		break;
	case 3:
	case 4:
		d = rsp_hexval(ch);
		FZ_CHECK(d >= 0 && !(ch >= 'A' && ch <= 'F'),
			 "bad checksum digit 0x%02x", (u8)ch);
		out.rx = out.state == 3 ? d << 4 : out.rx | d;
		if (out.state == 3) {
			out.state = 4;
			break;
		}
		FZ_CHECK(out.rx == out.sum, "reply checksum %02x, computed %02x",
			 out.rx, out.sum);
		/* Past MAX_PKTS, keep overwriting the last slot: the reply. */
		k = min_t(unsigned int, out.npkts, MAX_PKTS - 1);
		memcpy(out.pkts[k], out.cur, out.cur_len);
		out.pkts[k][out.cur_len] = '\0';
		out.pkt_len[k] = out.cur_len;
		out.npkts++;
		out.state = 0;
		break;
	}
}

static void drain(struct gtp_conn *gc)
{
	static char buf[RSP_OUT_MAX];
	size_t n, i;

	while ((n = rsp_out_read(&gc->rsp, buf, 1 + below(sizeof(buf)))))
		for (i = 0; i < n; i++)
			out_byte(buf[i]);
}

/* gtp_write(): feed in pieces, let the reader drain when there is no room. */
static void feed(struct gtp_conn *gc, const char *buf, size_t len)
{
	size_t done = 0;
	int stuck = 0;

	while (done < len) {
		size_t piece = 1 + below(4096);	/* min_t() evaluates twice */
		size_t n;

		piece = min_t(size_t, len - done, piece);
		n = rsp_feed(&gc->rsp, buf + done, piece);
		done += n;
		if (n < piece) {
			FZ_CHECK(rsp_out_pending(&gc->rsp) || n,
				 "rsp_feed made no progress with an empty queue");
			FZ_CHECK(++stuck < 1000, "rsp_feed stuck");
		}
		FZ_CHECK(rsp_out_pending(&gc->rsp) <= RSP_OUT_MAX,
			 "output queue overflow");
		drain(gc);
	}
	drain(gc);
	/* Replies are produced synchronously: never half a packet queued. */
	FZ_CHECK(out.state == 0, "output ends inside a packet");
}

/* ---- framing packets the way gdb does --------------------------------- */

static size_t frame_pkt(char *dst, const char *data, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0, i;
	u8 sum = 0;

	dst[o++] = '$';
	for (i = 0; i < n; i++) {
		char ch = data[i];

		if (ch == '#' || ch == '$' || ch == '}') {
			dst[o++] = '}';
			sum += '}';
			ch ^= 0x20;
		}
		dst[o++] = ch;
		sum += (u8)ch;
	}
	dst[o++] = '#';
	dst[o++] = hex[sum >> 4];
	dst[o++] = hex[sum & 0xf];
	return o;
}

/* ---- reply shapes ------------------------------------------------------ */

static bool is_hex_str(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (rsp_hexval(s[i]) < 0)
			return false;
	return true;
}

static bool is_err(const char *r, size_t n)
{
	return n == 3 && r[0] == 'E' && is_hex_str(r + 1, 2);
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* "<hex>" then @sep; returns the position after it or NULL. */
static const char *hexfield(const char *p, char sep)
{
	const char *s = p;

	if (*p == '-')
		p++;
	while (rsp_hexval(*p) >= 0)
		p++;
	if (p == s || *p != sep)
		return NULL;
	return sep ? p + 1 : p;
}

/* qTStatus: T0|T1 then ";name:value" fields, no empty trailing field. */
static bool good_status(const char *r)
{
	const char *p;

	if ((r[0] != 'T') || (r[1] != '0' && r[1] != '1'))
		return false;
	p = r + 2;
	while (*p) {
		const char *f, *colon;

		if (*p++ != ';' || !*p)
			return false;
		f = p;
		while (*p && *p != ';')
			p++;
		colon = memchr(f, ':', p - f);
		if (!colon || colon == f)
			return false;
		/* gdb hex-decodes these and errors out on a bad digit. */
		if ((!strncmp(f, "username:", 9) || !strncmp(f, "notes:", 6)) &&
		    !is_hex_str(colon + 1, p - colon - 1))
			return false;
		if (!strncmp(f, "tstop:", 6) &&
		    strspn(colon + 1, "0123456789abcdefABCDEF") != p - colon - 3)
			return false;
	}
	return true;
}

/*
 * A 'Z' upload piece as gdb's parse_tracepoint_definition() reads it:
 * Z<n>:<addr>:<at|cond|cmd>:<start>:<len>:<hex> (it follows the colons
 * blindly and hex-decodes the rest: anything else crashes or errors gdb).
 */
static bool good_src_piece(const char *r)
{
	const char *p = hexfield(r + 1, ':');

	p = p ? hexfield(p, ':') : NULL;
	if (!p)
		return false;
	if (starts(p, "at:"))
		p += 3;
	else if (starts(p, "cond:"))
		p += 5;
	else if (starts(p, "cmd:"))
		p += 4;
	else
		return false;
	p = hexfield(p, ':');
	p = p ? hexfield(p, ':') : NULL;
	return p && is_hex_str(p, strlen(p)) && !(strlen(p) & 1);
}

/* The reply to @pkt (already unescaped) must have the shape gdb expects. */
static void check_reply(const char *pkt, size_t plen, const char *r, size_t n)
{
	bool ok = true;

	if (n == 0 || is_err(r, n)) {
		/* Packets gdb needs answered (reference 2.1) never get "". */
		if (n == 0)
			ok = !(!strcmp(pkt, "QTinit") || !strcmp(pkt, "QTStart") ||
			       !strcmp(pkt, "QTStop") || !strcmp(pkt, "qTStatus") ||
			       !strcmp(pkt, "qTfP") || !strcmp(pkt, "qTsP") ||
			       !strcmp(pkt, "qTfV") || !strcmp(pkt, "qTsV") ||
			       !strcmp(pkt, "g") || !strcmp(pkt, "?") ||
			       starts(pkt, "QTDP:") || starts(pkt, "QTFrame:") ||
			       starts(pkt, "QTDV:") || starts(pkt, "qTBuffer:") ||
			       starts(pkt, "QTBuffer:") || starts(pkt, "qSupported"));
		/* qTfP/qTsP: an 'E' would be read as a piece named E. */
		if (n && (!strcmp(pkt, "qTfP") || !strcmp(pkt, "qTsP")))
			ok = false;
		FZ_CHECK(ok, "reply \"%.*s\" not allowed for this packet",
			 (int)n, r);
		return;
	}
	if (starts(pkt, "QTDP") || starts(pkt, "QTinit") ||
	    starts(pkt, "QTStart") || starts(pkt, "QTStop") ||
	    starts(pkt, "QTDV:") || starts(pkt, "QTBuffer:") ||
	    starts(pkt, "QTEnable:") || starts(pkt, "QTDisable:") ||
	    starts(pkt, "QTro") || starts(pkt, "QTNotes:") ||
	    starts(pkt, "QTDisconnected:") || starts(pkt, "Hg") ||
	    starts(pkt, "QStartNoAckMode")) {
		ok = n == 2 && !memcmp(r, "OK", 2);
	} else if (starts(pkt, "qTStatus")) {
		ok = good_status(r);
	} else if (starts(pkt, "QTFrame:")) {
		const char *p;

		if (!strcmp(r, "OK") || !strcmp(r, "F-1")) {
			ok = true;
		} else {
			p = r[0] == 'F' ? hexfield(r + 1, 'T') : NULL;
			ok = p && hexfield(p, '\0') && !p[strspn(p,
				"0123456789abcdef")];
		}
	} else if (!strcmp(pkt, "g")) {
		size_t i;

		ok = n == 2 * GTP_G_SIZE;
		for (i = 0; ok && i < n; i++)
			ok = rsp_hexval(r[i]) >= 0 || r[i] == 'x';
	} else if (pkt[0] == 'm') {
		ok = !(n & 1) && is_hex_str(r, n);
	} else if (starts(pkt, "qTBuffer:")) {
		ok = !strcmp(r, "l") || (!(n & 1) && is_hex_str(r, n));
	} else if (starts(pkt, "qTP:")) {
		const char *p = r[0] == 'V' ? hexfield(r + 1, ':') : NULL;

		ok = p && hexfield(p, '\0') && !p[strspn(p, "0123456789abcdef")];
	} else if (starts(pkt, "qTV:")) {
		ok = !strcmp(r, "U") ||
		     (r[0] == 'V' && n > 1 && is_hex_str(r + 1, n - 1));
	} else if (!strcmp(pkt, "qTfV") || !strcmp(pkt, "qTsV")) {
		const char *p = r;

		ok = !strcmp(r, "l") ||
		     ((p = hexfield(p, ':')) && (p = hexfield(p, ':')) &&
		      (p = hexfield(p, ':')) && is_hex_str(p, strlen(p)) &&
		      !(strlen(p) & 1));
	} else if (!strcmp(pkt, "qTfP") || !strcmp(pkt, "qTsP")) {
		ok = !strcmp(r, "l") || ((r[0] == 'T' || r[0] == 'A' ||
			r[0] == 'Z' || r[0] == 'S' || r[0] == 'V') &&
			hexfield(r + 1, ':'));
		if (ok && r[0] == 'Z')
			ok = good_src_piece(r);
	} else if (starts(pkt, "qXfer:")) {
		ok = r[0] == 'l' || r[0] == 'm';
	} else if (starts(pkt, "qSupported")) {
		ok = starts(r, "PacketSize=");
	}
	(void)plen;
	FZ_CHECK(ok, "malformed reply \"%.*s\"", (int)min_t(size_t, n, 200), r);
}

/*
 * Send one packet (raw payload) framed, and check that exactly the right
 * output came back: an ack (unless no-ack), console lines, one reply.
 * Returns the reply (NUL terminated, in out.pkts) or NULL for 'k'.
 */
static bool noack;

/* How deep the fuzzing got: accepted definitions, runs, frames looked at. */
static struct {
	unsigned long qtdp_ok, actions_ok, qtstart_ok, frames_sel, tbuf_data;
	unsigned long mem_data, hits, frames;
} stats;

static void count_reply(const char *pkt, const char *r)
{
	bool ok = !strcmp(r, "OK");

	if (starts(pkt, "QTDP:-"))
		stats.actions_ok += ok;
	else if (starts(pkt, "QTDP:"))
		stats.qtdp_ok += ok;
	else if (!strcmp(pkt, "QTStart"))
		stats.qtstart_ok += ok;
	else if (starts(pkt, "QTFrame:"))
		stats.frames_sel += r[0] == 'F' && r[1] != '-';
	else if (starts(pkt, "qTBuffer:"))
		stats.tbuf_data += r[0] && r[0] != 'l' && r[0] != 'E';
	else if (pkt[0] == 'm')
		stats.mem_data += r[0] && r[0] != 'E';
}

static void print_stats(void)
{
	print_message("  seed %llu: QTDP ok %lu, actions ok %lu, QTStart ok %lu, hits stored %lu/%lu, QTFrame found %lu, qTBuffer data %lu, m data %lu\n",
		      (unsigned long long)base_seed, stats.qtdp_ok,
		      stats.actions_ok, stats.qtstart_ok, stats.frames,
		      stats.hits, stats.frames_sel, stats.tbuf_data,
		      stats.mem_data);
	memset(&stats, 0, sizeof(stats));
}

static const char *send_pkt(struct gtp_conn *gc, const char *data, size_t n)
{
	static char wire[2 * RSP_PKT_MAX * 2 + 16];
	static char copy[2 * RSP_PKT_MAX + 16];
	bool too_long = n > RSP_PKT_MAX;
	bool is_kill = n == 1 && data[0] == 'k';
	bool was_noack = noack;
	unsigned int i, last;
	const char *r;
	size_t w;

	FZ_CHECK(n < sizeof(copy), "test packet too long");
	remember(data, n);
	w = frame_pkt(wire, data, n);
	collect_reset();
	feed(gc, wire, w);
	FZ_CHECK(out.naks == 0, "good checksum NAKed");
	FZ_CHECK(out.acks == (was_noack ? 0u : 1u), "%u acks for one packet",
		 out.acks);
	if (is_kill) {
		FZ_CHECK(out.npkts == 0, "reply to 'k'");
		return NULL;
	}
	FZ_CHECK(out.npkts >= 1, "no reply");
	last = min_t(unsigned int, out.npkts, MAX_PKTS) - 1;
	for (i = 0; i < last; i++)
		FZ_CHECK(out.pkts[i][0] == 'O' && out.pkt_len[i] > 1 &&
			 (out.pkt_len[i] & 1) &&
			 is_hex_str(out.pkts[i] + 1, out.pkt_len[i] - 1),
			 "extra packet \"%.60s\" is not console output",
			 out.pkts[i]);
	r = out.pkts[last];
	memcpy(copy, data, n);
	copy[n] = '\0';
	if (too_long) {
		FZ_CHECK(is_err(r, out.pkt_len[last]),
			 "oversized packet not refused");
	} else if (strlen(copy) == n) {
		check_reply(copy, n, r, out.pkt_len[last]);
	}
	count_reply(copy, r);
	if (!strcmp(copy, "QStartNoAckMode") && !strcmp(r, "OK"))
		noack = true;
	return r;
}

static const char *send_str(struct gtp_conn *gc, const char *s)
{
	return send_pkt(gc, s, strlen(s));
}

/*
 * What the tracepoint definitions look like, in a few numbers: a refused
 * QTDP must not change it.
 */
static u64 tps_signature(void)
{
	struct gtp_tp *tp;
	u64 sig = 0;

	for (tp = gtp_tps; tp; tp = tp->next)
		sig = sig * 31 + tp->num + tp->addr * 7 + tp->nactions * 131 +
		      tp->chunks.n * 1031 + tp->regmask + (tp->cond != NULL) +
		      tp->enabled * 3 + tp->pass * 5;
	return sig;
}

/* Number of actions in an action chunk as qTfP shows it (no checking). */
static u32 count_actions(const char *p)
{
	u32 n = 0;
	u64 len;

	while (*p) {
		n++;
		switch (*p++) {
		case 'R':
		case 'M':
			while (*p && strchr("0123456789abcdefABCDEF,-", *p))
				p++;
			break;
		case 'X':
			p = rsp_parse_hex(p, &len);
			if (!p || *p != ',')
				return ~0u;
			p += 1 + 2 * len;
			break;
		case 'L':
			break;
		default:
			return ~0u;
		}
	}
	return n;
}

/* Every tracepoint holds exactly the actions of the chunks it uploads. */
static void check_definitions(void)
{
	struct gtp_tp *tp;
	u32 i, n;

	for (tp = gtp_tps; tp; tp = tp->next) {
		for (i = 0, n = 0; i < tp->chunks.n; i++)
			n += count_actions(tp->chunks.s[i]);
		FZ_CHECK(n == tp->nactions,
			 "tracepoint %u has %u actions, its chunks %u",
			 tp->num, tp->nactions, n);
	}
}

/* ---- the world: fake memory, registers, hits -------------------------- */

#define MEM_LO		0x1000ull
#define MEM_KERN	0xffffffff81000000ull
#define MEM_TOP		0xfffffffffffff000ull

static u8 scratch[GTP_SCRATCH_SIZE];

static void world_reset(void)
{
	static u8 bytes[0x10000];
	size_t i;

	user_env_reset();
	for (i = 0; i < sizeof(bytes); i++)
		bytes[i] = (u8)(i * 7 + 3);
	bytes[0x40] = 0;	/* a NUL for tracenz */
	user_env_add_region(MEM_LO, bytes, 0x1000);
	user_env_add_region(MEM_KERN, bytes, sizeof(bytes));
	user_env_add_region(MEM_TOP, bytes, 0x1000);
}

static u64 rnd_addr(void)
{
	switch (below(6)) {
	case 0: return MEM_LO + below(0x1100);
	case 1: return MEM_KERN + below(0x10100);
	case 2: return MEM_TOP + below(0x1000);
	case 3: return 0;
	case 4: return ~0ull - below(16);
	default: return rnd();
	}
}

/* Fire every armed location once, as the kprobe handler would. */
static void hit_all(void)
{
	struct gtp_tp *tp;
	/* Static tracepoints get the static probe's register block. */
	struct gtp_static_regs sr;
	struct pt_regs *regs = &sr.regs;
	int i;

	for (tp = gtp_tps; tp; tp = tp->next) {
		if (!tp->probe)
			continue;
		memset(&sr, 0, sizeof(sr));
		for (i = 0; i < 17; i++)
			user_env_set_reg(regs, i, rnd_addr());
		regs->ip = tp->addr;
		regs->flags = rnd();
		regs->cs = 0x10;
		regs->ss = 0x18;
		sr.nargs = below(GTP_SDATA_MAX_ARGS + 4);
		stats.hits++;
		stats.frames += gtp_tp_hit(tp, regs, scratch, sizeof(scratch));
	}
}

/* ---- the global state check -------------------------------------------- */

/* Parse one stored frame the way gdb's tfile reader does. */
static void check_frame(const u8 *f, u32 flen)
{
	u32 size, off;
	u16 mlen;

	FZ_CHECK(flen >= GTP_FRAME_HDR, "frame shorter than its header");
	memcpy(&size, f + 2, 4);
	FZ_CHECK(size == flen - GTP_FRAME_HDR, "frame size %u, stored %u",
		 size, flen);
	for (off = GTP_FRAME_HDR; off < flen;) {
		switch (f[off]) {
		case 'R':
			off += 1 + GTP_G_SIZE;
			break;
		case 'M':
			FZ_CHECK(flen - off >= 11, "truncated M block");
			memcpy(&mlen, f + off + 9, 2);
			FZ_CHECK(mlen > 0, "empty M block");
			off += 11 + mlen;
			break;
		case 'V':
			off += 13;
			break;
		default:
			FZ_CHECK(0, "bad block type 0x%02x", f[off]);
		}
		FZ_CHECK(off <= flen, "block runs past the frame");
	}
}

/* Random pieces of qTBuffer, in any order, are the same bytes as @all. */
static void check_pieces(struct gtp_conn *gc, const u8 *all, size_t total)
{
	static u8 bytes[2 * RSP_PKT_MAX];
	const char *r;
	char pkt[64];
	int i;

	for (i = 0; total && i < 8; i++) {
		size_t off = below(total + 1), len = 1 + below(0x900);
		int nb;

		snprintf(pkt, sizeof(pkt), "qTBuffer:%zx,%zx", off, len);
		r = send_str(gc, pkt);
		if (off == total) {
			FZ_CHECK(!strcmp(r, "l"), "qTBuffer past the end: %.20s", r);
			continue;
		}
		nb = rsp_hex2bin(r, strlen(r), bytes);
		FZ_CHECK(nb > 0 && off + nb <= total && (size_t)nb <= len,
			 "qTBuffer:%zx,%zx gave %d bytes of %zx", off, len, nb,
			 total);
		FZ_CHECK(!memcmp(bytes, all + off, nb),
			 "qTBuffer:%zx,%zx differs from the stored frames",
			 off, len);
	}
}

/*
 * With the trace stopped: qTStatus agrees with the store, qTBuffer read
 * front to back (as tsave does) is exactly the stored frames, QTFrame can
 * select each frame and 'g' works in it.
 */
static void check_store(struct gtp_conn *gc)
{
	static u8 all[4 << 20];
	static u8 bytes[2 * RSP_PKT_MAX];
	size_t total = 0, got = 0;
	u64 i, n, tframes = ~0ull;
	const char *r, *p;
	char pkt[64];

	r = send_str(gc, "QTStop");
	FZ_CHECK(!strcmp(r, "OK"), "QTStop refused");
	r = send_str(gc, "qTStatus");
	p = strstr(r, ";tframes:");
	FZ_CHECK(p && rsp_parse_hex(p + 9, &tframes), "no tframes in qTStatus");
	n = gtp_frames_count();
	FZ_CHECK(tframes == n, "tframes %llx but %llx frames stored",
		 (unsigned long long)tframes, (unsigned long long)n);
	for (i = 0; i < n; i++) {
		u32 flen;
		const u8 *f = gtp_frame_get(i, &flen);

		FZ_CHECK(f, "frame %llu missing", (unsigned long long)i);
		check_frame(f, flen);
		if (total + flen <= sizeof(all))
			memcpy(all + total, f, flen);
		total += flen;
	}
	if (total > sizeof(all))
		return;
	check_pieces(gc, all, total);
	for (;;) {
		int nb;

		snprintf(pkt, sizeof(pkt), "qTBuffer:%zx,7d0", got);
		r = send_str(gc, pkt);
		if (!strcmp(r, "l"))
			break;
		nb = rsp_hex2bin(r, strlen(r), bytes);
		FZ_CHECK(nb > 0 && got + nb <= total,
			 "qTBuffer beyond the frames (%zx + %d > %zx)", got,
			 nb, total);
		FZ_CHECK(!memcmp(bytes, all + got, nb),
			 "qTBuffer at %zx differs from the stored frames", got);
		got += nb;
	}
	FZ_CHECK(got == total, "qTBuffer gave %zx of %zx bytes", got, total);
	check_pieces(gc, all, total);
	for (i = 0; i < n && i < 4; i++) {
		u32 flen;
		const u8 *f = gtp_frame_get(i, &flen);
		u16 num;
		char want[48];

		memcpy(&num, f, 2);
		snprintf(pkt, sizeof(pkt), "QTFrame:%llx", (unsigned long long)i);
		snprintf(want, sizeof(want), "F%llxT%x", (unsigned long long)i,
			 num);
		r = send_str(gc, pkt);
		FZ_CHECK(!strcmp(r, want), "QTFrame:%llx gave %s, want %s",
			 (unsigned long long)i, r, want);
		send_str(gc, "g");
		send_str(gc, "qXfer:traceframe-info:read::0,fff");
	}
	send_str(gc, "QTFrame:ffffffff");
}

/* Back to a known state, so that every iteration reproduces alone. */
static struct gtp_conn *fresh_conn(void)
{
	struct gtp_conn *gc;

	gtp_trace_exit();
	world_reset();
	user_trace_fail_arm = 0;
	gc = gtp_conn_open();
	assert_non_null(gc);
	noack = false;
	out.state = 0;
	send_str(gc, "QTBuffer:circular:0");
	send_str(gc, "QTBuffer:size:-1");
	send_str(gc, "QTDisconnected:0");
	send_str(gc, "QTNotes:user:;notes:;tstop:;");
	send_str(gc, "QTinit");
	return gc;
}

/* ---- corpus and mutations ---------------------------------------------- */

static char gbuf[4 * RSP_PKT_MAX];

/* Real condition and action bytecode from gdb 13 (reference 2.3, 3.4). */
static const char *const conds[] = {
	"X13,26000622100222ec1608021916202200140e27",
	"X13,26000622100222ec1608021916202201140e27",
	"X5,2200220113",			/* const8 0, const8 1, equal */
	"Xa,22012202100e2015000027",		/* jumps */
	"X3,220127",
	"X2,2227",				/* truncated const */
	"X1,27",
	"X400,00",				/* length disagrees */
};

static const char *const actions[] = {
	"R0fffffffffffffffffffffffffffffffffffff",
	"R40", "R010000", "Rffffffffffffffff",
	"M-1,404074,4", "M-1,ffffffff81000010,40", "M7,-10,8", "M6,10,ffff",
	"M-1,fffffffffffff800,1000", "M-1,fffffffffffffff0,ffffffff",
	"M10,0,8", "M11,0,8", "M-2,0,8",
	"X0000000F,26000622100222ec16080222040c27",
	"X0000000F,26000622100222e016080222080c27",
	"X00000012,26000622100222e01608020d081a22080c27",
	"X0000000C,2c000222010216402d000227",
	"X00000008,2c00022e00022927",
	"X00000009,240040406022100c27",
	"X00000013,26000622100222e01608020d081a2300c82f27",
	"X00000006,2300400d27",			/* trace_quick */
	"X0000000b,24ffffff812210100c27",
	"X00000003,2e000127",			/* tracev */
	"L", "S", "SR010000",
};

/* Random hex number: small, 16-digit, huge (overflowing), or odd. */
static void put_num(char **p)
{
	switch (below(9)) {
	case 0: *p += sprintf(*p, "%llx", (unsigned long long)below(4)); break;
	case 1: *p += sprintf(*p, "%016llx", (unsigned long long)rnd()); break;
	case 2: *p += sprintf(*p, "ffffffffffffffffff"); break;
	case 3: *p += sprintf(*p, "10000000000000000"); break;
	case 4: *p += sprintf(*p, "-1"); break;
	case 5: *p += sprintf(*p, "%llx", (unsigned long long)rnd_addr()); break;
	case 6: *p += sprintf(*p, "7fffffff"); break;
	case 7: *p += sprintf(*p, "ffffffff"); break;
	default: *p += sprintf(*p, "%x", below(0x20)); break;
	}
}

/* The tracepoint numbers/addresses a session reuses, so actions attach. */
static u32 tp_nums[4];
static u64 tp_addrs[4];

static void put_tp(char **p, bool padded)
{
	int i = below(4);

	if (chance(10)) {
		put_num(p);
		**p = ':';
		(*p)++;
		put_num(p);
		return;
	}
	*p += sprintf(*p, padded ? "%x:%016llx" : "%x:%llx", tp_nums[i],
		      (unsigned long long)tp_addrs[i]);
}

/* Operand bytes of each opcode (0x02..0x33), for random bytecode. */
static int operand_bytes(u8 op)
{
	switch (op) {
	case 0x22: case 0x16: case 0x2a: case 0x0d: case 0x32: return 1;
	case 0x23: case 0x26: case 0x20: case 0x21: case 0x30:
	case 0x2c: case 0x2d: case 0x2e: return 2;
	case 0x24: return 4;
	case 0x25: return 8;
	default: return 0;
	}
}

/*
 * "X<len>,<hex>" of a random program: a few pushes, random ops (operands
 * small so registers, variables and jump targets are often valid), end.
 * Many fail verification (that is tested too); the rest run on hits.
 */
static char *put_random_prog(char *p, bool action)
{
	u8 code[96];
	int n = 0, k = below(24), i, j;

	for (i = 0; i < 3; i++) {
		code[n++] = 0x22;
		code[n++] = below(4) ? below(8) : rnd();
	}
	for (i = 0; i < k && n < 80; i++) {
		u8 op = 0x02 + below(0x32);
		int nb = operand_bytes(op);

		if (chance(15)) {
			op = 0x26;	/* reg */
			nb = 2;
		}
		code[n++] = op;
		for (j = 0; j < nb; j++)
			code[n++] = j == nb - 1 ? below(op == 0x20 || op == 0x21 ?
						       90 : 20) : 0;
	}
	code[n++] = 0x27;
	p += sprintf(p, action ? "X%08X," : "X%x,", n);
	for (i = 0; i < n; i++)
		p += sprintf(p, "%02x", code[i]);
	return p;
}

/* One real-shaped packet into gbuf; returns its length. */
static size_t gen_real(void)
{
	char *p = gbuf;
	int i, n;

	switch (below(40)) {
	case 0: case 1: case 2: case 3:
		p += sprintf(p, "QTDP:");
		put_tp(&p, true);
		p += sprintf(p, ":%c:%x:%x", chance(80) ? 'E' : 'D',
			     chance(90) ? 0 : below(3), below(4));
		if (chance(10))
			p += sprintf(p, ":F5");
		if (chance(5))
			p += sprintf(p, ":S");
		if (chance(20)) {
			*p++ = ':';
			p = put_random_prog(p, false);
		} else if (chance(40)) {
			p += sprintf(p, ":%s", conds[below(ARRAY_SIZE(conds))]);
		}
		if (chance(60))
			*p++ = '-';
		break;
	case 4: case 5: case 6: case 7: case 8:
		p += sprintf(p, "QTDP:-");
		put_tp(&p, true);
		*p++ = ':';
		n = 1 + below(4);
		for (i = 0; i < n; i++) {
			if (chance(25))
				p = put_random_prog(p, true);
			else
				p += sprintf(p, "%s",
					     actions[below(ARRAY_SIZE(actions))]);
		}
		if (chance(50))
			*p++ = '-';
		break;
	case 9:
		p += sprintf(p, "QTDPsrc:");
		put_tp(&p, false);
		p += sprintf(p, ":%s:0:1c:636f6c6c65637420782c20732c20636f756e7465722c202472656773",
			     chance(50) ? "cmd" : "at");
		break;
	case 10: case 11:
		p += sprintf(p, "QTDV:%x:", below(6));
		put_num(&p);
		p += sprintf(p, ":%x:%s", below(2),
			     chance(50) ? "68697473" : "6370755f6964");
		break;
	case 12: p += sprintf(p, "QTinit"); break;
	case 13: case 14: p += sprintf(p, "QTStart"); break;
	case 15: p += sprintf(p, "QTStop"); break;
	case 16: case 17: p += sprintf(p, "qTStatus"); break;
	case 18:
		p += sprintf(p, "QTFrame:");
		switch (below(6)) {
		case 0: put_num(&p); break;
		case 1: p += sprintf(p, "pc:"); put_num(&p); break;
		case 2: p += sprintf(p, "tdp:"); put_num(&p); break;
		case 3: p += sprintf(p, "range:"); put_num(&p); *p++ = ':'; put_num(&p); break;
		case 4: p += sprintf(p, "outside:"); put_num(&p); *p++ = ':'; put_num(&p); break;
		default: p += sprintf(p, "%x", below(4)); break;
		}
		break;
	case 19:
		p += sprintf(p, "qTBuffer:");
		put_num(&p);
		*p++ = ',';
		put_num(&p);
		break;
	case 20: case 21:
		*p++ = 'm';
		if (chance(50))
			p += sprintf(p, "%llx", (unsigned long long)rnd_addr());
		else
			put_num(&p);
		*p++ = ',';
		put_num(&p);
		break;
	case 22:
		p += sprintf(p, chance(50) ? "qXfer:traceframe-info:read::" :
			     "qXfer:features:read:target.xml:");
		put_num(&p);
		*p++ = ',';
		put_num(&p);
		break;
	case 23:
		p += sprintf(p, "qTP:");
		put_tp(&p, false);
		break;
	case 24:
		p += sprintf(p, chance(50) ? "QTEnable:" : "QTDisable:");
		put_tp(&p, true);
		break;
	case 25:
		p += sprintf(p, "QTBuffer:");
		if (chance(50)) {
			p += sprintf(p, "circular:%x", below(2));
		} else {
			p += sprintf(p, "size:");
			if (chance(50))
				p += sprintf(p, "%x", 1024 + below(0x10000));
			else
				put_num(&p);
		}
		break;
	case 26: p += sprintf(p, "qTfP"); break;
	case 27: case 28: p += sprintf(p, "qTsP"); break;
	case 29: p += sprintf(p, chance(50) ? "qTfV" : "qTsV"); break;
	case 30: p += sprintf(p, "qTV:"); put_num(&p); break;
	case 31: p += sprintf(p, "g"); break;
	case 32:
		p += sprintf(p, "QTro");
		n = below(4);
		for (i = 0; i < n; i++) {
			*p++ = ':';
			put_num(&p);
			*p++ = ',';
			put_num(&p);
		}
		break;
	case 33: p += sprintf(p, "QTNotes:user:6a6f65;notes:6869;tstop:7374;"); break;
	case 34: p += sprintf(p, "QTDisconnected:%x", below(2)); break;
	case 35: p += sprintf(p, "qSupported:multiprocess+;swbreak+;xmlRegisters=i386"); break;
	case 36: p += sprintf(p, "D"); break;
	case 37: p += sprintf(p, "?"); break;
	case 38:
		p += sprintf(p, "QTDP:-");
		put_tp(&p, true);
		*p++ = ':';
		n = below(2000);	/* a very long action chunk */
		for (i = 0; i < n && p - gbuf < RSP_PKT_MAX + 64; i++)
			p += sprintf(p, "%s", actions[below(4)]);
		break;
	default: p += sprintf(p, "qTsV"); break;
	}
	*p = '\0';
	return p - gbuf;
}

/* Mutate the packet in gbuf in place; returns the new length. */
static size_t mutate(size_t n)
{
	static const char *const nums[] = {
		"ffffffffffffffffff", "-1", "10000000000000000", "0", "",
		"g", "-", "::", ",,", "7fffffffffffffff", "8000000000000000",
	};
	int k = 1 + below(3);

	while (k--) {
		size_t pos = n ? below(n + 1) : 0;
		const char *s;
		size_t sl;

		switch (below(8)) {
		case 0:	/* flip a byte */
			if (n)
				gbuf[below(n)] ^= 1 << below(8);
			break;
		case 1:	/* truncate */
			n = pos;
			break;
		case 2:	/* delete a range */
			if (n) {
				size_t len = 1 + below(min_t(size_t, n - pos + 1, 20));

				if (pos + len > n)
					len = n - pos;
				memmove(gbuf + pos, gbuf + pos + len, n - pos - len);
				n -= len;
			}
			break;
		case 3:	/* insert a tricky token */
			s = nums[below(ARRAY_SIZE(nums))];
			sl = strlen(s);
			if (n + sl < sizeof(gbuf) - 1) {
				memmove(gbuf + pos + sl, gbuf + pos, n - pos);
				memcpy(gbuf + pos, s, sl);
				n += sl;
			}
			break;
		case 4:	/* replace a hex digit with a non-hex one */
			if (n)
				gbuf[below(n)] = "gz:,-;xX\x7f"[below(9)];
			break;
		case 5:	/* duplicate a range */
			if (n && n < RSP_PKT_MAX) {
				size_t len = 1 + below(min_t(size_t, n - pos + 1, 64));

				if (pos + len > n)
					len = n - pos;
				memmove(gbuf + pos + len, gbuf + pos, n - pos);
				n += len;
			}
			break;
		case 6:	/* insert a random byte */
			if (n + 1 < sizeof(gbuf) - 1) {
				memmove(gbuf + pos + 1, gbuf + pos, n - pos);
				gbuf[pos] = rnd();
				n++;
			}
			break;
		default: /* grow the packet past PacketSize */
			if (chance(20))
				while (n < RSP_PKT_MAX + 8)
					gbuf[n++] = "0123456789abcdef"[below(16)];
			break;
		}
	}
	gbuf[n] = '\0';
	return n;
}

/* ---- the modes ---------------------------------------------------------- */


static void env_setup(void)
{
	const char *s = getenv("GTP_FUZZ_SEED"), *it = getenv("GTP_FUZZ_ITERS");

	if (s)
		base_seed = strtoull(s, NULL, 0);
	iters = it ? strtoul(it, NULL, 0) : 20;
	if (!iters)
		iters = 1;
	signal(SIGALRM, on_alarm);
	gtp_packets_init();
	gtp_trace_init();
}

/* (a) random bytes: only well-framed output may come back. */
static void test_random_bytes(void **state)
{
	static char buf[3 * RSP_PKT_MAX];
	unsigned long it;

	arm_crash_report();

	cur_mode = "a";
	for (it = 0; it < iters * 20; it++) {
		struct gtp_conn *gc;
		int chunk, nchunks;

		cur_seed = base_seed + it;
		rng_seed(cur_seed);
		alarm(20);
		gc = fresh_conn();
		nchunks = 1 + below(20);
		for (chunk = 0; chunk < nchunks; chunk++) {
			size_t n = below(chance(10) ? sizeof(buf) - 16 : 256), i;

			for (i = 0; i < n; i++) {
				switch (below(10)) {
				case 0: buf[i] = "$#}+-\x03"[below(6)]; break;
				case 1: buf[i] = "0123456789abcdef"[below(16)]; break;
				case 2: buf[i] = "qQTDPm:,-X"[below(10)]; break;
				default: buf[i] = rnd(); break;
				}
			}
			/* Sometimes a well-framed packet with random content. */
			if (chance(30) && n < sizeof(buf) / 3 - 8) {
				memcpy(gbuf, buf, n);
				n = frame_pkt(buf, gbuf, n);
			}
			remember(buf, n);
			collect_reset();
			feed(gc, buf, n);
			if (chance(20))
				hit_all();
		}
		gtp_conn_close(gc);
		alarm(0);
	}
}

static const char *const names[] = {
	"QTDP:", "QTDP:-", "QTDPsrc:", "QTDV:", "QTFrame:", "QTFrame:pc:",
	"QTFrame:tdp:", "QTFrame:range:", "QTFrame:outside:", "qTBuffer:",
	"QTBuffer:", "QTBuffer:size:", "QTBuffer:circular:", "m", "g", "qTP:",
	"qTV:", "qTfV", "qTsV", "qTfP", "qTsP", "QTEnable:", "QTDisable:",
	"QTro:", "QTNotes:", "QTDisconnected:", "qXfer:features:read:",
	"qXfer:features:read:target.xml:", "qXfer:traceframe-info:read::",
	"qSupported", "QStartNoAckMode", "qTStatus", "QTinit", "QTStart",
	"QTStop", "Hg", "T", "D", "?", "qC", "vMustReplyEmpty",
};

/* (b) well-framed packets, random payloads: one good reply each. */
static void test_random_payloads(void **state)
{
	unsigned long it;

	arm_crash_report();

	cur_mode = "b";
	for (it = 0; it < iters * 10; it++) {
		struct gtp_conn *gc;
		int k, npk;

		cur_seed = base_seed + it;
		rng_seed(cur_seed);
		alarm(20);
		gc = fresh_conn();
		npk = 1 + below(60);
		for (k = 0; k < npk; k++) {
			size_t n = 0, len, i;
			const char *nm = names[below(ARRAY_SIZE(names))];

			if (chance(90)) {
				n = strlen(nm);
				memcpy(gbuf, nm, n);
			}
			len = below(chance(5) ? RSP_PKT_MAX + 100 : 48);
			for (i = 0; i < len; i++)
				gbuf[n++] = chance(60) ?
					"0123456789abcdef:,-;X"[below(21)] :
					(char)rnd();
			send_pkt(gc, gbuf, n);
			if (chance(10))
				hit_all();
		}
		gtp_conn_close(gc);
		alarm(0);
	}
}

/* A session: define, start, hit, stop, look, with mutated packets. */
static void run_session(struct gtp_conn **gcp, bool mutating)
{
	int k, npk = 5 + below(80);
	int i;

	for (i = 0; i < 4; i++) {
		tp_nums[i] = 1 + below(3);
		tp_addrs[i] = chance(50) ? MEM_KERN + 0x100 * i : rnd_addr();
	}
	if (chance(50))
		send_str(*gcp, "qSupported:multiprocess+;xmlRegisters=i386");
	if (chance(50))
		send_str(*gcp, "QStartNoAckMode");
	for (k = 0; k < npk; k++) {
		size_t n = gen_real();

		if (mutating && chance(25))
			n = mutate(n);
		u64 sig = tps_signature();
		const char *r;

		if (chance(3))
			user_trace_fail_arm = chance(50) ? -22 : -84;
		r = send_pkt(*gcp, gbuf, n);
		if (r && r[0] == 'E' && !strncmp(gbuf, "QTDP:", 5))
			FZ_CHECK(tps_signature() == sig,
				 "a refused QTDP changed the definitions");
		check_definitions();
		if (chance(30))
			hit_all();
		if (chance(2)) {
			/* gdb goes away and comes back (disconnected tracing). */
			gtp_conn_close(*gcp);
			*gcp = gtp_conn_open();
			assert_non_null(*gcp);
			noack = false;
		}
	}
}

/* (c) mutated real gdb traffic, with state, then a store check. */
static void test_mutated_sessions(void **state)
{
	unsigned long it;

	arm_crash_report();

	cur_mode = "c";
	for (it = 0; it < iters * 10; it++) {
		struct gtp_conn *gc;

		cur_seed = base_seed + it;
		rng_seed(cur_seed);
		alarm(20);
		gc = fresh_conn();
		run_session(&gc, true);
		check_store(gc);
		gtp_conn_close(gc);
		alarm(0);
	}
	print_stats();
}

/* The unmutated sessions must actually trace: frames get collected. */
static void test_real_sessions_collect(void **state)
{
	unsigned long it, with_frames = 0;

	arm_crash_report();

	cur_mode = "c0";
	for (it = 0; it < 50; it++) {
		struct gtp_conn *gc;
		const char *r;

		cur_seed = base_seed + it;
		rng_seed(cur_seed);
		alarm(20);
		gc = fresh_conn();
		tp_nums[0] = 1;
		tp_addrs[0] = MEM_KERN;
		send_str(gc, "QTDP:1:ffffffff81000000:E:0:0-");
		send_str(gc, "QTDP:-1:ffffffff81000000:R0fffffffffffffffffffffffffffffffffffff-");
		send_str(gc, "QTDP:-1:ffffffff81000000:M-1,ffffffff81000010,40");
		run_session(&gc, false);
		r = send_str(gc, "QTStart");
		if (!strcmp(r, "OK")) {
			hit_all();
			hit_all();
		}
		check_store(gc);
		with_frames += gtp_frames_count() > 0;
		gtp_conn_close(gc);
		alarm(0);
	}
	print_stats();
	assert_true(with_frames > 0);
}

/*
 * (d) the frame store under pressure: small buffers, circular or not,
 * frames of random sizes from several tracepoints, runs restarted; the
 * store must stay consistent and a full non-circular buffer stops the run.
 */
static void test_store_stress(void **state)
{
	unsigned long it;
	char pkt[128];

	arm_crash_report();

	cur_mode = "d";
	for (it = 0; it < iters * 5; it++) {
		struct gtp_conn *gc;
		int run, nruns, t, ntp, h;
		bool circ;

		cur_seed = base_seed + it;
		rng_seed(cur_seed);
		alarm(20);
		gc = fresh_conn();
		nruns = 1 + below(3);
		for (run = 0; run < nruns; run++) {
			const char *r;

			circ = chance(50);
			send_str(gc, "QTinit");
			ntp = 1 + below(4);
			for (t = 0; t < ntp; t++) {
				snprintf(pkt, sizeof(pkt), "QTDP:%x:%llx:E:0:0-",
					 t + 1, (unsigned long long)MEM_KERN + t);
				send_str(gc, pkt);
				snprintf(pkt, sizeof(pkt),
					 "QTDP:-%x:%llx:%sM-1,%llx,%x%s", t + 1,
					 (unsigned long long)MEM_KERN + t,
					 chance(50) ? "R40" : "",
					 (unsigned long long)rnd_addr(),
					 below(chance(10) ? 0x9000 : 0x300),
					 chance(30) ? "X00000003,2e000127" : "");
				send_str(gc, pkt);
			}
			snprintf(pkt, sizeof(pkt), "QTBuffer:circular:%d", circ);
			send_str(gc, pkt);
			snprintf(pkt, sizeof(pkt), "QTBuffer:size:%x",
				 0x400 + below(0x8000));
			send_str(gc, pkt);
			send_str(gc, "QTDV:1:0000000000000005:0:78");
			r = send_str(gc, "QTStart");
			/* refused only when a frame can never fit the buffer */
			FZ_CHECK(!strcmp(r, "OK") || !strcmp(r, "E01"),
				 "QTStart: %s", r);
			FZ_CHECK(!strcmp(r, "OK") || !gtp_trace_running(),
				 "QTStart refused but running");
			for (h = strcmp(r, "OK") ? 0 : below(300); h > 0; h--)
				hit_all();
			if (!circ && gtp_frames_count() && !gtp_trace_running()) {
				r = send_str(gc, "qTStatus");
				FZ_CHECK(strstr(r, "tfull:0"),
					 "stopped without tfull: %s", r);
			}
			/* Reads of the previous run must not leak into this one. */
			if (chance(50))
				send_str(gc, "qTBuffer:0,7d0");
			check_store(gc);
		}
		gtp_conn_close(gc);
		alarm(0);
	}
	print_stats();
}

/* ---- regressions found by this fuzzer ----------------------------------- */

/* Run QTinit + one tracepoint collecting @mlen bytes, hit it @hits times. */
static void one_run(struct gtp_conn *gc, unsigned int mlen, int hits)
{
	char pkt[96];

	assert_string_equal(send_str(gc, "QTinit"), "OK");
	assert_string_equal(send_str(gc, "QTDP:1:ffffffff81000000:E:0:0-"),
			    "OK");
	snprintf(pkt, sizeof(pkt),
		 "QTDP:-1:ffffffff81000000:M-1,ffffffff81000000,%x", mlen);
	assert_string_equal(send_str(gc, pkt), "OK");
	assert_string_equal(send_str(gc, "QTStart"), "OK");
	while (hits--)
		hit_all();
	assert_string_equal(send_str(gc, "QTStop"), "OK");
}

/*
 * traceframe.c kept qTBuffer's position cache (frame index, offset) across
 * runs: after reading a first run's buffer, a read of the second run's at
 * an offset past the cached one started from the wrong frame.
 */
static void test_qtbuffer_cache_across_runs(void **state)
{
	struct gtp_conn *gc;
	const u8 *f;
	u8 want[0x40], got[0x40];
	u32 flen;
	u64 i, off = 0;
	char pkt[64];

	cur_mode = "regress";
	cur_seed = 0;
	rng_seed(0);
	gc = fresh_conn();
	one_run(gc, 0x200, 3);		/* frames of 0x211 bytes */
	assert_int_equal(gtp_frames_count(), 3);
	/* As tsave reads it: the cache ends on the last frame (0x422). */
	for (;;) {
		snprintf(pkt, sizeof(pkt), "qTBuffer:%llx,7d0",
			 (unsigned long long)off);
		if (!strcmp(send_str(gc, pkt), "l"))
			break;
		off += strlen(out.pkts[out.npkts - 1]) / 2;
	}
	assert_int_equal(off, 3 * 0x211);
	off = 0;
	one_run(gc, 0x10, 50);		/* frames of 0x21 bytes */
	assert_int_equal(gtp_frames_count(), 50);
	/* Frame 40 of the second run, read at its offset. */
	for (i = 0; i < 40; i++) {
		gtp_frame_get(i, &flen);
		off += flen;
	}
	f = gtp_frame_get(40, &flen);
	memcpy(want, f, flen);
	snprintf(pkt, sizeof(pkt), "qTBuffer:%llx,%x", (unsigned long long)off,
		 flen);
	assert_int_equal(rsp_hex2bin(send_str(gc, pkt), 2 * flen, got), flen);
	assert_memory_equal(got, want, flen);
	gtp_conn_close(gc);
}

/* A handler that explains itself at length before replying. */
static void flood_handler(struct rsp_conn *c, char *pkt, size_t len)
{
	char line[300];
	int i, n = atoi(pkt);

	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	for (i = 0; i < n; i++)
		rsp_console(c, "%d %s\n", i, line);
	rsp_reply_str(c, "OK");
}

/*
 * rsp.c queued every console line a handler emitted, so a handler with
 * many of them (tracepoint.c says "JIT failed" once per X action, and a
 * QTDP:- packet can hold thousands) overran the output queue: a WARN, and
 * bytes dropped from the middle of a packet.  Lines that do not fit are
 * dropped whole now; the reply always goes out.
 */
static void test_console_flood(void **state)
{
	static char wire[64];
	struct rsp_conn c;
	int n;

	cur_mode = "regress";
	for (n = 0; n <= 1000; n += n < 10 ? 1 : 97) {
		char num[16];
		size_t w;

		assert_int_equal(rsp_init(&c, flood_handler, NULL), 0);
		snprintf(num, sizeof(num), "%d", n);
		remember(num, strlen(num));
		w = frame_pkt(wire, num, strlen(num));
		out.state = 0;
		collect_reset();
		assert_int_equal(rsp_feed(&c, wire, w), w);
		while (rsp_out_pending(&c)) {
			char buf[512];
			size_t i, got = rsp_out_read(&c, buf, sizeof(buf));

			for (i = 0; i < got; i++)
				out_byte(buf[i]);
		}
		assert_int_equal(out.state, 0);
		assert_int_equal(out.acks, 1);
		assert_true(out.npkts >= 1 + (n > 0));
		assert_string_equal(out.pkts[min_t(unsigned int, out.npkts,
						   MAX_PKTS) - 1], "OK");
		rsp_destroy(&c);
	}
}

/*
 * collect.c scanned the whole range of an M action or trace op, up to
 * 4 GiB, page by page: over unmapped kernel memory that is a million
 * faulting nofault reads inside one probe hit (seconds with preemption
 * off).  A frame cannot hold more than its capacity, so the scan stops
 * there: memory further than that from the start is not looked at.
 */
static void test_trace_scan_bounded(void **state)
{
	struct gtp_fbuild fb = { .buf = scratch, .cap = sizeof(scratch) };

	cur_mode = "regress";
	world_reset();
	/* 1 MiB of hole, then the readable region: out of reach. */
	assert_int_equal(gtp_fb_trace(&fb, MEM_KERN - 0x100000, 0x200000,
				      false), 0);
	assert_int_equal(fb.len, 0);
	/* Within reach it is collected as before. */
	assert_int_equal(gtp_fb_trace(&fb, MEM_KERN - 0x1000, 0x2000, false),
			 0);
	assert_int_equal(fb.len, 11 + 0x1000);
	/* The largest request over a hole returns (quickly). */
	fb.len = 0;
	assert_int_equal(gtp_fb_trace(&fb, 0xffff800000000000ull, 0xffffffffu,
				      false), 0);
	assert_int_equal(fb.len, 0);
}

/*
 * tracepoint.c kept the actions parsed before a bad one in a refused
 * QTDP:- chunk: gdb was told E01, yet the tracepoint collected half the
 * chunk (and qTfP did not show it).  A refused packet has no effect.
 */
static void test_refused_chunk_has_no_effect(void **state)
{
	struct gtp_conn *gc;
	const char *r;
	u32 flen;

	cur_mode = "regress";
	cur_seed = 0;
	rng_seed(0);
	gc = fresh_conn();
	assert_string_equal(send_str(gc, "QTDP:1:ffffffff81000000:E:0:0-"),
			    "OK");
	/* R and M are fine, the expression fails verification (no end). */
	r = send_str(gc, "QTDP:-1:ffffffff81000000:R40M-1,ffffffff81000000,4X00000002,2201");
	assert_string_equal(r, "E01");
	r = send_str(gc, "QTDP:-1:ffffffff81000000:M-1,ffffffff81000000,4Q");
	assert_string_equal(r, "E01");
	/* Upload: the definition only. */
	assert_true(send_str(gc, "qTfP")[0] == 'T');
	assert_string_equal(send_str(gc, "qTsP"), "l");
	/* A hit collects nothing: an empty frame. */
	assert_string_equal(send_str(gc, "QTStart"), "OK");
	hit_all();
	assert_string_equal(send_str(gc, "QTStop"), "OK");
	assert_int_equal(gtp_frames_count(), 1);
	gtp_frame_get(0, &flen);
	assert_int_equal(flen, GTP_FRAME_HDR);
	/* 'g' in that frame: nothing collected, only the pc is known. */
	assert_string_equal(send_str(gc, "QTFrame:0"), "F0T1");
	r = send_str(gc, "g");
	assert_int_equal(strspn(r, "x"), 16 * 16);
	assert_memory_equal(r + 16 * 16, "00000081ffffffff", 16);
	assert_int_equal(strspn(r + 17 * 16, "x"), 7 * 8);
	gtp_conn_close(gc);
}

/* Store one raw frame of @len bytes tagged with @seq; false if dropped. */
static bool put_tagged(u32 len, u32 seq)
{
	struct gtp_frame_slot slot;
	u8 *d = gtp_frame_reserve(&slot, len);

	if (!d)
		return false;
	memset(d, 0, len);
	memcpy(d, &seq, 4);
	gtp_frame_commit(&slot);
	return true;
}

/*
 * frame.c, circular mode: dropping a record that ended exactly at the end
 * of the buffer left head == size, which place() then took for free space
 * up to the end: the next frame overwrote the oldest one.  The frames
 * read back out of order (mode d found it as a frame whose header said
 * another size).
 */
static void test_circular_head_at_end(void **state)
{
	static const u32 lens[] = { 28, 28, 12, 28, 12, 12, 28, 12, 28, 28 };
	u32 i, seq, prev = 0, n;

	cur_mode = "regress";
	gtp_trace_exit();
	/* A store may refuse a buffer this small (the ring does). */
	if (gtp_frames_setup(64, true))
		skip();
	gtp_frames_start();
	for (i = 0; i < ARRAY_SIZE(lens); i++)
		assert_true(put_tagged(lens[i], i + 1));
	gtp_frames_stop();
	n = gtp_frames_count();
	assert_true(n >= 1);
	/* Oldest first, no repeats, and the last one is the newest. */
	for (i = 0; i < n; i++) {
		u32 flen;
		const u8 *f = gtp_frame_get(i, &flen);

		assert_non_null(f);
		memcpy(&seq, f, 4);
		assert_true(seq > prev);
		assert_int_equal(flen, lens[seq - 1]);
		prev = seq;
	}
	assert_int_equal(prev, ARRAY_SIZE(lens));
	gtp_frames_release();
}

/*
 * traceframe.c built qXfer:traceframe-info in the 16 KiB scratch buffer
 * and silently stopped listing blocks when it was nearly full (about 300
 * <memory> elements): gdb then showed collected memory as <unavailable>.
 */
static void test_tframe_info_lists_every_block(void **state)
{
	static char xml[256 * 1024], pkt[RSP_PKT_MAX];
	struct gtp_conn *gc;
	size_t got = 0;
	const char *r, *p;
	int i, n = 0;
	char *q = pkt;

	cur_mode = "regress";
	cur_seed = 0;
	rng_seed(0);
	gc = fresh_conn();
	assert_string_equal(send_str(gc, "QTDP:1:ffffffff81000000:E:0:0-"),
			    "OK");
	q += sprintf(q, "QTDP:-1:ffffffff81000000:");
	for (i = 0; i < 600; i++)
		q += sprintf(q, "M-1,%llx,1",
			     (unsigned long long)MEM_KERN + 2 * i);
	assert_string_equal(send_str(gc, pkt), "OK");
	assert_string_equal(send_str(gc, "QTStart"), "OK");
	hit_all();
	assert_string_equal(send_str(gc, "QTStop"), "OK");
	assert_string_equal(send_str(gc, "QTFrame:0"), "F0T1");
	for (;;) {
		char rq[64];
		size_t len;

		snprintf(rq, sizeof(rq), "qXfer:traceframe-info:read::%zx,fff",
			 got);
		r = send_str(gc, rq);
		assert_true(r[0] == 'm' || r[0] == 'l');
		len = strlen(r + 1);
		assert_true(got + len < sizeof(xml));
		memcpy(xml + got, r + 1, len);
		got += len;
		if (r[0] == 'l')
			break;
	}
	xml[got] = '\0';
	for (p = xml; (p = strstr(p, "<memory ")); p++)
		n++;
	assert_int_equal(n, 600);
	assert_non_null(strstr(xml, "</traceframe-info>"));
	gtp_conn_close(gc);
}

/*
 * trace.c stored QTNotes fields as sent; qTStatus hands them back and gdb
 * hex-decodes them, failing every later tstatus (and connect: QTinit does
 * not clear notes) on one bad digit.  Non-hex notes are refused now.
 */
static void test_qtnotes_non_hex_refused(void **state)
{
	struct gtp_conn *gc;
	const char *r;

	cur_mode = "regress";
	cur_seed = 0;
	rng_seed(0);
	gc = fresh_conn();
	assert_string_equal(send_str(gc, "QTNotes:user:6a6f65;notes:6869;"),
			    "OK");
	assert_string_equal(send_str(gc, "QTNotes:user:,,6a6f65;"), "E01");
	assert_string_equal(send_str(gc, "QTNotes:notes:zz;"), "E01");
	assert_string_equal(send_str(gc, "QTNotes:tstop:7g;"), "E01");
	r = send_str(gc, "qTStatus");
	assert_non_null(strstr(r, ";username:6a6f65"));
	assert_non_null(strstr(r, ";notes:6869"));
	send_str(gc, "QTNotes:user:;notes:;tstop:;");
	gtp_conn_close(gc);
}

/*
 * tracepoint.c stored QTDPsrc bodies unchecked and qTfP/qTsP replayed them
 * as Z pieces to every gdb that connects.  gdb's parser follows the
 * colons blindly (strchr(..., ':') + 1 on a missing one: a crash) and
 * hex-decodes the text (an error on a bad digit), so one bad QTDPsrc broke
 * every later connection.  Malformed ones are refused now.
 */
static void test_qtdpsrc_checked(void **state)
{
	struct gtp_conn *gc;

	cur_mode = "regress";
	cur_seed = 0;
	rng_seed(0);
	gc = fresh_conn();
	assert_string_equal(send_str(gc, "QTDP:1:ffffffff81000000:E:0:0"),
			    "OK");
	assert_string_equal(send_str(gc, "QTDPsrc:1:ffffffff81000000:at:0:4:776f726b"),
			    "OK");
	assert_string_equal(send_str(gc, "QTDPsrc:1:ffffffff81000000:cmd"),
			    "E01");
	assert_string_equal(send_str(gc, "QTDPsrc:1:ffffffff81000000:cmd:0:1:7g"),
			    "E01");
	assert_string_equal(send_str(gc, "QTDPsrc:1:ffffffff81000000:cond:0:1:7"),
			    "E01");
	assert_string_equal(send_str(gc, "QTDPsrc:1:ffffffff81000000:foo:0:1:77"),
			    "E01");
	assert_true(send_str(gc, "qTfP")[0] == 'T');
	assert_string_equal(send_str(gc, "qTsP"),
			    "Z1:ffffffff81000000:at:0:4:776f726b");
	assert_string_equal(send_str(gc, "qTsP"), "l");
	gtp_conn_close(gc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_bytes),
		cmocka_unit_test(test_random_payloads),
		cmocka_unit_test(test_mutated_sessions),
		cmocka_unit_test(test_real_sessions_collect),
		cmocka_unit_test(test_store_stress),
		cmocka_unit_test(test_qtbuffer_cache_across_runs),
		cmocka_unit_test(test_console_flood),
		cmocka_unit_test(test_trace_scan_bounded),
		cmocka_unit_test(test_refused_chunk_has_no_effect),
		cmocka_unit_test(test_circular_head_at_end),
		cmocka_unit_test(test_tframe_info_lists_every_block),
		cmocka_unit_test(test_qtnotes_non_hex_refused),
		cmocka_unit_test(test_qtdpsrc_checked),
	};

	env_setup();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
