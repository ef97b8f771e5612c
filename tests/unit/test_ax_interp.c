// SPDX-License-Identifier: GPL-2.0
/*
 * test_ax_interp.c - the reference interpreter, opcode by opcode, with the
 * edge semantics ax.h promises (shift counts, INT64_MIN / -1, division by
 * zero, ext widths, faults, budgets), hooks observed through user_env, and
 * real gdb 13 bytecode whose expected results are computed here by the C
 * compiler from the source expression (not by hand, not by the
 * interpreter).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "ax.h"
#include "ax_test.h"

static struct pt_regs regs;
static struct ax_env env;

static int setup(void **state)
{
	user_env_reset();
	memset(&regs, 0, sizeof(regs));
	memset(&env, 0, sizeof(env));
	env.regs = &regs;
	return 0;
}

static u64 run(const char *src)
{
	return ax_test_run(src, &regs, &env);
}

#define assert_ok(v, want) do {				\
	u64 __v = (v);					\
	assert_int_equal(env.err, AX_ERR_NONE);		\
	assert_int_equal(__v, (u64)(want));		\
} while (0)

#define assert_err(v, e, pc) do {			\
	u64 __v = (v);					\
	assert_int_equal(env.err, (e));			\
	assert_int_equal(env.err_pc, (pc));		\
	assert_int_equal(__v, 0);			\
} while (0)

/* const64 a; const64 b; OP; end  -- OP at offset 18 */
static u64 run_binop(u8 op, u64 a, u64 b)
{
	u8 code[20];
	struct ax_prog *prog;
	u64 ret;
	int i;

	code[0] = AX_CONST64;
	code[9] = AX_CONST64;
	for (i = 0; i < 8; i++) {
		code[1 + i] = a >> (56 - 8 * i);
		code[10 + i] = b >> (56 - 8 * i);
	}
	code[18] = op;
	code[19] = AX_END;
	assert_int_equal(ax_verify(code, sizeof(code), true, &prog, NULL, 0),
			 0);
	memset(&env, 0, sizeof(env));
	env.regs = &regs;
	ret = ax_run(prog, &env);
	ax_prog_free(prog);
	return ret;
}

/* const64 a; OP n; end */
static u64 run_unop(u8 op, int n, u64 a)
{
	u8 code[12];
	struct ax_prog *prog;
	u32 len = 0;
	u64 ret;
	int i;

	code[len++] = AX_CONST64;
	for (i = 0; i < 8; i++)
		code[len++] = a >> (56 - 8 * i);
	code[len++] = op;
	if (n >= 0)
		code[len++] = n;
	code[len++] = AX_END;
	assert_int_equal(ax_verify(code, len, true, &prog, NULL, 0), 0);
	memset(&env, 0, sizeof(env));
	ret = ax_run(prog, &env);
	ax_prog_free(prog);
	return ret;
}

#define S64_MIN_U	0x8000000000000000ULL

static void test_add_sub_mul(void **state)
{
	assert_ok(run_binop(AX_ADD, 40, 2), 42);
	assert_ok(run_binop(AX_ADD, ~0ULL, 2), 1);		/* wraps */
	assert_ok(run_binop(AX_SUB, 3, 5), -2);			/* a - b */
	assert_ok(run_binop(AX_SUB, S64_MIN_U, 1), 0x7fffffffffffffffULL);
	assert_ok(run_binop(AX_MUL, 256, 3), 768);
	assert_ok(run_binop(AX_MUL, S64_MIN_U, 2), 0);
	assert_ok(run_binop(AX_MUL, -3, 7), -21);
	assert_ok(run("const8 3 const8 5 sub end"), -2);
}

static void test_div_rem(void **state)
{
	/* truncation toward zero, remainder has the dividend's sign */
	assert_ok(run_binop(AX_DIV_SIGNED, -7, 2), -3);
	assert_ok(run_binop(AX_DIV_SIGNED, 7, -2), -3);
	assert_ok(run_binop(AX_DIV_SIGNED, -7, -2), 3);
	assert_ok(run_binop(AX_REM_SIGNED, -7, 2), -1);
	assert_ok(run_binop(AX_REM_SIGNED, 7, -2), 1);
	assert_ok(run_binop(AX_REM_SIGNED, 5, -1), 0);
	/* the one overflow: defined, no trap */
	assert_ok(run_binop(AX_DIV_SIGNED, S64_MIN_U, -1), S64_MIN_U);
	assert_ok(run_binop(AX_REM_SIGNED, S64_MIN_U, -1), 0);
	assert_ok(run_binop(AX_DIV_SIGNED, S64_MIN_U, 1), S64_MIN_U);
	/* unsigned sees the bit pattern */
	assert_ok(run_binop(AX_DIV_UNSIGNED, -1, 2), 0x7fffffffffffffffULL);
	assert_ok(run_binop(AX_REM_UNSIGNED, -1, 10), 5);
	assert_ok(run_binop(AX_DIV_UNSIGNED, S64_MIN_U, -1), 0);
	assert_ok(run_binop(AX_REM_UNSIGNED, 7, -1), 7);
}

