/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pt_regs_save.h - assembly: the registers as a probe entry got them,
 * into a struct pt_regs at the bottom of its frame (static_tp_entry.S,
 * ftrace_direct_entry.S).  Offsets: <asm/ptrace-abi.h>, struct pt_regs's
 * (static_probe.c checks the layout with BUILD_BUG_ON).
 *
 * The block is written through %rdi (then also the C argument) rather
 * than %rsp: objtool takes callee-saved registers stored relative to %rsp
 * for spills that must be reloaded before the return, six loads per hit
 * for nothing.
 */
#ifndef GTP_PT_REGS_SAVE_H
#define GTP_PT_REGS_SAVE_H

#include <asm/ptrace-abi.h>

/* rdi, rsi, rdx, rcx, r8..r11 and rax into the block at %rsp; %rdi = it */
.macro PT_SAVE_CALLER_SAVED
	movq	%rdi, RDI(%rsp)
	movq	%rsp, %rdi
	movq	%rsi, RSI(%rdi)
	movq	%rdx, RDX(%rdi)
	movq	%rcx, RCX(%rdi)
	movq	%r8, R8(%rdi)
	movq	%r9, R9(%rdi)
	movq	%rax, RAX(%rdi)
	movq	%r10, R10(%rdi)
	movq	%r11, R11(%rdi)
.endm

/*
 * The rest of the block at %rdi: the callee-saved registers (still the
 * caller's after a C call, C ABI), orig_ax -1 (not a syscall), flags, and
 * sp = %rdi + \sp_off (the sp the probed code had).
 */
.macro PT_SAVE_REST sp_off
	movq	%rbx, RBX(%rdi)
	movq	%rbp, RBP(%rdi)
	movq	%r12, R12(%rdi)
	movq	%r13, R13(%rdi)
	movq	%r14, R14(%rdi)
	movq	%r15, R15(%rdi)
	movq	$-1, ORIG_RAX(%rdi)
	leaq	\sp_off(%rdi), %rax
	movq	%rax, RSP(%rdi)
	pushfq
	popq	EFLAGS(%rdi)
.endm

#endif /* GTP_PT_REGS_SAVE_H */
