// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - gtptrace.ko: the order every part of the module starts and
 * stops in, and what the portable core gets from it.
 *
 * The module is three rooms over the portable core (core/, jit/), each
 * calling only down: services/ (what gtp borrows from the kernel), probes/
 * (how a location is carried: the attach layer and the backends that
 * register with it), and this top room: /proc/gtp (proc.c), the live
 * consumer's /proc/gtp_stream (stream.c) and this file, which wires them
 * (docs/architecture.md, tests/layering/check).
 */
#define pr_fmt(fmt) "gtp: " fmt

#include <linux/module.h>
#include <linux/mutex.h>

#include "packets.h"
#include "trace.h"
#include "host.h"
#include "budget.h"
#include "services.h"
#include "ftrace_unreg.h"
#include "probes.h"
#include "proc.h"

/* The core's live allocations (compat.h): what QTinit must give back. */
static int allocations_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&gtp_allocs));
}

static const struct kernel_param_ops allocations_ops = {
	.get = allocations_get,
};
module_param_cb(allocations, &allocations_ops, NULL, 0444);
MODULE_PARM_DESC(allocations, "allocations the core and the JIT hold now");

/* The CPU budget (core/budget.h); a session's $gtp_cpu_budget overrides. */
module_param_named(cpu_budget, gtp_budget_pct, uint, 0644);
MODULE_PARM_DESC(cpu_budget, "percent of one CPU, per second, a trace's probes may spend on any CPU before the tracepoint responsible is disabled (0: no limit)");
module_param_named(budget_stop, gtp_budget_stop_param, bool, 0644);
MODULE_PARM_DESC(budget_stop, "a probe past the CPU budget stops the whole trace rather than its tracepoint");

/* What the portable core and the JIT get from gtptrace.ko (core/host.h). */
static const struct gtp_host_ops gtp_kernel_host = {
	.arm			= gtp_attach_arm,
	.disarm			= gtp_attach_disarm,
	.set_enabled		= gtp_attach_set_enabled,
	.jit_enabled		= gtp_jit_enabled,
	.jit_off_reason		= gtp_jit_off_reason,
	.exec_alloc		= gtp_exec_alloc,
	.exec_install		= gtp_exec_install,
	.exec_free		= gtp_exec_free,
	.exec_want_endbr	= gtp_exec_want_endbr,
	.exec_return_thunk	= gtp_exec_return_thunk,
	.exec_call_depth	= gtp_exec_call_depth,
	.jit_direct		= gtp_jit_direct,
	.jit_unpin		= gtp_jit_unpin,
	.kstack			= gtp_attach_kstack,
	.entry_reg		= gtp_entry_reg,
	.caller			= gtp_attach_caller,
	.kret_ns		= gtp_attach_kret_ns,
	.user_ok		= gtp_attach_user_ok,
	.ustack			= gtp_attach_ustack,
	.watch			= gtp_attach_watch,
	.watch_arm		= gtp_watch_arm,
	.tripped		= gtp_trip_queue,
	.perf_open		= gtp_perf_open,
	.perf_close		= gtp_perf_close,
	.perf_read		= gtp_perf_read,
	.sdata_fields		= gtp_static_sdata_fields,
};

static int part_host_init(void)
{
	gtp_host_register(&gtp_kernel_host);
	return 0;
}

static int part_packets_init(void)
{
	gtp_packets_init();	/* the base packets: first in dispatch */
	return 0;
}

static int part_trace_init(void)
{
	gtp_trace_init();
	return 0;
}

static int part_stream_init(void)
{
	return gtp_stream_file_init(&gtp_proc_access);
}

/*
 * The module's parts in init order; exit, and a failed init's unwinding,
 * run them backwards.  So the proc files come last and go first: nobody
 * opens one before every part is up.  Every probe stops (static_debug,
 * attach) before the backends that carry them go, those before the
 * markers they are on (static_tp), and all of them before the
 * tracepoints, frames and JIT images they use go (trace), and those
 * before the executable memory (exec).  @locked parts run under
 * gtp_mutex, consecutive ones in one critical section: a module
 * parameter write (static_debug) never finds them half done.
 */