static void test_div_by_zero(void **state)
{
	static const u8 ops[] = { AX_DIV_SIGNED, AX_DIV_UNSIGNED,
				  AX_REM_SIGNED, AX_REM_UNSIGNED };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		assert_err(run_binop(ops[i], 5, 0), AX_ERR_DIV0, 18);
		assert_err(run_binop(ops[i], 0, 0), AX_ERR_DIV0, 18);
		assert_err(run_binop(ops[i], S64_MIN_U, 0), AX_ERR_DIV0, 18);
	}
	/* the error stops the run: the second setv never happens */
	user_env_set_tsv(2, 77);
	assert_err(run("const8 5 setv 1 const8 0 div_signed setv 2 end"), AX_ERR_DIV0, 7);
	assert_int_equal(user_env_tsv(1), 5);
	assert_int_equal(user_env_tsv(2), 77);
	/* and a later good run clears the error */
	assert_ok(run("const8 5 end"), 5);
}

static void test_shifts(void **state)
{
	assert_ok(run_binop(AX_LSH, 1, 63), S64_MIN_U);
	assert_ok(run_binop(AX_LSH, 3, 4), 48);
	/* counts are taken modulo 64 (x86 shl/sar/shr) */
	assert_ok(run_binop(AX_LSH, 1, 64), 1);
	assert_ok(run_binop(AX_LSH, 1, 65), 2);
	assert_ok(run_binop(AX_LSH, 3, -1), S64_MIN_U);
	assert_ok(run_binop(AX_LSH, 5, 0x100), 5);
	assert_ok(run_binop(AX_RSH_SIGNED, -16, 2), -4);
	assert_ok(run_binop(AX_RSH_SIGNED, S64_MIN_U, 63), -1);
	assert_ok(run_binop(AX_RSH_SIGNED, -16, 64), -16);
	assert_ok(run_binop(AX_RSH_SIGNED, -16, 66), -4);
	assert_ok(run_binop(AX_RSH_SIGNED, 16, 2), 4);
	assert_ok(run_binop(AX_RSH_UNSIGNED, -16, 2), 0x3ffffffffffffffcULL);
	assert_ok(run_binop(AX_RSH_UNSIGNED, S64_MIN_U, 63), 1);
	assert_ok(run_binop(AX_RSH_UNSIGNED, -16, 64), -16);
	assert_ok(run_binop(AX_RSH_UNSIGNED, -16, 127), 1);
}

static void test_bit_ops(void **state)
{
	assert_ok(run_binop(AX_BIT_AND, 0xff00ff00ULL, 0x0ff00ff0ULL),
		  0x0f000f00ULL);
	assert_ok(run_binop(AX_BIT_OR, 0xff00ff00ULL, 0x0ff00ff0ULL),
		  0xfff0fff0ULL);
	assert_ok(run_binop(AX_BIT_XOR, 0xff00ff00ULL, 0x0ff00ff0ULL),
		  0xf0f0f0f0ULL);
	assert_ok(run_unop(AX_BIT_NOT, -1, 0), ~0ULL);
	assert_ok(run_unop(AX_BIT_NOT, -1, 0x0123456789abcdefULL),
		  0xfedcba9876543210ULL);
}

static void test_compare(void **state)
{
	assert_ok(run_binop(AX_EQUAL, 5, 5), 1);
	assert_ok(run_binop(AX_EQUAL, 5, 6), 0);
	assert_ok(run_binop(AX_EQUAL, -1, ~0ULL), 1);
	/* a b => a < b, b on top */
	assert_ok(run_binop(AX_LESS_SIGNED, -1, 0), 1);
	assert_ok(run_binop(AX_LESS_SIGNED, 0, -1), 0);
	assert_ok(run_binop(AX_LESS_SIGNED, 3, 3), 0);
	assert_ok(run_binop(AX_LESS_SIGNED, S64_MIN_U, 0x7fffffffffffffffULL), 1);
	assert_ok(run_binop(AX_LESS_UNSIGNED, -1, 0), 0);
	assert_ok(run_binop(AX_LESS_UNSIGNED, 0, -1), 1);
	assert_ok(run_binop(AX_LESS_UNSIGNED, 3, 3), 0);
	assert_ok(run_unop(AX_LOG_NOT, -1, 0), 1);
	assert_ok(run_unop(AX_LOG_NOT, -1, 7), 0);
	assert_ok(run_unop(AX_LOG_NOT, -1, S64_MIN_U), 0);
}

/* Sign extension, written differently from the interpreter's xor/sub. */
static u64 ref_ext(u64 v, unsigned int n)
{
	return n >= 64 ? v : (u64)((s64)(v << (64 - n)) >> (64 - n));
}

