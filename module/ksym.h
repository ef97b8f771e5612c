/* SPDX-License-Identifier: GPL-2.0 */
/* ksym.h - kernel symbol addresses through kallsyms (see ksym.c). */
#ifndef GTP_KSYM_H
#define GTP_KSYM_H

unsigned long gtp_ksym(const char *name);
bool gtp_kaddr_visible(void);

#endif /* GTP_KSYM_H */
