/* SPDX-License-Identifier: GPL-2.0 */
/*
 * entryval.h - entry values: what a register held when the function
 * containing a tracepoint's location was entered.
 *
 * Optimized code often describes a parameter, once its register has been
 * reused, as DW_OP_entry_value(DW_OP_regN): "what regN held on entry".
 * gdb cannot compile that op into an agent expression, so "collect
 * $locals" fails at such a pc.  gtp's gdb scripts load the kernel's (or a
 * module's) DWARF with each such op rewritten in place, same length, to
 * "DW_OP_const1u K; DW_OP_deref", K = GTP_EV_BASE + 8 * N
 * (gdb-scripts/gtpgdb/entryval.py).  gdb then compiles "read 8 bytes at K"
 * ("const8 K; trace_quick 8; ref64"), and reads K back from the frame in
 * tfind mode like any collected memory.
 *
 * No kernel memory is mapped that low (the first page never is), so a
 * read or a collection in [GTP_EV_BASE, GTP_EV_END) during a hit is
 * served from the argument registers the host recorded when the hit's
 * function was entered (host.h @entry_reg), and nothing else reads there.
 * Only the argument registers can be asked for: what ftrace saves at a
 * function's entry without a full register save (see gtp_ev_reg_ok()).
 */
#ifndef GTP_ENTRYVAL_H
#define GTP_ENTRYVAL_H

#include "ax.h"

#define GTP_EV_BASE	0x10ULL
#define GTP_EV_END	0x80ULL		/* DWARF registers 0..13 */

struct gtp_tp;
struct gtp_fbuild;

static inline bool gtp_ev_addr(u64 addr)
{
	return addr >= GTP_EV_BASE && addr < GTP_EV_END;
}

/* rdx, rcx, rsi, rdi, r8, r9 in DWARF's numbering */
static inline bool gtp_ev_reg_ok(u32 dwreg)
{
	return dwreg < 16 && ((1u << dwreg) & 0x336);
}

int gtp_ev_read(struct ax_env *env, u64 addr, void *dst, u32 size);
int gtp_ev_trace(struct gtp_fbuild *fb, struct ax_env *env, u64 addr,
		 u32 size);
bool gtp_tp_reads_entry(const struct gtp_tp *tp);

#endif /* GTP_ENTRYVAL_H */
