/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftrace_direct_entry.S - where an entry tracepoint's own trampoline
 * (ftrace_direct.c) goes when its condition holds.
 *
 * The trampoline is called from the function's __fentry__ site, before
 * the function's prologue: [rsp] returns into the function, [rsp + 8] is
 * the function's own return address, the arguments are in rdi, rsi, rdx,
 * rcx, r8, r9 (al: a varargs count), and rsp is 16-byte aligned (8 mod 16
 * at the function's entry, one call deeper).  A true condition jumps
 * here with r11 = its struct gtp_fprobe and every other register but rax
 * and r10 as the function got them.  This builds the pt_regs ftrace's
 * SAVE_REGS caller would (sp: the function's entry sp, where its return
 * address is), calls gtp_fdirect_hit(regs, fp), puts back the registers
 * the function may read, and returns into the function: the trampoline's
 * call is ours to return from.
 *
 * The block is written by pt_regs_save.h's macros, as static_tp_entry.S
 * writes its own.
 */
#include <linux/linkage.h>
#include <asm/ibt.h>
#include "pt_regs_save.h"

#define FRAME	176	/* struct pt_regs and 8 bytes: rsp stays aligned */

SYM_FUNC_START(gtp_direct_held)
	ENDBR				/* its address is taken: the JIT's jmp rel32 target */
	subq	$FRAME, %rsp
	PT_SAVE_CALLER_SAVED		/* %rdi = &regs, the C argument */
	PT_SAVE_REST FRAME+8		/* sp: the function's entry sp */
	movq	$0, RIP(%rdi)		/* gtp_fprobe_hit() sets it */
	movq	%r11, %rsi
	call	gtp_fdirect_hit
	movq	RDI(%rsp), %rdi
	movq	RSI(%rsp), %rsi
	movq	RDX(%rsp), %rdx
	movq	RCX(%rsp), %rcx
	movq	R8(%rsp), %r8
	movq	R9(%rsp), %r9
	movq	RAX(%rsp), %rax
	addq	$FRAME, %rsp
	RET
SYM_FUNC_END(gtp_direct_held)
