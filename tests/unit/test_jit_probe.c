// SPDX-License-Identifier: GPL-2.0
/*
 * test_jit_probe.c - conditions compiled as probes (ax_jit_probe_compile()):
 * called as a probe function with the registers the condition reads, a
 * probe jumps to its hit exactly when the interpreter finds the condition
 * true on the same registers, and the hit then gets every argument and
 * callee-saved register as the probe got them.  What a probe cannot decide
 * alone (memory, division, loops, registers it uses itself) is refused.
 *
 * call_probe() loads the twelve registers a probe may read from a block
 * and calls the probe; probe_hit() stores the twelve registers it
 * received, and r11 (the probe's context), and counts.
 *
 * A pt_regs probe (a kprobe's pre-handler) is called from C as the kernel
 * calls a handler, and its hit is a C handler too: it must see both
 * arguments as the probe got them, and the probe must return 0 either way.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <capstone/capstone.h>

#include "jit.h"
#include "ax_test.h"
#include "user_host.h"

/* the block's order: rdi rsi rdx rcx r8 r9 rbx rbp r12 r13 r14 r15 */
#define NREGS	12
static const int gdb_regno[NREGS] = { 5, 4, 3, 2, 8, 9, 1, 6, 12, 13, 14, 15 };

u64 probe_got[NREGS + 1];	/* + r11 */
u64 probe_hits;

__asm__(".text\n"
	".globl call_probe\n"
	"call_probe:\n"			/* (u64 *block, void *probe) */
	"\tpush %rbx\n\tpush %rbp\n\tpush %r12\n"
	"\tpush %r13\n\tpush %r14\n\tpush %r15\n"
	"\tsub $8, %rsp\n"		/* 16-byte aligned at the call */
	"\tmov %rsi, %rax\n\tmov %rdi, %r11\n"
	"\tmov 8(%r11), %rsi\n\tmov 16(%r11), %rdx\n\tmov 24(%r11), %rcx\n"
	"\tmov 32(%r11), %r8\n\tmov 40(%r11), %r9\n\tmov 48(%r11), %rbx\n"
	"\tmov 56(%r11), %rbp\n\tmov 64(%r11), %r12\n\tmov 72(%r11), %r13\n"
	"\tmov 80(%r11), %r14\n\tmov 88(%r11), %r15\n\tmov 0(%r11), %rdi\n"
	"\tcall *%rax\n"
	"\tadd $8, %rsp\n"
	"\tpop %r15\n\tpop %r14\n\tpop %r13\n\tpop %r12\n\tpop %rbp\n\tpop %rbx\n"
	"\tret\n"
	".globl probe_hit\n"
	"probe_hit:\n"
	"\tmov %rdi, probe_got+0(%rip)\n\tmov %rsi, probe_got+8(%rip)\n"
	"\tmov %rdx, probe_got+16(%rip)\n\tmov %rcx, probe_got+24(%rip)\n"
	"\tmov %r8, probe_got+32(%rip)\n\tmov %r9, probe_got+40(%rip)\n"
	"\tmov %rbx, probe_got+48(%rip)\n\tmov %rbp, probe_got+56(%rip)\n"
	"\tmov %r12, probe_got+64(%rip)\n\tmov %r13, probe_got+72(%rip)\n"
	"\tmov %r14, probe_got+80(%rip)\n\tmov %r15, probe_got+88(%rip)\n"
	"\tmov %r11, probe_got+96(%rip)\n"
	"\tincq probe_hits(%rip)\n"
	"\tret\n"
	".globl probe_ret\n"		/* a stand-in return thunk */
	"probe_ret:\n"
	"\tret\n");
void call_probe(const u64 *block, void *probe);
void probe_hit(void);
void probe_ret(void);

/*
 * A probe at a function's entry (AX_JIT_PROBE_SAVE_SCRATCH) must hand its
 * hit rax, r10, r11 and the flags as it got them, on the stack, where
 * ftrace_direct_entry.S takes them: call_probe_saved() sets them too
 * (block[12..15]: rax r10 r11 flags; the flags only the arithmetic ones,
 * which user code may set), and saved_hit() stores what it found at
 * [rsp] .. [rsp + 24] and pops it, as gtp_direct_held does.  Either way
 * the probe must return with rsp as it was.
 */
u64 saved_got[4];	/* r11 r10 rax flags, as the hit found them */
u64 saved_sp[2];	/* rsp before the call, and after */
void *saved_probe;

