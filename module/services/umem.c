// SPDX-License-Identifier: GPL-2.0
/*
 * umem.c - whether a hit may read the current task's user memory, and
 * "collect $ustack", the user call stack by frame pointers.
 *
 * A hit reads user memory only in the probed task's own context: not in
 * an interrupt or a softirq (the current task there is whichever one was
 * interrupted), not in an NMI, not in a kernel thread (no user memory of
 * its own).  preempt_count() says which, but for a hit a kprobe's int3
 * carried: the kernel enters that exception as an NMI (exc_int3() calls
 * irqentry_nmi_enter(), which adds NMI_OFFSET + HARDIRQ_OFFSET), so its
 * backend says so and those are taken off first.  On PREEMPT_RT a
 * softirq's count is the task's (softirq_count()), which an int3 does not
 * touch either.
 *
 * The reads themselves are copy_from_user_nofault()'s (compat.h), which
 * also refuses while this CPU runs on another task's page tables.
 */
#define pr_fmt(fmt) "gtp: " fmt

#include <linux/kprobes.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>
#include <asm/ptrace.h>

#include "services.h"

bool gtp_user_ctx(bool by_int3)
{
	unsigned long pc = preempt_count();

	if (by_int3) {
		if ((pc & NMI_MASK) < NMI_OFFSET ||
		    (pc & HARDIRQ_MASK) < HARDIRQ_OFFSET)
			return false;	/* not the count an int3 leaves */
		pc -= NMI_OFFSET + HARDIRQ_OFFSET;
	}
	if (pc & (NMI_MASK | HARDIRQ_MASK) || in_serving_softirq())
		return false;
	return current->mm && !(current->flags & PF_KTHREAD);
}
NOKPROBE_SYMBOL(gtp_user_ctx);

/*
 * The task's user registers, as it entered the kernel (a system call, a
 * fault): @ip is where it is in its program, @bp its innermost frame.
 * Then the frames' return addresses, each frame { saved bp, return
 * address } as "push %rbp; mov %rsp,%rbp" leaves it, as perf's user
 * callchains walk them.  Each frame must lie above the one before (the
 * stack grows down), so a loop cannot last; the first unreadable frame
 * ends the walk.  A leaf that sets up no frame (a libc system call
 * wrapper) leaves its caller out, and code built without frame pointers
 * ends the walk early or with addresses that mean nothing.  64-bit tasks
 * only: a compat task gets its ip alone.
 */
u32 gtp_ustack(u64 *text, u64 *buf, u32 max)
{
	struct pt_regs *regs = task_pt_regs(current);
	unsigned long fp, frame[2];
	u32 n = 0;

	if (!max || !user_mode(regs))
		return 0;
	*text = current->mm->start_code;
	buf[n++] = regs->ip;
	if (!user_64bit_mode(regs))
		return n;
	for (fp = regs->bp; n < max; fp = frame[0]) {
		if (fp & (sizeof(long) - 1) ||
		    copy_from_user_nofault(frame, (const void __user *)fp,
					   sizeof(frame)) || !frame[1])
			break;
		buf[n++] = frame[1];
		if (frame[0] <= fp)
			break;
	}
	return n;
}
NOKPROBE_SYMBOL(gtp_ustack);
