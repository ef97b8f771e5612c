// SPDX-License-Identifier: GPL-2.0
/*
 * test_ax_verify.c - the agent-expression verifier: every refusal with its
 * exact message (one cmocka test per case, named after it), the decoded
 * form of accepted programs (offsets, operands, jump indexes, per-insn
 * depths, max depth, backjump), real gdb bytecode, the log contract and
 * the register offset table.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "ax.h"
#include "ax_ops.h"
#include "ax_test.h"

struct refusal {
	const char *name;
	const char *src;
	bool is_cond;
	const char *msg;
};

static const struct refusal refusals[] = {
	/* whole program */
	{ "empty", "", false, "empty program" },
	{ "no end", "const8 1", false, "program does not end with 'end'" },
	{ "if_goto falls off", "const8 1 if_goto 0", false,
	  "program does not end with 'end'" },

	/* opcodes */
	{ "opcode 0x00", "0x00", false, "insn at 0: unknown opcode 0x00" },
	{ "invalid2", "const8 1 0x31 end", false, "insn at 2: unknown opcode 0x31" },
	{ "opcode 0x35", "const8 1 0x35 end", false, "insn at 2: unknown opcode 0x35" },
	{ "opcode 0xff", "const8 1 0xff", false, "insn at 2: unknown opcode 0xff" },
	{ "float", "float end", false,
	  "insn at 0: float opcodes are not supported (float)" },
	{ "ref_float", "const8 1 ref_float end", false,
	  "insn at 2: float opcodes are not supported (ref_float)" },
	{ "ref_double", "const8 1 ref_double end", false,
	  "insn at 2: float opcodes are not supported (ref_double)" },
	{ "ref_long_double", "const8 1 ref_long_double end", false,
	  "insn at 2: float opcodes are not supported (ref_long_double)" },
	{ "l_to_d", "const8 1 l_to_d end", false,
	  "insn at 2: float opcodes are not supported (l_to_d)" },
	{ "d_to_l", "const8 1 d_to_l end", false,
	  "insn at 2: float opcodes are not supported (d_to_l)" },
	{ "printf", "const8 0 const8 0 printf 1 0x00 end", false,
	  "insn at 4: printf is not supported in tracepoints" },
	{ "first error by offset", "const8 1 ref_float 0x00", false,
	  "insn at 2: float opcodes are not supported (ref_float)" },

	/* truncated operands */
	{ "trunc const8", ".const8", false,
	  "insn at 0: truncated operand (const8: 0 of 1 bytes)" },
	{ "trunc const16", "const8 1 .const16 0x01", false,
	  "insn at 2: truncated operand (const16: 1 of 2 bytes)" },
	{ "trunc const32", ".const32 0x00 0x00 0x00", false,
	  "insn at 0: truncated operand (const32: 3 of 4 bytes)" },
	{ "trunc const64", ".const64 0x00 0x00 0x00 0x00 0x00 0x00 0x00", false,
	  "insn at 0: truncated operand (const64: 7 of 8 bytes)" },
	{ "trunc reg", ".reg 0x00", false,
	  "insn at 0: truncated operand (reg: 1 of 2 bytes)" },
	{ "trunc if_goto", "const8 1 .if_goto 0x00", false,
	  "insn at 2: truncated operand (if_goto: 1 of 2 bytes)" },
	{ "trunc goto", ".goto", false,
	  "insn at 0: truncated operand (goto: 0 of 2 bytes)" },
	{ "trunc ext", "const8 1 .ext", false,
	  "insn at 2: truncated operand (ext: 0 of 1 bytes)" },
	{ "trunc zero_ext", "const8 1 .zero_ext", false,
	  "insn at 2: truncated operand (zero_ext: 0 of 1 bytes)" },
	{ "trunc trace_quick", "const8 1 .trace_quick", false,
	  "insn at 2: truncated operand (trace_quick: 0 of 1 bytes)" },
	{ "trunc trace16", "const8 1 .trace16 0x00", false,
	  "insn at 2: truncated operand (trace16: 1 of 2 bytes)" },
	{ "trunc pick", "const8 1 .pick", false,
	  "insn at 2: truncated operand (pick: 0 of 1 bytes)" },
	{ "trunc getv", ".getv 0x00", false,
	  "insn at 0: truncated operand (getv: 1 of 2 bytes)" },
	{ "trunc setv", "const8 1 .setv", false,
	  "insn at 2: truncated operand (setv: 0 of 2 bytes)" },
	{ "trunc tracev", ".tracev 0x00", false,
	  "insn at 0: truncated operand (tracev: 1 of 2 bytes)" },

	/* operand ranges */
	{ "reg 18", "reg 18 end", false,
	  "insn at 0: reg 18 is not available (only 0..17: rax..r15, rip, eflags)" },
	{ "reg 65535", "const8 0 reg 65535 end", false,
	  "insn at 2: reg 65535 is not available (only 0..17: rax..r15, rip, eflags)" },
	{ "ext 0", "const8 1 ext 0 end", false,
	  "insn at 2: ext 0: bit count must be 1..64" },
	{ "ext 65", "const8 1 ext 65 end", false,
	  "insn at 2: ext 65: bit count must be 1..64" },
	{ "zero_ext 0", "const8 1 zero_ext 0 end", false,
	  "insn at 2: zero_ext 0: bit count must be 1..64" },
	{ "zero_ext 255", "const8 1 zero_ext 255 end", false,
	  "insn at 2: zero_ext 255: bit count must be 1..64" },

	/* jumps */
	{ "jump past end", "const8 1 if_goto 40 end", false,
	  "insn at 2: jump target 40 out of range" },
	{ "jump to len", "goto 4 end", false,
	  "insn at 0: jump target 4 out of range" },
	{ "jump 0xffff", "goto 65535 end", false,
	  "insn at 0: jump target 65535 out of range" },
	{ "jump into const8", "const8 1 if_goto 1 end", false,
	  "insn at 2: jump target 1 is not an instruction boundary" },
	{ "jump into itself", "const8 1 if_goto 4 end", false,
	  "insn at 2: jump target 4 is not an instruction boundary" },

	/* stack underflow, one per stack-reading op class */
	{ "add at depth 0", "add end", false,
	  "insn at 0: stack underflow: add needs 2, depth 0" },
	{ "add at depth 1", "const8 1 add end", false,
	  "insn at 2: stack underflow: add needs 2, depth 1" },
	{ "less_unsigned", "const8 1 less_unsigned end", false,
	  "insn at 2: stack underflow: less_unsigned needs 2, depth 1" },
	{ "pop", "pop end", false,
	  "insn at 0: stack underflow: pop needs 1, depth 0" },
	{ "dup", "dup end", false,
	  "insn at 0: stack underflow: dup needs 1, depth 0" },
	{ "swap", "const8 1 swap end", false,
	  "insn at 2: stack underflow: swap needs 2, depth 1" },
	{ "rot", "const8 1 const8 2 rot end", false,
	  "insn at 4: stack underflow: rot needs 3, depth 2" },
	{ "trace", "const8 1 trace end", false,
	  "insn at 2: stack underflow: trace needs 2, depth 1" },
	{ "tracenz", "tracenz end", false,
	  "insn at 0: stack underflow: tracenz needs 2, depth 0" },
	{ "trace_quick", "trace_quick 4 end", false,
	  "insn at 0: stack underflow: trace_quick needs 1, depth 0" },
	{ "trace16", "trace16 4 end", false,
	  "insn at 0: stack underflow: trace16 needs 1, depth 0" },
	{ "if_goto", "if_goto 3 end", false,
	  "insn at 0: stack underflow: if_goto needs 1, depth 0" },
	{ "setv", "setv 1 end", false,
	  "insn at 0: stack underflow: setv needs 1, depth 0" },
	{ "ref64", "ref64 end", false,
	  "insn at 0: stack underflow: ref64 needs 1, depth 0" },
	{ "ext", "ext 8 end", false,
	  "insn at 0: stack underflow: ext needs 1, depth 0" },
	{ "log_not", "log_not end", false,
	  "insn at 0: stack underflow: log_not needs 1, depth 0" },
	{ "underflow after a merge", "const8 1 if_goto 5 pop end", false,
	  "insn at 5: stack underflow: pop needs 1, depth 0" },
	{ "pick 1 at depth 1", "const8 1 pick 1 end", false,
	  "insn at 2: pick 1 deeper than the stack (depth 1)" },
	{ "pick 0 at depth 0", "pick 0 end", false,
	  "insn at 0: pick 0 deeper than the stack (depth 0)" },

	/* paths disagree on the depth */
	{ "merge depth mismatch", "const8 1 if_goto 7 const8 2 end", false,
	  "insn at 7: stack depth 1 when reached from insn at 5, 0 on another path" },
	{ "growing loop", "const8 1 goto 0", false,
	  "insn at 0: stack depth 1 when reached from insn at 2, 0 on another path" },

	/* reachability */
	{ "code after end", "const8 1 end const8 2 end", false,
	  "insn at 3: unreachable instruction" },
	{ "code after goto", "goto 5 const8 1 end end", false,
	  "insn at 3: unreachable instruction" },

	/* conditions */
	{ "cond bare end", "end", true,
	  "insn at 0: condition ends with an empty stack" },
	{ "cond popped", "const8 1 pop end", true,
	  "insn at 3: condition ends with an empty stack" },
	{ "cond one path empty", "const8 1 if_goto 6 end const8 1 end", true,
	  "insn at 5: condition ends with an empty stack" },
};

