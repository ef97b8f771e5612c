// SPDX-License-Identifier: GPL-2.0
/*
 * test_jit_ops.c - every opcode through the JIT, in each operand form the
 * code generator distinguishes (slots in registers, slots in the frame,
 * immediates, pt_regs operands, constants folded at compile time), with
 * the expected value computed here in C from ax.h's semantics.  Each run
 * is also made by the interpreter, and the two must agree on the value,
 * env->err, env->err_pc, env->steps and everything the hooks recorded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "jit.h"
#include "ax_test.h"
#include "user_disasm.h"
#include "user_host.h"

/* a stand-in for the kernel's __x86_return_thunk */
__asm__(".text\n.globl test_ret_thunk\ntest_ret_thunk:\n\tret\n");
void test_ret_thunk(void);

#define MEM_ADDR	0x1000ULL
static u8 mem[16] = {
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
	0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00,
};

static struct pt_regs regs;
static bool no_regs;
static int trace_limit = -1;

struct outcome {
	u64 val;
	u32 err;
	u64 err_pc;
	u32 steps;
	unsigned int ntraces, ntracevs;
	struct user_env_trace trace0;
	struct user_env_tracev tracev0;
	s64 tsv1;
};

static int setup(void **state)
{
	memset(&regs, 0, sizeof(regs));
	no_regs = false;
	trace_limit = -1;
	return 0;
}

static struct outcome run_engine(struct ax_prog *prog, bool jit)
{
	u64 (*fn)(struct ax_env *) = prog->jit;
	struct ax_env env = { .regs = no_regs ? NULL : &regs };
	struct outcome o;

	memset(&o, 0, sizeof(o));
	user_env_reset();
	user_env_add_region(MEM_ADDR, mem, sizeof(mem));
	user_env_set_tsv(1, 41);
	if (trace_limit >= 0)
		user_env_set_trace_limit(trace_limit);
	if (!jit)
		prog->jit = NULL;
	o.val = ax_run(prog, &env);
	prog->jit = fn;
	o.err = env.err;
	o.err_pc = env.err_pc;
	o.steps = env.steps;
	o.ntraces = user_env_nr_traces();
	o.ntracevs = user_env_nr_tracevs();
	if (o.ntraces)
		o.trace0 = *user_env_trace(0);
	if (o.ntracevs)
		o.tracev0 = *user_env_tracev(0);
	o.tsv1 = user_env_tsv(1);
	return o;
}

/* Compile @hex, run it both ways, insist they agree, return the JIT's. */
static struct outcome run_code(const u8 *code, u32 len)
{
	struct ax_prog *prog = NULL;
	struct outcome oi, oj;
	char log[256];

	if (ax_verify(code, len, false, &prog, log, sizeof(log)))
		fail_msg("refused: %s", log);
	if (ax_jit_compile(prog, log, sizeof(log)))
		fail_msg("jit refused: %s", log);
	assert_non_null(prog->jit);
	oi = run_engine(prog, false);
	oj = run_engine(prog, true);
	ax_jit_free(prog);
	ax_prog_free(prog);

	assert_int_equal(oj.err, oi.err);
	assert_int_equal(oj.err_pc, oi.err_pc);
	assert_int_equal(oj.val, oi.val);
	assert_int_equal(oj.steps, oi.steps);
	assert_int_equal(oj.ntraces, oi.ntraces);
	assert_int_equal(oj.ntracevs, oi.ntracevs);
	assert_int_equal(oj.trace0.addr, oi.trace0.addr);
	assert_int_equal(oj.trace0.size, oi.trace0.size);
	assert_int_equal(oj.trace0.len, oi.trace0.len);
	assert_int_equal(oj.tracev0.val, oi.tracev0.val);
	assert_int_equal(oj.tsv1, oi.tsv1);
	return oj;
}

static struct outcome run(const char *hex)
{
	u8 code[AX_MAX_CODE];
	u32 len = ax_test_hex(hex, code, sizeof(code));

	return run_code(code, len);
}

#define assert_val(o, want) do {			\
	struct outcome __o = (o);			\
	assert_int_equal(__o.err, AX_ERR_NONE);		\
	assert_int_equal(__o.val, (u64)(want));		\
} while (0)

#define assert_fail(o, e, pc) do {			\
	struct outcome __o = (o);			\
	assert_int_equal(__o.err, (e));			\
	assert_int_equal(__o.err_pc, (pc));		\
	assert_int_equal(__o.val, 0);			\
} while (0)

