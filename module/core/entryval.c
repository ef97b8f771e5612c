// SPDX-License-Identifier: GPL-2.0
/*
 * entryval.c - reads of the entry-value range during a hit (entryval.h),
 * and which locations need their function's entry registers recorded.
 */
#include "entryval.h"
#include "fbuild.h"
#include "host.h"
#include "tracepoint.h"
#include "tsv.h"	/* gtp_prog_bound() */

/*
 * @size bytes at @addr of the range: part of one register's 8 bytes, as
 * the host recorded it at the entry of the function @env's hit is in.
 * -EFAULT when it holds nothing for this hit (the function was entered
 * before the trace started, the register is not an argument register).
 */
int gtp_ev_read(struct ax_env *env, u64 addr, void *dst, u32 size)
{
	u32 dwreg = (addr - GTP_EV_BASE) / 8, off = (addr - GTP_EV_BASE) % 8;
	u64 val;

	if (!size || off + size > 8 || !gtp_ev_reg_ok(dwreg) || !env->tp ||
	    gtp_host->entry_reg(env->tp, env->regs, dwreg, &val))
		return -EFAULT;
	memcpy(dst, (u8 *)&val + off, size);
	return 0;
}

/*
 * trace/trace_quick of the range: an M block at @addr with the value, as
 * if it were memory.  An entry value the hit cannot have is left out of
 * the frame (gdb shows it <unavailable>), as unreadable memory is.
 */
int gtp_ev_trace(struct gtp_fbuild *fb, struct ax_env *env, u64 addr,
		 u32 size)
{
	u8 buf[8];

	if (!fb)
		return -EINVAL;		/* trace ops in a condition */
	size = min_t(u32, size, 8 - (u32)((addr - GTP_EV_BASE) % 8));
	if (gtp_ev_read(env, addr, buf, size))
		return 0;
	return gtp_fb_put_mem(fb, addr, buf, size);
}

/*
 * Does a hit of @tp read entry values (the host then records them)?  From
 * its programs' bound facts (ax.h): ask at QTStart, after gtp_tps_bind().
 */
bool gtp_tp_reads_entry(const struct gtp_tp *tp)
{
	u32 i;

	if (tp->cond && gtp_prog_bound(tp->cond)->reads_entry)
		return true;
	for (i = 0; i < tp->nactions; i++)
		if (tp->actions[i].type == GTP_ACT_EXPR &&
		    tp->actions[i].prog &&
		    gtp_prog_bound(tp->actions[i].prog)->reads_entry)
			return true;
	return false;
}
