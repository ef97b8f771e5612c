/* SPDX-License-Identifier: GPL-2.0 */
/*
 * static_data.h - what a static tracepoint hit hands to the tracepoint
 * code, and the $_sdata record ('L' action) built from it.
 *
 * A static tracepoint is a probe on a kernel tracepoint (TRACE_EVENT).  Its
 * entry trampoline (module/static_tp_entry.S) saves the registers exactly
 * as the probe received them into a struct gtp_static_regs, so that the
 * event's arguments sit where the tracepoint's __traceiter_NAME() function
 * receives them (SysV ABI):
 *
 *	rdi = probe data   rsi, rdx, rcx, r8, r9 = args 1..5   [sp+8] = arg 6...
 *
 * and regs.ip is the marker address (__traceiter_NAME), so a condition gdb
 * compiled at that address from DWARF reads the right registers.  The hit
 * callback gets &sr->regs; a tracepoint that knows it is static recovers
 * the rest with gtp_static_regs().
 *
 * The 'L' action (collect $_sdata) stores the raw argument words, nothing
 * formatted on the probe path:
 *
 *	struct gtp_sdata_rec { u64 addr; u32 nwords; u32 unread; u64 words[] }
 *
 * In a trace frame the record is an 'M' block at GTP_SDATA_ADDR, because
 * gdb's trace-file reader rejects any block type but R/M/V (protocol ref
 * 6.3) and qTBuffer hands gdb our frames verbatim.  That address is the
 * last page of the address space (the ERR_PTR range), never mapped, so it
 * cannot shadow memory a user collected; gdb's tfile target just sees a
 * few bytes of memory there.
 *
 * qXfer:statictrace:read formats a record as "name=value ..." text with the
 * event's field names (gtp_sdata_format()).
 *
 * qTSTMat gating: gtp_static_on_qtinit()/on_start()/on_stop() are called by
 * the trace run code (core/trace.c) and keep qTSTMat answering "no marker"
 * outside QTinit..QTStart, which is what lets stock gdb's `strace` live
 * (docs/static-tracepoints.md).  They live here, in the portable core, so
 * that the trace run code calls them in the unit tests too.
 */
#ifndef GTP_STATIC_DATA_H
#define GTP_STATIC_DATA_H

#include "compat.h"

#define GTP_SDATA_MAX_ARGS	12	/* TP_PROTO never has more in 6.1 */
#define GTP_SDATA_REG_ARGS	5	/* rsi, rdx, rcx, r8, r9 */
#define GTP_SDATA_ADDR		0xfffffffffffff000ULL	/* frame 'M' block */

struct gtp_fbuild;

/*
 * Registers at the static probe's entry.  @regs must stay first: hit
 * callbacks get &sr->regs and cast back.  The trampoline allocates this on
 * its stack and relies on its size (checked with BUILD_BUG_ON).
 */
struct gtp_static_regs {
	struct pt_regs regs;
	u32 nargs;		/* event arguments after the data pointer */
	u32 slot;		/* this hit's nesting slot on its CPU (nest.h) */
	u32 cond_held;		/* the entry's fast condition held: its
				 * environment follows, with the hit's budget */
	u32 pad;		/* keeps the frame a multiple of 16 minus 8 */
};

static inline const struct gtp_static_regs *
gtp_static_regs(const struct pt_regs *regs)
{
	return (const struct gtp_static_regs *)regs;
}

/* The $_sdata record: one per 'L' action in a frame. */
struct gtp_sdata_rec {
	u64 addr;		/* marker address: names the event */
	u32 nwords;		/* words[] that follow */
	u32 unread;		/* bit i: stack word i could not be read */
	u64 words[];		/* argument i+1, as passed (not extended) */
};

/* How to print one argument word. */
struct gtp_sdata_field {
	const char *name;
	u8 size;		/* bytes that matter: 1, 2, 4 or 8 */
	bool is_signed;
};

/* Bytes of the record for @nargs arguments. */
static inline u32 gtp_sdata_size(u32 nargs)
{
	return sizeof(struct gtp_sdata_rec) + nargs * sizeof(u64);
}

u32 gtp_sdata_collect(const struct pt_regs *regs, void *dst, u32 room);
int gtp_sdata_format(const struct gtp_sdata_rec *rec, u32 len,
		     const struct gtp_sdata_field *fields, u32 nfields,
		     char *buf, size_t size);

/* The 'L' action: append the record as an 'M' block at GTP_SDATA_ADDR. */
int gtp_fb_sdata(struct gtp_fbuild *fb, const struct pt_regs *regs);

/*
 * Find the $_sdata record in a stored frame (gdb trace-file format).
 * Returns 0 with the record's offset and length in the frame, or -ENOENT.
 */
int gtp_frame_sdata_find(const u8 *frame, u32 flen, u32 *off, u32 *len);

void gtp_static_on_qtinit(void);
void gtp_static_on_start(void);
void gtp_static_on_stop(void);
bool gtp_static_stmat_open(void);

#endif /* GTP_STATIC_DATA_H */
