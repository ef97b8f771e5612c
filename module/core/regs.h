/* SPDX-License-Identifier: GPL-2.0 */
/*
 * regs.h - a hit's pt_regs as gdb numbers and lays out the amd64
 * registers: one register by number (getv $kret, memory actions) and the
 * 'g' block (GTP_G_SIZE bytes) of an R action.  Inline: the hit path
 * (collect.c) converts a whole block on every 'collect $regs' hit.
 */
#ifndef GTP_REGS_H
#define GTP_REGS_H

#include "compat.h"

/* gdb amd64 register i (0..17) -> its pt_regs field. */
static inline u64 gtp_reg_value(const struct pt_regs *regs, int regno)
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
	case 17: return regs->flags;
	}
	return 0;
}

/* One 8-byte register slot of a 'g' block (unaligned: frames are packed). */
static inline void gtp_g_put_reg(u8 *out, int i, u64 v)
{
	memcpy(out + 8 * i, &v, 8);
}

/* One 4-byte segment/flags slot after rip. */
static inline void gtp_g_put_seg(u8 *out, int i, u32 v)
{
	memcpy(out + 136 + 4 * i, &v, 4);
}

/*
 * Straight-line on purpose: every 'collect $regs' hit converts a whole
 * block, and a loop through gtp_reg_value()'s switch cost ~10 times more.
 * No local array either: one costs a stack canary and a copy per hit.
 * Always inline: a call would cost a tenth of it again.
 */
static __always_inline void gtp_regs_to_g(const struct pt_regs *regs,
					  u64 pc, u8 *out)
{
	gtp_g_put_reg(out, 0, regs->ax);
	gtp_g_put_reg(out, 1, regs->bx);
	gtp_g_put_reg(out, 2, regs->cx);
	gtp_g_put_reg(out, 3, regs->dx);
	gtp_g_put_reg(out, 4, regs->si);
	gtp_g_put_reg(out, 5, regs->di);
	gtp_g_put_reg(out, 6, regs->bp);
	gtp_g_put_reg(out, 7, regs->sp);
	gtp_g_put_reg(out, 8, regs->r8);
	gtp_g_put_reg(out, 9, regs->r9);
	gtp_g_put_reg(out, 10, regs->r10);
	gtp_g_put_reg(out, 11, regs->r11);
	gtp_g_put_reg(out, 12, regs->r12);
	gtp_g_put_reg(out, 13, regs->r13);
	gtp_g_put_reg(out, 14, regs->r14);
	gtp_g_put_reg(out, 15, regs->r15);
	gtp_g_put_reg(out, 16, pc);
	gtp_g_put_seg(out, 0, regs->flags);	/* eflags, cs, ss; ds es fs gs 0 */
	gtp_g_put_seg(out, 1, regs->cs);
	gtp_g_put_seg(out, 2, regs->ss);
	gtp_g_put_seg(out, 3, 0);
	gtp_g_put_seg(out, 4, 0);
	gtp_g_put_seg(out, 5, 0);
	gtp_g_put_seg(out, 6, 0);
}

#endif /* GTP_REGS_H */
