// SPDX-License-Identifier: GPL-2.0
/*
 * watch.c - the watch backend (attach.h): a location that is data
 * (core/watch.h) rides a hardware breakpoint on every online CPU,
 * register_wide_hw_breakpoint(), which takes one of the CPU's four debug
 * registers.
 *
 * A hit is the kernel's debug exception after the access, which it runs
 * as NMI context: the registers are the accessing code's, with the ip
 * past the instruction that wrote (or read).  At each hit the handler
 * reads the watched bytes (nofault) and exchanges them with the value the
 * hit before left (or the arm read), so $watch_val and $watch_prev of the
 * hits on all CPUs form one chain of values, each hit's "before" the
 * previous one's "after".
 *
 * Breakpoint hits nest: gtp's own frame building may touch the watched
 * bytes of an "$awatch" (collecting them), and another watch may fire
 * inside a hit.  One hit at a time runs on a CPU (gtp_nest_enter_one());
 * a nested one is dropped and counted as missed.
 *
 * The kernel refuses a breakpoint on its entry code and exception
 * stacks, and runs out of debug registers (shared with ptrace, kgdb and
 * perf): QTStart then fails, saying which.  A CPU that goes offline
 * loses its breakpoint and one that comes online has none: writes there
 * are not seen (register_wide_hw_breakpoint() covers the CPUs online at
 * the time).
 */
#define pr_fmt(fmt) "gtp: " fmt

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <linux/kprobes.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/percpu.h>

#include "services.h"
#include "kcompat.h"
#include "probes.h"
#include "attach.h"
#include "hit.h"
#include "nest.h"
#include "trace.h"

struct gtp_watch {
	struct gtp_attachment a;
	struct perf_event * __percpu *bp;	/* NULL until registered */
	u64 last;		/* the bytes as last seen: xchg by hits */
	atomic_long_t missed;	/* hits nested in another one on a CPU */
	struct gtp_watch *next;
};

/* A hit's environment and the values its $watch_val, $watch_prev read. */
struct gtp_watch_cpu {
	struct ax_env env;
	u64 val;
	u64 prev;
};

/* Under gtp_mutex: added since the last disarm. */
static struct gtp_watch *gtp_watches, **gtp_watches_tail = &gtp_watches;
static u8 *gtp_watch_scratch;		/* nr_cpu_ids * GTP_SCRATCH_SIZE */
static DEFINE_PER_CPU(struct gtp_watch_cpu, gtp_watch_cpu);
static DEFINE_PER_CPU(struct gtp_nest, gtp_watch_nest);

/* The watched bytes, zero-extended; 0 when they cannot be read. */
static u64 watch_read(const struct gtp_tp *tp)
{
	u64 v = 0;

	if (gtp_read_nofault(&v, tp->addr, tp->watch_len))
		return 0;
	return v;	/* little-endian: the low bytes are the value */
}
NOKPROBE_SYMBOL(watch_read);

/* The breakpoint's overflow handler: debug exception, NMI context. */
static void gtp_watch_hit(struct perf_event *bp, struct perf_sample_data *data,
			  struct pt_regs *regs)
{
	struct gtp_watch *w = bp->overflow_handler_context;
	struct gtp_watch_cpu *c;

	if (unlikely(!gtp_nest_enter_one(gtp_watch_nest))) {
		atomic_long_inc(&w->missed);
		goto out;
	}
	c = this_cpu_ptr(&gtp_watch_cpu);
	c->val = watch_read(w->a.tp);
	c->prev = xchg(&w->last, c->val);
	gtp_hit(w->a.tp, regs, &c->env, gtp_watch_scratch, false);
out:
	gtp_nest_exit_one(gtp_watch_nest);
}
NOKPROBE_SYMBOL(gtp_watch_hit);

static struct gtp_attachment *watch_add(struct gtp_conn *gc,
					struct gtp_tp *tp)
{
	struct gtp_watch *w;

	if (!tp->watch_len)
		return NULL;
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w) {
		gtp_console(gc, "gtp: out of memory for watches\n");
		return ERR_PTR(-ENOMEM);
	}
	*gtp_watches_tail = w;
	gtp_watches_tail = &w->next;
	return &w->a;
}

