/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftrace_direct_entry.S - where an entry tracepoint's own trampoline
 * (ftrace_direct.c) goes when its condition holds.
 *
 * The trampoline is called from the function's __fentry__ site, before
 * the function's prologue, with the arguments in rdi, rsi, rdx, rcx, r8,
 * r9 (al: a varargs count).  It computes its condition in rax, r10 and
 * r11 and the flags, so it saves those first (AX_JIT_PROBE_SAVE_SCRATCH):
 * a frame shows every register as the function got them, as ftrace's own
 * SAVE_REGS caller records them for the shared ops.  A true condition
 * jumps here with r11 = its struct gtp_fprobe, every other register as
 * the function got them, and the stack
 *
 *	[rsp]		r11	as the function got them
 *	[rsp + 8]	r10
 *	[rsp + 16]	rax
 *	[rsp + 24]	flags
 *	[rsp + 32]	the trampoline's return, into the function
 *	[rsp + 40]	the function's own return address
 *
 * rsp is 16-byte aligned (8 mod 16 at the function's entry, one call and
 * four pushes deeper).  This builds the pt_regs that caller would (sp:
 * the function's entry sp, where its return address is), calls
 * gtp_fdirect_hit(regs, fp), puts back every register the function may
 * read and the four the trampoline pushed, and returns into the function:
 * the trampoline's call is ours to return from.
 *
 * The block is written by pt_regs_save.h's macros, as static_tp_entry.S
 * writes its own.
 */
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <asm/ibt.h>
#include <asm/orc_types.h>
#include <asm/unwind_hints.h>
#include "pt_regs_save.h"

#define SAVED	32	/* r11, r10, rax, flags: pushed by the trampoline */
#define FRAME	176	/* struct pt_regs and 8 bytes: rsp stays aligned */

SYM_FUNC_START(gtp_direct_held)
	/* what the trampoline pushed is this call's: the unwinder skips it */
	UNWIND_HINT sp_reg=ORC_REG_SP sp_offset=SAVED+8 type=UNWIND_HINT_TYPE_CALL
	ENDBR				/* its address is taken: the JIT's jmp rel32 target */
	subq	$FRAME, %rsp
	PT_SAVE_CALLER_SAVED		/* %rdi = &regs, the C argument */
	PT_SAVE_REST FRAME+SAVED+8	/* sp: the function's entry sp */
	movq	%r11, %rsi		/* fp, before r11 is the function's */
	movq	FRAME(%rsp), %r11
	movq	%r11, R11(%rdi)
	movq	FRAME+8(%rsp), %r11
	movq	%r11, R10(%rdi)
	movq	FRAME+16(%rsp), %r11
	movq	%r11, RAX(%rdi)
	movq	FRAME+24(%rsp), %r11
	movq	%r11, EFLAGS(%rdi)
	movq	$0, RIP(%rdi)		/* gtp_fprobe_hit() sets it */
	call	gtp_fdirect_hit
	movq	RDI(%rsp), %rdi
	movq	RSI(%rsp), %rsi
	movq	RDX(%rsp), %rdx
	movq	RCX(%rsp), %rcx
	movq	R8(%rsp), %r8
	movq	R9(%rsp), %r9
	addq	$FRAME, %rsp
	popq	%r11
	popq	%r10
	popq	%rax
	popfq
	UNWIND_HINT_FUNC		/* the entry frame again: stack_size too */
	RET
SYM_FUNC_END(gtp_direct_held)
