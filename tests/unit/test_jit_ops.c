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
	/* the host as a test left it after a failure: the default */
	user_exec_endbr = false;
	user_exec_return_thunk = NULL;
	user_exec_near = false;
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

/* Compile @src, run it both ways, insist they agree, return the JIT's. */
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

static struct outcome run(const char *src)
{
	u8 code[AX_MAX_CODE];
	u32 len = ax_test_asm(src, code, sizeof(code));

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
	static const u8 ops[] = { AX_ADD, AX_SUB, AX_MUL, AX_BIT_AND,
				  AX_BIT_OR, AX_BIT_XOR, AX_EQUAL,
				  AX_LESS_SIGNED, AX_LESS_UNSIGNED };
	char src[128];
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(ops); i++)
		for (j = 0; j < ARRAY_SIZE(vals); j++) {
			u64 want;

			regs.di = vals[j];
			regs.si = vals[(j * 7 + 3) % ARRAY_SIZE(vals)];
			snprintf(src, sizeof(src), "reg 5 reg 4 %s end",
				 ax_op_name(ops[i]));
			expect(ops[i], regs.di, regs.si, &want);
			assert_val(run(src), want);
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
	static const char pad6[] = "const8 1 const8 1 const8 1 const8 1"
				   " const8 1 const8 1";
	char src[128];
	unsigned int i;
	int n, pad;

	for (pad = 0; pad <= 6; pad += 6)
		for (n = 1; n <= 64; n++)
			for (i = 0; i < ARRAY_SIZE(vals); i++) {
				regs.dx = vals[i] ^ 0x5a5a5a5a5a5a5a5aULL;
				snprintf(src, sizeof(src), "%s reg 3 ext %d end",
					 pad ? pad6 : "", n);
				assert_val(run(src), sext(regs.dx, n));
				snprintf(src, sizeof(src),
					 "%s reg 3 zero_ext %d end",
					 pad ? pad6 : "", n);
				assert_val(run(src), zext(regs.dx, n));
			}
}

static void test_not_ops(void **state)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(vals); i++) {
		regs.r8 = vals[i];
		assert_val(run("reg 8 log_not end"), !vals[i]);
		assert_val(run("reg 8 bit_not end"), ~vals[i]);
		assert_val(run("reg 8 log_not log_not end"), !!vals[i]);
		/* deep: slot 6 lives in the frame */
		assert_val(run("const8 0 const8 0 const8 0 const8 0 const8 0"
			       " const8 0 reg 8 bit_not end"), ~vals[i]);
	}
}

/* ---- stack shuffles: top three items as a*10^6 + b*10^3 + c ---- */

#define DIGEST	"pick 2 const16 1000 mul const16 1000 mul pick 2 const16 1000" \
		" mul add pick 1 add end"
#define FOUR	"reg 0 reg 1 reg 2 reg 3"
#define PAD5	"const8 9 const8 9 const8 9 const8 9 const8 9"

static void check_shuffle(const char *op, u64 want)
{
	char src[256];

	regs.ax = 1;
	regs.bx = 2;
	regs.cx = 3;
	regs.dx = 4;
	snprintf(src, sizeof(src), FOUR " %s " DIGEST, op);
	assert_val(run(src), want);
	snprintf(src, sizeof(src), PAD5 " " FOUR " %s " DIGEST, op);
	assert_val(run(src), want);
	snprintf(src, sizeof(src), "const8 9 const8 9 " FOUR " %s " DIGEST, op);
	assert_val(run(src), want);
}

static void test_stack_ops(void **state)
{
	check_shuffle("", 2003004);
	check_shuffle("dup", 3004004);		/* dup */
	check_shuffle("pop", 1002003);		/* pop */
	check_shuffle("swap", 2004003);		/* swap */
	check_shuffle("pick 0", 3004004);	/* pick 0 */
	check_shuffle("pick 2", 3004002);	/* pick 2 */
	check_shuffle("pick 3", 3004001);	/* pick 3 */
	check_shuffle("rot", 4002003);		/* rot */
	check_shuffle("swap swap", 2003004);
	check_shuffle("rot rot rot", 2003004);
}

static void test_end_depths(void **state)
{
	assert_val(run("end"), 0);			/* empty stack */
	assert_val(run("const8 7 const8 8 end"), 8);		/* top of 2 */
	assert_val(run(PAD5 " const8 7 const8 8 end"), 8);	/* top in frame */
}

/* ---- memory and hooks ---- */

