// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace_unreg.c - unregistering gtp's ftrace_ops, and what is left when
 * the kernel refuses.
 *
 * Every ftrace_ops gtp registers with register_ftrace_function() is
 * unregistered here (gtp_unregister_ftrace()).
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
#include <linux/module.h>

#include "gtp_glue.h"
#include "ftrace_unreg.h"

static unsigned int test_refuse_ftrace_unregister;
module_param(test_refuse_ftrace_unregister, uint, 0600);
MODULE_PARM_DESC(test_refuse_ftrace_unregister, "for tests only: refuse the next N unregisters of gtp's ftrace_ops as a broken ftrace would, leaving them registered (0: never)");

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
