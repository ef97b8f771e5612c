/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stream.h - the live consumer: the frame store as a stream of records.
 *
 * /proc/gtp_stream (module/stream.c) hands this byte stream to a reader
 * (gtp-ctl stream) while tracing runs.  Records, little endian, each a
 * struct gtp_stream_rec then @len payload bytes (a multiple of 8):
 *
 *	DEFS	first in each run, in pieces numbered by seq from 0: text
 *		lines describing the run (clock, CPUs, buffer, trace state
 *		variables and tracepoints as qTfV / qTfP pieces, $_sdata
 *		field names), whole lines in each piece, at most 64 KiB; the
 *		last piece ends with the line "end"
 *	PACKET	one CPU's sub-buffer: ring records (struct ring_record, each
 *		followed by one gdb trace-file frame), oldest first
 *	END	once per CPU, after the run stopped and that CPU is drained
 *
 * The reader polls: a read with nothing to hand out returns -EAGAIN at
 * once, and nothing on the probe path ever wakes anyone (Beamonte and
 * Dagenais: waking the consumer from the probe made the worst case 300x
 * the mean).  docs/streaming.md documents the format for users.
 */
#ifndef GTP_STREAM_H
#define GTP_STREAM_H

#include "compat.h"

#define GTP_STREAM_MAGIC	0x53505447	/* "GTPS" */
#define GTP_STREAM_VERSION	3	/* 3: frames may hold 'r' blocks */

enum gtp_stream_type {
	GTP_STREAM_DEFS = 1,
	GTP_STREAM_PACKET = 2,
	GTP_STREAM_END = 3,
};

struct gtp_stream_rec {
	u32 magic;
	u16 type;
	u16 cpu;		/* PACKET, END */
	u32 len;		/* payload bytes after this header */
	u32 run;		/* run number: +1 at every QTStart */
	u64 ts_begin;		/* PACKET: first record; DEFS: run start */
	u64 ts_end;		/* PACKET: last record */
	u64 seq;		/* PACKET: the CPU's sub-buffer number;
				 * DEFS: the piece's number in the run */
	u64 lost;		/* PACKET, END: the CPU's lost frames so far */
};

struct gtp_stream;

/* Copy @n bytes from @src to the reader's buffer at offset @off. */
typedef int (*gtp_stream_copy_t)(void *ctx, size_t off, const void *src,
				 size_t n);

struct gtp_stream *gtp_stream_open(void);
void gtp_stream_close(struct gtp_stream *s);
long gtp_stream_read(struct gtp_stream *s, gtp_stream_copy_t copy, void *ctx,
		     size_t count);

#endif /* GTP_STREAM_H */
