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
 *  - vmlinux .rodata, .data and .bss but what the kernel frees after
 *    boot (core/kdata.c says which);
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
 * Modules are found and pinned by mod_pin.c; the images that read a
 * module forced out with "rmmod -f" stop doing so (probes/forced_unload.c).
 */
#define pr_fmt(fmt) "gtp: " fmt

#include <linux/module.h>

#include "kcompat.h"
#include "ksym.h"
#include "services.h"

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
	if (gtp_kdata_kept(addr, size))
		return (const void *)(unsigned long)addr;
	mod = gtp_module_get_data(addr, size);
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
	gtp_module_put(pin);
}
