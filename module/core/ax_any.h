/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ax_any.h - one condition that holds when any of several does
 * (ax_any.c): the probe shared by several tracepoints on one function.
 */
#ifndef GTP_AX_ANY_H
#define GTP_AX_ANY_H

#include "ax.h"

int ax_cond_any(struct ax_prog *const *conds, u32 n, struct ax_prog **out,
		char *log, size_t logsz);

#endif /* GTP_AX_ANY_H */
