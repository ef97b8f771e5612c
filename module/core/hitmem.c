// SPDX-License-Identifier: GPL-2.0
/*
 * hitmem.c - a hit's read of the user half (hitmem.h), out of line: the
 * kernel's copy bounces through a buffer on the stack (compat.h), which
 * stays out of the frames of the hot callers, ax_hook_read() (that the
 * JIT calls) and the frame builder.
 */
#include "hitmem.h"

int gtp_hit_read_user(const struct ax_env *env, void *dst, u64 addr, u32 n)
{
	if (!env || !env->tp || !gtp_host->user_ok(env->tp))
		return -EFAULT;
	return gtp_read_user_nofault(dst, addr, n);
}
