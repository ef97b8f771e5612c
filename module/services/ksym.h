/* SPDX-License-Identifier: GPL-2.0 */
/* ksym.h - non-exported kernel symbols, found without calling into kallsyms (see ksym.c). */
#ifndef GTP_KSYM_H
#define GTP_KSYM_H

#include <linux/static_call.h>

unsigned long gtp_ksym(const char *name);
bool gtp_kdata_kept(unsigned long addr, size_t size);

/**
 * gtp_ksym_data - the address of a kernel data object gtp reads or locks
 * @name: as in /proc/kallsyms
 * @size: the bytes gtp will touch there (sizeof the object)
 *
 * Only when [address, address + @size) lies wholly in vmlinux's kept
 * data: .rodata, .data and .bss but what the kernel frees after boot
 * (core/kdata.c).  Every data symbol gtp dereferences goes through it
 * (a table between two symbols through gtp_kdata_kept());
 * tests/unit/test_kdata.c lists each name and size, and make
 * check-kdata-images checks them on every installed matrix kernel.
 *
 * Context: process context (registers a kprobe; may sleep).
 * Return: its address, or 0 when it does not exist or lies elsewhere.
 */
unsigned long gtp_ksym_data(const char *name, size_t size);
unsigned long gtp_ksym_func_start(unsigned long addr);
unsigned long gtp_ksym_code(const char *name);
unsigned long gtp_ksym_func(const char *name);
bool gtp_kaddr_visible(void);

/*
 * gtp_kfunc_bind - make the module's static call @sc call kernel function @name
 *
 * static_call(@sc)(...) is then a direct call (patched into the module's
 * text by static_call_update()), never a call through a pointer: valid on
 * a CPU that enforces IBT even when the kernel sealed @name's endbr64.
 * Context: process context (may sleep).
 * Return: true when @name exists and @sc now calls it.
 */
#define gtp_kfunc_bind(sc, name)					\
({									\
	unsigned long __addr = gtp_ksym_func(name);			\
									\
	if (__addr)							\
		static_call_update(sc,					\
			(typeof(&STATIC_CALL_TRAMP(sc)))__addr);	\
	__addr != 0;							\
})

#endif /* GTP_KSYM_H */
