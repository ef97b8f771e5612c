/* SPDX-License-Identifier: GPL-2.0 */
/*
 * static_tp.h - static tracepoints: the kernel's TRACE_EVENTs as gdb
 * "static tracepoint markers", and probes on them.
 *
 * Markers (static_tp.c): every tracepoint of vmlinux and of loaded modules,
 * id "SYSTEM:EVENT" (the tracefs names), address = the tracepoint's
 * __traceiter_EVENT function (gdb symbolizes it, and its DWARF describes
 * the arguments in the registers the probe sees), extra data = the event's
 * fields.  Served by qTfSTM/qTsSTM/qTSTMat.
 *
 * Probes (static_probe.c): the tracepoint code attaches a hit callback to a
 * marker at QTStart and detaches it at QTStop.  The callback runs in the
 * tracepoint's context (preemption off, may not sleep) with a pt_regs that
 * is really a struct gtp_static_regs (core/static_data.h).
 *
 * Static tracepoints of gdb's trace are one backend of attach.h
 * (static_arm.c); QTinit/QTStart also drive the qTSTMat gating, whose
 * hooks are in core/static_data.h.
 */
#ifndef GTP_STATIC_TP_H
#define GTP_STATIC_TP_H

#include <linux/types.h>
#include <linux/mutex.h>
#include <linux/list.h>
#include <linux/tracepoint.h>

#include "static_data.h"

struct gtp_conn;
struct gtp_tp;

#define GTP_SDATA_MAX_FIELDS	GTP_SDATA_MAX_ARGS

/* One tracepoint as gdb sees it.  Lives while its module is loaded. */
struct gtp_marker {
	struct list_head list;
	struct tracepoint *tp;
	struct module *mod;		/* NULL: vmlinux */
	const char *system;		/* trace event system, or NULL */
	char *extra;			/* "int counter1; int counter2" */
	u32 nargs;			/* arguments after the data pointer */
	u32 nfields;			/* fields[] valid if == nargs */
	struct gtp_sdata_field fields[GTP_SDATA_MAX_FIELDS];
	u32 attached;			/* probes we registered on it */
};

/* Markers, protected by gtp_static_mutex (static_tp.c). */
extern struct mutex gtp_static_mutex;
struct gtp_marker *gtp_marker_find(u64 addr);

static inline u64 gtp_marker_addr(const struct gtp_marker *m)
{
	return (unsigned long)m->tp->iterator;
}

/* "SYSTEM:EVENT" -> its marker's address; 0 or -ENOENT. */
int gtp_static_marker_by_id(const char *id, u64 *addr);

/* Is @addr a marker address (a static tracepoint site)? */
bool gtp_static_marker_at(u64 addr);

/*
 * gtp_static_attach - register a probe on the tracepoint of marker @addr
 * @hit:	called on every hit with @ctx and the registers
 * @handle:	set on success, for gtp_static_detach()
 *
 * Returns 0, -ENOENT (no marker there), -ENOMEM, or the kernel's error from
 * tracepoint_probe_register().  The marker's module is pinned until detach.
 */
int gtp_static_attach(u64 addr, void (*hit)(void *ctx, struct pt_regs *regs),
		      void *ctx, void **handle);
struct ax_env;
struct ax_jit_probe;
/*
 * gdb's tracepoint @tp on marker @addr: the probe runs @tp's hit sequence
 * (hit.h) itself, building frames in @scratch (nr_cpu_ids *
 * GTP_STATIC_NEST_MAX areas of GTP_SCRATCH_SIZE, by CPU and nesting
 * slot).  @cond, if not NULL (a JIT-compiled condition that reads only
 * rax, rcx, rdx, rsi, rdi, r8..r11, no memory, and cannot fail:
 * GTP_STATIC_FAST_REGS, gtp_cond_reads_only()), is decided before the
 * rest of the registers are saved: a false one returns at once.  @probe,
 * if not NULL and not empty, is @cond compiled as the probe itself
 * (gtp_tp_jit_probe() with gtp_static_entry_held as its hit), which
 * the tracepoint then calls: it decides @cond in the registers it was
 * passed, saving none.  The attachment owns it from here on, attached or
 * not (freed with gtp_tp_jit_probe_free() after detach, or on failure).  @cond_steps is what deciding
 * @cond charges the hit's step budget (its insns).
 */
int gtp_static_attach_tp(u64 addr, struct gtp_tp *tp, u8 *scratch,
			 u64 (*cond)(struct ax_env *env),
			 struct ax_jit_probe *probe, u32 cond_steps,
			 void **handle);
/* static_tp_entry.S: where a JIT'd probe jumps when its condition holds */
void gtp_static_entry_held(void);
/* Is @handle's probe the JIT'd condition (static-jit in `attached`)? */
bool gtp_static_handle_jit(void *handle);
/* gdb registers gtp_static_entry_fast has saved when @cond runs. */
#define GTP_STATIC_FAST_REGS	((1u << 0) | (1u << 2) | (1u << 3) | \
				 (1u << 4) | (1u << 5) | (1u << 8) | \
				 (1u << 9) | (1u << 10) | (1u << 11))
/* Unregister; after it returns no hit callback of @handle is running. */
void gtp_static_detach(void *handle);
/*
 * Several detaches, one grace period: the handles are freed.  @missed, if
 * not NULL, gets for each the hits the nesting guard refused (recursion,
 * nested too deep: static_probe.c).
 */
void gtp_static_detach_many(void **handles, unsigned int n, u64 *missed);

/* $_sdata text of @rec with its marker's field names. */
int gtp_static_sdata_format(const void *rec, u32 len, char *buf,
			    size_t size);

/*
 * Hits that may run nested on one CPU (core/nest.h): task, softirq,
 * hardirq and NMI, or an int3's NMI context in place of one of them.  The
 * probe entry gives each running hit its own slot below this
 * (gtp_static_regs(regs)->slot), so per-slot areas need no other lock;
 * a hit past them is refused and counted (gtp_static_detach_many()).
 */
#define GTP_STATIC_NEST_MAX	4

/* Static probes registered right now (all users). */
unsigned int gtp_static_nr_attached(void);

/* The module whose tracepoint @handle is attached to (NULL: vmlinux). */
struct module *gtp_static_handle_module(void *handle);

#endif /* GTP_STATIC_TP_H */
