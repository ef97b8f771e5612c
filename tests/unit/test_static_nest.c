// SPDX-License-Identifier: GPL-2.0
/*
 * test_static_nest.c - which per-CPU slot a static tracepoint hit gets
 * (module/core/nest.h), driven with the preempt_count bits the kernel
 * gives each context (include/linux/preempt.h); and the guard's one-slot
 * form, which ftrace's callbacks take.
 *
 * The case that broke: a kernel int3 (a kprobe) runs as NMI context, and
 * a real NMI can come on top of a hit that runs inside it.  Both are
 * "NMI" to interrupt_context_level(), which indexed the scratch areas, so
 * the two hits built their frames in one buffer.  What must hold: every
 * hit running at once on a CPU has a slot of its own; a hit's own
 * recursion and a hit past the bound are refused; and all of it unwinds.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "nest.h"

/* include/linux/preempt.h */
#define SOFTIRQ_OFFSET	(1u << 8)
#define HARDIRQ_OFFSET	(1u << 16)
#define NMI_OFFSET	(1u << 20)
#define CTX_MASK	0x00ffff00u	/* NMI_MASK | HARDIRQ_MASK | SOFTIRQ_MASK */
#define PREEMPT_OFFSET	1u

#define MAX		4	/* GTP_STATIC_NEST_MAX */

/* gtp_static_hit()'s context word for a preempt_count() */
static u32 ctx_of(u32 preempt_count)
{
	return (preempt_count & CTX_MASK) + 1;
}

/* preempt_count() in these contexts (the tracepoint's preempt_disable in) */
#define TASK		(PREEMPT_OFFSET)
#define SOFTIRQ		(TASK + SOFTIRQ_OFFSET)
#define HARDIRQ		(TASK + HARDIRQ_OFFSET)
#define IN_NMI(pc)	((pc) + NMI_OFFSET + HARDIRQ_OFFSET)	/* nmi_enter() */

static struct gtp_nest nest;

/* One CPU's hits, nested: slots of the hits running, innermost last. */
static int running[16];
static unsigned int nrunning;

static int enter(u32 pc, u32 *prev)
{
	int slot = gtp_nest_enter(&nest, ctx_of(pc), MAX, prev);
	unsigned int i;

	if (slot >= 0) {
		for (i = 0; i < nrunning; i++)
			if (running[i] == slot)
				fail_msg("slot %d given to two running hits", slot);
		running[nrunning++] = slot;
	}
	return slot;
}

static void leave(u32 prev)
{
	nrunning--;
	gtp_nest_exit(&nest, prev);
}

static int setup(void **state)
{
	memset(&nest, 0, sizeof(nest));
	nrunning = 0;
	return 0;
}

/*
 * A task-level hit, an int3 (kprobe) inside it whose handler fires a
 * tracepoint, then a real NMI on top of that hit: three slots.
 */
static void test_nmi_on_a_hit_inside_int3(void **state)
{
	u32 p_task, p_int3, p_nmi;
	int s_task, s_int3, s_nmi;

	s_task = enter(TASK, &p_task);
	s_int3 = enter(IN_NMI(TASK), &p_int3);
	s_nmi = enter(IN_NMI(IN_NMI(TASK)), &p_nmi);
	assert_true(s_task >= 0 && s_int3 >= 0 && s_nmi >= 0);
	assert_int_not_equal(s_int3, s_nmi);
	assert_int_not_equal(s_task, s_int3);
	assert_int_not_equal(s_task, s_nmi);
	leave(p_nmi);
	leave(p_int3);
	leave(p_task);
	assert_int_equal(nest.depth, 0);
	assert_int_equal(nest.owner, 0);

	/* the same with no task-level hit under the int3 */
	s_int3 = enter(IN_NMI(TASK), &p_int3);
	s_nmi = enter(IN_NMI(IN_NMI(TASK)), &p_nmi);
	assert_true(s_int3 >= 0 && s_nmi >= 0);
	assert_int_not_equal(s_int3, s_nmi);
	leave(p_nmi);
	leave(p_int3);
}

