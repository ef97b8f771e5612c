// SPDX-License-Identifier: GPL-2.0
/*
 * jit_direct.c - may JIT code load from a constant kernel address directly
 * (host.h: jit_direct, jit_unpin)?
 *
 * A bytecode read ('const A; ref32') is otherwise a call to ax_hook_read():
 * a page-table check and a nofault copy, there because an arbitrary address
 * may be unmapped.  Some addresses provably are mapped for as long as a JIT
 * image can run, and for those a plain load is exactly as safe:
 *
 *  - vmlinux .rodata, .data and .bss, between the linker's section symbols
 *    (__start_rodata..__end_rodata, _sdata.._edata, __bss_start..
 *    __bss_stop).  Never the gaps around them: x86 frees and unmaps the
 *    padding after __end_rodata and between text and rodata.
 *  - the data areas of a live module (kcompat.h gtp_module_data_has()),
 *    which we then pin with try_module_get(): the reference is dropped by
 *    gtp_jit_unpin() when the image is freed (ax_jit_free(), after the
 *    probes that run it are gone), so the module cannot be unloaded under
 *    code that reads it (rmmod says "in use" meanwhile).  Not gtp itself:
 *    its own reference would keep it from ever being unloaded.
 *
 * The range [A, A + size) must lie wholly inside one of them.  Policy is
 * the read hook's: gtp reads kernel memory only when not locked down
 * (gtp_locked_down(), checked when /proc/gtp is opened); we check it again
 * here, at JIT time, and the decision lives no longer than the image,
 * which goes with the tracepoints.  The fault budget still applies to a
 * direct load (codegen.c), so results and errors are ax_interp()'s.
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
#include "gtp_glue.h"

/* [start, end) section symbols of vmlinux's always-mapped data */
static const char *const kernel_data[][2] = {
	{ "__start_rodata", "__end_rodata" },
	{ "_sdata", "_edata" },
	{ "__bss_start", "__bss_stop" },
};

static bool in_kernel_data(u64 addr, u32 size)
{
	unsigned long lo, hi;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kernel_data); i++) {
		lo = gtp_ksym(kernel_data[i][0]);
		hi = gtp_ksym(kernel_data[i][1]);
		if (lo && lo < hi && addr >= lo && addr - lo < hi - lo &&
		    size <= hi - addr)
			return true;
	}
	return false;
}

/* The live module whose data holds the range, with a reference, or NULL. */
static struct module *pin_module_data(u64 addr, u32 size)
{
	struct list_head *modules = (void *)gtp_ksym("modules");
	struct module *mod, *found = NULL;

	struct list_head *pos;
	bool on_ring = false;

	if (!modules)
		return NULL;
	rcu_read_lock();
	/* only trust the symbol if it is the head of the ring we are on */
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
		if (mod->state != MODULE_STATE_LIVE ||
		    !gtp_module_data_has(mod, addr, size))
			continue;
		if (mod != THIS_MODULE && try_module_get(mod))
			found = mod;
		break;
	}
	rcu_read_unlock();
	return found;
}

/**
 * gtp_jit_direct - may JIT code load [@addr, @addr + @size) directly?
 * @addr: a constant address in the bytecode
 * @size: bytes read (1, 2, 4, 8)
 * @pin: set to the module to unpin with gtp_jit_unpin(), or NULL
 *
 * Context: process context, when a tracepoint's program is compiled.
 * Return: @addr as a pointer, or NULL: keep the nofault read hook.
 */
const void *gtp_jit_direct(u64 addr, u32 size, void **pin)
{
	struct module *mod;

	*pin = NULL;
	if (!size || addr + (size - 1) < addr)
		return NULL;
	if (gtp_locked_down())
		return NULL;
	if (in_kernel_data(addr, size))
		return (const void *)(unsigned long)addr;
	mod = pin_module_data(addr, size);
	if (!mod)
		return NULL;
	*pin = mod;
	return (const void *)(unsigned long)addr;
}

/**
 * gtp_jit_unpin - drop what gtp_jit_direct() pinned
 * @pin: a module, or NULL
 *
 * Context: after the image that loaded from it is freed.
 */
void gtp_jit_unpin(void *pin)
{
	if (pin)
		module_put(pin);
}