static void test_ext(void **state)
{
	static const u64 vals[] = {
		0, 1, 2, 0x7f, 0x80, 0xff, 0x17f, 0x8000, 0xffff, 0x7fffffff,
		0x80000000, 0xffffffff, 0x17fffffffULL, 0x4000000000000000ULL,
		S64_MIN_U, ~0ULL, 0xdeadbeefcafef00dULL,
	};
	unsigned int n, i;

	assert_ok(run_unop(AX_EXT, 8, 0x80), -128);
	assert_ok(run_unop(AX_EXT, 8, 0x17f), 0x7f);
	assert_ok(run_unop(AX_EXT, 32, 0xffffffff), -1);
	assert_ok(run_unop(AX_EXT, 1, 1), -1);
	assert_ok(run_unop(AX_EXT, 1, 2), 0);
	assert_ok(run_unop(AX_EXT, 64, 0x1234), 0x1234);
	assert_ok(run_unop(AX_ZERO_EXT, 8, -1), 0xff);
	assert_ok(run_unop(AX_ZERO_EXT, 1, 3), 1);
	assert_ok(run_unop(AX_ZERO_EXT, 63, -1), 0x7fffffffffffffffULL);
	assert_ok(run_unop(AX_ZERO_EXT, 64, -1), ~0ULL);

	for (n = 1; n <= 64; n++) {
		for (i = 0; i < ARRAY_SIZE(vals); i++) {
			u64 zmask = n == 64 ? ~0ULL : (1ULL << n) - 1;

			assert_ok(run_unop(AX_EXT, n, vals[i]),
				  ref_ext(vals[i], n));
			assert_ok(run_unop(AX_ZERO_EXT, n, vals[i]),
				  vals[i] & zmask);
		}
	}
}

static void test_consts(void **state)
{
	assert_ok(run("const8 0xff end"), 0xff);		/* no sign extension */
	assert_ok(run("const16 0xfffe end"), 0xfffe);
	assert_ok(run("const32 0x80000001 end"), 0x80000001ULL);
	assert_ok(run("const64 0xfedcba9876543210 end"), 0xfedcba9876543210ULL);
	assert_ok(run("const8 0xec ext 8 end"), -20);		/* gdb's way */
}

static void test_reg(void **state)
{
	unsigned long *slot[AX_NR_GDB_REGS] = {
		&regs.ax, &regs.bx, &regs.cx, &regs.dx, &regs.si, &regs.di,
		&regs.bp, &regs.sp, &regs.r8, &regs.r9, &regs.r10, &regs.r11,
		&regs.r12, &regs.r13, &regs.r14, &regs.r15, &regs.ip, &regs.flags,
	};
	char src[32];
	unsigned int r;

	for (r = 0; r < AX_NR_GDB_REGS; r++)
		*slot[r] = 0x1111111111111111ULL * (r % 15 + 1) + r;
	regs.orig_ax = regs.cs = regs.ss = 0xbad;
	for (r = 0; r < AX_NR_GDB_REGS; r++) {
		snprintf(src, sizeof(src), "reg %u end", r);
		assert_ok(run(src), *slot[r]);
	}
	/* user_env_set_reg() agrees with the names */
	assert_int_equal(user_env_set_reg(&regs, 16, 0xffffffff81000000ULL), 0);
	assert_int_equal(regs.ip, 0xffffffff81000000ULL);
	assert_int_equal(user_env_set_reg(&regs, 17, 0x246), 0);
	assert_int_equal(regs.flags, 0x246);
	assert_int_equal(user_env_set_reg(&regs, 18, 1), -EINVAL);

	/* a context without registers */
	assert_err(ax_test_run("const8 1 reg 5 end", NULL, &env), AX_ERR_REG, 2);
}

static const u8 mem16[16] = {
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff, 0x80,
};

static void test_ref(void **state)
{
	assert_int_equal(user_env_add_region(0x1000, mem16, 16), 0);
	assert_ok(run("const16 0x1000 ref8 end"), 0x01);
	assert_ok(run("const16 0x1000 ref16 end"), 0x0201);		/* little-endian */
	assert_ok(run("const16 0x1000 ref32 end"), 0x04030201);
	assert_ok(run("const16 0x1000 ref64 end"), 0x0807060504030201ULL);
	assert_ok(run("const16 0x100f ref8 end"), 0x80);		/* zero-extended */
	assert_ok(run("const16 0x1008 ref16 end"), 0xfaf9);
	assert_ok(run("const16 0x100c ref32 end"), 0x80fffefdULL);
	assert_ok(run("const16 0x1008 ref64 end"), 0x80fffefdfcfbfaf9ULL);
	assert_ok(run("const16 0x1005 ref32 end"), 0xf9080706ULL);	/* unaligned */
	assert_int_equal(user_env_nr_reads(), 9);
}

static void test_ref_fault(void **state)
{
	u8 next[4] = { 0xaa, 0xbb, 0xcc, 0xdd };

	assert_int_equal(user_env_add_region(0x1000, mem16, 16), 0);
	assert_err(run("const8 0 ref8 end"), AX_ERR_MEM, 2);		/* NULL */
	assert_err(run("const16 0xfff ref8 end"), AX_ERR_MEM, 3);	/* just before */
	assert_err(run("const16 0x1010 ref8 end"), AX_ERR_MEM, 3);	/* just after */
	assert_err(run("const16 0x100e ref32 end"), AX_ERR_MEM, 3);	/* straddles */
	assert_err(run("const16 0x1009 ref64 end"), AX_ERR_MEM, 3);
	assert_err(run("const64 0xfffffffffffffffc ref64 end"), AX_ERR_MEM, 9);
	/* nothing after the fault runs: no trace record */
	assert_err(run("const8 0 ref8 trace_quick 1 end"), AX_ERR_MEM, 2);
	assert_int_equal(user_env_nr_traces(), 0);
	/* an adjacent region makes the straddling read good */
	assert_int_equal(user_env_add_region(0x1010, next, 4), 0);
	assert_ok(run("const16 0x100e ref32 end"), 0xbbaa80ffULL);
}

