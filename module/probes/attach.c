// SPDX-License-Identifier: GPL-2.0
/*
 * attach.c - QTStart's attach and QTStop's detach of every location,
 * through the backends of attach.h.
 *
 * Arming is all or nothing: each location goes to the first backend in
 * gtp_backends[] whose ->add takes it; then each backend arms in turn,
 * and a location one of them gives back (gtp_attach_pass()) goes to the
 * next that takes it before that one arms.  The kprobe takes every
 * location left, so a location ends up carried or refused; on a refusal
 * everything armed so far is detached and gdb's console says which
 * location and why.  Detaching runs the backends backwards, each waiting
 * until no handler of its own runs, so frames, definitions and this
 * module's code can go afterwards.
 *
 * A location in a module's code pins that module from arm to disarm
 * (mod_pin.c): an ftrace_ops filters on an address, so without the pin
 * an unloaded function's tracepoint would fire in whatever function a
 * later module load puts there; kprobes would just go dead.  Either way
 * "rmmod" says the module is in use until tstop.  A static tracepoint's
 * marker pins its module itself (static_probe.c).
 *
 * The backends register themselves (gtp_attach_register()); this file
 * calls them only through their struct gtp_backend, and calls down only:
 * into the services (pins, the entry-value recorder, the unwinder).
 */
#define pr_fmt(fmt) "gtp: " fmt

#include <linux/err.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "services.h"
#include "ksym.h"
#include "attach.h"
#include "probes.h"
#include "collect.h"
#include "trace.h"

/* The registered backends by rank; a NULL slot is one not registered. */
static const struct gtp_backend *gtp_backends[GTP_NR_BACKENDS];

/* A location in code, and the module of that code it pins. */
struct gtp_pin {
	struct gtp_tp *tp;
	struct module *mod;
};

/* Under gtp_mutex, from arm to disarm. */
static struct gtp_pin *gtp_pins;
static unsigned int gtp_npins;
static bool gtp_attach_armed;
static unsigned int gtp_attach_next;	/* the backend that arms next */

/*
 * What a return hook leaves on the stack in place of a return address:
 * the kretprobe trampoline (rethook's on x86 since 5.19) and the function
 * graph tracer's.  Found at init; 0 for one the kernel does not have.
 */
static unsigned long gtp_ret_hooks[2];

/* Offer @tp to the backends from @from on; 0, or the refusal. */
static int offer(struct gtp_conn *gc, struct gtp_tp *tp, unsigned int from)
{
	struct gtp_attachment *a;
	unsigned int i;

	for (i = from; i < ARRAY_SIZE(gtp_backends); i++) {
		if (!gtp_backends[i])
			continue;
		a = gtp_backends[i]->add(gc, tp);
		if (IS_ERR(a))
			return PTR_ERR(a);
		if (a) {
			a->be = gtp_backends[i];
			a->tp = tp;
			/* before the first hit, which may read $caller */
			tp->probe = a;
			return 0;
		}
	}
	gtp_console(gc, "gtp: tracepoint %u at 0x%llx: no way to attach it\n",
		    tp->num, (unsigned long long)tp->addr);
	return -EINVAL;
}

/* Under gtp_mutex, while some backend's ->arm runs. */
static struct gtp_conn *gtp_attach_gc;
static int gtp_attach_err;

void gtp_attach_pass(struct gtp_tp *tp)
{
	int ret;

	lockdep_assert_held(&gtp_mutex);
	tp->probe = NULL;
	ret = offer(gtp_attach_gc, tp, gtp_attach_next + 1);
	if (ret && !gtp_attach_err)
		gtp_attach_err = ret;
}

/*
 * From a backend's ->arm: @a is carried by @to, a backend of the same
 * family that arms after it (a function refused its own trampoline
 * rides the shared ftrace_ops), and keeps its state.
 */
void gtp_attach_move(struct gtp_attachment *a, const struct gtp_backend *to)
{
	unsigned int i;

	lockdep_assert_held(&gtp_mutex);
	for (i = gtp_attach_next + 1; i < ARRAY_SIZE(gtp_backends); i++)
		if (gtp_backends[i] == to)
			break;
	if (WARN_ON_ONCE(i == ARRAY_SIZE(gtp_backends)))
		return;
	a->be = to;
}

