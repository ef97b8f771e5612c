// SPDX-License-Identifier: GPL-2.0
/*
 * jit_bench.c - ns per evaluation of the corpus conditions (real gdb
 * bytecode, tests/bench/corpus/conditions.txt): our interpreter, our JIT,
 * and the same C expression compiled by gcc -O2 as a function of the same
 * struct pt_regs (tests/bench/gen_native.sh).  One run, one table.
 *
 *   build/bench/jit_bench CORPUS [EVALS_PER_BATCH] [BATCHES]
 *
 * Each engine evaluates every condition over the same 64 argument pairs
 * (the Fig. 11 loop's (i, i-1) plus negatives); each engine is called
 * through a function pointer with the hit's struct ax_env, as ax_run()
 * calls them in a probe (the gcc functions have the JIT's signature and
 * read env->regs).  Every evaluation starts a hit's step budget (one
 * store, as the probe's precheck does, in every column), and the
 * interpreter and the JIT pay it (ax.h).  The three must agree on every input (checked first;
 * a disagreement is reported and the benchmark exits 1).  Time per
 * evaluation is the median over BATCHES batches, the engines interleaved
 * within each batch so that machine noise hits them alike.
 *
 * Module globals are read by the bytecode with ref32 at their unrelocated
 * addresses (the '@sym' lines).  user_env maps those addresses onto the
 * real globals the gcc function reads, as direct regions: the interpreter
 * reads them through ax_hook_read(), the JIT with a plain load, as it does
 * in the kernel for a module gtp pins (module/services/jit_direct.c).
 */
#include <time.h>
#include "jit.h"
#include "user_env.h"
#include "user_host.h"

extern u64 (*const native_fns[])(struct ax_env *);
extern const int native_count;

int gtp_test_calls = 150, loop_counter1 = 3, loop_counter2 = 4;

#define MAX_CONDS	64
#define NR_INPUTS	64

struct cond {
	char expr[160];
	u8 code[AX_MAX_CODE];
	u32 len;
	struct ax_prog *prog;
	double ns[3];	/* interp, jit, gcc */
};

static struct cond conds[MAX_CONDS];
static int nconds;
static struct pt_regs inputs[NR_INPUTS];

