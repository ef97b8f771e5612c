// SPDX-License-Identifier: GPL-2.0
/*
 * host.c - kernel services the portable tracing core asks for (host.h):
 * clocks, the frame store's lock and the built-in trace state variables.
 * All of them may run in probe context, NMI included.
 */
#include <linux/spinlock.h>
#include <linux/hardirq.h>
#include <linux/preempt.h>
#include <linux/timekeeping.h>
#include <linux/sched.h>
#include <asm/msr.h>

#include "host.h"

static DEFINE_RAW_SPINLOCK(gtp_frame_lock);

u64 gtp_host_time_us(void)
{
	/* The _fast variant is NMI safe; a stop can be decided in a probe. */
	return div_u64(ktime_get_real_fast_ns(), NSEC_PER_USEC);
}

/*
 * IRQs off so a probe in an interrupt cannot spin on a lock its own CPU
 * holds; in NMI only try, for the same reason (the frame is then dropped).
 */
bool gtp_host_frame_lock(unsigned long *flags)
{
	if (in_nmi()) {
		local_irq_save(*flags);
		if (raw_spin_trylock(&gtp_frame_lock))
			return true;
		local_irq_restore(*flags);
		return false;
	}
	raw_spin_lock_irqsave(&gtp_frame_lock, *flags);
	return true;
}

void gtp_host_frame_unlock(unsigned long flags)
{
	raw_spin_unlock_irqrestore(&gtp_frame_lock, flags);
}

s64 gtp_host_builtin_tsv(enum gtp_builtin_tsv kind)
{
	switch (kind) {
	case GTP_TSV_CPU_ID:
		return raw_smp_processor_id();
	case GTP_TSV_CURRENT_TASK:
		return (s64)(unsigned long)current;
	case GTP_TSV_CURRENT_TASK_PID:
		return task_pid_nr(current);
	case GTP_TSV_CLOCK:
		return ktime_get_mono_fast_ns();
	case GTP_TSV_RDTSC:
		return rdtsc();
	case GTP_TSV_HARDIRQ_COUNT:
		return hardirq_count() >> HARDIRQ_SHIFT;
	case GTP_TSV_SOFTIRQ_COUNT:
		return softirq_count() >> SOFTIRQ_SHIFT;
	default:
		return 0;
	}
}
