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
	const char *hex;
	bool is_cond;
	const char *msg;
};

static const struct refusal refusals[] = {
	/* whole program */
	{ "empty", "", false, "empty program" },
	{ "no end", "22 01", false, "program does not end with 'end'" },
	{ "if_goto falls off", "22 01 20 00 00", false,
	  "program does not end with 'end'" },

	/* opcodes */
	{ "opcode 0x00", "00", false, "insn at 0: unknown opcode 0x00" },
	{ "invalid2", "22 01 31 27", false, "insn at 2: unknown opcode 0x31" },
	{ "opcode 0x35", "22 01 35 27", false, "insn at 2: unknown opcode 0x35" },
	{ "opcode 0xff", "22 01 ff", false, "insn at 2: unknown opcode 0xff" },
	{ "float", "01 27", false,
	  "insn at 0: float opcodes are not supported (float)" },
	{ "ref_float", "22 01 1b 27", false,
	  "insn at 2: float opcodes are not supported (ref_float)" },
	{ "ref_double", "22 01 1c 27", false,
	  "insn at 2: float opcodes are not supported (ref_double)" },
	{ "ref_long_double", "22 01 1d 27", false,
	  "insn at 2: float opcodes are not supported (ref_long_double)" },
	{ "l_to_d", "22 01 1e 27", false,
	  "insn at 2: float opcodes are not supported (l_to_d)" },
	{ "d_to_l", "22 01 1f 27", false,
	  "insn at 2: float opcodes are not supported (d_to_l)" },
	{ "printf", "22 00 22 00 34 00 00 01 00 27", false,
	  "insn at 4: printf is not supported in tracepoints" },
	{ "first error by offset", "22 01 1b 00", false,
	  "insn at 2: float opcodes are not supported (ref_float)" },

	/* truncated operands */
	{ "trunc const8", "22", false,
	  "insn at 0: truncated operand (const8: 0 of 1 bytes)" },
	{ "trunc const16", "22 01 23 01", false,
	  "insn at 2: truncated operand (const16: 1 of 2 bytes)" },
	{ "trunc const32", "24 00 00 00", false,
	  "insn at 0: truncated operand (const32: 3 of 4 bytes)" },
	{ "trunc const64", "25 00 00 00 00 00 00 00", false,
	  "insn at 0: truncated operand (const64: 7 of 8 bytes)" },
	{ "trunc reg", "26 00", false,
	  "insn at 0: truncated operand (reg: 1 of 2 bytes)" },
	{ "trunc if_goto", "22 01 20 00", false,
	  "insn at 2: truncated operand (if_goto: 1 of 2 bytes)" },
	{ "trunc goto", "21", false,
	  "insn at 0: truncated operand (goto: 0 of 2 bytes)" },
	{ "trunc ext", "22 01 16", false,
	  "insn at 2: truncated operand (ext: 0 of 1 bytes)" },
	{ "trunc zero_ext", "22 01 2a", false,
	  "insn at 2: truncated operand (zero_ext: 0 of 1 bytes)" },
	{ "trunc trace_quick", "22 01 0d", false,
	  "insn at 2: truncated operand (trace_quick: 0 of 1 bytes)" },
	{ "trunc trace16", "22 01 30 00", false,
	  "insn at 2: truncated operand (trace16: 1 of 2 bytes)" },
	{ "trunc pick", "22 01 32", false,
	  "insn at 2: truncated operand (pick: 0 of 1 bytes)" },
	{ "trunc getv", "2c 00", false,
	  "insn at 0: truncated operand (getv: 1 of 2 bytes)" },
	{ "trunc setv", "22 01 2d", false,
	  "insn at 2: truncated operand (setv: 0 of 2 bytes)" },
	{ "trunc tracev", "2e 00", false,
	  "insn at 0: truncated operand (tracev: 1 of 2 bytes)" },

	/* operand ranges */
	{ "reg 18", "26 00 12 27", false,
	  "insn at 0: reg 18 is not available (only 0..17: rax..r15, rip, eflags)" },
	{ "reg 65535", "22 00 26 ff ff 27", false,
	  "insn at 2: reg 65535 is not available (only 0..17: rax..r15, rip, eflags)" },
	{ "ext 0", "22 01 16 00 27", false,
	  "insn at 2: ext 0: bit count must be 1..64" },
	{ "ext 65", "22 01 16 41 27", false,
	  "insn at 2: ext 65: bit count must be 1..64" },
	{ "zero_ext 0", "22 01 2a 00 27", false,
	  "insn at 2: zero_ext 0: bit count must be 1..64" },
	{ "zero_ext 255", "22 01 2a ff 27", false,
	  "insn at 2: zero_ext 255: bit count must be 1..64" },

	/* jumps */
	{ "jump past end", "22 01 20 00 28 27", false,
	  "insn at 2: jump target 40 out of range" },
	{ "jump to len", "21 00 04 27", false,
	  "insn at 0: jump target 4 out of range" },
	{ "jump 0xffff", "21 ff ff 27", false,
	  "insn at 0: jump target 65535 out of range" },
	{ "jump into const8", "22 01 20 00 01 27", false,
	  "insn at 2: jump target 1 is not an instruction boundary" },
	{ "jump into itself", "22 01 20 00 04 27", false,
	  "insn at 2: jump target 4 is not an instruction boundary" },

	/* stack underflow, one per stack-reading op class */
	{ "add at depth 0", "02 27", false,
	  "insn at 0: stack underflow: add needs 2, depth 0" },
	{ "add at depth 1", "22 01 02 27", false,
	  "insn at 2: stack underflow: add needs 2, depth 1" },
	{ "less_unsigned", "22 01 15 27", false,
	  "insn at 2: stack underflow: less_unsigned needs 2, depth 1" },
	{ "pop", "29 27", false,
	  "insn at 0: stack underflow: pop needs 1, depth 0" },
	{ "dup", "28 27", false,
	  "insn at 0: stack underflow: dup needs 1, depth 0" },
	{ "swap", "22 01 2b 27", false,
	  "insn at 2: stack underflow: swap needs 2, depth 1" },
	{ "rot", "22 01 22 02 33 27", false,
	  "insn at 4: stack underflow: rot needs 3, depth 2" },
	{ "trace", "22 01 0c 27", false,
	  "insn at 2: stack underflow: trace needs 2, depth 1" },
	{ "tracenz", "2f 27", false,
	  "insn at 0: stack underflow: tracenz needs 2, depth 0" },
	{ "trace_quick", "0d 04 27", false,
	  "insn at 0: stack underflow: trace_quick needs 1, depth 0" },
	{ "trace16", "30 00 04 27", false,
	  "insn at 0: stack underflow: trace16 needs 1, depth 0" },
	{ "if_goto", "20 00 03 27", false,
	  "insn at 0: stack underflow: if_goto needs 1, depth 0" },
	{ "setv", "2d 00 01 27", false,
	  "insn at 0: stack underflow: setv needs 1, depth 0" },
	{ "ref64", "1a 27", false,
	  "insn at 0: stack underflow: ref64 needs 1, depth 0" },
	{ "ext", "16 08 27", false,
	  "insn at 0: stack underflow: ext needs 1, depth 0" },
	{ "log_not", "0e 27", false,
	  "insn at 0: stack underflow: log_not needs 1, depth 0" },
	{ "underflow after a merge", "22 01 20 00 05 29 27", false,
	  "insn at 5: stack underflow: pop needs 1, depth 0" },
	{ "pick 1 at depth 1", "22 01 32 01 27", false,
	  "insn at 2: pick 1 deeper than the stack (depth 1)" },
	{ "pick 0 at depth 0", "32 00 27", false,
	  "insn at 0: pick 0 deeper than the stack (depth 0)" },

	/* paths disagree on the depth */
	{ "merge depth mismatch", "22 01 20 00 07 22 02 27", false,
	  "insn at 7: stack depth 1 when reached from insn at 5, 0 on another path" },
	{ "growing loop", "22 01 21 00 00", false,
	  "insn at 0: stack depth 1 when reached from insn at 2, 0 on another path" },

	/* reachability */
	{ "code after end", "22 01 27 22 02 27", false,
	  "insn at 3: unreachable instruction" },
	{ "code after goto", "21 00 05 22 01 27 27", false,
	  "insn at 3: unreachable instruction" },

	/* conditions */
	{ "cond bare end", "27", true,
	  "insn at 0: condition ends with an empty stack" },
	{ "cond popped", "22 01 29 27", true,
	  "insn at 3: condition ends with an empty stack" },
	{ "cond one path empty", "22 01 20 00 06 27 22 01 27", true,
	  "insn at 5: condition ends with an empty stack" },
};

