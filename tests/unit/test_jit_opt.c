// SPDX-License-Identifier: GPL-2.0
/*
 * test_jit_opt.c - the JIT's optimizer, one pass at a time on the IR of
 * verified bytecode, then the code shapes the passes promise, asserted on
 * the capstone disassembly of the compiled program.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "jit.h"
#include "jit_internal.h"
#include "ax_test.h"
#include "user_disasm.h"

static struct ax_prog *prog;
static struct jit_ir ir;

static int teardown(void **state)
{
	jit_ir_free(&ir);
	if (prog) {
		ax_jit_free(prog);
		ax_prog_free(prog);
	}
	prog = NULL;
	return 0;
}

static void decode(const char *src)
{
	prog = ax_test_prog(src, false);
	assert_int_equal(jit_decode(prog, &ir), 0);
}

static void assert_nop(int i)
{
	assert_int_equal(ir.insn[i].op, JIT_NOP);
}

static int live_count(void)
{
	int i, n = 0;

	for (i = 0; i < (int)ir.n; i++)
		n += ir.insn[i].op != JIT_NOP;
	return n;
}

/* ---- decode ---- */

static void test_decode_normalizes(void **state)
{
	/* const16 1; log_not; if_goto 10; const8 2; end; 10: const8 3; end */
	decode("const16 1 log_not if_goto 10 const8 2 end const8 3 end");
	assert_int_equal(ir.insn[0].op, AX_CONST64);
	assert_int_equal(ir.insn[1].op, JIT_CMP);
	assert_int_equal(ir.insn[1].cc, JCC_E);
	assert_int_equal(ir.insn[1].src, JSRC_IMM);
	assert_int_equal(ir.insn[2].op, JIT_CMP_JCC);
	assert_int_equal(ir.insn[2].cc, JCC_NE);
	assert_int_equal(ir.insn[2].target, 5);
	assert_true(ir.insn[5].flags & JF_TARGET);
	assert_false(ir.insn[3].flags & JF_TARGET);
}

static void test_decode_reg_offset(void **state)
{
	decode("reg 5 reg 16 add end");
	assert_int_equal(ir.insn[0].imm, offsetof(struct pt_regs, di));
	assert_int_equal(ir.insn[1].imm, offsetof(struct pt_regs, ip));
	assert_true(ir.has_reg);
}

/* ---- opt_load_ext ---- */

static void test_load_ext(void **state)
{
	decode("reg 5 ext 32 reg 4 zero_ext 16 add reg 3 ext 7 add end");
	assert_int_equal(opt_load_ext(&ir), 2);
	assert_true(ir.insn[0].flags & JF_SX);
	assert_int_equal(ir.insn[0].ext, 32);
	assert_nop(1);
	assert_true(ir.insn[2].flags & JF_ZX);
	assert_int_equal(ir.insn[2].ext, 16);
	assert_nop(3);
	/* ext 7 has no load form */
	assert_int_equal(ir.insn[6].op, AX_EXT);
	assert_false(ir.insn[5].flags & (JF_SX | JF_ZX));
}

static void test_load_ext_ref(void **state)
{
	/* ref32; ext 32 -> sign-extending read; ref8; ext 16 stays */
	decode("const8 16 ref32 ext 32 const8 16 ref8 ext 16 add end");
	assert_int_equal(opt_load_ext(&ir), 1);
	assert_true(ir.insn[1].flags & JF_SX);
	assert_nop(2);
	assert_int_equal(ir.insn[5].op, AX_EXT);
}

/* ---- opt_ext ---- */

static void test_ext_after_const(void **state)
{
	/* 5 is already a sign-extended 32-bit value; 0x80 is not an s8 */
	decode("const8 5 ext 32 const8 0x80 ext 8 add end");
	assert_int_equal(opt_ext(&ir), 1);
	assert_nop(1);
	assert_int_equal(ir.insn[3].op, AX_EXT);
}

