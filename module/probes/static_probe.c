// SPDX-License-Identifier: GPL-2.0
/*
 * static_probe.c - probes on tracepoints for static tracepoints.
 *
 * One generic probe serves every event, whatever its prototype: the
 * tracepoint calls gtp_static_entry(data, args...) (static_tp_entry.S),
 * which saves the registers as it received them into a struct
 * gtp_static_regs on its stack and calls gtp_static_hit() below.  So a
 * condition compiled at __traceiter_EVENT reads its arguments from rsi,
 * rdx, ... exactly as gdb's DWARF says, and 'collect $regs' shows them.
 * The probe's data pointer is our struct gtp_static_att: it says which
 * marker fired and whom to call.
 *
 * Lifetime: tracepoint_probe_unregister() + tracepoint_synchronize_
 * unregister() (SRCU + RCU) guarantee no hit still runs before an att is
 * freed.  An attached marker pins its module (try_module_get), so the
 * tracepoint cannot vanish under a probe; gtptrace.ko itself detaches
 * everything in its exit path before its code goes away.
 *
 * Users: gtp's static tracepoints (static_arm.c, a backend of attach.h),
 * whose hits this file runs through the hit sequence (hit.h) itself, and
 * the static_debug knob (static_debug.c), whose callback it calls.  It
 * calls neither by name: each detaches what it attached before this file
 * goes (gtp_static_probe_exit()).
 */
#define pr_fmt(fmt) "gtp: static: " fmt

#include <linux/module.h>
#include <linux/tracepoint.h>
#include <linux/slab.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <asm/segment.h>

#include "ax.h"
#include "jit.h"
#include "hit.h"
#include "nest.h"
#include "static_tp.h"
#include "services.h"
#include "probes.h"
#include "kcompat.h"

struct gtp_static_att {
	struct list_head list;		/* all_atts, under gtp_static_mutex */
	struct gtp_marker *m;
	u64 addr;
	u32 nargs;
	void (*hit)(void *ctx, struct pt_regs *regs);	/* or: */
	void *ctx;
	struct gtp_tp *tp;		/* a tracepoint's hit sequence */
	u8 *scratch;			/* ... its frames' per-CPU areas */
	u64 (*cond)(struct ax_env *env);	/* gtp_static_entry_fast */
	struct ax_jit_probe probe;	/* cond as the probe, or none */
	u32 cond_steps;			/* what deciding cond charged */
	atomic_long_t missed;		/* hits refused by the nesting guard */
};

static LIST_HEAD(all_atts);

/* static_tp_entry.S */
void gtp_static_entry(void);
void gtp_static_entry_fast(void);
void gtp_static_hit(struct gtp_static_regs *sr);
bool gtp_static_cond_false(struct gtp_static_regs *sr);
void gtp_static_held_env(struct gtp_static_regs *sr);

/*
 * Nesting (core/nest.h): a hit's slot on its CPU indexes the callbacks'
 * per-CPU areas (static_arm.c's scratch and environment).  A hit's own
 * recursion (every kernel-mode page fault fires
 * exceptions:page_fault_kernel, a condition reading a bad pointer there
 * would re-enter itself until the stack overflows) and a hit past
 * GTP_STATIC_NEST_MAX are refused and counted in att->missed.
 */
static DEFINE_PER_CPU(struct gtp_nest, gtp_static_nest);

/*
 * A tracepoint's condition environment, per CPU and nesting slot like
 * the scratch areas, not on the stack, where taking its address costs a
 * stack-protector canary per hit.
 */
static DEFINE_PER_CPU(struct ax_env [GTP_STATIC_NEST_MAX], gtp_static_env);

/*
 * A tracepoint's hit, as every backend runs it: a pure condition is
 * decided first, unless the probe entry decided it already (held, in
 * the environment after @sr): then the CPU budget times one such hit in
 * GTP_BUDGET_EVERY from here, as it times the others from their
 * condition, and the hit continues that environment's step budget.
 */
static __always_inline void tp_hit(const struct gtp_static_att *att,
				   struct gtp_static_regs *sr, int slot)
{
	struct ax_env *env = sr->cond_held ? (struct ax_env *)(sr + 1) :
			     this_cpu_ptr(gtp_static_env) + slot;
	enum gtp_precheck pre;

	pre = gtp_hit_begin(att->tp, &sr->regs, env, sr->cond_held);
	if (pre == GTP_PRE_FALSE)
		return;
	gtp_hit_finish(att->tp, &sr->regs,
		       gtp_hit_scratch(att->scratch, GTP_STATIC_NEST_MAX, slot),
		       GTP_SCRATCH_SIZE, env, pre);
}

/*
 * The trampoline's C half: complete the register block and call the hit.
 * Runs inside the tracepoint; must not sleep.  Preemption goes off here
 * whatever the tracepoint did (faultable tracepoints call their probes
 * preemptible): the slot, the per-CPU areas and the CPU's frame ring stay
 * this hit's from claim to release.
 */