__asm__(".text\n"
	".globl call_probe_saved\n"
	"call_probe_saved:\n"		/* (u64 *block, void *probe) */
	"\tpush %rbx\n\tpush %rbp\n\tpush %r12\n"
	"\tpush %r13\n\tpush %r14\n\tpush %r15\n"
	"\tsub $8, %rsp\n"
	"\tmov %rsi, saved_probe(%rip)\n\tmov %rdi, %r11\n"
	"\tmov 8(%r11), %rsi\n\tmov 16(%r11), %rdx\n\tmov 24(%r11), %rcx\n"
	"\tmov 32(%r11), %r8\n\tmov 40(%r11), %r9\n\tmov 48(%r11), %rbx\n"
	"\tmov 56(%r11), %rbp\n\tmov 64(%r11), %r12\n\tmov 72(%r11), %r13\n"
	"\tmov 80(%r11), %r14\n\tmov 88(%r11), %r15\n\tmov 0(%r11), %rdi\n"
	"\tmov 96(%r11), %rax\n\tmov 104(%r11), %r10\n"
	"\tmov %rsp, saved_sp+0(%rip)\n"
	"\tpushq 120(%r11)\n\tmov 112(%r11), %r11\n\tpopfq\n"
	"\tcall *saved_probe(%rip)\n"
	"\tmov %rsp, saved_sp+8(%rip)\n"
	"\tadd $8, %rsp\n"
	"\tpop %r15\n\tpop %r14\n\tpop %r13\n\tpop %r12\n\tpop %rbp\n\tpop %rbx\n"
	"\tret\n"
	".globl saved_hit\n"
	"saved_hit:\n"
	"\tmov %rdi, probe_got+0(%rip)\n\tmov %rsi, probe_got+8(%rip)\n"
	"\tmov %rdx, probe_got+16(%rip)\n\tmov %rcx, probe_got+24(%rip)\n"
	"\tmov %r8, probe_got+32(%rip)\n\tmov %r9, probe_got+40(%rip)\n"
	"\tmov %rbx, probe_got+48(%rip)\n\tmov %rbp, probe_got+56(%rip)\n"
	"\tmov %r12, probe_got+64(%rip)\n\tmov %r13, probe_got+72(%rip)\n"
	"\tmov %r14, probe_got+80(%rip)\n\tmov %r15, probe_got+88(%rip)\n"
	"\tmov %r11, probe_got+96(%rip)\n"
	"\tpop %r11\n\tmov %r11, saved_got+0(%rip)\n"
	"\tpop %r11\n\tmov %r11, saved_got+8(%rip)\n"
	"\tpop %r11\n\tmov %r11, saved_got+16(%rip)\n"
	"\tpop %r11\n\tmov %r11, saved_got+24(%rip)\n"
	"\tincq probe_hits(%rip)\n"
	"\tret\n");
void call_probe_saved(const u64 *block, void *probe);
void saved_hit(void);

/* CF PF AF ZF SF OF: what popf sets in user mode and a compare changes */
#define ARITH_FLAGS	0x8d5ULL

static void set_reg(struct pt_regs *regs, int regno, u64 v)
{
	switch (regno) {
	case 1: regs->bx = v; break;
	case 2: regs->cx = v; break;
	case 3: regs->dx = v; break;
	case 4: regs->si = v; break;
	case 5: regs->di = v; break;
	case 6: regs->bp = v; break;
	case 8: regs->r8 = v; break;
	case 9: regs->r9 = v; break;
	case 12: regs->r12 = v; break;
	case 13: regs->r13 = v; break;
	case 14: regs->r14 = v; break;
	case 15: regs->r15 = v; break;
	}
}

static u64 rng = 0x9e3779b97f4a7c15ULL;

static u64 next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* small, extreme or random: where conditions on ints change their mind */
static u64 pick_value(void)
{
	static const s64 edge[] = { 0, 1, 2, 3, 5, 7, 10, 97, 100, 255, -1,
				    -3, -128, 0x7fffffff, -0x7fffffffLL - 1,
				    0x100000000LL, INT64_MIN, INT64_MAX };
	u64 r = next_rand();

	if (r & 1)
		return (u64)edge[(r >> 1) % (sizeof(edge) / sizeof(edge[0]))];
	return next_rand() >> (r >> 58);
}

#define PROBE_CTX	((void *)0x5eed0000c0ffeeULL)

static struct ax_jit_probe probe_of(struct ax_prog *prog)
{
	struct ax_jit_probe p;
	char log[128];

	if (ax_jit_probe_compile(prog, (void *)probe_hit, PROBE_CTX, 0, &p,
				 log, sizeof(log)))
		fail_msg("not compiled: %s", log);
	assert_non_null(p.entry);
	return p;
}