static void test_refusal(void **state)
{
	const struct refusal *r = *state;
	u8 code[64];
	char log[256];
	struct ax_prog *prog = (void *)1;
	u32 len = ax_test_asm(r->src, code, sizeof(code));

	memset(log, 'x', sizeof(log));
	assert_int_equal(ax_verify(code, len, r->is_cond, &prog, log,
				   sizeof(log)), -EINVAL);
	assert_null(prog);
	assert_string_equal(log, r->msg);
}

/* A refused program must be refused for its own reason, not any reason. */
static void test_refusals_are_specific(void **state)
{
	u8 code[8] = { AX_CONST8, 1, AX_END };
	struct ax_prog *prog;
	char log[64];

	/* the accepted twin of "cond popped" */
	assert_int_equal(ax_verify(code, 3, true, &prog, log, sizeof(log)), 0);
	assert_string_equal(log, "");
	ax_prog_free(prog);
	/* "cond bare end" is fine for an action */
	assert_int_equal(ax_verify(code + 2, 1, false, &prog, log,
				   sizeof(log)), 0);
	assert_int_equal(prog->max_depth, 0);
	ax_prog_free(prog);
}

static void expect_refused(const u8 *code, u32 len, const char *msg)
{
	struct ax_prog *prog;
	char log[256];

	assert_int_equal(ax_verify(code, len, false, &prog, log, sizeof(log)),
			 -EINVAL);
	assert_string_equal(log, msg);
}