/* ---- binary operators: expected values straight from ax.h ---- */

static const u64 vals[] = {
	0, 1, 2, 3, 5, 7, 31, 32, 63, 64, 65, 100, 0x7fffffff, 0x80000000,
	0xffffffff, 0x100000000ULL, 0x7fffffffffffffffULL,
	0x8000000000000000ULL, -1ULL, -2ULL, -7ULL, -100ULL,
};

static const u8 binops[] = {
	AX_ADD, AX_SUB, AX_MUL, AX_DIV_SIGNED, AX_DIV_UNSIGNED,
	AX_REM_SIGNED, AX_REM_UNSIGNED, AX_LSH, AX_RSH_SIGNED,
	AX_RSH_UNSIGNED, AX_BIT_AND, AX_BIT_OR, AX_BIT_XOR, AX_EQUAL,
	AX_LESS_SIGNED, AX_LESS_UNSIGNED,
};

/* false: division by zero */
static bool expect(u8 op, u64 a, u64 b, u64 *r)
{
	s64 sa = a, sb = b;

	switch (op) {
	case AX_ADD: *r = a + b; break;
	case AX_SUB: *r = a - b; break;
	case AX_MUL: *r = a * b; break;
	case AX_DIV_SIGNED:
		if (!b)
			return false;
		*r = sb == -1 ? -a : (u64)(sa / sb);
		break;
	case AX_REM_SIGNED:
		if (!b)
			return false;
		*r = sb == -1 ? 0 : (u64)(sa % sb);
		break;
	case AX_DIV_UNSIGNED:
		if (!b)
			return false;
		*r = a / b;
		break;
	case AX_REM_UNSIGNED:
		if (!b)
			return false;
		*r = a % b;
		break;
	case AX_LSH: *r = a << (b % 64); break;
	case AX_RSH_SIGNED: *r = (u64)(sa >> (b % 64)); break;
	case AX_RSH_UNSIGNED: *r = a >> (b % 64); break;
	case AX_BIT_AND: *r = a & b; break;
	case AX_BIT_OR: *r = a | b; break;
	case AX_BIT_XOR: *r = a ^ b; break;
	case AX_EQUAL: *r = a == b; break;
	case AX_LESS_SIGNED: *r = sa < sb; break;
	default: *r = a < b; break;
	}
	return true;
}

static u32 put_be(u8 *p, u64 v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = v >> (8 * (n - 1 - i));
	return n;
}

/*
 * The forms: 'r' = reg N (a run-time value in a slot), 'c' = const64 (an
 * immediate or a folded constant); @pad constants first push the operands
 * into frame slots.
 */
static void check_binop(u8 op, u64 a, u64 b, char fa, char fb, int pad)
{
	u8 code[64];
	u32 len = 0, opc;
	u64 want;
	struct outcome o;
	int i;

	for (i = 0; i < pad; i++) {
		code[len++] = AX_CONST8;
		code[len++] = i;
	}
	regs.ax = a;
	regs.bx = b;
	if (fa == 'r') {
		code[len++] = AX_REG;
		len += put_be(code + len, 0, 2);
	} else {
		code[len++] = AX_CONST64;
		len += put_be(code + len, a, 8);
	}
	if (fb == 'r') {
		code[len++] = AX_REG;
		len += put_be(code + len, 1, 2);
	} else {
		code[len++] = AX_CONST64;
		len += put_be(code + len, b, 8);
	}
	opc = len;
	code[len++] = op;
	code[len++] = AX_END;
	o = run_code(code, len);
	if (expect(op, a, b, &want)) {
		if (o.err || o.val != want)
			fail_msg("op %#x a=%#llx b=%#llx form %c%c pad %d: "
				 "got %#llx err %u, want %#llx", op,
				 (unsigned long long)a, (unsigned long long)b,
				 fa, fb, pad, (unsigned long long)o.val, o.err,
				 (unsigned long long)want);
	} else {
		assert_fail(o, AX_ERR_DIV0, opc);
	}
}

static void test_binops(void **state)
{
	static const char forms[][2] = { "rr", "rc", "cr", "cc" };
	unsigned int o, i, j, f;
	static const int pads[] = { 0, 4, 5, 7 };
	unsigned int p;

	for (o = 0; o < ARRAY_SIZE(binops); o++)
		for (i = 0; i < ARRAY_SIZE(vals); i++)
			for (j = 0; j < ARRAY_SIZE(vals); j++)
				for (f = 0; f < 4; f++)
					for (p = 0; p < 4; p++) {
						/* the full cross product is
						 * slow; thin out padding */
						if (p && (i + j + f) % 3)
							continue;
						check_binop(binops[o], vals[i],
							    vals[j],
							    forms[f][0],
							    forms[f][1],
							    pads[p]);
					}
}