/* A hit's own work firing the tracepoint again, in its own context. */
static void test_recursion_refused(void **state)
{
	u32 p1, p2, p3;

	assert_int_equal(enter(TASK, &p1), 0);
	assert_int_equal(enter(TASK, &p2), -EDEADLK);
	/* an interrupt is not a recursion, and its own recursion is */
	assert_int_equal(enter(HARDIRQ, &p2), 1);
	assert_int_equal(enter(HARDIRQ, &p3), -EDEADLK);
	leave(p2);
	/* back in the task's hit: its recursion is still one */
	assert_int_equal(enter(TASK, &p2), -EDEADLK);
	leave(p1);
	assert_int_equal(enter(TASK, &p1), 0);
	leave(p1);
}

/* Task, softirq, hardirq, NMI fill the slots; an int3 on top is refused. */
static void test_bounded(void **state)
{
	u32 p[5];

	assert_int_equal(enter(TASK, &p[0]), 0);
	assert_int_equal(enter(SOFTIRQ, &p[1]), 1);
	assert_int_equal(enter(SOFTIRQ + HARDIRQ_OFFSET, &p[2]), 2);
	assert_int_equal(enter(IN_NMI(SOFTIRQ + HARDIRQ_OFFSET), &p[3]), 3);
	assert_int_equal(enter(IN_NMI(IN_NMI(SOFTIRQ + HARDIRQ_OFFSET)), &p[4]),
			 -ENOSPC);
	leave(p[3]);
	/* a slot freed is taken again */
	assert_int_equal(enter(IN_NMI(SOFTIRQ + HARDIRQ_OFFSET), &p[3]), 3);
	leave(p[3]);
	leave(p[2]);
	leave(p[1]);
	leave(p[0]);
	assert_int_equal(nest.depth, 0);
	assert_int_equal(nest.owner, 0);
}

/*
 * An interrupt may land between any two steps of enter and exit; it runs
 * its whole hit and leaves.  Model: after each partial step, a nested
 * hit sees a consistent state and its slot is not the outer hit's.
 */
static void test_interrupt_between_steps(void **state)
{
	u32 p1, p2;
	int s1, s2;

	/* before enter wrote anything: the interrupt's hit takes slot 0 and
	 * gives it back before the task's enter goes on */
	s2 = enter(HARDIRQ, &p2);
	assert_int_equal(s2, 0);
	leave(p2);
	s1 = enter(TASK, &p1);
	assert_int_equal(s1, 0);
	/* after depth was claimed, before owner was written */
	nest.owner = p1;
	s2 = enter(HARDIRQ, &p2);
	assert_int_equal(s2, 1);
	leave(p2);
	nest.owner = ctx_of(TASK);
	/* exit: owner given back, depth not yet */
	nest.owner = p1;
	s2 = enter(HARDIRQ, &p2);
	assert_int_equal(s2, 1);
	leave(p2);
	nest.owner = ctx_of(TASK);
	leave(p1);
	assert_int_equal(nest.depth, 0);
}

/*
 * The one-slot form (ftrace's callbacks): the first hit runs, any hit
 * on top of it is refused whatever its context, and each is counted out
 * again, so the next hit after them runs.  The slot form's state is the
 * same count: no owner is ever written.
 */
static void test_one_slot(void **state)
{
	assert_true(gtp_nest_enter_one(nest));
	assert_false(gtp_nest_enter_one(nest));		/* an irq's hit */
	assert_false(gtp_nest_enter_one(nest));		/* an NMI's on it */
	gtp_nest_exit_one(nest);
	gtp_nest_exit_one(nest);
	assert_int_equal(nest.depth, 1);
	assert_false(gtp_nest_enter_one(nest));		/* recursion */
	gtp_nest_exit_one(nest);
	gtp_nest_exit_one(nest);
	assert_int_equal(nest.depth, 0);
	assert_int_equal(nest.owner, 0);
	assert_true(gtp_nest_enter_one(nest));
	gtp_nest_exit_one(nest);
	assert_int_equal(nest.depth, 0);
}

#define T(f) cmocka_unit_test_setup(f, setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_nmi_on_a_hit_inside_int3),
		T(test_recursion_refused),
		T(test_bounded),
		T(test_interrupt_between_steps),
		T(test_one_slot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