void notrace gtp_static_hit(struct gtp_static_regs *sr)
{
	struct gtp_static_att *att = (void *)sr->regs.di;
	struct gtp_nest *nest;
	u32 ctx, prev;
	int slot;

	preempt_disable_notrace();
	nest = this_cpu_ptr(&gtp_static_nest);
	ctx = (preempt_count() & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_MASK)) + 1;
	slot = gtp_nest_enter(nest, ctx, GTP_STATIC_NEST_MAX, &prev);
	if (unlikely(slot < 0)) {
		atomic_long_inc(&att->missed);
		goto out;
	}
	/* The frame is "at" the marker, as if __traceiter_EVENT ran. */
	sr->regs.ip = att->addr;
	sr->regs.cs = __KERNEL_CS;
	sr->regs.ss = __KERNEL_DS;
	sr->nargs = att->nargs;
	sr->slot = slot;
	/*
	 * only gtp_static_entry_fast and gtp_static_entry_held call us with
	 * a condition, which held
	 */
	sr->cond_held = att->cond != NULL;
	/* gdb's tracepoints: inline, no retpoline on the hot path */
	if (likely(att->tp))
		tp_hit(att, sr, slot);
	else
		att->hit(att->ctx, &sr->regs);
	gtp_nest_exit(nest, prev);
out:
	preempt_enable_notrace();
}

/*
 * gtp_static_entry_fast's C half: only rdi, rsi, rdx, rcx, r8..r11 are in
 * @sr yet, and the attach made sure att->cond reads nothing else, no
 * memory, and can fail in nothing: no fault, so no tracepoint can fire
 * inside and no nesting guard is needed; its environment lives in the
 * entry's frame, right after @sr.  True: the hit goes on, and continues
 * that environment's step budget (gtp_static_cond_env()).
 */
static __always_inline struct ax_env *cond_env(struct gtp_static_regs *sr,
						u32 steps)
{
	struct ax_env *env = (struct ax_env *)(sr + 1);

	env->regs = &sr->regs;
	env->steps = steps;
	env->faults = 0;
	env->err = 0;
	env->t0 = 0;	/* tp_hit() samples the CPU budget */
	return env;
}

bool notrace gtp_static_cond_false(struct gtp_static_regs *sr)
{
	const struct gtp_static_att *att = (void *)sr->regs.di;
	struct ax_env *env = cond_env(sr, AX_STEP_BUDGET);

	return !att->cond(env) && !env->err;
}

/*
 * gtp_static_entry_held's C half: the JIT'd probe decided the condition,
 * true; the environment is the one gtp_static_cond_false() would have
 * left, its steps charged for the condition.
 */
void notrace gtp_static_held_env(struct gtp_static_regs *sr)
{
	const struct gtp_static_att *att = (void *)sr->regs.di;

	cond_env(sr, AX_STEP_BUDGET - att->cond_steps);
}

static void *entry_of(const struct gtp_static_att *att)
{
	if (att->probe.entry)
		return att->probe.entry;
	return att->cond ? gtp_static_entry_fast : gtp_static_entry;
}

static void check_layout(void)
{
	/* static_tp_entry.S hard-codes these. */
	BUILD_BUG_ON(sizeof(struct pt_regs) != 168);
	BUILD_BUG_ON(sizeof(struct gtp_static_regs) != 184);
	BUILD_BUG_ON(offsetof(struct pt_regs, r15) != 0);
	BUILD_BUG_ON(offsetof(struct pt_regs, bx) != 40);
	BUILD_BUG_ON(offsetof(struct pt_regs, r8) != 72);
	BUILD_BUG_ON(offsetof(struct pt_regs, di) != 112);
	BUILD_BUG_ON(offsetof(struct pt_regs, ip) != 128);
	BUILD_BUG_ON(offsetof(struct pt_regs, flags) != 144);
	BUILD_BUG_ON(offsetof(struct pt_regs, sp) != 152);
	/* gtp_static_entry_fast: the regs, then the condition's env */
	BUILD_BUG_ON(sizeof(struct gtp_static_regs) + sizeof(struct ax_env) !=
		     240);
}

static int attach(struct gtp_static_att *att, u64 addr,
		  u64 (*cond)(struct ax_env *env), struct ax_jit_probe *probe,
		  u32 cond_steps, void **handle);

int gtp_static_attach(u64 addr, void (*hit)(void *ctx, struct pt_regs *regs),
		      void *ctx, void **handle)
{
	struct gtp_static_att *att = kzalloc(sizeof(*att), GFP_KERNEL);

	if (!att)
		return -ENOMEM;
	att->hit = hit;
	att->ctx = ctx;
	return attach(att, addr, NULL, NULL, 0, handle);
}

