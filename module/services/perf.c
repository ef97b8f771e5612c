// SPDX-License-Identifier: GPL-2.0
/*
 * perf.c - the kernel's counters as trace state variables ($perf_cycles,
 * $perf_instructions, $perf_cache_misses, $perf_page_faults,
 * $perf_cpu_clock; core/tsv.c), for the host (core/host.h @perf_open,
 * @perf_close, @perf_read).
 *
 * One pinned kernel counter per CPU and kind, opened at QTStart for the
 * kinds the run's programs read, counting everything that CPU runs
 * (kernel and user), released once the probes are gone.  A hit reads its
 * own CPU's with perf_event_read_local(): no lock, no sleep, safe in NMI,
 * and only of a counter of this CPU, which a pinned per-CPU counter
 * always is.  That function is not exported, so it is bound as exec_mem.c
 * binds the functions it calls (gtp_kfunc_bind(): a direct call, valid
 * under IBT).  Where the CPU has no such counter (no PMU, as in a TCG
 * guest, for the hardware kinds) the kernel refuses it and QTStart says
 * which and why.  A CPU that comes online during the run has none: its
 * hits' reads fail, and the tracepoint counts the error.
 */
#define pr_fmt(fmt) "gtp: " fmt

#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/cpu.h>
#include <linux/static_call.h>

#include "kcompat.h"
#include "ksym.h"
#include "services.h"
#include "host.h"
#include "packets.h"

static const struct {
	u32 type;
	u64 config;
	const char *name;
} kinds[GTP_PERF_NR] = {
	[GTP_PERF_CYCLES]	= { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
				    "$perf_cycles" },
	[GTP_PERF_INSTRUCTIONS]	= { PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
				    "$perf_instructions" },
	[GTP_PERF_CACHE_MISSES]	= { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES,
				    "$perf_cache_misses" },
	[GTP_PERF_PAGE_FAULTS]	= { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
				    "$perf_page_faults" },
	[GTP_PERF_CPU_CLOCK]	= { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
				    "$perf_cpu_clock" },
};

/* Per kind, nr_cpu_ids counters (NULL: none on that CPU); READ_ONCE. */
static struct perf_event **counters[GTP_PERF_NR];

typedef int gtp_perf_read_local_t(struct perf_event *event, u64 *value,
				  u64 *enabled, u64 *running);
DEFINE_STATIC_CALL_NULL(gtp_perf_read_local, gtp_perf_read_local_t);
static bool have_read_local;

/* Release the counters of @evs (nr_cpu_ids, NULL where none), and it. */
static void release(struct perf_event **evs)
{
	unsigned int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (evs[cpu])
			perf_event_release_kernel(evs[cpu]);
	kfree(evs);
}

static void close_kind(int k)
{
	struct perf_event **evs = counters[k];

	if (!evs)
		return;
	WRITE_ONCE(counters[k], NULL);
	release(evs);
}

/**
 * gtp_perf_close - release every counter gtp_perf_open() opened
 *
 * Context: process context, no probe running (after the disarm).
 */
void gtp_perf_close(void)
{
	int k;

	for (k = 0; k < GTP_PERF_NR; k++)
		close_kind(k);
}

static int open_kind(struct gtp_conn *gc, int k)
{
	struct perf_event_attr attr = {
		.type	= kinds[k].type,
		.config	= kinds[k].config,
		.size	= sizeof(attr),
		.pinned	= 1,
	};
	struct perf_event **evs;
	unsigned int cpu;

	evs = kcalloc(nr_cpu_ids, sizeof(*evs), GFP_KERNEL);
	if (!evs) {
		gtp_console(gc, "gtp: %s: out of memory\n", kinds[k].name);
		return -ENOMEM;
	}
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct perf_event *ev;

		ev = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL,
						      NULL);
		if (IS_ERR(ev)) {
			cpus_read_unlock();
			gtp_console(gc, "gtp: %s: the kernel has no such counter on CPU %u (error %ld%s)\n",
				    kinds[k].name, cpu, PTR_ERR(ev),
				    kinds[k].type == PERF_TYPE_HARDWARE ?
				    ": no hardware counters here (no PMU, or a virtual machine without one)" :
				    "");
			release(evs);
			return PTR_ERR(ev);
		}
		evs[cpu] = ev;
	}
	cpus_read_unlock();
	WRITE_ONCE(counters[k], evs);
	return 0;
}

/**
 * gtp_perf_open - open the counters of @kinds on every online CPU
 * @gc: the connection, for the console message of a refusal
 * @kinds_mask: bit <enum gtp_perf_kind> for each kind the run reads
 *
 * Context: process context, at QTStart, before any probe is armed.
 * Return: 0, or the kernel's error for the first counter it refused;
 * then none stays open.
 */
int gtp_perf_open(struct gtp_conn *gc, u32 kinds_mask)
{
	int k, ret;

	if (!have_read_local) {
		gtp_console(gc, "gtp: counters as variables need perf_event_read_local(), which this kernel does not have\n");
		return -ENOSYS;
	}
	for (k = 0; k < GTP_PERF_NR; k++) {
		if (!(kinds_mask & (1u << k)))
			continue;
		ret = open_kind(gc, k);
		if (ret) {
			gtp_perf_close();
			return ret;
		}
	}
	return 0;
}

/**
 * gtp_perf_read - this CPU's count of counter @kind
 * @kind: an enum gtp_perf_kind
 * @val: the count
 *
 * Context: any, probe context included: no lock, no sleep.
 * Return: 0, or -ENODEV when no such counter is open on this CPU.
 */
int gtp_perf_read(u32 kind, u64 *val)
{
	struct perf_event **evs;
	struct perf_event *ev;
	int ret = -ENODEV;

	if (kind >= GTP_PERF_NR)
		return -ENODEV;
	preempt_disable_notrace();	/* a reader in process context too */
	evs = READ_ONCE(counters[kind]);
	ev = evs ? evs[raw_smp_processor_id()] : NULL;
	if (ev)
		ret = static_call(gtp_perf_read_local)(ev, val, NULL, NULL);
	preempt_enable_notrace();
	return ret ? -ENODEV : 0;
}

/* Module init: bind perf_event_read_local() (see the top of the file). */
int gtp_perf_init(void)
{
	have_read_local = gtp_kfunc_bind(gtp_perf_read_local,
					 "perf_event_read_local");
	if (!have_read_local)
		pr_info("no perf_event_read_local(): $perf_* variables are refused\n");
	return 0;
}