static void test_trace(void **state)
{
	const struct user_env_trace *t;

	assert_int_equal(user_env_add_region(0x1000, mem16, 16), 0);
	/* trace: addr size => */
	assert_ok(run("const16 0x1002 const8 4 trace end"), 0);
	assert_int_equal(user_env_nr_traces(), 1);
	t = user_env_trace(0);
	assert_int_equal(t->addr, 0x1002);
	assert_int_equal(t->size, 4);
	assert_int_equal(t->len, 4);
	assert_false(t->upto_nul);
	assert_memory_equal(t->data, mem16 + 2, 4);
	/* the stack below addr/size is intact */
	assert_ok(run("const8 7 const16 0x1002 const8 4 trace end"), 7);

	/* trace_quick keeps addr; trace16 too */
	user_env_reset();
	assert_int_equal(user_env_add_region(0x1000, mem16, 16), 0);
	assert_ok(run("const16 0x1008 trace_quick 8 end"), 0x1008);
	assert_ok(run("const16 0x1000 trace16 16 end"), 0x1000);
	assert_int_equal(user_env_nr_traces(), 2);
	t = user_env_trace(0);
	assert_int_equal(t->addr, 0x1008);
	assert_int_equal(t->len, 8);
	assert_memory_equal(t->data, mem16 + 8, 8);
	t = user_env_trace(1);
	assert_int_equal(t->size, 16);
	assert_memory_equal(t->data, mem16, 16);

	/* size 0 is a record of nothing */
	assert_ok(run("const16 0x1000 trace_quick 0 end"), 0x1000);
	assert_int_equal(user_env_trace(2)->size, 0);
}

static void test_trace_unreadable(void **state)
{
	const struct user_env_trace *t;

	assert_int_equal(user_env_add_region(0x1000, mem16, 16), 0);
	/* unreadable memory is not an error: what is readable is kept */
	assert_ok(run("const8 16 const8 4 trace const8 1 end"), 1);
	assert_ok(run("const16 0x100c const8 8 trace end"), 0);
	assert_int_equal(user_env_nr_traces(), 2);
	assert_int_equal(user_env_trace(0)->len, 0);
	t = user_env_trace(1);
	assert_int_equal(t->size, 8);
	assert_int_equal(t->len, 4);
	assert_memory_equal(t->data, mem16 + 12, 4);
}

static void test_tracenz(void **state)
{
	static const char str[6] = "hi\0xyz";	/* no final NUL */
	const struct user_env_trace *t;

	assert_int_equal(user_env_add_region(0x2000, str, sizeof(str)), 0);
	/* up to and including the NUL */
	assert_ok(run("const16 0x2000 const8 0x64 tracenz end"), 0);
	t = user_env_trace(0);
	assert_true(t->upto_nul);
	assert_int_equal(t->size, 100);
	assert_int_equal(t->len, 3);
	assert_memory_equal(t->data, "hi", 3);
	/* at most size bytes */
	assert_ok(run("const16 0x2000 const8 1 tracenz end"), 0);
	assert_int_equal(user_env_trace(1)->len, 1);
	/* no NUL before the end of readable memory */
	assert_ok(run("const16 0x2003 const8 0x64 tracenz end"), 0);
	t = user_env_trace(2);
	assert_int_equal(t->len, 3);
	assert_memory_equal(t->data, "xyz", 3);
}

static void test_trace_errors(void **state)
{
	assert_int_equal(user_env_add_region(0x1000, mem16, 16), 0);
	/* a size the hooks cannot take */
	assert_err(run("const16 0x1000 const64 0x100000000 trace end"),
		   AX_ERR_TRACE, 12);
	assert_err(run("const16 0x1000 const64 0x100000000 tracenz end"),
		   AX_ERR_TRACE, 12);
	assert_int_equal(user_env_nr_traces(), 0);
	/* U32_MAX itself is passed on; the readable prefix is recorded */
	assert_ok(run("const16 0x1000 const32 0xffffffff trace end"), 0);
	assert_int_equal(user_env_nr_traces(), 1);
	assert_int_equal(user_env_trace(0)->size, 0xffffffffU);
	assert_int_equal(user_env_trace(0)->len, 16);

	/* a full frame: the first record stays, the run stops */
	user_env_reset();
	assert_int_equal(user_env_add_region(0x1000, mem16, 16), 0);
	user_env_set_trace_limit(1);
	assert_err(run("const16 0x1000 trace_quick 2 trace_quick 4 const8 9 end"), AX_ERR_TRACE, 5);
	assert_int_equal(user_env_nr_traces(), 1);
	assert_int_equal(user_env_trace(0)->size, 2);
	user_env_set_trace_limit(0);
	assert_err(run("const16 0x1000 trace16 2 end"), AX_ERR_TRACE, 3);
	assert_err(run("tracev 1 end"), AX_ERR_TRACE, 0);
}

