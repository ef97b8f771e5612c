// SPDX-License-Identifier: GPL-2.0
/*
 * kprobe.c - attach tracepoint locations with kprobes and kretprobes.
 *
 * One kprobe per location, with a pre-handler only: no post-handler and no
 * fault handler, so the kernel may optimize it into a jump.  A location
 * whose actions set $kret (tp->at_return) gets a kretprobe instead: its
 * entry handler keeps the registers at the entry in the instance, and the
 * return handler runs the condition and actions on those registers with
 * rax replaced by the return value, so arguments by name (located at the
 * entry) and $rax / $kret (the return value) both read right.  QTStart
 * attaches all of them or none: if the kernel refuses one, those already
 * registered are unregistered and gdb is told which address and why.
 * Detaching uses unregister_kprobes(), which waits (synchronize_rcu) until
 * no handler runs any more, so frames, definitions and this module's code
 * can then go away safely.
 *
 * An entry tracepoint (on a function's ftrace location, not a return
 * probe) is carried by ftrace when ftrace takes it (ftrace_probe.c,
 * entry_ftrace=1, the default): the same hit path for fewer cycles, all
 * of them through one shared ftrace_ops per register flavour, registered
 * after the kprobes and unregistered right after them.  Where ftrace
 * cannot, it is a kprobe as any other.
 *
 * A location in a module's code pins that module from arm to disarm
 * (mod_pin.c): an ftrace_ops filters on an address, so without the pin
 * an unloaded function's tracepoint would fire in whatever function a
 * later module load puts there; kprobes would just go dead.  Either way
 * "rmmod" now says the module is in use until tstop.
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
#include <linux/uaccess.h>

#include "gtp_glue.h"
#include "jit.h"
#include "collect.h"
#include "trace.h"
#include "static_tp.h"
#include "ksym.h"

struct gtp_kprobe {
	struct kretprobe krp;	/* krp.kp alone for an entry probe */
	struct gtp_tp *tp;
	struct ax_jit_probe jit;	/* the pre-handler itself, or none */
	struct gtp_fprobe *fp;	/* carried by ftrace instead (no kprobe) */
	struct module *mod;	/* pinned: the probed code's (mod_pin.c) */
};

static struct gtp_kprobe *gtp_kps;
static struct kprobe **gtp_kp_ptrs;		/* entry probes */
static struct kretprobe **gtp_krp_ptrs;		/* return probes */
static unsigned int gtp_nkps, gtp_nkrps;
static unsigned int gtp_nused;		/* gtp_kps[] filled: kprobes + ftrace */
static u8 *gtp_scratch;		/* nr_cpu_ids * GTP_SCRATCH_SIZE */

/*
 * A return hit's registers: the entry's, with the return value in ax.
 * @live is what the kernel handed the return handler, for the unwinder;
 * @entry_ns when the call began, for $kret_ns.  Return handlers run with
 * current_kprobe set, so they do not nest with each other or with kprobe
 * handlers on a CPU.
 */
struct gtp_kret_regs {
	struct pt_regs regs;
	struct pt_regs *live;
	u64 entry_ns;
};

/* What the entry handler keeps in a kretprobe instance for its return. */
struct gtp_kret_entry {
	struct pt_regs regs;
	u64 ns;
};
static DEFINE_PER_CPU(struct gtp_kret_regs, gtp_kret_regs);

/*
 * Calls in flight per return probe whose return is caught; more are
 * counted by the kernel as missed.  Functions that sleep (opens, reads)
 * can have many; each slot holds a struct pt_regs.
 */
#define GTP_KRET_ACTIVE_MIN	64
#define GTP_KRET_ACTIVE_MAX	4096

/*
 * The condition's environment: per CPU like the scratch area, not on the
 * stack, where taking its address costs a stack-protector canary per hit.
 */
static DEFINE_PER_CPU(struct ax_env, gtp_kp_env);

/*
 * What a return hook leaves on the stack in place of a return address:
 * the kretprobe trampoline (rethook's on x86 since 5.19) and the function
 * graph tracer's.  Found at init; 0 for one the kernel does not have.
 */
static unsigned long gtp_ret_hooks[2];

/*
 * Inlined: the entry probe's false-condition path is the hot one.  @held:
 * the pre-handler compiled from the condition found it true (jit_handler()).
 */
static __always_inline void gtp_kprobe_run(struct gtp_tp *tp,
					   struct pt_regs *regs, bool held)
{
	struct ax_env *env = this_cpu_ptr(&gtp_kp_env);
	enum gtp_precheck pre;
	u8 *scratch;

