// SPDX-License-Identifier: GPL-2.0
/*
 * gtp-ax - evaluate one agent expression with the interpreter, the JIT, or
 * both, against given registers and readable memory.
 *
 *   jit/gtp-ax [--mode interp|jit|both] [--disasm] [--iters K]
 *              [--reg N=VALUE]... [--mem ADDR=HEX]... BYTECODE_HEX
 *
 * N is gdb's amd64 register number (0 rax .. 15 r15, 16 rip), VALUE decimal
 * or 0x-hex; registers not given are 0.  --mem makes the bytes HEX readable
 * at ADDR; any other read faults.  Output, one line per mode:
 *
 *   interp=0x<hex> | interp=fault
 *   jit=0x<hex>    | jit=fault
 *
 * then "MISMATCH" (exit 1) in --mode both when they differ: in the value,
 * in whether or which error stopped them, or in what they traced/set.
 * A program ax_verify() refuses: the reason on stderr, exit 2.  --iters K
 * adds interp_ns=<f> / jit_ns=<f> (mean over K evaluations); --disasm
 * prints the JIT code, one instruction per line.  Usage errors exit 64,
 * a program the JIT cannot compile exits 3 (the reason on stderr).
 *
 * Memory and hooks come from tests/unit/user_env.c, the same world the
 * unit tests use.
 */
#include <getopt.h>
#include <time.h>
#include "jit.h"
#include "user_env.h"
#include "user_disasm.h"

#define MAX_MEM		64

struct mem_arg {
	u64 addr;
	u8 *bytes;
	size_t len;
};

static struct mem_arg mems[MAX_MEM];
static int nmems;

static void usage(void)
{
	fprintf(stderr,
		"usage: gtp-ax [--mode interp|jit|both] [--disasm] [--iters K]\n"
		"              [--reg N=VALUE]... [--mem ADDR=HEX]... BYTECODE_HEX\n");
	exit(64);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* hex text (spaces allowed) -> bytes; returns the count or -1 */
static long parse_hex(const char *s, u8 *out, size_t max)
{
	size_t n = 0;
	int hi = -1, d;

	for (; *s; s++) {
		if (*s == ' ' || *s == '\t' || *s == '\n')
			continue;
		d = hexval((unsigned char)*s);
		if (d < 0)
			return -1;
		if (hi < 0) {
			hi = d;
			continue;
		}
		if (n >= max)
			return -1;
		out[n++] = hi << 4 | d;
		hi = -1;
	}
	return hi < 0 ? (long)n : -1;
}

/* BYTECODE_HEX may contain spaces, or come split into several words. */
static const char *join_args(int n, char **words)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; i < n; i++)
		len += strlen(words[i]);
	s = calloc(1, len);
	if (!s)
		exit(64);
	for (i = 0; i < n; i++)
		strcat(s, words[i]);
	return s;
}

static bool parse_u64(const char *s, u64 *v)
{
	char *end;

	if (!*s)
		return false;
	errno = 0;
	if (s[0] == '-')
		*v = (u64)strtoll(s, &end, 0);
	else
		*v = strtoull(s, &end, 0);
	return !errno && !*end;
}

/* A fresh world: the --mem regions, no records, variables 0. */
static void reset_world(void)
{
	int i;

	user_env_reset();
	for (i = 0; i < nmems; i++)
		if (user_env_add_region(mems[i].addr, mems[i].bytes,
					mems[i].len)) {
			fprintf(stderr, "gtp-ax: bad --mem region\n");
			exit(64);
		}
}

struct outcome {
	u64 val;
	u32 err;
	u64 err_pc;
	unsigned int ntraces, ntracevs;
	u64 trace_sum;	/* a digest of what was traced */
};

static struct outcome run_once(struct ax_prog *prog, struct pt_regs *regs)
{
	struct ax_env env = { .regs = regs };
	struct outcome o = { 0 };
	unsigned int i, j;

	reset_world();
	o.val = ax_run(prog, &env);
	o.err = env.err;
	o.err_pc = env.err_pc;
	o.ntraces = user_env_nr_traces();
	o.ntracevs = user_env_nr_tracevs();
	for (i = 0; i < o.ntraces; i++) {
		const struct user_env_trace *t = user_env_trace(i);

		o.trace_sum = o.trace_sum * 31 + t->addr + t->size + t->len;
		for (j = 0; j < t->len; j++)
			o.trace_sum = o.trace_sum * 131 + t->data[j];
	}
	for (i = 0; i < o.ntracevs; i++)
		o.trace_sum = o.trace_sum * 37 + user_env_tracev(i)->tsv +
			      (u64)user_env_tracev(i)->val;
	for (i = 0; i < USER_ENV_NR_TSV; i++)
		o.trace_sum = o.trace_sum * 7 + (u64)user_env_tsv(i);
	return o;
}

