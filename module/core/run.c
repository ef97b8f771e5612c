// SPDX-License-Identifier: GPL-2.0
/*
 * run.c - the state of a trace run that probes and readers share (run.h).
 *
 * "running" is the one flag probe handlers read (gtp_trace_running()); it
 * is set after everything a handler needs exists and cleared first when
 * stopping.  Probes attached to a stopped trace return at once, so a stop
 * decided in probe context (full buffer, pass count) needs no detaching
 * there; trace.c detaches later in process context (QTStop, QTinit,
 * QTStart, close).
 */
#include "run.h"
#include "frame.h"

atomic_long_t gtp_trace_run_flag;	/* "running", run.h */
struct gtp_run gtp_run;

bool gtp_trace_busy(void)
{
	return gtp_run.armed || gtp_trace_running();
}

/* Clear "running" once; the first stopper records why and when. */
bool gtp_run_stop(enum gtp_stop_reason why, u32 tpnum)
{
	if (atomic_long_cmpxchg(&gtp_trace_run_flag, 1, 0) != 1)
		return false;
	gtp_run.stop_reason = why;
	gtp_run.stop_tp = tpnum;
	gtp_run.stop_us = gtp_real_us();
	return true;
}

bool gtp_trace_frames_readable(void)
{
	if (gtp_trace_running())
		return false;
	/* Writers that saw "running" before it cleared are shut out here. */
	gtp_frames_stop();
	return true;
}

bool gtp_trace_in_readonly(u64 addr, u64 len)
{
	u32 i;

	for (i = 0; i < gtp_run.nro; i++)
		if (addr >= gtp_run.ro[i].start &&
		    addr + len <= gtp_run.ro[i].end && addr + len >= addr)
			return true;
	return false;
}