/* Runs @prog's probe @p and its interpreter on @rounds register sets. */
static void check_agrees(struct ax_prog *prog, const struct ax_jit_probe *p,
			 const char *what, int rounds)
{
	int r, i, trues = 0;

	for (r = 0; r < rounds; r++) {
		struct pt_regs regs = { 0 };
		struct ax_env env = { .regs = &regs };
		u64 block[NREGS], want, hits;

		for (i = 0; i < NREGS; i++) {
			block[i] = pick_value();
			set_reg(&regs, gdb_regno[i], block[i]);
		}
		prog->jit = NULL;
		want = ax_run(prog, &env);
		assert_int_equal(env.err, 0);
		hits = probe_hits;
		memset(probe_got, 0, sizeof(probe_got));
		call_probe(block, p->entry);
		if ((probe_hits != hits) != (want != 0))
			fail_msg("'%s' round %d: interp %#llx, probe %s", what,
				 r, (unsigned long long)want,
				 probe_hits != hits ? "hit" : "returned");
		if (want) {
			trues++;
			for (i = 0; i < NREGS; i++)
				if (probe_got[i] != block[i])
					fail_msg("'%s': register %d reached the hit as %#llx, not %#llx",
						 what, gdb_regno[i],
						 (unsigned long long)probe_got[i],
						 (unsigned long long)block[i]);
			assert_ptr_equal((void *)probe_got[NREGS], PROBE_CTX);
		}
	}
	/* a test that never took both ways would prove nothing */
	if (!trues || trues == rounds)
		fail_msg("'%s': %d of %d rounds true", what, trues, rounds);
}

/* Each as gdb sends it (tests/bench/corpus/conditions.txt). */
static const struct {
	const char *expr, *hex;
} gdb_conds[] = {
	{ "2*counter1+3*counter2 < 0",
	  "220226000516200416202203260004162004162002162022001427" },
	{ "2*counter1+3*counter2 > 0",
	  "220226000516200416202203260004162004162002162022002b1427" },
	{ "counter1 == 5", "260005162022051327" },
	{ "counter1 > 5 && counter2 < 3",
	  "260005162022052b1420000f210022260004162022031420001d2100222201210024220027" },
	{ "counter1 < 100 || counter2 == 7",
	  "260005162022641420001b260004162022071320001b220021001d220127" },
	{ "(counter1 & 0xff) == (counter2 | 1)",
	  "26000516202300ff0f26000416202201101327" },
	{ "(unsigned int)counter1 < 10u", "26000516202a20220a1527" },
	{ "!(counter1 & 1)", "260005162022010f0e27" },
	{ "counter1 > 10 ? counter1 - 10 : 10 - counter1",
	  "2600051620220a2b140e20001a2600051620220a031620210024220a260005162003162027" },
	{ "(char)counter1 == 97", "2600051620160822611327" },
	{ "(short)counter2 < 0", "2600041620161022001427" },
	{ "counter1 >> 2 != counter2 >> 3",
	  "260005162022020a1620260004162022030a1620130e27" },
	{ "~counter1 & counter2", "260005162012162026000416200f27" },
};

/* How a test makes its probes, and checks one against the interpreter. */
typedef struct ax_jit_probe (*make_fn)(struct ax_prog *prog);
typedef void (*check_fn)(struct ax_prog *prog, const struct ax_jit_probe *p,
			 const char *what, int rounds);

/* @prog (consumed) as a probe @make makes, checked by @check. */
static void check_one(struct ax_prog *prog, const char *what, make_fn make,
		      check_fn check, int rounds)
{
	struct ax_jit_probe p = make(prog);

	check(prog, &p, what, rounds);
	ax_jit_probe_free(&p);
	assert_null(p.entry);
	ax_prog_free(prog);
}

static void check_gdb_conds(make_fn make, check_fn check, int rounds)
{
	unsigned int k;

	for (k = 0; k < sizeof(gdb_conds) / sizeof(gdb_conds[0]); k++) {
		u8 code[AX_MAX_CODE + 16];
		struct ax_prog *prog;

		prog = ax_test_verify(code, ax_test_hex(gdb_conds[k].hex, code,
							sizeof(code)),
				      true, gdb_conds[k].expr);
		check_one(prog, gdb_conds[k].expr, make, check, rounds);
	}
}

static void check_progs(const char *const *progs, unsigned int n,
			make_fn make, check_fn check, int rounds)
{
	unsigned int k;

	for (k = 0; k < n; k++)
		check_one(ax_test_prog(progs[k], true), progs[k], make, check,
			  rounds);
}

static void test_gdb_conditions(void **state)
{
	check_gdb_conds(probe_of, check_agrees, 4000);
}

/* Every register a probe may read, and every slot it computes in. */
static void test_registers(void **state)
{
	static const char *const progs[] = {
		"reg 1 reg 6 add reg 12 reg 13 bit_xor reg 14 bit_or less_signed end",
		"reg 15 ext 16 reg 9 ext 8 less_unsigned end",
		"reg 8 zero_ext 32 reg 2 zero_ext 16 swap less_signed log_not end",
		"reg 3 dup mul const8 3 bit_and reg 5 const8 1 bit_and equal end",
		"reg 4 const8 7 lsh const8 61 rsh_unsigned reg 5 ext 12 less_signed end",
	};

	check_progs(progs, sizeof(progs) / sizeof(progs[0]), probe_of,
		    check_agrees, 4000);
}