static void test_ref(void **state)
{
	assert_val(run("const64 0x1000 ref8 end"), 0x11);
	assert_val(run("const64 0x1001 ref16 end"), 0x3322);
	assert_val(run("const64 0x1004 ref32 end"), 0x88776655);
	assert_val(run("const64 0x1008 ref64 end"), 0x00ffeeddccbbaa99ULL);
	/* ref32; ext 32 and ref16; ext 16: loaded sign-extended */
	assert_val(run("const64 0x1004 ref32 ext 32 end"), 0xffffffff88776655ULL);
	assert_val(run("const64 0x1008 ref16 ext 16 end"), 0xffffffffffffaa99ULL);
	assert_val(run("const64 0x1000 ref32 ext 32 end"), 0x44332211);
	/* the address from a register, deep in the frame */
	regs.bp = MEM_ADDR + 2;
	assert_val(run(PAD5 " const8 1 reg 6 ref32 add end"), 0x66554433 + 1);
	/* the last bytes, then one past: fault, err_pc = the ref */
	assert_val(run("const64 0x100f ref8 end"), 0);
	assert_fail(run("const64 0x100d ref32 end"), AX_ERR_MEM, 9);
	assert_fail(run("const8 5 const8 0 ref8 add end"), AX_ERR_MEM, 4);
}

static void test_ref_keeps_live_slots(void **state)
{
	/* values in rax/rsi/r8 survive the hook call */
	regs.ax = 100;
	regs.bx = 20;
	assert_val(run("reg 0 reg 1 const64 0x1000 ref8 add add end"),
		   100 + 20 + 0x11);
	assert_val(run("reg 0 reg 1 const32 0x1000 ref64 sub sub end"),
		   100 - (20 - 0x8877665544332211ULL));
}

static void test_trace(void **state)
{
	struct outcome o;

	o = run("const64 0x1002 const8 4 trace const8 7 end");
	assert_val(o, 7);
	assert_int_equal(o.ntraces, 1);
	assert_int_equal(o.trace0.addr, MEM_ADDR + 2);
	assert_int_equal(o.trace0.size, 4);
	/* trace_quick keeps the address */
	o = run("const64 0x1004 trace_quick 8 end");
	assert_val(o, MEM_ADDR + 4);
	assert_int_equal(o.trace0.size, 8);
	/* trace16 */
	o = run("const64 0x1004 trace16 16 end");
	assert_val(o, MEM_ADDR + 4);
	assert_int_equal(o.trace0.size, 16);
	/* tracenz stops after the NUL at 0x100f */
	o = run("const64 0x100c const8 16 tracenz const8 1 end");
	assert_int_equal(o.trace0.len, 4);
	/* a size above U32_MAX fails before the hook */
	o = run("const8 1 const64 0x100000000 trace const8 1 end");
	assert_fail(o, AX_ERR_TRACE, 11);
	assert_int_equal(o.ntraces, 0);
	/* a full frame */
	trace_limit = 1;
	o = run("const8 1 trace_quick 1 trace_quick 2 end");
	assert_fail(o, AX_ERR_TRACE, 4);
	assert_int_equal(o.ntraces, 1);
}

static void test_tsv(void **state)
{
	struct outcome o;

	assert_val(run("getv 1 end"), 41);
	o = run("const8 5 setv 1 const8 1 add end");
	assert_val(o, 6);
	assert_int_equal(o.tsv1, 5);
	o = run("getv 1 tracev 1 pop const8 3 end");
	assert_val(o, 3);
	assert_int_equal(o.ntracevs, 1);
	assert_int_equal(o.tracev0.val, 41);
	assert_fail(run("const8 1 getv 300 end"), AX_ERR_TSV, 2);
	assert_fail(run("const8 1 setv 300 end"), AX_ERR_TSV, 2);
	assert_fail(run("tracev 300 const8 0 end"), AX_ERR_TRACE, 0);
	/* getv deep in the frame, with live register slots */
	assert_val(run(PAD5 " const8 2 getv 1 add add end"), 41 + 2 + 9);
}

/* ---- control flow ---- */

static void test_jumps(void **state)
{
	/* x ? 10 : 20 */
	const char *sel = "reg 0 if_goto 11 const8 20 goto 13 const8 10 end";

	regs.ax = 0;
	assert_val(run(sel), 20);
	regs.ax = -5ULL;
	assert_val(run(sel), 10);
	/* compare + branch fused: a < b ? 1 : 2, signed and unsigned */
	regs.ax = -1ULL;
	regs.bx = 1;
	assert_val(run("reg 0 reg 1 less_signed if_goto 13 const8 2 end"
		       " const8 1 end"), 1);
	assert_val(run("reg 0 reg 1 less_unsigned if_goto 13 const8 2 end"
		       " const8 1 end"), 2);
	/* log_not before if_goto */
	assert_val(run("reg 0 reg 1 less_unsigned log_not if_goto 14 const8 2"
		       " end const8 1 end"),
		   1);
}

static void test_loop_counts(void **state)
{
	/* $1 = 10; do { $1 -= 1 } while ($1); 7 */
	struct outcome o = run("const8 10 setv 1 pop getv 1 const8 1 sub setv 1"
			       " if_goto 6 const8 7 end");

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
	struct outcome o = run("const8 1 if_goto 0 const8 5 end");

	assert_fail(o, AX_ERR_BUDGET, 2);
	assert_int_equal(o.steps, 0);
	/* an unconditional backward goto (span 3) */
	o = run("const8 0 if_goto 8 goto 0 const8 4 end");
	assert_fail(o, AX_ERR_BUDGET, 5);
	assert_int_equal(o.steps, (AX_STEP_BUDGET - 5) % 3);
}