static void test_too_long(void **state)
{
	u8 code[AX_MAX_CODE + 1];
	struct ax_prog *prog;
	char log[128];
	u32 i;

	/* 1023 bytes of dup-pop pairs after a push, then end: exactly 1024 */
	code[0] = AX_CONST8;
	code[1] = 7;
	for (i = 2; i < AX_MAX_CODE - 1; i++)
		code[i] = (i & 1) ? AX_POP : AX_DUP;
	code[AX_MAX_CODE - 1] = AX_END;
	assert_int_equal(ax_verify(code, AX_MAX_CODE, true, &prog, log,
				   sizeof(log)), 0);
	assert_int_equal(prog->ninsns, 1 + (AX_MAX_CODE - 3) + 1);
	ax_prog_free(prog);

	code[AX_MAX_CODE] = AX_END;
	expect_refused(code, AX_MAX_CODE + 1,
		       "program too long: 1025 bytes, at most 1024");
}

static void test_stack_overflow(void **state)
{
	u8 code[2 * 65 + 1];
	struct ax_prog *prog;
	char log[128];
	int i;

	for (i = 0; i < 65; i++) {
		code[2 * i] = AX_CONST8;
		code[2 * i + 1] = i;
	}
	code[2 * 65] = AX_END;
	expect_refused(code, sizeof(code),
		       "insn at 128: stack depth 65 exceeds 64");

	/* 64 is the limit, and it is reachable */
	code[2 * 64] = AX_END;
	assert_int_equal(ax_verify(code, 2 * 64 + 1, true, &prog, log,
				   sizeof(log)), 0);
	assert_int_equal(prog->max_depth, 64);
	assert_int_equal(prog->insns[64].depth, 64);
	ax_prog_free(prog);

	/* dup is a push too */
	code[0] = AX_CONST8;
	memset(code + 2, AX_DUP, 64);
	code[66] = AX_END;
	expect_refused(code, 67, "insn at 65: stack depth 65 exceeds 64");
}