static void test_tsv(void **state)
{
	const struct user_env_tracev *tv;

	/* setv leaves the value */
	assert_ok(run("const8 7 setv 3 end"), 7);
	assert_int_equal(user_env_tsv(3), 7);
	/* getv pushes the 64-bit value */
	user_env_set_tsv(2, -5);
	assert_ok(run("getv 2 end"), -5);
	/* tracev records and pushes nothing */
	assert_ok(run("const8 9 tracev 2 end"), 9);
	assert_int_equal(user_env_nr_tracevs(), 1);
	tv = user_env_tracev(0);
	assert_int_equal(tv->tsv, 2);
	assert_int_equal(tv->val, -5);
	/* gdb's "collect $hits" and "teval $hits = $hits + 1" (ref 3.4) */
	user_env_set_tsv(2, 41);
	assert_ok(run("getv 2 tracev 2 pop end"), 0);
	assert_int_equal(user_env_tracev(1)->val, 41);
	assert_ok(run("getv 2 const8 1 add ext 64 setv 2 end"), 42);
	assert_ok(run("getv 2 const8 1 add ext 64 setv 2 end"), 43);
	assert_int_equal(user_env_tsv(2), 43);
	/* variables the hook refuses */
	assert_err(run("getv 300 end"), AX_ERR_TSV, 0);
	assert_err(run("const8 1 setv 300 end"), AX_ERR_TSV, 2);
	assert_err(run("tracev 300 end"), AX_ERR_TRACE, 0);
}

static void test_stack_ops(void **state)
{
	assert_ok(run("const8 5 dup add end"), 10);			/* dup */
	assert_ok(run("const8 1 const8 2 pop end"), 1);			/* pop */
	assert_ok(run("const8 1 const8 2 swap sub end"), 1);		/* swap: 2-1 */
	assert_ok(run("const8 10 const8 20 const8 30 pick 0 end"), 30);	/* pick 0 */
	assert_ok(run("const8 10 const8 20 const8 30 pick 1 end"), 20);
	assert_ok(run("const8 10 const8 20 const8 30 pick 2 end"), 10);
	/* pick leaves what it copied from: 10 20 30 10 => 10-(20-(30-10)) */
	assert_ok(run("const8 10 const8 20 const8 30 pick 2 sub sub sub end"), 10);
	/* rot: 1 2 3 => 3 1 2; read back as 3*100 + 1*10 + 2 */
	assert_ok(run("const8 1 const8 2 const8 3 rot swap const8 10 mul add"
		      " swap const8 0x64 mul add end"),
		  312);
	/* rot at depth > 3 does not disturb the rest */
	assert_ok(run("const8 7 const8 1 const8 2 const8 3 rot pop pop pop end"), 7);
	/* end with an empty stack */
	assert_ok(run("const8 1 pop end"), 0);
	assert_ok(run("end"), 0);
}

static void test_jumps(void **state)
{
	/* const8 C; if_goto 10; const8 10; goto 12; const8 20; end */
	assert_ok(run("const8 1 if_goto 10 const8 10 goto 12 const8 20 end"), 20);
	assert_ok(run("const8 0 if_goto 10 const8 10 goto 12 const8 20 end"), 10);
	/* any non-zero bit is true */
	assert_ok(run("const64 0x8000000000000000 if_goto 17 const8 10 goto 19"
		      " const8 20 end"), 20);
	/* if_goto pops its operand on both paths */
	assert_ok(run("const8 99 const8 1 if_goto 7 end"), 0x63);
	assert_ok(run("const8 99 const8 0 if_goto 7 end"), 0x63);
}

/* The deepest stack the verifier allows, summed from the bottom up. */
static void test_stack_limit(void **state)
{
	u8 code[2 * AX_MAX_STACK + AX_MAX_STACK];
	struct ax_prog *prog;
	u32 len = 0, i;

	for (i = 1; i <= AX_MAX_STACK; i++) {
		code[len++] = AX_CONST8;
		code[len++] = i;
	}
	for (i = 1; i < AX_MAX_STACK; i++)
		code[len++] = AX_ADD;
	code[len++] = AX_END;
	assert_int_equal(ax_verify(code, len, true, &prog, NULL, 0), 0);
	assert_int_equal(prog->max_depth, AX_MAX_STACK);
	assert_ok(ax_run(prog, &env), AX_MAX_STACK * (AX_MAX_STACK + 1) / 2);
	ax_prog_free(prog);

	/* 64 values still all there after 63 subtractions: 1-(2-(3-...)) */
	len = 2 * AX_MAX_STACK;
	for (i = 1; i < AX_MAX_STACK; i++)
		code[len++] = AX_SUB;
	code[len++] = AX_END;
	assert_int_equal(ax_verify(code, len, true, &prog, NULL, 0), 0);
	assert_ok(ax_run(prog, &env), -(AX_MAX_STACK / 2));
	ax_prog_free(prog);
}

/*
 * const8 N; L: const8 1; sub; dup; if_goto L; end -- 6 insns charged at
 * entry, then N - 1 backjumps of 4
 */