/* What a probe cannot decide on its own registers: -EINVAL, nothing built. */
static void test_refused(void **state)
{
	static const char *const progs[] = {
		"const16 0x1000 ref32 end",		/* memory */
		"reg 4 reg 5 div_signed end",		/* can fail */
		"reg 4 const8 3 rem_unsigned end",	/* needs rdx */
		"reg 0 end",				/* rax: its own slot */
		"reg 11 end",				/* r11: its own slot */
		"reg 7 end",				/* rsp */
		"reg 16 end",				/* rip */
		"reg 4 reg 5 lsh end",			/* shift count in rcx */
		"reg 1 reg 2 reg 3 reg 4 add add add end", /* 4 slots */
		"reg 4 reg 5 reg 1 rot add add end",	/* rot needs rcx */
		"const8 1 trace_quick 8 end",		/* collects */
	};
	unsigned int k;

	for (k = 0; k < sizeof(progs) / sizeof(progs[0]); k++) {
		struct ax_prog *prog = ax_test_prog(progs[k], true);
		struct ax_jit_probe p;
		char log[128];

		if (ax_jit_probe_compile(prog, (void *)probe_hit, NULL, 0,
					 &p, log, sizeof(log)) != -EINVAL)
			fail_msg("'%s' not refused", progs[k]);
		assert_null(p.entry);
		ax_prog_free(prog);
	}
}

static cs_insn *disasm(const struct ax_jit_probe *p, size_t *n, csh *h)
{
	cs_insn *insn;

	assert_int_equal(cs_open(CS_ARCH_X86, CS_MODE_64, h), CS_ERR_OK);
	cs_option(*h, CS_OPT_DETAIL, CS_OPT_ON);
	*n = cs_disasm(*h, p->entry, p->size, (uintptr_t)p->entry, 0, &insn);
	assert_true(*n > 0);
	return insn;
}

static bool jmp_to(const cs_insn *in, void *fn)
{
	const cs_x86 *x = &in->detail->x86;

	return in->id == X86_INS_JMP && x->operands[0].type == X86_OP_IMM &&
	       x->operands[0].imm == (s64)(uintptr_t)fn;
}

/*
 * Fig. 11's condition as a probe: no memory, no stack, no call: it reads
 * the argument registers in place, and a false one is its compare, a
 * branch and the return.  IBT and the return thunk: it starts with
 * endbr64 and returns through the thunk.
 */
static void test_shape(void **state)
{
	u8 code[AX_MAX_CODE + 16];
	const char *hex = gdb_conds[0].hex;
	struct ax_jit_probe p;
	struct ax_prog *prog;
	cs_insn *insn;
	size_t n, i;
	int rets = 0, thunk_jmps = 0, hit_jmps = 0;
	csh h;

	user_exec_endbr = true;
	user_exec_return_thunk = (void *)probe_ret;
	prog = ax_test_verify(code, ax_test_hex(hex, code, sizeof(code)), true,
			      hex);
	p = probe_of(prog);
	insn = disasm(&p, &n, &h);
	assert_int_equal(insn[0].id, X86_INS_ENDBR64);
	for (i = 0; i < n; i++) {
		const cs_x86 *x = &insn[i].detail->x86;
		int j;

		for (j = 0; j < x->op_count; j++)
			if (x->operands[j].type == X86_OP_MEM)
				fail_msg("memory operand: %s %s",
					 insn[i].mnemonic, insn[i].op_str);
		assert_int_not_equal(insn[i].id, X86_INS_PUSH);
		assert_int_not_equal(insn[i].id, X86_INS_CALL);
		rets += insn[i].id == X86_INS_RET;
		hit_jmps += jmp_to(&insn[i], probe_hit);
		thunk_jmps += jmp_to(&insn[i], probe_ret);
	}
	/*
	 * 2*c1 + 3*c2 < 0: endbr, 5 to compute (2 loads, shl, imul, add: the
	 * ext 32s gone), test, jcc, then the context and the jump to the
	 * hit, and the jump to the return thunk
	 */
	for (i = 0; n > 11 && i < n; i++)
		print_message("%s %s\n", insn[i].mnemonic, insn[i].op_str);
	assert_true(n <= 11);
	assert_int_equal(rets, 0);
	assert_int_equal(hit_jmps, 1);
	assert_int_equal(thunk_jmps, 1);
	cs_free(insn, n);
	cs_close(&h);
	check_agrees(prog, &p, "Fig. 11, endbr and thunk", 1000);
	ax_jit_probe_free(&p);
	ax_prog_free(prog);
	user_exec_endbr = false;
	user_exec_return_thunk = NULL;
}

