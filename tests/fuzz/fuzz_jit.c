// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_jit.c - differential fuzzer: the JIT against the interpreter.
 *
 *   build/fuzz_jit NPROGS [SEED]
 *
 * Generates NPROGS random well-formed programs (straight-line code plus
 * if / if-else / loop constructs, so forward and backward jumps, every
 * opcode the verifier accepts), verifies and JIT-compiles each, and runs
 * both engines on several random inputs (registers, readable memory,
 * trace limits, env->regs == NULL).  Every run must agree on the value,
 * env->err, env->err_pc, every trace/tracev record and every trace state
 * variable.  The first disagreement is printed as a gtp-ax command line
 * and the fuzzer exits 1.  Exits 1 too if the JIT refuses a program or
 * if too many generated programs fail verification (a generator bug would
 * otherwise hollow out the test).
 *
 * Conditions that can fail in nothing (facts.plain) are also joined, two
 * to four at a time, by ax_cond_any() (the condition several tracepoints
 * on one function share): the joined program must hold exactly when one
 * of its parts does, interpreted, and the JIT must agree on it too.
 *
 * The comparison (fuzz_jit_diff()) is shared with the coverage-guided
 * harness tests/fuzz/fuzz_ax.c, which compiles this file with
 * -DFUZZ_JIT_NO_MAIN and feeds it bytecode instead of generated programs.
 */
#include "jit.h"
#include "ax_any.h"
#include "user_env.h"

#define MAX_LABELS	64
#define NR_INPUTS	4

static u64 rng_state;

static u64 rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static u32 rn(u32 n)
{
	return rnd() % n;
}

/*
 * Two readable regions; everything else faults.  B (a kernel-like address)
 * is a direct region: 'const; ref' into it compiles to a plain load
 * (jit_bind_direct) where the whole range fits, the hook otherwise.
 */
#define REGION_A	0x10000ULL
#define REGION_B	0xffffffff81000000ULL
#define REGION_LEN	64

static const u64 interesting[] = {
	0, 1, 2, 3, 7, 8, 31, 32, 63, 64, 65, 127, 128, 255, 256,
	0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ULL,
	0x7fffffffffffffffULL, 0x8000000000000000ULL,
	0xffffffffffffffffULL, 0xfffffffffffffffeULL, 0xffffffff80000000ULL,
	REGION_A, REGION_A + 60, REGION_B, REGION_B + 62,
};

static u64 rnd_value(void)
{
	switch (rn(4)) {
	case 0:
		return interesting[rn(ARRAY_SIZE(interesting))];
	case 1:
		return rn(20) - 10;
	case 2:
		return rnd();
	default:
		return (u64)(s64)(s32)rnd();
	}
}

struct gen {
	u8 code[AX_MAX_CODE];
	u32 len;
	int depth;
	int nest;
	int nlabels;
	int label_pos[MAX_LABELS];
	int nfix;
	struct { int at, label; } fix[MAX_LABELS * 2];
	bool overflow;
};

static void b1(struct gen *g, u8 b)
{
	if (g->len >= AX_MAX_CODE - 16) {
		g->overflow = true;
		return;
	}
	g->code[g->len++] = b;
}

static void op(struct gen *g, u8 o, int delta)
{
	b1(g, o);
	g->depth += delta;
}

static void be(struct gen *g, u64 v, int bytes)
{
	while (bytes--)
		b1(g, v >> (8 * bytes));
}

static void push_const(struct gen *g, u64 v)
{
	if (v < 0x100 && rn(2)) {
		op(g, AX_CONST8, 1);
		be(g, v, 1);
	} else if (v < 0x10000 && rn(2)) {
		op(g, AX_CONST16, 1);
		be(g, v, 2);
	} else if (v < 0x100000000ULL && rn(2)) {
		op(g, AX_CONST32, 1);
		be(g, v, 4);
	} else {
		op(g, AX_CONST64, 1);
		be(g, v, 8);
	}
}

static int new_label(struct gen *g)
{
	if (g->nlabels >= MAX_LABELS)
		return -1;
	g->label_pos[g->nlabels] = -1;
	return g->nlabels++;
}

static void place(struct gen *g, int l)
{
	g->label_pos[l] = g->len;
}

static void jump(struct gen *g, u8 o, int l)
{
	op(g, o, o == AX_IF_GOTO ? -1 : 0);
	g->fix[g->nfix].at = g->len;
	g->fix[g->nfix++].label = l;
	be(g, 0, 2);
}