static void test_ext_after_ext(void **state)
{
	decode("reg 5 ext 32 ext 32 ext 64 zero_ext 64 end");
	assert_int_equal(opt_ext(&ir), 3);
	assert_int_equal(ir.insn[1].op, AX_EXT);	/* the first one stays */
	assert_nop(2);
	assert_nop(3);					/* ext 64 */
	assert_nop(4);					/* zero_ext 64 */
}

static void test_ext_after_compare_and_ref(void **state)
{
	/* (1 < 2) zero_ext 1; ext 8 -> both gone; ref8 then zero_ext 8 */
	decode("const8 1 reg 2 less_signed zero_ext 1 ext 8 const32 0x10000"
	       " ref8 zero_ext 8 add end");
	assert_int_equal(opt_ext(&ir), 3);
	assert_nop(3);
	assert_nop(4);
	assert_nop(7);
}

static void test_ext_narrower_kept(void **state)
{
	/* ext 32 then ext 16 narrows: must stay */
	decode("reg 5 ext 32 ext 16 end");
	assert_int_equal(opt_ext(&ir), 0);
}

static void test_ext_after_width_keeping_ops(void **state)
{
	/* (int)x >> 2, ~(int)x, (int)x & 0xff, (int)x ^ (int)y: ext 32 gone */
	decode("reg 5 ext 32 const8 2 rsh_signed ext 32 end");
	assert_int_equal(opt_ext(&ir), 1);
	assert_nop(4);
	jit_ir_free(&ir);
	ax_prog_free(prog);
	decode("reg 5 ext 32 bit_not ext 32 end");
	assert_int_equal(opt_ext(&ir), 1);
	assert_nop(3);
	jit_ir_free(&ir);
	ax_prog_free(prog);
	decode("reg 5 ext 32 const8 0xff bit_and ext 32 end");
	assert_int_equal(opt_ext(&ir), 1);
	assert_nop(4);
	jit_ir_free(&ir);
	ax_prog_free(prog);
	decode("reg 5 ext 32 reg 4 ext 32 bit_xor ext 32 end");
	assert_int_equal(opt_ext(&ir), 1);
	assert_nop(5);
	jit_ir_free(&ir);
	ax_prog_free(prog);
	/* a logical shift of a negative int is no int: kept */
	decode("reg 5 ext 32 const8 2 rsh_unsigned ext 32 end");
	assert_int_equal(opt_ext(&ir), 0);
	jit_ir_free(&ir);
	ax_prog_free(prog);
	/* nor is ~ of a zero-extended value (ext 32 after zero_ext 32) */
	decode("reg 5 zero_ext 32 bit_not ext 32 end");
	assert_int_equal(opt_ext(&ir), 0);
}

static void test_ext_not_across_join(void **state)
{
	/*
	 * 0: reg 5; 3: ext 32; 5: dup; 6: if_goto 11; 9: ext 32 (removable:
	 * only reached by falling through); 11: ext 32, a jump target: kept,
	 * the pass forgets what it knows at every join.
	 */
	decode("reg 5 ext 32 dup if_goto 11 ext 32 ext 32 end");
	assert_int_equal(opt_ext(&ir), 1);
	assert_nop(4);
	assert_int_equal(ir.insn[5].op, AX_EXT);
}

/* ---- opt_const_fold ---- */

static void test_fold_binop(void **state)
{
	decode("const8 2 const8 3 add const8 4 mul end");
	assert_int_equal(opt_const_fold(&ir), 2);
	assert_int_equal(live_count(), 2);
	assert_int_equal(ir.insn[4].op, AX_CONST64);
	assert_int_equal(ir.insn[4].imm, 20);
	assert_int_equal(ir.insn[4].depth, 0);
}

