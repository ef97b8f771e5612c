/* SPDX-License-Identifier: GPL-2.0 */
/*
 * regs.h - a hit's pt_regs as gdb numbers and lays out the amd64
 * registers: one register by number (getv $kret, memory actions) and the
 * 'g' block (GTP_G_SIZE bytes) of an R action, or the 'r' block of the
 * registers an R action names.  Inline: the hit path (collect.c) writes
 * one on every hit that collects registers.
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

/* Bytes of gdb register @i in a 'g' block: rax..rip 8, eflags..gs 4. */
static inline u32 gtp_g_reg_size(int i)
{
	return i < 17 ? 8 : 4;
}

/* Where gdb register @i sits in a 'g' block. */
static inline u32 gtp_g_reg_off(int i)
{
	return i < 17 ? 8 * i : 136 + 4 * (i - 17);
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

/*
 * The 'r' block: the registers one R action names, not a whole 'g' block.
 *
 *	'r' | u32 mask | the masked registers' values, ascending gdb numbers
 *
 * The mask is in gdb's amd64 numbers (bit i = register i, as in the R
 * action and the 'g' layout); each value is as wide as its 'g' slot: 8
 * bytes for rax..rip (0..16), 4 for eflags, cs, ss (17..19).  Only those
 * 20: ds, es, fs, gs (20..23) are not in pt_regs, so never available.
 * rip (16) is always in the block, and is the tracepoint's address, as
 * in an R block: a frame's pc tells gdb which location of a tracepoint
 * hit (traceframe.c frame_pc()).
 *
 * gdb's trace file knows only 'R', 'M' and 'V': qTBuffer (traceframe.c)
 * serves an 'r' block as a whole 'R' block, the registers it lacks zero.
 * The live stream hands out the stored bytes, so gtp-ctl's stream
 * (gdb-scripts/gtpctl/trace.py, stream_ctf.py) reads 'r' itself.
 *
 * A hit writes the block from offsets computed when the actions were
 * planned (plan.c gtp_rsub_plan()): a loop of a load and a store per
 * register instead of the 24 of a 'g' block.  Past GTP_RSUB_MAX_REGS
 * registers the 'g' block's straight-line stores cost less, and the R
 * action writes an 'R' block as before; so do several R actions of one
 * tracepoint (readers take the registers from a frame's first block).
 */
#define GTP_RSUB_BLOCK		0x72	/* 'r': no gdb trace-file block */
#define GTP_RSUB_HDR		(1 + 4)	/* 'r', u32 mask */
#define GTP_RSUB_PC		16	/* gdb's rip */
#define GTP_RSUB_REGS		0xfffffu	/* rax..ss: what pt_regs holds */
#define GTP_RSUB_SEGS		0xe0000u	/* eflags, cs, ss: 4-byte values */
#define GTP_RSUB_MAX_REGS	6	/* rip included */

struct gtp_rsub {
	u32 mask;	/* gdb registers in the block; 0: write an 'R' block */
	u16 len;	/* the block's bytes: GTP_RSUB_HDR and the values */
	u8 n;		/* registers below rip (0..15) in the block */
	u8 off[16];	/* their pt_regs byte offsets, ascending numbers */
};

/* Where register @regno's value sits among an 'r' block's values. */
static inline int gtp_rsub_reg_off(u32 mask, int regno)
{
	int i, off = 0;

	for (i = 0; i < regno; i++)
		if (mask & (1u << i))
			off += gtp_g_reg_size(i);
	return off;
}

/* Bytes of the values of an 'r' block of @mask; -1 past gdb's 24. */
static inline int gtp_rsub_vals_len(u32 mask)
{
	return mask >> 24 ? -1 : gtp_rsub_reg_off(mask, 24);
}

/* eflags, cs, ss, as gtp_regs_to_g() takes them (rarely named). */
static inline void gtp_rsub_put_segs(const struct pt_regs *regs,
				     u32 mask, u8 *out)
{
	u32 v;

	if (mask & (1u << 17)) {
		v = regs->flags;
		memcpy(out, &v, 4);
		out += 4;
	}
	if (mask & (1u << 18)) {
		v = regs->cs;
		memcpy(out, &v, 4);
		out += 4;
	}
	if (mask & (1u << 19)) {
		v = regs->ss;
		memcpy(out, &v, 4);
	}
}

/*
 * The values of the 'r' block @rs describes, at @out, @pc as rip.
 * Branch-light: one load and store per register from offsets planned
 * before the run, rip, and eflags/cs/ss only when named.
 */
static __always_inline void gtp_rsub_put_vals(const struct pt_regs *regs,
					      u64 pc,
					      const struct gtp_rsub *rs,
					      u8 *out)
{
	const u8 *base = (const u8 *)regs;
	u32 i, n = rs->n;

	for (i = 0; i < n; i++, out += 8)
		memcpy(out, base + rs->off[i], 8);
	memcpy(out, &pc, 8);
	if (unlikely(rs->mask & GTP_RSUB_SEGS))
		gtp_rsub_put_segs(regs, rs->mask, out + 8);
}

/*
 * Write the 'r' block @rs describes at @out (@rs->len bytes).  The first
 * store writes 8 bytes: the 3 past the mask are the first value's, which
 * the next store writes (every block holds rip).
 */
static __always_inline void gtp_regs_to_rsub(const struct pt_regs *regs,
					     u64 pc,
					     const struct gtp_rsub *rs,
					     u8 *out)
{
	u64 head = GTP_RSUB_BLOCK | (u64)rs->mask << 8;

	memcpy(out, &head, 8);
	gtp_rsub_put_vals(regs, pc, rs, out + GTP_RSUB_HDR);
}

#endif /* GTP_REGS_H */
