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
 * caller assumes the others clobbered.  The block is written through %rdi
 * (the C argument) rather than %rsp: objtool treats callee-saved registers
 * stored relative to %rsp as spills that must be reloaded before the
 * return, six loads per hit for nothing.  Offsets are checked against
 * struct pt_regs by BUILD_BUG_ON in static_probe.c.
 */
#include <linux/linkage.h>
#include <asm/ibt.h>

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
/* The plain entry: save every register, call gtp_static_hit(). */
SYM_FUNC_START(gtp_static_entry)
	ENDBR					/* called through a pointer */
	subq	$FRAME, %rsp
	movq	%rdi, PT_RDI(%rsp)
	movq	%rsp, %rdi			/* &sr, also the C argument */
	movq	%rsi, PT_RSI(%rdi)
	movq	%rdx, PT_RDX(%rdi)
	movq	%rcx, PT_RCX(%rdi)
	movq	%r8, PT_R8(%rdi)
	movq	%r9, PT_R9(%rdi)
	movq	%rax, PT_RAX(%rdi)
	movq	%r10, PT_R10(%rdi)
	movq	%r11, PT_R11(%rdi)
	movq	%rbx, PT_RBX(%rdi)
	movq	%rbp, PT_RBP(%rdi)
	movq	%r12, PT_R12(%rdi)
	movq	%r13, PT_R13(%rdi)
	movq	%r14, PT_R14(%rdi)
	movq	%r15, PT_R15(%rdi)
	movq	$-1, PT_ORIG_RAX(%rdi)		/* not a syscall */
	leaq	FRAME(%rdi), %rax		/* sp as the probe got it */
	movq	%rax, PT_RSP(%rdi)
	pushfq
	popq	PT_FLAGS(%rdi)
	call	gtp_static_hit
	addq	$FRAME, %rsp
	RET
SYM_FUNC_END(gtp_static_entry)

/*
 * The caller-saved registers (the arguments and rax, r10, r11) into the
 * block at %rsp; %rdi = the block, also the C argument.
 */
.macro SAVE_CALLER_SAVED
	movq	%rdi, PT_RDI(%rsp)
	movq	%rsp, %rdi
	movq	%rsi, PT_RSI(%rdi)
	movq	%rdx, PT_RDX(%rdi)
	movq	%rcx, PT_RCX(%rdi)
	movq	%r8, PT_R8(%rdi)
	movq	%r9, PT_R9(%rdi)
	movq	%rax, PT_RAX(%rdi)
	movq	%r10, PT_R10(%rdi)
	movq	%r11, PT_R11(%rdi)
.endm

/*
 * The rest of the block, then the hit.  The callee-saved registers are
 * still the caller's after a C call (C ABI), so the block is the same as
 * gtp_static_entry's.
 */
.macro SAVE_REST_AND_HIT frame
	movq	%rsp, %rdi
	movq	%rbx, PT_RBX(%rdi)
	movq	%rbp, PT_RBP(%rdi)
	movq	%r12, PT_R12(%rdi)
	movq	%r13, PT_R13(%rdi)
	movq	%r14, PT_R14(%rdi)
	movq	%r15, PT_R15(%rdi)
	movq	$-1, PT_ORIG_RAX(%rdi)
	leaq	\frame(%rdi), %rax
	movq	%rax, PT_RSP(%rdi)
	pushfq
	popq	PT_FLAGS(%rdi)
	call	gtp_static_hit
.endm

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
	SAVE_CALLER_SAVED
	call	gtp_static_cond_false
	testb	%al, %al
	jnz	1f
	SAVE_REST_AND_HIT FRAME_FAST
1:	addq	$FRAME_FAST, %rsp
	RET
SYM_FUNC_END(gtp_static_entry_fast)

/*
 * Where a condition compiled as the probe itself (ax_jit_probe_compile())
 * jumps when it holds, with every register as the tracepoint passed them
 * but rax, r10 and r11, which it computed in: the same frame as
 * gtp_static_entry_fast's, its environment set as if that entry had
 * decided the condition (gtp_static_held_env()).  A tail call: we return
 * to the tracepoint.  ENDBR: the JIT reaches us through a register when
 * we are out of rel32 range.
 */
SYM_FUNC_START(gtp_static_entry_held)
	ENDBR
	subq	$FRAME_FAST, %rsp
	SAVE_CALLER_SAVED
	call	gtp_static_held_env
	SAVE_REST_AND_HIT FRAME_FAST
	addq	$FRAME_FAST, %rsp
	RET
SYM_FUNC_END(gtp_static_entry_held)
