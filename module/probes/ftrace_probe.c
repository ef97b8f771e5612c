// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace_probe.c - attach a tracepoint at a function's entry through ftrace:
 * two backends of attach.h, the shared ftrace_ops ("ftrace") and a
 * function's own trampoline ("direct", ftrace_direct.c), one family of
 * probes (struct gtp_fprobe) and one hit path.
 *
 * "trace FUNC" gives the function's ftrace location (its __fentry__ call,
 * past endbr64 on IBT kernels).  A kprobe there is itself carried by
 * ftrace (KPROBES_ON_FTRACE), with every register saved and the kprobes
 * bookkeeping around the handler; an ftrace_ops of our own on that ip
 * skips the bookkeeping and, when the tracepoint reads only what ftrace
 * saves anyway, the full register save too.  One ftrace_ops per flavour
 * carries every entry tracepoint of that flavour:
 *
 *   lite  (no FTRACE_OPS_FL_SAVE_REGS): ftrace saves ax, cx, dx, si, di,
 *         r8, r9, bp, sp and ip.  Taken when the condition and actions
 *         read no other register (gtp_fprobe_lite_ok()).  A hit that
 *         goes on to collect does so from a per-CPU copy of just those,
 *         the rest zero, so a frame never shows stale stack bytes.  (The
 *         live frame is never cleared: when another ops on the same ip
 *         wants SAVE_REGS, ftrace restores every register from it.)
 *   regs  (FTRACE_OPS_FL_SAVE_REGS): a complete pt_regs, as the kprobe
 *         gets; for "collect $regs", other registers, $kstack.
 *
 * One shared ops, not one per tracepoint: registering an ops patches its
 * locations in one batch, and unregistering a dynamically allocated ops
 * waits for RCU-tasks grace periods, which one ops per tracepoint pays
 * once each, serially: minutes for a thousand functions.  Adding a
 * location (fp_add()) only checks that ftrace takes it and fixes the
 * tracepoint's flavour; ftrace_arm() then puts every location into its
 * flavour's filter at once and registers each ops, and ftrace_disarm()
 * unregisters them (one wait each).  The
 * callback finds the ip's tracepoints in a hash table of the ips, built
 * before registering and read-only until the ops is unregistered
 * (gtp_fprobe_cb(); an ops with one tracepoint needs none).  The table
 * is open-addressed, indexed by the ip's own low bits and at most an
 * eighth full, so that a hit finds its ip in six instructions whatever
 * the number of locations (three more when another ip took its slot,
 * and a call when two did): with a thousand functions armed, a false
 * condition costs about what it costs with one.  Several
 * tracepoints on one ip run one after the other, newest first, each as
 * its own ops would have (ftrace runs several ops on one ip newest
 * first too): the test of tp->enabled, the nesting guard and the missed
 * count stay per tracepoint.  A lite and a regs tracepoint on one ip
 * are in the two ops, which ftrace runs regs first (registered last).
 *
 * A small trace's entry tracepoints whose conditions a JIT'd probe decides
 * alone get a trampoline of their own instead (ftrace_direct.c,
 * "direct" in `attached`): the condition is called straight from the
 * function's __fentry__ site, and only a true one comes here
 * (gtp_fdirect_hit()).  Several such tracepoints on one function share
 * its trampoline, whose condition holds when any of theirs does
 * (ax_cond_any()); a true one runs each of them as the ops would, newest
 * first.  At most GTP_FDIRECT_MAX functions a trace: each trampoline is an
 * ops, and each ops costs its own grace-period wait at tstop; a larger
 * trace, or a function with any other tracepoint, shares the ops as
 * above, and so does one ftrace refuses a trampoline (another direct user
 * on the function: -EBUSY).  entry_direct=0 turns them off.
 *
 * Either way the hit runs the sequence every backend runs (hit.h) with
 * regs->ip = ip + 1, as the kprobe on the same ftrace location shows its
 * handler, so a condition on $pc and the frames are the same whichever
 * carries the tracepoint; the frame's $pc is the tracepoint's address
 * either way (core/collect.c).  regs->ip is set only when something reads
 * it (a condition on $pc, a hit that collects) and put back afterwards:
 * ftrace's trampolines return to it.
 *
 * Unlike kprobe handlers, ftrace callbacks nest on a CPU (task, irq, NMI;
 * and a traced kernel function called from our own handler).  The
 * callback guards itself (no FTRACE_OPS_FL_RECURSION, so ftrace calls it
 * straight from the ops' trampoline): preemption off, then the nesting
 * guard's one-slot form (core/nest.h) keeps the per-CPU scratch and
 * environment to one hit at a time.
 * A hit that interrupts or recurses into another is counted as missed, as
 * kprobes count theirs.  That is stricter than
 * ftrace_test_recursion_trylock() (which lets an irq's hit interrupt a
 * task's) and cheaper; our ops calls us for our own ips only, so its
 * recursion is exactly what the guard catches.  The scratch and
 * environment are this file's own, so kprobe handlers (which may run
 * inside an ftrace hit, or the reverse) never share them.
 *
 * Detaching: unregister_ftrace_function() of an ops not in core kernel
 * data (ours, allocated) waits for every CPU to leave the callback and the
 * ops' trampoline (synchronize_rcu_tasks*), so the ops, its table, the
 * tracepoints and this module's code can go afterwards.  If ftrace
 * refuses (it shut itself down), nothing it can reach is freed:
 * fp_ops_destroy().
 */
#define pr_fmt(fmt) "gtp: " fmt

#include <linux/ftrace.h>
#include <linux/log2.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>
#include <linux/uaccess.h>
#include <asm/nops.h>
#include <linux/module.h>

#include "kcompat.h"
#include "services.h"
#include "ftrace_unreg.h"
#include "attach.h"
#include "probes.h"
#include "ftrace_direct.h"
#include "hit.h"
#include "nest.h"
#include "ax_any.h"
#include "tsv.h"

static bool entry_ftrace = true;
module_param(entry_ftrace, bool, 0644);
MODULE_PARM_DESC(entry_ftrace, "attach tracepoints at a function's entry through ftrace (0: always kprobes)");

static bool entry_direct = true;
module_param(entry_direct, bool, 0644);
MODULE_PARM_DESC(entry_direct, "in a trace with them on at most 8 functions, entry tracepoints whose conditions the JIT decides on the arguments alone are their function's own ftrace trampoline (attached: direct)");

#define GTP_FDIRECT_MAX	8	/* functions with a trampoline of their own */
#define GTP_FDIRECT_ONE_MAX	8	/* tracepoints sharing one */

/* One entry tracepoint carried by ftrace: the ops' or a trampoline's. */
struct gtp_fprobe {
	struct gtp_attachment a;
	struct gtp_tp *tp;	/* a.tp, or a disabled one once leaked */
	struct gtp_fprobe *same;	/* the next to run on this ip */
	unsigned long ip;	/* the ftrace location */
	bool lite;		/* in the ops without SAVE_REGS */
	bool cond_pc;		/* the condition reads $pc */
	bool refused;		/* its ops was not registered */
	bool leaked;		/* its ops could not be unregistered */
	bool retired;		/* tripped: its ip out of its ops, or its
				 * trampoline detached (fp_retire()) */
	struct gtp_fdirect *direct;	/* its function's trampoline, or NULL */
	bool direct_owner;	/* the first on it: detaches it */
	unsigned int seq;	/* attach order */
	struct gtp_fprobe *next;	/* attached since the last disarm */
	atomic_long_t missed;
};

/* The tracepoints on one ip: @fp, then its ->same chain. */
struct gtp_fp_loc {
	unsigned long ip;
	struct gtp_fprobe *fp;
};

/*
 * The shared ops of one flavour, and its table of locations; read-only
 * while it is registered.  An ip's slot is one of a power of two of
 * entries, at least eight per location; slot_mask is (entries - 1) * 16.
 * One more entry per location follows them (fp_ops_build()); ip 0 is a
 * free entry.  Inline, so that a lookup loads no pointer to it.
 */
struct gtp_fp_ops {
	struct ftrace_ops ops;
	struct gtp_fprobe *one;	/* the only one, on the only location */
	unsigned long slot_mask;
	unsigned int nlocs;
	unsigned int nlive;	/* locations still in its filter */
	bool registered;	/* false once its last location retired */
	struct gtp_fprobe *first;	/* the first by ip, for the log */
	struct gtp_fp_loc slots[];	/* by fp_slot_off() */
};

/* Under gtp_mutex: both backends' probes, and the ops registered. */
static struct gtp_fprobe *gtp_fp_attached;	/* newest first */
static unsigned int gtp_fp_nattached;
static struct gtp_fp_ops *gtp_fp_ops[2];	/* [fp->lite] */

/*
 * Never registered: fp_add() asks ftrace whether it takes a
 * location by setting this ops' filter to it alone, which costs the same
 * however many locations came before.
 */
static struct ftrace_ops gtp_fp_check_ops;

/* What a leaked probe's callback sees (fp_ops_destroy()): disabled. */
static struct gtp_tp gtp_fprobe_dead_tp;

static u8 *gtp_fp_scratch;	/* nr_cpu_ids * GTP_SCRATCH_SIZE */

/* The two backends (defined last): a probe moves from one to the other. */
static const struct gtp_backend gtp_direct_backend;
static const struct gtp_backend gtp_ftrace_backend;
static DEFINE_PER_CPU(struct ax_env, gtp_fp_env);
static DEFINE_PER_CPU(struct gtp_nest, gtp_fp_nest);
static DEFINE_PER_CPU(struct pt_regs, gtp_fp_lite_regs);

/* Registers ftrace saves without SAVE_REGS, as gdb numbers them. */
#define GTP_LITE_REGS	(BIT_ULL(0) | BIT_ULL(2) | BIT_ULL(3) | BIT_ULL(4) | \
			 BIT_ULL(5) | BIT_ULL(6) | BIT_ULL(7) | BIT_ULL(8) | \
			 BIT_ULL(9) | BIT_ULL(16))