static int hexval(int c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

static void add_global(const char *name, u64 addr)
{
	int *var = !strcmp(name, "gtp_test_calls") ? &gtp_test_calls :
		   !strcmp(name, "loop_counter1") ? &loop_counter1 :
		   !strcmp(name, "loop_counter2") ? &loop_counter2 : NULL;

	if (!var) {
		fprintf(stderr, "jit_bench: unknown global %s\n", name);
		exit(1);
	}
	user_env_add_direct_region(addr, var, sizeof(*var));
}

static void load_corpus(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[4096], name[64], *tab, *p;
	unsigned long long addr;

	if (!f) {
		perror(path);
		exit(1);
	}
	while (fgets(line, sizeof(line), f)) {
		struct cond *c = &conds[nconds];

		if (sscanf(line, "@sym %63s %llx", name, &addr) == 2) {
			add_global(name, addr);
			continue;
		}
		tab = strchr(line, '\t');
		if (line[0] == '#' || !tab || nconds >= MAX_CONDS)
			continue;
		*tab = 0;
		snprintf(c->expr, sizeof(c->expr), "%.159s", line);
		for (p = tab + 1; p[0] && p[1] && p[0] != '\n'; p += 2)
			c->code[c->len++] = hexval(p[0]) << 4 | hexval(p[1]);
		nconds++;
	}
	fclose(f);
}

static double now_ns(void)
{
	struct timespec ts;

	/* CPU time of this thread: other load on the machine drops out */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

u64 jit_bench_sink;	/* results go here so no loop is optimized away */

/*
 * engine 0: ax_interp(), 1: the JIT image, 2: the gcc function; each
 * called directly with this hit's env: mean ns (of this thread's CPU
 * time) per evaluation.
 */
static double time_batch(struct cond *c, int idx, int engine, long evals)
{
	u64 (*volatile native)(struct ax_env *) = native_fns[idx];
	u64 (*volatile jit)(struct ax_env *) = c->prog->jit;
	struct ax_env env = { 0 };
	u64 acc = 0;
	double t0, t1;
	long i;

	t0 = now_ns();
	switch (engine) {
	case 0:
		for (i = 0; i < evals; i++) {
			env.regs = &inputs[i & (NR_INPUTS - 1)];
			env.steps = AX_STEP_BUDGET;
			acc += ax_interp(c->prog, &env);
		}
		break;
	case 1:
		for (i = 0; i < evals; i++) {
			env.regs = &inputs[i & (NR_INPUTS - 1)];
			env.steps = AX_STEP_BUDGET;
			acc += jit(&env);
		}
		break;
	default:
		for (i = 0; i < evals; i++) {
			env.regs = &inputs[i & (NR_INPUTS - 1)];
			env.steps = AX_STEP_BUDGET;
			acc += native(&env);
		}
		break;
	}
	t1 = now_ns();
	jit_bench_sink += acc;
	return (t1 - t0) / evals;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* All three engines agree on every input, or the numbers mean nothing. */
static bool check(struct cond *c, int idx)
{
	u64 (*jit)(struct ax_env *) = c->prog->jit;
	struct ax_env env = { 0 };
	u64 vi, vj, vn;
	int i;

	for (i = 0; i < NR_INPUTS; i++) {
		env.regs = &inputs[i];
		c->prog->jit = NULL;
		vi = ax_run(c->prog, &env);
		c->prog->jit = jit;
		vj = ax_run(c->prog, &env);
		vn = native_fns[idx](&env);
		if (vi != vj || vj != vn || env.err) {
			fprintf(stderr, "jit_bench: '%s' disagrees at (%d, %d): "
				"interp %#llx jit %#llx gcc %#llx err %u\n",
				c->expr, (int)inputs[i].di, (int)inputs[i].si,
				(unsigned long long)vi, (unsigned long long)vj,
				(unsigned long long)vn, env.err);
			return false;
		}
	}
	return true;
}

int main(int argc, char **argv)
{
	long evals = argc > 2 ? atol(argv[2]) : 200000;
	int batches = argc > 3 ? atoi(argv[3]) : 9;
	double samples[3][64], med[3], r_ij[MAX_CONDS], r_jn[MAX_CONDS];
	char log[256];
	int i, b, e, bad = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: jit_bench CORPUS [EVALS] [BATCHES]\n");
		return 64;
	}
	if (batches > 64)
		batches = 64;
	user_env_reset();
	/* images near our text, as the kernel's are near kernel text */
	user_exec_near = true;
	load_corpus(argv[1]);
	if (nconds != native_count) {
		fprintf(stderr, "jit_bench: %d conditions but %d C functions\n",
			nconds, native_count);
		return 1;
	}
	for (i = 0; i < NR_INPUTS; i++) {
		int c1 = i < 40 ? i + 1 : -(i * 37 % 1000);
		int c2 = i < 40 ? i : i * 11 % 100 - 50;

		inputs[i].di = (u64)(s64)c1;
		inputs[i].si = (u64)(s64)c2;
	}

	for (i = 0; i < nconds; i++) {
		struct cond *c = &conds[i];

		if (ax_verify(c->code, c->len, true, &c->prog, log,
			      sizeof(log))) {
			fprintf(stderr, "jit_bench: '%s' refused: %s\n",
				c->expr, log);
			return 1;
		}
		if (ax_jit_compile(c->prog, log, sizeof(log))) {
			fprintf(stderr, "jit_bench: '%s' not compiled: %s\n",
				c->expr, log);
			return 1;
		}
		if (!check(c, i))
			bad++;
	}
	if (bad)
		return 1;

	printf("%-48s %9s %9s %9s %10s %8s\n", "condition (gdb 13 bytecode)",
	       "interp", "jit", "gcc -O2", "interp/jit", "jit/gcc");
	for (i = 0; i < nconds; i++) {
		struct cond *c = &conds[i];

		for (b = 0; b < batches; b++)
			for (e = 0; e < 3; e++)
				samples[e][b] = time_batch(c, i, e, evals);
		for (e = 0; e < 3; e++)
			c->ns[e] = median(samples[e], batches);
		r_ij[i] = c->ns[0] / c->ns[1];
		r_jn[i] = c->ns[1] / c->ns[2];
		printf("%-48.48s %9.2f %9.2f %9.2f %10.1f %8.2f\n", c->expr,
		       c->ns[0], c->ns[1], c->ns[2], r_ij[i], r_jn[i]);
	}
	for (e = 0; e < 3; e++) {
		for (i = 0; i < nconds; i++)
			samples[e][i] = conds[i].ns[e];
		med[e] = median(samples[e], nconds);
	}
	printf("%-48s %9.2f %9.2f %9.2f %10.1f %8.2f\n",
	       "MEDIAN (ns/eval; ratios: median of per-row)", med[0], med[1],
	       med[2], median(r_ij, nconds), median(r_jn, nconds));
	printf("targets: JIT >= 10x interpreter: %s (%.1fx); "
	       "JIT within 1.5x of gcc -O2: %s (%.2fx)\n",
	       median(r_ij, nconds) >= 10 ? "met" : "NOT met",
	       median(r_ij, nconds),
	       median(r_jn, nconds) <= 1.5 ? "met" : "NOT met",
	       median(r_jn, nconds));
	for (i = 0; i < nconds; i++) {
		ax_jit_free(conds[i].prog);
		ax_prog_free(conds[i].prog);
	}
	return 0;
}
