// SPDX-License-Identifier: GPL-2.0
/*
 * mod_pin.c - what gtp holds on other modules.
 *
 * Everything of gtp that depends on another module's memory pins that
 * module with try_module_get() for as long as it does:
 *  - an armed tracepoint in a module's text, whatever carries it (kprobe,
 *    kretprobe, ftrace_ops; probes/attach.c), from QTStart to the disarm;
 *  - a static tracepoint on a module's TRACE_EVENT (probes/static_probe.c);
 *  - a JIT image that loads from a module's data directly (jit_direct.c),
 *    until the image is freed.
 * So "rmmod MOD" says "in use" while MOD is traced; tstop (or the end of
 * the session) lets it go.  Without the pin an ftrace_ops would keep the
 * unloaded function's address in its filter, and ftrace enables the
 * filter on whatever function a later module load puts at that address:
 * the tracepoint would follow the address, not the function.  What
 * happens when "rmmod -f" takes a pinned module anyway is
 * probes/forced_unload.c's.
 *
 * Modules are found by walking the kernel's 'modules' list under RCU (as
 * the kernel's own __module_address() does; that one is not exported):
 * a module leaves the list with list_del_rcu() and is freed only after a
 * grace period.  The list head is a data symbol from kallsyms, read, never
 * called, and trusted only once it is found on the ring gtp's own module
 * is on (another object could carry the same name).
 */
#define pr_fmt(fmt) "gtp: " fmt

#include <linux/module.h>
#include <linux/rculist.h>

#include "kcompat.h"
#include "ksym.h"
#include "services.h"

static bool match_data(const struct module *mod, u64 addr, u32 size)
{
	return gtp_module_data_has(mod, addr, size);
}

static bool match_any(const struct module *mod, u64 addr, u32 size)
{
	return within_module((unsigned long)addr, (struct module *)mod);
}

/*
 * The module @match says holds [@addr, @addr + @size), with a reference;
 * NULL if none does; ERR_PTR(-ENODEV) if it is not live (loading or going:
 * such a module is freed whatever its references say).
 */
static struct module *get_module(u64 addr, u32 size,
				 bool (*match)(const struct module *, u64, u32))
{
	struct list_head *modules =
		(void *)gtp_ksym_data("modules", sizeof(*modules));
	struct module *mod, *found = NULL;
	struct list_head *pos;
	bool on_ring = false;

	if (!modules)
		return NULL;
	rcu_read_lock();
	/*
	 * gtp_ksym_data() said where it is (kept data); that it is the head
	 * of the ring we are on says what it is: only then trust it.
	 */
	list_for_each_rcu(pos, &THIS_MODULE->list) {
		if (pos == modules) {
			on_ring = true;
			break;
		}
	}
	if (!on_ring) {
		rcu_read_unlock();
		return NULL;
	}
	list_for_each_entry_rcu(mod, modules, list) {
		if (!match(mod, addr, size))
			continue;
		if (mod == THIS_MODULE)
			break;
		if (mod->state != MODULE_STATE_LIVE || !try_module_get(mod))
			found = ERR_PTR(-ENODEV);
		else
			found = mod;
		break;
	}
	rcu_read_unlock();
	return found;
}

/**
 * gtp_module_get_data - pin the live module whose data holds a range
 * @addr: start
 * @size: bytes
 *
 * Return: the module, referenced (gtp_module_put()), or NULL: vmlinux, no
 * module, gtp itself, or a module that is not live.
 */
struct module *gtp_module_get_data(u64 addr, u32 size)
{
	struct module *mod = get_module(addr, size, match_data);

	return IS_ERR(mod) ? NULL : mod;
}

/**
 * gtp_module_get_code - pin the module a probe address lies in
 * @addr: where the probe goes
 *
 * Return: the module, referenced; NULL when @addr is in no module (or in
 * gtp, which attach.c refuses anyway); ERR_PTR(-ENODEV) when its module is
 * still loading or going away.
 */
struct module *gtp_module_get_code(u64 addr)
{
	return get_module(addr, 1, match_any);
}

void gtp_module_put(struct module *mod)
{
	if (mod)
		module_put(mod);
}