	/* gdb's disable or the CPU budget's (core/budget.h), while running */
	if (unlikely(!READ_ONCE(tp->enabled)))
		return;
	if (held)
		pre = gtp_tp_precheck_held(tp, regs, env);
	else
		pre = gtp_tp_precheck(tp, regs, env);
	if (pre == GTP_PRE_FALSE)
		return;
	scratch = gtp_scratch +
		  (size_t)raw_smp_processor_id() * GTP_SCRATCH_SIZE;
	if (pre == GTP_PRE_HELD)
		gtp_tp_hit_held(tp, regs, scratch, GTP_SCRATCH_SIZE, env);
	else
		gtp_tp_hit_undecided(tp, regs, scratch, GTP_SCRATCH_SIZE, env);
}

static int gtp_kprobe_pre(struct kprobe *kp, struct pt_regs *regs)
{
	gtp_kprobe_run(container_of(kp, struct gtp_kprobe, krp.kp)->tp, regs,
		       false);
	return 0;
}
NOKPROBE_SYMBOL(gtp_kprobe_pre);

/* Where a compiled pre-handler goes when its condition holds. */
static int gtp_kprobe_pre_held(struct kprobe *kp, struct pt_regs *regs)
{
	gtp_kprobe_run(container_of(kp, struct gtp_kprobe, krp.kp)->tp, regs,
		       true);
	return 0;
}
NOKPROBE_SYMBOL(gtp_kprobe_pre_held);

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
	gtp_kprobe_run(container_of(rp, struct gtp_kprobe, krp)->tp,
		       &kr->regs, false);
	kr->live = NULL;
	return 0;
}
NOKPROBE_SYMBOL(gtp_kret_ret);

/*
 * The registers the kernel's unwinder starts from for a hit of @tp with
 * @regs: a return hit's are the return handler's (the entry's stack is
 * gone by then), NULL where there are none (a static tracepoint).
 */
struct pt_regs *gtp_kprobe_unwind_regs(const struct gtp_tp *tp,
				       struct pt_regs *regs)
{
	if (tp->is_static)
		return NULL;
	if (tp->at_return)
		return this_cpu_read(gtp_kret_regs.live);
	return regs;
}
NOKPROBE_SYMBOL(gtp_kprobe_unwind_regs);

/**
 * gtp_kprobe_caller() - "$caller": the return address into the caller
 * @tp: the tracepoint hit
 * @regs: the registers its condition and actions see
 *
 * At a function's entry, sp points at the return address the call pushed:
 * a kprobe there (the int3 frame's sp; on the ftrace location the
 * kernel's ftrace_regs_caller stores the sp from before the __fentry__
 * call) and our own ftrace_ops (ftrace_caller stores the same sp with or
 * without SAVE_REGS, so the lite carrier has it too).  At a return probe
 * that word is gone (the function popped it; the kretprobe had replaced
 * it by its trampoline), but the kernel set the return handler's ip back
 * to the real return address.  Elsewhere in a function sp is anyone's
 * guess, and a static tracepoint's caller is the event's: 0 for both.
 *
 * Context: probe (preemption off); the stack is read nofault.
 * Return: the address, or 0.
 */
u64 gtp_kprobe_caller(const struct gtp_tp *tp, const struct pt_regs *regs)
{
	const struct gtp_kprobe *gk = tp->probe;
	const struct pt_regs *live;
	unsigned long ret;

	if (tp->is_static || !gk)
		return 0;
	if (tp->at_return) {
		live = this_cpu_read(gtp_kret_regs.live);
		return live ? live->ip : 0;
	}
	/*
	 * ftrace calls our ops at a function's entry only; a kprobe is there
	 * when the kernel put it on the ftrace location.  (A notrace
	 * function's first byte is an entry too, but nothing here tells it
	 * from a mid-function address.)  The first hits of an ops may come
	 * before gtp_fprobe_attach() returned: 0 for those.
	 */
	if (!(READ_ONCE(gk->fp) || (gk->krp.kp.flags & KPROBE_FLAG_FTRACE)) ||
	    copy_from_kernel_nofault(&ret, (void *)regs->sp, sizeof(ret)))
		return 0;
	/*
	 * A return probe on the same function (ours or anyone's) may have
	 * run first and put its trampoline there: the unwinder knows the
	 * real address.
	 */
	if (unlikely(ret && (ret == gtp_ret_hooks[0] ||
				    ret == gtp_ret_hooks[1])))
		return gtp_kstack_caller(regs);
	return ret;
}
NOKPROBE_SYMBOL(gtp_kprobe_caller);