static bool prog_lite_ok(const struct ax_prog *prog)
{
	if (!prog)
		return true;
	/* $kstack unwinds from the registers: all of them */
	return !(prog->facts.regs & ~GTP_LITE_REGS) &&
	       !gtp_prog_uses_builtin(prog, GTP_TSV_KSTACK);
}

static bool prog_reads_pc(const struct ax_prog *prog)
{
	return prog && (prog->facts.regs & BIT_ULL(16));
}

/* Does everything @tp reads come from the registers ftrace saves anyway? */
static bool gtp_fprobe_lite_ok(const struct gtp_tp *tp)
{
	u32 i;

	if (!GTP_FTRACE_LITE || !prog_lite_ok(tp->cond))
		return false;
	for (i = 0; i < tp->nactions; i++) {
		const struct gtp_action *a = &tp->actions[i];

		switch (a->type) {
		case GTP_ACT_REGS:
			if (a->regmask & ~GTP_LITE_REGS)
				return false;
			break;
		case GTP_ACT_MEM:
			if (a->basereg >= 0 &&
			    (a->basereg >= 64 ||
			     !(GTP_LITE_REGS & BIT_ULL(a->basereg))))
				return false;
			break;
		case GTP_ACT_EXPR:
			if (!prog_lite_ok(a->prog))
				return false;
			break;
		default:
			return false;
		}
	}
	return true;
}

