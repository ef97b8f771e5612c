// SPDX-License-Identifier: GPL-2.0
/*
 * entry_regs.c - the argument registers each task had on entering a
 * function, for the locations inside it that read entry values
 * (core/entryval.h: DW_OP_entry_value, as gtp's gdb scripts rewrite it).
 *
 * At QTStart, for every location that reads entry values, the function
 * containing it gets an ftrace location in one ftrace_ops of ours, with no
 * FTRACE_OPS_FL_SAVE_REGS: ftrace saves the argument registers and the
 * stack pointer anyway (kcompat.h).  Its callback records them for the
 * current task; a hit inside the function looks them up (gtp_entry_reg(),
 * the host's ->entry_reg).  An entry the recorder did not see (before
 * QTStart, or lost to a collision below) gives no value: gdb then shows
 * the variable <unavailable>, never another call's value.
 *
 * The table is a fixed array of slots hashed by task, allocated at
 * QTStart: nothing on the probe path allocates.  A slot holds one task's
 * active calls, each (function, stack pointer at entry, registers).  On
 * entry to a function at stack pointer S, the task's records below S on
 * the same stack belong to calls that have returned and are dropped; a hit
 * at stack pointer R takes the call of its function with the smallest
 * entry stack pointer above R on R's stack: the innermost active call, so
 * recursion and interrupts (their own stacks) find their own.  A task
 * whose slot another task took loses its records (their hits find none).
 *
 * Writers and readers on any CPU, in any context (a task, an irq, an NMI
 * inside either), never wait: the slot's sequence count is odd while one
 * writer changes it, and is taken with cmpxchg; a reader that sees it odd
 * or changing gives no value.
 *
 * A writer that cannot take the slot must not vanish.  Its call would
 * have dropped the task's records of calls that returned (at or below its
 * stack pointer), so a later hit in it would take one of those: the last
 * call of the same function from the same caller, at the same stack
 * pointer, another call's value.  This happens whenever an entry's
 * cmpxchg loses: to a writer on another CPU (a task whose slot collides),
 * or to an irq or NMI that lands between its read of the count and its
 * cmpxchg and records an entry of its own; and when an irq or NMI finds
 * the count odd because it interrupted the writer in the middle.  So:
 *
 *  - A writer whose cmpxchg lost to a write that has finished (the count
 *    is even again: a nested context ran to its end, or another CPU's
 *    writer did) tries again, a bounded number of times (EV_CLAIM_TRIES);
 *    a count found odd is never waited for, its writer may be the very
 *    context we interrupted.
 *  - A writer that gives up says so in the slot: it bumps @lost (atomic,
 *    no slot needed).  While @lost differs from @lost_seen, readers give
 *    no value; the next writer to take the slot drops every record in it
 *    and takes @lost as seen.  That is coarse (the task's other active
 *    calls lose their values too) but can never name a wrong call: what
 *    was skipped (which function, which stack pointer, which task) is not
 *    known, only that something was, and it is rare (a nested entry at
 *    that very instruction, three times).
 *
 * Entries ftrace itself does not deliver (its recursion guard) are not
 * seen at all, and not covered by this.
 *
 * The callback finds the table through its ops (ops.private), never
 * through ev_table, which only the readers use: if ftrace refuses to
 * unregister the ops at the disarm, the ops stays registered with its
 * table, ops.private is cleared so that the callback does nothing, and
 * both are handed to ftrace_unreg.c (freed only if a forced unload gets
 * them back); the next QTStart allocates a new recorder.
 */
#define pr_fmt(fmt) "gtp: " fmt

#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/module.h>

#include "kcompat.h"
#include "services.h"
#include "ksym.h"
#include "tracepoint.h"
#include "packets.h"
#include "ftrace_unreg.h"

#define EV_SLOT_BITS	9
#define EV_SLOTS	(1u << EV_SLOT_BITS)
#define EV_DEPTH	8		/* active recorded calls per task */
#define EV_NREGS	6
#define EV_CLAIM_TRIES	3		/* cmpxchgs lost to finished writes */

struct ev_call {
	unsigned long func;		/* ftrace location; 0: free */
	unsigned long sp;		/* at entry: the return address */
	unsigned long regs[EV_NREGS];	/* see ev_index() */
};

struct ev_slot {
	unsigned int seq;		/* odd: a writer is at work */
	atomic_t lost;			/* entries writers could not record */
	int lost_seen;			/* @lost when @call was last emptied */
	const void *task;
	struct ev_call call[EV_DEPTH];
};

