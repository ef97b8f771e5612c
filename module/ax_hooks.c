// SPDX-License-Identifier: GPL-2.0
/*
 * ax_hooks.c - the agent-expression side effects inside gtp.ko.
 *
 * The interpreter and the JIT call these plain functions (ax.h) while a
 * probe fires.  env->frame is the frame being built (NULL while a
 * condition runs, so trace ops there fail); the work itself is done by the
 * portable core (collect.c, tsv.c), which the unit tests cover.
 */
#include <linux/kprobes.h>

#include "ax.h"
#include "jit.h"
#include "collect.h"
#include "tsv.h"

int ax_hook_read(struct ax_env *env, u64 addr, void *dst, u32 size)
{
	return gtp_read_nofault(dst, addr, size);
}

int ax_hook_trace(struct ax_env *env, u64 addr, u32 size, bool upto_nul)
{
	return gtp_fb_trace(env->frame, addr, size, upto_nul);
}

int ax_hook_getv(struct ax_env *env, u32 tsv, s64 *val)
{
	return gtp_tsv_get(tsv, val);
}

int ax_hook_setv(struct ax_env *env, u32 tsv, s64 val)
{
	return gtp_tsv_set(tsv, val);
}

int ax_hook_tracev(struct ax_env *env, u32 tsv)
{
	return gtp_fb_tracev(env->frame, tsv);
}

/* Until the JIT is in the tree every program is interpreted. */
int __weak ax_jit_compile(struct ax_prog *prog, char *log, size_t logsz)
{
	return -EOPNOTSUPP;
}

void __weak ax_jit_free(struct ax_prog *prog)
{
}
