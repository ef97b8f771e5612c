/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rsp.h - GDB remote serial protocol framing, independent of the transport.
 *
 * gdb writes a byte stream into /proc/gtp; rsp_feed() cuts it into packets
 * ($data#cc), checks them, acks them and hands each good one to the
 * connection's handler, which builds its reply with the rsp_reply_*()
 * helpers.  Framed output (acks, console 'O' packets, replies) accumulates
 * in an output queue that the transport drains with rsp_out_read().
 */
#ifndef GTP_RSP_H
#define GTP_RSP_H

#include "compat.h"

/*
 * Largest packet payload we accept and largest reply we build.  We
 * advertise PacketSize=RSP_PKT_MAX-1 so gdb never sends more.
 */
#define RSP_PKT_MAX	0x4000
/* Output queue: room for several worst-case (fully escaped) replies. */
#define RSP_OUT_MAX	(4 * RSP_PKT_MAX + 64)
/* Free output space needed before we start parsing another packet. */
#define RSP_OUT_RESERVE	(2 * RSP_PKT_MAX + 2048)

struct rsp_conn;

/*
 * Called once per good packet.  @pkt is the unescaped payload, NUL
 * terminated (a payload containing NUL is still passed whole via @len).
 */
typedef void (*rsp_handler_t)(struct rsp_conn *c, char *pkt, size_t len);

enum rsp_state {
	RSP_IDLE,	/* between packets: '+', '-', '\x03' and junk */
	RSP_DATA,	/* after '$' */
	RSP_ESC,	/* after '}' inside the data */
	RSP_CSUM1,	/* after '#' */
	RSP_CSUM2,
};

struct rsp_conn {
	/* input side */
	enum rsp_state state;
	u8 sum;			/* running checksum of the raw data bytes */
	u8 rx_sum;		/* checksum as sent */
	bool sum_bad;		/* checksum digits were not hex */
	bool overflow;		/* packet longer than RSP_PKT_MAX */
	char *in;
	size_t in_len;

	/* reply under construction */
	char *reply;
	size_t reply_len;
	bool reply_overflow;
	bool no_reply;		/* handler asked for no reply at all ('k') */

	/* framed bytes waiting for read() */
	char *out;
	size_t out_start, out_end;

	bool noack;		/* QStartNoAckMode accepted */
	unsigned long interrupts;	/* '\x03' bytes seen */
	unsigned long bad_packets;	/* checksum failures ('-' sent) */

	rsp_handler_t handler;
	void *priv;		/* the handler's connection state */
};

int rsp_init(struct rsp_conn *c, rsp_handler_t handler, void *priv);
void rsp_destroy(struct rsp_conn *c);

size_t rsp_feed(struct rsp_conn *c, const char *buf, size_t len);
size_t rsp_out_read(struct rsp_conn *c, char *buf, size_t len);

/* Bytes of framed output waiting to be read. */
static inline size_t rsp_out_pending(const struct rsp_conn *c)
{
	return c->out_end - c->out_start;
}

/* Can rsp_feed() start another packet without running out of room? */
static inline bool rsp_out_has_room(const struct rsp_conn *c)
{
	return RSP_OUT_MAX - rsp_out_pending(c) >= RSP_OUT_RESERVE;
}

/* Reply builders (only valid inside the handler). */
void rsp_reply_str(struct rsp_conn *c, const char *s);
void rsp_reply_mem(struct rsp_conn *c, const void *p, size_t n);
void rsp_reply_hex(struct rsp_conn *c, const void *p, size_t n);
void rsp_reply_printf(struct rsp_conn *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
size_t rsp_reply_room(const struct rsp_conn *c);
void rsp_reply_reset(struct rsp_conn *c);

/*
 * For a formatter with snprintf()'s contract, which other code also calls
 * into its own buffers (the stream's definitions use the upload
 * formatters): where it writes the reply's next bytes and how much room
 * it has, NUL included; then what it returned, which rsp_reply_added()
 * checks for room as rsp_reply_printf() does.
 */
char *rsp_reply_tail(struct rsp_conn *c, size_t *size);
void rsp_reply_added(struct rsp_conn *c, int n);

void rsp_console(struct rsp_conn *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void rsp_send_packet(struct rsp_conn *c, const char *data, size_t n);

/* Small hex helpers shared by the packet handlers. */
int rsp_hexval(int ch);
int rsp_hex2bin(const char *hex, size_t nhex, u8 *out);
const char *rsp_parse_hex(const char *s, u64 *val);

#endif /* GTP_RSP_H */
