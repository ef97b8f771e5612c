// SPDX-License-Identifier: GPL-2.0
/*
 * rsp.c - GDB remote serial protocol framing (portable core).
 *
 * Input is a byte stream with no alignment to packets: one write() may hold
 * half a packet, several packets, acks ('+'/'-') or an interrupt ('\x03').
 * A small state machine walks it byte by byte:
 *
 *   IDLE --'$'--> DATA --'#'--> CSUM1 --hex--> CSUM2 --hex--> (packet) IDLE
 *                  |  ^                                  bad sum: '-'
 *                 '}' | any byte (stored as byte ^ 0x20)
 *                  v  |
 *                  ESC
 *
 * A '$' inside DATA restarts the packet (gdb does the same on its side: the
 * sender gave up on the old one).  Anything else in IDLE is ignored, which
 * covers the '+' gdb writes before its first packet and after our replies.
 *
 * Order of output for one packet: the ack '+' (unless no-ack mode) first,
 * because gdb in ack mode throws away a '$' that arrives where it waits for
 * the '+'; then any console 'O' packets the handler emits; then the reply.
 *
 * Replies escape '#', '$', '}' and '*' ('*' would start a run-length
 * sequence in gdb's reader).  We never send RLE ourselves.
 */
#include "rsp.h"

int rsp_init(struct rsp_conn *c, rsp_handler_t handler, void *priv)
{
	memset(c, 0, sizeof(*c));
	c->in = gtp_malloc(RSP_PKT_MAX + 1);
	c->reply = gtp_malloc(RSP_PKT_MAX + 1);
	c->out = gtp_malloc(RSP_OUT_MAX);
	if (!c->in || !c->reply || !c->out) {
		rsp_destroy(c);
		return -ENOMEM;
	}
	c->handler = handler;
	c->priv = priv;
	return 0;
}

void rsp_destroy(struct rsp_conn *c)
{
	gtp_free(c->in);
	gtp_free(c->reply);
	gtp_free(c->out);
	c->in = c->reply = c->out = NULL;
}

/* Append raw bytes to the output queue; the caller checked the room. */
static void out_put(struct rsp_conn *c, const char *p, size_t n)
{
	if (c->out_start == c->out_end)
		c->out_start = c->out_end = 0;
	if (RSP_OUT_MAX - c->out_end < n) {
		memmove(c->out, c->out + c->out_start, rsp_out_pending(c));
		c->out_end -= c->out_start;
		c->out_start = 0;
	}
	/* rsp_feed() keeps RSP_OUT_RESERVE free, so this cannot trigger. */
	if (WARN_ON_ONCE(RSP_OUT_MAX - c->out_end < n))
		return;
	memcpy(c->out + c->out_end, p, n);
	c->out_end += n;
}

static void out_putc(struct rsp_conn *c, char ch)
{
	out_put(c, &ch, 1);
}

static bool needs_escape(char ch)
{
	return ch == '#' || ch == '$' || ch == '}' || ch == '*';
}

/**
 * rsp_send_packet - frame @data as $data#cc into the output queue
 * @c:		the connection
 * @data:	the payload
 * @n:		its length
 *
 * Used for the reply and for unsolicited packets such as 'O' console
 * output.  Bytes that gdb would misread are escaped.
 */
void rsp_send_packet(struct rsp_conn *c, const char *data, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	char tail[3];
	u8 sum = 0;
	size_t i;

	out_putc(c, '$');
	for (i = 0; i < n; i++) {
		char ch = data[i];

		if (needs_escape(ch)) {
			out_putc(c, '}');
			sum += '}';
			ch ^= 0x20;
		}
		out_putc(c, ch);
		sum += (u8)ch;
	}
	tail[0] = '#';
	tail[1] = hex[sum >> 4];
	tail[2] = hex[sum & 0xf];
	out_put(c, tail, 3);
}

/**
 * rsp_out_read - move up to @len framed output bytes into @buf
 * @c:		the connection
 * @buf:	destination
 * @len:	room at @buf
 *
 * Return: the number of bytes copied (0 when nothing is queued).
 */