/*
 * A lite hit goes on to collect: what ftrace saved, in a per-CPU pt_regs
 * whose other registers stay zero (cs and ss are the kernel's).
 */
static __always_inline struct pt_regs *lite_copy(const struct pt_regs *from)
{
	struct pt_regs *regs = this_cpu_ptr(&gtp_fp_lite_regs);

	regs->ax = from->ax;
	regs->cx = from->cx;
	regs->dx = from->dx;
	regs->si = from->si;
	regs->di = from->di;
	regs->r8 = from->r8;
	regs->r9 = from->r9;
	regs->bp = from->bp;
	regs->sp = from->sp;
	regs->ip = from->ip;
	return regs;
}

/*
 * The rest of a hit, with regs->ip as a kprobe shows it (the ftrace
 * location + 1), put back afterwards: ftrace's trampolines
 * return to it.  Out of line, and deriving what it can, so that the
 * false-condition path keeps few registers live.  @precheck: the
 * condition reads $pc, so it is checked here, with that ip.
 */
static noinline void gtp_fprobe_hit(struct gtp_fprobe *fp,
				    struct gtp_tp *tp, struct pt_regs *live,
				    enum gtp_precheck pre, bool precheck)
{
	struct ax_env *env = this_cpu_ptr(&gtp_fp_env);
	unsigned long saved_ip = live->ip;
	struct pt_regs *regs = live;

	live->ip = fp->ip + sizeof(kprobe_opcode_t);
	if (precheck)
		pre = gtp_hit_begin(tp, live, env, false);
	if (pre == GTP_PRE_FALSE)
		goto out;
	/*
	 * A trampoline of its own saved every register, but a frame must
	 * not depend on what carried it: what the lite ops would show.
	 */
	if (fp->lite)
		regs = lite_copy(live);
	gtp_hit_finish(tp, regs, gtp_hit_scratch(gtp_fp_scratch, 1, 0),
		       GTP_SCRATCH_SIZE, env, pre);
out:
	live->ip = saved_ip;
}

/*
 * One tracepoint's hit, as when it had an ops of its own.  @held: its own
 * trampoline found the condition true (gtp_fdirect_hit()).
 */
static __always_inline void gtp_fprobe_run_regs(struct gtp_fprobe *fp,
						struct pt_regs *regs,
						bool held)
{
	struct gtp_tp *tp = READ_ONCE(fp->tp);
	enum gtp_precheck pre;

	preempt_disable_notrace();
	/* this_cpu_*: an irq's or NMI's hit here counts in it too */
	if (unlikely(!gtp_nest_enter_one(gtp_fp_nest))) {
		atomic_long_inc(&fp->missed);
		goto out;
	}
	if (unlikely(fp->cond_pc)) {
		gtp_fprobe_hit(fp, tp, regs, GTP_PRE_UNKNOWN, true);
		goto out;
	}
	/* gdb's disable while running: the ops stays, the hit does nothing */
	pre = gtp_hit_begin(tp, regs, this_cpu_ptr(&gtp_fp_env), held);
	if (pre != GTP_PRE_FALSE)
		gtp_fprobe_hit(fp, tp, regs, pre, false);
out:
	gtp_nest_exit_one(gtp_fp_nest);
	preempt_enable_notrace();
}