static void test_fold_semantics(void **state)
{
	/* 1 lsh 65 = 2 (count mod 64); ~5; INT64_MIN / -1 */
	decode("const8 1 const8 65 lsh const8 5 bit_not add"
	       " const64 0x8000000000000000 const64 0xffffffffffffffff"
	       " div_signed add end");
	opt_const_fold(&ir);
	assert_int_equal(live_count(), 2);
	assert_int_equal(ir.insn[9].op, AX_CONST64);
	assert_int_equal(ir.insn[9].imm, 2 + ~5ULL + 0x8000000000000000ULL);
}

static void test_fold_keeps_div0(void **state)
{
	decode("const8 2 const8 0 div_signed end");
	assert_int_equal(opt_const_fold(&ir), 0);
	assert_int_equal(ir.insn[2].op, AX_DIV_SIGNED);
}

static void test_fold_if_goto(void **state)
{
	/* const8 1; if_goto 8; const8 5; end; 8: const8 6; end */
	decode("const8 1 if_goto 8 const8 5 end const8 6 end");
	assert_int_equal(opt_const_fold(&ir), 1);
	assert_nop(0);
	assert_int_equal(ir.insn[1].op, AX_GOTO);
	assert_int_equal(ir.insn[1].target, 4);
}

static void test_fold_not_across_target(void **state)
{
	/* const 1; const 1; dup; if_goto 11; pop; const 2; 11: add; end */
	decode("const8 1 const8 1 dup if_goto 11 pop const8 2 add end");
	opt_const_fold(&ir);
	assert_int_equal(ir.insn[6].op, AX_ADD);
	assert_int_equal(ir.insn[5].op, AX_CONST64);
}

/* ---- opt_swap ---- */

static void test_swap_compare(void **state)
{
	/* x > 0 as gdb writes it: reg 5; const8 0; swap; less_signed */
	decode("reg 5 const8 0 swap less_signed end");
	assert_int_equal(opt_swap(&ir), 1);
	assert_nop(2);
	assert_int_equal(ir.insn[3].op, JIT_CMP);
	assert_int_equal(ir.insn[3].cc, JCC_G);
}

static void test_swap_commutative_and_not(void **state)
{
	decode("reg 5 reg 4 swap add reg 3 swap sub end");
	assert_int_equal(opt_swap(&ir), 1);
	assert_nop(2);
	assert_int_equal(ir.insn[5].op, AX_SWAP);	/* before sub: stays */
}

/* ---- opt_dup_pop ---- */

static void test_dup_pop(void **state)
{
	decode("const8 5 dup pop reg 3 pop end");
	assert_int_equal(opt_dup_pop(&ir), 2);
	assert_int_equal(live_count(), 2);
	assert_int_equal(ir.insn[0].op, AX_CONST64);
}

static void test_dup_pop_keeps_side_effects(void **state)
{
	/* getv 1; pop: the hook may fail, so it stays */
	decode("getv 1 pop const8 0 end");
	assert_int_equal(opt_dup_pop(&ir), 0);
}

/* ---- opt_commute ---- */

static void test_commute(void **state)
{
	decode("const8 2 reg 5 mul const8 3 reg 4 less_signed end");
	assert_int_equal(opt_commute(&ir), 2);
	assert_int_equal(ir.insn[0].op, AX_REG);
	assert_int_equal(ir.insn[1].op, AX_CONST64);
	assert_int_equal(ir.insn[1].imm, 2);
	/* 3 < x  ==  x > 3 */
	assert_int_equal(ir.insn[3].op, AX_REG);
	assert_int_equal(ir.insn[4].imm, 3);
	assert_int_equal(ir.insn[5].cc, JCC_G);
}

/* ---- opt_operands ---- */

