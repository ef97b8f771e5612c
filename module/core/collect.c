// SPDX-License-Identifier: GPL-2.0
/*
 * collect.c - the probe path: condition, actions, one frame per hit.
 *
 * Runs in probe context (kprobe pre-handler: preemption off, maybe IRQs
 * off, maybe NMI): no sleeping, no allocation, every read of kernel memory
 * nofault.  The frame is first built in a per-CPU scratch buffer, because
 * its size is known only after the expressions ran, then copied into the
 * frame store with one reserve/commit.
 *
 * Frame layout (gdb's trace file format, protocol reference 6.3):
 *
 *	int16 tpnum | u32 size | 'R' regs[164] | 'M' u64 addr u16 len bytes
 *	| 'V' s32 tsv s64 value | ...
 *
 * Unreadable memory is left out of the M blocks (gdb then shows it as
 * <unavailable>); a condition that fails to evaluate is false and counted.
 */
#include "collect.h"
#include "tsv.h"
#include "trace.h"
#include "static_data.h"

#define PAGE_CHUNK	4096
#define M_HDR		(1 + 8 + 2)
#define M_MAX		0xffff		/* u16 length per M block */

/* gdb amd64 register i (0..16) -> its pt_regs field. */
u64 gtp_reg_value(const struct pt_regs *regs, int regno)
{
	switch (regno) {
	case 0: return regs->ax;
	case 1: return regs->bx;
	case 2: return regs->cx;
	case 3: return regs->dx;
	case 4: return regs->si;
	case 5: return regs->di;
	case 6: return regs->bp;
	case 7: return regs->sp;
	case 8: return regs->r8;
	case 9: return regs->r9;
	case 10: return regs->r10;
	case 11: return regs->r11;
	case 12: return regs->r12;
	case 13: return regs->r13;
	case 14: return regs->r14;
	case 15: return regs->r15;
	case 16: return regs->ip;
	}
	return 0;
}

void gtp_regs_to_g(const struct pt_regs *regs, u64 pc, u8 *out)
{
	u32 seg[7] = { regs->flags, regs->cs, regs->ss, 0, 0, 0, 0 };
	int i;

	for (i = 0; i < 17; i++) {
		u64 v = i == 16 ? pc : gtp_reg_value(regs, i);

		memcpy(out + 8 * i, &v, 8);
	}
	memcpy(out + 136, seg, sizeof(seg));
}

static u8 *fb_room(struct gtp_fbuild *fb, u32 n)
{
	u8 *p;

	if (n > fb->cap - fb->len) {
		fb->truncated = true;
		return NULL;
	}
	p = fb->buf + fb->len;
	fb->len += n;
	return p;
}

/* Start an M block for @addr; its length is patched by fb_end_mem(). */
static u8 *fb_begin_mem(struct gtp_fbuild *fb, u64 addr)
{
	u8 *h = fb_room(fb, M_HDR);

	if (!h)
		return NULL;
	h[0] = 'M';
	memcpy(h + 1, &addr, 8);
	return h;
}

static void fb_end_mem(struct gtp_fbuild *fb, u8 *h, u16 len)
{
	if (len)
		memcpy(h + 9, &len, 2);
	else
		fb->len -= M_HDR;	/* nothing readable: drop the header */
}

/*
 * Record up to @size bytes at @addr, one page at a time so that an
 * unreadable page only loses itself.  @upto_nul stops after the first NUL
 * (tracenz).  Returns -ENOSPC if the frame filled up.
 */
int gtp_fb_trace(struct gtp_fbuild *fb, u64 addr, u32 size, bool upto_nul)
{
	u64 end = addr + size;
	u8 *h = NULL;
	u16 blen = 0;

	if (!fb)
		return -EINVAL;		/* trace ops in a condition */
	/*
	 * A frame holds at most fb->cap bytes: look no further than that.
	 * Scanning up to 4 GiB of unmapped memory page by page would fault
	 * a million times inside one probe hit.
	 */
	if (size > fb->cap)
		end = addr + fb->cap;
	while (addr < end) {
		u32 n = min_t(u64, end - addr,
			      PAGE_CHUNK - (addr & (PAGE_CHUNK - 1)));
		u8 *dst;

		n = min_t(u32, n, M_MAX - blen);
		if (!h && !(h = fb_begin_mem(fb, addr)))
			return -ENOSPC;
		dst = fb_room(fb, n);
		if (!dst) {
			fb_end_mem(fb, h, blen);
			return -ENOSPC;
		}
		if (gtp_read_nofault(dst, addr, n)) {
			/* Unreadable: close the block, skip this chunk. */
			fb->len -= n;
			fb_end_mem(fb, h, blen);
			h = NULL;
			blen = 0;
			addr += n;
			continue;
		}
		if (upto_nul) {
			u8 *nul = memchr(dst, 0, n);

			if (nul) {
				fb->len -= n - (nul + 1 - dst);
				blen += nul + 1 - dst;
				break;
			}
		}
		blen += n;
		addr += n;
		if (blen == M_MAX) {
			fb_end_mem(fb, h, blen);
			h = NULL;
			blen = 0;
		}
	}
	if (h)
		fb_end_mem(fb, h, blen);
	return 0;
}