/* 'reg' through every number; only 0..17 pass. */
static void test_reg_range(void **state)
{
	u8 code[] = { AX_REG, 0, 0, AX_END };
	struct ax_prog *prog;
	char log[128], want[128];
	unsigned int r;

	for (r = 0; r < 40; r++) {
		code[2] = r;
		if (r < AX_NR_GDB_REGS) {
			assert_int_equal(ax_verify(code, 4, true, &prog, log,
						   sizeof(log)), 0);
			assert_int_equal(prog->insns[0].imm, r);
			ax_prog_free(prog);
			continue;
		}
		snprintf(want, sizeof(want),
			 "insn at 0: reg %u is not available (only 0..17: rax..r15, rip, eflags)",
			 r);
		expect_refused(code, 4, want);
	}
}

/* ext/zero_ext accept exactly 1..64 bits. */
static void test_ext_range(void **state)
{
	static const u8 ops[] = { AX_EXT, AX_ZERO_EXT };
	u8 code[] = { AX_CONST8, 1, AX_EXT, 0, AX_END };
	struct ax_prog *prog;
	char log[128];
	unsigned int n, i;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		code[2] = ops[i];
		for (n = 0; n < 256; n++) {
			int ret;

			code[3] = n;
			ret = ax_verify(code, 5, true, &prog, log, sizeof(log));
			if (n >= 1 && n <= 64) {
				assert_int_equal(ret, 0);
				assert_int_equal(prog->insns[1].imm, n);
				ax_prog_free(prog);
			} else {
				assert_int_equal(ret, -EINVAL);
			}
		}
	}
}

static struct ax_prog *verify_src(const char *src, bool is_cond)
{
	return ax_test_prog(src, is_cond);
}