static void test_operands(void **state)
{
	decode("reg 5 const8 3 add reg 4 sub const64 0x100000000 bit_or"
	       " const8 0 rem_signed end");
	assert_int_equal(opt_operands(&ir), 2);
	assert_int_equal(ir.insn[2].src, JSRC_IMM);
	assert_int_equal(ir.insn[2].imm, 3);
	assert_int_equal(ir.insn[2].depth, 1);
	assert_int_equal(ir.insn[4].src, JSRC_REGS);
	assert_int_equal(ir.insn[4].imm, offsetof(struct pt_regs, si));
	/* 2^32 does not fit an imm32; a zero divisor stays a run-time op */
	assert_int_equal(ir.insn[6].src, JSRC_STACK);
	assert_int_equal(ir.insn[8].src, JSRC_STACK);
}

/* ---- opt_cmp_branch ---- */

static void test_cmp_branch(void **state)
{
	/* reg 5; reg 4; less_signed; log_not; if_goto 14; const 1; end;
	 * 14: const 2; end */
	decode("reg 5 reg 4 less_signed log_not if_goto 14 const8 1 end const8 2 end");
	assert_int_equal(opt_cmp_branch(&ir), 2);
	assert_nop(2);
	assert_nop(3);
	assert_int_equal(ir.insn[4].op, JIT_CMP_JCC);
	assert_int_equal(ir.insn[4].cc, JCC_GE);
	assert_int_equal(ir.insn[4].src, JSRC_STACK);
	assert_int_equal(ir.insn[4].depth, 2);
}

static void test_cmp_lognot(void **state)
{
	decode("reg 5 reg 4 less_unsigned log_not end");
	assert_int_equal(opt_cmp_branch(&ir), 1);
	assert_int_equal(ir.insn[3].op, JIT_CMP);
	assert_int_equal(ir.insn[3].cc, JCC_AE);
}

/* ---- shapes of compiled code ---- */

static char text[8192];

static const char *compile(const char *src)
{
	char log[128];

	prog = ax_test_prog(src, false);
	assert_int_equal(ax_jit_compile(prog, log, sizeof(log)), 0);
	assert_true(user_disasm(prog->jit_image, prog->jit_size, false, text,
				sizeof(text)) > 0);
	return text;
}

static int count_prefix(const char *t, const char *pfx)
{
	int n = 0;

	for (; *t; t = strchr(t, '\n') + 1) {
		n += !strncmp(t, pfx, strlen(pfx));
		if (!strchr(t, '\n'))
			break;
	}
	return n;
}

static void test_shape_table3(void **state)
{
	/* the paper's Table 3: no stack traffic at all */
	compile("const8 2 reg 5 ext 32 mul ext 32 const8 3 reg 4 ext 32 mul"
		" ext 32 add ext 32 const8 0 swap less_signed end");
	print_message("%s", text);
	assert_int_equal(count_prefix(text, "push"), 0);
	assert_int_equal(count_prefix(text, "pop"), 0);
	assert_null(strstr(text, "rsp"));
	assert_null(strstr(text, "rbp"));
	/* two pt_regs loads, sign-extending: the ext 32s are folded in */
	assert_int_equal(count_prefix(text, "movsxd rax, dword ptr [r11 + 0x70]"), 1);
	assert_int_equal(count_prefix(text, "movsxd rsi, dword ptr [r11 + 0x68]"), 1);
	/* the ext 32s after the products and the sum are gone (opt_low32,
	 * opt_cmp32): the compare tests the low 32 bits */
	assert_int_equal(count_prefix(text, "movsxd"), 2);
	/* swap + less_signed became one test + setg into rax */
	assert_non_null(strstr(text, "test eax, eax\nsetg al\nmovzx eax, al\nret\n"));
	assert_int_equal(count_prefix(text, "xchg"), 0);
}

/*
 * opt_low32 keeps an ext 32 whose consumer reads more than the low 32
 * bits (a right shift, a compare, a division) or whose consumer's result
 * is not extended again; opt_cmp32 only takes an immediate compare.
 */
