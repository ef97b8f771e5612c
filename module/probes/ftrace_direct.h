/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftrace_direct.h - an entry tracepoint's own ftrace trampoline
 * (ftrace_direct.c), as the direct backend (ftrace_probe.c) uses it.
 */
#ifndef GTP_FTRACE_DIRECT_H
#define GTP_FTRACE_DIRECT_H

#include <linux/types.h>

struct ax_prog;
struct gtp_fdirect;
struct gtp_fprobe;
struct pt_regs;

struct gtp_fdirect *gtp_fdirect_attach(struct ax_prog *cond, unsigned long ip,
				       void *fp, int *err);
bool gtp_fdirect_detach(struct gtp_fdirect *d);
bool gtp_fdirect_ipmodify_peer(const struct gtp_fdirect *d);

/*
 * ftrace_probe.c: the hit of a trampoline whose condition held, which
 * ftrace_direct_entry.S calls with the registers it saved.
 */
void gtp_fdirect_hit(struct pt_regs *regs, struct gtp_fprobe *fp);

#endif /* GTP_FTRACE_DIRECT_H */
