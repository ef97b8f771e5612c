// SPDX-License-Identifier: GPL-2.0
/*
 * test_fuzz_ax_verify.c - the verifier against a second, deliberately
 * different implementation of the same rules, on random programs.
 *
 * The model below decides acceptance with a naive fixpoint (sweep all
 * insns in order until no depth changes) instead of the verifier's
 * worklist, keeps depth sets as plain arrays, and checks every rule in one
 * place.  For each random program (fixed seed, so runs repeat) both must
 * agree on accept/refuse; on acceptance the decoded form must match the
 * model insn by insn (offsets, lengths, operands, jump indexes, depths,
 * max depth, backjump).  Accepted programs are then run with a small step
 * budget: run under ASan/UBSan (see the report) this is what shows that
 * the verifier's guarantees are enough for the interpreter's unchecked
 * stack.
 *
 * The generator writes mostly well-formed code (it tracks the depth and
 * picks jump targets on insn boundaries) with a few random faults mixed
 * in, so both outcomes are common; one program in ten only pushes, to
 * reach the stack limit.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "ax.h"
#include "ax_ops.h"
#include "ax_test.h"

#define NPROGS		40000
#define MAX_INSNS	100

static u64 rng_state = 0x9e3779b97f4a7c15ULL;

static u32 rnd(u32 n)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (u32)((rng_state * 0x2545f4914f6cdd1dULL) >> 32) % n;
}

/* --- the model --------------------------------------------------------- */

struct model {
	u32 ninsns;
	u32 off[AX_MAX_CODE], len[AX_MAX_CODE];
	u8 op[AX_MAX_CODE];
	u64 imm[AX_MAX_CODE];
	int depth[AX_MAX_CODE];	/* -1 = unreached */
	u32 max_depth;
	bool backjump;
};

static int stack_need(u8 op, u64 imm)
{
	switch (op) {
	case AX_ADD: case AX_SUB: case AX_MUL: case AX_DIV_SIGNED:
	case AX_DIV_UNSIGNED: case AX_REM_SIGNED: case AX_REM_UNSIGNED:
	case AX_LSH: case AX_RSH_SIGNED: case AX_RSH_UNSIGNED:
	case AX_BIT_AND: case AX_BIT_OR: case AX_BIT_XOR: case AX_EQUAL:
	case AX_LESS_SIGNED: case AX_LESS_UNSIGNED: case AX_SWAP:
	case AX_TRACE: case AX_TRACENZ:
		return 2;
	case AX_ROT:
		return 3;
	case AX_PICK:
		return imm + 1;
	case AX_CONST8: case AX_CONST16: case AX_CONST32: case AX_CONST64:
	case AX_REG: case AX_GETV: case AX_TRACEV: case AX_GOTO: case AX_END:
		return 0;
	default:
		return 1;
	}
}

/* depth after - depth before */
static int stack_pushes(u8 op)
{
	switch (op) {
	case AX_TRACE: case AX_TRACENZ:
		return -2;
	case AX_IF_GOTO: case AX_POP:
		return -1;
	case AX_CONST8: case AX_CONST16: case AX_CONST32: case AX_CONST64:
	case AX_REG: case AX_GETV: case AX_DUP: case AX_PICK:
		return 1;
	case AX_GOTO: case AX_END: case AX_TRACEV:
	case AX_LOG_NOT: case AX_BIT_NOT: case AX_EXT: case AX_ZERO_EXT:
	case AX_REF8: case AX_REF16: case AX_REF32: case AX_REF64:
	case AX_TRACE_QUICK: case AX_TRACE16: case AX_SETV: case AX_SWAP:
	case AX_ROT:
		return 0;
	default:
		return -1;	/* binary operators */
	}
}

static int operand_bytes(u8 op)
{
	switch (op) {
	case AX_TRACE_QUICK: case AX_EXT: case AX_ZERO_EXT: case AX_CONST8:
	case AX_PICK:
		return 1;
	case AX_IF_GOTO: case AX_GOTO: case AX_CONST16: case AX_REG:
	case AX_GETV: case AX_SETV: case AX_TRACEV: case AX_TRACE16:
		return 2;
	case AX_CONST32:
		return 4;
	case AX_CONST64:
		return 8;
	default:
		return 0;
	}
}

static bool supported(u8 op)
{
	return (op >= AX_ADD && op <= AX_REF64) ||
	       (op >= AX_IF_GOTO && op <= AX_TRACE16) ||
	       op == AX_PICK || op == AX_ROT;
}

static bool is_jump(u8 op)
{
	return op == AX_IF_GOTO || op == AX_GOTO;
}