static void test_low32_kept(void **state)
{
	static const struct {
		const char *src;
		int movsx;	/* movsxd/sign-extensions left */
	} cases[] = {
		/* the product's ext 32 goes, the last feeds a 32-bit compare */
		{ "reg 5 ext 32 reg 4 ext 32 mul ext 32 const8 0 less_signed end", 2 },
		/* a right shift reads the high half: its operand's ext stays */
		{ "reg 5 reg 4 add ext 32 const8 3 rsh_signed ext 32 end", 1 },
		/* not extended again: the operand's ext stays */
		{ "reg 5 reg 4 add ext 32 const8 3 add end", 1 },
		/* a compare of two values: both ext 32 stay */
		{ "reg 5 reg 4 add ext 32 reg 3 ext 32 less_signed end", 2 },
		/* dup copies the value: its ext stays */
		{ "reg 5 reg 4 add ext 32 dup mul ext 32 end", 2 },
	};
	unsigned int k;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		compile(cases[k].src);
		if (count_prefix(text, "movsxd") != cases[k].movsx)
			fail_msg("'%s': %d movsxd, not %d:\n%s", cases[k].src,
				 count_prefix(text, "movsxd"), cases[k].movsx,
				 text);
	}
}

static void test_shape_const_folded(void **state)
{
	compile("const8 2 const8 3 mul ext 32 end");
	/* the entry charge of the 5 insns, the constant, and the charge's
	 * error stub (which gives the steps back) */
	assert_string_equal(text, "sub dword ptr [rdi + 0x18], 5\njb 0xd\n"
			    "mov eax, 6\nret\nint3\n"
			    "add dword ptr [rdi + 0x18], 5\n"
			    "mov dword ptr [rdi + 0x1c], 3\n"
			    "mov qword ptr [rdi + 0x20], 0\n"
			    "xor eax, eax\nret\nint3\n");
}

static void test_shape_reg_direct(void **state)
{
	compile("reg 5 end");
	assert_non_null(strstr(text, "mov rax, qword ptr [r11 + 0x70]\nret"));
}

static void test_shape_pt_regs_operand(void **state)
{
	compile("reg 5 reg 4 add end");
	assert_non_null(strstr(text, "add rax, qword ptr [r11 + 0x68]"));
	assert_int_equal(count_prefix(text, "mov rsi, qword"), 0);
}

static void test_shape_cmp_jcc(void **state)
{
	/* gdb's "counter1 > 5 && counter2 < 3": no setcc, only cmp/jcc */
	compile("reg 5 ext 32 const8 5 swap less_signed if_goto 15 goto 34"
		" reg 4 ext 32 const8 3 less_signed if_goto 29 goto 34 const8 1"
		" goto 36 const8 0 end");
	assert_int_equal(count_prefix(text, "set"), 0);
	/* and the int arguments are compared in place */
	assert_int_equal(count_prefix(text, "cmp dword ptr [r11 + 0x70], 5"), 1);
	assert_int_equal(count_prefix(text, "cmp dword ptr [r11 + 0x68], 3"), 1);
	assert_int_equal(count_prefix(text, "movsxd"), 0);
}