static double time_runs(struct ax_prog *prog, struct pt_regs *regs, long k)
{
	struct ax_env env = { .regs = regs };
	struct timespec a, b;
	long i;

	reset_world();
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < k; i++) {
		ax_run(prog, &env);
		__asm__ __volatile__("" ::: "memory");
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	return ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / k;
}

static void print_outcome(const char *name, const struct outcome *o)
{
	if (o->err)
		printf("%s=fault\n", name);
	else
		printf("%s=0x%llx\n", name, (unsigned long long)o->val);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "disasm", no_argument, NULL, 'd' },
		{ "iters", required_argument, NULL, 'i' },
		{ "reg", required_argument, NULL, 'r' },
		{ "mem", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool do_interp = true, do_jit = true, disasm = false;
	struct outcome oi = { 0 }, oj = { 0 };
	struct pt_regs regs;
	struct ax_prog *prog = NULL;
	u8 code[AX_MAX_CODE + 1];
	char log[256], *eq;
	long len, iters = 0;
	u64 v, n;
	int c, ret;

	memset(&regs, 0, sizeof(regs));
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			do_interp = !strcmp(optarg, "interp") ||
				    !strcmp(optarg, "both");
			do_jit = !strcmp(optarg, "jit") ||
				 !strcmp(optarg, "both");
			if (!do_interp && !do_jit)
				usage();
			break;
		case 'd':
			disasm = true;
			break;
		case 'i':
			if (!parse_u64(optarg, &v) || !v)
				usage();
			iters = v;
			break;
		case 'r':
			eq = strchr(optarg, '=');
			if (!eq)
				usage();
			*eq = 0;
			if (!parse_u64(optarg, &n) || !parse_u64(eq + 1, &v) ||
			    user_env_set_reg(&regs, n, v))
				usage();
			break;
		case 'M':
			eq = strchr(optarg, '=');
			if (!eq || nmems >= MAX_MEM)
				usage();
			*eq = 0;
			if (!parse_u64(optarg, &mems[nmems].addr))
				usage();
			mems[nmems].bytes = malloc(strlen(eq + 1) / 2 + 1);
			len = parse_hex(eq + 1, mems[nmems].bytes,
					strlen(eq + 1) / 2 + 1);
			if (len < 0)
				usage();
			mems[nmems++].len = len;
			break;
		default:
			usage();
		}
	}
	if (optind >= argc)
		usage();
	len = parse_hex(join_args(argc - optind, argv + optind), code,
			sizeof(code));
	if (len < 0) {
		fprintf(stderr, "gtp-ax: bytecode is not hex\n");
		return 2;
	}
	ret = ax_verify(code, len, false, &prog, log, sizeof(log));
	if (ret) {
		fprintf(stderr, "gtp-ax: %s\n", log);
		return 2;
	}

	if (do_interp)
		oi = run_once(prog, &regs);
	if (do_jit) {
		ret = ax_jit_compile(prog, log, sizeof(log));
		if (ret) {
			fprintf(stderr, "gtp-ax: %s\n", log);
			ax_prog_free(prog);
			return 3;
		}
		oj = run_once(prog, &regs);
	}
	if (disasm && prog->jit) {
		size_t bufsz = 64 * prog->jit_size + 64;
		char *buf = malloc(bufsz);

		if (buf && user_disasm(prog->jit_image, prog->jit_size, true,
				       buf, bufsz) >= 0)
			fputs(buf, stdout);
		free(buf);
	}
	if (do_interp)
		print_outcome("interp", &oi);
	if (do_jit)
		print_outcome("jit", &oj);
	if (iters) {
		if (do_interp) {
			void *(*jit)(struct ax_env *) = (void *)prog->jit;

			prog->jit = NULL;
			printf("interp_ns=%.2f\n", time_runs(prog, &regs, iters));
			prog->jit = (void *)jit;
		}
		if (do_jit)
			printf("jit_ns=%.2f\n", time_runs(prog, &regs, iters));
	}
	ret = 0;
	if (do_interp && do_jit &&
	    (oi.err != oj.err || oi.err_pc != oj.err_pc ||
	     (!oi.err && oi.val != oj.val) || oi.ntraces != oj.ntraces ||
	     oi.ntracevs != oj.ntracevs || oi.trace_sum != oj.trace_sum)) {
		printf("MISMATCH\n");
		ret = 1;
	}
	ax_jit_free(prog);
	ax_prog_free(prog);
	return ret;
}