static void test_binop_pt_regs_operand(void **state)
{
	/* reg 5 OP reg 4: the right operand straight from pt_regs */
	static const char *ops[] = { "02", "03", "04", "0f", "10", "11",
				     "13", "14", "15" };
	char hex[64];
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(ops); i++)
		for (j = 0; j < ARRAY_SIZE(vals); j++) {
			u64 want;

			regs.di = vals[j];
			regs.si = vals[(j * 7 + 3) % ARRAY_SIZE(vals)];
			snprintf(hex, sizeof(hex), "26 0005 26 0004 %s 27",
				 ops[i]);
			expect(strtoul(ops[i], NULL, 16), regs.di, regs.si,
			       &want);
			assert_val(run(hex), want);
		}
}

/* ---- unary operators ---- */

static u64 sext(u64 v, int n)
{
	return n >= 64 ? v : (u64)((s64)(v << (64 - n)) >> (64 - n));
}

static u64 zext(u64 v, int n)
{
	return n >= 64 ? v : v & ((1ULL << n) - 1);
}

static void test_ext_zero_ext(void **state)
{
	char hex[64];
	unsigned int i;
	int n, pad;

	for (pad = 0; pad <= 6; pad += 6)
		for (n = 1; n <= 64; n++)
			for (i = 0; i < ARRAY_SIZE(vals); i++) {
				regs.dx = vals[i] ^ 0x5a5a5a5a5a5a5a5aULL;
				snprintf(hex, sizeof(hex), "%s 26 0003 16 %02x 27",
					 pad ? "22 01 22 01 22 01 22 01 22 01 22 01"
					     : "", n);
				assert_val(run(hex), sext(regs.dx, n));
				snprintf(hex, sizeof(hex), "%s 26 0003 2a %02x 27",
					 pad ? "22 01 22 01 22 01 22 01 22 01 22 01"
					     : "", n);
				assert_val(run(hex), zext(regs.dx, n));
			}
}

static void test_not_ops(void **state)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(vals); i++) {
		regs.r8 = vals[i];
		assert_val(run("26 0008 0e 27"), !vals[i]);
		assert_val(run("26 0008 12 27"), ~vals[i]);
		assert_val(run("26 0008 0e 0e 27"), !!vals[i]);
		/* deep: slot 6 lives in the frame */
		assert_val(run("22 00 22 00 22 00 22 00 22 00 22 00"
			       " 26 0008 12 27"), ~vals[i]);
	}
}

/* ---- stack shuffles: top three items as a*10^6 + b*10^3 + c ---- */

#define DIGEST "32 02 23 03e8 04 23 03e8 04 32 02 23 03e8 04 02 32 01 02 27"
#define FOUR	"26 0000 26 0001 26 0002 26 0003"
#define PAD5	"22 09 22 09 22 09 22 09 22 09"

static void check_shuffle(const char *op, u64 want)
{
	char hex[256];

	regs.ax = 1;
	regs.bx = 2;
	regs.cx = 3;
	regs.dx = 4;
	snprintf(hex, sizeof(hex), FOUR " %s " DIGEST, op);
	assert_val(run(hex), want);
	snprintf(hex, sizeof(hex), PAD5 " " FOUR " %s " DIGEST, op);
	assert_val(run(hex), want);
	snprintf(hex, sizeof(hex), "22 09 22 09 " FOUR " %s " DIGEST, op);
	assert_val(run(hex), want);
}

static void test_stack_ops(void **state)
{
	check_shuffle("", 2003004);
	check_shuffle("28", 3004004);		/* dup */
	check_shuffle("29", 1002003);		/* pop */
	check_shuffle("2b", 2004003);		/* swap */
	check_shuffle("32 00", 3004004);	/* pick 0 */
	check_shuffle("32 02", 3004002);	/* pick 2 */
	check_shuffle("32 03", 3004001);	/* pick 3 */
	check_shuffle("33", 4002003);		/* rot */
	check_shuffle("2b 2b", 2003004);
	check_shuffle("33 33 33", 2003004);
}

static void test_end_depths(void **state)
{
	assert_val(run("27"), 0);			/* empty stack */
	assert_val(run("22 07 22 08 27"), 8);		/* top of 2 */
	assert_val(run(PAD5 " 22 07 22 08 27"), 8);	/* top in frame */
}