static __always_inline void gtp_fprobe_run(struct gtp_fprobe *fp,
					   struct ftrace_regs *fregs)
{
	gtp_fprobe_run_regs(fp, gtp_fregs_pt_regs(fregs), false);
}

/*
 * @fp's function's trampoline (ftrace_direct.c) found its condition
 * true: the hit as an ops runs it, on the registers ftrace_direct_entry.S
 * saved, but for deciding the condition again (gtp_tp_precheck_held():
 * only the CPU budget's timed hits, one in 64, do); a false one never
 * comes here.  A trampoline several tracepoints share (fp->same) found
 * that one of them holds: each decides its own.
 */
void notrace gtp_fdirect_hit(struct pt_regs *regs, struct gtp_fprobe *fp)
{
	regs->cs = __KERNEL_CS;
	regs->ss = __KERNEL_DS;
	if (likely(!fp->same)) {
		gtp_fprobe_run_regs(fp, regs, true);
		return;
	}
	for (; fp; fp = fp->same)
		gtp_fprobe_run_regs(fp, regs, false);
}

/*
 * Where @ip's slot is in fo->slots: ((ip >> 4) & (size - 1)) * 16, in
 * one AND.  Function addresses differ in these bits, and ones close
 * together in the text (the functions of one file, often traced
 * together) get different slots; a hash multiply would cost as much as
 * the rest of the lookup.
 */
static __always_inline unsigned long fp_slot_off(const struct gtp_fp_ops *fo,
						 unsigned long ip)
{
	BUILD_BUG_ON(sizeof(struct gtp_fp_loc) != 16);
	return ip & fo->slot_mask;
}

static __always_inline const struct gtp_fp_loc *
fp_slot(const struct gtp_fp_ops *fo, unsigned long off)
{
	return (const void *)fo->slots + off;
}

/*
 * The key of a location with several tracepoints: its ip with bit 63
 * clear, which no kernel address has, so that the usual case (one
 * tracepoint: the key is the ip) needs no test of fp->same.  Bit 63 is
 * above slot_mask: the slot is the ip's.
 */
static __always_inline unsigned long fp_chain_key(unsigned long ip)
{
	return ip & ~BIT(63);
}

/* Several tracepoints on one ip: each as its own ops would run. */
static void notrace gtp_fprobe_run_all(struct gtp_fprobe *fp,
				       struct ftrace_regs *fregs)
{
	for (; fp; fp = fp->same)
		gtp_fprobe_run(fp, fregs);
}

/*
 * @ip's tracepoints when they are neither in its own slot nor the next
 * (another ip took them), or are several (keyed by fp_chain_key()): the
 * slots from @slot on, up to the first free one (linear probing, never
 * past the table's end: fp_ops_build()).
 */
static noinline void notrace
gtp_fprobe_cb_far(const struct gtp_fp_loc *slot, unsigned long ip,
		  struct ftrace_regs *fregs)
{
	for (; slot->ip; slot++)
		if (slot->ip == ip || slot->ip == fp_chain_key(ip)) {
			gtp_fprobe_run_all(slot->fp, fregs);
			return;
		}
}

/*
 * An ops with one tracepoint has it in fo->one (ftrace calls the ops for
 * that ip only); otherwise the ip's tracepoint is in its slot or the
 * next, tested here with no loop (each load and compare in one
 * instruction; slot[1] always exists), or further (gtp_fprobe_cb_far()).
 */
static void notrace gtp_fprobe_cb(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_ops *op,
				  struct ftrace_regs *fregs)
{
	struct gtp_fp_ops *fo = container_of(op, struct gtp_fp_ops, ops);
	struct gtp_fprobe *fp = fo->one;

	if (unlikely(!fp)) {
		const struct gtp_fp_loc *slot = fp_slot(fo, fp_slot_off(fo, ip));

		fp = slot[0].fp;
		if (unlikely(slot[0].ip != ip)) {
			fp = slot[1].fp;
			if (unlikely(slot[1].ip != ip)) {
				gtp_fprobe_cb_far(slot, ip, fregs);
				return;
			}
		}
	}
	gtp_fprobe_run(fp, fregs);
}

/*
 * @tp (an entry tracepoint) as a probe of @be's, if ftrace takes its
 * location; NULL when it does not (not an ftrace location,
 * entry_ftrace=0): a later backend (the kprobe) gets it, and says why
 * if it fails too.  Nothing runs until the backend arms.
 */
static struct gtp_attachment *fp_add(struct gtp_conn *gc, struct gtp_tp *tp)
{
	unsigned long ip;
	struct gtp_fprobe *fp;

