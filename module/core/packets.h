/* SPDX-License-Identifier: GPL-2.0 */
/*
 * packets.h - one gdb connection and the packet dispatch table.
 *
 * Each area of the agent (base protocol, tracepoints, static tracepoints...)
 * owns a struct gtp_pkt_table: the packets it answers, the qSupported
 * features it adds, and what to do when the connection goes away.  Tables
 * are registered once at init; gtp_dispatch() asks them in registration
 * order and answers the empty packet ("unsupported") when nobody matches.
 *
 * Locking: the transport (module/main.c) serialises everything under one
 * mutex, so handlers never race each other or registration.
 */
#ifndef GTP_PACKETS_H
#define GTP_PACKETS_H

#include "rsp.h"

struct gtp_conn;

/*
 * Where 'g' and 'm' read from.  NULL means the live kernel; selecting a
 * trace frame installs the frame's view.
 */
struct gtp_view_ops {
	/* Append the 'g' reply for this view to the reply. */
	void (*regs)(struct gtp_conn *gc);
	/*
	 * Copy up to @len bytes at @addr into @buf; return the bytes
	 * available from @addr on (0 if none).
	 */
	size_t (*mem)(struct gtp_conn *gc, u64 addr, u8 *buf, size_t len);
};

/*
 * Cursors of the packets that hand a table out piece by piece, one struct
 * per table.  Each is touched only by the file named above it, the one
 * that answers those packets; code that needs a table's text calls that
 * file's formatter (the stream's definitions do) instead of asking with
 * packets.
 */
/* tp_upload.c: qTfP/qTsP */
struct gtp_tp_upload {
	u32 tp;			/* the location, in gtp_tps order */
	u32 piece;		/* its piece to send next */
};

/* tsv.c: qTfV/qTsV */
struct gtp_tsv_upload {
	u32 next;		/* the variable to send next */
};

/* traceframe.c: qTBuffer */
struct gtp_tbuffer_pos {
	u64 idx, off;		/* last frame read and its offset */
	bool reading;		/* a read (tsave) is under way */
	u64 taken;		/* gtp_frames_taken() when it began */
};

/* module/static_tp.c: qTfSTM/qTsSTM */
struct gtp_stm_upload {
	unsigned int next;	/* the marker to send next */
};

struct gtp_conn {
	struct rsp_conn rsp;
	const struct gtp_view_ops *view;
	u8 *scratch;			/* RSP_PKT_MAX bytes for handlers */
	bool killed;			/* gdb sent 'k' */

	/* selected trace frame, -1 = live (traceframe.c selects it) */
	long frame;
	u64 frame_taken;		/* gtp_frames_taken() when selected */

	struct gtp_tp_upload tp_upload;
	struct gtp_tsv_upload tsv_upload;
	struct gtp_tbuffer_pos tbuffer;
	struct gtp_stm_upload stm_upload;
};

#define GTP_PKT_EXACT	0x1	/* name must match the whole packet */

struct gtp_pkt_handler {
	const char *name;		/* packet name, or its prefix */
	unsigned int flags;
	/* @args: the packet after @name, NUL terminated */
	void (*fn)(struct gtp_conn *gc, char *args);
};

struct gtp_pkt_table {
	const struct gtp_pkt_handler *handlers;	/* ends with name == NULL */
	const char *features;	/* for qSupported, e.g. "tracenz+", or NULL */
	void (*on_close)(struct gtp_conn *gc);	/* connection dropped */
	void (*on_detach)(struct gtp_conn *gc);	/* 'D' packet */
	struct gtp_pkt_table *next;
};

void gtp_packets_register(struct gtp_pkt_table *t);
void gtp_packets_init(void);

struct gtp_conn *gtp_conn_open(void);
void gtp_conn_close(struct gtp_conn *gc);
void gtp_dispatch(struct gtp_conn *gc, char *pkt, size_t len);

/* Reply helpers for handlers. */
static inline struct rsp_conn *gtp_rsp(struct gtp_conn *gc)
{
	return &gc->rsp;
}

#define gtp_reply(gc, s)	rsp_reply_str(&(gc)->rsp, (s))
#define gtp_replyf(gc, ...)	rsp_reply_printf(&(gc)->rsp, __VA_ARGS__)
#define gtp_console(gc, ...)	rsp_console(&(gc)->rsp, __VA_ARGS__)

/* "E01"-style error reply, after an optional console explanation. */
void gtp_reply_error(struct gtp_conn *gc, int code);

/* Answer a qXfer read of @obj for the "OFF,LEN" in @range. */
void gtp_reply_xfer(struct gtp_conn *gc, const char *obj, size_t objlen,
		    const char *range);

/* The live view and the x86-64 register block size we report in 'g'. */
#define GTP_G_SIZE	164	/* rax..gs in gdb's amd64 remote order */
extern const struct gtp_view_ops gtp_live_view;

#endif /* GTP_PACKETS_H */