/* The paper's Table 3 condition as gdb 13 emits it: full decode. */
static void test_decode_table3(void **state)
{
	static const struct { u8 op; u32 off; u64 imm; u16 depth; } want[] = {
		{ AX_CONST8, 0, 2, 0 }, { AX_REG, 2, 5, 1 },
		{ AX_EXT, 5, 32, 2 }, { AX_MUL, 7, 0, 2 },
		{ AX_EXT, 8, 32, 1 }, { AX_CONST8, 10, 3, 1 },
		{ AX_REG, 12, 4, 2 }, { AX_EXT, 15, 32, 3 },
		{ AX_MUL, 17, 0, 3 }, { AX_EXT, 18, 32, 2 },
		{ AX_ADD, 20, 0, 2 }, { AX_EXT, 21, 32, 1 },
		{ AX_CONST8, 23, 0, 1 }, { AX_SWAP, 25, 0, 2 },
		{ AX_LESS_SIGNED, 26, 0, 2 }, { AX_END, 27, 0, 1 },
	};
	struct ax_prog *prog = verify_src(
		"const8 2 reg 5 ext 32 mul ext 32 const8 3 reg 4 ext 32 mul"
		" ext 32 add ext 32 const8 0 swap less_signed end", true);
	u32 i;

	assert_int_equal(prog->ninsns, ARRAY_SIZE(want));
	assert_int_equal(prog->code_len, 28);
	assert_int_equal(prog->code[27], AX_END);
	assert_int_equal(prog->max_depth, 3);
	assert_false(prog->backjump);
	assert_true(prog->is_cond);
	assert_null(prog->jit);
	for (i = 0; i < prog->ninsns; i++) {
		const struct ax_insn *insn = &prog->insns[i];

		assert_int_equal(insn->op, want[i].op);
		assert_int_equal(insn->off, want[i].off);
		assert_int_equal(insn->imm, want[i].imm);
		assert_int_equal(insn->depth, want[i].depth);
		assert_int_equal(insn->len, i + 1 < prog->ninsns ?
				 want[i + 1].off - want[i].off : 1);
	}
	ax_prog_free(prog);
}

/* gdb 13: "counter1 == 3 && counter2 != 2" - jumps become insn indexes. */
static void test_decode_jumps(void **state)
{
	struct ax_prog *prog = verify_src(
		"reg 5 ext 32 const8 3 equal if_goto 14 goto 34 reg 4 ext 32"
		" const8 2 equal log_not if_goto 29 goto 34 const8 1 goto 36"
		" const8 0 end", true);
	const struct ax_insn *in = prog->insns;

	assert_int_equal(prog->ninsns, 17);
	assert_int_equal(in[4].op, AX_IF_GOTO);
	assert_int_equal(in[4].imm, 6);		/* offset 14 */
	assert_int_equal(in[6].off, 14);
	assert_int_equal(in[5].imm, 15);	/* offset 34 */
	assert_int_equal(in[11].imm, 13);	/* offset 29 */
	assert_int_equal(in[12].imm, 15);
	assert_int_equal(in[14].imm, 16);	/* offset 36 */
	assert_int_equal(in[15].off, 34);
	assert_int_equal(in[16].off, 36);
	/* both arms meet at 'end' with one value */
	assert_int_equal(in[16].depth, 1);
	assert_int_equal(in[15].depth, 0);
	assert_int_equal(in[13].depth, 0);
	assert_false(prog->backjump);
	assert_int_equal(prog->max_depth, 2);
	ax_prog_free(prog);
}

static void test_decode_operands(void **state)
{
	struct ax_prog *prog = verify_src(
		"const8 0xff const16 0x8001 const32 0x80000002"
		" const64 0xfedcba9876543210 trace16 65534 trace_quick 0 pick 3"
		" getv 258 setv 1 tracev 65535 pop pop pop pop pop end", false);
	const struct ax_insn *in = prog->insns;

	assert_int_equal(in[0].imm, 0xff);	/* no sign extension */
	assert_int_equal(in[1].imm, 0x8001);
	assert_int_equal(in[2].imm, 0x80000002ULL);
	assert_int_equal(in[3].imm, 0xfedcba9876543210ULL);
	assert_int_equal(in[3].len, 9);
	assert_int_equal(in[4].op, AX_TRACE16);
	assert_int_equal(in[4].imm, 0xfffe);
	assert_int_equal(in[5].op, AX_TRACE_QUICK);
	assert_int_equal(in[5].imm, 0);		/* size 0 is accepted */
	assert_int_equal(in[6].op, AX_PICK);
	assert_int_equal(in[6].imm, 3);
	assert_int_equal(in[6].depth, 4);
	assert_int_equal(in[7].imm, 0x102);	/* getv */
	assert_int_equal(in[8].imm, 1);		/* setv */
	assert_int_equal(in[9].imm, 0xffff);	/* tracev: no push */
	assert_int_equal(in[9].depth, 6);
	assert_int_equal(in[10].depth, 6);
	assert_int_equal(prog->max_depth, 6);
	ax_prog_free(prog);
}

