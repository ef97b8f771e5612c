/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run.h - the state of a trace run that probes and readers share.
 *
 * trace.c's packets start and stop a run.  A probe that must stop it (a
 * full buffer, a pass count, $gtp_stop) writes that here and does not call
 * up into them: it clears "running" and records why; the probes stay
 * attached (and return at once) until process context detaches them.
 * Readers (traceframe.c, stream.c) ask here whether the frames can be
 * read and which memory QTro declared read-only.
 */
#ifndef GTP_RUN_H
#define GTP_RUN_H

#include "compat.h"

enum gtp_stop_reason {
	GTP_STOP_NOTRUN,	/* never ran (or still running) */
	GTP_STOP_USER,		/* QTStop */
	GTP_STOP_FULL,		/* buffer full, not circular */
	GTP_STOP_DISCONNECTED,	/* gdb went away, disconnected tracing off */
	GTP_STOP_PASSCOUNT,	/* a tracepoint reached its pass count */
	GTP_STOP_TRIGGER,	/* an action set $gtp_stop (tsv.c) */
	GTP_STOP_ERROR,		/* the host had to (gtp_trace_stop_error()) */
	GTP_STOP_BUDGET,	/* a probe spent more than its CPU budget */
};

#define GTP_DEFAULT_BUF_SIZE	(4 << 20)	/* QTBuffer:size */
#define GTP_MAX_BUF_SIZE	(1ull << 30)
#define GTP_MAX_RO	64

struct gtp_ro_range {
	u64 start, end;		/* end exclusive */
};

/*
 * Written by trace.c in process context, under the packet lock; the stop
 * fields also by the one stopper that clears gtp_trace_run_flag
 * (gtp_run_stop()), which may be a probe.
 */
struct gtp_run {
	bool armed;		/* probes attached */
	enum gtp_stop_reason stop_reason;
	u32 stop_tp;		/* the tracepoint that stopped it, or 0 */
	u64 stop_us;
	struct gtp_ro_range ro[GTP_MAX_RO];	/* QTro */
	u32 nro;
};

extern struct gtp_run gtp_run;

/* 1 while collecting: trace.c sets it, probe handlers read it inline. */
extern atomic_long_t gtp_trace_run_flag;

/* Probe context: collect? */
static inline bool gtp_trace_running(void)
{
	return atomic_long_read(&gtp_trace_run_flag) != 0;
}

bool gtp_trace_busy(void);	/* probes attached or running */

/*
 * Any context, probes included: clear "running" if it is set.  Only the
 * first stopper gets true and records @why and @tpnum for qTStatus.
 */
bool gtp_run_stop(enum gtp_stop_reason why, u32 tpnum);

/* Make the frames readable: stop writers if the run is over. */
bool gtp_trace_frames_readable(void);

/* Is [addr, addr+len) inside a QTro range (answer from live memory)? */
bool gtp_trace_in_readonly(u64 addr, u64 len);

#endif /* GTP_RUN_H */