static void test_refusal(void **state)
{
	const struct refusal *r = *state;
	u8 code[64];
	char log[256];
	struct ax_prog *prog = (void *)1;
	u32 len = ax_test_hex(r->hex, code, sizeof(code));

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

static struct ax_prog *verify_hex(const char *hex, bool is_cond)
{
	return ax_test_prog(hex, is_cond);
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
	struct ax_prog *prog = verify_hex(
		"22 02 26 00 05 16 20 04 16 20 22 03 26 00 04 16 20 04 16 20 "
		"02 16 20 22 00 2b 14 27", true);
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
	struct ax_prog *prog = verify_hex(
		"26 00 05 16 20 22 03 13 20 00 0e 21 00 22 26 00 04 16 20 22 "
		"02 13 0e 20 00 1d 21 00 22 22 01 21 00 24 22 00 27", true);
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
	struct ax_prog *prog = verify_hex(
		"22 ff 23 80 01 24 80 00 00 02 25 fe dc ba 98 76 54 32 10 "
		"30 ff fe 0d 00 32 03 2c 01 02 2d 00 01 2e ff ff 29 29 29 29 "
		"29 27", false);
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
	struct ax_prog *prog = verify_hex("22 05 22 01 03 28 20 00 02 27",
					  true);

	assert_true(prog->backjump);
	assert_int_equal(prog->insns[4].imm, 1);
	assert_int_equal(prog->insns[1].depth, 1);
	assert_int_equal(prog->insns[5].depth, 1);
	ax_prog_free(prog);

	/* goto to itself: verified (never ends; the budget stops it) */
	prog = verify_hex("21 00 00", false);
	assert_true(prog->backjump);
	assert_int_equal(prog->insns[0].imm, 0);
	ax_prog_free(prog);

	/* forward jumps only */
	prog = verify_hex("22 01 20 00 08 22 02 29 22 03 27", true);
	assert_false(prog->backjump);
	ax_prog_free(prog);
}

/* Every opcode the interpreter runs is accepted in a minimal program. */
static void test_every_supported_opcode(void **state)
{
	static const char * const progs[] = {
		"22 01 22 02 02 27", "22 01 22 02 03 27", "22 01 22 02 04 27",
		"22 01 22 02 05 27", "22 01 22 02 06 27", "22 01 22 02 07 27",
		"22 01 22 02 08 27", "22 01 22 02 09 27", "22 01 22 02 0a 27",
		"22 01 22 02 0b 27", "22 01 22 02 0c 27", "22 01 0d 04 27",
		"22 01 0e 27", "22 01 22 02 0f 27", "22 01 22 02 10 27",
		"22 01 22 02 11 27", "22 01 12 27", "22 01 22 02 13 27",
		"22 01 22 02 14 27", "22 01 22 02 15 27", "22 01 16 08 27",
		"22 01 17 27", "22 01 18 27", "22 01 19 27", "22 01 1a 27",
		"22 01 20 00 05 27", "21 00 03 27", "22 01 27",
		"23 01 02 27", "24 01 02 03 04 27",
		"25 01 02 03 04 05 06 07 08 27", "26 00 10 27", "27",
		"22 01 28 27", "22 01 29 27", "22 01 2a 08 27",
		"22 01 22 02 2b 27", "2c 00 01 27", "22 01 2d 00 01 27",
		"2e 00 01 27", "22 01 22 02 2f 27", "22 01 30 01 00 27",
		"22 01 32 00 27", "22 01 22 02 22 03 33 27",
	};
	bool seen[256] = { false };
	unsigned int i, op;

	for (i = 0; i < ARRAY_SIZE(progs); i++) {
		struct ax_prog *prog = verify_hex(progs[i], false);
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
	static const struct { const char *hex; bool cond; u32 depth; } ref[] = {
		{ "26 0006 22 10 02 22 ec 16 08 02 19 16 20 22 00 14 0e 27",
		  true, 2 },
		{ "26 0006 22 10 02 22 ec 16 08 02 22 04 0c 27", false, 2 },
		{ "26 0006 22 10 02 22 e0 16 08 02 0d 08 1a 22 08 0c 27",
		  false, 2 },
		{ "24 00404060 22 10 0c 27", false, 2 },
		{ "2c 0002 2e 0002 29 27", false, 1 },
		{ "2c 0002 22 01 02 16 40 2d 0002 27", false, 2 },
		{ "26 0006 22 10 02 22 e0 16 08 02 0d 08 1a 23 00c8 2f 27",
		  false, 2 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ref); i++) {
		struct ax_prog *prog = verify_hex(ref[i].hex, ref[i].cond);

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
