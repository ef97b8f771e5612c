// SPDX-License-Identifier: GPL-2.0
/*
 * kprobe.c - the kprobe backend (attach.h): any location no cheaper
 * backend carries (mid-function, source lines, an entry ftrace refuses or
 * entry_ftrace=0).
 *
 * One kprobe per location, with a pre-handler only: no post-handler and no
 * fault handler, so the kernel may optimize it into a jump.  Registering
 * refuses a location the kernel will not probe, saying why; QTStart then
 * fails (attach.c).  Detaching uses unregister_kprobes(), which waits
 * (synchronize_rcu) until no handler runs any more.
 *
 * Handlers build frames in a per-CPU scratch area.  Kprobe handlers never
 * nest on one CPU (a probe hit inside a handler is counted as missed by
 * the kprobes core), so one area per CPU is enough.
 */
#define pr_fmt(fmt) "gtp: " fmt

#include <linux/kprobes.h>
#include <linux/vmalloc.h>
#include <linux/slab.h>
#include <linux/percpu.h>
#include <linux/module.h>

#include "services.h"
#include "probes.h"
#include "attach.h"
#include "hit.h"
#include "jit.h"
#include "trace.h"

struct gtp_kprobe {
	struct gtp_attachment a;
	struct kprobe kp;
	struct ax_jit_probe jit;	/* the pre-handler itself, or none */
	struct gtp_kprobe *next;
};

/* Under gtp_mutex: added since the last disarm, in gtp_tps order. */
static struct gtp_kprobe *gtp_kps, **gtp_kps_tail = &gtp_kps;
/* The first gtp_nkps of them, registered: unregister_kprobes()' list. */
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
	gtp_hit(container_of(kp, struct gtp_kprobe, kp)->a.tp, regs,
		this_cpu_ptr(&gtp_kp_env), gtp_scratch, false);
	return 0;
}
NOKPROBE_SYMBOL(gtp_kprobe_pre);

/* Where a compiled pre-handler goes when its condition holds. */
static int gtp_kprobe_pre_held(struct kprobe *kp, struct pt_regs *regs)
{
	gtp_hit(container_of(kp, struct gtp_kprobe, kp)->a.tp, regs,
		this_cpu_ptr(&gtp_kp_env), gtp_scratch, true);
	return 0;
}
NOKPROBE_SYMBOL(gtp_kprobe_pre_held);

/* The kernel's reason for refusing a kprobe, in words. */
const char *gtp_kprobe_refusal(int err)
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

/*
 * A pure condition the JIT decides on the registers alone is the
 * pre-handler itself (ax_jit_probe_compile(), AX_JIT_PROBE_PT_REGS): the
 * kprobe calls the compiled condition, which returns 0 when it is false,
 * with no environment set up and no second indirect call into a separate
 * image; a true one jumps to gtp_kprobe_pre_held(), which runs the hit as
 * gtp_kprobe_pre() does but for deciding the condition again (the CPU
 * budget's share, then the actions).  kprobe_jit=0 turns it off.
 */
static bool kprobe_jit = true;
module_param(kprobe_jit, bool, 0644);
MODULE_PARM_DESC(kprobe_jit, "a pure condition on the registers alone is the kprobe's pre-handler itself, JIT-compiled (attached: kprobe-jit)");

static void jit_handler(struct gtp_kprobe *gk)
{
	char log[96];

	if (!READ_ONCE(kprobe_jit) || !gtp_cond_probe_ok(gk->a.tp))
		return;
	gtp_tp_jit_probe(gk->a.tp->cond, gtp_kprobe_pre_held, NULL,
			 AX_JIT_PROBE_PT_REGS, &gk->jit, log, sizeof(log));
}

/* Every location that is no return probe (kretprobe.c has those). */
static struct gtp_attachment *kp_add(struct gtp_conn *gc, struct gtp_tp *tp)
{
	struct gtp_kprobe *gk;

	if (tp->is_static || tp->at_return)
		return NULL;
	gk = kzalloc(sizeof(*gk), GFP_KERNEL);
	if (!gk) {
		gtp_console(gc, "gtp: out of memory for kprobes\n");
		return ERR_PTR(-ENOMEM);
	}
	*gtp_kps_tail = gk;
	gtp_kps_tail = &gk->next;
	return &gk->a;
}

static int kp_arm(struct gtp_conn *gc)
{
	struct gtp_kprobe *gk;
	unsigned int n = 0;
	int ret;

	for (gk = gtp_kps; gk; gk = gk->next)
		n++;
	if (!n)
		return 0;
	gtp_kp_ptrs = kcalloc(n, sizeof(*gtp_kp_ptrs), GFP_KERNEL);
	if (!gtp_kp_ptrs) {
		gtp_console(gc, "gtp: out of memory for kprobes\n");
		return -ENOMEM;
	}
	for (gk = gtp_kps; gk; gk = gk->next) {
		struct gtp_tp *tp = gk->a.tp;

		gk->kp.addr = (kprobe_opcode_t *)(unsigned long)tp->addr;
		/* armed all the same when a trigger may enable it */
		if (!tp->enabled && !tp->keep_armed)
			gk->kp.flags = KPROBE_FLAG_DISABLED;
		jit_handler(gk);
		gk->kp.pre_handler = gk->jit.entry ?
				     (kprobe_pre_handler_t)gk->jit.entry :
				     gtp_kprobe_pre;
		ret = register_kprobe(&gk->kp);
		if (ret) {
			gtp_console(gc, "gtp: tracepoint %u at 0x%llx: %s (error %d)\n",
				    tp->num, (unsigned long long)tp->addr,
				    gtp_kprobe_refusal(ret), ret);
			return ret;
		}
		gtp_kp_ptrs[gtp_nkps++] = &gk->kp;
	}
	return 0;
}