static struct ax_jit_probe saved_probe_of(struct ax_prog *prog)
{
	struct ax_jit_probe p;
	char log[128];

	if (ax_jit_probe_compile(prog, (void *)saved_hit, PROBE_CTX,
				 AX_JIT_PROBE_SAVE_SCRATCH, &p, log,
				 sizeof(log)))
		fail_msg("not compiled as a saving probe: %s", log);
	return p;
}

/* As check_agrees(), and the hit gets rax, r10, r11, flags as set. */
static void check_saved_agrees(struct ax_prog *prog,
			       const struct ax_jit_probe *p,
			       const char *what, int rounds)
{
	int r, i, trues = 0;

	for (r = 0; r < rounds; r++) {
		struct pt_regs regs = { 0 };
		struct ax_env env = { .regs = &regs };
		u64 block[NREGS + 4], want, hits;

		for (i = 0; i < NREGS; i++) {
			block[i] = pick_value();
			set_reg(&regs, gdb_regno[i], block[i]);
		}
		block[NREGS] = next_rand();
		block[NREGS + 1] = next_rand();
		block[NREGS + 2] = next_rand();
		block[NREGS + 3] = (next_rand() & ARITH_FLAGS) | 0x202;
		prog->jit = NULL;
		want = ax_run(prog, &env);
		assert_int_equal(env.err, 0);
		hits = probe_hits;
		memset(probe_got, 0, sizeof(probe_got));
		memset(saved_got, 0, sizeof(saved_got));
		call_probe_saved(block, p->entry);
		if (saved_sp[0] != saved_sp[1])
			fail_msg("'%s' round %d: rsp %#llx after the probe, not %#llx",
				 what, r, (unsigned long long)saved_sp[1],
				 (unsigned long long)saved_sp[0]);
		if ((probe_hits != hits) != (want != 0))
			fail_msg("'%s' round %d: interp %#llx, probe %s", what,
				 r, (unsigned long long)want,
				 probe_hits != hits ? "hit" : "returned");
		if (!want)
			continue;
		trues++;
		for (i = 0; i < NREGS; i++)
			if (probe_got[i] != block[i])
				fail_msg("'%s': register %d reached the hit as %#llx, not %#llx",
					 what, gdb_regno[i],
					 (unsigned long long)probe_got[i],
					 (unsigned long long)block[i]);
		assert_ptr_equal((void *)probe_got[NREGS], PROBE_CTX);
		if (saved_got[0] != block[NREGS + 2] ||
		    saved_got[1] != block[NREGS + 1] ||
		    saved_got[2] != block[NREGS] ||
		    (saved_got[3] & ARITH_FLAGS) != (block[NREGS + 3] & ARITH_FLAGS))
			fail_msg("'%s': the hit got r11 %#llx r10 %#llx rax %#llx flags %#llx, not %#llx %#llx %#llx %#llx",
				 what, (unsigned long long)saved_got[0],
				 (unsigned long long)saved_got[1],
				 (unsigned long long)saved_got[2],
				 (unsigned long long)saved_got[3],
				 (unsigned long long)block[NREGS + 2],
				 (unsigned long long)block[NREGS + 1],
				 (unsigned long long)block[NREGS],
				 (unsigned long long)block[NREGS + 3]);
	}
	if (!trues || trues == rounds)
		fail_msg("'%s': %d of %d rounds true", what, trues, rounds);
}

/*
 * At a function's entry the probe's own registers are the function's
 * too: gdb's conditions and every slot depth (none, one, two, three
 * slots computed in) hand them over as the function got them.
 */
static void test_save_scratch(void **state)
{
	static const char *const progs[] = {
		"reg 5 const8 7 less_signed end",
		"reg 1 reg 6 add reg 12 reg 13 bit_xor reg 14 bit_or less_signed end",
		"reg 3 dup mul const8 3 bit_and reg 5 const8 1 bit_and equal end",
	};

	check_gdb_conds(saved_probe_of, check_saved_agrees, 2000);
	check_progs(progs, sizeof(progs) / sizeof(progs[0]), saved_probe_of,
		    check_saved_agrees, 2000);
}

/*
 * The flags are saved before anything changes them: pushfq comes before
 * the call-depth count (a sar) and before any arithmetic.
 */
