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
 * tracepoint cannot vanish under a probe; gtp.ko itself detaches
 * everything in its exit path before its code goes away.
 *
 * Debug/benchmark knob: /sys/module/gtp/parameters/static_debug
 *	echo "capture SYSTEM:EVENT" >   count hits, keep the last $_sdata
 *	echo "bare SYSTEM:EVENT" >      trampoline + empty callback (cost)
 *	echo "cond SYSTEM:EVENT HEX" >  evaluate agent expression HEX per hit
 *					(JIT if present, else interpreter)
 *	echo off >                      detach
 *	cat                             "attached=N hits=N true=N sdata=TEXT"
 *					(attached: all static probes, gdb's too)
 * It uses the same attach path as the tracepoint code, so the e2e tests can
 * check register capture and probe removal without a gdb session.
 */
#define pr_fmt(fmt) "gtp: static: " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/tracepoint.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <asm/segment.h>

#include "ax.h"
#include "jit.h"
#include "collect.h"
#include "tracepoint.h"
#include "trace.h"
#include "static_tp.h"
#include "gtp_glue.h"

struct gtp_static_att {
	struct list_head list;		/* all_atts, under gtp_static_mutex */
	struct gtp_marker *m;
	u64 addr;
	u32 nargs;
	void (*hit)(void *ctx, struct pt_regs *regs);
	void *ctx;
};

static LIST_HEAD(all_atts);

/* static_tp_entry.S */
void gtp_static_entry(void);
static void static_tp_hit(void *ctx, struct pt_regs *regs);

/*
 * The trampoline's C half: complete the register block and call the hit.
 * Runs with preemption disabled inside the tracepoint; must not sleep.
 */
void notrace gtp_static_hit(struct gtp_static_regs *sr)
{
	const struct gtp_static_att *att = (void *)sr->regs.di;

	/* The frame is "at" the marker, as if __traceiter_EVENT ran. */
	sr->regs.ip = att->addr;
	sr->regs.cs = __KERNEL_CS;
	sr->regs.ss = __KERNEL_DS;
	sr->nargs = att->nargs;
	/* gdb's tracepoints: a direct call, no retpoline on the hot path */
	if (likely(att->hit == static_tp_hit))
		static_tp_hit(att->ctx, &sr->regs);
	else
		att->hit(att->ctx, &sr->regs);
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
}

int gtp_static_attach(u64 addr, void (*hit)(void *ctx, struct pt_regs *regs),
		      void *ctx, void **handle)
{
	struct gtp_static_att *att;
	struct gtp_marker *m;
	int ret;

	check_layout();
	att = kzalloc(sizeof(*att), GFP_KERNEL);
	if (!att)
		return -ENOMEM;
	att->addr = addr;
	att->hit = hit;
	att->ctx = ctx;

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
	ret = tracepoint_probe_register(m->tp, gtp_static_entry, att);
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
	kfree(att);
	return ret;
}

/* Unregister; the caller waits for running probes before freeing. */
static void unregister_att(struct gtp_static_att *att)
{
	lockdep_assert_held(&gtp_static_mutex);
	WARN_ON_ONCE(tracepoint_probe_unregister(att->m->tp, gtp_static_entry,
						 att));
	att->m->attached--;
	list_del(&att->list);
}

static void release_att(struct gtp_static_att *att)
{
	if (att->m->mod)
		module_put(att->m->mod);
	kfree(att);
}

void gtp_static_detach_many(void **handles, unsigned int n)
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
	for (i = 0; i < n; i++)
		if (handles[i])
			release_att(handles[i]);
}

void gtp_static_detach(void *handle)
{
	gtp_static_detach_many(&handle, 1);
}

/* ---- arming gdb's static tracepoints (QTStart .. QTStop) ---- */

/*
 * Frames are built in per-CPU scratch space, as for kprobes, but unlike
 * kprobe handlers tracepoint probes nest: an interrupt can hit a
 * tracepoint while this CPU is inside a hit.  So there is one area per
 * interrupt context level (task, softirq, hardirq, NMI); a hit that finds
 * its level busy (recursion through a tracepoint in our own path) is
 * dropped rather than corrupting the frame under construction.
 */
#define NR_LEVELS	4

struct arm_cpu {
	u8 busy[NR_LEVELS];
};

static DEFINE_PER_CPU(struct arm_cpu, arm_cpu);
static u8 *arm_scratch;		/* nr_cpu_ids * NR_LEVELS areas */
static void **arm_handles;
static unsigned int arm_n;

/* One armed location: the hit's context. */
struct arm_tp {
	struct gtp_tp *tp;
	bool precheck;		/* condition without side effects */
};

static struct arm_tp *arm_tps;

