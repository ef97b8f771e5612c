/* SPDX-License-Identifier: GPL-2.0 */
/*
 * collect.h - what happens when a tracepoint is hit.
 */
#ifndef GTP_COLLECT_H
#define GTP_COLLECT_H

#include "tracepoint.h"
#include "frame.h"

/* A frame being built in the host's per-CPU scratch buffer. */
struct gtp_fbuild {
	u8 *buf;
	u32 cap;
	u32 len;
	bool truncated;		/* something did not fit */
};

/*
 * The probe handler's whole job: check the condition, collect, store.
 * @scratch must be private to this CPU for the duration of the call.
 * Returns true if a frame was stored.
 */
bool gtp_tp_hit(struct gtp_tp *tp, struct pt_regs *regs, u8 *scratch,
		u32 cap);

/* Side effects of agent expressions in actions (the ax_hook_* bodies). */
int gtp_fb_trace(struct gtp_fbuild *fb, u64 addr, u32 size, bool upto_nul);
int gtp_fb_tracev(struct gtp_fbuild *fb, u32 tsv);

/*
 * The bytes every frame of @tp takes at least: header, R block, M blocks
 * (expressions record a size known only at the hit, so they count 0).
 */
u64 gtp_tp_min_frame_len(const struct gtp_tp *tp);

/*
 * The size every frame of @tp has, if the actions alone fix it (registers,
 * expressions that record nothing); 0 if it is known only at the hit.
 */
u32 gtp_tp_exact_frame_len(const struct gtp_tp *tp);

/* pt_regs in gdb's amd64 'g' layout (GTP_G_SIZE bytes), rip = @pc. */
void gtp_regs_to_g(const struct pt_regs *regs, u64 pc, u8 *out);

/* Value of gdb register @regno (0..16) from pt_regs. */
u64 gtp_reg_value(const struct pt_regs *regs, int regno);

#define GTP_SCRATCH_SIZE	(32 * 1024)	/* per-CPU frame build space */

#endif /* GTP_COLLECT_H */
