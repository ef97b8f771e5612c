// SPDX-License-Identifier: GPL-2.0
/*
 * test_jit_corpus.c - the conditions real gdb compiled
 * (tests/bench/corpus/conditions.txt, see gen.sh there) through the JIT:
 * each compiles, agrees with the interpreter on the Fig. 11 loop's
 * arguments and on extreme ones (module globals readable at their
 * unrelocated addresses, as the benchmark does), and those that read only
 * registers compile to leaf code: no push, no pop, no stack memory, no
 * call.
 * Run from the top of the tree (make unit does).
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

#define CORPUS "tests/bench/corpus/conditions.txt"

static int count_prefix(const char *t, const char *pfx)
{
	int n = 0;

	while (*t) {
		n += !strncmp(t, pfx, strlen(pfx));
		t = strchr(t, '\n');
		if (!t)
			break;
		t++;
	}
	return n;
}

static void check_one(const char *expr, const char *hex, bool has_globals)
{
	static const s32 args[] = { 0, 1, 2, 3, 5, 7, 10, 97, 100, 255, -1,
				    -3, -128, 0x7fffffff, -0x7fffffff - 1 };
	u8 code[AX_MAX_CODE + 16];
	struct ax_prog *prog = ax_test_verify(code, ax_test_hex(hex, code,
								sizeof(code)),
					      true, hex);
	u64 (*jit)(struct ax_env *);
	char log[256], text[8192];
	unsigned int i, j;

	if (ax_jit_compile(prog, log, sizeof(log)))
		fail_msg("'%s': %s", expr, log);
	jit = prog->jit;
	assert_true(user_disasm(prog->jit_image, prog->jit_size, false, text,
				sizeof(text)) > 0);
	if (!has_globals) {
		if (count_prefix(text, "push") || count_prefix(text, "pop") ||
		    strstr(text, "rsp") || count_prefix(text, "call"))
			fail_msg("'%s' is not leaf code:\n%s", expr, text);
	}
	for (i = 0; i < ARRAY_SIZE(args); i++)
		for (j = 0; j < ARRAY_SIZE(args); j++) {
			struct pt_regs regs = { 0 };
			struct ax_env ei = { .regs = &regs }, ej = ei;
			u64 vi, vj;

			regs.di = (u64)(s64)args[i];
			regs.si = (u64)(s64)args[j];
			prog->jit = NULL;
			vi = ax_run(prog, &ei);
			prog->jit = jit;
			vj = ax_run(prog, &ej);
			if (vi != vj || ei.err != ej.err ||
			    ei.err_pc != ej.err_pc)
				fail_msg("'%s' (%d, %d): interp %#llx/%u, "
					 "jit %#llx/%u", expr, args[i],
					 args[j], (unsigned long long)vi,
					 ei.err, (unsigned long long)vj,
					 ej.err);
		}
	ax_jit_free(prog);
	ax_prog_free(prog);
}

static void test_corpus(void **state)
{
	FILE *f = fopen(CORPUS, "r");
	char line[4096], *tab, *nl;
	int n = 0, nconds = 0;

	assert_non_null(f);
	user_env_reset();
	while (fgets(line, sizeof(line), f)) {
		char name[64];
		unsigned long long addr;

		/* a module global: readable, with a value of its own */
		if (sscanf(line, "@sym %63s %llx", name, &addr) == 2) {
			s32 v = 90 + 7 * n++;

			assert_int_equal(user_env_add_region(addr, &v,
							     sizeof(v)), 0);
			continue;
		}
		if (line[0] == '#')
			continue;
		tab = strchr(line, '\t');
		if (!tab)
			continue;
		*tab = 0;
		nl = strchr(tab + 1, '\n');
		if (nl)
			*nl = 0;
		check_one(line, tab + 1, strstr(line, "gtp_test_calls") ||
					 strstr(line, "loop_counter"));
		nconds++;
	}
	fclose(f);
	assert_true(nconds >= 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