/* Can the condition run twice with the same outcome and no trace? */
static bool cond_is_pure(const struct ax_prog *prog)
{
	u32 i;

	for (i = 0; i < prog->ninsns; i++) {
		switch (prog->insns[i].op) {
		case AX_SETV:
		case AX_TRACE:
		case AX_TRACE_QUICK:
		case AX_TRACE16:
		case AX_TRACENZ:
		case AX_TRACEV:
		case AX_PRINTF:
			return false;
		}
	}
	return true;
}

static void notrace static_tp_hit(void *ctx, struct pt_regs *regs)
{
	const struct arm_tp *at = ctx;
	struct gtp_tp *tp = at->tp;
	unsigned int level;
	size_t area;
	u8 *busy;

	/*
	 * Most hits of a selective tracepoint fail its condition: decide
	 * that first, before claiming scratch space.  gtp_tp_hit() re-runs
	 * a condition that held (or failed to evaluate, to count the
	 * error); being pure, it gives the same answer.
	 */
	if (at->precheck) {
		struct ax_env env = { .regs = regs, .tp = tp };

		if (!gtp_trace_running() || !READ_ONCE(tp->enabled))
			return;
		if (!ax_run(tp->cond, &env) && !env.err)
			return;
	}
	level = interrupt_context_level();
	busy = this_cpu_ptr(&arm_cpu)->busy + level;
	area = (size_t)smp_processor_id() * NR_LEVELS + level;
	if (*busy)
		return;
	*busy = 1;
	barrier();	/* set before any frame byte is written */
	gtp_tp_hit(tp, regs, arm_scratch + area * GTP_SCRATCH_SIZE,
		   GTP_SCRATCH_SIZE);
	barrier();
	*busy = 0;
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
	arm_scratch = vmalloc(array3_size(nr_cpu_ids, NR_LEVELS,
					  GTP_SCRATCH_SIZE));
	if (!arm_handles || !arm_tps || !arm_scratch) {
		gtp_console(gc, "gtp: out of memory for static tracepoints\n");
		ret = -ENOMEM;
		goto err;
	}
	for (tp = gtp_tps; tp; tp = tp->next) {
		if (!tp->is_static)
			continue;
		arm_tps[arm_n].tp = tp;
		arm_tps[arm_n].precheck = tp->cond && cond_is_pure(tp->cond);
		ret = gtp_static_attach(tp->addr, static_tp_hit, &arm_tps[arm_n],
					&arm_handles[arm_n]);
		if (ret) {
			gtp_console(gc, "gtp: static tracepoint %u at 0x%llx: %s (error %d)\n",
				    tp->num, (unsigned long long)tp->addr,
				    attach_refusal(ret), ret);
			goto err;
		}
		arm_n++;
	}
	return 0;

err:
	gtp_static_disarm();
	return ret;
}

void gtp_static_disarm(void)
{
	lockdep_assert_held(&gtp_mutex);
	gtp_static_detach_many(arm_handles, arm_n);
	arm_n = 0;
	kfree(arm_handles);
	arm_handles = NULL;
	kfree(arm_tps);
	arm_tps = NULL;
	vfree(arm_scratch);
	arm_scratch = NULL;
}

/* ---- the debug/benchmark knob ---- */

/* a record with GTP_SDATA_MAX_ARGS words, as u64s */
#define DBG_SDATA_WORDS	(2 + GTP_SDATA_MAX_ARGS)

static struct {
	void *handle;
	struct ax_prog *prog;
	atomic64_t hits, trues;
	spinlock_t lock;		/* last_sdata, from probe context */
	u64 last_sdata[DBG_SDATA_WORDS];
	u32 last_len;
	bool exiting;		/* module exit ran: refuse new probes */
} dbg = {
	.lock = __SPIN_LOCK_UNLOCKED(dbg.lock),
};

static void dbg_capture_hit(void *ctx, struct pt_regs *regs)
{
	unsigned long flags;

	atomic64_inc(&dbg.hits);
	spin_lock_irqsave(&dbg.lock, flags);
	dbg.last_len = gtp_sdata_collect(regs, dbg.last_sdata,
					 sizeof(dbg.last_sdata));
	spin_unlock_irqrestore(&dbg.lock, flags);
}

static void dbg_bare_hit(void *ctx, struct pt_regs *regs)
{
}

static void dbg_cond_hit(void *ctx, struct pt_regs *regs)
{
	struct ax_env env = { .regs = regs };

	if (ax_run(ctx, &env) && !env.err)
		atomic64_inc(&dbg.trues);
}

/* Weak: the JIT may not be linked in (then the interpreter runs). */
extern int ax_jit_compile(struct ax_prog *prog, char *log, size_t logsz)
	__weak;