/* Pin the code of every location that is not a static tracepoint. */
static int pin_code(struct gtp_conn *gc)
{
	struct gtp_tp *tp;
	unsigned int n = 0;

	for (tp = gtp_tps; tp; tp = tp->next)
		n += !tp->is_static;
	if (!n)
		return 0;
	gtp_pins = kcalloc(n, sizeof(*gtp_pins), GFP_KERNEL);
	if (!gtp_pins) {
		gtp_console(gc, "gtp: out of memory for tracepoint locations\n");
		return -ENOMEM;
	}
	for (tp = gtp_tps; tp; tp = tp->next) {
		struct module *mod;

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
			return -EINVAL;
		}
		mod = gtp_module_get_code(tp->addr);
		if (IS_ERR(mod)) {
			gtp_console(gc, "gtp: tracepoint %u at 0x%llx: its module is still loading or going away\n",
				    tp->num, (unsigned long long)tp->addr);
			return -ENODEV;
		}
		gtp_pins[gtp_npins++] = (struct gtp_pin){ tp, mod };
	}
	return 0;
}

static void unpin_code(void)
{
	unsigned int i;

	for (i = 0; i < gtp_npins; i++)
		gtp_module_put(gtp_pins[i].mod);
	kfree(gtp_pins);
	gtp_pins = NULL;
	gtp_npins = 0;
}

/*
 * Every backend, backwards, armed or not (a later one may hold what an
 * earlier one passed on): each unregisters what it registered, waits
 * until no handler of its own runs, and frees the rest.  Then nothing
 * reads the entry registers, nor the probed code.
 */
static void detach_all(void)
{
	unsigned int n = ARRAY_SIZE(gtp_backends);
	struct gtp_tp *tp;

	while (n--)
		if (gtp_backends[n])
			gtp_backends[n]->disarm();
	for (tp = gtp_tps; tp; tp = tp->next)
		tp->probe = NULL;
	gtp_entry_regs_disarm();
	unpin_code();
}

int gtp_attach_arm(struct gtp_conn *gc)
{
	struct gtp_tp *tp;
	unsigned int i;
	int ret;

	lockdep_assert_held(&gtp_mutex);
	if (WARN_ON_ONCE(gtp_attach_armed))
		return -EBUSY;
	gtp_attach_gc = gc;
	gtp_attach_err = 0;
	for (tp = gtp_tps; tp; tp = tp->next) {
		ret = offer(gc, tp, 0);
		if (ret)
			goto err;
	}
	ret = pin_code(gc);
	if (ret)
		goto err;
	/* before the locations: their first hits find what it recorded */
	ret = gtp_entry_regs_arm(gc);
	if (ret)
		goto err;
	for (i = 0; i < ARRAY_SIZE(gtp_backends); i++) {
		if (!gtp_backends[i])
			continue;
		gtp_attach_next = i;
		ret = gtp_backends[i]->arm(gc);
		if (!ret)
			ret = gtp_attach_err;
		if (ret)
			goto err;
	}
	gtp_attach_armed = true;
	return 0;

err:
	detach_all();
	return ret;
}

void gtp_attach_disarm(void)
{
	lockdep_assert_held(&gtp_mutex);
	if (!gtp_attach_armed)
		return;
	detach_all();
	gtp_attach_armed = false;
}

void gtp_attach_set_enabled(struct gtp_tp *tp, bool enabled)
{
	struct gtp_attachment *a = tp->probe;

	lockdep_assert_held(&gtp_mutex);
	if (a && a->be->set_enabled)
		a->be->set_enabled(a, enabled);
}

/**
 * gtp_attach_retire_tripped - take away the probes of tripped locations
 *
 * Every location of the armed trace whose tracepoint tripped the CPU
 * budget (GTP_TRIP_PENDING) is retired by its backend and becomes
 * GTP_TRIP_DISARMED.  One its backend cannot retire yet stays pending
 * (it shares a probe with a location still on) and is retried at the
 * next trip.  Nothing armed (QTStop came first): nothing to do.
 *
 * Context: process, under gtp_mutex (trip.c's work).
 */