static void test_div0_err_pc(void **state)
{
	regs.bx = 0;
	assert_fail(run("const8 7 reg 1 div_signed end"), AX_ERR_DIV0, 5);
	assert_fail(run("const8 7 reg 1 div_unsigned end"), AX_ERR_DIV0, 5);
	assert_fail(run("const8 7 reg 1 rem_signed end"), AX_ERR_DIV0, 5);
	assert_fail(run("const8 7 reg 1 rem_unsigned end"), AX_ERR_DIV0, 5);
	assert_fail(run(PAD5 " const8 7 reg 1 rem_unsigned end"), AX_ERR_DIV0, 15);
}

static void test_no_regs(void **state)
{
	struct outcome o;

	no_regs = true;
	assert_fail(run("reg 5 end"), AX_ERR_REG, 0);
	/* what ran before the failing reg insn still ran */
	o = run("getv 1 tracev 1 pop reg 5 end");
	assert_fail(o, AX_ERR_REG, 7);
	assert_int_equal(o.ntracevs, 1);
	/* a dead 'reg' the optimizer removed still fails, as interpreted */
	assert_fail(run("reg 5 pop const8 1 end"), AX_ERR_REG, 0);
	/* no reg insn: no check needed */
	assert_val(run("const8 5 end"), 5);
}

/* ---- the paper's condition, and real gdb bytecode ---- */

static void test_table3(void **state)
{
	static const char *t3 = "const8 2 reg 5 ext 32 mul ext 32 const8 3"
				" reg 4 ext 32 mul ext 32 add ext 32 const8 0"
				" swap less_signed end";
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

/*
 * With a return thunk (kernel retbleed/SRSO mitigation), no 'ret': a
 * rel32 jump to the thunk.  An image out of rel32 reach of it would need
 * an indirect jump, which such a kernel must not get: the JIT refuses
 * (the kernel's images never are: they sit near its text).
 */
static void test_return_thunk(void **state)
{
	struct ax_prog *prog;
	char log[128], text[8192];

	user_exec_return_thunk = (void *)test_ret_thunk;
	prog = ax_test_prog("reg 0 reg 1 div_signed end", false);
	assert_int_equal(ax_jit_compile(prog, log, sizeof(log)), -ERANGE);
	assert_null(prog->jit);
	assert_non_null(strstr(log, "rel32"));
	ax_prog_free(prog);

	user_exec_near = true;
	prog = ax_test_prog("reg 0 reg 1 div_signed end", false);
	assert_int_equal(ax_jit_compile(prog, log, sizeof(log)), 0);
	assert_true(user_disasm(prog->jit_image, prog->jit_size, false, text,
				sizeof(text)) > 0);
	assert_null(strstr(text, "ret\n"));
	assert_null(strstr(text, "jmp r"));
	/* returns are direct jumps (to the thunk) */
	assert_non_null(strstr(text, "jmp 0x"));
	ax_jit_free(prog);
	ax_prog_free(prog);

	/* results, errors (stub returns), framed epilogues still right */
	regs.ax = 100;
	regs.bx = 7;
	assert_val(run("reg 0 reg 1 div_signed end"), 14);
	regs.bx = 0;
	assert_fail(run("reg 0 reg 1 div_signed end"), AX_ERR_DIV0, 6);
	assert_val(run("const64 0x1004 ref32 ext 32 end"), 0xffffffff88776655ULL);
	assert_fail(run("const8 5 const8 0 ref8 add end"), AX_ERR_MEM, 4);
	assert_fail(run("const8 0 if_goto 8 goto 0 const8 4 end"), AX_ERR_BUDGET, 5);
	user_exec_near = false;
	user_exec_return_thunk = NULL;
}

/*
 * IBT kernels: every image starts with endbr64 (probes call it through a
 * pointer), the code after it still computes the same, and everything
 * after the code up to the end of the page is int3.  Near its callees,
 * as in the kernel: far, it would need an indirect branch (refused).
 */
static void test_endbr_entry_and_int3_tail(void **state)
{
	static const u8 endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	const char *src = "reg 0 reg 1 div_signed end";
	struct ax_prog *prog;
	char log[128];
	const u8 *img;
	size_t i, page = 4096, end;

	user_exec_endbr = true;
	user_exec_near = true;
	prog = ax_test_prog(src, false);
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
	assert_val(run(src), 14);
	regs.bx = 0;
	assert_fail(run(src), AX_ERR_DIV0, 6);
	assert_val(run("const64 0x1004 ref32 ext 32 end"), 0xffffffff88776655ULL);
	user_exec_endbr = false;
	user_exec_near = false;

	/* and without IBT the entry is the program's first insn */
	prog = ax_test_prog(src, false);
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