	lockdep_assert_held(&gtp_mutex);
	if (tp->is_static || tp->at_return || !READ_ONCE(entry_ftrace) ||
	    !gtp_fp_scratch)
		return NULL;
	ip = gtp_ftrace_filter_location(&gtp_fp_check_ops,
					(unsigned long)tp->addr, 1);
	if (!ip)
		return NULL;
	fp = kzalloc(sizeof(*fp), GFP_KERNEL);
	if (!fp) {
		gtp_console(gc, "gtp: out of memory for ftrace probes\n");
		return ERR_PTR(-ENOMEM);
	}
	fp->tp = tp;
	fp->ip = ip;
	fp->lite = gtp_fprobe_lite_ok(tp);
	fp->cond_pc = tp->cond_pure && prog_reads_pc(tp->cond);
	fp->seq = gtp_fp_nattached++;
	fp->next = gtp_fp_attached;
	gtp_fp_attached = fp;
	return &fp->a;
}

/* By ip; on one ip the newest first, as ftrace orders several ops. */
static int fp_cmp(const void *a, const void *b)
{
	const struct gtp_fprobe *x = *(struct gtp_fprobe * const *)a;
	const struct gtp_fprobe *y = *(struct gtp_fprobe * const *)b;

	if (x->ip != y->ip)
		return x->ip < y->ip ? -1 : 1;
	return x->seq < y->seq ? 1 : -1;
}

/* Put @fp into its ip's slot, or the next free one (gtp_fprobe_cb()). */
static void fp_slot_add(struct gtp_fp_ops *fo, struct gtp_fprobe *fp)
{
	struct gtp_fp_loc *slot = (void *)fp_slot(fo, fp_slot_off(fo, fp->ip));

	while (slot->ip)
		slot++;
	*slot = (struct gtp_fp_loc){
		fp->same ? fp_chain_key(fp->ip) : fp->ip, fp };
}

/*
 * The ops for the @n probes @fps (sorted by fp_cmp()): its table and its
 * filter, every location at once.  NULL when out of memory or refused.
 */
static struct gtp_fp_ops *fp_ops_build(struct gtp_fprobe **fps,
				       unsigned int n, bool lite)
{
	struct gtp_fp_ops *fo;
	unsigned long *ips, size;
	unsigned int i, nlocs = 0;
	int ret;

	/* each ip's tracepoints in one chain, before any is keyed */
	for (i = 0; i < n; i++) {
		if (i && fps[i]->ip == fps[i - 1]->ip)
			fps[i - 1]->same = fps[i];
		else
			nlocs++;
	}
	/*
	 * At most an eighth full: a lookup seldom goes past the first slot.
	 * Past the @size slots an ip can be in, @nlocs more: linear probing
	 * runs into them instead of wrapping, so a lookup masks once, and
	 * the last stays free (no ip is displaced by more than nlocs - 1).
	 */
	size = roundup_pow_of_two(nlocs) * 8;
	fo = kvzalloc(struct_size(fo, slots, size + nlocs), GFP_KERNEL);
	ips = kmalloc_array(nlocs, sizeof(*ips), GFP_KERNEL);
	if (!fo || !ips)
		goto err;
	fo->slot_mask = (size - 1) * sizeof(*fo->slots);
	fo->first = fps[0];
	for (i = 0; i < n; i++) {
		if (i && fps[i]->ip == fps[i - 1]->ip)
			continue;
		fp_slot_add(fo, fps[i]);
		ips[fo->nlocs++] = fps[i]->ip;
	}
	if (n == 1)
		fo->one = fps[0];
	fo->ops.func = gtp_fprobe_cb;
	/* No FTRACE_OPS_FL_RECURSION: the callback guards itself. */
	fo->ops.flags = lite ? 0 : FTRACE_OPS_FL_SAVE_REGS;
	ret = ftrace_set_filter_ips(&fo->ops, ips, nlocs, 0, 1);
	kfree(ips);
	ips = NULL;
	if (ret)
		goto err_filter;
	ret = register_ftrace_function(&fo->ops);
	if (ret)
		goto err_filter;
	fo->nlive = fo->nlocs;
	fo->registered = true;
	return fo;

err_filter:
	ftrace_free_filter(&fo->ops);
	pr_debug("ftrace refused %u locations (error %d), using kprobes\n",
		 nlocs, ret);
err:
	for (i = 0; i < n; i++)
		fps[i]->same = NULL;
	kfree(ips);
	kvfree(fo);
	return NULL;
}

/* Added by the direct backend: a trampoline of its own may carry it. */
static bool direct_candidate(const struct gtp_fprobe *fp)
{
	return fp->a.be == &gtp_direct_backend;
}

/* Is @fp the first (newest) attached on its ip? */
static bool first_on_ip(const struct gtp_fprobe *fp)
{
	const struct gtp_fprobe *o;

	for (o = gtp_fp_attached; o != fp; o = o->next)
		if (o->ip == fp->ip)
			return false;
	return true;
}

/*
 * The tracepoints on @first's ip, newest first, into @grp: how many, or 0
 * when one of them is no candidate or there are too many to share.
 */
static unsigned int direct_group(struct gtp_fprobe *first,
				 struct gtp_fprobe **grp)
{
	struct gtp_fprobe *fp;
	unsigned int n = 0;

