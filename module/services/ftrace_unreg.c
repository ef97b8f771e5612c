// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace_unreg.c - unregistering gtp's ftrace_ops, and what is left when
 * the kernel refuses.
 *
 * Every ftrace_ops gtp registers with register_ftrace_function() is
 * unregistered here (gtp_unregister_ftrace()).
 *
 * unregister_ftrace_function() fails only when ftrace has shut itself
 * down after an internal error (ftrace_kill(): "ftrace failed to modify"
 * in the log).  The ops then stays registered: call sites may still reach
 * its trampoline, which calls our callback, and nothing waited for the
 * CPUs already in it.  So its owner (the shared ops of ftrace_probe.c,
 * the entry-value recorder of entry_regs.c) keeps everything the callback
 * can reach allocated and makes the callback do nothing, and hands the
 * ops here (gtp_ftrace_leak()).  gtptrace then takes a reference on
 * itself that it never drops: rmmod says "in use" until reboot, rather
 * than free code ftrace may still call.  The log says so once.
 *
 * Only "rmmod -f" can unload it then.  Its exit tries each leaked ops
 * again (gtp_ftrace_leaks_exit()): if ftrace now takes it back, what the
 * callback reached is freed as usual; if not, nothing more can be done
 * and the log says that the callback goes with the module.  (So does a
 * refusal during the unload itself, when no reference can keep the
 * module any more.)
 *
 * The refusal cannot be provoked on a healthy kernel, so the tests ask
 * for it: test_refuse_ftrace_unregister=N makes the next N calls of
 * gtp_unregister_ftrace() return -ENODEV (what ftrace returns once it has
 * shut itself down) without unregistering anything: exactly the state
 * after a real refusal, on a kernel whose ftrace still works.  It is 0
 * unless written, and is ignored while gtptrace loads or unloads, when no
 * reference could keep the module (and the callback's code) in memory.
 */
#define pr_fmt(fmt) "gtp: " fmt

#include <linux/ftrace.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "services.h"
#include "ftrace_unreg.h"

static unsigned int test_refuse_ftrace_unregister;
module_param(test_refuse_ftrace_unregister, uint, 0600);
MODULE_PARM_DESC(test_refuse_ftrace_unregister, "for tests only: refuse the next N unregisters of gtp's ftrace_ops as a broken ftrace would, leaving them registered (0: never)");

/* An ops the kernel kept, and what frees what its callback reaches. */
struct ftrace_leak {
	struct list_head node;
	struct ftrace_ops *ops;
	void (*release)(struct ftrace_ops *ops);
};

/* Under gtp_mutex. */
static LIST_HEAD(ftrace_leaks);
static bool leak_pinned;

/**
 * gtp_unregister_ftrace - unregister one of gtp's ftrace_ops
 * @ops: registered by gtptrace
 *
 * Waits until no CPU runs @ops' callback, as unregister_ftrace_function().
 *
 * Return: 0, or its error; then @ops is still registered.
 */
int gtp_unregister_ftrace(struct ftrace_ops *ops)
{
	lockdep_assert_held(&gtp_mutex);
	if (unlikely(READ_ONCE(test_refuse_ftrace_unregister)) &&
	    THIS_MODULE->state == MODULE_STATE_LIVE) {
		WRITE_ONCE(test_refuse_ftrace_unregister,
			   test_refuse_ftrace_unregister - 1);
		return -ENODEV;
	}
	return unregister_ftrace_function(ops);
}

/**
 * gtp_ftrace_pin - keep gtptrace loaded: something of the kernel's may
 *	still call into its code
 *
 * One reference, never dropped; the first call says so in the log.
 * While gtptrace unloads, too late: gtp_ftrace_leaks_exit() says so.
 */
void gtp_ftrace_pin(void)
{
	lockdep_assert_held(&gtp_mutex);
	if (leak_pinned || THIS_MODULE->state != MODULE_STATE_LIVE)
		return;
	leak_pinned = true;
	__module_get(THIS_MODULE);
	pr_warn("ftrace kept a callback of gtptrace's: gtptrace stays loaded until reboot\n");
}

/**
 * gtp_ftrace_leak - the kernel refused to unregister @ops
 * @ops: still registered; its callback does nothing from now on
 * @release: frees @ops and what its callback reaches, once unregistered
 *
 * Pins gtptrace, and remembers @ops for a forced unload.  Out of memory,
 * @ops is only pinned: a forced unload then cannot take it back.
 */
void gtp_ftrace_leak(struct ftrace_ops *ops,
		     void (*release)(struct ftrace_ops *ops))
{
	struct ftrace_leak *l;

	gtp_ftrace_pin();
	l = kmalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return;
	l->ops = ops;
	l->release = release;
	list_add(&l->node, &ftrace_leaks);
}

/*
 * Module exit, after every probe is detached: only "rmmod -f" gets here
 * with leaked ops.  Each is tried once more.
 */
void gtp_ftrace_leaks_exit(void)
{
	struct ftrace_leak *l, *tmp;
	int ret;

	lockdep_assert_held(&gtp_mutex);
	list_for_each_entry_safe(l, tmp, &ftrace_leaks, node) {
		ret = gtp_unregister_ftrace(l->ops);
		if (ret)
			pr_warn("ftrace still refuses to detach a callback of gtptrace's (error %d): it goes with the module\n",
				ret);
		else
			l->release(l->ops);
		list_del(&l->node);
		kfree(l);
	}
}
