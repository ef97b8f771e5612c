// SPDX-License-Identifier: GPL-2.0
/*
 * kstack.c - "collect $kstack": the kernel's own unwinder at a hit.
 *
 * A kprobe hit has the probed context's registers, and the kernel's
 * unwinder (ORC on Debian's kernels) walks from them, as ftrace's
 * stacktrace trigger does on a kprobe event; the first address is the
 * probed address.  A return hit unwinds from the return handler's
 * registers, whose ip the kernel has set back to the real return address:
 * the stack starts in the caller.  A static tracepoint hit unwinds from
 * its caller (static_caller_regs()).  The unwinder takes no locks and
 * runs in any context (NMI included).
 *
 * The walk is arch_stack_walk()'s with registers (what the unexported
 * stack_trace_save_regs() does), through the unwinder's exported entry
 * points: unwind_start(), unwind_next_frame(), unwind_get_return_address().
 */
#define pr_fmt(fmt) "gtp: " fmt

#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/uaccess.h>
#include <asm/unwind.h>

#include "services.h"
#include "tracepoint.h"

/* @regs->ip, then the return addresses above it: at most @max. */
static unsigned int save_regs(struct pt_regs *regs, unsigned long *store,
			      unsigned int max)
{
	struct unwind_state state;
	unsigned long addr;
	unsigned int n = 0;

	if (!max)
		return 0;
	store[n++] = regs->ip;
	for (unwind_start(&state, current, regs, NULL);
	     n < max && !unwind_done(&state); unwind_next_frame(&state)) {
		addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		store[n++] = addr;
	}
	return n;
}
NOKPROBE_SYMBOL(save_regs);

/*
 * A static tracepoint's registers are those its probe was called with
 * (static_tp_entry.S): sp points at the return address into the caller
 * (__traceiter_EVENT or the traced function).  Unwinding through our asm
 * entry is not something every kernel's ORC tables allow, so start in the
 * caller, as if the probe had just returned.
 */
static bool static_caller_regs(const struct pt_regs *regs, struct pt_regs *out)
{
	unsigned long ret;

	if (copy_from_kernel_nofault(&ret, (void *)regs->sp, sizeof(ret)))
		return false;
	*out = *regs;
	out->ip = ret;
	out->sp = regs->sp + sizeof(ret);
	return true;
}

u32 gtp_kstack(const struct gtp_tp *tp, struct pt_regs *regs,
	       struct pt_regs *from, u64 *buf, u32 max)
{
	unsigned long *store = (unsigned long *)buf;
	struct pt_regs caller;
	unsigned int n;

	if (tp->is_static) {
		if (!static_caller_regs(regs, &caller))
			return 0;
		return save_regs(&caller, store, max);
	}
	if (!from)
		return 0;
	n = save_regs(from, store, max);
	/*
	 * regs->ip of a kprobe hit is its probe (+ 1 past an int3, + 4 past
	 * endbr64 on IBT kernels): report the tracepoint's own address, the
	 * frame's $pc.
	 */
	if (n && from == regs)
		store[0] = tp->addr;
	return n;
}
NOKPROBE_SYMBOL(gtp_kstack);

/*
 * The return address into the caller of the function whose entry @regs
 * are, as the unwinder tells it: the unwinder puts back what a return
 * hook (a kretprobe's trampoline, the function graph tracer's) replaced
 * on the stack, as the second address of "$kstack" shows.  0 if none.
 */
u64 gtp_kstack_caller(const struct pt_regs *regs)
{
	unsigned long store[2];

	/* unwind_start() takes no const; the walk only reads @regs */
	if (save_regs((struct pt_regs *)regs, store, 2) != 2)
		return 0;
	return store[1];
}
NOKPROBE_SYMBOL(gtp_kstack_caller);

