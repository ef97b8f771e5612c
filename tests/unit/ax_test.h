/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ax_test.h - helpers shared by the agent-expression unit tests: bytecode
 * written with gdb's opcode names ("const8 2 reg 5 add end", assembled by
 * ax_test_asm() below), verified and run through the real
 * ax_verify()/ax_run() against user_env's memory and hooks.
 *
 * Include after <cmocka.h>.
 */
#ifndef GTP_AX_TEST_H
#define GTP_AX_TEST_H

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "ax.h"
#include "ax_ops.h"
#include "user_env.h"

/*
 * Hex text "22 02 26 0005" -> bytes; spaces optional.  Returns the byte
 * count.  For bytecode kept as data, as gdb sent it (the JIT corpus);
 * tests write theirs with ax_test_asm().
 */
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

/* The opcode byte gdb's ax.def names @name (module/core/ax_ops.c), or -1. */
static inline int ax_test_opcode(const char *name, size_t len)
{
	int op;

	for (op = 0; op < 256; op++) {
		const char *nm = ax_op_info(op)->name;

		if (nm && strlen(nm) == len && !strncmp(nm, name, len))
			return op;
	}
	return -1;
}

/*
 * The number at @s ("12", "0xff", "-3") into *@v as 64 bits (negative:
 * two's complement); the end of the token, or NULL if it is not a number.
 */
static inline const char *ax_test_number(const char *s, u64 *v)
{
	char *end;

	if (*s == '-')
		*v = -strtoull(s + 1, &end, 0);
	else
		*v = strtoull(s, &end, 0);
	if (end == s + (*s == '-') || (*end && !isspace((unsigned char)*end)))
		return NULL;
	return end;
}

/*
 * A tiny assembler for test bytecode, so that a test reads as the
 * program it is ("const8 3 reg 5 add end"), with the opcode names and
 * operand sizes of module/core/ax_ops.c.  Tokens, separated by blanks:
 *
 *   NAME N   an instruction; N (decimal, 0x hex, or negative for two's
 *            complement) is its operand, big-endian in as many bytes as
 *            ax_ops.c gives it.  An opcode with an operand must have one.
 *   .NAME    the opcode byte alone, for truncated or odd programs
 *   N        one raw byte (an unknown opcode, a truncated operand)
 *
 * Returns the byte count.
 */
static inline u32 ax_test_asm(const char *src, u8 *out, size_t max)
{
	const char *s = src;
	u32 n = 0;

	for (;;) {
		const struct ax_op_info *info;
		const char *tok;
		size_t len;
		const char *end;
		bool bare;
		u64 v;
		int op, i;

		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			return n;
		tok = s;
		while (*s && !isspace((unsigned char)*s))
			s++;
		len = s - tok;
		if (isdigit((unsigned char)*tok) || *tok == '-') {
			/* a raw byte */
			if (ax_test_number(tok, &v) != s || v > 0xff)
				fail_msg("bad byte '%.*s' in \"%s\"",
					 (int)len, tok, src);
			assert_true(n < max);
			out[n++] = v;
			continue;
		}
		bare = *tok == '.';
		op = ax_test_opcode(tok + bare, len - bare);
		if (op < 0)
			fail_msg("unknown opcode '%.*s' in \"%s\"",
				 (int)len, tok, src);
		assert_true(n < max);
		out[n++] = op;
		info = ax_op_info(op);
		if (bare || !info->operand)
			continue;
		/* the operand: one number, as wide as ax_ops.c says */
		while (isspace((unsigned char)*s))
			s++;
		end = ax_test_number(s, &v);
		if (!end)
			fail_msg("%s needs a %u-byte operand in \"%s\"",
				 info->name, info->operand, src);
		/* fits unsigned, or (negative) sign-extends from the operand */
		if (info->operand < 8 && v >> (8 * info->operand) &&
		    (*s != '-' ||
		     (s64)v < -(1LL << (8 * info->operand - 1))))
			fail_msg("operand %.*s too wide for %s in \"%s\"",
				 (int)(end - s), s, info->name, src);
		s = end;
		assert_true(n + info->operand <= max);
		for (i = info->operand - 1; i >= 0; i--)
			out[n++] = v >> (8 * i);
	}
}

/*
 * Verify @len bytes of @code, failing the test with the verifier's reason
 * (and @what, the program as written) if refused.
 */
static inline struct ax_prog *ax_test_verify(const u8 *code, u32 len,
					     bool is_cond, const char *what)
{
	char log[256];
	struct ax_prog *prog = NULL;
	int ret = ax_verify(code, len, is_cond, &prog, log, sizeof(log));

	if (ret)
		fail_msg("refused: %s (%d) for %s", log, ret, what);
	assert_non_null(prog);
	return prog;
}

/* Assemble and verify @src (ax_test_asm()). */
static inline struct ax_prog *ax_test_prog(const char *src, bool is_cond)
{
	u8 code[AX_MAX_CODE + 16];
	u32 len = ax_test_asm(src, code, sizeof(code));

	return ax_test_verify(code, len, is_cond, src);
}

/* Verify and evaluate @src once with @regs (may be NULL); err in @env. */
static inline u64 ax_test_run(const char *src, struct pt_regs *regs,
			      struct ax_env *env)
{
	struct ax_prog *prog = ax_test_prog(src, false);
	u64 ret;

	memset(env, 0, sizeof(*env));
	env->regs = regs;
	ret = ax_run(prog, env);
	ax_prog_free(prog);
	return ret;
}

#endif /* GTP_AX_TEST_H */