	for (fp = first; fp; fp = fp->next) {
		if (fp->ip != first->ip)
			continue;
		if (!direct_candidate(fp) || n == GTP_FDIRECT_ONE_MAX)
			return 0;
		grp[n++] = fp;
	}
	return n;
}

/* The condition of @grp's trampoline: the one, or any of them. */
static struct gtp_fdirect *attach_group(struct gtp_fprobe **grp,
					unsigned int n, int *err)
{
	struct ax_prog *conds[GTP_FDIRECT_ONE_MAX], *any;
	struct gtp_fdirect *d;
	unsigned int i;
	char log[64];

	if (n == 1)
		return gtp_fdirect_attach(grp[0]->tp->cond, grp[0]->ip, grp[0],
					  err);
	for (i = 0; i < n; i++)
		conds[i] = grp[i]->tp->cond;
	*err = ax_cond_any(conds, n, &any, log, sizeof(log));
	if (*err)
		return NULL;
	d = gtp_fdirect_attach(any, grp[0]->ip, grp[0], err);
	ax_prog_free(any);	/* the trampoline is code of its own */
	return d;
}

/*
 * The direct backend takes an entry tracepoint whose condition a
 * trampoline of its own can decide (ax_jit_probe_compile(): pure,
 * compiled, not reading $pc), entry_direct=1.
 */
static struct gtp_attachment *direct_add(struct gtp_conn *gc,
					 struct gtp_tp *tp)
{
	if (!READ_ONCE(entry_direct) || !gtp_cond_probe_ok(tp) ||
	    prog_reads_pc(tp->cond))
		return NULL;
	return fp_add(gc, tp);
}

/*
 * Trampolines of their own, when at most GTP_FDIRECT_MAX functions could
 * have one; a location that gets none (ftrace or the JIT refuses it, or
 * the trace is too large) moves to the shared ops, which arms next.
 */
static int direct_arm(struct gtp_conn *gc)
{
	struct gtp_fprobe *fp, *grp[GTP_FDIRECT_ONE_MAX];
	unsigned int n = 0, k, i;
	struct gtp_fdirect *d;
	int err;

	for (fp = gtp_fp_attached; fp; fp = fp->next)
		if (direct_candidate(fp) && first_on_ip(fp))
			n++;
	for (fp = gtp_fp_attached; n <= GTP_FDIRECT_MAX && fp; fp = fp->next) {
		if (!first_on_ip(fp))
			continue;
		k = direct_group(fp, grp);
		if (!k)
			continue;
		d = attach_group(grp, k, &err);
		if (!d) {
			pr_debug("tracepoint %u at 0x%lx: no trampoline of its own (error %d), sharing an ops\n",
				 fp->tp->num, fp->ip, err);
			continue;
		}
		for (i = 0; i < k; i++) {
			grp[i]->direct = d;
			grp[i]->same = i + 1 < k ? grp[i + 1] : NULL;
		}
		grp[0]->direct_owner = true;
	}
	for (fp = gtp_fp_attached; fp; fp = fp->next)
		if (direct_candidate(fp) && !fp->direct)
			gtp_attach_move(&fp->a, &gtp_ftrace_backend);
	return 0;
}

/*
 * Register the shared ops: one per flavour, lite first: ftrace runs the
 * ops registered last first, so on an ip with both a regs tracepoint goes
 * before a lite one.  The locations of an ops ftrace refuses go on to
 * the kprobe.
 */
static int ftrace_arm(struct gtp_conn *gc)
{
	struct gtp_fprobe **fps, *fp, **pp;
	unsigned int n, i;
	int lite;

	if (!gtp_fp_nattached)
		return 0;
	fps = kvmalloc_array(gtp_fp_nattached, sizeof(*fps), GFP_KERNEL);
	if (!fps) {
		gtp_console(gc, "gtp: out of memory for ftrace probes\n");
		return -ENOMEM;
	}
	for (lite = 1; lite >= 0; lite--) {
		n = 0;
		for (fp = gtp_fp_attached; fp; fp = fp->next)
			if (fp->lite == lite && fp->a.be == &gtp_ftrace_backend)
				fps[n++] = fp;
		if (!n)
			continue;
		sort(fps, n, sizeof(*fps), fp_cmp, NULL);
		gtp_fp_ops[lite] = fp_ops_build(fps, n, lite);
		if (!gtp_fp_ops[lite])
			for (i = 0; i < n; i++)
				fps[i]->refused = true;
	}
	kvfree(fps);
	/* never registered: they go, and their locations on to the kprobe */
	for (pp = &gtp_fp_attached; (fp = *pp);) {
		if (!fp->refused) {
			pp = &fp->next;
			continue;
		}
		*pp = fp->next;
		gtp_attach_pass(fp->a.tp);
		kfree(fp);
	}
	return 0;
}

