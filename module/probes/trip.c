// SPDX-License-Identifier: GPL-2.0
/*
 * trip.c - a tracepoint that tripped the CPU budget stops costing CPU.
 *
 * The budget (core/budget.h) trips in a probe, on the CPU that is paying:
 * there it can only clear tp->enabled, so that the next hits return at
 * once.  Their probe would still run on every call of the function: a
 * kprobe's int3 and its exception, ftrace's trampoline and our callback's
 * lookup, a direct trampoline's JIT'd condition, a static tracepoint's
 * probe call.  Taking the probe away means unregistering it, which
 * sleeps, locks and waits for grace periods, and a probe may run in NMI
 * and may wake nobody.  So it goes in three steps:
 *
 *   probe, any context     gtp_trip_queue(): irq_work_queue(), a
 *                          lock-free per-CPU list add and at most a
 *                          self-IPI (the way BPF and perf leave NMI);
 *                          it wakes no task.  Several trips before the
 *                          work runs are one queueing: the work looks
 *                          for every tripped location itself.
 *   irq_work               schedule_work() (hardirq; on PREEMPT_RT the
 *                          irq_work thread): wakes a kworker.
 *   work, process context  under gtp_mutex, attach.c retires every
 *                          tripped location of the armed trace through
 *                          its backend (attach.h ->retire).
 *
 * A trip whose work comes after QTStop finds nothing armed and does
 * nothing; the next QTStart arms every location again (their trip state
 * starts afresh, core/tracepoint.c).  Module exit flushes the irq_work and
 * the work after every probe is detached (main.c's order of parts), so
 * neither outlives this module's code.
 */
#define pr_fmt(fmt) "gtp: " fmt

#include <linux/irq_work.h>
#include <linux/workqueue.h>
#include <linux/kprobes.h>

#include "services.h"
#include "probes.h"

static void trip_work_fn(struct work_struct *work)
{
	mutex_lock(&gtp_mutex);
	gtp_attach_retire_tripped();
	mutex_unlock(&gtp_mutex);
}
static DECLARE_WORK(trip_work, trip_work_fn);

static void trip_irq_work_fn(struct irq_work *w)
{
	schedule_work(&trip_work);
}
static struct irq_work trip_irq_work;

/**
 * gtp_trip_queue - the host's ->tripped: retire @tp's probe soon
 * @tp: the location that tripped (the work finds it by its state)
 *
 * Context: probe, NMI included.  No lock, no sleep, no allocation, no
 * wake-up.
 */
void notrace gtp_trip_queue(struct gtp_tp *tp)
{
	irq_work_queue(&trip_irq_work);
}
NOKPROBE_SYMBOL(gtp_trip_queue);

int gtp_trip_init(void)
{
	init_irq_work(&trip_irq_work, trip_irq_work_fn);
	return 0;
}

/* Module exit, after every probe is detached; not under gtp_mutex. */
void gtp_trip_exit(void)
{
	irq_work_sync(&trip_irq_work);
	cancel_work_sync(&trip_work);
}
