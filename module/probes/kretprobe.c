// SPDX-License-Identifier: GPL-2.0
/*
 * kretprobe.c - the kretprobe backend (attach.h): a location whose actions
 * set $kret (tp->at_return), at a function's entry.
 *
 * The entry handler keeps the registers at the entry in the instance, and
 * the return handler runs the hit on those registers with rax replaced by
 * the return value, so arguments by name (located at the entry) and
 * $rax / $kret (the return value) both read right.  Return handlers run
 * with current_kprobe set, so they do not nest on a CPU: one scratch area
 * and environment per CPU, allocated while return probes are armed.
 */
#define pr_fmt(fmt) "gtp: " fmt

#include <linux/kprobes.h>
#include <linux/vmalloc.h>
#include <linux/slab.h>
#include <linux/percpu.h>

#include "services.h"
#include "probes.h"
#include "attach.h"
#include "hit.h"
#include "trace.h"

struct gtp_kretprobe {
	struct gtp_attachment a;
	struct kretprobe krp;
	struct gtp_kretprobe *next;
};

/* Under gtp_mutex: added since the last disarm, in gtp_tps order. */
static struct gtp_kretprobe *gtp_krps, **gtp_krps_tail = &gtp_krps;
/* The first gtp_nkrps of them, registered: unregister_kretprobes()' list. */
static struct kretprobe **gtp_krp_ptrs;
static unsigned int gtp_nkrps;
static u8 *gtp_kret_scratch;	/* nr_cpu_ids * GTP_SCRATCH_SIZE, armed */

/*
 * A return hit's registers: the entry's, with the return value in ax.
 * @live is what the kernel handed the return handler, for the unwinder;
 * @entry_ns when the call began, for $kret_ns.
 */
struct gtp_kret_regs {
	struct pt_regs regs;
	struct pt_regs *live;
	u64 entry_ns;
};
static DEFINE_PER_CPU(struct gtp_kret_regs, gtp_kret_regs);
static DEFINE_PER_CPU(struct ax_env, gtp_kret_env);

/* What the entry handler keeps in a kretprobe instance for its return. */
struct gtp_kret_entry {
	struct pt_regs regs;
	u64 ns;
};

/*
 * Calls in flight per return probe whose return is caught; more are
 * counted by the kernel as missed.  Functions that sleep (opens, reads)
 * can have many; each slot holds a struct pt_regs.
 */
#define GTP_KRET_ACTIVE_MIN	64
#define GTP_KRET_ACTIVE_MAX	4096

/* Keep the entry's registers and time for the return: the instance's data. */
static int gtp_kret_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct gtp_kret_entry *e = (struct gtp_kret_entry *)ri->data;

	memcpy(&e->regs, regs, sizeof(*regs));
	e->ns = gtp_mono_ns();
	return 0;
}
NOKPROBE_SYMBOL(gtp_kret_entry);

static int gtp_kret_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct gtp_kret_regs *kr = this_cpu_ptr(&gtp_kret_regs);
	struct kretprobe *rp = get_kretprobe(ri);
	const struct gtp_kret_entry *e = (struct gtp_kret_entry *)ri->data;

	if (unlikely(!rp))
		return 0;
	memcpy(&kr->regs, &e->regs, sizeof(kr->regs));
	kr->regs.ax = regs->ax;
	kr->entry_ns = e->ns;
	kr->live = regs;
	gtp_hit(container_of(rp, struct gtp_kretprobe, krp)->a.tp, &kr->regs,
		this_cpu_ptr(&gtp_kret_env), gtp_kret_scratch, false);
	kr->live = NULL;
	return 0;
}
NOKPROBE_SYMBOL(gtp_kret_ret);

static struct gtp_attachment *krp_add(struct gtp_conn *gc, struct gtp_tp *tp)
{
	struct gtp_kretprobe *gk;

	if (tp->is_static || !tp->at_return)
		return NULL;
	gk = kzalloc(sizeof(*gk), GFP_KERNEL);
	if (!gk) {
		gtp_console(gc, "gtp: out of memory for kretprobes\n");
		return ERR_PTR(-ENOMEM);
	}
	*gtp_krps_tail = gk;
	gtp_krps_tail = &gk->next;
	return &gk->a;
}

/*
 * A kretprobe must sit on a function's first instruction (past endbr64
 * on IBT kernels): the kernel says -ENOENT/-EINVAL for anywhere else.
 */
static const char *refusal(int err)
{
	if (err == -ENOENT || err == -EINVAL)
		return "a return probe ($kret) must be at a function's entry (trace FUNC, not FUNC+N or a line), off the kprobe blacklist";
	return gtp_kprobe_refusal(err);
}