/* A loop: backjump set, the loop is stack-neutral. */
static void test_decode_backjump(void **state)
{
	/* const8 5; L: const8 1; sub; dup; if_goto L; end */
	struct ax_prog *prog = verify_src("const8 5 const8 1 sub dup if_goto 2 end",
					  true);

	assert_true(prog->backjump);
	assert_int_equal(prog->insns[4].imm, 1);
	assert_int_equal(prog->insns[1].depth, 1);
	assert_int_equal(prog->insns[5].depth, 1);
	ax_prog_free(prog);

	/* goto to itself: verified (never ends; the budget stops it) */
	prog = verify_src("goto 0", false);
	assert_true(prog->backjump);
	assert_int_equal(prog->insns[0].imm, 0);
	ax_prog_free(prog);

	/* forward jumps only */
	prog = verify_src("const8 1 if_goto 8 const8 2 pop const8 3 end", true);
	assert_false(prog->backjump);
	ax_prog_free(prog);
}

/* Every opcode the interpreter runs is accepted in a minimal program. */
static void test_every_supported_opcode(void **state)
{
	static const char * const progs[] = {
		"const8 1 const8 2 add end", "const8 1 const8 2 sub end",
		"const8 1 const8 2 mul end", "const8 1 const8 2 div_signed end",
		"const8 1 const8 2 div_unsigned end",
		"const8 1 const8 2 rem_signed end",
		"const8 1 const8 2 rem_unsigned end",
		"const8 1 const8 2 lsh end", "const8 1 const8 2 rsh_signed end",
		"const8 1 const8 2 rsh_unsigned end",
		"const8 1 const8 2 trace end", "const8 1 trace_quick 4 end",
		"const8 1 log_not end", "const8 1 const8 2 bit_and end",
		"const8 1 const8 2 bit_or end", "const8 1 const8 2 bit_xor end",
		"const8 1 bit_not end", "const8 1 const8 2 equal end",
		"const8 1 const8 2 less_signed end",
		"const8 1 const8 2 less_unsigned end", "const8 1 ext 8 end",
		"const8 1 ref8 end", "const8 1 ref16 end", "const8 1 ref32 end",
		"const8 1 ref64 end", "const8 1 if_goto 5 end", "goto 3 end",
		"const8 1 end", "const16 0x102 end", "const32 0x1020304 end",
		"const64 0x102030405060708 end", "reg 16 end", "end",
		"const8 1 dup end", "const8 1 pop end",
		"const8 1 zero_ext 8 end", "const8 1 const8 2 swap end",
		"getv 1 end", "const8 1 setv 1 end", "tracev 1 end",
		"const8 1 const8 2 tracenz end", "const8 1 trace16 256 end",
		"const8 1 pick 0 end", "const8 1 const8 2 const8 3 rot end",
	};
	bool seen[256] = { false };
	unsigned int i, op;

	for (i = 0; i < ARRAY_SIZE(progs); i++) {
		struct ax_prog *prog = verify_src(progs[i], false);
		u32 j;

		for (j = 0; j < prog->ninsns; j++)
			seen[prog->insns[j].op] = true;
		ax_prog_free(prog);
	}
	/* ... and that list really covers every non-float, non-printf op */
	for (op = 0; op < 256; op++) {
		const struct ax_op_info *info = ax_op_info(op);
		bool supported = info->name &&
			!(info->flags & (AX_OPF_FLOAT | AX_OPF_PRINTF));

		assert_int_equal(seen[op], supported);
	}
}

