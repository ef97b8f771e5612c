// SPDX-License-Identifier: GPL-2.0
/*
 * static_arm.c - the static tracepoint backend (attach.h): gdb's static
 * tracepoints at QTStart .. QTStop.
 *
 * Every location with the 'S' flag, or plain but at a marker address
 * (which then becomes a static one), gets the generic probe
 * (static_probe.c), which runs the hit sequence (hit.h) for it as every
 * backend does.  A pure condition on the event's arguments is decided
 * before the rest of the registers are saved, or is the probe itself.
 */
#define pr_fmt(fmt) "gtp: static: " fmt

#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "ax.h"
#include "jit.h"
#include "hit.h"
#include "tracepoint.h"
#include "trace.h"
#include "static_tp.h"
#include "attach.h"
#include "services.h"
#include "probes.h"

struct gtp_static_tp {
	struct gtp_attachment a;
	void *handle;		/* static_probe.c's, once attached; NULL
				 * again once retired */
	unsigned int idx;	/* its slot in arm_handles */
	bool jit;		/* its probe was the JIT'd condition */
	u64 missed;		/* retired: the hits its guard refused */
	struct gtp_static_tp *next;
};

/* Under gtp_mutex: added since the last disarm, in gtp_tps order. */
static struct gtp_static_tp *arm_tps, **arm_tps_tail = &arm_tps;
/*
 * The first arm_n of them, attached: their handles, for one grace period
 * at detach, and there their hits the nesting guard refused.
 */
static void **arm_handles;
static u64 *arm_missed;
static unsigned int arm_n;

/*
 * Frames are built in per-CPU scratch space, as for kprobes, but unlike
 * kprobe handlers tracepoint probes nest: an interrupt, an NMI, or a
 * kprobe's int3 can hit a tracepoint while this CPU is inside a hit.  So
 * there is one area per nesting slot (GTP_STATIC_NEST_MAX a CPU): the
 * probe entry gives every hit running on a CPU a slot of its own, so the
 * area of the hit's slot is its alone.
 */
static u8 *arm_scratch;		/* nr_cpu_ids * GTP_STATIC_NEST_MAX areas */

/*
 * A condition the probe may decide before saving more than the argument
 * registers (gtp_static_attach_tp()): pure, JIT-compiled, and reading
 * only those registers, no memory, failing in nothing.  Any other goes
 * the full way.
 */
static u64 (*fast_cond(const struct gtp_tp *tp))(struct ax_env *)
{
	if (!gtp_cond_probe_ok(tp) ||
	    !gtp_cond_reads_only(tp->cond, GTP_STATIC_FAST_REGS))
		return NULL;
	return tp->cond->jit;
}

/*
 * Such a condition compiled as the probe itself: the tracepoint calls the
 * JIT'd condition, which decides it in the argument registers and returns
 * when it is false, saving nothing; a true one jumps to
 * gtp_static_entry_held, which goes on as gtp_static_entry_fast would.
 * None (the entry above decides it) when the JIT cannot compile it so
 * (ax_jit_probe_compile()) or static_jit=0.
 */
static bool static_jit = true;
module_param(static_jit, bool, 0644);
MODULE_PARM_DESC(static_jit, "a pure condition on a static tracepoint's arguments is the probe itself, JIT-compiled (attached: static-jit)");

static struct ax_jit_probe jit_probe(const struct gtp_tp *tp)
{
	struct ax_jit_probe probe = { };
	char log[96];

	if (READ_ONCE(static_jit) && fast_cond(tp))
		gtp_tp_jit_probe(tp->cond, gtp_static_entry_held, NULL, 0,
				 &probe, log, sizeof(log));
	return probe;
}

static const char *attach_refusal(int err)
{
	switch (err) {
	case -ENOENT:
		return "no static tracepoint marker at this address (gtp-markers lists them)";
	case -ENODEV:
		return "the marker's module is still loading or going away";
	case -ENOMEM:
		return "out of memory";
	default:
		return "refused by tracepoint_probe_register";
	}
}

/* A plain tracepoint on a marker is a static one (`trace *ADDR`). */
static struct gtp_attachment *st_add(struct gtp_conn *gc, struct gtp_tp *tp)
{
	struct gtp_static_tp *st;

