// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_ax.c - libFuzzer harness of agent expressions: the verifier, the
 * interpreter and the JIT, differentially.
 *
 * The input is bytecode, as gdb sends it hex-decoded in a QTDP condition
 * or X action.  ax_verify() must refuse it or accept it, as a condition
 * and as an action; whatever it accepts must JIT-compile, and both
 * engines must agree on every input tried (value, error and its pc,
 * every trace/tracev record, every trace state variable): the comparison
 * of tests/fuzz/fuzz_jit.c (fuzz_jit_diff(), built with
 * -DFUZZ_JIT_NO_MAIN), with its inputs drawn from a hash of the bytecode
 * so that every input replays exactly.
 *
 * Failures abort(): libFuzzer prints the stack and saves the input; the
 * mismatch report names a jit/gtp-ax command line that shows it.
 */
#include "jit.h"
#include "user_env.h"
#include "fz_hash.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

/* tests/fuzz/fuzz_jit.c */
void fuzz_jit_seed(u64 seed);
int fuzz_jit_diff(struct ax_prog *prog, const u8 *code, u32 len);

static void one(const u8 *code, u32 len, bool is_cond)
{
	struct ax_prog *prog = NULL;
	char log[256];
	int err;

	err = ax_verify(code, len, is_cond, &prog, log, sizeof(log));
	if (err == -EINVAL)
		return;
	if (err) {
		/* -ENOMEM cannot happen here; -EFAULT is a verifier bug. */
		fprintf(stderr, "ax_verify: error %d: %s\n", err, log);
		abort();
	}
	err = ax_jit_compile(prog, log, sizeof(log));
	if (err) {
		fprintf(stderr, "JIT refused a verified program (%d): %s\n",
			err, log);
		abort();
	}
	fuzz_jit_seed(fz_hash(code, len) ^ is_cond);
	if (fuzz_jit_diff(prog, code, len))
		abort();
	ax_jit_free(prog);
	ax_prog_free(prog);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	/* More than AX_MAX_CODE only tests the length check, once. */
	u32 len = min_t(size_t, size, AX_MAX_CODE + 1);

	one(data, len, false);
	one(data, len, true);
	return 0;
}