void gtp_attach_retire_tripped(void)
{
	struct gtp_attachment *a;
	struct gtp_tp *tp;

	lockdep_assert_held(&gtp_mutex);
	if (!gtp_attach_armed)
		return;
	for (tp = gtp_tps; tp; tp = tp->next) {
		a = tp->probe;
		if (!a || READ_ONCE(tp->tripped) != GTP_TRIP_PENDING ||
		    !a->be->retire)
			continue;
		if (a->be->retire(a))
			WRITE_ONCE(tp->tripped, GTP_TRIP_DISARMED);
	}
}

/**
 * gtp_attach_module_user - is @mod's code or tracepoint used by the trace?
 * @mod: a module
 *
 * Return: the first armed location's tracepoint number there, or 0.
 */
u32 gtp_attach_module_user(const struct module *mod)
{
	struct gtp_tp *tp;
	unsigned int i;

	lockdep_assert_held(&gtp_mutex);
	for (i = 0; i < gtp_npins; i++)
		if (gtp_pins[i].mod == mod)
			return gtp_pins[i].tp->num;
	for (tp = gtp_tps; tp; tp = tp->next) {
		const struct gtp_attachment *a = tp->probe;

		if (a && a->be->module && a->be->module(a) == mod)
			return tp->num;
	}
	return 0;
}