static void test_save_scratch_flags_first(void **state)
{
	struct ax_prog *prog = ax_test_prog("reg 5 const8 7 equal end", true);
	struct ax_jit_probe p;
	char log[128];
	cs_insn *insn;
	size_t n;
	csh h;

	user_exec_endbr = true;
	user_exec_call_depth_on = true;
	user_exec_call_depth_var = 0x20000000;
	assert_int_equal(ax_jit_probe_compile(prog, (void *)saved_hit, NULL,
					      AX_JIT_PROBE_COUNT_CALL |
					      AX_JIT_PROBE_SAVE_SCRATCH, &p,
					      log, sizeof(log)), 0);
	insn = disasm(&p, &n, &h);
	assert_true(n > 2);
	assert_int_equal(insn[0].id, X86_INS_ENDBR64);
	assert_int_equal(insn[1].id, X86_INS_PUSHFQ);
	assert_int_equal(insn[2].bytes[0], 0x65);	/* then %gs: the count */
	cs_free(insn, n);
	cs_close(&h);
	ax_jit_probe_free(&p);
	user_exec_endbr = false;
	user_exec_call_depth_on = false;

	/* a kprobe handler's registers are in its block: refused */
	assert_int_equal(ax_jit_probe_compile(prog, (void *)saved_hit, NULL,
					      AX_JIT_PROBE_PT_REGS |
					      AX_JIT_PROBE_SAVE_SCRATCH, &p,
					      log, sizeof(log)), -EINVAL);
	assert_null(p.entry);
	ax_prog_free(prog);
}

/*
 * Call-depth tracking: a probe entered by a call nobody counted (an ftrace
 * direct call) counts it first, "sarq $5, %gs:counter", and only then;
 * one entered through a counted call does not.
 */
static void test_counted_entry(void **state)
{
	static const u8 acct_head[] = { 0x65, 0x48, 0xc1, 0x3c, 0x25 };
	struct ax_prog *prog = ax_test_prog("reg 5 const8 7 equal end", true);
	unsigned int k;

	user_exec_call_depth_on = true;
	user_exec_call_depth_var = 0x20000000;
	for (k = 0; k < 2; k++) {
		struct ax_jit_probe p;
		char log[128];
		int gs = 0;
		cs_insn *insn;
		size_t n, i;
		csh h;

		assert_int_equal(ax_jit_probe_compile(prog, (void *)probe_hit,
						      NULL, k ? AX_JIT_PROBE_COUNT_CALL : 0,
						      &p, log,
						      sizeof(log)), 0);
		insn = disasm(&p, &n, &h);
		for (i = 0; i < n; i++)
			gs += insn[i].bytes[0] == 0x65;
		assert_int_equal(gs, k);
		if (k) {
			assert_int_equal(insn[0].size, 10);
			assert_memory_equal(insn[0].bytes, acct_head, 5);
			assert_memory_equal(insn[0].bytes + 5,
					    &user_exec_call_depth_var, 4);
		}
		cs_free(insn, n);
		cs_close(&h);
		ax_jit_probe_free(&p);
	}
	user_exec_call_depth_on = false;
	ax_prog_free(prog);
}

/* A pt_regs probe's hit: what it got, and the handler's 0. */
static const void *pt_hit_p;
static const struct pt_regs *pt_hit_regs;
static u64 pt_hits;

static int pt_hit(void *p, struct pt_regs *regs)
{
	pt_hit_p = p;
	pt_hit_regs = regs;
	pt_hits++;
	return 0;
}

static struct ax_jit_probe pt_probe_of(struct ax_prog *prog)
{
	struct ax_jit_probe p;
	char log[128];

	if (ax_jit_probe_compile(prog, (void *)pt_hit, NULL,
				 AX_JIT_PROBE_PT_REGS, &p, log, sizeof(log)))
		fail_msg("not compiled as a pt_regs probe: %s", log);
	return p;
}

/* Every register of the block, so rax, r11, rsp and rip read too. */
static void fill_regs(struct pt_regs *regs)
{
	u64 *w = (u64 *)regs;
	size_t i;

	for (i = 0; i < sizeof(*regs) / sizeof(u64); i++)
		w[i] = pick_value();
}

static void check_pt_agrees(struct ax_prog *prog, const struct ax_jit_probe *p,
			    const char *what, int rounds)
{
	int (*handler)(void *, struct pt_regs *) = (void *)p->entry;
	int r, trues = 0;

	for (r = 0; r < rounds; r++) {
		struct pt_regs regs, copy;
		struct ax_env env = { .regs = &regs };
		u64 want, hits = pt_hits;

		fill_regs(&regs);
		copy = regs;
		prog->jit = NULL;
		want = ax_run(prog, &env);
		assert_int_equal(env.err, 0);
		pt_hit_p = NULL;
		pt_hit_regs = NULL;
		assert_int_equal(handler(PROBE_CTX, &regs), 0);
		if ((pt_hits != hits) != (want != 0))
			fail_msg("'%s' round %d: interp %#llx, probe %s", what,
				 r, (unsigned long long)want,
				 pt_hits != hits ? "hit" : "returned");
		if (want) {
			trues++;
			assert_ptr_equal(pt_hit_p, PROBE_CTX);
			assert_ptr_equal(pt_hit_regs, &regs);
		}
		assert_memory_equal(&regs, &copy, sizeof(regs));
	}
	if (!trues || trues == rounds)
		fail_msg("'%s': %d of %d rounds true", what, trues, rounds);
}

