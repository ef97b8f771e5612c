// SPDX-License-Identifier: GPL-2.0
/*
 * fbuild.c - writing the blocks of a frame being built (fbuild.h): M
 * blocks of memory (every M block of a frame is begun and ended here:
 * collected memory, $kstack, $_sdata), V blocks of variables.  The
 * actions of the hit path (collect.c) and the side effects of agent
 * expressions (ax_hooks.c, entryval.c) write through these; none of them
 * knows about tracepoints, the run or the frame store.
 *
 * Probe context, as collect.c: no sleeping, no allocation, every read of
 * kernel memory nofault.
 */
#include "fbuild.h"
#include "tsv.h"
#include "host.h"
#include "hitmem.h"

#define PAGE_CHUNK	4096
#define M_MAX		0xffff		/* u16 length per M block */

/* Start an M block for @addr; its length is patched by fb_end_mem(). */
static u8 *fb_begin_mem(struct gtp_fbuild *fb, u64 addr)
{
	u8 *h = gtp_fb_room(fb, GTP_M_HDR);

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
		fb->len -= GTP_M_HDR;	/* nothing read: drop the header */
}

/* An M block of @len bytes (at most a block's) at @addr, from @data. */
int gtp_fb_put_mem(struct gtp_fbuild *fb, u64 addr, const void *data,
		   u32 len)
{
	u8 *h = fb_begin_mem(fb, addr), *dst;

	if (!h)
		return -ENOSPC;
	dst = gtp_fb_room(fb, len);
	if (!dst) {
		fb_end_mem(fb, h, 0);
		return -ENOSPC;
	}
	memcpy(dst, data, len);
	fb_end_mem(fb, h, len);
	return 0;
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
		dst = gtp_fb_room(fb, n);
		if (!dst) {
			fb_end_mem(fb, h, blen);
			return -ENOSPC;
		}
		if (fb->env && fb->env->faults >= AX_HIT_FAULTS_MAX) {
			/* the hit's fault budget is spent: read no further */
			fb->len -= n;
			break;
		}
		if (gtp_hit_read(fb->env, dst, addr, n)) {
			/* Unreadable: close the block, skip this chunk. */
			if (fb->env)
				fb->env->faults++;
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

/*
 * An M block at @addr with room for @max u64 words, to be filled and then
 * cut to the words kept by fb_end_words(); NULL, with nothing written,
 * when the frame has no room for all @max.
 */
static u64 *fb_begin_words(struct gtp_fbuild *fb, u64 addr, u32 max,
			   u8 **h)
{
	u8 *b;

	*h = fb_begin_mem(fb, addr);
	if (!*h)
		return NULL;
	b = gtp_fb_room(fb, 8 * max);
	if (!b)
		fb_end_mem(fb, *h, 0);
	return (u64 *)b;
}

/* Keep the first @n of the @max words begun: none drops the block. */
static void fb_end_words(struct gtp_fbuild *fb, u8 *h, u32 n, u32 max)
{
	fb->len -= 8 * (max - n);
	fb_end_mem(fb, h, 8 * n);
}

/*
 * $kstack: the kernel call stack as return addresses (u64, innermost
 * first) in an M block at GTP_KSTACK_ADDR, an address no kernel memory
 * has, so gdb reads it back from the frame like any collected memory
 * (gtp-kstack, "x/8a"), in tfind and from a saved trace file alike.
 * Returns how many addresses were recorded.
 */
static s64 fb_kstack(struct gtp_fbuild *fb, const struct ax_env *env)
{
	u8 *h;
	u64 *w = fb_begin_words(fb, GTP_KSTACK_ADDR, GTP_KSTACK_MAX, &h);
	u32 n;

	if (!w)
		return -ENOSPC;
	n = gtp_host->kstack(env->tp, env->regs, w, GTP_KSTACK_MAX);
	n = min_t(u32, n, GTP_KSTACK_MAX);
	fb_end_words(fb, h, n, GTP_KSTACK_MAX);
	return n;
}

/*
 * $ustack: the user call stack the host walks (host.h ustack), after the
 * program's text start, in one M block at GTP_USTACK_ADDR - 8.  None
 * where the hit may not read user memory.  Returns how many addresses.
 */
static s64 fb_ustack(struct gtp_fbuild *fb, const struct ax_env *env)
{
	u8 *h;
	u64 *w = fb_begin_words(fb, GTP_USTACK_ADDR - 8, 1 + GTP_USTACK_MAX,
				&h);
	u32 n = 0;

	if (!w)
		return -ENOSPC;
	if (env->tp)
		n = gtp_host->ustack(env->tp, w, w + 1, GTP_USTACK_MAX);
	n = min_t(u32, n, GTP_USTACK_MAX);
	fb_end_words(fb, h, n ? 1 + n : 0, 1 + GTP_USTACK_MAX);
	return n;
}

int gtp_fb_tracev(struct gtp_fbuild *fb, u32 tsv, const struct ax_env *env)
{
	const struct gtp_tsv *v = gtp_tsv_find(tsv);
	s32 num = tsv;
	s64 val;
	u8 *b;

	if (!fb)
		return -EINVAL;
	if (!v)
		return -ENOENT;
	if (v->builtin == GTP_TSV_KSTACK || v->builtin == GTP_TSV_USTACK) {
		val = v->builtin == GTP_TSV_KSTACK ? fb_kstack(fb, env) :
						     fb_ustack(fb, env);
		if (val < 0)
			return val;
	} else if (gtp_tsv_get_hit(tsv, env, &val)) {
		return -ENOENT;
	}
	b = gtp_fb_room(fb, 1 + 4 + 8);
	if (!b)
		return -ENOSPC;
	b[0] = 'V';
	memcpy(b + 1, &num, 4);
	memcpy(b + 5, &val, 8);
	return 0;
}