static void gen_block(struct gen *g, int nops);

/* One straight-line op, keeping the depth in [0, 40]. */
static void gen_op(struct gen *g)
{
	int d = g->depth;
	u8 o;

	switch (rn(d >= 40 ? 4 : d >= 2 ? 12 : d >= 1 ? 8 : 2)) {
	case 0: case 1:
		if (d < 40) {
			if (rn(3))
				push_const(g, rnd_value());
			else {
				op(g, AX_REG, 1);
				be(g, rn(AX_NR_GDB_REGS), 2);
			}
			break;
		}
		fallthrough;
	case 2: case 3:
		if (d >= 1) {
			op(g, AX_POP, -1);
			break;
		}
		push_const(g, rnd_value());
		break;
	case 4:
		o = (u8[]){ AX_LOG_NOT, AX_BIT_NOT, AX_EXT, AX_ZERO_EXT,
			    AX_REF8, AX_REF16, AX_REF32, AX_REF64 }[rn(8)];
		if (o >= AX_REF8 && o <= AX_REF64 && rn(3)) {
			/* mostly readable addresses */
			op(g, AX_POP, -1);
			push_const(g, (rn(2) ? REGION_A : REGION_B) +
					      rn(REGION_LEN + 4));
		}
		op(g, o, 0);
		if (o == AX_EXT || o == AX_ZERO_EXT)
			be(g, (u8[]){ 1, 7, 8, 15, 16, 31, 32, 33, 63, 64,
				      8, 16, 32 }[rn(13)], 1);
		break;
	case 5:
		switch (rn(7)) {
		case 0:
			op(g, AX_DUP, 1);
			break;
		case 1:
			op(g, AX_PICK, 1);
			be(g, rn(d), 1);
			break;
		case 2:
			op(g, AX_TRACE_QUICK, 0);
			be(g, rn(9), 1);
			break;
		case 3:
			op(g, AX_SETV, 0);
			be(g, rn(5) ? rn(7) : 300, 2);
			break;
		case 4:
			op(g, AX_TRACEV, 0);
			be(g, rn(5) ? rn(7) : 300, 2);
			break;
		case 5:
			op(g, AX_GETV, 1);
			be(g, rn(5) ? rn(7) : 300, 2);
			break;
		default:
			/* trace addr size */
			push_const(g, (rn(2) ? REGION_A : REGION_B) + rn(70));
			if (rn(6))
				push_const(g, rn(12));
			else
				op(g, AX_PICK, 1), be(g, 1, 1);
			op(g, rn(2) ? AX_TRACE : AX_TRACENZ, -2);
			break;
		}
		break;
	case 6: case 7:
		if (d >= 1 && g->nest < 3) {
			gen_block(g, 0);	/* a control construct */
			break;
		}
		push_const(g, rnd_value());
		break;
	default:
		/* binary ops, swap, rot */
		o = (u8[]){ AX_ADD, AX_SUB, AX_MUL, AX_DIV_SIGNED,
			    AX_DIV_UNSIGNED, AX_REM_SIGNED, AX_REM_UNSIGNED,
			    AX_LSH, AX_RSH_SIGNED, AX_RSH_UNSIGNED,
			    AX_BIT_AND, AX_BIT_OR, AX_BIT_XOR, AX_EQUAL,
			    AX_LESS_SIGNED, AX_LESS_UNSIGNED, AX_SWAP,
			    AX_ROT, AX_ADD, AX_LESS_SIGNED }[rn(20)];
		if (o == AX_ROT && d < 3)
			o = AX_SWAP;
		op(g, o, o == AX_SWAP || o == AX_ROT ? 0 : -1);
		break;
	}
}

/* Bring the depth back to @d (pops, or pushes of constants). */
static void rebalance(struct gen *g, int d)
{
	while (g->depth > d)
		op(g, rn(2) ? AX_POP : AX_ADD, -1);
	while (g->depth < d)
		push_const(g, rnd_value());
}

static void gen_line(struct gen *g, int nops)
{
	int start = g->depth;

	while (nops-- > 0 && !g->overflow)
		gen_op(g);
	rebalance(g, start);
}

/*
 * nops > 0: straight-line code.  nops == 0: one control construct at the
 * current depth d >= 1, leaving the depth where it was:
 *   if:      c; if_goto L; <line>; L:
 *   if-else: c; if_goto T; <line>; goto E; T: <line>; E:
 *   loop:    L: <line>; c; if_goto L        (the budget may run out)
 *   loop2:   L: <line>; c; if_goto X; goto L; X:
 * where c is the current top (dup'ed or consumed and replaced).
 */