/* The kernel's reason for refusing a breakpoint, in words. */
static const char *watch_refusal(int err)
{
	switch (err) {
	case -ENOSPC:
		return "no free debug register (each CPU has 4, shared with ptrace, kgdb and perf)";
	case -EINVAL:
		return "the kernel does not let a hardware breakpoint watch this address (entry code, exception stacks)";
	case -ENOMEM:
		return "out of memory";
	default:
		return "refused by the kernel's hardware breakpoints";
	}
}

static int watch_arm(struct gtp_conn *gc)
{
	struct perf_event_attr attr;
	struct gtp_watch *w;
	int ret;

	if (!gtp_watches)
		return 0;
	gtp_watch_scratch = vmalloc(array_size(nr_cpu_ids, GTP_SCRATCH_SIZE));
	if (!gtp_watch_scratch) {
		gtp_console(gc, "gtp: out of memory for watches\n");
		return -ENOMEM;
	}
	for (w = gtp_watches; w; w = w->next) {
		struct gtp_tp *tp = w->a.tp;
		struct perf_event * __percpu *bp;

		hw_breakpoint_init(&attr);
		attr.bp_addr = tp->addr;
		attr.bp_len = tp->watch_len;	/* HW_BREAKPOINT_LEN_N is N */
		attr.bp_type = tp->watch_reads ? HW_BREAKPOINT_RW :
						 HW_BREAKPOINT_W;
		/* before the first hit, whose "before" it is */
		w->last = watch_read(tp);
		bp = register_wide_hw_breakpoint(&attr, gtp_watch_hit, w);
		if (IS_ERR_PCPU(bp)) {
			ret = PTR_ERR_PCPU(bp);
			gtp_console(gc, "gtp: tracepoint %u at 0x%llx: %s (error %d)\n",
				    tp->num, (unsigned long long)tp->addr,
				    watch_refusal(ret), ret);
			return ret;
		}
		w->bp = bp;
	}
	return 0;
}

/*
 * Unregistering a CPU's breakpoint removes it on that CPU by a
 * synchronous cross-call, which that CPU takes with interrupts on, never
 * inside the debug exception: once it returns no handler runs there.
 */
static void watch_disarm(void)
{
	struct gtp_watch *w, *next;

	for (w = gtp_watches; w; w = next) {
		next = w->next;
		if (w->bp)
			unregister_wide_hw_breakpoint(w->bp);
		w->a.tp->missed = atomic_long_read(&w->missed);
		kfree(w);
	}
	gtp_watches = NULL;
	gtp_watches_tail = &gtp_watches;
	vfree(gtp_watch_scratch);
	gtp_watch_scratch = NULL;
}

/* The CPU budget's trip: the breakpoints go, so writes cost nothing. */
static bool watch_retire(struct gtp_attachment *a)
{
	struct gtp_watch *w = container_of(a, struct gtp_watch, a);

	if (w->bp) {
		unregister_wide_hw_breakpoint(w->bp);
		w->bp = NULL;
	}
	return true;
}

static const char *watch_kind(const struct gtp_attachment *a)
{
	return a->tp->watch_reads ? "awatch" : "watch";
}

/* "$watch_val", "$watch_prev": this CPU's hit's, which is the caller. */
static u64 watch_value(const struct gtp_attachment *a, bool prev)
{
	const struct gtp_watch_cpu *c = this_cpu_ptr(&gtp_watch_cpu);

	return prev ? c->prev : c->val;
}
NOKPROBE_SYMBOL(watch_value);

static const struct gtp_backend gtp_watch_backend = {
	.name		= "watch",
	.rank		= GTP_BACKEND_WATCH,
	.add		= watch_add,
	.arm		= watch_arm,
	.disarm		= watch_disarm,
	.retire		= watch_retire,
	.kind		= watch_kind,
	.watch		= watch_value,
};

int gtp_watch_init(void)
{
	gtp_attach_register(&gtp_watch_backend);
	return 0;
}

/* After every location is detached. */
void gtp_watch_exit(void)
{
	gtp_attach_unregister(&gtp_watch_backend);
}
