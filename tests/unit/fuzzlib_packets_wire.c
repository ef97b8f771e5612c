// SPDX-License-Identifier: GPL-2.0
/*
 * fuzzlib_packets_wire.c - gdb's side of /proc/gtp for the packet fuzzers
 * (see fuzzlib_packets.h).
 *
 * Packets are framed the way gdb frames them and fed in random pieces as
 * gtp_write() does; what comes back is parsed byte by byte, and it must
 * be acks and well-framed packets only (nothing half-written), with
 * exactly one reply per packet, after console 'O' packets, of the shape
 * gdb expects for that packet.
 */
#include "fuzzlib_packets.h"

/* ---- the output side: what gdb would read ----------------------------- */

struct fuzz_out gdb_out;

void collect_reset(void)
{
	gdb_out.npkts = 0;
	gdb_out.acks = gdb_out.naks = 0;
}

void out_byte(char ch)
{
	unsigned int k;
	int d;

	switch (gdb_out.state) {
	case 0:
		if (ch == '+') {
			gdb_out.acks++;
		} else if (ch == '-') {
			gdb_out.naks++;
		} else {
			FZ_CHECK(ch == '$', "junk byte 0x%02x between packets",
				 (u8)ch);
			gdb_out.state = 1;
			gdb_out.sum = 0;
			gdb_out.cur_len = 0;
		}
		break;
	case 1:
		if (ch == '#') {
			gdb_out.state = 3;
			break;
		}
		FZ_CHECK(ch != '$' && ch != '*',
			 "unescaped '%c' inside a reply", ch);
		gdb_out.sum += (u8)ch;
		if (ch == '}') {
			gdb_out.state = 2;
			break;
		}
		FZ_CHECK(gdb_out.cur_len < RSP_PKT_MAX, "reply longer than PacketSize");
		gdb_out.cur[gdb_out.cur_len++] = ch;
		break;
	case 2:
		gdb_out.sum += (u8)ch;
		FZ_CHECK(gdb_out.cur_len < RSP_PKT_MAX, "reply longer than PacketSize");
		gdb_out.cur[gdb_out.cur_len++] = ch ^ 0x20;
		gdb_out.state = 1;
		break;
	case 3:
	case 4:
		d = rsp_hexval(ch);
		FZ_CHECK(d >= 0 && !(ch >= 'A' && ch <= 'F'),
			 "bad checksum digit 0x%02x", (u8)ch);
		gdb_out.rx = gdb_out.state == 3 ? d << 4 : gdb_out.rx | d;
		if (gdb_out.state == 3) {
			gdb_out.state = 4;
			break;
		}
		FZ_CHECK(gdb_out.rx == gdb_out.sum, "reply checksum %02x, computed %02x",
			 gdb_out.rx, gdb_out.sum);
		/* Past MAX_PKTS, keep overwriting the last slot: the reply. */
		k = min_t(unsigned int, gdb_out.npkts, MAX_PKTS - 1);
		memcpy(gdb_out.pkts[k], gdb_out.cur, gdb_out.cur_len);
		gdb_out.pkts[k][gdb_out.cur_len] = '\0';
		gdb_out.pkt_len[k] = gdb_out.cur_len;
		gdb_out.npkts++;
		gdb_out.state = 0;
		break;
	}
}

void drain(struct gtp_conn *gc)
{
	static char buf[RSP_OUT_MAX];
	size_t n, i;

	while ((n = rsp_out_read(&gc->rsp, buf, 1 + below(sizeof(buf)))))
		for (i = 0; i < n; i++)
			out_byte(buf[i]);
}

/* gtp_write(): feed in pieces, let the reader drain when there is no room. */
void feed(struct gtp_conn *gc, const char *buf, size_t len)
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
	FZ_CHECK(gdb_out.state == 0, "output ends inside a packet");
}

/* ---- framing packets the way gdb does --------------------------------- */

size_t frame_pkt(char *dst, const char *data, size_t n)
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

bool is_hex_str(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (rsp_hexval(s[i]) < 0)
			return false;
	return true;
}

bool is_err(const char *r, size_t n)
{
	return n == 3 && r[0] == 'E' && is_hex_str(r + 1, 2);
}

