// SPDX-License-Identifier: GPL-2.0
/*
 * gtp_test.ko - the workload of Fahem & Dagenais, Fig. 10/11/13.
 *
 * gtp_test_function(counter1, counter2) increments a global and fires the
 * gtp_test:gtp_test_event TRACE_EVENT.  Writing N to /proc/gtp_test runs
 * the Fig. 11 loop N times:
 *
 *	counter1++; gtp_test_function(counter1, counter2); counter2++;
 *
 * starting from counter1 = counter2 = 0, so the calls are (1,0), (2,1),
 * (3,2)...  Reading /proc/gtp_test prints "calls=N cycles=C" for the last
 * run, C being TSC cycles around the whole loop: benchmarks divide by N.
 *
 * Benchmark baselines (the floors gtp is compared against) are switched by
 * writing a word instead of a number:
 *
 *	echo kprobe > /proc/gtp_test	an empty kprobe pre-handler on
 *					gtp_test_function (any kprobe tool's floor)
 *	echo tpprobe > /proc/gtp_test	an empty probe on gtp_test_event (any
 *					static tracepoint tool's floor)
 *	echo ftrace > /proc/gtp_test	an empty ftrace_ops callback on
 *					gtp_test_function (the floor of an
 *					ftrace-carried entry probe; flags as
 *					gtp's cheapest: no SAVE_REGS)
 *	echo direct > /proc/gtp_test	an empty trampoline called straight
 *					from gtp_test_function's __fentry__
 *					site (ftrace's direct calls: the
 *					floor of an entry trampoline; also a
 *					direct user that keeps gtp's own
 *					trampoline off the function)
 *	echo kprobe-mid > /proc/gtp_test	an empty kprobe at "mid" (below)
 *	echo nofault-tp > /proc/gtp_test	a kprobe inside
 *					copy_from_kernel_nofault() (every
 *					nofault read, gtp's included) whose
 *					handler fires gtp_test_event(-2, 0):
 *					a tracepoint fired from a kprobe's
 *					int3, as a BPF kprobe program's
 *					trace_printk fires one (test_static)
 *	echo off > /proc/gtp_test	remove them all
 *
 * "echo ibt-control > /proc/gtp_test" is the IBT guest's negative control
 * (tests/ibt/guest): an indirect call past a function's endbr64, which a
 * CPU enforcing IBT must trap (ibt_control()).
 *
 * Reading also prints a second line "mid=0x...": the first instruction after
 * gtp_test_function's __fentry__ call, where a kprobe is not carried by
 * ftrace (the kernel may optimize it into a jump): a benchmark's
 * "trace *0x..." for a mid-function tracepoint.
 *
 * Worst case (not just the mean): "echo hist N > /proc/gtp_test" runs the
 * loop N times timing each call alone (gtp_test_hist_run()); reading then
 * prints a second line "hist calls=N min= p50= p99= max= mean= tsc=".
 *
 * Source-level tracing of a module's own lines (docs/tracing.md): "echo
 * lines A B > /proc/gtp_test" calls gtp_test_lines(A, B), which has an
 * inlined helper at two sites and, after its calls, arguments that only
 * DW_OP_entry_value still describes.
 *
 * Hits nesting on a CPU, made to happen at a chosen instruction
 * (tests/e2e/test_nest.py): "echo nest ADDR > /proc/gtp_test" puts a
 * kprobe at each instruction of the function at ADDR in turn and calls
 * gtp_test_function(-4, OFF) under each; the kprobe's handler fires
 * gtp_test_event(-5, OFF), a static hit nested in whatever hit runs
 * there.  "echo evrace ADDR A B N" puts one at the first lock cmpxchg of
 * the function at ADDR (gtptrace's entry-value recorder claiming its
 * slot), then calls gtp_test_lines(A, B), (A+1, B+1), (A+2, B+2) from one
 * place; during the second call, the handler calls gtp_test_lines(A+100,
 * B+100) the first N times it runs: an entry recorded from the int3 (an
 * NMI, to the kernel) between the recorder's read of the slot and its
 * cmpxchg.  Reading prints "nest boundaries=N fired=N" or "evrace
 * fired=N" for the last of them.
 *
 * "echo spill N > /proc/gtp_test" calls each of 32 small functions N times
 * (gtp_test_spill_command()): functions at many different low address
 * bits, for tests that need an ip at a given place in a table of ips.
 *
 * Watch tracepoints (tests/e2e/test_watch.py): "echo watch N" adds 1 to
 * gtp_test_watched N times in gtp_test_watch_add(), from the writing
 * task; "echo watch-cpu C N" does the same on CPU C, from a kworker
 * there (process context); "echo watch-irq C N" from an interrupt on CPU
 * C (an IPI; on the writer's own CPU just interrupts off); "echo
 * watch-read N" only reads it N times.  "echo watch-obj N" allocates an
 * object (gtp_test_obj_new()), waits 50 ms (a dynamic watch is armed a
 * moment after the hit that asks), sets its field to 1 .. N
 * (gtp_test_obj_set()) and its head once, calls gtp_test_obj_done() (where
 * a watch lets go of it), waits again and frees it.
 *
 * Built with -g so that gdb resolves the arguments counter1/counter2 at
 * gtp_test_function (and the globals loop_counter1/loop_counter2, which
 * mirror the loop's state, for conditions on globals).
 */