/* ---- memory and hooks ---- */

static void test_ref(void **state)
{
	assert_val(run("25 0000000000001000 17 27"), 0x11);
	assert_val(run("25 0000000000001001 18 27"), 0x3322);
	assert_val(run("25 0000000000001004 19 27"), 0x88776655);
	assert_val(run("25 0000000000001008 1a 27"), 0x00ffeeddccbbaa99ULL);
	/* ref32; ext 32 and ref16; ext 16: loaded sign-extended */
	assert_val(run("25 0000000000001004 19 16 20 27"), 0xffffffff88776655ULL);
	assert_val(run("25 0000000000001008 18 16 10 27"), 0xffffffffffffaa99ULL);
	assert_val(run("25 0000000000001000 19 16 20 27"), 0x44332211);
	/* the address from a register, deep in the frame */
	regs.bp = MEM_ADDR + 2;
	assert_val(run(PAD5 " 22 01 26 0006 19 02 27"), 0x66554433 + 1);
	/* the last bytes, then one past: fault, err_pc = the ref */
	assert_val(run("25 000000000000100f 17 27"), 0);
	assert_fail(run("25 000000000000100d 19 27"), AX_ERR_MEM, 9);
	assert_fail(run("22 05 22 00 17 02 27"), AX_ERR_MEM, 4);
}

static void test_ref_keeps_live_slots(void **state)
{
	/* values in rax/rsi/r8 survive the hook call */
	regs.ax = 100;
	regs.bx = 20;
	assert_val(run("26 0000 26 0001 25 0000000000001000 17 02 02 27"),
		   100 + 20 + 0x11);
	assert_val(run("26 0000 26 0001 24 00001000 1a 03 03 27"),
		   100 - (20 - 0x8877665544332211ULL));
}

static void test_trace(void **state)
{
	struct outcome o;

	o = run("25 0000000000001002 22 04 0c 22 07 27");
	assert_val(o, 7);
	assert_int_equal(o.ntraces, 1);
	assert_int_equal(o.trace0.addr, MEM_ADDR + 2);
	assert_int_equal(o.trace0.size, 4);
	/* trace_quick keeps the address */
	o = run("25 0000000000001004 0d 08 27");
	assert_val(o, MEM_ADDR + 4);
	assert_int_equal(o.trace0.size, 8);
	/* trace16 */
	o = run("25 0000000000001004 30 0010 27");
	assert_val(o, MEM_ADDR + 4);
	assert_int_equal(o.trace0.size, 16);
	/* tracenz stops after the NUL at 0x100f */
	o = run("25 000000000000100c 22 10 2f 22 01 27");
	assert_int_equal(o.trace0.len, 4);
	/* a size above U32_MAX fails before the hook */
	o = run("22 01 25 0000000100000000 0c 22 01 27");
	assert_fail(o, AX_ERR_TRACE, 11);
	assert_int_equal(o.ntraces, 0);
	/* a full frame */
	trace_limit = 1;
	o = run("22 01 0d 01 0d 02 27");
	assert_fail(o, AX_ERR_TRACE, 4);
	assert_int_equal(o.ntraces, 1);
}

static void test_tsv(void **state)
{
	struct outcome o;

	assert_val(run("2c 0001 27"), 41);
	o = run("22 05 2d 0001 22 01 02 27");
	assert_val(o, 6);
	assert_int_equal(o.tsv1, 5);
	o = run("2c 0001 2e 0001 29 22 03 27");
	assert_val(o, 3);
	assert_int_equal(o.ntracevs, 1);
	assert_int_equal(o.tracev0.val, 41);
	assert_fail(run("22 01 2c 012c 27"), AX_ERR_TSV, 2);
	assert_fail(run("22 01 2d 012c 27"), AX_ERR_TSV, 2);
	assert_fail(run("2e 012c 22 00 27"), AX_ERR_TRACE, 0);
	/* getv deep in the frame, with live register slots */
	assert_val(run(PAD5 " 22 02 2c 0001 02 02 27"), 41 + 2 + 9);
}

/* ---- control flow ---- */