static void test_budget_countdown(void **state)
{
	struct ax_prog *prog = ax_test_prog("const8 0x64 const8 1 sub dup if_goto 2 end",
					    true);

	assert_true(prog->backjump);
	env.steps = 12345;		/* ax_run() sets the budget */
	assert_ok(ax_run(prog, &env), 0);
	assert_int_equal(env.steps, AX_STEP_BUDGET - 6 - 99 * 4);

	/* exactly enough */
	memset(&env, 0, sizeof(env));
	env.steps = 6 + 99 * 4;
	assert_ok(ax_interp(prog, &env), 0);
	assert_int_equal(env.steps, 0);
	/* one step short: the 99th backjump fails */
	memset(&env, 0, sizeof(env));
	env.steps = 6 + 99 * 4 - 1;
	assert_err(ax_interp(prog, &env), AX_ERR_BUDGET, 6);
	assert_int_equal(env.steps, 3);
	ax_prog_free(prog);
}

/* The side effects before the budget ran out stay. */
static void test_budget_side_effects(void **state)
{
	/*
	 * const8 200; L: getv 1; const8 1; add; setv 1; pop;
	 * const8 1; sub; dup; if_goto L; end -- span 9 insns
	 */
	struct ax_prog *prog = ax_test_prog(
		"const8 0xc8 getv 1 const8 1 add setv 1 pop const8 1 sub dup"
		" if_goto 2 end",
		false);

	env.steps = 11 + 9 * 10;		/* 11 insns at entry */
	assert_err(ax_interp(prog, &env), AX_ERR_BUDGET, 16);
	assert_int_equal(user_env_tsv(1), 11);	/* 10 jumps, 11 bodies */

	/* and with the full budget the loop completes */
	user_env_reset();
	memset(&env, 0, sizeof(env));
	assert_ok(ax_run(prog, &env), 0);
	assert_int_equal(user_env_tsv(1), 200);
	ax_prog_free(prog);
}

static void test_budget_infinite(void **state)
{
	struct ax_prog *prog = ax_test_prog("goto 0", false);

	assert_err(ax_run(prog, &env), AX_ERR_BUDGET, 0);
	assert_int_equal(env.steps, 0);
	ax_prog_free(prog);

	/* a two-insn loop with a forward exit that is never taken */
	prog = ax_test_prog("const8 0 if_goto 8 goto 0 end", false);
	assert_err(ax_run(prog, &env), AX_ERR_BUDGET, 5);
	assert_int_equal(env.steps, (AX_STEP_BUDGET - 4) % 3);
	ax_prog_free(prog);

	/* no backward jump: its 6 insns at entry, all or nothing */
	prog = ax_test_prog("const8 1 if_goto 8 const8 2 pop const8 3 end", false);
	assert_false(prog->backjump);
	memset(&env, 0, sizeof(env));
	env.steps = 6;
	assert_ok(ax_interp(prog, &env), 3);
	assert_int_equal(env.steps, 0);
	env.steps = 5;
	assert_err(ax_interp(prog, &env), AX_ERR_BUDGET, 0);
	assert_int_equal(env.steps, 5);
	ax_prog_free(prog);
}

/* --- real gdb 13.1 bytecode ("maint agent-eval -at f, EXPR") --------- */

/*
 * Registers as a kprobe sees them: the int argument in the low half,
 * garbage above it, which gdb's 'ext 32' must discard.
 */
static void set_args(s32 c1, s32 c2)
{
	regs.di = 0xdeadbeef00000000ULL | (u32)c1;	/* reg 5 */
	regs.si = 0x0123456700000000ULL | (u32)c2;	/* reg 4 */
}

static const s32 args[] = {
	0, 1, 2, 3, 4, 5, 7, -1, -2, -3, 100, -100, 1000000, 0x7fffffff,
	(s32)0x80000000, 0x7fffff00, -0x7fffff00,
};

/* int arithmetic with the wrap-around gdb's ext 32 gives it */
static s32 wrap32(u64 v)
{
	return (s32)(u32)v;
}

static void test_gdb_table3(void **state)
{
	/* 2*counter1+3*counter2 > 0, the paper's Table 3 (gdb 13 form) */
	struct ax_prog *gt = ax_test_prog(
		"const8 2 reg 5 ext 32 mul ext 32 const8 3 reg 4 ext 32 mul"
		" ext 32 add ext 32 const8 0 swap less_signed end", true);
	/* 2*counter1+3*counter2 < 0 */
	struct ax_prog *lt = ax_test_prog(
		"const8 2 reg 5 ext 32 mul ext 32 const8 3 reg 4 ext 32 mul"
		" ext 32 add ext 32 const8 0 less_signed end", true);
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(args); i++) {
		for (j = 0; j < ARRAY_SIZE(args); j++) {
			s32 sum = wrap32(2ULL * (u32)args[i] +
					 3ULL * (u32)args[j]);

			set_args(args[i], args[j]);
			assert_ok(ax_run(gt, &env), sum > 0);
			assert_ok(ax_run(lt, &env), sum < 0);
		}
	}
	/* the Fig. 11 loop's calls (1,0), (2,1), ... all pass */
	set_args(1, 0);
	assert_ok(ax_run(gt, &env), 1);
	ax_prog_free(gt);
	ax_prog_free(lt);
}