/* The ops and its table: what the callback may reach while registered. */
struct ev_recorder {
	struct ftrace_ops ops;		/* .private: table, NULL once kept */
	struct ev_slot *table;
};

static struct ev_slot *ev_table;	/* the readers': NULL when disarmed */
static struct ev_recorder *ev_rec;
static unsigned int ev_funcs;

/* rdx rcx rsi rdi r8 r9 (DWARF 1 2 4 5 8 9) as regs[0..5]; -1: not kept */
static int ev_index(u32 dwreg)
{
	static const s8 idx[16] = {
		-1, 0, 1, -1, 2, 3, -1, -1, 4, 5, -1, -1, -1, -1, -1, -1,
	};

	return dwreg < 16 ? idx[dwreg] : -1;
}

static __always_inline bool same_stack(unsigned long a, unsigned long b)
{
	return !((a ^ b) & ~(THREAD_SIZE - 1));
}

static __always_inline struct ev_slot *ev_slot_of(struct ev_slot *table,
						   const void *task)
{
	return &table[hash_ptr((void *)task, EV_SLOT_BITS)];
}

static void notrace ev_record(struct ev_slot *s, unsigned long func,
			      const struct pt_regs *regs)
{
	unsigned long sp = regs->sp;
	struct ev_call *c, *pick = NULL;
	int i;

	int lost = atomic_read(&s->lost);

	/* another task's records, or records an unrecorded entry outdated */
	if (s->task != current || lost != s->lost_seen) {
		memset(s->call, 0, sizeof(s->call));
		s->task = current;
		WRITE_ONCE(s->lost_seen, lost);
	}
	for (i = 0; i < EV_DEPTH; i++) {
		c = &s->call[i];
		/* returned: its frame was below this one's on this stack */
		if (c->func && same_stack(c->sp, sp) && c->sp <= sp)
			c->func = 0;
		if (!c->func) {
			if (!pick || pick->func)
				pick = c;	/* a free one, if any */
		} else if (!pick || (pick->func && c->sp > pick->sp)) {
			pick = c;	/* full: the outermost call goes */
		}
	}
	pick->func = func;
	pick->sp = sp;
	pick->regs[0] = regs->dx;
	pick->regs[1] = regs->cx;
	pick->regs[2] = regs->si;
	pick->regs[3] = regs->di;
	pick->regs[4] = regs->r8;
	pick->regs[5] = regs->r9;
}

static void notrace ev_entry_cb(unsigned long ip, unsigned long parent_ip,
				struct ftrace_ops *op,
				struct ftrace_regs *fregs)
{
	struct ev_slot *table = READ_ONCE(op->private), *s;
	unsigned int seq;
	int tries;

	/* kept registered after ftrace refused to let it go: nothing to do */
	if (unlikely(!table))
		return;
	preempt_disable_notrace();
	s = ev_slot_of(table, current);
	seq = READ_ONCE(s->seq);
	for (tries = 0; !(seq & 1) && tries < EV_CLAIM_TRIES; tries++) {
		unsigned int old = cmpxchg(&s->seq, seq, seq + 1);

		if (old == seq) {
			ev_record(s, ip, gtp_fregs_pt_regs(fregs));
			smp_store_release(&s->seq, seq + 2);
			goto out;
		}
		seq = old;	/* odd: at work, maybe under us; even: done */
	}
	/* unrecorded: readers of the slot give nothing until it is emptied */
	atomic_inc(&s->lost);
out:
	preempt_enable_notrace();
}

/* The host's ->entry_reg (core/host.h): probe context. */
int gtp_entry_reg(const struct gtp_tp *tp, const struct pt_regs *regs,
		  u32 dwreg, u64 *val)
{
	unsigned long r = regs->sp, v = 0, best = 0;
	int idx = ev_index(dwreg), i;
	struct ev_slot *table = READ_ONCE(ev_table), *s;
	unsigned int seq;

	if (!tp->entry_key || idx < 0 || !table)
		return -ENOENT;
	s = ev_slot_of(table, current);
	seq = smp_load_acquire(&s->seq);
	if ((seq & 1) || READ_ONCE(s->task) != current ||
	    atomic_read(&s->lost) != READ_ONCE(s->lost_seen))
		return -ENOENT;
	for (i = 0; i < EV_DEPTH; i++) {
		const struct ev_call *c = &s->call[i];
		unsigned long sp = READ_ONCE(c->sp);

		if (READ_ONCE(c->func) != tp->entry_key ||
		    !same_stack(sp, r) || sp <= r)
			continue;
		if (!best || sp < best) {
			best = sp;
			v = READ_ONCE(c->regs[idx]);
		}
	}
	smp_rmb();
	if (!best || READ_ONCE(s->seq) != seq ||
	    atomic_read(&s->lost) != READ_ONCE(s->lost_seen))
		return -ENOENT;
	*val = v;
	return 0;
}