static void test_jumps(void **state)
{
	/* x ? 10 : 20 */
	const char *sel = "26 0000 20 000b 22 14 21 000d 22 0a 27";

	regs.ax = 0;
	assert_val(run(sel), 20);
	regs.ax = -5ULL;
	assert_val(run(sel), 10);
	/* compare + branch fused: a < b ? 1 : 2, signed and unsigned */
	regs.ax = -1ULL;
	regs.bx = 1;
	assert_val(run("26 0000 26 0001 14 20 000d 22 02 27 22 01 27"), 1);
	assert_val(run("26 0000 26 0001 15 20 000d 22 02 27 22 01 27"), 2);
	/* log_not before if_goto */
	assert_val(run("26 0000 26 0001 15 0e 20 000e 22 02 27 22 01 27"),
		   1);
}

static void test_loop_counts(void **state)
{
	/* $1 = 10; do { $1 -= 1 } while ($1); 7 */
	struct outcome o = run("22 0a 2d 0001 29 2c 0001 22 01 03 2d 0001"
			       " 20 0006 22 07 27");

	assert_val(o, 7);
	assert_int_equal(o.tsv1, 0);
	/* 10 insns at entry, 9 taken backward jumps of span 5 (insns 2..6) */
	assert_int_equal(o.steps, AX_STEP_BUDGET - 10 - 9 * 5);
}

/* Jumps over more than 127 bytes of code: rel32 forms, both ways. */
static void test_long_jumps(void **state)
{
	u8 code[AX_MAX_CODE];
	u32 len = 0, loop;
	int i;

	/* const8 0; reg 0; if_goto L; (const8 1; add) x 100; L: end */
	code[len++] = AX_CONST8;
	code[len++] = 0;
	code[len++] = AX_REG;
	len += put_be(code + len, 0, 2);
	code[len++] = AX_IF_GOTO;
	len += put_be(code + len, 8 + 3 * 100, 2);
	for (i = 0; i < 100; i++) {
		code[len++] = AX_CONST8;
		code[len++] = 1;
		code[len++] = AX_ADD;
	}
	code[len++] = AX_END;
	regs.ax = 0;
	assert_val(run_code(code, len), 100);
	regs.ax = 1;
	assert_val(run_code(code, len), 0);

	/* const8 0; L: (const8 1; add) x 50; dup; const8 200;
	 * less_signed; if_goto L; end */
	len = 0;
	code[len++] = AX_CONST8;
	code[len++] = 0;
	loop = len;
	for (i = 0; i < 50; i++) {
		code[len++] = AX_CONST8;
		code[len++] = 1;
		code[len++] = AX_ADD;
	}
	code[len++] = AX_DUP;
	code[len++] = AX_CONST8;
	code[len++] = 200;
	code[len++] = AX_LESS_SIGNED;
	code[len++] = AX_IF_GOTO;
	len += put_be(code + len, loop, 2);
	code[len++] = AX_END;
	assert_val(run_code(code, len), 200);
}

static void test_budget(void **state)
{
	/* const8 1; if_goto 0: forever; 4 insns at entry, each taken jump
	 * costs 2 steps */
	struct outcome o = run("22 01 20 0000 22 05 27");

	assert_fail(o, AX_ERR_BUDGET, 2);
	assert_int_equal(o.steps, 0);
	/* an unconditional backward goto (span 3) */
	o = run("22 00 20 0008 21 0000 22 04 27");
	assert_fail(o, AX_ERR_BUDGET, 5);
	assert_int_equal(o.steps, (AX_STEP_BUDGET - 5) % 3);
}

static void test_div0_err_pc(void **state)
{
	regs.bx = 0;
	assert_fail(run("22 07 26 0001 05 27"), AX_ERR_DIV0, 5);
	assert_fail(run("22 07 26 0001 06 27"), AX_ERR_DIV0, 5);
	assert_fail(run("22 07 26 0001 07 27"), AX_ERR_DIV0, 5);
	assert_fail(run("22 07 26 0001 08 27"), AX_ERR_DIV0, 5);
	assert_fail(run(PAD5 " 22 07 26 0001 08 27"), AX_ERR_DIV0, 15);
}

static void test_no_regs(void **state)
{
	struct outcome o;

	no_regs = true;
	assert_fail(run("26 0005 27"), AX_ERR_REG, 0);
	/* what ran before the failing reg insn still ran */
	o = run("2c 0001 2e 0001 29 26 0005 27");
	assert_fail(o, AX_ERR_REG, 7);
	assert_int_equal(o.ntracevs, 1);
	/* a dead 'reg' the optimizer removed still fails, as interpreted */
	assert_fail(run("26 0005 29 22 01 27"), AX_ERR_REG, 0);
	/* no reg insn: no check needed */
	assert_val(run("22 05 27"), 5);
}

