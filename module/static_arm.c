// SPDX-License-Identifier: GPL-2.0
/*
 * static_arm.c - gdb's static tracepoints at QTStart .. QTStop.
 *
 * gtp_kprobe_arm() (kprobe.c) calls gtp_static_arm() first: every location
 * of gtp_tps with the 'S' flag, or plain but at a marker address, gets the
 * generic probe (static_probe.c) with gtp_static_tp_hit() as its callback,
 * which hands the hit to the tracepoint code (gtp_tp_precheck(), then
 * gtp_tp_hit_held() or gtp_tp_hit_undecided(), collect.h) exactly as a
 * kprobe hit is handed over: one fast path for both probe kinds.
 */
#define pr_fmt(fmt) "gtp: static: " fmt

#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/percpu.h>
#include <linux/preempt.h>

#include "ax.h"
#include "jit.h"
#include "collect.h"
#include "tracepoint.h"
#include "trace.h"
#include "static_tp.h"
#include "gtp_glue.h"

/*
 * Frames are built in per-CPU scratch space, as for kprobes, but unlike
 * kprobe handlers tracepoint probes nest: an interrupt, an NMI, or a
 * kprobe's int3 can hit a tracepoint while this CPU is inside a hit.  So
 * there is one area per nesting slot (GTP_STATIC_NEST_MAX a CPU): the
 * probe entry (gtp_static_hit()) gives every hit running on a CPU a slot
 * of its own, so the area of the hit's slot is its alone.
 */
static u8 *arm_scratch;		/* nr_cpu_ids * GTP_STATIC_NEST_MAX areas */
static void **arm_handles;
static struct gtp_tp **arm_tps;	/* whose hits arm_handles[i] delivers */
static u64 *arm_missed;		/* their hits refused, at detach */
static unsigned int arm_n;

/*
 * The condition's environment, per CPU and nesting slot like the scratch
 * areas, not on the stack, where taking its address costs a
 * stack-protector canary per hit.
 */
static DEFINE_PER_CPU(struct ax_env [GTP_STATIC_NEST_MAX], arm_env);

/*
 * The same fast path as kprobes (gtp_tp_precheck()): a pure condition is
 * decided before anything else, and a true one is not run again.  One the
 * probe entry decided already (gtp_static_cond_env()) is not run again
 * either: the hit continues its budget, and the CPU budget times one such
 * hit in GTP_BUDGET_EVERY from here, as it times the others from their
 * condition.
 */
void notrace gtp_static_tp_hit(void *ctx, struct pt_regs *regs)
{
	struct gtp_tp *tp = ctx;
	unsigned int slot = gtp_static_regs(regs)->slot;
	struct ax_env *held = gtp_static_cond_env(regs);
	const struct ax_env *pre_env = held;
	enum gtp_precheck pre = GTP_PRE_HELD;
	u8 *scratch;

	if (held) {
		held->t0 = gtp_budget_sample();
	} else {
		struct ax_env *env = this_cpu_ptr(arm_env) + slot;

		pre = gtp_tp_precheck(tp, regs, env);
		if (pre == GTP_PRE_FALSE)
			return;
		pre_env = env;
	}
	scratch = arm_scratch + ((size_t)smp_processor_id() *
				 GTP_STATIC_NEST_MAX + slot) * GTP_SCRATCH_SIZE;
	if (pre == GTP_PRE_HELD)
		gtp_tp_hit_held(tp, regs, scratch, GTP_SCRATCH_SIZE, pre_env);
	else
		gtp_tp_hit_undecided(tp, regs, scratch, GTP_SCRATCH_SIZE,
				     pre_env);
}

/*
 * A condition the probe may decide before saving more than the argument
 * registers (gtp_static_attach_cond()): pure, JIT-compiled, and reading
 * only those registers, no memory, failing in nothing.  Any other goes
 * the full way.
 */
static u64 (*fast_cond(const struct gtp_tp *tp))(struct ax_env *)
{
	if (!tp->cond || !tp->cond_pure || !tp->cond->jit ||
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
		ax_jit_probe_compile(tp->cond, gtp_static_entry_held, NULL,
				     0, &probe, log, sizeof(log));
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

int gtp_static_arm(struct gtp_conn *gc)
{
	struct ax_jit_probe probe;
	unsigned int n = 0;
	struct gtp_tp *tp;
	int ret;

	lockdep_assert_held(&gtp_mutex);
	if (WARN_ON_ONCE(arm_n))
		return -EBUSY;
	for (tp = gtp_tps; tp; tp = tp->next) {
		/* A plain tracepoint on a marker is a static one (`trace *ADDR`). */
		if (!tp->is_static && gtp_static_marker_at(tp->addr))
			tp->is_static = true;
		n += tp->is_static;
	}
	if (!n)
		return 0;
	arm_handles = kcalloc(n, sizeof(*arm_handles), GFP_KERNEL);
	arm_tps = kcalloc(n, sizeof(*arm_tps), GFP_KERNEL);
	arm_missed = kcalloc(n, sizeof(*arm_missed), GFP_KERNEL);
	arm_scratch = vmalloc(array3_size(nr_cpu_ids, GTP_STATIC_NEST_MAX,
					  GTP_SCRATCH_SIZE));
	if (!arm_handles || !arm_tps || !arm_missed || !arm_scratch) {
		gtp_console(gc, "gtp: out of memory for static tracepoints\n");
		ret = -ENOMEM;
		goto disarm;
	}
	for (tp = gtp_tps; tp; tp = tp->next) {
		if (!tp->is_static)
			continue;
		probe = jit_probe(tp);
		ret = gtp_static_attach_cond(tp->addr, gtp_static_tp_hit, tp,
					     fast_cond(tp), &probe,
					     tp->cond ? tp->cond->ninsns : 0,
					     &arm_handles[arm_n]);
		if (ret) {
			gtp_console(gc, "gtp: static tracepoint %u at 0x%llx: %s (error %d)\n",
				    tp->num, (unsigned long long)tp->addr,
				    attach_refusal(ret), ret);
			goto disarm;
		}
		arm_tps[arm_n++] = tp;
	}
	return 0;

disarm:
	gtp_static_disarm();
	return ret;
}

bool gtp_static_module_used(const struct module *mod)
{
	unsigned int i;

	lockdep_assert_held(&gtp_mutex);
	for (i = 0; i < arm_n; i++)
		if (gtp_static_handle_module(arm_handles[i]) == mod)
			return true;
	return false;
}

void gtp_static_disarm(void)
{
	unsigned int i;

	lockdep_assert_held(&gtp_mutex);
	gtp_static_detach_many(arm_handles, arm_n, arm_missed);
	for (i = 0; i < arm_n; i++)
		arm_tps[i]->missed = arm_missed[i];
	arm_n = 0;
	kfree(arm_handles);
	arm_handles = NULL;
	kfree(arm_tps);
	arm_tps = NULL;
	kfree(arm_missed);
	arm_missed = NULL;
	vfree(arm_scratch);
	arm_scratch = NULL;
}

const char *gtp_static_tp_kind(const struct gtp_tp *tp)
{
	unsigned int i;

	lockdep_assert_held(&gtp_mutex);
	for (i = 0; i < arm_n; i++)
		if (arm_tps[i] == tp)
			return gtp_static_handle_jit(arm_handles[i]) ?
			       "static-jit" : "static";
	return "static";
}

bool gtp_static_armed(void)
{
	lockdep_assert_held(&gtp_mutex);
	return arm_n;
}
