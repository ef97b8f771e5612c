/* SPDX-License-Identifier: GPL-2.0 */
/* ksym.h - non-exported kernel symbols, found without calling into kallsyms (see ksym.c). */
#ifndef GTP_KSYM_H
#define GTP_KSYM_H

#include <linux/static_call.h>

unsigned long gtp_ksym(const char *name);
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
