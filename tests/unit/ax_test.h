/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ax_test.h - helpers shared by the agent-expression unit tests: bytecode
 * written as hex text ("22 02 26 00 05 ..."), verified and run through
 * the real ax_verify()/ax_run() against user_env's memory and hooks.
 *
 * Include after <cmocka.h>.
 */
#ifndef GTP_AX_TEST_H
#define GTP_AX_TEST_H

#include <ctype.h>
#include "ax.h"
#include "user_env.h"

/* "22 02 26 0005" -> bytes; spaces optional.  Returns the byte count. */
static inline u32 ax_test_hex(const char *hex, u8 *out, size_t max)
{
	u32 n = 0;
	int hi = -1;

	for (; *hex; hex++) {
		int d;

		if (isspace((unsigned char)*hex))
			continue;
		assert_true(isxdigit((unsigned char)*hex));
		d = isdigit((unsigned char)*hex) ? *hex - '0' :
			tolower((unsigned char)*hex) - 'a' + 10;
		if (hi < 0) {
			hi = d;
			continue;
		}
		assert_true(n < max);
		out[n++] = hi << 4 | d;
		hi = -1;
	}
	assert_int_equal(hi, -1);	/* whole bytes only */
	return n;
}

/* Verify @hex, failing the test with the verifier's reason if refused. */
static inline struct ax_prog *ax_test_prog(const char *hex, bool is_cond)
{
	u8 code[AX_MAX_CODE + 16];
	char log[256];
	struct ax_prog *prog = NULL;
	u32 len = ax_test_hex(hex, code, sizeof(code));
	int ret = ax_verify(code, len, is_cond, &prog, log, sizeof(log));

	if (ret)
		fail_msg("refused: %s (%d) for %s", log, ret, hex);
	assert_non_null(prog);
	return prog;
}

/* Verify and evaluate @hex once with @regs (may be NULL); err in @env. */
static inline u64 ax_test_run(const char *hex, struct pt_regs *regs,
			      struct ax_env *env)
{
	struct ax_prog *prog = ax_test_prog(hex, false);
	u64 ret;

	memset(env, 0, sizeof(*env));
	env->regs = regs;
	ret = ax_run(prog, env);
	ax_prog_free(prog);
	return ret;
}

#endif /* GTP_AX_TEST_H */
