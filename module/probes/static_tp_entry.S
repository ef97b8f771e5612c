/* SPDX-License-Identifier: GPL-2.0 */
/*
 * static_tp_entry.S - the generic tracepoint probe of static tracepoints.
 *
 * A tracepoint calls its probes as probe(data, args...): rdi = data, the
 * event's arguments in rsi, rdx, rcx, r8, r9, then on the stack.  That is
 * where __traceiter_EVENT received them too, so saving the registers here,
 * before any C code reuses them, gives a struct pt_regs in which a
 * condition compiled by gdb at __traceiter_EVENT finds its arguments.
 *
 * Stack frame (struct gtp_static_regs, 184 bytes, see static_data.h):
 *
 *	rsp + 184	return address into the tracepoint caller (= regs.sp)
 *	rsp + 168	nargs, slot, cond_held, pad	(filled by gtp_static_hit)
 *	rsp + 0		struct pt_regs
 *
 * 184 keeps the stack 16-byte aligned at the call (8 mod 16 on entry).
 * Nothing is restored on the way out: gtp_static_hit() preserves the
 * callee-saved registers itself (C ABI) and the probe returns void, so the
 * caller assumes the others clobbered.  The block is written by
 * pt_regs_save.h's macros (through %rdi, the C argument); its offsets are
 * checked against struct pt_regs by BUILD_BUG_ON in static_probe.c.
 */
#include <linux/linkage.h>
#include <asm/ibt.h>
#include "pt_regs_save.h"

#define FRAME		184

	.text
/* The plain entry: save every register, call gtp_static_hit(). */
SYM_FUNC_START(gtp_static_entry)
	ENDBR					/* called through a pointer */
	subq	$FRAME, %rsp
	PT_SAVE_CALLER_SAVED			/* %rdi = &sr, the C argument */
	PT_SAVE_REST FRAME			/* sp as the probe got it */
	call	gtp_static_hit
	addq	$FRAME, %rsp
	RET
SYM_FUNC_END(gtp_static_entry)

/*
 * The condition first: for a condition that reads only caller-saved
 * registers and can fail in nothing (gtp_static_cond_false(), chosen at
 * attach), save just those, decide it, and return at once when it is
 * false: most hits of a selective tracepoint.  Otherwise complete the
 * block as above and take the full hit.
 * The frame also holds the condition's struct ax_env (56 bytes at 184)
 * and 8 bytes of padding, keeping the stack 16-byte aligned at the calls; a hit that goes on
 * continues its step budget (gtp_static_cond_env()).
 */
#define FRAME_FAST	248

SYM_FUNC_START(gtp_static_entry_fast)
	ENDBR
	subq	$FRAME_FAST, %rsp
	PT_SAVE_CALLER_SAVED
	call	gtp_static_cond_false
	testb	%al, %al
	jnz	1f
	movq	%rsp, %rdi
	PT_SAVE_REST FRAME_FAST
	call	gtp_static_hit
1:	addq	$FRAME_FAST, %rsp
	RET
SYM_FUNC_END(gtp_static_entry_fast)

/*
 * Where a condition compiled as the probe itself (ax_jit_probe_compile())
 * jumps when it holds, with every register as the tracepoint passed them
 * but rax, r10 and r11, which it computed in: the same frame as
 * gtp_static_entry_fast's, its environment set as if that entry had
 * decided the condition (gtp_static_held_env()).  A tail call: we return
 * to the tracepoint.  The JIT reaches us by a direct jmp rel32 (an image
 * out of its reach is refused on kernels that mitigate indirect
 * branches); ENDBR since our address is taken.
 */
SYM_FUNC_START(gtp_static_entry_held)
	ENDBR
	subq	$FRAME_FAST, %rsp
	PT_SAVE_CALLER_SAVED
	call	gtp_static_held_env
	movq	%rsp, %rdi
	PT_SAVE_REST FRAME_FAST
	call	gtp_static_hit
	addq	$FRAME_FAST, %rsp
	RET
SYM_FUNC_END(gtp_static_entry_held)
