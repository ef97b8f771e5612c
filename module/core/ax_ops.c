// SPDX-License-Identifier: GPL-2.0
/*
 * ax_ops.c - the opcode table of gdb's gdbsupport/ax.def, as the verifier
 * sees it (operand size and stack effect per opcode).
 *
 * Values are gdb's and fixed.  Holes (0x00, 0x31 "invalid2", 0x35..0xff)
 * have no name and are unknown opcodes.  Operand sizes of const*, reg,
 * getv/setv/tracev, goto/if_goto, trace16 are big-endian in the bytecode;
 * 'printf' has a variable-length operand and is refused anyway, so its
 * entry only records the fixed part (nargs u8 + format length u16).
 */
#include "ax.h"
#include "ax_ops.h"

#define OP(code, nm, opnd, nd, dl, fl)					\
	[code] = { .name = nm, .operand = opnd, .need = nd,		\
		   .delta = dl, .flags = fl }

static const struct ax_op_info ax_ops[256] = {
	OP(AX_FLOAT,		"float",	0, 0,  0, AX_OPF_FLOAT),
	OP(AX_ADD,		"add",		0, 2, -1, 0),
	OP(AX_SUB,		"sub",		0, 2, -1, 0),
	OP(AX_MUL,		"mul",		0, 2, -1, 0),
	OP(AX_DIV_SIGNED,	"div_signed",	0, 2, -1, 0),
	OP(AX_DIV_UNSIGNED,	"div_unsigned",	0, 2, -1, 0),
	OP(AX_REM_SIGNED,	"rem_signed",	0, 2, -1, 0),
	OP(AX_REM_UNSIGNED,	"rem_unsigned",	0, 2, -1, 0),
	OP(AX_LSH,		"lsh",		0, 2, -1, 0),
	OP(AX_RSH_SIGNED,	"rsh_signed",	0, 2, -1, 0),
	OP(AX_RSH_UNSIGNED,	"rsh_unsigned",	0, 2, -1, 0),
	OP(AX_TRACE,		"trace",	0, 2, -2, 0),
	OP(AX_TRACE_QUICK,	"trace_quick",	1, 1,  0, 0),
	OP(AX_LOG_NOT,		"log_not",	0, 1,  0, 0),
	OP(AX_BIT_AND,		"bit_and",	0, 2, -1, 0),
	OP(AX_BIT_OR,		"bit_or",	0, 2, -1, 0),
	OP(AX_BIT_XOR,		"bit_xor",	0, 2, -1, 0),
	OP(AX_BIT_NOT,		"bit_not",	0, 1,  0, 0),
	OP(AX_EQUAL,		"equal",	0, 2, -1, 0),
	OP(AX_LESS_SIGNED,	"less_signed",	0, 2, -1, 0),
	OP(AX_LESS_UNSIGNED,	"less_unsigned", 0, 2, -1, 0),
	OP(AX_EXT,		"ext",		1, 1,  0, 0),
	OP(AX_REF8,		"ref8",		0, 1,  0, 0),
	OP(AX_REF16,		"ref16",	0, 1,  0, 0),
	OP(AX_REF32,		"ref32",	0, 1,  0, 0),
	OP(AX_REF64,		"ref64",	0, 1,  0, 0),
	OP(AX_REF_FLOAT,	"ref_float",	0, 1,  0, AX_OPF_FLOAT),
	OP(AX_REF_DOUBLE,	"ref_double",	0, 1,  0, AX_OPF_FLOAT),
	OP(AX_REF_LONG_DOUBLE,	"ref_long_double", 0, 1, 0, AX_OPF_FLOAT),
	OP(AX_L_TO_D,		"l_to_d",	0, 1,  0, AX_OPF_FLOAT),
	OP(AX_D_TO_L,		"d_to_l",	0, 1,  0, AX_OPF_FLOAT),
	OP(AX_IF_GOTO,		"if_goto",	2, 1, -1, AX_OPF_JUMP),
	OP(AX_GOTO,		"goto",		2, 0,  0, AX_OPF_JUMP | AX_OPF_STOP),
	OP(AX_CONST8,		"const8",	1, 0,  1, 0),
	OP(AX_CONST16,		"const16",	2, 0,  1, 0),
	OP(AX_CONST32,		"const32",	4, 0,  1, 0),
	OP(AX_CONST64,		"const64",	8, 0,  1, 0),
	OP(AX_REG,		"reg",		2, 0,  1, 0),
	OP(AX_END,		"end",		0, 0,  0, AX_OPF_STOP),
	OP(AX_DUP,		"dup",		0, 1,  1, 0),
	OP(AX_POP,		"pop",		0, 1, -1, 0),
	OP(AX_ZERO_EXT,		"zero_ext",	1, 1,  0, 0),
	OP(AX_SWAP,		"swap",		0, 2,  0, 0),
	OP(AX_GETV,		"getv",		2, 0,  1, 0),
	OP(AX_SETV,		"setv",		2, 1,  0, 0),
	OP(AX_TRACEV,		"tracev",	2, 0,  0, 0),
	OP(AX_TRACENZ,		"tracenz",	0, 2, -2, 0),
	OP(AX_TRACE16,		"trace16",	2, 1,  0, 0),
	OP(AX_PICK,		"pick",		1, 1,  1, 0),
	OP(AX_ROT,		"rot",		0, 3,  0, 0),
	OP(AX_PRINTF,		"printf",	3, 2, -2, AX_OPF_PRINTF),
};

const struct ax_op_info *ax_op_info(u8 op)
{
	return &ax_ops[op];
}

const char *ax_op_name(u8 op)
{
	return ax_ops[op].name ? ax_ops[op].name : "?";
}