/* Every entry of @fo's table: its slots, then one spill slot per location. */
static unsigned long fp_table_entries(const struct gtp_fp_ops *fo)
{
	return fo->slot_mask / sizeof(*fo->slots) + 1 + fo->nlocs;
}

/* An ops ftrace_unreg.c got back after all (a forced unload): free it all. */
static void fp_ops_release(struct ftrace_ops *ops)
{
	struct gtp_fp_ops *fo = container_of(ops, struct gtp_fp_ops, ops);
	struct gtp_fprobe *fp, *same;
	unsigned long i;

	for (i = 0; i < fp_table_entries(fo); i++)
		for (fp = fo->slots[i].fp; fp; fp = same) {
			same = fp->same;
			kfree(fp);
		}
	ftrace_free_filter(&fo->ops);
	kvfree(fo);
}

/*
 * Unregister the ops (waits until no CPU runs the callback any more).
 *
 * If ftrace refuses (it shut itself down: ftrace_unreg.c), the ops may
 * still be patched into call sites, and nothing waited for the CPUs in
 * its callback.  So the ops, its table and every probe the table holds
 * stay allocated: those in the spill slots past the hashed ones too,
 * where linear probing put them.  Each probe's tp becomes a disabled
 * tracepoint of its own, so the callback does nothing further;
 * ftrace_unreg.c keeps the ops and gtptrace loaded.
 */
static void fp_ops_destroy(struct gtp_fp_ops *fo)
{
	struct gtp_fprobe *fp;
	unsigned long i;
	int ret = 0;

	if (fo->registered)
		ret = gtp_unregister_ftrace(&fo->ops);
	if (ret) {
		pr_warn("ftrace refused to detach the ftrace_ops of %u locations, the first tracepoint %u at 0x%lx (error %d): it is kept, doing nothing\n",
			fo->nlocs, fo->first->tp->num, fo->first->ip, ret);
		for (i = 0; i < fp_table_entries(fo); i++)
			for (fp = fo->slots[i].fp; fp; fp = fp->same) {
				WRITE_ONCE(fp->tp, &gtp_fprobe_dead_tp);
				fp->leaked = true;
			}
		gtp_ftrace_leak(&fo->ops, fp_ops_release);
		return;
	}
	ftrace_free_filter(&fo->ops);
	kvfree(fo);
}

/*
 * Unlink and free the probes of @be, their missed hits counted; a leaked
 * one stays allocated (fp_ops_destroy()).
 */
static void fp_release(const struct gtp_backend *be)
{
	struct gtp_fprobe *fp, **pp;

	for (pp = &gtp_fp_attached; (fp = *pp);) {
		if (fp->a.be != be) {
			pp = &fp->next;
			continue;
		}
		*pp = fp->next;
		fp->a.tp->missed = atomic_long_read(&fp->missed);
		if (!fp->leaked)
			kfree(fp);
	}
	if (!gtp_fp_attached)
		gtp_fp_nattached = 0;
}

/* Detach the trampolines: each waits until no CPU is in it. */
static void direct_disarm(void)
{
	struct gtp_fprobe *fp, *o;

	lockdep_assert_held(&gtp_mutex);
	for (fp = gtp_fp_attached; fp; fp = fp->next) {
		if (!fp->direct_owner || !fp->direct ||
		    gtp_fdirect_detach(fp->direct))
			continue;
		/* its trampoline may still hand them over: as fp_ops_destroy() */
		for (o = fp; o; o = o->same) {
			WRITE_ONCE(o->tp, &gtp_fprobe_dead_tp);
			o->leaked = true;
		}
		gtp_ftrace_pin();
	}
	fp_release(&gtp_direct_backend);
}

static void ftrace_disarm(void)
{
	int lite;

	lockdep_assert_held(&gtp_mutex);
	for (lite = 0; lite <= 1; lite++) {
		if (gtp_fp_ops[lite])
			fp_ops_destroy(gtp_fp_ops[lite]);
		gtp_fp_ops[lite] = NULL;
	}
	fp_release(&gtp_ftrace_backend);
}

/*
 * Does @o's tracepoint ride the same probe as @fp's?  On its ip in its
 * ops (the same flavour), or on its trampoline.
 */
static bool same_probe(const struct gtp_fprobe *o, const struct gtp_fprobe *fp)
{
	return o->a.be == fp->a.be && o->ip == fp->ip &&
	       (fp->direct ? o->direct == fp->direct : o->lite == fp->lite);
}

/* Has every tracepoint that @fp's probe also carries tripped? */
static bool probe_all_tripped(const struct gtp_fprobe *fp)
{
	const struct gtp_fprobe *o;

	for (o = gtp_fp_attached; o; o = o->next)
		if (same_probe(o, fp) &&
		    READ_ONCE(o->a.tp->tripped) == GTP_TRIP_NONE)
			return false;
	return true;
}

