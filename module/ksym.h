/* SPDX-License-Identifier: GPL-2.0 */
/* ksym.h - non-exported kernel symbols, found without calling into kallsyms (see ksym.c). */
#ifndef GTP_KSYM_H
#define GTP_KSYM_H

unsigned long gtp_ksym(const char *name);
unsigned long gtp_ksym_func_start(unsigned long addr);
unsigned long gtp_ksym_code(const char *name);
void *gtp_kfunc(const char *name, const char **why);
bool gtp_kaddr_visible(void);

#endif /* GTP_KSYM_H */
