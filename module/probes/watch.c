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
 * A watch at address 0 starts parked (registered, disabled, on a word of
 * ours) and follows "$watch_arm_N = ADDR" (gtp_watch_arm()): a hit anywhere
 * leaves the address in the watch and queues an irq_work, which queues
 * the work that moves the breakpoint on every CPU
 * (modify_user_hw_breakpoint(), process context: it sends IPIs).  So a
 * dynamic watch is armed some microseconds after the hit that asked,
 * and the last address asked wins.  Each watch holds its debug register
 * from QTStart on, moved or not: running out is said at QTStart, never
 * in a hit.
 *
 * The kernel refuses a breakpoint on its entry code and exception
 * stacks, and runs out of debug registers (shared with ptrace, kgdb and
 * perf): QTStart then fails, saying which.  An address a hit asks for
 * that the kernel refuses leaves the watch parked, and `attached` says
 * so.  A CPU that goes offline
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
#include <linux/irq_work.h>
#include <linux/workqueue.h>
#include <linux/mutex.h>

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
	u64 at;			/* where it watches, 0: parked; set by the
				 * work, read by hits */
	u64 want;		/* where hits asked it to (gtp_watch_arm()) */
	int refused;		/* the kernel's error for the last move */
	atomic_long_t missed;	/* hits nested in another one on a CPU */
	struct gtp_watch *next;
};

/* A hit's environment and the values its $watch_val, $watch_prev read. */
struct gtp_watch_cpu {
	struct ax_env env;
	u64 val;
	u64 prev;
	u64 at;
};

/* Under gtp_mutex: added since the last disarm. */
static struct gtp_watch *gtp_watches, **gtp_watches_tail = &gtp_watches;
static u8 *gtp_watch_scratch;		/* nr_cpu_ids * GTP_SCRATCH_SIZE */
static DEFINE_PER_CPU(struct gtp_watch_cpu, gtp_watch_cpu);
static DEFINE_PER_CPU(struct gtp_nest, gtp_watch_nest);

/* Where a parked watch's disabled breakpoint points: never written. */
static u64 gtp_watch_parked __aligned(8);

/* Moving watches: hits ask (irq_work), the work moves (process context). */
static bool gtp_watch_moving;	/* between arm and disarm, READ_ONCE */
static void watch_move_kick(struct irq_work *iw);
static void watch_move_work(struct work_struct *work);
static DEFINE_IRQ_WORK(gtp_watch_kick, watch_move_kick);
static DECLARE_WORK(gtp_watch_work, watch_move_work);
/* The work's moves against the CPU budget's retire (under gtp_mutex). */
static DEFINE_MUTEX(gtp_watch_lock);