/**
 * gtp_kprobe_kret_ns() - "$kret_ns": how long the returning call took
 * @tp: the tracepoint hit
 *
 * Return: at a return probe's hit, the nanoseconds since the kretprobe's
 * entry handler ran for this call (the same clock as $clock); 0 at any
 * other hit (an entry carries no time of its own).
 */
u64 gtp_kprobe_kret_ns(const struct gtp_tp *tp)
{
	const struct gtp_kret_regs *kr = this_cpu_ptr(&gtp_kret_regs);

	if (!tp->at_return || !kr->live)
		return 0;
	return gtp_mono_ns() - kr->entry_ns;
}
NOKPROBE_SYMBOL(gtp_kprobe_kret_ns);

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

/*
 * A kretprobe must sit on a function's first instruction (past endbr64
 * on IBT kernels): the kernel says -ENOENT/-EINVAL for anywhere else.
 */
static const char *refusal(const struct gtp_tp *tp, int err)
{
	if (tp->at_return && (err == -ENOENT || err == -EINVAL))
		return "a return probe ($kret) must be at a function's entry (trace FUNC, not FUNC+N or a line), off the kprobe blacklist";
	return kprobe_refusal(err);
}

static void gtp_kprobes_free(void)
{
	struct gtp_tp *tp;

	for (tp = gtp_tps; tp; tp = tp->next)
		if (!tp->is_static)
			tp->probe = NULL;
	kfree(gtp_kps);
	kfree(gtp_kp_ptrs);
	kfree(gtp_krp_ptrs);
	gtp_kps = NULL;
	gtp_kp_ptrs = NULL;
	gtp_krp_ptrs = NULL;
	gtp_nkps = gtp_nkrps = gtp_nused = 0;
}

/* Then what the kernel did not hand us is final: tell the core. */
static void gtp_kprobes_unregister(void)
{
	unsigned int i;

	/* Each waits until no handler of theirs runs any more. */
	if (gtp_nkps)
		unregister_kprobes(gtp_kp_ptrs, gtp_nkps);
	if (gtp_nkrps)
		unregister_kretprobes(gtp_krp_ptrs, gtp_nkrps);
	gtp_fprobe_disarm();
	for (i = 0; i < gtp_nused; i++) {
		struct gtp_kprobe *gk = &gtp_kps[i];
		struct kretprobe *rp = &gk->krp;

		if (gk->fp) {
			gk->tp->missed = gtp_fprobe_detach(gk->fp);
			gk->fp = NULL;
		} else {
			gk->tp->missed = rp->kp.nmissed +
					 (gk->tp->at_return ? rp->nmissed : 0);
		}
		/* no handler runs any more: its code may go */
		ax_jit_probe_free(&gk->jit);
		/* detached: the probed code may go */
		gtp_module_put(gk->mod);
		gk->mod = NULL;
	}
}

/* A return probe on a marker or a :S location: there is no return. */
static int check_returns(struct gtp_conn *gc)
{
	struct gtp_tp *tp;

	for (tp = gtp_tps; tp; tp = tp->next) {
		if (!tp->at_return)
			continue;
		if (tp->is_static || gtp_static_marker_at(tp->addr)) {
			gtp_console(gc, "gtp: tracepoint %u at 0x%llx: $kret makes a return probe, but a static tracepoint has no return (trace the function instead)\n",
				    tp->num, (unsigned long long)tp->addr);
			return -EINVAL;
		}
	}
	return 0;
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
	struct gtp_tp *tp = gk->tp;
	char log[96];

	if (!READ_ONCE(kprobe_jit) || !tp->cond || !tp->cond_pure ||
	    !tp->cond->jit)
		return;
	ax_jit_probe_compile(tp->cond, gtp_kprobe_pre_held, NULL,
			     AX_JIT_PROBE_PT_REGS, &gk->jit, log,
			     sizeof(log));
}

