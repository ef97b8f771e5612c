/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ax_ops.h - static facts about each agent-expression opcode.
 *
 * One table, indexed by opcode byte, gives what the verifier needs to
 * decode and type-check an instruction without knowing what it computes:
 * its name (gdb's ax.def spelling, for messages and disassembly), how many
 * operand bytes follow it, how many stack items it reads and by how much
 * it changes the stack depth.  The interpreter and the JIT never consult
 * it at run time: after ax_verify() everything they need is in struct
 * ax_insn.
 *
 * Stack effects differ from ax.def in two places, on purpose (see the
 * reference, section 3.2): 'tracev' pushes nothing (gdbserver does not
 * push, and gdb emits "getv N; tracev N; pop"), and 'pick n' reads n + 1
 * items, which the table cannot express (need is 1 there; the verifier
 * adds n).
 */
#ifndef GTP_AX_OPS_H
#define GTP_AX_OPS_H

#include "compat.h"

#define AX_OPF_FLOAT	0x01	/* floating point: never generated, refused */
#define AX_OPF_PRINTF	0x02	/* agent printf (dprintf only): refused */
#define AX_OPF_JUMP	0x04	/* operand is a bytecode offset */
#define AX_OPF_STOP	0x08	/* no fall-through successor (goto, end) */

struct ax_op_info {
	const char *name;	/* NULL: not an opcode */
	u8 operand;		/* operand bytes after the opcode byte */
	u8 need;		/* stack items read (pick: 1 + n) */
	s8 delta;		/* depth after - depth before */
	u8 flags;		/* AX_OPF_* */
};

/* Facts about opcode byte @op; ->name is NULL when @op is not an opcode. */
const struct ax_op_info *ax_op_info(u8 op);

/* gdb's name for @op, or "?" when @op is not an opcode. */
const char *ax_op_name(u8 op);

#endif /* GTP_AX_OPS_H */
