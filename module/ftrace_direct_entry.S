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
 * address is), calls gtp_fdirect_hit(fp, regs), puts back the registers
 * the function may read, and returns into the function: the trampoline's
 * call is ours to return from.
 *
 * The block is written through %rsi (the C argument) rather than %rsp:
 * objtool takes callee-saved registers stored relative to %rsp for spills
 * that must be reloaded before the return (static_tp_entry.S does the
 * same).  Offsets: <asm/ptrace-abi.h>, struct pt_regs's.
 */
#include <linux/linkage.h>
#include <asm/ibt.h>
#include <asm/ptrace-abi.h>

#define FRAME	176	/* struct pt_regs and 8 bytes: rsp stays aligned */

SYM_FUNC_START(gtp_direct_held)
	ENDBR				/* reached through a register when far */
	subq	$FRAME, %rsp
	movq	%rsi, RSI(%rsp)
	movq	%rsp, %rsi		/* &regs, also the C argument */
	movq	%rdi, RDI(%rsi)
	movq	%rdx, RDX(%rsi)
	movq	%rcx, RCX(%rsi)
	movq	%r8, R8(%rsi)
	movq	%r9, R9(%rsi)
	movq	%rax, RAX(%rsi)
	movq	%r10, R10(%rsi)
	movq	%r11, R11(%rsi)
	movq	%rbx, RBX(%rsi)
	movq	%rbp, RBP(%rsi)
	movq	%r12, R12(%rsi)
	movq	%r13, R13(%rsi)
	movq	%r14, R14(%rsi)
	movq	%r15, R15(%rsi)
	movq	$0, ORIG_RAX(%rsi)
	movq	$0, RIP(%rsi)		/* gtp_fprobe_hit() sets it */
	leaq	FRAME+8(%rsi), %rax	/* the function's entry sp */
	movq	%rax, RSP(%rsi)
	pushfq
	popq	EFLAGS(%rsi)
	movq	%r11, %rdi
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
