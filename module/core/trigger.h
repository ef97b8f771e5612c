/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trigger.h - trigger chains: a hit that enables or disables other
 * tracepoints ($gtp_enable, $gtp_disable; tsv.c).
 */
#ifndef GTP_TRIGGER_H
#define GTP_TRIGGER_H

#include "tracepoint.h"

int gtp_trigger_plan(struct gtp_tp *tps, bool chained);
void gtp_trigger_clear(void);
int gtp_trigger_fire(u32 target, bool enable, u32 by);
/* tstatus's notes hold this much of what the chains did */
#define GTP_TRIGGER_REPORT_MAX	512
size_t gtp_trigger_report(char *buf, size_t size, const char *sep);

#endif /* GTP_TRIGGER_H */