#define pr_fmt(fmt) "gtp_test: " fmt

#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/uaccess.h>
#include <linux/kstrtox.h>
#include <linux/mutex.h>
#include <linux/kprobes.h>
#include <linux/vmalloc.h>
#include <linux/sort.h>
#include <linux/irqflags.h>
#include <linux/sched.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/smp.h>
#include <linux/workqueue.h>
#include <linux/slab.h>
#include <linux/delay.h>
#include <asm/msr.h>

#define CREATE_TRACE_POINTS
#include "gtp_test_trace.h"
#include "kcompat.h"

/* Globals gdb can name in conditions and collect actions. */
int gtp_test_calls;
int loop_counter1;
int loop_counter2;
EXPORT_SYMBOL_GPL(gtp_test_calls);

static DEFINE_MUTEX(gtp_test_lock);
static unsigned long last_calls;
static u64 last_cycles;

/* Not static: gdb probes it by name (docs/testing.md, "The test workload"). */
int gtp_test_function(int counter1, int counter2);

noinline int gtp_test_function(int counter1, int counter2)
{
	gtp_test_calls++;
	trace_gtp_test_event(counter1, counter2);
	/* keep the call and its arguments from being optimized away */
	barrier();
	return counter1 + counter2;
}
EXPORT_SYMBOL_GPL(gtp_test_function);

/*
 * Inlined at both of its sites in gtp_test_lines(): one tracepoint, two
 * locations.  The empty asm keeps v in a register at each site (another
 * one at each), so the compiler still describes it there.
 */
static __always_inline int gtp_test_scale(int v, int by)
{
	OPTIMIZER_HIDE_VAR(v);
	return v * by + 1;
}

/* Not static: no clone of another name, as gdb traces it by its own. */
int gtp_test_lines(int a, int b);

/*
 * a and b are dead after their last use, and the calls reuse their
 * registers: at the return, the compiler describes them by their values
 * on entry (DW_OP_entry_value), which gtp records.
 */
noinline int gtp_test_lines(int a, int b)
{
	int x, y;

	x = gtp_test_scale(a, 3);
	x += gtp_test_function(x, 1);
	y = gtp_test_scale(b, 5);
	y += gtp_test_function(y, x);
	return x + y;
}

