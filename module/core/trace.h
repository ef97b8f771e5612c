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
#include "run.h"	/* the state probes and readers share */

void gtp_trace_init(void);
void gtp_trace_exit(void);

/* Process context: stop and detach, gdb's tstatus shows @why. */
void gtp_trace_stop_error(const char *why, u32 tpnum);

#endif /* GTP_TRACE_H */