	if (!tp->is_static && !gtp_static_marker_at(tp->addr))
		return NULL;
	/* A return probe on a marker or a :S location: there is no return. */
	if (tp->at_return) {
		gtp_console(gc, "gtp: tracepoint %u at 0x%llx: $kret makes a return probe, but a static tracepoint has no return (trace the function instead)\n",
			    tp->num, (unsigned long long)tp->addr);
		return ERR_PTR(-EINVAL);
	}
	tp->is_static = true;
	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st) {
		gtp_console(gc, "gtp: out of memory for static tracepoints\n");
		return ERR_PTR(-ENOMEM);
	}
	*arm_tps_tail = st;
	arm_tps_tail = &st->next;
	return &st->a;
}

static int st_arm(struct gtp_conn *gc)
{
	struct ax_jit_probe probe;
	struct gtp_static_tp *st;
	unsigned int n = 0;
	int ret;

	for (st = arm_tps; st; st = st->next)
		n++;
	if (!n)
		return 0;
	arm_handles = kcalloc(n, sizeof(*arm_handles), GFP_KERNEL);
	arm_missed = kcalloc(n, sizeof(*arm_missed), GFP_KERNEL);
	arm_scratch = vmalloc(array3_size(nr_cpu_ids, GTP_STATIC_NEST_MAX,
					  GTP_SCRATCH_SIZE));
	if (!arm_handles || !arm_missed || !arm_scratch) {
		gtp_console(gc, "gtp: out of memory for static tracepoints\n");
		return -ENOMEM;
	}
	for (st = arm_tps; st; st = st->next) {
		struct gtp_tp *tp = st->a.tp;

		probe = jit_probe(tp);
		ret = gtp_static_attach_tp(tp->addr, tp, arm_scratch,
					   fast_cond(tp), &probe,
					   tp->cond ? tp->cond->ninsns : 0,
					   &st->handle);
		if (ret) {
			gtp_console(gc, "gtp: static tracepoint %u at 0x%llx: %s (error %d)\n",
				    tp->num, (unsigned long long)tp->addr,
				    attach_refusal(ret), ret);
			return ret;
		}
		st->idx = arm_n;
		st->jit = gtp_static_handle_jit(st->handle);
		arm_handles[arm_n++] = st->handle;
	}
	return 0;
}

static void st_disarm(void)
{
	struct gtp_static_tp *st, *next;
	unsigned int i = 0;

	/* one grace period for all of them */
	gtp_static_detach_many(arm_handles, arm_n, arm_missed);
	for (st = arm_tps; st; st = next, i++) {
		next = st->next;
		if (i < arm_n)
			st->a.tp->missed = st->handle ? arm_missed[i] :
							st->missed;
		kfree(st);
	}
	arm_tps = NULL;
	arm_tps_tail = &arm_tps;
	kfree(arm_handles);
	arm_handles = NULL;
	kfree(arm_missed);
	arm_missed = NULL;
	arm_n = 0;
	vfree(arm_scratch);
	arm_scratch = NULL;
}

/*
 * Unregister the one probe (a grace period of its own); its slot in
 * arm_handles goes empty, which st_disarm()'s detach skips.
 */
static bool st_retire(struct gtp_attachment *a)
{
	struct gtp_static_tp *st = container_of(a, struct gtp_static_tp, a);

	if (!st->handle)
		return true;
	gtp_static_detach_many(&arm_handles[st->idx], 1, &st->missed);
	arm_handles[st->idx] = NULL;
	st->handle = NULL;
	return true;
}

static const char *st_kind(const struct gtp_attachment *a)
{
	const struct gtp_static_tp *st = container_of(a, struct gtp_static_tp,
						      a);

	return st->jit ? "static-jit" : "static";
}

static struct module *st_module(const struct gtp_attachment *a)
{
	const struct gtp_static_tp *st = container_of(a, struct gtp_static_tp,
						      a);

	return st->handle ? gtp_static_handle_module(st->handle) : NULL;
}

/* An event's caller and stack are kstack.c's to find, from its registers. */
static struct pt_regs *st_unwind_regs(const struct gtp_attachment *a,
				      struct pt_regs *regs)
{
	return NULL;
}

static const struct gtp_backend gtp_static_backend = {
	.name		= "static",
	.rank		= GTP_BACKEND_STATIC,
	.add		= st_add,
	.arm		= st_arm,
	.disarm		= st_disarm,
	.retire		= st_retire,
	.kind		= st_kind,
	.module		= st_module,
	.unwind_regs	= st_unwind_regs,
};

int gtp_static_backend_init(void)
{
	gtp_attach_register(&gtp_static_backend);
	return 0;
}

void gtp_static_backend_exit(void)
{
	gtp_attach_unregister(&gtp_static_backend);
}
