/* SPDX-License-Identifier: GPL-2.0 */
/*
 * host.h - what the portable tracing core needs from whoever links it.
 *
 * gtp.ko implements these in module/ (kprobes, clocks, the frame-store
 * lock); the unit tests implement them in tests/unit/user_trace.c.  They
 * are the only kernel-only services the tracepoint code uses.
 */
#ifndef GTP_HOST_H
#define GTP_HOST_H

#include "compat.h"

struct gtp_tp;
struct gtp_conn;

/*
 * Attach every tracepoint location (gtp_tps) that is not static: called by
 * QTStart under the packet lock.  On failure nothing stays attached and a
 * console message saying why has been sent on @gc.
 */
int gtp_host_arm(struct gtp_conn *gc);
/* Detach everything and wait until no probe handler runs any more. */
void gtp_host_disarm(void);
/* QTEnable/QTDisable while attached. */
void gtp_host_set_enabled(struct gtp_tp *tp, bool enabled);

/* Wall-clock microseconds (qTStatus starttime/stoptime); any context. */
u64 gtp_host_time_us(void);

/* Values of the built-in trace state variables at a hit (tsv.c). */
enum gtp_builtin_tsv {
	GTP_TSV_USER = 0,	/* not built in: an ordinary variable */
	GTP_TSV_CPU_ID,
	GTP_TSV_CURRENT_TASK,
	GTP_TSV_CURRENT_TASK_PID,
	GTP_TSV_CLOCK,
	GTP_TSV_RDTSC,
	GTP_TSV_HARDIRQ_COUNT,
	GTP_TSV_SOFTIRQ_COUNT,
	GTP_TSV_NR_BUILTIN,
};
s64 gtp_host_builtin_tsv(enum gtp_builtin_tsv kind);

#endif /* GTP_HOST_H */