static void gen_block(struct gen *g, int nops)
{
	int l1, l2, d = g->depth;

	if (nops) {
		gen_line(g, nops);
		return;
	}
	g->nest++;
	l1 = new_label(g);
	l2 = new_label(g);
	if (l1 < 0 || l2 < 0) {
		g->nest--;
		return;
	}
	switch (rn(4)) {
	case 0:
		op(g, AX_DUP, 1);
		jump(g, AX_IF_GOTO, l1);
		gen_line(g, 1 + rn(6));
		place(g, l1);
		break;
	case 1:
		op(g, AX_DUP, 1);
		jump(g, AX_IF_GOTO, l1);
		gen_line(g, 1 + rn(6));
		jump(g, AX_GOTO, l2);
		place(g, l1);
		gen_line(g, 1 + rn(6));
		place(g, l2);
		break;
	case 2:
		if (rn(4)) {
			/* a counted loop: $7 = n; do { ... } while (--$7) */
			push_const(g, 1 + rn(11));
			op(g, AX_SETV, 0);
			be(g, 7, 2);
			op(g, AX_POP, -1);
			place(g, l1);
			gen_line(g, 1 + rn(6));
			op(g, AX_GETV, 1);
			be(g, 7, 2);
			push_const(g, 1);
			op(g, AX_SUB, -1);
			op(g, AX_SETV, 0);
			be(g, 7, 2);
			if (rn(2)) {
				/* 0 < $7: a compare fused into the back jump */
				push_const(g, 0);
				op(g, AX_SWAP, 0);
				op(g, AX_LESS_SIGNED, -1);
			}
			jump(g, AX_IF_GOTO, l1);
			break;
		}
		/* loops on the top: mostly until the budget runs out */
		place(g, l1);
		gen_line(g, 1 + rn(6));
		op(g, AX_DUP, 1);
		jump(g, AX_IF_GOTO, l1);
		break;
	default:
		if (rn(4)) {
			push_const(g, 1 + rn(11));
			op(g, AX_SETV, 0);
			be(g, 7, 2);
			op(g, AX_POP, -1);
		}
		place(g, l1);
		gen_line(g, rn(4));
		op(g, AX_GETV, 1);
		be(g, 7, 2);
		push_const(g, 1);
		op(g, AX_SUB, -1);
		op(g, AX_SETV, 0);
		be(g, 7, 2);
		op(g, AX_LOG_NOT, 0);
		jump(g, AX_IF_GOTO, l2);
		jump(g, AX_GOTO, l1);
		place(g, l2);
		break;
	}
	rebalance(g, d);
	g->nest--;
}

/* Unused (with all the generator) when built -DFUZZ_JIT_NO_MAIN. */
static __maybe_unused bool gen_program(struct gen *g)
{
	int i;

	memset(g, 0, sizeof(*g));
	push_const(g, rnd_value());
	gen_line(g, 1 + rn(30));
	if (!g->depth || rn(4) == 0)
		push_const(g, rnd_value());
	op(g, AX_END, 0);
	if (g->overflow)
		return false;
	for (i = 0; i < g->nfix; i++) {
		int at = g->fix[i].at, pos = g->label_pos[g->fix[i].label];

		if (pos < 0)
			return false;
		g->code[at] = pos >> 8;
		g->code[at + 1] = pos;
	}
	return true;
}

struct result {
	u64 val;
	u32 err;
	u64 err_pc;
	u64 digest;
};

static u8 region_a[REGION_LEN], region_b[REGION_LEN];

/* Also what the next compile sees (the direct region's address). */
static void add_regions(void)
{
	user_env_reset();
	user_env_add_region(REGION_A, region_a, REGION_LEN);
	user_env_add_direct_region(REGION_B, region_b, REGION_LEN);
}

static struct result run(struct ax_prog *prog, struct pt_regs *regs,
			 int trace_limit, const s64 *tsv)
{
	struct ax_env env = { .regs = regs };
	struct result r = { 0 };
	unsigned int i, j;

	add_regions();
	if (trace_limit >= 0)
		user_env_set_trace_limit(trace_limit);
	for (i = 0; i < 8; i++)
		user_env_set_tsv(i, tsv[i]);
	r.val = ax_run(prog, &env);
	r.err = env.err;
	r.err_pc = env.err_pc;
	if (r.err)
		r.val = 0;
	for (i = 0; i < user_env_nr_traces(); i++) {
		const struct user_env_trace *t = user_env_trace(i);

		r.digest = r.digest * 31 + t->addr * 7 + t->size * 3 +
			   t->len + t->upto_nul;
		for (j = 0; j < t->len; j++)
			r.digest = r.digest * 131 + t->data[j];
	}
	for (i = 0; i < user_env_nr_tracevs(); i++)
		r.digest = r.digest * 37 + user_env_tracev(i)->tsv * 5 +
			   (u64)user_env_tracev(i)->val;
	for (i = 0; i < 8; i++)
		r.digest = r.digest * 7 + (u64)user_env_tsv(i);
	return r;
}

