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
 * qXfer:statictrace:read formats a record as "name=value ..." text with the
 * event's field names (gtp_sdata_format()).
 */
#ifndef GTP_STATIC_DATA_H
#define GTP_STATIC_DATA_H

#include "compat.h"

#define GTP_SDATA_MAX_ARGS	12	/* TP_PROTO never has more in 6.1 */
#define GTP_SDATA_REG_ARGS	5	/* rsi, rdx, rcx, r8, r9 */

/*
 * Registers at the static probe's entry.  @regs must stay first: hit
 * callbacks get &sr->regs and cast back.  The trampoline allocates this on
 * its stack and relies on its size (checked with BUILD_BUG_ON).
 */
struct gtp_static_regs {
	struct pt_regs regs;
	u32 nargs;		/* event arguments after the data pointer */
	u32 reserved;
	u64 pad;		/* keeps the frame a multiple of 16 minus 8 */
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

#endif /* GTP_STATIC_DATA_H */
