// SPDX-License-Identifier: GPL-2.0
/*
 * test_jit_direct.c - the JIT's direct loads (jit_bind_direct, host.h
 * jit_direct): which 'const A; refN' become a plain load, through the
 * userspace host (user_env's direct regions stand for kernel data and
 * pinned module data), that the result and the errors stay ax_interp()'s,
 * and that every pin is released with the image.
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
static char text[8192];

static int setup(void **state)
{
	user_env_reset();
	return 0;
}

static int teardown(void **state)
{
	if (prog) {
		ax_jit_free(prog);
		ax_prog_free(prog);
	}
	prog = NULL;
	assert_int_equal(user_env_nr_pins(), 0);
	user_env_reset();
	return 0;
}

static void compile(const char *src)
{
	char log[128];

	prog = ax_test_prog(src, true);
	assert_int_equal(ax_jit_compile(prog, log, sizeof(log)), 0);
	assert_true(user_disasm(prog->jit_image, prog->jit_size, false, text,
				sizeof(text)) > 0);
}

static bool calls_hook(void)
{
	return strstr(text, "call") || strstr(text, "jmp r");
}

/* The JIT and the interpreter agree on value, err and err_pc. */
static u64 run_both(u32 faults, u32 *err)
{
	struct ax_env ei = { .faults = faults }, ej = { .faults = faults };
	u64 (*jit)(struct ax_env *) = prog->jit;
	u64 vi, vj;

	prog->jit = NULL;
	vi = ax_run(prog, &ei);
	prog->jit = jit;
	vj = ax_run(prog, &ej);
	assert_int_equal(vi, vj);
	assert_int_equal(ei.err, ej.err);
	assert_int_equal(ei.err_pc, ej.err_pc);
	*err = ej.err;
	return vj;
}

/* const16 0x1000; ref32; ext 32; const8 0; less_signed: (int)*0x1000 < 0 */
#define LESS0_AT_1000	"const16 0x1000 ref32 ext 32 const8 0 less_signed end"

static void test_direct_region_loads(void **state)
{
	s32 v = -7;
	u32 err;

	assert_int_equal(user_env_add_direct_region(0x1000, &v, 4), 0);
	compile(LESS0_AT_1000);
	print_message("%s", text);
	assert_false(calls_hook());
	assert_non_null(strstr(text, "movsxd rax, dword ptr [rcx]"));
	/* the fault budget is still checked (ax_hook_read()'s rule) */
	assert_non_null(strstr(text, "cmp dword ptr [rdi + 0x28], 0x80"));
	assert_int_equal(user_env_nr_pins(), 1);
	assert_int_equal(run_both(0, &err), 1);
	assert_int_equal(err, 0);
	assert_int_equal(user_env_nr_reads(), 1);	/* the interpreter's */
}

static void test_direct_false(void **state)
{
	s32 v = 150;
	u32 err;

	assert_int_equal(user_env_add_direct_region(0x1000, &v, 4), 0);
	compile(LESS0_AT_1000);
	assert_false(calls_hook());
	assert_int_equal(run_both(0, &err), 0);
	assert_int_equal(err, 0);
}

static void test_plain_region_keeps_hook(void **state)
{
	s32 v = -7;
	u32 err;

	assert_int_equal(user_env_add_region(0x1000, &v, 4), 0);
	compile(LESS0_AT_1000);
	assert_true(calls_hook());
	assert_int_equal(user_env_nr_pins(), 0);
	assert_int_equal(run_both(0, &err), 1);
}

static void test_range_past_region_end(void **state)
{
	u8 bytes[6] = { 1, 2, 3, 4, 5, 6 };
	u32 err;

	/* ref32 at 0x1004 would read 0x1004..0x1007: two bytes past the end */
	assert_int_equal(user_env_add_direct_region(0x1000, bytes, 6), 0);
	compile("const16 0x1004 ref32 end");
	assert_true(calls_hook());
	assert_int_equal(user_env_nr_pins(), 0);
	run_both(0, &err);
	assert_int_equal(err, AX_ERR_MEM);
	/* the last whole word is fine, unaligned or not */
	ax_jit_free(prog);
	ax_prog_free(prog);
	compile("const16 0x1002 ref32 end");
	assert_false(calls_hook());
	assert_int_equal(run_both(0, &err), 0x06050403);
}

static void test_shadowed_region_keeps_hook(void **state)
{
	s32 v = -7;
	u8 b = 0;
	u32 err;

	/* a newer ordinary region over one byte: not one direct mapping */
	assert_int_equal(user_env_add_direct_region(0x1000, &v, 4), 0);
	assert_int_equal(user_env_add_region(0x1003, &b, 1), 0);
	compile(LESS0_AT_1000);
	assert_true(calls_hook());
	run_both(0, &err);
	assert_int_equal(err, 0);
}

static void test_address_not_constant(void **state)
{
	s32 v = -7;
	u32 err;

	/* const 0xfff; const 1; add; ref32: folded first, so still direct */
	assert_int_equal(user_env_add_direct_region(0x1000, &v, 4), 0);
	compile("const16 0xfff const8 1 add ref32 end");
	assert_false(calls_hook());
	assert_int_equal(run_both(0, &err), (u32)-7);
	ax_jit_free(prog);
	ax_prog_free(prog);
	/* from a register (gdb's "*(int *)$rdi"): never */
	compile("reg 5 ref32 end");
	assert_true(calls_hook());
	assert_int_equal(user_env_nr_pins(), 0);
}

static void test_fault_budget_applies(void **state)
{
	s32 v = -7;
	u32 err;

	assert_int_equal(user_env_add_direct_region(0x1000, &v, 4), 0);
	compile(LESS0_AT_1000);
	assert_false(calls_hook());
	assert_int_equal(run_both(AX_HIT_FAULTS_MAX, &err), 0);
	assert_int_equal(err, AX_ERR_MEM);
	assert_int_equal(run_both(AX_HIT_FAULTS_MAX - 1, &err), 1);
	assert_int_equal(err, 0);
}

static void test_every_size_and_sign(void **state)
{
	u8 bytes[8] = { 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88 };
	static const char *const progs[] = {
		"const16 0x1000 ref8 end", "const16 0x1000 ref8 ext 8 end",
		"const16 0x1000 ref16 end", "const16 0x1000 ref16 ext 16 end",
		"const16 0x1000 ref32 end", "const16 0x1000 ref32 ext 32 end",
		"const16 0x1000 ref64 end",
	};
	unsigned int i;
	u32 err;

	assert_int_equal(user_env_add_direct_region(0x1000, bytes, 8), 0);
	for (i = 0; i < ARRAY_SIZE(progs); i++) {
		compile(progs[i]);
		assert_false(calls_hook());
		run_both(0, &err);
		assert_int_equal(err, 0);
		ax_jit_free(prog);
		ax_prog_free(prog);
		prog = NULL;
	}
}

static void test_pins_follow_images(void **state)
{
	s32 v = 1;

	/* two direct loads: two pins, both gone with the image */
	assert_int_equal(user_env_add_direct_region(0x1000, &v, 4), 0);
	compile("const16 0x1000 ref32 const16 0x1000 ref32 add end");
	assert_int_equal(user_env_nr_pins(), 2);
	ax_jit_free(prog);
	assert_int_equal(user_env_nr_pins(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_direct_region_loads),
		T(test_direct_false),
		T(test_plain_region_keeps_hook),
		T(test_range_past_region_end),
		T(test_shadowed_region_keeps_hook),
		T(test_address_not_constant),
		T(test_fault_budget_applies),
		T(test_every_size_and_sign),
		T(test_pins_follow_images),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