static void report(const u8 *code, u32 len, const struct pt_regs *regs,
		   const struct result *ri, const struct result *rj)
{
	u32 i;

	fprintf(stderr, "MISMATCH: interp val=0x%llx err=%u pc=%llu digest=%llx"
		" | jit val=0x%llx err=%u pc=%llu digest=%llx\n",
		(unsigned long long)ri->val, ri->err,
		(unsigned long long)ri->err_pc, (unsigned long long)ri->digest,
		(unsigned long long)rj->val, rj->err,
		(unsigned long long)rj->err_pc, (unsigned long long)rj->digest);
	fprintf(stderr, "jit/gtp-ax --disasm");
	for (i = 0; i < AX_NR_GDB_REGS; i++) {
		u64 v = *(const unsigned long *)((const u8 *)regs +
						 ax_reg_offset(i));
		if (v)
			fprintf(stderr, " --reg %u=0x%llx", i,
				(unsigned long long)v);
	}
	fprintf(stderr, " ");
	for (i = 0; i < len; i++)
		fprintf(stderr, "%02x", code[i]);
	fprintf(stderr, "\n");
}

static long runs, errors;
static long by_err[AX_ERR_INTERNAL + 1];

/* Also the interface of tests/fuzz/fuzz_ax.c (declared there too). */
void fuzz_jit_seed(u64 seed);
int fuzz_jit_diff(struct ax_prog *prog, const u8 *code, u32 len);

void fuzz_jit_seed(u64 seed)
{
	rng_state = seed | 1;
	add_regions();
}

/*
 * Run @prog (verified and JIT-compiled from @code) with both engines on
 * NR_INPUTS random inputs.  Returns 0 if every run agrees, else prints
 * the first disagreement and returns 1.
 */
int fuzz_jit_diff(struct ax_prog *prog, const u8 *code, u32 len)
{
	int k, i;

	for (k = 0; k < NR_INPUTS; k++) {
		struct pt_regs regs;
		struct result ri, rj;
		u64 (*jit)(struct ax_env *) = prog->jit;
		int limit = rn(4) ? -1 : (int)rn(4);
		s64 tsv[8];
		bool noregs = rn(16) == 0;

		for (i = 0; i < REGION_LEN; i++) {
			region_a[i] = rnd();
			region_b[i] = rn(3) ? rnd() : 0;
		}
		for (i = 0; i < 8; i++)
			tsv[i] = rnd_value();
		memset(&regs, 0, sizeof(regs));
		for (i = 0; i < AX_NR_GDB_REGS; i++)
			user_env_set_reg(&regs, i, rnd_value());

		prog->jit = NULL;
		ri = run(prog, noregs ? NULL : &regs, limit, tsv);
		prog->jit = jit;
		rj = run(prog, noregs ? NULL : &regs, limit, tsv);
		runs++;
		errors += ri.err != 0;
		if (ri.err <= AX_ERR_INTERNAL)
			by_err[ri.err]++;
		if (ri.val != rj.val || ri.err != rj.err ||
		    ri.err_pc != rj.err_pc || ri.digest != rj.digest) {
			report(code, len, &regs, &ri, &rj);
			return 1;
		}
	}
	return 0;
}

#ifndef FUZZ_JIT_NO_MAIN
#define ANY_POOL	4

/* The last plain programs verified, to join; owned here. */
static struct ax_prog *any_pool[ANY_POOL];
static unsigned int any_n;
static long any_joined, any_refused;

static void any_keep(struct ax_prog *prog)
{
	unsigned int i = any_n < ANY_POOL ? any_n++ : rn(ANY_POOL);

	if (any_pool[i])
		ax_prog_free(any_pool[i]);
	any_pool[i] = prog;
}

/* Interpreted: does any of @parts hold on @regs, in order, as joined? */
static bool any_holds(struct ax_prog **parts, unsigned int n,
		      struct pt_regs *regs)
{
	const s64 tsv[8] = { 0 };
	unsigned int i;

