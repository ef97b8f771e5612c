// SPDX-License-Identifier: GPL-2.0
/*
 * test_jit_returns.c - how JIT code returns and calls under the kernel's
 * return mitigations, checked on the emitted bytes and by running them.
 *
 * The host reports the return thunk the kernel selected
 * (gtp_host->exec_return_thunk()) and whether calls are counted for
 * call-depth tracking (gtp_host->exec_call_depth()).  With no thunk every
 * exit is 'ret; int3'; with one there is no 'ret' at all and every exit is
 * a rel32 jmp to exactly that address; with call-depth tracking every
 * call is preceded by "sarq $5, %gs:counter" and nothing else is (tail
 * jumps are not calls).  Run: the stand-in thunk counts the returns that
 * reach it, and the counter (userspace's %gs base is 0, so %gs:counter is
 * a page this test maps below 2GB) shifts by 5 once per call made.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <asm/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>
#include <capstone/capstone.h>

#include "ax.h"
#include "jit.h"
#include "ax_test.h"
#include "user_env.h"
#include "user_host.h"

/* a stand-in for the kernel's selected return thunk: counts, returns */
__asm__(".text\n.globl count_thunk\ncount_thunk:\n"
	"\tincq thunk_hits(%rip)\n\tret\n");
void count_thunk(void);
u64 thunk_hits;

#define COUNTER_PAGE	0x20000000UL	/* below 2GB: a disp32 reaches it */
#define MEM_ADDR	0x1000ULL

static u8 mem[8] = { 0x55, 0x66, 0x77, 0x88, 0x11, 0x22, 0x33, 0x44 };
static volatile s64 *counter;
static bool gs_is_zero;

/* leaf: no call; framed: one hook call (a memory read) */
#define LEAF	"const8 5 end"
#define FRAMED	"const64 0x1004 ref32 ext 32 end"

struct shape {
	int rets;		/* 'ret' insns */
	int thunk_jmps;		/* jmp rel32 to the thunk */
	int calls;		/* call rel32 */
	int counted_calls;	/* ... right after the accounting sequence */
	int gs;			/* insns with a %gs prefix */
};

static struct shape shape_of(const struct ax_prog *prog, const void *thunk)
{
	static const u8 acct_head[] = { 0x65, 0x48, 0xc1, 0x3c, 0x25 };
	const u8 *img = prog->jit_image;
	struct shape s = { 0 };
	cs_insn *insn;
	csh h;
	size_t n, i;

	assert_int_equal(cs_open(CS_ARCH_X86, CS_MODE_64, &h), CS_ERR_OK);
	n = cs_disasm(h, img, prog->jit_size, (uintptr_t)img, 0, &insn);
	assert_true(n > 0);
	for (i = 0; i < n; i++) {
		const u8 *b = insn[i].bytes;
		u64 next = insn[i].address + insn[i].size;
		s32 disp;

		if (insn[i].id == X86_INS_RET)
			s.rets++;
		if (b[0] == 0x65)
			s.gs++;
		if (b[0] == 0xe9 && insn[i].size == 5) {
			memcpy(&disp, b + 1, 4);
			if (next + disp == (uintptr_t)thunk)
				s.thunk_jmps++;
		}
		if (b[0] == 0xe8) {
			s.calls++;
			if (i && insn[i - 1].size == 10 &&
			    !memcmp(insn[i - 1].bytes, acct_head, 5) &&
			    !memcmp(insn[i - 1].bytes + 5,
				    &user_exec_call_depth_var, 4) &&
			    insn[i - 1].bytes[9] == 5)
				s.counted_calls++;
		}
	}
	cs_free(insn, n);
	cs_close(&h);
	return s;
}

static struct ax_prog *compile(const char *src)
{
	struct ax_prog *prog = ax_test_prog(src, false);
	char log[128];

	assert_int_equal(ax_jit_compile(prog, log, sizeof(log)), 0);
	assert_non_null(prog->jit);
	return prog;
}

static u64 run(struct ax_prog *prog)
{
	struct pt_regs regs = { 0 };
	struct ax_env env = { .regs = &regs };
	u64 v;

	user_env_reset();
	user_env_add_region(MEM_ADDR, mem, sizeof(mem));
	v = ax_run(prog, &env);
	assert_int_equal(env.err, 0);
	return v;
}

static void done(struct ax_prog *prog)
{
	ax_jit_free(prog);
	ax_prog_free(prog);
}

/* No mitigation: plain 'ret', no jump to any thunk, nothing counted. */
static void test_plain_ret(void **state)
{
	const char *progs[] = { LEAF, FRAMED };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct ax_prog *prog = compile(progs[i]);
		struct shape s = shape_of(prog, count_thunk);

		assert_true(s.rets >= 1);
		assert_int_equal(s.thunk_jmps, 0);
		assert_int_equal(s.gs, 0);
		thunk_hits = 0;
		run(prog);
		assert_int_equal(thunk_hits, 0);
		done(prog);
	}
}

/*
 * The host's thunk: no 'ret' anywhere, one rel32 jmp to the thunk where
 * the plain build had a ret, and one return through it per run.
 */
static void test_selected_thunk(void **state)
{
	const char *progs[] = { LEAF, FRAMED };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct ax_prog *plain = compile(progs[i]), *prog;
		int rets = shape_of(plain, count_thunk).rets;
		u64 want = run(plain);
		struct shape s;

		done(plain);
		user_exec_return_thunk = (void *)count_thunk;
		prog = compile(progs[i]);
		s = shape_of(prog, count_thunk);
		assert_int_equal(s.rets, 0);
		assert_int_equal(s.thunk_jmps, rets);
		thunk_hits = 0;
		assert_int_equal(run(prog), want);
		assert_int_equal(thunk_hits, 1);
		done(prog);
		user_exec_return_thunk = NULL;
	}
}

/*
 * Call-depth tracking: every call right after "sarq $5, %gs:counter",
 * no other %gs access; running shifts the counter once per call.
 */
static void test_call_depth_accounting(void **state)
{
	struct ax_prog *prog;
	struct shape s;

	user_exec_call_depth_on = true;
	user_exec_call_depth_var = (s32)COUNTER_PAGE;
	user_exec_return_thunk = (void *)count_thunk;

	prog = compile(LEAF);
	s = shape_of(prog, count_thunk);
	assert_int_equal(s.calls, 0);
	assert_int_equal(s.gs, 0);
	done(prog);

	prog = compile(FRAMED);
	s = shape_of(prog, count_thunk);
	assert_int_equal(s.calls, 1);
	assert_int_equal(s.counted_calls, s.calls);
	assert_int_equal(s.gs, s.calls);
	if (gs_is_zero) {
		*counter = (s64)1 << 40;
		thunk_hits = 0;
		assert_int_equal(run(prog), 0x44332211);	/* mem[4..7] */
		assert_int_equal(*counter, (s64)1 << 35);
		assert_int_equal(thunk_hits, 1);
	}
	done(prog);

	user_exec_call_depth_on = false;
	user_exec_return_thunk = NULL;
}

static int setup(void **state)
{
	unsigned long gs = 1;
	void *p;

	user_exec_near = true;		/* rel32 calls and jumps, as in the kernel */
	p = mmap((void *)COUNTER_PAGE, 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == (void *)COUNTER_PAGE)
		counter = p;
	gs_is_zero = counter && !syscall(SYS_arch_prctl, ARCH_GET_GS, &gs) &&
		     !gs;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_ret),
		cmocka_unit_test(test_selected_thunk),
		cmocka_unit_test(test_call_depth_accounting),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