static int register_one(struct gtp_kprobe *gk, struct gtp_tp *tp)
{
	struct kretprobe *rp = &gk->krp;
	int ret;

	gk->tp = tp;
	rp->kp.addr = (kprobe_opcode_t *)(unsigned long)tp->addr;
	if (!tp->enabled)
		rp->kp.flags = KPROBE_FLAG_DISABLED;
	if (!tp->at_return) {
		jit_handler(gk);
		rp->kp.pre_handler = gk->jit.entry ?
				     (kprobe_pre_handler_t)gk->jit.entry :
				     gtp_kprobe_pre;
		ret = register_kprobe(&rp->kp);
		if (ret)
			ax_jit_probe_free(&gk->jit);	/* never ran */
		return ret;
	}
	rp->entry_handler = gtp_kret_entry;
	rp->handler = gtp_kret_ret;
	rp->data_size = sizeof(struct gtp_kret_entry);
	rp->maxactive = clamp_t(int, 8 * num_possible_cpus(),
				GTP_KRET_ACTIVE_MIN, GTP_KRET_ACTIVE_MAX);
	return register_kretprobe(rp);
}

static void report_refusal(struct gtp_conn *gc, const struct gtp_tp *tp,
			   int err)
{
	gtp_console(gc, "gtp: %stracepoint %u at 0x%llx: %s (error %d)\n",
		    tp->at_return ? "return " : "", tp->num,
		    (unsigned long long)tp->addr, refusal(tp, err), err);
}

/*
 * Register the ftrace-carried probes at once; those ftrace then refuses
 * become kprobes.  Their modules stay pinned from the first loop.
 */
static int arm_fprobes(struct gtp_conn *gc)
{
	unsigned int i;
	int ret;

	gtp_fprobe_arm();
	for (i = 0; i < gtp_nused; i++) {
		struct gtp_kprobe *gk = &gtp_kps[i];

		if (!gk->fp || gtp_fprobe_armed(gk->fp))
			continue;
		gtp_fprobe_detach(gk->fp);
		gk->fp = NULL;
		ret = register_one(gk, gk->tp);
		if (ret) {
			report_refusal(gc, gk->tp, ret);
			return ret;
		}
		gtp_kp_ptrs[gtp_nkps++] = &gk->krp.kp;
	}
	return 0;
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
	if (WARN_ON_ONCE(gtp_nused))
		return -EBUSY;
	ret = check_returns(gc);
	if (ret)
		return ret;
	ret = gtp_static_arm(gc);
	if (ret)
		return ret;
	n = count_kprobe_tps();
	if (!n)
		return 0;
	/* before the locations: their first hits find what it recorded */
	ret = gtp_entry_regs_arm(gc);
	if (ret)
		goto err_free;
	gtp_kps = kcalloc(n, sizeof(*gtp_kps), GFP_KERNEL);
	gtp_kp_ptrs = kcalloc(n, sizeof(*gtp_kp_ptrs), GFP_KERNEL);
	gtp_krp_ptrs = kcalloc(n, sizeof(*gtp_krp_ptrs), GFP_KERNEL);
	if (!gtp_kps || !gtp_kp_ptrs || !gtp_krp_ptrs) {
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
		gk->mod = gtp_module_get_code(tp->addr);
		if (IS_ERR(gk->mod)) {
			gk->mod = NULL;
			gtp_console(gc, "gtp: tracepoint %u at 0x%llx: its module is still loading or going away\n",
				    tp->num, (unsigned long long)tp->addr);
			ret = -ENODEV;
			goto err_unregister;
		}
		/* before the first hit, which may read $caller */
		tp->probe = gk;
		if (!tp->at_return)
			WRITE_ONCE(gk->fp, gtp_fprobe_attach(tp));
		ret = gk->fp ? 0 : register_one(gk, tp);
		if (ret) {
			gtp_module_put(gk->mod);
			gk->mod = NULL;
			report_refusal(gc, tp, ret);
			goto err_unregister;
		}
		if (gk->fp)
			;	/* not a kprobe */
		else if (tp->at_return)
			gtp_krp_ptrs[gtp_nkrps++] = &gk->krp;
		else
			gtp_kp_ptrs[gtp_nkps++] = &gk->krp.kp;
		gtp_nused = ++i;
	}
	ret = arm_fprobes(gc);
	if (ret)
		goto err_unregister;
	return 0;

err_unregister:
	gtp_kprobes_unregister();
err_free:
	gtp_entry_regs_disarm();
	gtp_kprobes_free();
	gtp_static_disarm();
	return ret;
}

void gtp_kprobe_disarm(void)
{
	lockdep_assert_held(&gtp_mutex);
	gtp_static_disarm();
	if (!gtp_nused) {
		gtp_entry_regs_disarm();
		return;
	}
	/* Waits until no handler of ours runs any more. */
	gtp_kprobes_unregister();
	/* then nothing reads the entry registers */
	gtp_entry_regs_disarm();
	gtp_kprobes_free();
}