/*
 * A kprobe's handler: gdb's conditions, and registers a probe called with
 * them in place cannot read (its own slots, rsp, rip, flags), which a
 * pt_regs probe reads from the block like any other.
 */
static void test_pt_regs(void **state)
{
	static const char *const progs[] = {
		"reg 0 reg 11 less_unsigned end",		/* rax, r11 */
		"reg 7 const8 4 rsh_unsigned reg 16 ext 16 less_signed end",
		"reg 10 reg 3 mul reg 5 bit_xor const8 0 less_signed end",
		"reg 4 reg 5 reg 1 add add const8 0 less_signed end",
	};

	check_gdb_conds(pt_probe_of, check_pt_agrees, 2000);
	check_progs(progs, sizeof(progs) / sizeof(progs[0]), pt_probe_of,
		    check_pt_agrees, 2000);
}

/*
 * Fig. 11's condition as a kprobe handler: it reads the block at rsi and
 * nothing else, pushes and calls nothing, and a false one returns 0.
 */
static void test_pt_regs_shape(void **state)
{
	u8 code[AX_MAX_CODE + 16];
	const char *hex = gdb_conds[0].hex;
	struct ax_jit_probe p;
	struct ax_prog *prog;
	int zeroed = 0;
	cs_insn *insn;
	size_t all, n, i;
	csh h;

	prog = ax_test_verify(code, ax_test_hex(hex, code, sizeof(code)), true,
			      hex);
	p = pt_probe_of(prog);
	insn = disasm(&p, &all, &h);
	n = all;
	while (n && insn[n - 1].id == X86_INS_INT3)
		n--;	/* the padding after the code */
	for (i = 0; i < n; i++) {
		const cs_x86 *x = &insn[i].detail->x86;
		int j;

		for (j = 0; j < x->op_count; j++)
			if (x->operands[j].type == X86_OP_MEM &&
			    x->operands[j].mem.base != X86_REG_RSI)
				fail_msg("memory operand not in the block: %s %s",
					 insn[i].mnemonic, insn[i].op_str);
		assert_int_not_equal(insn[i].id, X86_INS_PUSH);
		assert_int_not_equal(insn[i].id, X86_INS_CALL);
		zeroed += insn[i].id == X86_INS_XOR &&
			  x->operands[0].reg == X86_REG_EAX &&
			  x->operands[1].reg == X86_REG_EAX;
	}
	/* 2 loads, shl, imul, add, test, jcc, jmp hit, xor, ret */
	for (i = 0; n > 10 && i < n; i++)
		print_message("%s %s\n", insn[i].mnemonic, insn[i].op_str);
	assert_true(n <= 10);
	assert_int_equal(zeroed, 1);
	assert_int_equal(insn[n - 1].id, X86_INS_RET);
	assert_true(jmp_to(&insn[n - 3], pt_hit));
	cs_free(insn, all);
	cs_close(&h);
	ax_jit_probe_free(&p);
	ax_prog_free(prog);
}

/*
 * A kprobe's handler on a kernel with IBT, a return thunk and call-depth
 * tracking (Debian's 6.12 and 7.x), with the host hooks on as the module
 * sets them there.  The kernel reaches a pre-handler by an indirect call
 * compiled from C: kprobe_int3_handler() -> p->pre_handler(), which is
 * aggr_pre_handler() -> kp->pre_handler() for a probe shared or optimized,
 * and optimized_callback() -> opt_pre_handler() -> kp->pre_handler() on
 * the optprobe path.  GCC emits 'call __x86_indirect_thunk_rax' for each;
 * with call-depth tracking apply_retpolines() turns that into a call of
 * __x86_indirect_call_thunk_rax, which counts the call before it
 * branches.  So the handler:
 *
 *   - starts with endbr64: 'call *%rax' (retpolines off) lands on it;
 *   - counts nothing (flags without AX_JIT_PROBE_COUNT_CALL): its one
 *     call was counted by the caller's thunk, and its one return is the
 *     thunk's (false: its own jmp to the return thunk; true: the hit's,
 *     compiled C that returns through the kernel's thunk) - one each;
 *   - has no bare ret, no call, no %gs access, no indirect branch;
 *   - goes to its hit by a direct 'jmp rel32' (e9): no endbr is checked
 *     at the target of a direct jump, no call is added to the depth, and
 *     the hit returns straight to the kprobe code for both of them.
 */