static const struct gtp_part {
	int (*init)(void);		/* NULL: nothing to do */
	void (*exit)(void);		/* NULL: nothing to undo */
	bool locked;
} gtp_parts[] = {
	{ part_host_init,	NULL,			true },
	/* Resolve the JIT's executable memory now, not at the first QTDP. */
	{ gtp_exec_init,	gtp_exec_exit,		true },
	{ gtp_perf_init,	NULL,			true },
	{ part_packets_init,	NULL,			true },
	{ part_trace_init,	gtp_trace_exit,		true },
	/*
	 * Before the probes, so it exits after they are detached; outside
	 * gtp_mutex, which its work takes.
	 */
	{ gtp_trip_init,	gtp_trip_exit,		false },
	/* markers, then what is left of their probes at exit */
	{ gtp_static_tp_init,	gtp_static_tp_exit,	true },
	{ NULL,			gtp_static_probe_exit,	true },
	/* the attach layer, then its backends, cheapest first */
	{ gtp_attach_init,	NULL,			true },
	{ gtp_watch_init,	gtp_watch_exit,		true },
	{ gtp_static_backend_init, gtp_static_backend_exit, true },
	{ gtp_fprobe_init,	gtp_fprobe_exit,	true },
	{ gtp_kretprobe_init,	gtp_kretprobe_exit,	true },
	{ gtp_kprobe_init,	gtp_kprobe_exit,	true },
	/*
	 * At exit, after every location is detached and before the
	 * backends' areas go: an ftrace_ops the kernel refused to let go
	 * gets one more try (services/ftrace_unreg.c).
	 */
	{ NULL,			gtp_ftrace_leaks_exit,	true },
	/*
	 * Exit detaches every location before the backends go, and with
	 * them the handlers' code and data.
	 */
	{ NULL,			gtp_attach_disarm,	true },
	/* The static_debug knob needs nothing until written. */
	{ NULL,			gtp_static_debug_exit,	true },
	/* Outside gtp_mutex: the notifier takes it. */
	{ gtp_forced_unload_init, gtp_forced_unload_exit, false },
	{ part_stream_init,	gtp_stream_file_exit,	false },
	{ gtp_proc_init,	gtp_proc_exit,		false },
};

/* Take or drop gtp_mutex as the next part wants it. */
static void part_lock(bool *held, bool want)
{
	if (want && !*held)
		mutex_lock(&gtp_mutex);
	else if (!want && *held)
		mutex_unlock(&gtp_mutex);
	*held = want;
}

/* Exit the first @n parts, last first. */
static void parts_exit(unsigned int n)
{
	const struct gtp_part *p;
	bool held = false;

	while (n--) {
		p = &gtp_parts[n];
		part_lock(&held, p->locked);
		if (p->exit)
			p->exit();
	}
	part_lock(&held, false);
}

static int __init gtp_init(void)
{
	const struct gtp_part *p;
	bool held = false;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < ARRAY_SIZE(gtp_parts); i++) {
		p = &gtp_parts[i];
		part_lock(&held, p->locked);
		ret = p->init ? p->init() : 0;
		if (ret)
			break;
	}
	part_lock(&held, false);
	if (ret) {
		parts_exit(i);	/* each part said why it failed */
		return ret;
	}
	pr_info("ready: gdb -ex 'target remote /proc/gtp'\n");
	return 0;
}

static void __exit gtp_exit(void)
{
	parts_exit(ARRAY_SIZE(gtp_parts));
}

module_init(gtp_init);
module_exit(gtp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("gtp: GDB tracepoints for the Linux kernel over /proc/gtp");
/*
 * dkms.conf's PACKAGE_VERSION (tests/vm/dkms-check checks they agree).
 * The module is gtptrace, not gtp: the kernel's GPRS tunnelling driver is
 * drivers/net/gtp.ko (tests/vm/modname-check keeps the name free).
 */
MODULE_VERSION("0.2");
