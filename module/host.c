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

u64 gtp_host_time_us(void)
{
	/* The _fast variant is NMI safe; a stop can be decided in a probe. */
	return div_u64(ktime_get_real_fast_ns(), NSEC_PER_USEC);
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