/* true when the rules accept @code */
static bool model_check(struct model *m, const u8 *code, u32 len, bool cond)
{
	int at[AX_MAX_CODE + 1];
	bool changed = true;
	u32 i, o, k;

	if (!len || len > AX_MAX_CODE)
		return false;
	memset(m, 0, sizeof(*m));
	for (o = 0; o <= len; o++)
		at[o] = -1;
	for (o = 0; o < len; o += m->len[m->ninsns++]) {
		u8 op = code[o];
		u32 n = operand_bytes(op);

		if (!supported(op) || o + 1 + n > len)
			return false;
		m->off[m->ninsns] = o;
		m->len[m->ninsns] = 1 + n;
		m->op[m->ninsns] = op;
		for (k = 0; k < n; k++)
			m->imm[m->ninsns] = m->imm[m->ninsns] << 8 |
					    code[o + 1 + k];
		if (op == AX_REG && m->imm[m->ninsns] >= AX_NR_GDB_REGS)
			return false;
		if ((op == AX_EXT || op == AX_ZERO_EXT) &&
		    (m->imm[m->ninsns] < 1 || m->imm[m->ninsns] > 64))
			return false;
		at[o] = m->ninsns;
	}
	for (i = 0; i < m->ninsns; i++) {
		if (!is_jump(m->op[i]))
			continue;
		if (m->imm[i] >= len || at[m->imm[i]] < 0)
			return false;
		m->imm[i] = at[m->imm[i]];
		if (m->imm[i] <= i)
			m->backjump = true;
	}
	for (i = 0; i < m->ninsns; i++)
		m->depth[i] = -1;
	m->depth[0] = 0;
	while (changed) {
		changed = false;
		for (i = 0; i < m->ninsns; i++) {
			int d = m->depth[i], after, succ[2], ns = 0, s;
			u8 op = m->op[i];

			if (d < 0)
				continue;
			if (d < stack_need(op, m->imm[i]))
				return false;
			after = d + stack_pushes(op);
			if (after > AX_MAX_STACK)
				return false;
			if ((u32)after > m->max_depth)
				m->max_depth = after;
			if (op == AX_END) {
				if (cond && d == 0)
					return false;
				continue;
			}
			if (is_jump(op))
				succ[ns++] = m->imm[i];
			if (op != AX_GOTO) {
				if (i + 1 == m->ninsns)
					return false;
				succ[ns++] = i + 1;
			}
			for (s = 0; s < ns; s++) {
				if (m->depth[succ[s]] < 0) {
					m->depth[succ[s]] = after;
					changed = true;
				} else if (m->depth[succ[s]] != after) {
					return false;
				}
			}
		}
	}
	for (i = 0; i < m->ninsns; i++)
		if (m->depth[i] < 0)
			return false;
	return true;
}

/* --- the generator ------------------------------------------------------ */

static const u8 gen_ops[] = {
	AX_ADD, AX_SUB, AX_MUL, AX_DIV_SIGNED, AX_DIV_UNSIGNED,
	AX_REM_SIGNED, AX_REM_UNSIGNED, AX_LSH, AX_RSH_SIGNED,
	AX_RSH_UNSIGNED, AX_TRACE, AX_TRACE_QUICK, AX_LOG_NOT, AX_BIT_AND,
	AX_BIT_OR, AX_BIT_XOR, AX_BIT_NOT, AX_EQUAL, AX_LESS_SIGNED,
	AX_LESS_UNSIGNED, AX_EXT, AX_REF8, AX_REF16, AX_REF32, AX_REF64,
	AX_IF_GOTO, AX_GOTO, AX_CONST8, AX_CONST16, AX_CONST32, AX_CONST64,
	AX_REG, AX_END, AX_DUP, AX_POP, AX_ZERO_EXT, AX_SWAP, AX_GETV,
	AX_SETV, AX_TRACEV, AX_TRACENZ, AX_TRACE16, AX_PICK, AX_ROT,
};

static const u8 push_ops[] = {
	AX_CONST8, AX_CONST16, AX_CONST64, AX_REG, AX_GETV, AX_DUP, AX_PICK,
};

static u32 generate(u8 *code)
{
	u32 offs[MAX_INSNS + 1], jumps[MAX_INSNS], nj = 0;
	bool deep = rnd(10) == 0;	/* reach for the stack limit */
	int cap = deep ? AX_MAX_STACK + 1 : 6;
	u32 n = deep ? AX_MAX_STACK - 4 + rnd(8) : 1 + rnd(40), len = 0, i, k;
	int depth = 0;

	for (i = 0; i < n; i++) {
		u8 op;
		int tries = 0;

		/* mostly ops the current depth allows */
		do {
			op = deep ? push_ops[rnd(ARRAY_SIZE(push_ops))] :
				    gen_ops[rnd(ARRAY_SIZE(gen_ops))];
		} while (tries++ < 8 && (op == AX_END ||
			 stack_need(op, 0) > depth ||
			 depth + stack_pushes(op) > cap));
		if (!deep && rnd(50) == 0)
			op = rnd(256);		/* anything at all */
		offs[i] = len;
		code[len++] = op;
		for (k = 0; k < (u32)operand_bytes(op); k++)
			code[len++] = rnd(256);
		switch (op) {
		case AX_REG:
			code[len - 2] = 0;
			code[len - 1] = !deep && rnd(20) == 0 ?
				AX_NR_GDB_REGS : rnd(AX_NR_GDB_REGS);
			break;
		case AX_EXT:
		case AX_ZERO_EXT:
			code[len - 1] = rnd(30) == 0 ? rnd(256) : 1 + rnd(64);
			break;
		case AX_PICK:
			code[len - 1] = rnd(depth + !deep + 1);
			break;
		case AX_GETV: case AX_SETV: case AX_TRACEV:
			code[len - 2] = 0;
			break;
		case AX_IF_GOTO:
		case AX_GOTO:
			jumps[nj++] = len - 2;
			break;
		case AX_TRACE16:
			code[len - 2] = 0;
			break;
		}
		depth += stack_pushes(op);
		if (depth < 0)
			depth = 0;
	}
	offs[n] = len;
	if (rnd(10))
		code[len++] = AX_END;
	/* jump targets: usually an insn boundary, forward more often */
	for (i = 0; i < nj; i++) {
		u32 t = rnd(8) == 0 ? rnd(len + 2) : offs[rnd(n + 1)];

		code[jumps[i]] = t >> 8;
		code[jumps[i] + 1] = t;
	}
	return len;
}

