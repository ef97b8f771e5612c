/* SPDX-License-Identifier: GPL-2.0 */
/*
 * attach.h - one interface for every way a tracepoint location is carried.
 *
 * Each kernel attach mechanism is a backend (struct gtp_backend): a
 * hardware breakpoint for a watch (watch.c), the
 * tracepoint probe of a static tracepoint (static_arm.c), a function's own
 * ftrace trampoline (ftrace_probe.c's "direct"), the shared ftrace_ops
 * (ftrace_probe.c), the kretprobe (kretprobe.c) and the kprobe
 * (kprobe.c).  Each registers itself from its init (gtp_attach_register()),
 * at its rank: the order a location tries them in.  The first whose ->add
 * takes a location carries it, and one whose ->arm then cannot (ftrace
 * refused the trampoline or the ops) hands it on to the next that takes
 * it.  The kprobe takes whatever is left; a refusal there fails QTStart,
 * saying why.  attach.c names no backend: the backends call down into it,
 * never the other way but through this table.
 *
 * A backend's per-location state starts with a struct gtp_attachment,
 * which tp->probe points to from ->add until the disarm: the one place
 * the rest of the module asks how a hit was carried ($caller, $kret_ns,
 * the unwinder, `attached`).
 *
 * Every backend's hit runs the same sequence (hit.h).
 */
#ifndef GTP_ATTACH_H
#define GTP_ATTACH_H

#include <linux/types.h>

struct gtp_conn;
struct gtp_tp;
struct pt_regs;
struct module;
struct gtp_backend;

struct gtp_attachment {
	const struct gtp_backend *be;
	struct gtp_tp *tp;
};

/* The order a location tries the backends in: cheapest carrier first. */
enum gtp_backend_rank {
	GTP_BACKEND_WATCH,		/* watch.c: data, not code */
	GTP_BACKEND_STATIC,		/* static_arm.c */
	GTP_BACKEND_DIRECT,		/* ftrace_probe.c */
	GTP_BACKEND_FTRACE,		/* ftrace_probe.c */
	GTP_BACKEND_KRETPROBE,		/* kretprobe.c */
	GTP_BACKEND_KPROBE,		/* kprobe.c */
	GTP_NR_BACKENDS
};

/**
 * struct gtp_backend - one way of attaching a location
 * @name: for the log
 * @rank: its place in the order locations try backends in
 * @add: take @tp for the next @arm: its attachment (the caller sets
 *	tp->probe to it), NULL to leave it to a later backend, or an
 *	ERR_PTR() refusing the location (gdb's console says why).  Nothing
 *	is registered yet: no hit comes.  Under gtp_mutex.
 * @arm: register every location added since the last @disarm.  One it
 *	cannot carry it gives back with gtp_attach_pass(), before any hit
 *	of it could run.  0, or -errno when the whole trace must fail
 *	(gdb's console says why; @disarm then undoes the rest).
 * @disarm: unregister everything and wait until no handler runs; each
 *	location's missed hits into tp->missed; free the attachments.
 * @set_enabled: QTEnable/QTDisable while armed; NULL: its hits test
 *	tp->enabled.
 * @retire: @a's tracepoint tripped the CPU budget (trip.c): unregister
 *	its probe alone, so that the location costs what an unprobed one
 *	does; its state stays until @disarm.  true once retired (again
 *	true after that); false when it cannot be yet (it shares its probe
 *	with a tracepoint still on: the last of them to trip retires them
 *	all) or the kernel refused.  Process context, under gtp_mutex.
 * @kind: the word `attached` shows.
 * @caller: probe context, "$caller" (host.h); NULL: 0.
 * @unwind_regs: probe context, where the kernel's unwinder starts for a
 *	hit with @regs (host.h kstack); NULL: @regs itself.
 * @kret_ns: probe context, "$kret_ns"; NULL: 0.
 * @by_int3: probe context: was this hit carried by an int3, which the
 *	kernel enters as an NMI (umem.c)?  NULL: never.
 * @watch: probe context, "$watch_val", "$watch_prev" or "$watch_addr"
 *	(host.h enum gtp_watch_what) of this CPU's hit of a watch; NULL: 0.
 * @module: the module whose tracepoint the location is on, which the
 *	backend pins itself (attach.c pins the code of the others); NULL:
 *	none.
 */
struct gtp_backend {
	const char *name;
	enum gtp_backend_rank rank;
	struct gtp_attachment *(*add)(struct gtp_conn *gc, struct gtp_tp *tp);
	int (*arm)(struct gtp_conn *gc);
	void (*disarm)(void);
	void (*set_enabled)(struct gtp_attachment *a, bool enabled);
	bool (*retire)(struct gtp_attachment *a);
	const char *(*kind)(const struct gtp_attachment *a);
	u64 (*caller)(const struct gtp_attachment *a,
		      const struct pt_regs *regs);
	struct pt_regs *(*unwind_regs)(const struct gtp_attachment *a,
				       struct pt_regs *regs);
	u64 (*kret_ns)(const struct gtp_attachment *a);
	bool (*by_int3)(const struct gtp_attachment *a);
	u64 (*watch)(const struct gtp_attachment *a, int what);
	struct module *(*module)(const struct gtp_attachment *a);
};

/*
 * From a backend's init (module init, under gtp_mutex): locations may go
 * to @be from the next QTStart on.  Unregistered from its exit, which
 * runs after every location is disarmed (main.c's order).
 */
void gtp_attach_register(const struct gtp_backend *be);
void gtp_attach_unregister(const struct gtp_backend *be);

/*
 * From a backend's ->arm: @tp is not carried by it after all (it freed its
 * attachment); a later backend gets it.
 */
void gtp_attach_pass(struct gtp_tp *tp);

/*
 * From a backend's ->arm: @a is carried by @to, a backend of the same
 * family after it in the table, which takes over @a as it is.
 */
void gtp_attach_move(struct gtp_attachment *a, const struct gtp_backend *to);

/*
 * "$caller" at a function's entry, where @regs->sp points at the return
 * address the call pushed (a return hook's trampoline there: the
 * unwinder's word for it).  For the backends' ->caller.
 */
u64 gtp_attach_entry_caller(const struct pt_regs *regs);

/* kprobe.c: the kprobe's refusals in words, for kretprobe.c's too */
const char *gtp_kprobe_refusal(int err);

#endif /* GTP_ATTACH_H */