static int krp_arm(struct gtp_conn *gc)
{
	struct gtp_kretprobe *gk;
	unsigned int n = 0;
	int ret;

	for (gk = gtp_krps; gk; gk = gk->next)
		n++;
	if (!n)
		return 0;
	gtp_krp_ptrs = kcalloc(n, sizeof(*gtp_krp_ptrs), GFP_KERNEL);
	gtp_kret_scratch = vmalloc(array_size(nr_cpu_ids, GTP_SCRATCH_SIZE));
	if (!gtp_krp_ptrs || !gtp_kret_scratch) {
		gtp_console(gc, "gtp: out of memory for kretprobes\n");
		return -ENOMEM;
	}
	for (gk = gtp_krps; gk; gk = gk->next) {
		struct gtp_tp *tp = gk->a.tp;
		struct kretprobe *rp = &gk->krp;

		rp->kp.addr = (kprobe_opcode_t *)(unsigned long)tp->addr;
		/* armed all the same when a trigger may enable it */
		if (!tp->enabled && !tp->keep_armed)
			rp->kp.flags = KPROBE_FLAG_DISABLED;
		rp->entry_handler = gtp_kret_entry;
		rp->handler = gtp_kret_ret;
		rp->data_size = sizeof(struct gtp_kret_entry);
		rp->maxactive = clamp_t(int, 8 * num_possible_cpus(),
					GTP_KRET_ACTIVE_MIN,
					GTP_KRET_ACTIVE_MAX);
		ret = register_kretprobe(rp);
		if (ret) {
			gtp_console(gc, "gtp: return tracepoint %u at 0x%llx: %s (error %d)\n",
				    tp->num, (unsigned long long)tp->addr,
				    refusal(ret), ret);
			return ret;
		}
		gtp_krp_ptrs[gtp_nkrps++] = rp;
	}
	return 0;
}

static void krp_disarm(void)
{
	struct gtp_kretprobe *gk, *next;
	unsigned int i = 0;

	/* one wait until no handler of theirs runs any more */
	if (gtp_nkrps)
		unregister_kretprobes(gtp_krp_ptrs, gtp_nkrps);
	for (gk = gtp_krps; gk; gk = next, i++) {
		next = gk->next;
		if (i < gtp_nkrps)
			gk->a.tp->missed = gk->krp.kp.nmissed + gk->krp.nmissed;
		kfree(gk);
	}
	gtp_krps = NULL;
	gtp_krps_tail = &gtp_krps;
	kfree(gtp_krp_ptrs);
	gtp_krp_ptrs = NULL;
	gtp_nkrps = 0;
	vfree(gtp_kret_scratch);
	gtp_kret_scratch = NULL;
}

/* a return probe's entry kprobe: no entry, no return */
static void krp_set_enabled(struct gtp_attachment *a, bool enabled)
{
	struct gtp_kretprobe *gk = container_of(a, struct gtp_kretprobe, a);

	if (enabled)
		enable_kprobe(&gk->krp.kp);
	else
		disable_kprobe(&gk->krp.kp);
}

/* As kprobe.c's: the entry kprobe disarmed, no entry and no return. */
static bool krp_retire(struct gtp_attachment *a)
{
	struct gtp_kretprobe *gk = container_of(a, struct gtp_kretprobe, a);
	int ret = disable_kprobe(&gk->krp.kp);

	if (ret)
		pr_warn("return tracepoint %u at 0x%llx: the kretprobe was not disarmed (error %d)\n",
			a->tp->num, (unsigned long long)a->tp->addr, ret);
	return !ret;
}

static const char *krp_kind(const struct gtp_attachment *a)
{
	return "kretprobe";
}

/*
 * At a return the word the call pushed is gone (the function popped it;
 * the kretprobe had replaced it by its trampoline), but the kernel set
 * the return handler's ip back to the real return address.
 */
static u64 krp_caller(const struct gtp_attachment *a,
		      const struct pt_regs *regs)
{
	const struct pt_regs *live = this_cpu_read(gtp_kret_regs.live);

	return live ? live->ip : 0;
}
NOKPROBE_SYMBOL(krp_caller);

/* The entry's stack is gone by then: the return handler's registers. */
static struct pt_regs *krp_unwind_regs(const struct gtp_attachment *a,
				       struct pt_regs *regs)
{
	return this_cpu_read(gtp_kret_regs.live);
}
NOKPROBE_SYMBOL(krp_unwind_regs);

/* The nanoseconds since the entry handler ran for this call ($clock's). */
static u64 krp_kret_ns(const struct gtp_attachment *a)
{
	const struct gtp_kret_regs *kr = this_cpu_ptr(&gtp_kret_regs);

	if (!kr->live)
		return 0;
	return gtp_mono_ns() - kr->entry_ns;
}
NOKPROBE_SYMBOL(krp_kret_ns);

static const struct gtp_backend gtp_kretprobe_backend = {
	.name		= "kretprobe",
	.rank		= GTP_BACKEND_KRETPROBE,
	.add		= krp_add,
	.arm		= krp_arm,
	.disarm		= krp_disarm,
	.set_enabled	= krp_set_enabled,
	.retire		= krp_retire,
	.kind		= krp_kind,
	.caller		= krp_caller,
	.unwind_regs	= krp_unwind_regs,
	.kret_ns	= krp_kret_ns,
};

int gtp_kretprobe_init(void)
{
	gtp_attach_register(&gtp_kretprobe_backend);
	return 0;
}

void gtp_kretprobe_exit(void)
{
	gtp_attach_unregister(&gtp_kretprobe_backend);
}
