/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probes.h - the probes room as main.c and the host table see it.
 *
 * module/probes/ holds every way a tracepoint location is carried: the
 * attach layer (attach.c) and the backends that register with it
 * (attach.h), the static tracepoint markers they stand on, the CPU
 * budget's trips and what a forced module unload stops.  It calls down
 * into the services (services/services.h) and the portable core; only
 * main.c calls into it (tests/layering/check).
 */
#ifndef GTP_PROBES_H
#define GTP_PROBES_H

#include <linux/types.h>

#include "host.h"	/* enum gtp_watch_what */

struct gtp_conn;
struct gtp_tp;
struct module;
struct pt_regs;

/*
 * attach.c: every tracepoint location, through the backends of attach.h
 * (the host's ->arm, ->disarm, ->set_enabled, ->caller, ->kret_ns,
 * ->kstack, ->user_ok, ->ustack, ->watch)
 */
int gtp_attach_init(void);
int gtp_attach_arm(struct gtp_conn *gc);
void gtp_attach_disarm(void);
void gtp_attach_set_enabled(struct gtp_tp *tp, bool enabled);
u32 gtp_attach_module_user(const struct module *mod);
u64 gtp_attach_caller(const struct gtp_tp *tp, const struct pt_regs *regs);
u64 gtp_attach_kret_ns(const struct gtp_tp *tp);
u32 gtp_attach_kstack(const struct gtp_tp *tp, struct pt_regs *regs,
		      u64 *buf, u32 max);
bool gtp_attach_user_ok(const struct gtp_tp *tp);
u32 gtp_attach_ustack(const struct gtp_tp *tp, u64 *text, u64 *buf, u32 max);
u64 gtp_attach_watch(const struct gtp_tp *tp, enum gtp_watch_what what);
void gtp_attach_retire_tripped(void);

/* The backends: each registers with attach.c at init (main.c's order). */
int gtp_watch_init(void);		/* watch.c, and the host's ->watch_arm */
void gtp_watch_exit(void);
int gtp_watch_arm(u32 tpnum, u64 addr);
int gtp_static_backend_init(void);	/* static_arm.c */
void gtp_static_backend_exit(void);
int gtp_fprobe_init(void);		/* ftrace_probe.c: direct, ftrace */
void gtp_fprobe_exit(void);
int gtp_kretprobe_init(void);		/* kretprobe.c */
void gtp_kretprobe_exit(void);
int gtp_kprobe_init(void);		/* kprobe.c */
void gtp_kprobe_exit(void);

/*
 * static_tp.c: the kernel's TRACE_EVENTs as static tracepoint markers;
 * static_probe.c: the probes on them; static_debug.c: the knob
 */
int gtp_static_tp_init(void);
void gtp_static_tp_exit(void);
void gtp_static_probe_exit(void);
int gtp_static_sdata_fields(u64 addr, char *buf, size_t size);
void gtp_static_debug_exit(void);
void gtp_static_debug_going(const struct module *mod);

/*
 * trip.c: a location that tripped the CPU budget loses its probe, from
 * process context (the host's ->tripped)
 */
int gtp_trip_init(void);
void gtp_trip_exit(void);
void gtp_trip_queue(struct gtp_tp *tp);

/* forced_unload.c: a module gtp uses is taken away by "rmmod -f" */
int gtp_forced_unload_init(void);
void gtp_forced_unload_exit(void);

#endif /* GTP_PROBES_H */