static void test_compare_in_place_values(void **state)
{
	/* (int)x cc imm compared as dwords in place: every compare, either
	 * operand order, negated or not, at the edges of both orders */
	static const char *const cmps[] = {
		"equal", "less_signed", "less_unsigned", "swap less_signed",
		"swap less_unsigned", "equal log_not", "less_signed log_not",
		"swap less_unsigned log_not",
	};
	static const char *const imms[] = {
		"const8 0", "const8 5", "const16 0xffff ext 32",
		"const32 0x7fffffff", "const32 0x80000000 ext 32",
		"const32 0x80000001 ext 32",
	};
	static const s64 xs[] = {
		0, 1, -1, 5, 4, 6, 0x7fffffff, -0x80000000LL, -0x7fffffffLL,
		0x80000000LL, 0x100000005LL, -2,
	};
	char src[128];
	unsigned int c, m, x;

	for (c = 0; c < ARRAY_SIZE(cmps); c++) {
		for (m = 0; m < ARRAY_SIZE(imms); m++) {
			u64 (*jit)(struct ax_env *);

			snprintf(src, sizeof(src), "reg 5 ext 32 %s %s end",
				 imms[m], cmps[c]);
			compile(src);
			/* in place, but for 'x < 0' (load; shr 63) */
			assert_true(!count_prefix(text, "movsxd") ||
				    strstr(text, "shr rax, 0x3f"));
			jit = prog->jit;
			for (x = 0; x < ARRAY_SIZE(xs); x++) {
				struct pt_regs regs = { .di = (u64)xs[x] };
				struct ax_env e = { .regs = &regs };
				u64 vi, vj;

				prog->jit = NULL;
				vi = ax_run(prog, &e);
				prog->jit = jit;
				vj = ax_run(prog, &e);
				if (vi != vj)
					fail_msg("%s at x=%lld: interp %llu jit %llu",
						 src, (long long)xs[x],
						 (unsigned long long)vi,
						 (unsigned long long)vj);
			}
			ax_jit_free(prog);
			ax_prog_free(prog);
			prog = NULL;
		}
	}
}

static void test_shape_dup_pop_gone(void **state)
{
	compile("reg 5 dup pop dup pop end");
	assert_non_null(strstr(text, "mov rax, qword ptr [r11 + 0x70]\nret"));
	assert_int_equal(count_prefix(text, "mov rsi, qword"), 0);
}

static void test_shape_ext_gone_after_load(void **state)
{
	/* reg 5; ext 8; ext 16; ext 32: one movsx load */
	compile("reg 5 ext 8 ext 16 ext 32 end");
	assert_int_equal(count_prefix(text, "movsx"), 1);
	assert_non_null(strstr(text, "movsx rax, byte ptr [r11 + 0x70]"));
}

static void test_shape_div_by_const(void **state)
{
	/* a constant non-zero divisor needs no zero check */
	compile("reg 5 const8 7 div_signed end");
	assert_int_equal(count_prefix(text, "idiv"), 1);
	assert_int_equal(count_prefix(text, "test rcx"), 0);
	/* one error stub: the entry charge's */
	assert_int_equal(count_prefix(text, "mov dword ptr [rdi + 0x1c]"), 1);
	assert_int_equal(count_prefix(text, "mov dword ptr [rdi + 0x1c], 3"), 1);
}

static void test_shape_mul_pow2(void **state)
{
	compile("reg 5 const8 8 mul end");
	assert_non_null(strstr(text, "shl rax, 3"));
	assert_int_equal(count_prefix(text, "imul"), 0);
}

static void test_shape_test_mask(void **state)
{
	/* gdb's "!(counter1 & 1)": and + compare with 0 -> test */
	compile("reg 5 ext 32 const8 1 bit_and log_not end");
	assert_non_null(strstr(text, "test rax, 1\nsete al"));
	assert_int_equal(count_prefix(text, "and"), 0);
}

static void test_shape_sign_bit(void **state)
{
	/* gdb's "(short)counter2 < 0": one movsx word load, then the sign */
	compile("reg 4 ext 32 ext 16 const8 0 less_signed end");
	assert_non_null(strstr(text,
		"movsx rax, word ptr [r11 + 0x68]\nshr rax, 0x3f\nret"));
}

static void test_shape_unsigned_int(void **state)
{
	/* gdb's "(unsigned int)counter1 < 10u": a zero-extending load */
	compile("reg 5 ext 32 zero_ext 32 const8 10 less_unsigned end");
	assert_non_null(strstr(text, "mov eax, dword ptr [r11 + 0x70]\n"));
	assert_int_equal(count_prefix(text, "movsxd"), 0);
}