extern void ax_jit_free(struct ax_prog *prog) __weak;

static void dbg_off(void)
{
	if (dbg.handle)
		gtp_static_detach(dbg.handle);
	dbg.handle = NULL;
	if (dbg.prog) {
		if (dbg.prog->jit && ax_jit_free)
			ax_jit_free(dbg.prog);
		ax_prog_free(dbg.prog);
		dbg.prog = NULL;
	}
}

static int dbg_parse_cond(const char *hex, struct ax_prog **prog)
{
	size_t n = strlen(hex);
	char log[128];
	u8 *code;
	int ret;

	if (!n || n % 2 || n / 2 > AX_MAX_CODE)
		return -EINVAL;
	code = kmalloc(n / 2, GFP_KERNEL);
	if (!code)
		return -ENOMEM;
	ret = hex2bin(code, hex, n / 2);
	if (!ret)
		ret = ax_verify(code, n / 2, true, prog, log, sizeof(log));
	kfree(code);
	if (ret) {
		pr_info("static_debug: condition refused: %s\n", log);
		return ret;
	}
	if (ax_jit_compile && ax_jit_compile(*prog, log, sizeof(log)))
		pr_info("static_debug: interpreting: %s\n", log);
	return 0;
}

static int dbg_set(const char *val, const struct kernel_param *kp)
{
	char *buf, *argv[3] = { NULL };
	void (*hit)(void *, struct pt_regs *);
	void *ctx = NULL;
	int argc = 0, ret;
	char *p, *tok;
	u64 addr;

	buf = kstrdup(val, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	p = strim(buf);
	while ((tok = strsep(&p, " \t")) && argc < 3)
		if (*tok)
			argv[argc++] = tok;

	mutex_lock(&gtp_mutex);
	ret = -ENODEV;
	if (dbg.exiting)
		goto out;
	dbg_off();
	atomic64_set(&dbg.hits, 0);
	atomic64_set(&dbg.trues, 0);
	dbg.last_len = 0;
	ret = 0;
	if (argc == 1 && !strcmp(argv[0], "off"))
		goto out;
	ret = -EINVAL;
	if (argc < 2 || gtp_static_marker_by_id(argv[1], &addr))
		goto out;
	if (argc == 2 && !strcmp(argv[0], "capture")) {
		hit = dbg_capture_hit;
	} else if (argc == 2 && !strcmp(argv[0], "bare")) {
		hit = dbg_bare_hit;
	} else if (argc == 3 && !strcmp(argv[0], "cond")) {
		ret = dbg_parse_cond(argv[2], &dbg.prog);
		if (ret)
			goto out;
		hit = dbg_cond_hit;
		ctx = dbg.prog;
	} else {
		goto out;
	}
	ret = gtp_static_attach(addr, hit, ctx, &dbg.handle);
	if (ret)
		dbg_off();
out:
	mutex_unlock(&gtp_mutex);
	kfree(buf);
	return ret;
}

static int dbg_get(char *buffer, const struct kernel_param *kp)
{
	char text[256] = "";
	unsigned long flags;
	u64 rec[DBG_SDATA_WORDS];
	unsigned int attached = 0;
	struct gtp_static_att *att;
	u32 len;

	mutex_lock(&gtp_static_mutex);
	list_for_each_entry(att, &all_atts, list)
		attached++;
	mutex_unlock(&gtp_static_mutex);
	spin_lock_irqsave(&dbg.lock, flags);
	len = dbg.last_len;
	memcpy(rec, dbg.last_sdata, len);
	spin_unlock_irqrestore(&dbg.lock, flags);
	if (len)
		gtp_static_sdata_format(rec, len, text, sizeof(text));
	return scnprintf(buffer, PAGE_SIZE,
			 "attached=%u hits=%lld true=%lld sdata=%s\n", attached,
			 atomic64_read(&dbg.hits), atomic64_read(&dbg.trues),
			 text);
}

static const struct kernel_param_ops dbg_ops = {
	.set = dbg_set,
	.get = dbg_get,
};
module_param_cb(static_debug, &dbg_ops, NULL, 0600);
MODULE_PARM_DESC(static_debug,
		 "static tracepoint self-test: capture|bare SYSTEM:EVENT, cond SYSTEM:EVENT HEX, off");

/* gtp_static_tp_exit(): nothing may stay registered once we are gone. */
void gtp_static_probe_exit(void)
{
	struct gtp_static_att *att, *tmp;
	LIST_HEAD(dead);

	/* Under gtp_mutex (glue exit): the knob outlives exit() briefly. */
	dbg.exiting = true;
	dbg_off();
	gtp_static_disarm();
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