static void check_pt_ibt_shape(const struct ax_jit_probe *p, const char *what)
{
	int hit_jmps = 0, thunk_jmps = 0;
	cs_insn *insn;
	size_t all, n, i;
	csh h;

	insn = disasm(p, &all, &h);
	n = all;
	while (n && insn[n - 1].id == X86_INS_INT3)
		n--;	/* the padding after the code */
	if (insn[0].id != X86_INS_ENDBR64)
		fail_msg("'%s': starts with %s %s, not endbr64", what,
			 insn[0].mnemonic, insn[0].op_str);
	for (i = 0; i < n; i++) {
		const cs_x86 *x = &insn[i].detail->x86;
		int j;

		if (x->prefix[1] == X86_PREFIX_GS)
			fail_msg("'%s': %%gs access (call-depth accounting?): %s %s",
				 what, insn[i].mnemonic, insn[i].op_str);
		for (j = 0; j < x->op_count; j++) {
			if (x->operands[j].type == X86_OP_MEM &&
			    x->operands[j].mem.base != X86_REG_RSI)
				fail_msg("'%s': memory operand not in the block: %s %s",
					 what, insn[i].mnemonic,
					 insn[i].op_str);
			if ((insn[i].id == X86_INS_JMP ||
			     insn[i].id == X86_INS_CALL) &&
			    x->operands[j].type != X86_OP_IMM)
				fail_msg("'%s': indirect branch: %s %s", what,
					 insn[i].mnemonic, insn[i].op_str);
		}
		if (insn[i].id == X86_INS_RET || insn[i].id == X86_INS_CALL ||
		    insn[i].id == X86_INS_PUSH ||
		    (i && insn[i].id == X86_INS_ENDBR64))
			fail_msg("'%s': %s %s at +%zu", what, insn[i].mnemonic,
				 insn[i].op_str,
				 (size_t)(insn[i].address -
					  (uintptr_t)p->entry));
		if (jmp_to(&insn[i], pt_hit)) {
			hit_jmps++;
			/* jmp rel32, not movabs + jmp *reg */
			assert_int_equal(insn[i].size, 5);
			assert_int_equal(insn[i].bytes[0], 0xe9);
		}
		if (jmp_to(&insn[i], probe_ret)) {
			const cs_x86 *y = &insn[i - 1].detail->x86;

			/* false: return 0 through the thunk */
			thunk_jmps++;
			if (insn[i - 1].id != X86_INS_XOR ||
			    y->operands[0].reg != X86_REG_EAX ||
			    y->operands[1].reg != X86_REG_EAX)
				fail_msg("'%s': returns without 0: %s %s",
					 what, insn[i - 1].mnemonic,
					 insn[i - 1].op_str);
		}
	}
	/* a probe may end the condition on more than one path (&&, ||) */
	assert_true(hit_jmps >= 1);
	assert_true(thunk_jmps >= 1);
	/* and its code ends with a jump: nothing falls off the end */
	assert_int_equal(insn[n - 1].id, X86_INS_JMP);
	cs_free(insn, all);
	cs_close(&h);
}

static struct ax_jit_probe pt_ibt_probe_of(struct ax_prog *prog)
{
	struct ax_jit_probe p = pt_probe_of(prog);

	check_pt_ibt_shape(&p, "pt_regs probe");
	return p;
}

static void test_pt_regs_ibt(void **state)
{
	static const char *const progs[] = {
		"reg 0 reg 11 less_unsigned end",		/* rax, r11 */
		"reg 7 const8 4 rsh_unsigned reg 16 ext 16 less_signed end",
		"reg 4 reg 5 reg 1 add add const8 0 less_signed end",
	};

	user_exec_endbr = true;
	user_exec_return_thunk = (void *)probe_ret;
	/* the counter is not mapped: an access would fault, not pass */
	user_exec_call_depth_on = true;
	user_exec_call_depth_var = 0x20000000;
	check_gdb_conds(pt_ibt_probe_of, check_pt_agrees, 1000);
	check_progs(progs, sizeof(progs) / sizeof(progs[0]), pt_ibt_probe_of,
		    check_pt_agrees, 1000);
	user_exec_endbr = false;
	user_exec_return_thunk = NULL;
	user_exec_call_depth_on = false;
}

static int setup(void **state)
{
	user_exec_near = true;		/* rel32 jumps, as in the kernel */
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gdb_conditions),
		cmocka_unit_test(test_registers),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_shape),
		cmocka_unit_test(test_counted_entry),
		cmocka_unit_test(test_save_scratch),
		cmocka_unit_test(test_save_scratch_flags_first),
		cmocka_unit_test(test_pt_regs),
		cmocka_unit_test(test_pt_regs_shape),
		cmocka_unit_test(test_pt_regs_ibt),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
