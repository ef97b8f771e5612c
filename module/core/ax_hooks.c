// SPDX-License-Identifier: GPL-2.0
/*
 * ax_hooks.c - the agent-expression side effects, for the interpreter and
 * the JIT (ax.h).
 *
 * They run while a probe fires.  env->frame is the frame being built (NULL
 * while a condition runs, so trace ops there fail).  A file of its own so
 * the interpreter and the JIT can be tested against recording hooks
 * (tests/unit/user_env.c links those instead of this).
 */
#include "ax.h"
#include "fbuild.h"
#include "entryval.h"
#include "tsv.h"
#include "tracepoint.h"	/* tp->num */
#include "hitmem.h"

/* Within the hit's fault budget (AX_HIT_FAULTS_MAX, ax.h). */
int ax_hook_read(struct ax_env *env, u64 addr, void *dst, u32 size)
{
	if (unlikely(gtp_ev_addr(addr)))
		return gtp_ev_read(env, addr, dst, size);
	if (env->faults >= AX_HIT_FAULTS_MAX)
		return -EFAULT;
	if (gtp_hit_read(env, dst, addr, size)) {
		env->faults++;
		return -EFAULT;
	}
	return 0;
}

int ax_hook_trace(struct ax_env *env, u64 addr, u32 size, bool upto_nul)
{
	if (unlikely(gtp_ev_addr(addr)))
		return gtp_ev_trace(env->frame, env, addr, size);
	return gtp_fb_trace(env->frame, addr, size, upto_nul);
}

int ax_hook_getv(struct ax_env *env, u32 tsv, s64 *val)
{
	return gtp_tsv_get_hit(tsv, env, val);
}

int ax_hook_setv(struct ax_env *env, u32 tsv, s64 val)
{
	const struct gtp_tp *tp = env->tp;

	return gtp_tsv_set(tsv, val, tp ? tp->num : 0);
}

int ax_hook_tracev(struct ax_env *env, u32 tsv)
{
	return gtp_fb_tracev(env->frame, tsv, env);
}