/* @len bytes at @addr, zero-extended; 0 when they cannot be read. */
static u64 watch_read(u64 addr, u32 len)
{
	u64 v = 0;

	if (!addr || gtp_read_nofault(&v, addr, len))
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
	c->at = READ_ONCE(w->at);
	c->val = watch_read(c->at, w->a.tp->watch_len);
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

/* The breakpoint of @tp at @addr; at 0, parked and disabled. */
static void watch_attr(struct perf_event_attr *attr, const struct gtp_tp *tp,
		       u64 addr)
{
	hw_breakpoint_init(attr);
	attr->bp_addr = addr ? addr : (unsigned long)&gtp_watch_parked;
	attr->bp_len = tp->watch_len;	/* HW_BREAKPOINT_LEN_N is N */
	attr->bp_type = tp->watch_reads ? HW_BREAKPOINT_RW : HW_BREAKPOINT_W;
	attr->disabled = !addr;
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

		watch_attr(&attr, tp, tp->addr);
		/* before the first hit, whose "before" it is */
		w->last = watch_read(tp->addr, tp->watch_len);
		w->at = w->want = tp->addr;
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
	WRITE_ONCE(gtp_watch_moving, true);
	return 0;
}

/**
 * gtp_watch_arm() - "$watch_arm_N = ADDR": watch N watches @addr from now
 * @tpnum: the watch tracepoint's number
 * @addr: what to watch (aligned to its length), 0 to park it
 *
 * The host's ->watch_arm.  The breakpoints move from process context, a
 * moment later; the last address asked wins.
 *
 * Context: probe, any (NMI included): no lock, no sleep, no wake-up.
 * Return: 0, -ENOENT when @tpnum is no watch of the armed trace, -EINVAL
 * for an address no watch of its length may have.
 */
int gtp_watch_arm(u32 tpnum, u64 addr)
{
	struct gtp_watch *w;
	u32 len;

	if (!READ_ONCE(gtp_watch_moving))
		return -ENOENT;
	for (w = READ_ONCE(gtp_watches); w; w = w->next)
		if (w->a.tp->num == tpnum)
			break;
	if (!w)
		return -ENOENT;
	len = w->a.tp->watch_len;
	if (addr && (gtp_user_addr(addr) || (addr & (len - 1)) ||
		     within_module(addr, THIS_MODULE)))
		return -EINVAL;
	WRITE_ONCE(w->want, addr);
	irq_work_queue(&gtp_watch_kick);
	return 0;
}
NOKPROBE_SYMBOL(gtp_watch_arm);

/* Hard interrupt (or an RT kernel's irq_work thread): on to a worker. */
static void watch_move_kick(struct irq_work *iw)
{
	if (READ_ONCE(gtp_watch_moving))
		queue_work(system_highpri_wq, &gtp_watch_work);
}

/* Move @w's breakpoint on every CPU to @addr (0: park it). */
static int watch_move(struct gtp_watch *w, u64 addr)
{
	struct perf_event_attr attr;
	struct perf_event *bp;
	int cpu, ret = 0;

	watch_attr(&attr, w->a.tp, addr);
	/* the first hit's "before": the bytes before they are watched */
	WRITE_ONCE(w->last, watch_read(addr, w->a.tp->watch_len));
	WRITE_ONCE(w->at, addr);
	for_each_possible_cpu(cpu) {
		bp = per_cpu(*w->bp, cpu);
		if (bp && !ret)
			ret = modify_user_hw_breakpoint(bp, &attr);
	}
	return ret;
}

/*
 * Process context, never under gtp_mutex (disarm waits for it there):
 * the list does not change while gtp_watch_moving is set.
 */
static void watch_move_work(struct work_struct *work)
{
	struct gtp_watch *w;
	u64 want;
	int ret;

	mutex_lock(&gtp_watch_lock);
	for (w = gtp_watches; w && READ_ONCE(gtp_watch_moving); w = w->next) {
		want = READ_ONCE(w->want);
		if (!w->bp || want == READ_ONCE(w->at))
			continue;
		ret = watch_move(w, want);
		WRITE_ONCE(w->refused, ret);
		if (ret)	/* the kernel would not: parked, and said */
			watch_move(w, 0);
	}
	mutex_unlock(&gtp_watch_lock);
}

/*
 * Unregistering a CPU's breakpoint removes it on that CPU by a
 * synchronous cross-call, which that CPU takes with interrupts on, never
 * inside the debug exception: once it returns no handler runs there.
 */
static void watch_disarm(void)
{
	struct gtp_watch *w, *next;

	/* no move asked, queued or running from here on */
	WRITE_ONCE(gtp_watch_moving, false);
	irq_work_sync(&gtp_watch_kick);
	cancel_work_sync(&gtp_watch_work);
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

	mutex_lock(&gtp_watch_lock);
	if (w->bp) {
		unregister_wide_hw_breakpoint(w->bp);
		w->bp = NULL;
	}
	mutex_unlock(&gtp_watch_lock);
	return true;
}

/* `attached`: what, and a dynamic watch's state */
static const char *watch_kind(const struct gtp_attachment *a)
{
	const struct gtp_watch *w = container_of(a, struct gtp_watch, a);
	static const char *const words[2][3] = {
		{ "watch", "watch parked", "watch parked, refused" },
		{ "awatch", "awatch parked", "awatch parked, refused" },
	};

	return words[a->tp->watch_reads][READ_ONCE(w->at) ? 0 :
					  READ_ONCE(w->refused) ? 2 : 1];
}

/* "$watch_val", ...: this CPU's hit's, which is the caller. */
static u64 watch_value(const struct gtp_attachment *a, int what)
{
	const struct gtp_watch_cpu *c = this_cpu_ptr(&gtp_watch_cpu);

	switch (what) {
	case GTP_WATCH_PREV:
		return c->prev;
	case GTP_WATCH_ADDR:
		return c->at;
	default:
		return c->val;
	}
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
