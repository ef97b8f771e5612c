/* SPDX-License-Identifier: GPL-2.0 */
/*
 * plan.h - what a tracepoint's hits have to do, decided before any hit
 * (plan.c).
 */
#ifndef GTP_PLAN_H
#define GTP_PLAN_H

#include "tracepoint.h"

/*
 * The bytes every frame of @tp takes at least: header, R/'r' blocks, M blocks
 * (expressions record a size known only at the hit, so they count 0).
 */
u64 gtp_tp_min_frame_len(const struct gtp_tp *tp);

/*
 * Can @cond fail in nothing, read no memory and no gdb register outside
 * @regs (bit i = register i)?  Then a probe that saved only those may run
 * it before saving anything else.
 */
bool gtp_cond_reads_only(const struct ax_prog *cond, u64 regs);

/* Can @cond run at any time, with no trace, TSV or output effect? */
bool gtp_cond_is_pure(const struct ax_prog *cond);

/*
 * @rs: the 'r' block (regs.h) an R action of @regmask writes, or mask 0
 * when it writes an 'R' block (a mask naming most registers).
 */
void gtp_rsub_plan(u64 regmask, struct gtp_rsub *rs);

/*
 * The size every frame of @tp has, if the actions alone fix it (registers,
 * expressions that record nothing and, since one that runs out of the
 * hit's budget ends the hit there, come after the last R action); 0 if it
 * is known only at the hit.  Needs the actions' noop marks (gtp_tp_plan()).
 */
u32 gtp_tp_exact_frame_len(const struct gtp_tp *tp);

/*
 * Decide once, when the actions change, what a hit has to do: the exact
 * frame size, which expressions can be skipped (tp->actions[].noop) and
 * whether a frame is its header and at most one R block (tp->lean), and
 * each R action's block ('R' or 'r': gtp_rsub_plan()).
 */
void gtp_tp_plan(struct gtp_tp *tp);

/*
 * At QTStart, when gdb has named its variables, first of all: fill every
 * tracepoint's programs' bound facts (ax.h struct ax_bound), in one pass
 * each, which everything QTStart decides from them then reads (return
 * probes, entry values, aggregation-only hits, the host's probe choices).
 * No definition changes while the trace is armed or running (QTDV and
 * QTDP are refused), and the next QTStart binds again.  Returns what the
 * run's programs name together (the union of their facts), for what
 * QTStart decides for the whole run: trigger chains, counters.
 */
struct ax_bound gtp_tps_bind(void);

/*
 * At QTStart, after gtp_tps_bind(): which tracepoints only
 * feed aggregating variables and so write no frame (tp->agg_only).
 */
void gtp_tps_plan_aggs(void);

#endif /* GTP_PLAN_H */
