/* SPDX-License-Identifier: GPL-2.0 */
/*
 * watch.h - watch tracepoints: a location that is data, not code.
 *
 * "trace *ADDR" with "teval $watch = N" among its actions (N: 1, 2, 4 or
 * 8) makes the location the N bytes at ADDR, and a hit every write to any
 * of them, on any CPU, at the instruction that wrote: its registers, its
 * stack, and $watch_val and $watch_prev, the bytes' value after the write
 * and before it.  "$awatch" watches reads too.  The host carries it on a
 * hardware breakpoint (a debug register on every CPU); gdb defines it as
 * any other tracepoint, which is why the mark is a variable: gdb has no
 * watch tracepoint of its own.
 */
#ifndef GTP_WATCH_H
#define GTP_WATCH_H

#include "packets.h"

/*
 * At QTStart, after the variables are bound: read each location's marks
 * into tp->watch_len and tp->watch_reads.  A mark gtp cannot honour (a
 * length that is not 1, 2, 4 or 8 or not a constant, both marks, a
 * return probe or a static tracepoint that is also a watch, an address
 * not aligned to its length or not in the kernel's half) fails QTStart:
 * -EINVAL, and gdb's console says which location and why; so does a
 * "$watch_arm_N" whose N is no watch.
 */
int gtp_tps_mark_watches(struct gtp_conn *gc);

#endif /* GTP_WATCH_H */
