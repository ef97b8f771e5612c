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
 *	rsp + 168	nargs, reserved, pad	(filled by gtp_static_hit)
 *	rsp + 0		struct pt_regs
 *
 * 184 keeps the stack 16-byte aligned at the call (8 mod 16 on entry).
 * Only the callee-saved registers are reloaded on the way out (the probe
 * returns void: the caller assumes the others clobbered).  gtp_static_hit()
 * preserves them anyway, but objtool checks that every callee-saved
 * register spilled to the stack is reloaded before the return.  Offsets
 * are checked against struct pt_regs by BUILD_BUG_ON in static_probe.c.
 */
#include <linux/linkage.h>

#define FRAME		184
#define PT_R15		0
#define PT_R14		8
#define PT_R13		16
#define PT_R12		24
#define PT_RBP		32
#define PT_RBX		40
#define PT_R11		48
#define PT_R10		56
#define PT_R9		64
#define PT_R8		72
#define PT_RAX		80
#define PT_RCX		88
#define PT_RDX		96
#define PT_RSI		104
#define PT_RDI		112
#define PT_ORIG_RAX	120
#define PT_FLAGS	144
#define PT_RSP		152

	.text
SYM_FUNC_START(gtp_static_entry)
	subq	$FRAME, %rsp
	movq	%rdi, PT_RDI(%rsp)
	movq	%rsi, PT_RSI(%rsp)
	movq	%rdx, PT_RDX(%rsp)
	movq	%rcx, PT_RCX(%rsp)
	movq	%r8, PT_R8(%rsp)
	movq	%r9, PT_R9(%rsp)
	movq	%rax, PT_RAX(%rsp)
	movq	%r10, PT_R10(%rsp)
	movq	%r11, PT_R11(%rsp)
	movq	%rbx, PT_RBX(%rsp)
	movq	%rbp, PT_RBP(%rsp)
	movq	%r12, PT_R12(%rsp)
	movq	%r13, PT_R13(%rsp)
	movq	%r14, PT_R14(%rsp)
	movq	%r15, PT_R15(%rsp)
	movq	$-1, PT_ORIG_RAX(%rsp)		/* not a syscall */
	leaq	FRAME(%rsp), %rax		/* sp as the probe got it */
	movq	%rax, PT_RSP(%rsp)
	pushfq
	popq	%rax
	movq	%rax, PT_FLAGS(%rsp)
	movq	%rsp, %rdi
	call	gtp_static_hit
	movq	PT_RBX(%rsp), %rbx
	movq	PT_RBP(%rsp), %rbp
	movq	PT_R12(%rsp), %r12
	movq	PT_R13(%rsp), %r13
	movq	PT_R14(%rsp), %r14
	movq	PT_R15(%rsp), %r15
	addq	$FRAME, %rsp
	RET
SYM_FUNC_END(gtp_static_entry)
