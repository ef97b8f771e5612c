/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace.h - the trace experiment: run state and its packets.
 *
 * States: not armed (no probes) -> QTStart -> armed and running -> stopped
 * by QTStop, a full buffer, a pass count or a dropped connection.  A stop
 * decided in probe context only clears "running"; the probes stay attached
 * (and return at once) until process context detaches them.
 */
#ifndef GTP_TRACE_H
#define GTP_TRACE_H

#include "packets.h"

enum gtp_stop_reason {
	GTP_STOP_NOTRUN,	/* never ran (or still running) */
	GTP_STOP_USER,		/* QTStop */
	GTP_STOP_FULL,		/* buffer full, not circular */
	GTP_STOP_DISCONNECTED,	/* gdb went away, disconnected tracing off */
	GTP_STOP_PASSCOUNT,	/* a tracepoint reached its pass count */
	GTP_STOP_TRIGGER,	/* an action set $gtp_stop (tsv.c) */
	GTP_STOP_ERROR,		/* the host had to (gtp_trace_stop_error()) */
};

#define GTP_DEFAULT_BUF_SIZE	(4 << 20)
#define GTP_MAX_BUF_SIZE	(1ull << 30)

void gtp_trace_init(void);
void gtp_trace_exit(void);

/* 1 while collecting: trace.c writes it, probe handlers read it inline. */
extern atomic_long_t gtp_trace_run_flag;

/* Probe context: collect? */
static inline bool gtp_trace_running(void)
{
	return atomic_long_read(&gtp_trace_run_flag) != 0;
}
bool gtp_trace_busy(void);	/* probes attached or running */
void gtp_trace_stop_from_probe(enum gtp_stop_reason why, u32 tpnum);
/* Process context: stop and detach, gdb's tstatus shows @why. */
void gtp_trace_stop_error(const char *why, u32 tpnum);

/* Make the frames readable: stop writers if the run is over. */
bool gtp_trace_frames_readable(void);

/* Is [addr, addr+len) inside a QTro range (answer from live memory)? */
bool gtp_trace_in_readonly(u64 addr, u64 len);

#endif /* GTP_TRACE_H */