static int bare_pre_handler(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

static struct kprobe bare_kprobe = {
	.symbol_name = "gtp_test_function",
	.pre_handler = bare_pre_handler,
};
static bool bare_kprobe_on;

static void bare_tp_probe(void *data, int counter1, int counter2)
{
}

static bool bare_tp_on;

static void notrace bare_ftrace_cb(unsigned long ip, unsigned long parent_ip,
				   struct ftrace_ops *op,
				   struct ftrace_regs *fregs)
{
}

static struct ftrace_ops bare_ftrace = {
	.func = bare_ftrace_cb,
};
static bool bare_ftrace_on;

/*
 * The empty trampoline: called from the __fentry__ site, it returns into
 * the function.  It counts the call where the kernel tracks call depth,
 * as every direct trampoline must (ftrace's own do the same).
 */
#ifndef CALL_DEPTH_ACCOUNT
#define CALL_DEPTH_ACCOUNT ""
#endif
asm(".pushsection .text, \"ax\", @progbits\n"
    "	.type gtp_test_direct_tramp, @function\n"
    "	.globl gtp_test_direct_tramp\n"
    "gtp_test_direct_tramp:\n\t"
    ASM_ENDBR
    CALL_DEPTH_ACCOUNT
    ASM_RET
    "	.size gtp_test_direct_tramp, .-gtp_test_direct_tramp\n"
    ".popsection\n");
void gtp_test_direct_tramp(void);

static struct ftrace_ops bare_direct;
static bool bare_direct_on;

static int bare_mid_pre_handler(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

static struct kprobe bare_mid_kprobe = {
	.pre_handler = bare_mid_pre_handler,
};
static bool bare_mid_on;

/*
 * nofault-tp: on the instruction after copy_from_kernel_nofault()'s
 * __fentry__ call, so not carried by ftrace, and with a post-handler, so
 * never optimized into a jump: the handler always runs in the int3's
 * (NMI) context.
 */
static int nofault_tp_pre_handler(struct kprobe *p, struct pt_regs *regs)
{
	trace_gtp_test_event(-2, 0);
	return 0;
}

static void nofault_tp_post_handler(struct kprobe *p, struct pt_regs *regs,
				    unsigned long flags)
{
}

static struct kprobe nofault_tp_kprobe = {
	.pre_handler = nofault_tp_pre_handler,
	.post_handler = nofault_tp_post_handler,
};
static bool nofault_tp_on;

/*
 * gtp_test_function's ftrace location (its __fentry__ call, past endbr64
 * on IBT kernels) is where kprobes put a kprobe on the function itself;
 * "mid" is the instruction after that call.  0 if kprobes refuse.
 */
static unsigned long mid_addr;

static unsigned long find_mid(void)
{
	struct kprobe kp = { .symbol_name = "gtp_test_function" };

	if (mid_addr)
		return mid_addr;
	if (register_kprobe(&kp))
		return 0;
	mid_addr = (unsigned long)kp.addr + MCOUNT_INSN_SIZE;
	unregister_kprobe(&kp);
	return mid_addr;
}

static int nofault_tp_register(void)
{
	struct kprobe kp = { .symbol_name = "copy_from_kernel_nofault" };
	int ret = register_kprobe(&kp);

	if (ret)
		return ret;
	nofault_tp_kprobe.addr = (kprobe_opcode_t *)((unsigned long)kp.addr +
						     MCOUNT_INSN_SIZE);
	unregister_kprobe(&kp);
	return register_kprobe(&nofault_tp_kprobe);
}

static void baselines_off(void)
{
	if (bare_kprobe_on) {
		unregister_kprobe(&bare_kprobe);
		/* a kprobe can be registered again only from a clean struct */
		bare_kprobe.addr = NULL;
		bare_kprobe.flags = 0;
		bare_kprobe_on = false;
	}
	if (bare_tp_on) {
		unregister_trace_gtp_test_event(bare_tp_probe, NULL);
		tracepoint_synchronize_unregister();
		bare_tp_on = false;
	}
	if (bare_ftrace_on) {
		unregister_ftrace_function(&bare_ftrace);
		bare_ftrace_on = false;
	}
	if (bare_direct_on) {
		gtp_unregister_ftrace_direct(&bare_direct,
					     (unsigned long)gtp_test_direct_tramp);
		bare_direct_on = false;
	}
	if (bare_mid_on) {
		unregister_kprobe(&bare_mid_kprobe);
		bare_mid_kprobe.addr = NULL;
		bare_mid_kprobe.flags = 0;
		bare_mid_on = false;
	}
	if (nofault_tp_on) {
		unregister_kprobe(&nofault_tp_kprobe);
		nofault_tp_kprobe.addr = NULL;
		nofault_tp_kprobe.flags = 0;
		nofault_tp_on = false;
	}
}

static int bare_ftrace_register(void)
{
	int ret = ftrace_set_filter_ip(&bare_ftrace,
				       (unsigned long)gtp_test_function, 0, 1);

	if (!ret)
		ret = register_ftrace_function(&bare_ftrace);
	return ret;
}

static int bare_direct_register(void)
{
	int ret = ftrace_set_filter_ip(&bare_direct,
				       (unsigned long)gtp_test_function, 0, 1);

	if (!ret)
		ret = gtp_register_ftrace_direct(&bare_direct,
					(unsigned long)gtp_test_direct_tramp);
	if (ret)
		ftrace_free_filter(&bare_direct);
	return ret;
}

static int bare_mid_register(void)
{
	unsigned long mid = find_mid();

	if (!mid)
		return -ENOENT;
	bare_mid_kprobe.addr = (kprobe_opcode_t *)mid;
	return register_kprobe(&bare_mid_kprobe);
}

/*
 * The negative control of the IBT guest: that a run there passes proves
 * something only if the CPU really traps an indirect branch that does not
 * land on endbr64.  So call ibt_control_target() through a pointer, past
 * its endbr64: a CPU enforcing IBT raises #CP ("Missing ENDBR", a kernel
 * BUG that kills the writing task); anywhere else the call runs the body
 * (the endbr64 skipped is a no-op) and the write succeeds.  Where the
 * function has no endbr64 to skip (a kernel built without IBT) the
 * command is refused with -EOPNOTSUPP.
 */
static noinline int ibt_control_target(int x)
{
	return x + 1;
}

static int (*volatile ibt_control_fn)(int) = ibt_control_target;

static int ibt_control(void)
{
	u8 *fn = (u8 *)ibt_control_fn;
	int (*past_endbr)(int);
	u32 insn;

	memcpy(&insn, fn, sizeof(insn));
	if (insn != GTP_ENDBR64)
		return -EOPNOTSUPP;
	past_endbr = (int (*)(int))(fn + GTP_ENDBR64_SIZE);
	pr_info("ibt-control: an indirect call to %ps+%d\n", fn,
		GTP_ENDBR64_SIZE);
	return past_endbr(1) == 2 ? 0 : -EIO;
}

/* Handle a baseline command; -EINVAL if @cmd is not one. */
static int baseline_command(const char *cmd)
{
	int ret = 0;

	if (sysfs_streq(cmd, "off")) {
		baselines_off();
	} else if (sysfs_streq(cmd, "kprobe")) {
		if (!bare_kprobe_on) {
			ret = register_kprobe(&bare_kprobe);
			bare_kprobe_on = !ret;
		}
	} else if (sysfs_streq(cmd, "ftrace")) {
		if (!bare_ftrace_on) {
			ret = bare_ftrace_register();
			bare_ftrace_on = !ret;
		}
	} else if (sysfs_streq(cmd, "direct")) {
		if (!bare_direct_on) {
			ret = bare_direct_register();
			bare_direct_on = !ret;
		}
	} else if (sysfs_streq(cmd, "kprobe-mid")) {
		if (!bare_mid_on) {
			ret = bare_mid_register();
			bare_mid_on = !ret;
		}
	} else if (sysfs_streq(cmd, "nofault-tp")) {
		if (!nofault_tp_on) {
			ret = nofault_tp_register();
			nofault_tp_on = !ret;
		}
	} else if (sysfs_streq(cmd, "ibt-control")) {
		ret = ibt_control();
	} else if (sysfs_streq(cmd, "tpprobe")) {
		if (!bare_tp_on) {
			ret = register_trace_gtp_test_event(bare_tp_probe, NULL);
			bare_tp_on = !ret;
		}
	} else {
		ret = -EINVAL;
	}
	return ret;
}

static void gtp_test_loop(unsigned long n)
{
	unsigned long i;
	u64 t0, t1;

	loop_counter1 = 0;
	loop_counter2 = 0;
	t0 = rdtsc_ordered();
	for (i = 0; i < n; i++) {
		WRITE_ONCE(loop_counter1, loop_counter1 + 1);
		gtp_test_function(READ_ONCE(loop_counter1),
				  READ_ONCE(loop_counter2));
		WRITE_ONCE(loop_counter2, loop_counter2 + 1);
	}
	t1 = rdtsc_ordered();
	last_calls = n;
	last_cycles = t1 - t0;
}

/*
 * "spill N": call each of GTP_TEST_SPILL small functions N times.  They
 * lie one after the other in the text, so their ftrace locations take
 * many different low address bits, and a test can pick ones that land
 * where it needs them in gtptrace's table of traced ips (the spill slots
 * past its end: tests/e2e/test_unreg_refused.py).  Each stores its own
 * number, so no two are the same code.
 */
#define GTP_TEST_SPILL	32

static int gtp_test_spill_last;

#define SPILL_FN(n)							\
static noinline void gtp_test_spill_##n(void)				\
{									\
	WRITE_ONCE(gtp_test_spill_last, n);				\
}

SPILL_FN(0) SPILL_FN(1) SPILL_FN(2) SPILL_FN(3) SPILL_FN(4) SPILL_FN(5)
SPILL_FN(6) SPILL_FN(7) SPILL_FN(8) SPILL_FN(9) SPILL_FN(10) SPILL_FN(11)
SPILL_FN(12) SPILL_FN(13) SPILL_FN(14) SPILL_FN(15) SPILL_FN(16)
SPILL_FN(17) SPILL_FN(18) SPILL_FN(19) SPILL_FN(20) SPILL_FN(21)
SPILL_FN(22) SPILL_FN(23) SPILL_FN(24) SPILL_FN(25) SPILL_FN(26)
SPILL_FN(27) SPILL_FN(28) SPILL_FN(29) SPILL_FN(30) SPILL_FN(31)

static void (*const gtp_test_spill_fns[GTP_TEST_SPILL])(void) = {
	gtp_test_spill_0, gtp_test_spill_1, gtp_test_spill_2,
	gtp_test_spill_3, gtp_test_spill_4, gtp_test_spill_5,
	gtp_test_spill_6, gtp_test_spill_7, gtp_test_spill_8,
	gtp_test_spill_9, gtp_test_spill_10, gtp_test_spill_11,
	gtp_test_spill_12, gtp_test_spill_13, gtp_test_spill_14,
	gtp_test_spill_15, gtp_test_spill_16, gtp_test_spill_17,
	gtp_test_spill_18, gtp_test_spill_19, gtp_test_spill_20,
	gtp_test_spill_21, gtp_test_spill_22, gtp_test_spill_23,
	gtp_test_spill_24, gtp_test_spill_25, gtp_test_spill_26,
	gtp_test_spill_27, gtp_test_spill_28, gtp_test_spill_29,
	gtp_test_spill_30, gtp_test_spill_31,
};

/* "spill N": -EINVAL if @cmd is not one, else 0. */
static int gtp_test_spill_command(const char *cmd)
{
	unsigned long n, i;
	unsigned int f;

	if (strncmp(cmd, "spill ", 6) || kstrtoul(strim((char *)cmd + 6), 0, &n))
		return -EINVAL;
	for (i = 0; i < n; i++)
		for (f = 0; f < GTP_TEST_SPILL; f++)
			gtp_test_spill_fns[f]();
	return 0;
}

/*
 * Per-call cost distribution ("hist N").  Each call is timed on its own
 * with rdtsc_ordered() and interrupts disabled around it, so a timer tick
 * or an interrupt is never charged to the probe; whatever the probe itself
 * does (sub-buffer switches included) is.  The samples go to a vmalloc'd
 * array sized before the timed part, and are sorted afterwards: nothing
 * in the timed part sleeps or allocates.  "tsc" is the cost of the timing
 * alone (the same region with no call, the minimum of 1024), to subtract
 * when comparing with "calls= cycles=" figures.
 */
#define HIST_MAX_CALLS	(16UL << 20)

static struct {
	unsigned long calls;
	u32 min, p50, p99, max, tsc;
	u64 sum;
} hist;
static bool hist_valid;

static int hist_cmp(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

static u32 hist_tsc_cost(void)
{
	unsigned long flags;
	u32 best = U32_MAX;
	u64 t0, t1;
	int i;

	for (i = 0; i < 1024; i++) {
		local_irq_save(flags);
		t0 = rdtsc_ordered();
		t1 = rdtsc_ordered();
		local_irq_restore(flags);
		best = min_t(u64, best, t1 - t0);
	}
	return best;
}

static int gtp_test_hist_run(unsigned long n)
{
	unsigned long i, flags;
	u64 start, t0, t1;
	u32 *t;

	if (!n || n > HIST_MAX_CALLS)
		return -EINVAL;
	t = vmalloc(array_size(n, sizeof(*t)));
	if (!t)
		return -ENOMEM;
	hist_valid = false;
	hist.tsc = hist_tsc_cost();
	loop_counter1 = 0;
	loop_counter2 = 0;
	start = rdtsc_ordered();
	for (i = 0; i < n; i++) {
		WRITE_ONCE(loop_counter1, loop_counter1 + 1);
		local_irq_save(flags);
		t0 = rdtsc_ordered();
		gtp_test_function(READ_ONCE(loop_counter1),
				  READ_ONCE(loop_counter2));
		t1 = rdtsc_ordered();
		local_irq_restore(flags);
		t[i] = min_t(u64, t1 - t0, U32_MAX);
		WRITE_ONCE(loop_counter2, loop_counter2 + 1);
		if (!(i & 1023))
			cond_resched();	/* outside the timed part */
	}
	last_cycles = rdtsc_ordered() - start;
	last_calls = n;

	hist.sum = 0;
	for (i = 0; i < n; i++)
		hist.sum += t[i];
	sort(t, n, sizeof(*t), hist_cmp, NULL);
	hist.calls = n;
	hist.min = t[0];
	hist.p50 = t[n / 2];
	hist.p99 = t[min(n - 1, n * 99 / 100)];
	hist.max = t[n - 1];
	hist_valid = true;
	vfree(t);
	return 0;
}

/* "hist N": -EINVAL if @cmd is not one, else the run's status. */
static int gtp_test_hist_command(const char *cmd)
{
	unsigned long n;

	if (strncmp(cmd, "hist ", 5) || kstrtoul(strim((char *)cmd + 5), 0, &n))
		return -EINVAL;
	return gtp_test_hist_run(n);
}

static int gtp_test_hist_show(char *buf, size_t size)
{
	if (!hist_valid)
		return 0;
	return scnprintf(buf, size,
			 "hist calls=%lu min=%u p50=%u p99=%u max=%u mean=%llu tsc=%u\n",
			 hist.calls, hist.min, hist.p50, hist.p99, hist.max,
			 div64_u64(hist.sum, hist.calls), hist.tsc);
}

/* "lines A B": -EINVAL if @cmd is not one, else 0. */
static int gtp_test_lines_command(const char *cmd)
{
	int a, b;

	if (sscanf(cmd, "lines %d %d", &a, &b) != 2)
		return -EINVAL;
	gtp_test_lines(a, b);
	return 0;
}

/* "nest" and "evrace": who the injecting kprobe acts for, how often */
static struct task_struct *inject_task;
static int inject_shots;
static unsigned int inject_fired, inject_boundaries;
static unsigned int inject_off;
static bool inject_ran, inject_evrace;	/* the last was evrace */

static int nest_pre_handler(struct kprobe *p, struct pt_regs *regs)
{
	if (READ_ONCE(inject_task) != current)
		return 0;
	inject_fired++;
	trace_gtp_test_event(-5, inject_off);
	return 0;
}

/* The size of the function at @fn, from "%pS"'s "name+0x0/0xSIZE". */
static unsigned long func_size(unsigned long fn)
{
	char sym[KSYM_SYMBOL_LEN];
	unsigned long size;
	char *slash;

	sprint_symbol(sym, fn);
	slash = strchr(sym, '/');
	if (!slash || sscanf(slash + 1, "%lx", &size) != 1)
		return 0;
	return size;
}

/*
 * A kprobe at every instruction of the function at @fn (kprobes refuse
 * an address inside an instruction), one at a time, with a call of
 * gtp_test_function() under each.
 */
static int nest_command(unsigned long fn)
{
	unsigned long size = func_size(fn), off;
	struct kprobe kp;

	if (!size)
		return -ENOENT;
	inject_ran = true;
	inject_evrace = false;
	inject_fired = inject_boundaries = 0;
	for (off = 0; off < size; off++) {
		memset(&kp, 0, sizeof(kp));
		kp.addr = (kprobe_opcode_t *)(fn + off);
		kp.pre_handler = nest_pre_handler;
		if (register_kprobe(&kp))
			continue;
		inject_boundaries++;
		inject_off = off;
		WRITE_ONCE(inject_task, current);
		gtp_test_function(-4, off);
		WRITE_ONCE(inject_task, NULL);
		unregister_kprobe(&kp);
		cond_resched();
	}
	return inject_boundaries ? 0 : -ENOENT;
}

static int evrace_pre_handler(struct kprobe *p, struct pt_regs *regs)
{
	if (READ_ONCE(inject_task) != current || inject_shots <= 0)
		return 0;
	inject_shots--;
	inject_fired++;
	gtp_test_lines(loop_counter1 + 100, loop_counter2 + 100);
	return 0;
}

/* The first "lock cmpxchg" (f0, a REX prefix or not, 0f b1) at @fn. */
static unsigned long find_lock_cmpxchg(unsigned long fn)
{
	u8 code[512];
	int i;

	if (copy_from_kernel_nofault(code, (void *)fn, sizeof(code)))
		return 0;
	for (i = 0; i + 4 <= sizeof(code); i++) {
		int r = (code[i + 1] & 0xf0) == 0x40;

		if (code[i] == 0xf0 && code[i + 1 + r] == 0x0f &&
		    code[i + 2 + r] == 0xb1)
			return fn + i;
	}
	return 0;
}

static int evrace_command(unsigned long fn, int a, int b, int shots)
{
	struct kprobe kp = { .pre_handler = evrace_pre_handler };
	int ret;

	kp.addr = (kprobe_opcode_t *)find_lock_cmpxchg(fn);
	if (!kp.addr)
		return -ENOENT;
	ret = register_kprobe(&kp);
	if (ret)
		return ret;
	inject_ran = inject_evrace = true;
	inject_fired = 0;
	gtp_test_lines(a, b);
	loop_counter1 = a + 1;
	loop_counter2 = b + 1;
	inject_shots = shots;
	WRITE_ONCE(inject_task, current);
	gtp_test_lines(a + 1, b + 1);
	WRITE_ONCE(inject_task, NULL);
	gtp_test_lines(a + 2, b + 2);
	unregister_kprobe(&kp);
	return 0;
}

/* The data a watch tracepoint watches; 8-aligned, as a debug register. */
static u64 gtp_test_watched __aligned(8);

/* The writer whose pc a watch hit shows (just after its store). */
static noinline void gtp_test_watch_add(void)
{
	WRITE_ONCE(gtp_test_watched, READ_ONCE(gtp_test_watched) + 1);
}

static noinline void gtp_test_watch_read(void)
{
	(void)READ_ONCE(gtp_test_watched);
}

static void watch_adds(void *n)
{
	unsigned long i;

	for (i = 0; i < (unsigned long)n; i++)
		gtp_test_watch_add();
}

static long watch_adds_work(void *n)
{
	watch_adds(n);
	return 0;
}

/* An object a dynamic watch follows from its allocation: its field. */
struct gtp_test_obj {
	u64 head;
	u64 field;
};

static noinline struct gtp_test_obj *gtp_test_obj_new(void)
{
	return kzalloc(sizeof(struct gtp_test_obj), GFP_KERNEL);
}

static noinline void gtp_test_obj_set(struct gtp_test_obj *o, u64 v)
{
	WRITE_ONCE(o->field, v);
}

static noinline void gtp_test_obj_done(struct gtp_test_obj *o)
{
	WRITE_ONCE(o->head, 2);
}

static int watch_obj(unsigned long n)
{
	struct gtp_test_obj *o = gtp_test_obj_new();
	unsigned long i;

	if (!o)
		return -ENOMEM;
	msleep(50);
	for (i = 1; i <= n; i++)
		gtp_test_obj_set(o, i);
	WRITE_ONCE(o->head, 1);
	gtp_test_obj_done(o);
	msleep(50);
	kfree(o);
	return 0;
}

/* "watch N", "watch-cpu C N", "watch-irq C N", "watch-read N", "watch-obj N" */
static int watch_command(const char *cmd)
{
	unsigned long n;
	unsigned int cpu;

	if (sscanf(cmd, "watch-obj %lu", &n) == 1)
		return watch_obj(n);
	if (sscanf(cmd, "watch %lu", &n) == 1) {
		watch_adds((void *)n);
		return 0;
	}
	if (sscanf(cmd, "watch-read %lu", &n) == 1) {
		while (n--)
			gtp_test_watch_read();
		return 0;
	}
	if (sscanf(cmd, "watch-cpu %u %lu", &cpu, &n) == 2) {
		if (cpu >= nr_cpu_ids || !cpu_online(cpu))
			return -ENODEV;
		return work_on_cpu(cpu, watch_adds_work, (void *)n);
	}
	if (sscanf(cmd, "watch-irq %u %lu", &cpu, &n) == 2) {
		if (cpu >= nr_cpu_ids || !cpu_online(cpu))
			return -ENODEV;
		return smp_call_function_single(cpu, watch_adds, (void *)n, 1);
	}
	return -EINVAL;
}

/* "nest ADDR", "evrace ADDR A B N": -EINVAL if @cmd is neither. */
static int inject_command(const char *cmd)
{
	unsigned long fn;
	int a, b, n;

	if (sscanf(cmd, "nest %lx", &fn) == 1)
		return nest_command(fn);
	if (sscanf(cmd, "evrace %lx %d %d %d", &fn, &a, &b, &n) == 4)
		return evrace_command(fn, a, b, n);
	return -EINVAL;
}

static int inject_show(char *buf, size_t size)
{
	if (!inject_ran)
		return 0;
	if (inject_evrace)
		return scnprintf(buf, size, "evrace fired=%u\n", inject_fired);
	return scnprintf(buf, size, "nest boundaries=%u fired=%u\n",
			 inject_boundaries, inject_fired);
}

static ssize_t gtp_test_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	char buf[64];
	unsigned long n;
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';

	mutex_lock(&gtp_test_lock);
	ret = kstrtoul(strim(buf), 0, &n);
	if (!ret) {
		gtp_test_loop(n);
		hist_valid = false;
	} else {
		ret = gtp_test_hist_command(buf);
		if (ret == -EINVAL)
			ret = gtp_test_lines_command(buf);
		if (ret == -EINVAL)
			ret = inject_command(buf);
		if (ret == -EINVAL)
			ret = gtp_test_spill_command(buf);
		if (ret == -EINVAL)
			ret = baseline_command(buf);
		if (ret == -EINVAL)
			ret = watch_command(buf);
	}
	mutex_unlock(&gtp_test_lock);
	return ret ? ret : count;
}

static ssize_t gtp_test_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char buf[288];
	int len;

	mutex_lock(&gtp_test_lock);
	len = scnprintf(buf, sizeof(buf), "calls=%lu cycles=%llu\nmid=0x%lx\n",
			last_calls, last_cycles, find_mid());
	len += gtp_test_hist_show(buf + len, sizeof(buf) - len);
	len += inject_show(buf + len, sizeof(buf) - len);
	mutex_unlock(&gtp_test_lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct proc_ops gtp_test_ops = {
	.proc_read = gtp_test_read,
	.proc_write = gtp_test_write,
	.proc_lseek = default_llseek,
};

static int __init gtp_test_init(void)
{
	if (!proc_create("gtp_test", 0600, NULL, &gtp_test_ops)) {
		pr_err("cannot create /proc/gtp_test\n");
		return -ENOMEM;
	}
	return 0;
}

static void __exit gtp_test_exit(void)
{
	remove_proc_entry("gtp_test", NULL);
	baselines_off();
	ftrace_free_filter(&bare_ftrace);
}

module_init(gtp_test_init);
module_exit(gtp_test_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("gtp test workload: the paper's Fig. 11 loop and test event");