/* The decoded examples of the reference, section 3.4 (gdb 13.1). */
static void test_reference_bytecodes(void **state)
{
	static const struct { const char *src; bool cond; u32 depth; } ref[] = {
		{ "reg 6 const8 16 add const8 0xec ext 8 add ref32 ext 32"
		  " const8 0 less_signed log_not end",
		  true, 2 },
		{ "reg 6 const8 16 add const8 0xec ext 8 add const8 4 trace end", false, 2 },
		{ "reg 6 const8 16 add const8 0xe0 ext 8 add trace_quick 8"
		  " ref64 const8 8 trace end",
		  false, 2 },
		{ "const32 0x404060 const8 16 trace end", false, 2 },
		{ "getv 2 tracev 2 pop end", false, 1 },
		{ "getv 2 const8 1 add ext 64 setv 2 end", false, 2 },
		{ "reg 6 const8 16 add const8 0xe0 ext 8 add trace_quick 8"
		  " ref64 const16 0xc8 tracenz end",
		  false, 2 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ref); i++) {
		struct ax_prog *prog = verify_src(ref[i].src, ref[i].cond);

		assert_int_equal(prog->max_depth, ref[i].depth);
		assert_false(prog->backjump);
		ax_prog_free(prog);
	}
}

static void test_log_contract(void **state)
{
	u8 code[] = { AX_CONST8, 1, 0x1b, AX_END };
	struct ax_prog *prog;
	char log[10];

	/* no log at all */
	assert_int_equal(ax_verify(code, 4, false, &prog, NULL, 100), -EINVAL);
	assert_null(prog);
	/* truncated, always terminated */
	memset(log, 'x', sizeof(log));
	assert_int_equal(ax_verify(code, 4, false, &prog, log, sizeof(log)),
			 -EINVAL);
	assert_string_equal(log, "insn at 2");
	/* cleared on success */
	memset(log, 'x', sizeof(log));
	code[2] = AX_END;
	assert_int_equal(ax_verify(code, 3, false, &prog, log, sizeof(log)), 0);
	assert_string_equal(log, "");
	ax_prog_free(prog);
	ax_prog_free(NULL);
}

/* The caller's bytes may go away: the program keeps its own copy. */
static void test_code_is_copied(void **state)
{
	u8 code[] = { AX_CONST8, 9, AX_END };
	struct ax_prog *prog;

	assert_int_equal(ax_verify(code, 3, true, &prog, NULL, 0), 0);
	memset(code, 0, sizeof(code));
	assert_ptr_not_equal(prog->code, code);
	assert_int_equal(prog->code[1], 9);
	assert_int_equal(prog->insns[0].imm, 9);
	ax_prog_free(prog);
}

static void test_reg_offsets(void **state)
{
	static const size_t want[AX_NR_GDB_REGS] = {
		offsetof(struct pt_regs, ax), offsetof(struct pt_regs, bx),
		offsetof(struct pt_regs, cx), offsetof(struct pt_regs, dx),
		offsetof(struct pt_regs, si), offsetof(struct pt_regs, di),
		offsetof(struct pt_regs, bp), offsetof(struct pt_regs, sp),
		offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
		offsetof(struct pt_regs, r10), offsetof(struct pt_regs, r11),
		offsetof(struct pt_regs, r12), offsetof(struct pt_regs, r13),
		offsetof(struct pt_regs, r14), offsetof(struct pt_regs, r15),
		offsetof(struct pt_regs, ip), offsetof(struct pt_regs, flags),
	};
	unsigned int r;

	for (r = 0; r < AX_NR_GDB_REGS; r++)
		assert_int_equal(ax_reg_offset(r), want[r]);
	assert_int_equal(ax_reg_offset(18), -1);
	assert_int_equal(ax_reg_offset(~0U), -1);
}

static void test_op_names(void **state)
{
	assert_string_equal(ax_op_name(AX_LESS_SIGNED), "less_signed");
	assert_string_equal(ax_op_name(AX_TRACE16), "trace16");
	assert_string_equal(ax_op_name(AX_INVALID2), "?");
	assert_string_equal(ax_op_name(0), "?");
	assert_string_equal(ax_op_name(0x35), "?");
	assert_int_equal(ax_op_info(AX_CONST64)->operand, 8);
	assert_int_equal(ax_op_info(AX_TRACEV)->delta, 0);
}

