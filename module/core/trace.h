/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace.h - the trace experiment: run state and its packets.
 */
#ifndef GTP_TRACE_H
#define GTP_TRACE_H

#include "packets.h"

void gtp_trace_init(void);

#endif /* GTP_TRACE_H */
