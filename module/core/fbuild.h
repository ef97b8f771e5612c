/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fbuild.h - a frame being built, and the blocks written into it
 * (fbuild.c).  The layout is collect.c's (gdb's trace file format).
 */
#ifndef GTP_FBUILD_H
#define GTP_FBUILD_H

#include "ax.h"

/* A frame being built in the host's per-CPU scratch buffer. */
struct gtp_fbuild {
	u8 *buf;
	u32 cap;
	u32 len;
	bool truncated;		/* something did not fit */
	struct ax_env *env;	/* the hit: its fault count (ax.h) and whose
				 * user memory it may read; NULL: none */
};

#define GTP_M_HDR	(1 + 8 + 2)	/* 'M', u64 address, u16 length */

/* @n more bytes at the end of the frame, or NULL (and truncated) if full. */
static inline u8 *gtp_fb_room(struct gtp_fbuild *fb, u32 n)
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

/* Side effects of agent expressions in actions (the ax_hook_* bodies). */
int gtp_fb_trace(struct gtp_fbuild *fb, u64 addr, u32 size, bool upto_nul);
int gtp_fb_put_mem(struct gtp_fbuild *fb, u64 addr, const void *data,
		   u32 len);
int gtp_fb_tracev(struct gtp_fbuild *fb, u32 tsv, const struct ax_env *env);

/*
 * Where "collect $kstack" puts the call stack in a frame: non-canonical
 * in 4- and 5-level paging alike, so never an address of kernel memory
 * that the same frame could also hold.  Up to GTP_KSTACK_MAX entries.
 */
#define GTP_KSTACK_ADDR		0x4b53544b00000000ULL	/* "KSTK" */
#define GTP_KSTACK_MAX		32

/*
 * "collect $ustack": the user call stack (return addresses, innermost
 * first) at GTP_USTACK_ADDR, another such address, and the word before
 * it the start of the program's text (where a position-independent
 * program was loaded), in the same block.  Up to GTP_USTACK_MAX entries.
 */
#define GTP_USTACK_ADDR		0x5553544b00000000ULL	/* "USTK" */
#define GTP_USTACK_MAX		32

#endif /* GTP_FBUILD_H */
