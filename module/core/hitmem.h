/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hitmem.h - the memory a hit reads: the kernel's, or the current task's
 * user memory.
 *
 * An address in the user half is the current task's, and a hit reads it
 * only when the host says the probed code ran in that task's own context
 * (host.h user_ok): not in an interrupt, where the current task is
 * whichever one was interrupted, and not in a kernel thread, which has
 * no user memory.  Both reads are nofault; the callers count a failed one
 * against the hit's fault budget (ax.h).
 */
#ifndef GTP_HITMEM_H
#define GTP_HITMEM_H

#include "ax.h"
#include "host.h"

/* The user half's read for the hit @env (hitmem.c), out of line. */
int gtp_hit_read_user(const struct ax_env *env, void *dst, u64 addr, u32 n);

/* @n bytes at @addr for the hit @env (NULL: kernel memory only). */
static inline int gtp_hit_read(const struct ax_env *env, void *dst,
			       u64 addr, u32 n)
{
	if (unlikely(gtp_user_addr(addr)))
		return gtp_hit_read_user(env, dst, addr, n);
	return gtp_read_nofault(dst, addr, n);
}

#endif /* GTP_HITMEM_H */