/* ---- the paper's condition, and real gdb bytecode ---- */

static void test_table3(void **state)
{
	static const char *t3 = "22 02 26 00 05 16 20 04 16 20 22 03 26 00 04"
				" 16 20 04 16 20 02 16 20 22 00 2b 14 27";
	static const int c[][2] = { { 1, 0 }, { 2, 1 }, { -5, 3 },
				    { 0, 0 }, { 0x7fffffff, 1 },
				    { -0x7fffffff, -9 } };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		int c1 = c[i][0], c2 = c[i][1];
		int sum = (int)((unsigned)(2 * (long)c1) +
				(unsigned)(3 * (long)c2));

		regs.di = (u64)(s64)c1;
		regs.si = (u64)(s64)c2;
		/* gdb's bytecode computes 0 < sum (the swap) */
		assert_val(run(t3), 0 < sum);
	}
}

/* With a return thunk (kernel retbleed/SRSO mitigation), no 'ret'. */
static void test_return_thunk(void **state)
{
	struct ax_prog *prog;
	char log[128], text[8192];

	user_exec_return_thunk = (void *)test_ret_thunk;
	prog = ax_test_prog("26 0000 26 0001 05 27", false);
	assert_int_equal(ax_jit_compile(prog, log, sizeof(log)), 0);
	assert_true(user_disasm(prog->jit_image, prog->jit_size, false, text,
				sizeof(text)) > 0);
	assert_null(strstr(text, "ret\n"));
	assert_non_null(strstr(text, "jmp r11\n"));
	ax_jit_free(prog);
	ax_prog_free(prog);

	/* results, errors (stub returns), framed epilogues still right */
	regs.ax = 100;
	regs.bx = 7;
	assert_val(run("26 0000 26 0001 05 27"), 14);
	regs.bx = 0;
	assert_fail(run("26 0000 26 0001 05 27"), AX_ERR_DIV0, 6);
	assert_val(run("25 0000000000001004 19 16 20 27"), 0xffffffff88776655ULL);
	assert_fail(run("22 05 22 00 17 02 27"), AX_ERR_MEM, 4);
	assert_fail(run("22 00 20 0008 21 0000 22 04 27"), AX_ERR_BUDGET, 5);
	user_exec_return_thunk = NULL;
}

/*
 * IBT kernels: every image starts with endbr64 (probes call it through a
 * pointer), the code after it still computes the same, and everything
 * after the code up to the end of the page is int3.
 */
static void test_endbr_entry_and_int3_tail(void **state)
{
	static const u8 endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	const char *hex = "26 0000 26 0001 05 27";
	struct ax_prog *prog;
	char log[128];
	const u8 *img;
	size_t i, page = 4096, end;

	user_exec_endbr = true;
	prog = ax_test_prog(hex, false);
	assert_int_equal(ax_jit_compile(prog, log, sizeof(log)), 0);
	img = prog->jit_image;
	assert_memory_equal(img, endbr64, sizeof(endbr64));
	end = ((unsigned long)img + prog->jit_size + page - 1) & ~(page - 1);
	for (i = prog->jit_size; (unsigned long)img + i < end; i++)
		assert_int_equal(img[i], 0xcc);
	ax_jit_free(prog);
	ax_prog_free(prog);

	regs.ax = 100;
	regs.bx = 7;
	assert_val(run(hex), 14);
	regs.bx = 0;
	assert_fail(run(hex), AX_ERR_DIV0, 6);
	assert_val(run("25 0000000000001004 19 16 20 27"), 0xffffffff88776655ULL);
	user_exec_endbr = false;

	/* and without IBT the entry is the program's first insn */
	prog = ax_test_prog(hex, false);
	assert_int_equal(ax_jit_compile(prog, log, sizeof(log)), 0);
	assert_memory_not_equal(prog->jit_image, endbr64, sizeof(endbr64));
	ax_jit_free(prog);
	ax_prog_free(prog);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup(f, setup)
		T(test_binops),
		T(test_endbr_entry_and_int3_tail),
		T(test_binop_pt_regs_operand),
		T(test_ext_zero_ext),
		T(test_not_ops),
		T(test_stack_ops),
		T(test_end_depths),
		T(test_ref),
		T(test_ref_keeps_live_slots),
		T(test_trace),
		T(test_tsv),
		T(test_jumps),
		T(test_loop_counts),
		T(test_long_jumps),
		T(test_budget),
		T(test_div0_err_pc),
		T(test_no_regs),
		T(test_table3),
		T(test_return_thunk),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
