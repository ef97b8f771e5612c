// SPDX-License-Identifier: GPL-2.0
/*
 * kprobe.c - attach tracepoint locations with kprobes.
 *
 * One kprobe per location, with a pre-handler only: no post-handler and no
 * fault handler, so the kernel may optimize it into a jump.  QTStart
 * attaches all of them or none: if the kernel refuses one, those already
 * registered are unregistered and gdb is told which address and why.
 * Detaching uses unregister_kprobes(), which waits (synchronize_rcu) until
 * no handler runs any more, so frames, definitions and this module's code
 * can then go away safely.
 *
 * Handlers build frames in a per-CPU scratch area.  Kprobe handlers never
 * nest on one CPU (a probe hit inside a handler is counted as missed by
 * the kprobes core), so one area per CPU is enough.
 */
#define pr_fmt(fmt) "gtp: " fmt

#include <linux/kprobes.h>
#include <linux/vmalloc.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/cpumask.h>
#include <linux/module.h>
#include <linux/percpu.h>

#include "gtp_glue.h"
#include "collect.h"
#include "trace.h"
#include "static_tp.h"

struct gtp_kprobe {
	struct kprobe kp;
	struct gtp_tp *tp;
};

static struct gtp_kprobe *gtp_kps;
static struct kprobe **gtp_kp_ptrs;
static unsigned int gtp_nkps;
static u8 *gtp_scratch;		/* nr_cpu_ids * GTP_SCRATCH_SIZE */

/*
 * The condition's environment: per CPU like the scratch area, not on the
 * stack, where taking its address costs a stack-protector canary per hit.
 */
static DEFINE_PER_CPU(struct ax_env, gtp_kp_env);

static int gtp_kprobe_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct gtp_tp *tp = container_of(kp, struct gtp_kprobe, kp)->tp;
	struct ax_env *env = this_cpu_ptr(&gtp_kp_env);
	enum gtp_precheck pre;
	u8 *scratch;

	pre = gtp_tp_precheck(tp, regs, env);
	if (pre == GTP_PRE_FALSE)
		return 0;
	scratch = gtp_scratch +
		  (size_t)raw_smp_processor_id() * GTP_SCRATCH_SIZE;
	if (pre == GTP_PRE_HELD)
		gtp_tp_hit_held(tp, regs, scratch, GTP_SCRATCH_SIZE, env);
	else
		gtp_tp_hit(tp, regs, scratch, GTP_SCRATCH_SIZE);
	return 0;
}
NOKPROBE_SYMBOL(gtp_kprobe_pre);

/* The kernel's reason for refusing a kprobe, in words. */
static const char *kprobe_refusal(int err)
{
	switch (err) {
	case -EINVAL:
		return "not in probe-able kernel text, or on the kprobe blacklist";
	case -EILSEQ:
		return "not on an instruction boundary";
	case -ENOENT:
		return "no such symbol or address";
	case -EBUSY:
		return "address busy (ftrace or another probe conflicts)";
	case -EEXIST:
		return "already probed";
	case -ENOMEM:
		return "out of memory";
	default:
		return "refused by kprobes";
	}
}

static void gtp_kprobes_free(void)
{
	unsigned int i;

	for (i = 0; i < gtp_nkps; i++)
		gtp_kps[i].tp->probe = NULL;
	kfree(gtp_kps);
	kfree(gtp_kp_ptrs);
	gtp_kps = NULL;
	gtp_kp_ptrs = NULL;
	gtp_nkps = 0;
}

static unsigned int count_kprobe_tps(void)
{
	struct gtp_tp *tp;
	unsigned int n = 0;

	for (tp = gtp_tps; tp; tp = tp->next)
		if (!tp->is_static)
			n++;
	return n;
}

/*
 * Static tracepoints first: gtp_static_arm() also claims plain tracepoints
 * that sit on a marker (sets ->is_static), which kprobes must then skip.
 */
int gtp_kprobe_arm(struct gtp_conn *gc)
{
	unsigned int n, i = 0;
	struct gtp_tp *tp;
	int ret;

	lockdep_assert_held(&gtp_mutex);
	if (WARN_ON_ONCE(gtp_nkps))
		return -EBUSY;
	ret = gtp_static_arm(gc);
	if (ret)
		return ret;
	n = count_kprobe_tps();
	if (!n)
		return 0;
	gtp_kps = kcalloc(n, sizeof(*gtp_kps), GFP_KERNEL);
	gtp_kp_ptrs = kcalloc(n, sizeof(*gtp_kp_ptrs), GFP_KERNEL);
	if (!gtp_kps || !gtp_kp_ptrs) {
		gtp_console(gc, "gtp: out of memory for kprobes\n");
		ret = -ENOMEM;
		goto err_free;
	}
	for (tp = gtp_tps; tp; tp = tp->next) {
		struct gtp_kprobe *gk = &gtp_kps[i];

		if (tp->is_static)
			continue;
		/*
		 * A probe in our own code would run our probe path from inside
		 * itself (a static tracepoint hit, the JIT's helpers, the ring
		 * reservation it interrupted): recursion we do not promise to
		 * survive, and nothing a user needs to trace.
		 */
		if (within_module((unsigned long)tp->addr, THIS_MODULE)) {
			gtp_console(gc, "gtp: tracepoint %u at 0x%llx: inside gtp itself, refused\n",
				    tp->num, (unsigned long long)tp->addr);
			ret = -EINVAL;
			goto err_unregister;
		}
		gk->tp = tp;
		gk->kp.addr = (kprobe_opcode_t *)(unsigned long)tp->addr;
		gk->kp.pre_handler = gtp_kprobe_pre;
		if (!tp->enabled)
			gk->kp.flags = KPROBE_FLAG_DISABLED;
		ret = register_kprobe(&gk->kp);
		if (ret) {
			gtp_console(gc, "gtp: tracepoint %u at 0x%llx: %s (error %d)\n",
				    tp->num, (unsigned long long)tp->addr,
				    kprobe_refusal(ret), ret);
			goto err_unregister;
		}
		gtp_kp_ptrs[i] = &gk->kp;
		tp->probe = gk;
		gtp_nkps = ++i;
	}
	return 0;

err_unregister:
	if (gtp_nkps)
		unregister_kprobes(gtp_kp_ptrs, gtp_nkps);
err_free:
	gtp_kprobes_free();
	gtp_static_disarm();
	return ret;
}

void gtp_kprobe_disarm(void)
{
	lockdep_assert_held(&gtp_mutex);
	gtp_static_disarm();
	if (!gtp_nkps)
		return;
	/* Waits until no gtp_kprobe_pre() runs any more. */
	unregister_kprobes(gtp_kp_ptrs, gtp_nkps);
	gtp_kprobes_free();
}

void gtp_kprobe_set_enabled(struct gtp_tp *tp, bool enabled)
{
	struct gtp_kprobe *gk = tp->probe;

	lockdep_assert_held(&gtp_mutex);
	/* Static probes just test tp->enabled on each hit. */
	if (tp->is_static)
		return;
	if (enabled)
		enable_kprobe(&gk->kp);
	else
		disable_kprobe(&gk->kp);
}

int gtp_kprobe_init(void)
{
	gtp_scratch = vmalloc(array_size(nr_cpu_ids, GTP_SCRATCH_SIZE));
	return gtp_scratch ? 0 : -ENOMEM;
}

/* Module exit: detach before the handler's code and data go away. */
void gtp_kprobe_exit(void)
{
	gtp_kprobe_disarm();
	vfree(gtp_scratch);
	gtp_scratch = NULL;
}