	for (i = 0; i < n; i++)
		if (run(parts[i], regs, -1, tsv).val)
			return true;
	return false;
}

/* Join 2..4 of the pool; 0, or 1 after printing a disagreement. */
static int any_check(void)
{
	struct ax_prog *parts[ANY_POOL], *any = NULL;
	unsigned int n = 2 + rn(any_n - 1), i, k;
	const s64 tsv[8] = { 0 };
	char log[128];

	for (i = 0; i < n; i++)
		parts[i] = any_pool[rn(any_n)];
	if (ax_cond_any(parts, n, &any, log, sizeof(log))) {
		any_refused++;
		return 0;
	}
	any_joined++;
	for (k = 0; k < NR_INPUTS; k++) {
		struct pt_regs regs;
		struct result r;

		memset(&regs, 0, sizeof(regs));
		for (i = 0; i < AX_NR_GDB_REGS; i++)
			user_env_set_reg(&regs, i, rnd_value());
		r = run(any, &regs, -1, tsv);
		if (r.err || !r.val != !any_holds(parts, n, &regs)) {
			fprintf(stderr, "MISMATCH: %u conditions joined: val=0x%llx err=%u, parts say %d\n",
				n, (unsigned long long)r.val, r.err,
				any_holds(parts, n, &regs));
			for (i = 0; i < n; i++)
				report(parts[i]->code, parts[i]->code_len,
				       &regs, &r, &r);
			return 1;
		}
	}
	if (ax_jit_compile(any, log, sizeof(log))) {
		fprintf(stderr, "JIT refused a joined condition: %s\n", log);
		return 1;
	}
	if (fuzz_jit_diff(any, any->code, any->code_len))
		return 1;
	ax_jit_free(any);
	ax_prog_free(any);
	return 0;
}

int main(int argc, char **argv)
{
	long nprogs = argc > 1 ? atol(argv[1]) : 1000;
	u64 seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x9e3779b97f4a7c15ULL;
	long done = 0, refused = 0, jitted = 0, direct = 0;
	struct gen g;
	char log[256];

	fuzz_jit_seed(seed);
	while (done < nprogs) {
		struct ax_prog *prog = NULL;

		if (!gen_program(&g))
			continue;
		done++;
		if (ax_verify(g.code, g.len, rn(2), &prog, log, sizeof(log))) {
			if (refused++ < 5)
				fprintf(stderr, "refused: %s\n", log);
			continue;
		}
		if (ax_jit_compile(prog, log, sizeof(log))) {
			fprintf(stderr, "JIT refused a verified program: %s\n",
				log);
			report(g.code, g.len, &(struct pt_regs){ 0 },
			       &(struct result){ 0 }, &(struct result){ 0 });
			return 1;
		}
		jitted++;
		direct += prog->jit_npins > 0;
		if (fuzz_jit_diff(prog, g.code, g.len))
			return 1;
		ax_jit_free(prog);
		if (!prog->facts.plain) {
			ax_prog_free(prog);
			continue;
		}
		any_keep(prog);
		if (any_n >= 2 && any_check())
			return 1;
	}
	while (any_n)
		ax_prog_free(any_pool[--any_n]);
	printf("fuzz-jit: %ld programs (%ld refused by the verifier, %ld "
	       "compiled), %ld runs (%ld stopped by an error), all agree\n",
	       done, refused, jitted, runs, errors);
	printf("fuzz-jit: outcomes: ok %ld, mem %ld, div0 %ld, budget %ld, "
	       "trace %ld, reg %ld, tsv %ld\n", by_err[0], by_err[AX_ERR_MEM],
	       by_err[AX_ERR_DIV0], by_err[AX_ERR_BUDGET], by_err[AX_ERR_TRACE],
	       by_err[AX_ERR_REG], by_err[AX_ERR_TSV]);
	printf("fuzz-jit: %ld programs with direct loads\n", direct);
	printf("fuzz-jit: %ld plain conditions joined by ax_cond_any (%ld refused), all hold exactly when a part does\n",
	       any_joined, any_refused);
	if (user_env_nr_pins()) {
		fprintf(stderr, "fuzz-jit: %u pins left\n", user_env_nr_pins());
		return 1;
	}
	if (refused * 10 > done) {
		fprintf(stderr, "fuzz-jit: too many refused programs\n");
		return 1;
	}
	return 0;
}
#endif /* FUZZ_JIT_NO_MAIN */