u64 gtp_attach_entry_caller(const struct pt_regs *regs)
{
	unsigned long ret;

	if (copy_from_kernel_nofault(&ret, (void *)regs->sp, sizeof(ret)))
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
NOKPROBE_SYMBOL(gtp_attach_entry_caller);

/**
 * gtp_attach_caller() - "$caller": the return address into the caller
 * @tp: the tracepoint hit
 * @regs: the registers its condition and actions see
 *
 * The backend that carried the hit knows whether @regs are a function's
 * entry, a return, or neither.  The first hits of a backend may come
 * before its ->add returned: 0 for those.
 *
 * Context: probe (preemption off); the stack is read nofault.
 * Return: the address, or 0.
 */
u64 gtp_attach_caller(const struct gtp_tp *tp, const struct pt_regs *regs)
{
	const struct gtp_attachment *a = READ_ONCE(tp->probe);

	if (!a || !a->be->caller)
		return 0;
	return a->be->caller(a, regs);
}
NOKPROBE_SYMBOL(gtp_attach_caller);

/*
 * "collect $kstack" (the host's ->kstack): the kernel's unwinder starts
 * from the registers the backend that carried the hit names (a return
 * hit's are the return handler's; none for a static tracepoint).
 */
u32 gtp_attach_kstack(const struct gtp_tp *tp, struct pt_regs *regs,
		      u64 *buf, u32 max)
{
	const struct gtp_attachment *a = READ_ONCE(tp->probe);
	struct pt_regs *from = regs;

	if (a && a->be->unwind_regs)
		from = a->be->unwind_regs(a, regs);
	return gtp_kstack(tp, regs, from, buf, max);
}
NOKPROBE_SYMBOL(gtp_attach_kstack);

/* "$kret_ns": at a return probe's hit, how long the call took; else 0. */
u64 gtp_attach_kret_ns(const struct gtp_tp *tp)
{
	const struct gtp_attachment *a = READ_ONCE(tp->probe);

	if (!a || !a->be->kret_ns)
		return 0;
	return a->be->kret_ns(a);
}
NOKPROBE_SYMBOL(gtp_attach_kret_ns);

/*
 * May a hit of @tp read the current task's user memory (the host's
 * ->user_ok)?  In the task's own context only, which the backend that
 * carried the hit helps tell (umem.c).  Not before its ->add returned.
 */
bool gtp_attach_user_ok(const struct gtp_tp *tp)
{
	const struct gtp_attachment *a = READ_ONCE(tp->probe);

	if (!a)
		return false;
	return gtp_user_ctx(a->be->by_int3 && a->be->by_int3(a));
}
NOKPROBE_SYMBOL(gtp_attach_user_ok);

/* "$watch_val", ... (the host's ->watch): a watch's backend's. */
u64 gtp_attach_watch(const struct gtp_tp *tp, enum gtp_watch_what what)
{
	const struct gtp_attachment *a = READ_ONCE(tp->probe);

	if (!a || !a->be->watch)
		return 0;
	return a->be->watch(a, what);
}
NOKPROBE_SYMBOL(gtp_attach_watch);

/* "collect $ustack" (the host's ->ustack): only where user reads may be. */
u32 gtp_attach_ustack(const struct gtp_tp *tp, u64 *text, u64 *buf, u32 max)
{
	if (!gtp_attach_user_ok(tp))
		return 0;
	return gtp_ustack(text, buf, max);
}
NOKPROBE_SYMBOL(gtp_attach_ustack);

void gtp_attach_register(const struct gtp_backend *be)
{
	lockdep_assert_held(&gtp_mutex);
	if (!WARN_ON_ONCE(be->rank >= GTP_NR_BACKENDS ||
			  gtp_backends[be->rank]))
		gtp_backends[be->rank] = be;
}

void gtp_attach_unregister(const struct gtp_backend *be)
{
	lockdep_assert_held(&gtp_mutex);
	WARN_ON_ONCE(gtp_attach_armed);
	if (be->rank < GTP_NR_BACKENDS && gtp_backends[be->rank] == be)
		gtp_backends[be->rank] = NULL;
}

int gtp_attach_init(void)
{
	gtp_ret_hooks[0] = gtp_ksym_code("arch_rethook_trampoline");
	gtp_ret_hooks[1] = gtp_ksym_code("return_to_handler");
	return 0;
}

/*
 * /sys/module/gtptrace/parameters/attached: how each location of the armed
 * trace is carried, one "NUM ADDR KIND" line each, KIND being the
 * backend's word: kprobe, kprobe-jit (the condition is the pre-handler),
 * kretprobe, ftrace (argument registers only), ftrace-regs (all
 * registers), direct (the condition is the function's ftrace trampoline,
 * ftrace_direct.c; direct+ipmodify while a live patch or another user
 * that changes the ip shares the function), static or static-jit (the condition is the probe,
 * static_arm.c).  A location that tripped the CPU budget says so after
 * its KIND: "tripped, disarmed" once its probe is gone (trip.c),
 * "tripped, disarming" until then.  A parameter is one page: past that (a
 * hundred-odd locations), a last line "... N more".
 */
#define GTP_ATTACHED_LINE	72	/* the longest "NUM ADDR KIND ..." line */
#define GTP_ATTACHED_MORE	32	/* room kept for the last line */

static const char *trip_words(const struct gtp_tp *tp)
{
	switch (READ_ONCE(tp->tripped)) {
	case GTP_TRIP_PENDING:
		return " tripped, disarming";
	case GTP_TRIP_DISARMED:
		return " tripped, disarmed";
	default:
		return "";
	}
}

static int attached_get(char *buf, const struct kernel_param *kp)
{
	unsigned int more = 0;
	struct gtp_tp *tp;
	int len = 0;

	if (mutex_lock_interruptible(&gtp_mutex))
		return -EINTR;
	for (tp = gtp_tps; tp; tp = tp->next) {
		const struct gtp_attachment *a = tp->probe;

		if (!a || !gtp_attach_armed)
			continue;	/* not armed */
		if (more ||
		    len + GTP_ATTACHED_LINE > PAGE_SIZE - GTP_ATTACHED_MORE) {
			more++;
			continue;
		}
		len += scnprintf(buf + len, PAGE_SIZE - len, "%u 0x%llx %s%s\n",
				 tp->num, (unsigned long long)tp->addr,
				 a->be->kind(a), trip_words(tp));
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
MODULE_PARM_DESC(attached, "how each armed location is attached: NUM ADDR kprobe|kprobe-jit|kretprobe|ftrace|ftrace-regs|direct|direct+ipmodify|static|static-jit, then \"tripped, disarmed\" once the CPU budget took it away");