/**
 * gtp_kprobe_module_user - is @mod's code traced by an armed location?
 * @mod: a module
 *
 * Return: the first such tracepoint's number, or 0.
 */
u32 gtp_kprobe_module_user(const struct module *mod)
{
	unsigned int i;

	lockdep_assert_held(&gtp_mutex);
	for (i = 0; i < gtp_nused; i++)
		if (gtp_kps[i].mod == mod)
			return gtp_kps[i].tp->num;
	return 0;
}

void gtp_kprobe_set_enabled(struct gtp_tp *tp, bool enabled)
{
	struct gtp_kprobe *gk = tp->probe;

	lockdep_assert_held(&gtp_mutex);
	/* Static probes just test tp->enabled on each hit. */
	if (tp->is_static)
		return;
	/* ftrace-carried: the callback tests tp->enabled on each hit */
	if (gk->fp)
		return;
	/* a return probe's entry kprobe: no entry, no return */
	if (enabled)
		enable_kprobe(&gk->krp.kp);
	else
		disable_kprobe(&gk->krp.kp);
}

int gtp_kprobe_init(void)
{
	int ret = gtp_fprobe_init();

	if (ret)
		return ret;
	gtp_ret_hooks[0] = gtp_ksym_code("arch_rethook_trampoline");
	gtp_ret_hooks[1] = gtp_ksym_code("return_to_handler");
	gtp_scratch = vmalloc(array_size(nr_cpu_ids, GTP_SCRATCH_SIZE));
	if (!gtp_scratch) {
		gtp_fprobe_exit();
		return -ENOMEM;
	}
	return 0;
}

/* Module exit: detach before the handler's code and data go away. */
void gtp_kprobe_exit(void)
{
	gtp_kprobe_disarm();
	vfree(gtp_scratch);
	gtp_scratch = NULL;
	gtp_fprobe_exit();
}

/*
 * /sys/module/gtptrace/parameters/attached: how each location of the armed
 * trace is carried, one "NUM ADDR KIND" line each, KIND
 * being kprobe, kprobe-jit (the condition is the pre-handler),
 * kretprobe, ftrace (argument registers only), ftrace-regs
 * (all registers), direct (the condition is the function's ftrace
 * trampoline, ftrace_direct.c), static or static-jit (the condition is
 * the probe, static_arm.c).  A parameter is one page: past that (a
 * hundred-odd locations), a last line "... N more".
 */
#define GTP_ATTACHED_LINE	48	/* the longest "NUM ADDR KIND" line */
#define GTP_ATTACHED_MORE	32	/* room kept for the last line */

static int attached_get(char *buf, const struct kernel_param *kp)
{
	unsigned int more = 0;
	struct gtp_tp *tp;
	int len = 0;

	if (mutex_lock_interruptible(&gtp_mutex))
		return -EINTR;
	for (tp = gtp_tps; tp; tp = tp->next) {
		struct gtp_kprobe *gk = tp->probe;
		const char *kind;

		if (tp->is_static && !gtp_static_armed())
			continue;	/* defined, not armed */
		else if (tp->is_static)
			kind = gtp_static_tp_kind(tp);
		else if (!gk)
			continue;	/* not armed */
		else if (gk->fp)
			kind = gtp_fprobe_kind(gk->fp);
		else if (gk->jit.entry)
			kind = "kprobe-jit";
		else
			kind = tp->at_return ? "kretprobe" : "kprobe";
		if (more ||
		    len + GTP_ATTACHED_LINE > PAGE_SIZE - GTP_ATTACHED_MORE) {
			more++;
			continue;
		}
		len += scnprintf(buf + len, PAGE_SIZE - len, "%u 0x%llx %s\n",
				 tp->num, (unsigned long long)tp->addr, kind);
	}
	mutex_unlock(&gtp_mutex);
	if (more)
		len += scnprintf(buf + len, PAGE_SIZE - len, "... %u more\n",
				 more);
	return len;
}

static const struct kernel_param_ops attached_ops = {
	.get = attached_get,
};
module_param_cb(attached, &attached_ops, NULL, 0400);
MODULE_PARM_DESC(attached, "how each armed location is attached: NUM ADDR kprobe|kprobe-jit|kretprobe|ftrace|ftrace-regs|direct|static|static-jit");