int gtp_static_attach_tp(u64 addr, struct gtp_tp *tp, u8 *scratch,
			 u64 (*cond)(struct ax_env *env),
			 struct ax_jit_probe *probe, u32 cond_steps,
			 void **handle)
{
	struct gtp_static_att *att = kzalloc(sizeof(*att), GFP_KERNEL);

	if (!att) {
		if (probe)
			gtp_tp_jit_probe_free(probe);
		return -ENOMEM;
	}
	att->tp = tp;
	att->scratch = scratch;
	return attach(att, addr, cond, probe, cond_steps, handle);
}

/* Takes @att, which is freed on failure. */
static int attach(struct gtp_static_att *att, u64 addr,
		  u64 (*cond)(struct ax_env *env), struct ax_jit_probe *probe,
		  u32 cond_steps, void **handle)
{
	struct gtp_marker *m;
	int ret;

	check_layout();
	att->addr = addr;
	att->cond = cond;
	if (probe && cond)
		swap(att->probe, *probe);
	if (probe)
		gtp_tp_jit_probe_free(probe);	/* not for a probe without cond */
	att->cond_steps = cond_steps;

	mutex_lock(&gtp_static_mutex);
	m = gtp_marker_find(addr);
	ret = -ENOENT;
	if (!m)
		goto err_unlock;
	/*
	 * A module still in its init can fail it and be freed whatever its
	 * refcount: only a live module's tracepoints are safe to pin.
	 */
	ret = -ENODEV;
	if (m->mod && (READ_ONCE(m->mod->state) != MODULE_STATE_LIVE ||
		       !try_module_get(m->mod)))
		goto err_unlock;
	att->m = m;
	att->nargs = m->nargs;
	ret = tracepoint_probe_register(m->tp, entry_of(att), att);
	if (ret)
		goto err_put;
	m->attached++;
	list_add(&att->list, &all_atts);
	mutex_unlock(&gtp_static_mutex);
	*handle = att;
	return 0;

err_put:
	if (m->mod)
		module_put(m->mod);
err_unlock:
	mutex_unlock(&gtp_static_mutex);
	gtp_tp_jit_probe_free(&att->probe);	/* never registered */
	kfree(att);
	return ret;
}

/* Unregister; the caller waits for running probes before freeing. */
static void unregister_att(struct gtp_static_att *att)
{
	lockdep_assert_held(&gtp_static_mutex);
	WARN_ON_ONCE(tracepoint_probe_unregister(att->m->tp, entry_of(att),
						 att));
	att->m->attached--;
	list_del(&att->list);
}

static void release_att(struct gtp_static_att *att)
{
	if (att->m->mod)
		module_put(att->m->mod);
	gtp_tp_jit_probe_free(&att->probe);	/* no call of it is left */
	kfree(att);
}

void gtp_static_detach_many(void **handles, unsigned int n, u64 *missed)
{
	unsigned int i;

	if (!n)
		return;
	mutex_lock(&gtp_static_mutex);
	for (i = 0; i < n; i++)
		if (handles[i])
			unregister_att(handles[i]);
	mutex_unlock(&gtp_static_mutex);
	/* SRCU + RCU: every probe call that could see an att has returned. */
	tracepoint_synchronize_unregister();
	for (i = 0; i < n; i++) {
		struct gtp_static_att *att = handles[i];

		if (missed)
			missed[i] = att ? atomic_long_read(&att->missed) : 0;
		if (att)
			release_att(att);
	}
}

bool gtp_static_handle_jit(void *handle)
{
	const struct gtp_static_att *att = handle;

	return att->probe.entry;
}

struct module *gtp_static_handle_module(void *handle)
{
	const struct gtp_static_att *att = handle;

	return att->m->mod;
}

void gtp_static_detach(void *handle)
{
	gtp_static_detach_many(&handle, 1, NULL);
}

unsigned int gtp_static_nr_attached(void)
{
	struct gtp_static_att *att;
	unsigned int n = 0;

	mutex_lock(&gtp_static_mutex);
	list_for_each_entry(att, &all_atts, list)
		n++;
	mutex_unlock(&gtp_static_mutex);
	return n;
}

/*
 * Module exit, before the markers go: nothing may stay registered once we
 * are gone.  The users detached theirs already (main.c exits them
 * first): anything left is a bug, said in the log and undone.
 */
void gtp_static_probe_exit(void)
{
	struct gtp_static_att *att, *tmp;
	LIST_HEAD(dead);

	lockdep_assert_held(&gtp_mutex);
	mutex_lock(&gtp_static_mutex);
	list_for_each_entry_safe(att, tmp, &all_atts, list) {
		unregister_att(att);
		list_add(&att->list, &dead);
	}
	mutex_unlock(&gtp_static_mutex);
	if (list_empty(&dead))
		return;
	pr_warn("detaching static probes left attached at unload\n");
	tracepoint_synchronize_unregister();
	list_for_each_entry_safe(att, tmp, &dead, list)
		release_att(att);
}
