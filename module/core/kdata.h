/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kdata.h - which vmlinux data a JIT image may load from directly.
 */
#ifndef GTP_KDATA_H
#define GTP_KDATA_H

#include "compat.h"

/* A symbol's address, 0 if unknown (kallsyms in the kernel). */
typedef u64 (*gtp_kdata_sym_t)(const char *name);

bool gtp_kdata_direct_ok(u64 addr, u32 size, gtp_kdata_sym_t sym);

#endif /* GTP_KDATA_H */