static void kp_disarm(void)
{
	struct gtp_kprobe *gk, *next;
	unsigned int i = 0;

	/* one wait for all of them */
	if (gtp_nkps)
		unregister_kprobes(gtp_kp_ptrs, gtp_nkps);
	/* no handler runs any more: their code may go */
	for (gk = gtp_kps; gk; gk = next, i++) {
		next = gk->next;
		if (i < gtp_nkps)
			gk->a.tp->missed = gk->kp.nmissed;
		gtp_tp_jit_probe_free(&gk->jit);
		kfree(gk);
	}
	gtp_kps = NULL;
	gtp_kps_tail = &gtp_kps;
	kfree(gtp_kp_ptrs);
	gtp_kp_ptrs = NULL;
	gtp_nkps = 0;
}

static void kp_set_enabled(struct gtp_attachment *a, bool enabled)
{
	struct gtp_kprobe *gk = container_of(a, struct gtp_kprobe, a);

	if (enabled)
		enable_kprobe(&gk->kp);
	else
		disable_kprobe(&gk->kp);
}

/*
 * A disabled kprobe is disarmed: its int3 (or its ftrace location, or
 * its optimized jump) is taken out of the code, and the kernel lists it
 * [DISABLED].  The CPU budget's trips keep it so: QTEnable refuses a
 * tripped location (core/tp_state.c).
 */
static bool kp_retire(struct gtp_attachment *a)
{
	struct gtp_kprobe *gk = container_of(a, struct gtp_kprobe, a);
	int ret = disable_kprobe(&gk->kp);

	if (ret)
		pr_warn("tracepoint %u at 0x%llx: the kprobe was not disarmed (error %d)\n",
			a->tp->num, (unsigned long long)a->tp->addr, ret);
	return !ret;
}

static const char *kp_kind(const struct gtp_attachment *a)
{
	return container_of(a, struct gtp_kprobe, a)->jit.entry ?
	       "kprobe-jit" : "kprobe";
}

/*
 * A kprobe is at a function's entry when the kernel put it on the
 * ftrace location (a notrace function's first byte is an entry too, but
 * nothing here tells it from a mid-function address); elsewhere in a
 * function sp is anyone's guess.
 */
static u64 kp_caller(const struct gtp_attachment *a,
		     const struct pt_regs *regs)
{
	const struct gtp_kprobe *gk = container_of(a, struct gtp_kprobe, a);

	if (!(gk->kp.flags & KPROBE_FLAG_FTRACE))
		return 0;
	return gtp_attach_entry_caller(regs);
}
NOKPROBE_SYMBOL(kp_caller);

/*
 * Did the kprobe's int3 carry this hit (umem.c)?  Not when the kernel
 * has optimized the probe into a jump to its own copy, nor for a kprobe
 * on ftrace: those call the handler in the probed code's own context.
 * The kernel keeps the optimized state on a probe of its own, not on
 * ours, so ask the text: the first byte at the probe is the int3 while
 * int3 carries it.  While the kernel rewrites that byte (optimizing,
 * unoptimizing) the answer may be the other state's; a user read is
 * then refused in task context, or, in the unoptimizing moment of a
 * probe in NMI code, allowed of the interrupted task (a nofault read all
 * the same).
 */
static bool kp_by_int3(const struct gtp_attachment *a)
{
	const struct gtp_kprobe *gk = container_of(a, struct gtp_kprobe, a);
	u8 op;

	if (gk->kp.flags & KPROBE_FLAG_FTRACE)
		return false;
	return !copy_from_kernel_nofault(&op, gk->kp.addr, 1) &&
	       op == 0xcc;	/* int3 */
}
NOKPROBE_SYMBOL(kp_by_int3);

static const struct gtp_backend gtp_kprobe_backend = {
	.name		= "kprobe",
	.rank		= GTP_BACKEND_KPROBE,
	.add		= kp_add,
	.arm		= kp_arm,
	.disarm		= kp_disarm,
	.set_enabled	= kp_set_enabled,
	.retire		= kp_retire,
	.kind		= kp_kind,
	.caller		= kp_caller,
	.by_int3	= kp_by_int3,
};

int gtp_kprobe_init(void)
{
	gtp_scratch = vmalloc(array_size(nr_cpu_ids, GTP_SCRATCH_SIZE));
	if (!gtp_scratch)
		return -ENOMEM;
	gtp_attach_register(&gtp_kprobe_backend);
	return 0;
}

/* After every probe is detached. */
void gtp_kprobe_exit(void)
{
	gtp_attach_unregister(&gtp_kprobe_backend);
	vfree(gtp_scratch);
	gtp_scratch = NULL;
}
