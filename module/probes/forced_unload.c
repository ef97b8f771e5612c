// SPDX-License-Identifier: GPL-2.0
/*
 * forced_unload.c - what happens when a module gtp uses is forced out.
 *
 * gtp pins every module it traces or reads (services/mod_pin.c), but
 * "rmmod -f" (CONFIG_MODULE_FORCE_UNLOAD, set on every Debian kernel)
 * ignores the references.  The module's memory stays until after the
 * MODULE_STATE_GOING notifiers, so ours, which runs before the kernel's
 * own (kprobes, tracepoints, jump labels: priority 0 and 1), makes
 * nothing of gtp touch it again: a trace using the module is stopped
 * (tstatus: "Trace stopped by an error (module M unloaded by force ...)"),
 * which detaches every probe and waits for running hits, and the JIT
 * images reading its data are freed (their programs are interpreted,
 * through the nofault read hook, from then on).  Only modules with a
 * reference are ours to look at (module_refcount()), so the notifier
 * leaves every other unload alone, without taking gtp_mutex.
 *
 * It asks the attach layer and the static_debug knob, so it sits above
 * both in the probes room.
 */
#define pr_fmt(fmt) "gtp: " fmt

#include <linux/module.h>
#include <linux/notifier.h>

#include "services.h"
#include "probes.h"
#include "trace.h"
#include "tracepoint.h"

/* A trace uses a module that is being forced out: stop it, say why. */
static int module_going(struct notifier_block *nb, unsigned long val,
			void *data)
{
	struct module *mod = data;
	char why[96];
	u32 tpnum;

	if (val != MODULE_STATE_GOING || !module_refcount(mod))
		return NOTIFY_DONE;
	mutex_lock(&gtp_mutex);
	tpnum = gtp_attach_module_user(mod);
	if (!tpnum)
		tpnum = gtp_tps_jit_holder(mod);
	if (tpnum) {
		scnprintf(why, sizeof(why),
			  "module %s unloaded by force while traced",
			  mod->name);
		pr_warn("%s: trace stopped\n", why);
		gtp_trace_stop_error(why, tpnum);
	}
	/* Stopped: no probe runs an image, and none may read @mod again. */
	gtp_tps_jit_drop(mod);
	gtp_static_debug_going(mod);
	mutex_unlock(&gtp_mutex);
	return NOTIFY_OK;
}

/* Before kprobes' and tracepoints' (0) and jump labels' (1) notifiers. */
static struct notifier_block module_going_nb = {
	.notifier_call = module_going,
	.priority = INT_MAX,
};

int gtp_forced_unload_init(void)
{
	return register_module_notifier(&module_going_nb);
}

void gtp_forced_unload_exit(void)
{
	unregister_module_notifier(&module_going_nb);
}