static void test_gdb_logic(void **state)
{
	/* counter1 == 3 && counter2 != 2 */
	struct ax_prog *and = ax_test_prog(
		"reg 5 ext 32 const8 3 equal if_goto 14 goto 34 reg 4 ext 32"
		" const8 2 equal log_not if_goto 29 goto 34 const8 1 goto 36"
		" const8 0 end", true);
	/* counter1 <= counter2 && (unsigned)counter1 >= 3u */
	struct ax_prog *mixed = ax_test_prog(
		"reg 5 ext 32 reg 4 ext 32 swap less_signed log_not if_goto 19"
		" goto 41 reg 5 ext 32 zero_ext 32 const8 3 less_unsigned"
		" log_not if_goto 36 goto 41 const8 1 goto 43 const8 0 end", true);
	/* (counter1 & 0xf0) | ~counter2 ^ 5 */
	struct ax_prog *bits = ax_test_prog(
		"reg 5 ext 32 const16 0xf0 bit_and reg 4 ext 32 bit_not ext 32"
		" const8 5 bit_xor bit_or end", true);
	/* -counter1 >> 2 == counter2 */
	struct ax_prog *neg = ax_test_prog(
		"const8 0 reg 5 ext 32 sub ext 32 const8 2 rsh_signed ext 32"
		" reg 4 ext 32 equal end", true);
	/* counter1 - counter2 * 1000000000000 < -5 */
	struct ax_prog *wide = ax_test_prog(
		"reg 5 ext 32 reg 4 ext 32 const64 0xe8d4a51000 mul ext 64 sub"
		" ext 64 const8 0xfb ext 8 less_signed end", true);
	/* (unsigned long)counter1 / 7 % 3 */
	struct ax_prog *udiv = ax_test_prog(
		"reg 5 ext 32 zero_ext 64 const8 7 zero_ext 64 div_unsigned"
		" zero_ext 64 const8 3 zero_ext 64 rem_unsigned zero_ext 64 end", true);
	/* (unsigned)counter1 >> 3 */
	struct ax_prog *ursh = ax_test_prog(
		"reg 5 ext 32 zero_ext 32 const8 3 zero_ext 32 rsh_unsigned"
		" zero_ext 32 end", true);
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(args); i++) {
		for (j = 0; j < ARRAY_SIZE(args); j++) {
			s32 c1 = args[i], c2 = args[j];

			set_args(c1, c2);
			assert_ok(ax_run(and, &env), c1 == 3 && c2 != 2);
			assert_ok(ax_run(mixed, &env),
				  c1 <= c2 && (unsigned int)c1 >= 3u);
			assert_ok(ax_run(bits, &env),
				  (s64)((c1 & 0xf0) | (~c2 ^ 5)));
			assert_ok(ax_run(neg, &env),
				  wrap32(0ULL - (u32)c1) >> 2 == c2);
			/* long arithmetic, wrapping like gdb's ext 64 */
			assert_ok(ax_run(wide, &env),
				  (s64)((u64)(s64)c1 -
					(u64)(s64)c2 * 1000000000000ULL) < -5);
			assert_ok(ax_run(udiv, &env),
				  (unsigned long)c1 / 7 % 3);
			assert_ok(ax_run(ursh, &env), (unsigned int)c1 >> 3);
		}
	}
	ax_prog_free(and);
	ax_prog_free(mixed);
	ax_prog_free(bits);
	ax_prog_free(neg);
	ax_prog_free(wide);
	ax_prog_free(udiv);
	ax_prog_free(ursh);
}

/* gdb globals of the test binary: g1 @0x4014, gc @0x402a, gs @0x4028, ... */
static void add_global(u64 addr, const void *val, size_t len)
{
	assert_int_equal(user_env_add_region(addr, val, len), 0);
}

static void test_gdb_globals(void **state)
{
	/* counter1 % 3 == 1 || g1 / counter2 > 2 */
	struct ax_prog *orp = ax_test_prog(
		"reg 5 ext 32 const8 3 rem_signed ext 32 const8 1 equal"
		" if_goto 42 const16 0x4014 ref32 ext 32 reg 4 ext 32 div_signed"
		" ext 32 const8 2 swap less_signed if_goto 42 const8 0 goto 44"
		" const8 1 end", true);
	/* g1 > 0 ? counter1 : counter2 */
	struct ax_prog *sel = ax_test_prog(
		"const16 0x4014 ref32 ext 32 const8 0 swap less_signed log_not"
		" if_goto 22 reg 5 ext 32 goto 27 reg 4 ext 32 end", true);
	static const s32 g1s[] = { 0, 7, -7, 0x7fffffff, INT32_MIN };
	unsigned int i, j, k;

	for (k = 0; k < ARRAY_SIZE(g1s); k++) {
		s32 g1 = g1s[k];

		user_env_reset();
		add_global(0x4014, &g1, sizeof(g1));
		for (i = 0; i < ARRAY_SIZE(args); i++) {
			for (j = 0; j < ARRAY_SIZE(args); j++) {
				s32 c1 = args[i], c2 = args[j];
				u64 r;

				set_args(c1, c2);
				assert_ok(ax_run(sel, &env), (s64)(g1 > 0 ? c1 : c2));
				r = ax_run(orp, &env);
				if (c1 % 3 == 1) {
					assert_ok(r, 1);	/* short circuit */
				} else if (c2 == 0) {
					assert_err(r, AX_ERR_DIV0, 27);
				} else if (g1 == INT32_MIN && c2 == -1) {
					/* C's UB; ours: INT64_MIN / -1 ext 32 */
					assert_ok(r, 0);
				} else {
					assert_ok(r, g1 / c2 > 2);
				}
			}
		}
	}
	/* g1 unmapped: the condition faults where g1 is read */
	user_env_reset();
	set_args(0, 1);
	assert_err(ax_run(sel, &env), AX_ERR_MEM, 3);
	assert_err(ax_run(orp, &env), AX_ERR_MEM, 19);
	ax_prog_free(orp);
	ax_prog_free(sel);
}

