// SPDX-License-Identifier: GPL-2.0
/*
 * host.c - the table of host services the core was handed (host.h).
 *
 * A pointer rather than link-time names, so the core has no symbol edge
 * into the layer that links it.  Written once before any packet can
 * arrive, then only read (under the packet lock; by probes for ->kstack,
 * ->entry_reg, ->caller, ->kret_ns, ->user_ok, ->ustack and ->tripped).
 * Also the count of the core's live allocations (compat.h), which the
 * host shows.
 */
#include "host.h"

const struct gtp_host_ops *gtp_host;

#ifdef __KERNEL__
atomic_long_t gtp_allocs = ATOMIC_LONG_INIT(0);
#endif

/**
 * gtp_host_register() - give the core its host's services
 * @ops: a table with every entry filled in; it must outlive the core's use
 *	(module exit, or the end of a test program).
 */
void gtp_host_register(const struct gtp_host_ops *ops)
{
	WARN_ON_ONCE(!ops->arm || !ops->disarm || !ops->set_enabled ||
		     !ops->jit_enabled || !ops->jit_off_reason ||
		     !ops->exec_alloc || !ops->exec_install ||
		     !ops->exec_free || !ops->exec_want_endbr ||
		     !ops->exec_return_thunk || !ops->exec_call_depth ||
		     !ops->jit_direct ||
		     !ops->jit_unpin || !ops->kstack || !ops->caller ||
		     !ops->kret_ns || !ops->user_ok || !ops->ustack ||
		     !ops->watch || !ops->watch_arm ||
		     !ops->tripped ||
		     !ops->perf_open || !ops->perf_close || !ops->perf_read ||
		     !ops->sdata_fields);
	gtp_host = ops;
}