int gtp_fb_tracev(struct gtp_fbuild *fb, u32 tsv)
{
	s32 num = tsv;
	s64 val;
	u8 *b;

	if (!fb)
		return -EINVAL;
	if (gtp_tsv_get(tsv, &val))
		return -ENOENT;
	b = fb_room(fb, 1 + 4 + 8);
	if (!b)
		return -ENOSPC;
	b[0] = 'V';
	memcpy(b + 1, &num, 4);
	memcpy(b + 5, &val, 8);
	return 0;
}

static void note_error(struct gtp_tp *tp, struct ax_env *env)
{
	atomic_long_add_return(1, &tp->errors);
	WRITE_ONCE(tp->last_err, env->err);
}

static void run_action(struct gtp_tp *tp, const struct gtp_action *a,
		       struct ax_env *env, struct gtp_fbuild *fb)
{
	struct pt_regs *regs = env->regs;
	u8 *b;
	u64 addr;

	switch (a->type) {
	case GTP_ACT_REGS:
		b = fb_room(fb, 1 + GTP_G_SIZE);
		if (b) {
			b[0] = 'R';
			gtp_regs_to_g(regs, tp->addr, b + 1);
		}
		break;
	case GTP_ACT_MEM:
		addr = a->offset;
		if (a->basereg >= 0)
			addr += gtp_reg_value(regs, a->basereg);
		gtp_fb_trace(fb, addr, min_t(u64, a->len, 0xffffffffu), false);
		break;
	case GTP_ACT_EXPR:
		env->frame = fb;
		ax_run(a->prog, env);
		if (env->err)
			note_error(tp, env);
		break;
	case GTP_ACT_SDATA:
		/* Only a static tracepoint's regs carry $_sdata. */
		if (tp->is_static)
			gtp_fb_sdata(fb, regs);
		break;
	}
}

u64 gtp_tp_min_frame_len(const struct gtp_tp *tp)
{
	u64 len = GTP_FRAME_HDR;
	u32 i;

	for (i = 0; i < tp->nactions; i++) {
		const struct gtp_action *a = &tp->actions[i];

		if (a->type == GTP_ACT_REGS)
			len += 1 + GTP_G_SIZE;
		else if (a->type == GTP_ACT_MEM && a->len)
			/* gtp_fb_trace() splits at 65535 bytes a block */
			len += a->len + M_HDR * ((a->len + 0xfffe) / 0xffff);
	}
	return len;
}

/*
 * Copy the built frame into the store; stop the trace if it is full.  A
 * frame the store can never hold (larger than a sub-buffer: QTStart
 * refuses the ones it can predict) is an error of this tracepoint.
 */
static bool store_frame(struct gtp_tp *tp, struct gtp_fbuild *fb)
{
	struct gtp_frame_slot slot;
	s16 num = tp->num;
	u32 size = fb->len - GTP_FRAME_HDR;
	u8 *dst;

	memcpy(fb->buf, &num, 2);
	memcpy(fb->buf + 2, &size, 4);
	dst = gtp_frame_reserve(&slot, fb->len);
	if (!dst) {
		if (slot.err == -ENOSPC)
			gtp_trace_stop_from_probe(GTP_STOP_FULL, 0);
		if (slot.err == -E2BIG) {
			atomic_long_add_return(1, &tp->errors);
			WRITE_ONCE(tp->last_err, AX_ERR_TRACE);
		}
		return false;
	}
	memcpy(dst, fb->buf, fb->len);
	gtp_frame_commit(&slot);
	atomic_long_add_return(fb->len, &tp->usage);
	return true;
}

/**
 * gtp_tp_hit - tracepoint @tp was hit with registers @regs
 *
 * Probe context.  Collects one frame if the trace runs, @tp is enabled and
 * its condition holds; enforces the pass count.
 */
bool gtp_tp_hit(struct gtp_tp *tp, struct pt_regs *regs, u8 *scratch,
		u32 cap)
{
	struct ax_env env = { .regs = regs, .tp = tp };
	struct gtp_fbuild fb = { .buf = scratch, .cap = cap };
	bool stored;
	long hits;
	u32 i;

	if (!gtp_trace_running() || !READ_ONCE(tp->enabled))
		return false;
	if (tp->cond) {
		u64 res = ax_run(tp->cond, &env);

		if (env.err) {
			note_error(tp, &env);
			return false;
		}
		if (!res)
			return false;
	}
	hits = atomic_long_add_return(1, &tp->hits);
	fb.len = GTP_FRAME_HDR;
	for (i = 0; i < tp->nactions; i++)
		run_action(tp, &tp->actions[i], &env, &fb);
	stored = store_frame(tp, &fb);
	if (tp->pass && hits >= tp->pass)
		gtp_trace_stop_from_probe(GTP_STOP_PASSCOUNT, tp->num);
	return stored;
}