static void mark_retired(const struct gtp_fprobe *fp)
{
	struct gtp_fprobe *o;

	for (o = gtp_fp_attached; o; o = o->next)
		if (same_probe(o, fp))
			o->retired = true;
}

/*
 * ->retire of the shared ops: @fp's ip leaves its ops' filter once every
 * tracepoint there tripped (ftrace then patches the call site back to
 * its NOP, or leaves it to the other users of the function).  The last
 * location of an ops is not taken out of its filter: an ops with an
 * empty filter traces every function.  The ops is unregistered instead,
 * and ftrace_disarm() frees it without unregistering it again.  The
 * table keeps the retired ips; the callback is no longer called for
 * them.
 */
static bool ftrace_retire(struct gtp_attachment *a)
{
	struct gtp_fprobe *fp = container_of(a, struct gtp_fprobe, a);
	struct gtp_fp_ops *fo = gtp_fp_ops[fp->lite];
	int ret;

	if (fp->retired)
		return true;
	if (!fo || fp->leaked || !fo->registered || !probe_all_tripped(fp))
		return false;
	if (fo->nlive == 1)
		ret = gtp_unregister_ftrace(&fo->ops);
	else
		ret = ftrace_set_filter_ip(&fo->ops, fp->ip, 1, 0);
	if (ret) {
		pr_warn("tracepoint %u at 0x%lx: ftrace did not take the location out of the ops (error %d)\n",
			a->tp->num, fp->ip, ret);
		return false;
	}
	if (!--fo->nlive)
		fo->registered = false;
	mark_retired(fp);
	return true;
}

/*
 * ->retire of a trampoline: detached (after ftrace's wait, the image
 * freed) once every tracepoint whose condition it joins tripped; a
 * trampoline is the condition of all of them, so one still on keeps it.
 */
static bool direct_retire(struct gtp_attachment *a)
{
	struct gtp_fprobe *fp = container_of(a, struct gtp_fprobe, a);
	struct gtp_fdirect *d = fp->direct;
	struct gtp_fprobe *o;

	if (fp->retired)
		return true;
	if (!d || !probe_all_tripped(fp) || !gtp_fdirect_detach(d))
		return false;
	mark_retired(fp);
	for (o = gtp_fp_attached; o; o = o->next)
		if (o->direct == d)
			o->direct = NULL;
	return true;
}

/*
 * "direct+ipmodify": a live patch or another ftrace user that changes the
 * ip shares the function (ftrace_direct.c): ftrace's own trampoline with
 * its full register save then runs before ours, so a false condition
 * costs what the shared ops' does, and our tracepoint sees the calls of
 * the function as they enter, before they are sent elsewhere.
 */
static const char *direct_kind(const struct gtp_attachment *a)
{
	const struct gtp_fprobe *fp = container_of(a, struct gtp_fprobe, a);

	return fp->direct && gtp_fdirect_ipmodify_peer(fp->direct) ?
	       "direct+ipmodify" : "direct";
}

static const char *ftrace_kind(const struct gtp_attachment *a)
{
	return container_of(a, struct gtp_fprobe, a)->lite ? "ftrace" :
							     "ftrace-regs";
}

/* ftrace calls both at a function's entry only. */
static u64 fp_caller(const struct gtp_attachment *a,
		     const struct pt_regs *regs)
{
	return gtp_attach_entry_caller(regs);
}
NOKPROBE_SYMBOL(fp_caller);

static const struct gtp_backend gtp_direct_backend = {
	.name		= "direct",
	.rank		= GTP_BACKEND_DIRECT,
	.add		= direct_add,
	.arm		= direct_arm,
	.disarm		= direct_disarm,
	.retire		= direct_retire,
	.kind		= direct_kind,
	.caller		= fp_caller,
};

static const struct gtp_backend gtp_ftrace_backend = {
	.name		= "ftrace",
	.rank		= GTP_BACKEND_FTRACE,
	.add		= fp_add,
	.arm		= ftrace_arm,
	.disarm		= ftrace_disarm,
	.retire		= ftrace_retire,
	.kind		= ftrace_kind,
	.caller		= fp_caller,
};

int gtp_fprobe_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		per_cpu(gtp_fp_lite_regs, cpu).cs = __KERNEL_CS;
		per_cpu(gtp_fp_lite_regs, cpu).ss = __KERNEL_DS;
	}
	gtp_fp_scratch = vmalloc(array_size(nr_cpu_ids, GTP_SCRATCH_SIZE));
	if (!gtp_fp_scratch)
		return -ENOMEM;
	gtp_attach_register(&gtp_direct_backend);
	gtp_attach_register(&gtp_ftrace_backend);
	return 0;
}

/* After every probe is detached. */
void gtp_fprobe_exit(void)
{
	gtp_attach_unregister(&gtp_ftrace_backend);
	gtp_attach_unregister(&gtp_direct_backend);
	ftrace_free_filter(&gtp_fp_check_ops);
	vfree(gtp_fp_scratch);
	gtp_fp_scratch = NULL;
}