/*
 * The facts every consumer reads (struct ax_facts): registers read,
 * memory, frame, variables, printf, jumps, and whether the program is
 * plain (can fail in nothing, changes nothing but its result).
 */
static void test_facts(void **state)
{
	static const struct {
		const char *src;
		u64 regs;
		bool mem, rec, get, set, prints, jumps, plain;
	} t[] = {
		{ "reg 5 const8 2 mul reg 4 const8 3 mul add const8 0 less_signed end",
		  0x30, false, false, false, false, false, false, true },
		{ "reg 5 if_goto 9 const8 0 end reg 16 end",
		  0x10020, false, false, false, false, false, true, true },
		{ "const8 1 if_goto 0 const8 0 end", 0, false, false, false, false, false, true,
		  false },	/* a loop */
		{ "const16 0x1000 ref32 end", 0, true, false, false, false,
		  false, false, false },
		{ "reg 4 reg 5 div_signed end", 0x30, false, false, false, false,
		  false, false, false },
		{ "const8 1 trace_quick 8 end", 0, false, true, false, false,
		  false, false, false },
		{ "tracev 3 end", 0, false, true, true, false, false, false,
		  false },
		{ "getv 2 const8 1 add setv 2 end", 0, false, false, true,
		  true, false, false, false },
		{ "reg 17 end", 0x20000, false, false, false, false, false,
		  false, true },
	};
	size_t k;

	for (k = 0; k < ARRAY_SIZE(t); k++) {
		struct ax_prog *p = ax_test_prog(t[k].src, false);
		const struct ax_facts *f = &p->facts;

		if (f->regs != t[k].regs || f->reads_mem != t[k].mem ||
		    f->records != t[k].rec || f->gets_tsv != t[k].get ||
		    f->sets_tsv != t[k].set || f->prints != t[k].prints ||
		    f->jumps != t[k].jumps || f->plain != t[k].plain)
			fail_msg("'%s': regs %#llx mem %d rec %d get %d set %d printf %d jumps %d plain %d",
				 t[k].src, (unsigned long long)f->regs,
				 f->reads_mem, f->records, f->gets_tsv,
				 f->sets_tsv, f->prints, f->jumps, f->plain);
		ax_prog_free(p);
	}
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_refusals_are_specific),
		cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_stack_overflow),
		cmocka_unit_test(test_reg_range),
		cmocka_unit_test(test_ext_range),
		cmocka_unit_test(test_decode_table3),
		cmocka_unit_test(test_decode_jumps),
		cmocka_unit_test(test_decode_operands),
		cmocka_unit_test(test_decode_backjump),
		cmocka_unit_test(test_every_supported_opcode),
		cmocka_unit_test(test_reference_bytecodes),
		cmocka_unit_test(test_log_contract),
		cmocka_unit_test(test_code_is_copied),
		cmocka_unit_test(test_reg_offsets),
		cmocka_unit_test(test_op_names),
		cmocka_unit_test(test_facts),
	};
	size_t nref = ARRAY_SIZE(refusals), n = nref + ARRAY_SIZE(fixed);
	struct CMUnitTest *tests = calloc(n, sizeof(*tests));
	size_t i;
	int ret;

	assert_non_null(tests);
	/* one named test per refusal, so a failure says which */
	for (i = 0; i < nref; i++) {
		tests[i].name = refusals[i].name;
		tests[i].test_func = test_refusal;
		tests[i].initial_state = (void *)&refusals[i];
	}
	memcpy(tests + nref, fixed, sizeof(fixed));
	ret = _cmocka_run_group_tests("ax_verify", tests, n, NULL, NULL);
	free(tests);
	return ret;
}