size_t rsp_out_read(struct rsp_conn *c, char *buf, size_t len)
{
	size_t n = min(len, rsp_out_pending(c));

	memcpy(buf, c->out + c->out_start, n);
	c->out_start += n;
	return n;
}

int rsp_hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* Decode @nhex hex digits (even) into @out.  Returns bytes or -EINVAL. */
int rsp_hex2bin(const char *hex, size_t nhex, u8 *out)
{
	size_t i;

	if (nhex & 1)
		return -EINVAL;
	for (i = 0; i < nhex / 2; i++) {
		int hi = rsp_hexval(hex[2 * i]), lo = rsp_hexval(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		out[i] = hi << 4 | lo;
	}
	return nhex / 2;
}

/*
 * Parse a hex number at @s into @val.  Returns a pointer just past it, or
 * NULL if there is no digit or it does not fit in 64 bits.
 */
const char *rsp_parse_hex(const char *s, u64 *val)
{
	const char *start = s;
	u64 v = 0;
	int d;

	while ((d = rsp_hexval(*s)) >= 0) {
		if (v >> 60)
			return NULL;
		v = v << 4 | d;
		s++;
	}
	if (s == start)
		return NULL;
	*val = v;
	return s;
}

/* A whole packet arrived: verify, ack, dispatch, frame the reply. */
static void rsp_packet_done(struct rsp_conn *c)
{
	if (c->sum_bad || c->sum != c->rx_sum) {
		/*
		 * Never act on a corrupt packet.  In ack mode '-' asks gdb to
		 * resend; in no-ack mode gdb resends nothing and times out.
		 */
		c->bad_packets++;
		if (!c->noack)
			out_putc(c, '-');
		return;
	}
	if (!c->noack)
		out_putc(c, '+');

	c->reply_len = 0;
	c->reply_overflow = false;
	c->no_reply = false;
	if (c->overflow) {
		/* Never act on a truncated packet. */
		rsp_reply_str(c, "E01");
	} else {
		c->in[c->in_len] = '\0';
		c->handler(c, c->in, c->in_len);
	}
	if (c->no_reply)
		return;
	if (c->reply_overflow) {
		c->reply_len = 0;
		rsp_reply_str(c, "E01");
	}
	rsp_send_packet(c, c->reply, c->reply_len);
}

static void in_putc(struct rsp_conn *c, char ch)
{
	if (c->in_len < RSP_PKT_MAX)
		c->in[c->in_len++] = ch;
	else
		c->overflow = true;
}

static void rsp_start_packet(struct rsp_conn *c)
{
	c->state = RSP_DATA;
	c->sum = 0;
	c->in_len = 0;
	c->overflow = false;
}

/* One byte of input; returns false if it was not consumed (no room). */
static bool rsp_byte(struct rsp_conn *c, char ch)
{
	int d;

	switch (c->state) {
	case RSP_IDLE:
		if (ch == '$') {
			if (!rsp_out_has_room(c))
				return false;
			rsp_start_packet(c);
		} else if (ch == '\x03') {
			c->interrupts++;
		}
		/* '+', '-' and junk between packets are ignored. */
		break;
	case RSP_DATA:
		if (ch == '$') {
			rsp_start_packet(c);
			break;
		}
		if (ch == '#') {
			c->state = RSP_CSUM1;
			break;
		}
		c->sum += (u8)ch;
		if (ch == '}')
			c->state = RSP_ESC;
		else
			in_putc(c, ch);
		break;
	case RSP_ESC:
		c->sum += (u8)ch;
		in_putc(c, ch ^ 0x20);
		c->state = RSP_DATA;
		break;
	case RSP_CSUM1:
		d = rsp_hexval(ch);
		c->sum_bad = d < 0;
		c->rx_sum = d < 0 ? 0 : d << 4;
		c->state = RSP_CSUM2;
		break;
	case RSP_CSUM2:
		d = rsp_hexval(ch);
		if (d < 0)
			c->sum_bad = true;
		else
			c->rx_sum |= d;
		c->state = RSP_IDLE;
		rsp_packet_done(c);
		break;
	}
	return true;
}

/**
 * rsp_feed - push bytes written by gdb through the parser
 * @c:		the connection
 * @buf:	the bytes
 * @len:	how many
 *
 * Complete packets are handled (and their replies queued) before this
 * returns.
 *
 * Return: the number of bytes consumed: less than @len only when the output
 * queue is too full to start another packet; the caller must let the reader
 * drain the queue and feed the rest again.
 */
size_t rsp_feed(struct rsp_conn *c, const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!rsp_byte(c, buf[i]))
			break;
	return i;
}