static void test_gdb_memory(void **state)
{
	/* gc + gs * gl (unsigned char, short, long) */
	struct ax_prog *sum = ax_test_prog(
		"const16 0x402a ref8 const16 0x4028 ref16 ext 16 const16 0x4030"
		" ref64 ext 64 mul ext 64 add ext 64 end", true);
	/* gp[2] == 65 */
	struct ax_prog *ptr = ax_test_prog(
		"const16 0x4020 ref64 const8 2 add zero_ext 64 ref8 ext 8"
		" const8 65 equal end", true);
	static const struct { u8 c; s16 s; s64 l; } vals[] = {
		{ 0, 0, 0 }, { 255, -1, 3 }, { 200, 32767, -1000000007 },
		{ 1, -32768, 0x7fffffffffffULL },
	};
	u64 gp = 0x5000;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(vals); i++) {
		user_env_reset();
		add_global(0x402a, &vals[i].c, 1);
		add_global(0x4028, &vals[i].s, 2);
		add_global(0x4030, &vals[i].l, 8);
		assert_ok(ax_run(sum, &env),
			  (u64)(vals[i].c + vals[i].s * vals[i].l));
	}

	user_env_reset();
	add_global(0x4020, &gp, sizeof(gp));
	add_global(0x5000, "ABC", 3);
	assert_ok(ax_run(ptr, &env), 0);		/* 'C' != 65 */
	add_global(0x5002, "A", 1);
	assert_ok(ax_run(ptr, &env), 1);
	gp = 0x6000;					/* gp dangling */
	add_global(0x4020, &gp, sizeof(gp));
	assert_err(ax_run(ptr, &env), AX_ERR_MEM, 9);
	ax_prog_free(sum);
	ax_prog_free(ptr);
}

/* The collection examples of the reference, section 3.4. */
static void test_gdb_collect(void **state)
{
	u64 rbp = 0x7000, cfa = rbp + 16, s = 0x8000;
	s32 x = -42;
	const struct user_env_trace *t;

	regs.bp = rbp;
	add_global(cfa - 20, &x, sizeof(x));
	add_global(cfa - 32, &s, sizeof(s));
	add_global(s, "hello\0world", 12);

	/* x >= 0 */
	assert_ok(run("reg 6 const8 16 add const8 0xec ext 8 add ref32 ext 32"
		      " const8 0 less_signed log_not end"),
		  0);
	/* collect x */
	assert_ok(run("reg 6 const8 16 add const8 0xec ext 8 add const8 4 trace end"), 0);
	t = user_env_trace(0);
	assert_int_equal(t->addr, cfa - 20);
	assert_memory_equal(t->data, &x, 4);
	/* collect *s@8 */
	assert_ok(run("reg 6 const8 16 add const8 0xe0 ext 8 add trace_quick 8"
		      " ref64 const8 8 trace end"),
		  0);
	assert_int_equal(user_env_trace(1)->addr, cfa - 32);
	assert_memory_equal(user_env_trace(1)->data, &s, 8);
	t = user_env_trace(2);
	assert_int_equal(t->addr, s);
	assert_int_equal(t->len, 8);
	assert_memory_equal(t->data, "hello\0wo", 8);
	/* collect/s s */
	assert_ok(run("reg 6 const8 16 add const8 0xe0 ext 8 add trace_quick 8"
		      " ref64 const16 0xc8 tracenz end"),
		  0);
	t = user_env_trace(4);
	assert_int_equal(t->size, 200);
	assert_int_equal(t->len, 6);
	assert_string_equal((const char *)t->data, "hello");
	assert_int_equal(user_env_nr_traces(), 5);
}

#define T(f) cmocka_unit_test_setup(f, setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_add_sub_mul), T(test_div_rem), T(test_div_by_zero),
		T(test_shifts), T(test_bit_ops), T(test_compare), T(test_ext),
		T(test_consts), T(test_reg), T(test_ref), T(test_ref_fault),
		T(test_trace), T(test_trace_unreadable), T(test_tracenz),
		T(test_trace_errors), T(test_tsv), T(test_stack_ops),
		T(test_jumps), T(test_stack_limit), T(test_budget_countdown),
		T(test_budget_side_effects), T(test_budget_infinite),
		T(test_gdb_table3), T(test_gdb_logic), T(test_gdb_globals),
		T(test_gdb_memory), T(test_gdb_collect),
	};

	return cmocka_run_group_tests_name("ax_interp", tests, NULL, NULL);
}