static void ev_rec_free(struct ev_recorder *rec)
{
	if (!rec)
		return;
	vfree(rec->table);
	kfree(rec);
}

/* A recorder ftrace_unreg.c got back after all (a forced unload). */
static void ev_release(struct ftrace_ops *ops)
{
	ftrace_free_filter(ops);
	ev_rec_free(container_of(ops, struct ev_recorder, ops));
}

static void ev_free(void)
{
	ev_rec_free(ev_rec);
	ev_rec = NULL;
	ev_table = NULL;
	ev_funcs = 0;
}

/* The ftrace location of @tp's function, in the recorder's filter. */
static unsigned long ev_add_func(struct gtp_tp *tp)
{
	unsigned long func = gtp_ksym_func_start(tp->addr);

	return func ? gtp_ftrace_filter_location(&ev_rec->ops, func, 0) : 0;
}

/**
 * gtp_entry_regs_arm - record entry registers for the locations reading them
 * @gc: where to say which functions cannot be recorded
 *
 * Before the locations themselves are attached, so their first hits find
 * the calls entered from then on.  A function ftrace cannot carry (notrace)
 * is no error: its locations' entry values are unavailable, as said.
 *
 * Return: 0, or -ENOMEM.
 */
int gtp_entry_regs_arm(struct gtp_conn *gc)
{
	struct gtp_tp *tp;
	int ret;

	lockdep_assert_held(&gtp_mutex);
	for (tp = gtp_tps; tp; tp = tp->next)
		tp->entry_key = 0;
	for (tp = gtp_tps; tp; tp = tp->next)
		if (tp->reads_entry && !tp->is_static)
			break;
	if (!tp)
		return 0;
	ev_rec = kzalloc(sizeof(*ev_rec), GFP_KERNEL);
	if (ev_rec)
		ev_rec->table = vzalloc(array_size(EV_SLOTS, sizeof(*ev_table)));
	if (!ev_rec || !ev_rec->table) {
		ev_free();
		gtp_console(gc, "gtp: out of memory for the entry-value table\n");
		return -ENOMEM;
	}
	ev_table = ev_rec->table;
	ev_rec->ops.func = ev_entry_cb;
	ev_rec->ops.private = ev_rec->table;
	for (; tp; tp = tp->next) {
		if (!tp->reads_entry || tp->is_static)
			continue;
		tp->entry_key = ev_add_func(tp);
		if (tp->entry_key)
			ev_funcs++;
		else
			gtp_console(gc, "gtp: tracepoint %u at 0x%llx: its function's entry cannot be traced (notrace, or not a function ftrace knows): its entry values (DW_OP_entry_value) will be unavailable\n",
				    tp->num, (unsigned long long)tp->addr);
	}
	if (!ev_funcs) {
		ev_free();
		return 0;
	}
	ret = register_ftrace_function(&ev_rec->ops);
	if (ret) {
		gtp_console(gc, "gtp: ftrace refused the entry-value recorder (error %d): entry values will be unavailable\n",
			    ret);
		for (tp = gtp_tps; tp; tp = tp->next)
			tp->entry_key = 0;
		ftrace_free_filter(&ev_rec->ops);
		ev_free();
	}
	return 0;
}

/*
 * After every location is detached (nothing reads the table any more);
 * unregistering waits until no CPU runs the callback.  If ftrace refuses
 * (it shut itself down), the ops may still be called: it keeps its table,
 * its callback is told to do nothing (ops.private), and ftrace_unreg.c
 * keeps both and gtptrace loaded.
 */
void gtp_entry_regs_disarm(void)
{
	struct gtp_tp *tp;
	int ret;

	lockdep_assert_held(&gtp_mutex);
	for (tp = gtp_tps; tp; tp = tp->next)
		tp->entry_key = 0;
	if (!ev_rec)
		return;
	ev_table = NULL;
	if (ev_funcs) {
		ret = gtp_unregister_ftrace(&ev_rec->ops);
		if (ret) {
			pr_warn("ftrace refused to detach the entry-value recorder (error %d): it is kept, doing nothing\n",
				ret);
			WRITE_ONCE(ev_rec->ops.private, NULL);
			gtp_ftrace_leak(&ev_rec->ops, ev_release);
			ev_rec = NULL;
			ev_funcs = 0;
			return;
		}
	}
	ftrace_free_filter(&ev_rec->ops);
	ev_free();
}