bool starts(const char *s, const char *prefix)
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
		/* V<hits>:<usage>:<errors>:<last error>:<microseconds> */
		const char *p = r[0] == 'V' ? hexfield(r + 1, ':') : NULL;

		p = p ? hexfield(p, ':') : NULL;
		p = p ? hexfield(p, ':') : NULL;
		p = p ? hexfield(p, ':') : NULL;
		ok = p && hexfield(p, '\0') && !p[strspn(p, "0123456789abcdef")];
	} else if (starts(pkt, "qGtpFrameOrigin:")) {
		/* <cpu>:<ticks>:<khz> */
		const char *p = hexfield(r, ':');

		p = p ? hexfield(p, ':') : NULL;
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

bool noack;
struct fuzz_stats fuzz_stats;

static void count_reply(const char *pkt, const char *r)
{
	bool ok = !strcmp(r, "OK");

	if (starts(pkt, "QTDP:-"))
		fuzz_stats.actions_ok += ok;
	else if (starts(pkt, "QTDP:"))
		fuzz_stats.qtdp_ok += ok;
	else if (!strcmp(pkt, "QTStart"))
		fuzz_stats.qtstart_ok += ok;
	else if (starts(pkt, "QTFrame:"))
		fuzz_stats.frames_sel += r[0] == 'F' && r[1] != '-';
	else if (starts(pkt, "qTBuffer:"))
		fuzz_stats.tbuf_data += r[0] && r[0] != 'l' && r[0] != 'E';
	else if (pkt[0] == 'm')
		fuzz_stats.mem_data += r[0] && r[0] != 'E';
}

void print_stats(void)
{
	print_message("  seed %llu: QTDP ok %lu, actions ok %lu, QTStart ok %lu, hits stored %lu/%lu, QTFrame found %lu, qTBuffer data %lu, m data %lu\n",
		      (unsigned long long)base_seed, fuzz_stats.qtdp_ok,
		      fuzz_stats.actions_ok, fuzz_stats.qtstart_ok, fuzz_stats.frames,
		      fuzz_stats.hits, fuzz_stats.frames_sel, fuzz_stats.tbuf_data,
		      fuzz_stats.mem_data);
	memset(&fuzz_stats, 0, sizeof(fuzz_stats));
}

/*
 * Send one packet (raw payload) framed, and check that exactly the right
 * output came back: an ack (unless no-ack), console lines, one reply.
 * Returns the reply (NUL terminated, in gdb_out.pkts) or NULL for 'k'.
 */
const char *send_pkt(struct gtp_conn *gc, const char *data, size_t n)
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
	FZ_CHECK(gdb_out.naks == 0, "good checksum NAKed");
	FZ_CHECK(gdb_out.acks == (was_noack ? 0u : 1u), "%u acks for one packet",
		 gdb_out.acks);
	if (is_kill) {
		FZ_CHECK(gdb_out.npkts == 0, "reply to 'k'");
		return NULL;
	}
	FZ_CHECK(gdb_out.npkts >= 1, "no reply");
	last = min_t(unsigned int, gdb_out.npkts, MAX_PKTS) - 1;
	for (i = 0; i < last; i++)
		FZ_CHECK(gdb_out.pkts[i][0] == 'O' && gdb_out.pkt_len[i] > 1 &&
			 (gdb_out.pkt_len[i] & 1) &&
			 is_hex_str(gdb_out.pkts[i] + 1, gdb_out.pkt_len[i] - 1),
			 "extra packet \"%.60s\" is not console output",
			 gdb_out.pkts[i]);
	r = gdb_out.pkts[last];
	memcpy(copy, data, n);
	copy[n] = '\0';
	if (too_long) {
		FZ_CHECK(is_err(r, gdb_out.pkt_len[last]),
			 "oversized packet not refused");
	} else if (strlen(copy) == n) {
		check_reply(copy, n, r, gdb_out.pkt_len[last]);
	}
	/* a refused definition says why on gdb's console */
	if (!too_long && is_err(r, gdb_out.pkt_len[last]) &&
	    (starts(copy, "QTDP") || starts(copy, "QTDV:")))
		FZ_CHECK(last >= 1, "\"%.60s\" refused without a console line",
			 copy);
	count_reply(copy, r);
	if (!strcmp(copy, "QStartNoAckMode") && !strcmp(r, "OK"))
		noack = true;
	return r;
}

const char *send_str(struct gtp_conn *gc, const char *s)
{
	return send_pkt(gc, s, strlen(s));
}