static void test_shape_and_no_jump_over_jump(void **state)
{
	/* gdb's "counter1 > 5 && counter2 < 3": two jcc, both returns
	 * inline: the only jmp is the NULL-regs stub's tail call, the
	 * third ret the entry charge's error stub's */
	compile("reg 5 ext 32 const8 5 swap less_signed if_goto 15 goto 34"
		" reg 4 ext 32 const8 3 less_signed if_goto 29 goto 34 const8 1"
		" goto 36 const8 0 end");
	assert_non_null(strstr(text, "jle"));
	assert_non_null(strstr(text, "jge"));
	assert_int_equal(count_prefix(text, "jmp 0x"), 0);
	assert_int_equal(count_prefix(text, "jmp rax"), 1);
	assert_int_equal(count_prefix(text, "ret"), 3);
}

static void test_shape_divrem_pow2(void **state)
{
	/* x op 2^k for k = 1, 4, 30, signed and unsigned: no div, and the
	 * interpreter's values (truncation towards zero) */
	static const char *const ops[] = {
		"div_signed", "div_unsigned", "rem_signed", "rem_unsigned",
	};
	static const char *const divs[] = {
		"const8 2", "const8 16", "const32 0x40000000",
	};
	static const s64 xs[] = {
		0, 1, -1, 15, -15, 16, -16, 17, -17, 0x7fffffff, -0x80000000LL,
		INT64_MAX, INT64_MIN, INT64_MIN + 1,
	};
	char src[128];
	unsigned int o, d, x;

	for (o = 0; o < 4; o++) {
		for (d = 0; d < 3; d++) {
			u64 (*jit)(struct ax_env *);

			snprintf(src, sizeof(src), "reg 5 %s %s end", divs[d],
				 ops[o]);
			compile(src);
			assert_int_equal(count_prefix(text, "idiv"), 0);
			assert_int_equal(count_prefix(text, "div"), 0);
			jit = prog->jit;
			for (x = 0; x < ARRAY_SIZE(xs); x++) {
				struct pt_regs regs = { .di = (u64)xs[x] };
				struct ax_env e = { .regs = &regs };
				u64 vi, vj;

				prog->jit = NULL;
				vi = ax_run(prog, &e);
				prog->jit = jit;
				vj = ax_run(prog, &e);
				assert_int_equal(vi, vj);
			}
			ax_jit_free(prog);
			ax_prog_free(prog);
			prog = NULL;
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_teardown(f, teardown)
		T(test_decode_normalizes),
		T(test_decode_reg_offset),
		T(test_load_ext),
		T(test_load_ext_ref),
		T(test_ext_after_const),
		T(test_ext_after_ext),
		T(test_ext_after_compare_and_ref),
		T(test_ext_narrower_kept),
		T(test_ext_after_width_keeping_ops),
		T(test_ext_not_across_join),
		T(test_fold_binop),
		T(test_fold_semantics),
		T(test_fold_keeps_div0),
		T(test_fold_if_goto),
		T(test_fold_not_across_target),
		T(test_swap_compare),
		T(test_swap_commutative_and_not),
		T(test_dup_pop),
		T(test_dup_pop_keeps_side_effects),
		T(test_commute),
		T(test_operands),
		T(test_cmp_branch),
		T(test_cmp_lognot),
		T(test_shape_table3),
		T(test_low32_kept),
		T(test_shape_const_folded),
		T(test_shape_reg_direct),
		T(test_shape_pt_regs_operand),
		T(test_shape_cmp_jcc),
		T(test_compare_in_place_values),
		T(test_shape_dup_pop_gone),
		T(test_shape_ext_gone_after_load),
		T(test_shape_div_by_const),
		T(test_shape_mul_pow2),
		T(test_shape_test_mask),
		T(test_shape_sign_bit),
		T(test_shape_unsigned_int),
		T(test_shape_and_no_jump_over_jump),
		T(test_shape_divrem_pow2),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