void rsp_reply_mem(struct rsp_conn *c, const void *p, size_t n)
{
	if (n > RSP_PKT_MAX - c->reply_len) {
		c->reply_overflow = true;
		return;
	}
	memcpy(c->reply + c->reply_len, p, n);
	c->reply_len += n;
}

void rsp_reply_str(struct rsp_conn *c, const char *s)
{
	rsp_reply_mem(c, s, strlen(s));
}

/* Bytes as two lowercase hex digits each. */
void rsp_reply_hex(struct rsp_conn *c, const void *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const u8 *b = p;
	size_t i;

	if (2 * n > RSP_PKT_MAX - c->reply_len) {
		c->reply_overflow = true;
		return;
	}
	for (i = 0; i < n; i++) {
		c->reply[c->reply_len++] = hex[b[i] >> 4];
		c->reply[c->reply_len++] = hex[b[i] & 0xf];
	}
}

void rsp_reply_printf(struct rsp_conn *c, const char *fmt, ...)
{
	size_t room = RSP_PKT_MAX - c->reply_len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(c->reply + c->reply_len, room + 1, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n > room) {
		c->reply_overflow = true;
		return;
	}
	c->reply_len += n;
}

/* Room left in the reply, in bytes. */
size_t rsp_reply_room(const struct rsp_conn *c)
{
	return RSP_PKT_MAX - c->reply_len;
}

char *rsp_reply_tail(struct rsp_conn *c, size_t *size)
{
	*size = RSP_PKT_MAX - c->reply_len + 1;
	return c->reply + c->reply_len;
}

void rsp_reply_added(struct rsp_conn *c, int n)
{
	if (n < 0 || (size_t)n > RSP_PKT_MAX - c->reply_len) {
		c->reply_overflow = true;
		return;
	}
	c->reply_len += n;
}

void rsp_reply_reset(struct rsp_conn *c)
{
	c->reply_len = 0;
	c->reply_overflow = false;
}

/**
 * rsp_console - send one line of text to gdb's console ('O' packet)
 * @c:		the connection
 * @fmt:	printf format of the line, then its arguments
 *
 * gdb prints it and keeps waiting for the real reply, which is how a
 * refused command explains itself before its 'E' reply.
 */
void rsp_console(struct rsp_conn *c, const char *fmt, ...)
{
	static const char hex[] = "0123456789abcdef";
	char text[256], pkt[1 + 2 * sizeof(text)];
	va_list ap;
	int n, i;

	va_start(ap, fmt);
	n = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	n = min_t(int, n, sizeof(text) - 1);
	/*
	 * The reply must still fit after this line ($, escaped payload, #cc):
	 * a handler with many lines to say loses the later ones, not bytes
	 * in the middle of a packet.
	 */
	if (RSP_OUT_MAX - rsp_out_pending(c) <
	    (size_t)(1 + 2 * n + 4) + 2 * RSP_PKT_MAX + 4)
		return;
	pkt[0] = 'O';
	for (i = 0; i < n; i++) {
		pkt[1 + 2 * i] = hex[(u8)text[i] >> 4];
		pkt[2 + 2 * i] = hex[text[i] & 0xf];
	}
	rsp_send_packet(c, pkt, 1 + 2 * n);
}