/* --- the test ----------------------------------------------------------- */

static void check_same(const struct model *m, const struct ax_prog *prog)
{
	u32 i;

	assert_int_equal(prog->ninsns, m->ninsns);
	assert_int_equal(prog->max_depth, m->max_depth);
	assert_int_equal(prog->backjump, m->backjump);
	for (i = 0; i < m->ninsns; i++) {
		assert_int_equal(prog->insns[i].op, m->op[i]);
		assert_int_equal(prog->insns[i].off, m->off[i]);
		assert_int_equal(prog->insns[i].len, m->len[i]);
		assert_int_equal(prog->insns[i].imm, m->imm[i]);
		assert_int_equal(prog->insns[i].depth, m->depth[i]);
	}
}

static void test_verifier_matches_model(void **state)
{
	static const u8 mem[64] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	static struct model m;
	u32 accepted = 0, refused = 0, ran_err = 0, looped = 0, i;
	struct pt_regs regs;
	u8 code[AX_MAX_CODE];

	memset(&regs, 0, sizeof(regs));
	regs.di = 0x1000;
	regs.si = 3;
	for (i = 0; i < NPROGS; i++) {
		bool cond = rnd(2);
		u32 len = generate(code);
		bool want = model_check(&m, code, len, cond);
		struct ax_prog *prog;
		struct ax_env env;
		char log[128];
		int ret;

		ret = ax_verify(code, len, cond, &prog, log, sizeof(log));
		if (ret != (want ? 0 : -EINVAL)) {
			char hex[3 * AX_MAX_CODE + 1];
			u32 k;

			for (k = 0; k < len; k++)
				sprintf(hex + 3 * k, "%02x ", code[k]);
			fail_msg("verifier %d (%s), model %s, cond %d: %s", ret,
				 log, want ? "accepts" : "refuses", cond, hex);
		}
		if (!want) {
			assert_true(log[0] != '\0');
			refused++;
			continue;
		}
		accepted++;
		check_same(&m, prog);

		user_env_reset();
		assert_int_equal(user_env_add_region(0x1000, mem,
						     sizeof(mem)), 0);
		memset(&env, 0, sizeof(env));
		env.regs = &regs;
		env.steps = 1000;
		ax_interp(prog, &env);
		assert_true(env.err <= AX_ERR_TSV);
		if (env.err)
			ran_err++;
		if (env.err == AX_ERR_BUDGET)
			looped++;
		ax_prog_free(prog);
	}
	print_message("%u programs: %u accepted (%u stopped on an error, %u on the budget), %u refused\n",
		      NPROGS, accepted, ran_err, looped, refused);
	/* the generator must exercise both sides */
	assert_true(accepted > NPROGS / 20);
	assert_true(refused > NPROGS / 20);
	assert_true(looped > 0);
}

/* Random bytes: never a crash, always a reason, offsets in range. */
static void test_random_bytes(void **state)
{
	u8 code[64];
	u32 i, k;

	for (i = 0; i < NPROGS; i++) {
		u32 len = rnd(sizeof(code) + 1);
		struct ax_prog *prog;
		char log[128];
		unsigned int at;
		int ret;

		for (k = 0; k < len; k++)
			code[k] = rnd(256);
		ret = ax_verify(code, len, rnd(2), &prog, log, sizeof(log));
		if (!ret) {
			ax_prog_free(prog);
			continue;
		}
		assert_int_equal(ret, -EINVAL);
		assert_true(log[0] != '\0');
		if (sscanf(log, "insn at %u:", &at) == 1)
			assert_true(at < len);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verifier_matches_model),
		cmocka_unit_test(test_random_bytes),
	};

	user_env_reset();
	return cmocka_run_group_tests_name("ax_verify_fuzz", tests, NULL,
					   NULL);
}
