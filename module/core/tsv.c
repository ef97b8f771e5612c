// SPDX-License-Identifier: GPL-2.0
/*
 * tsv.c - trace state variables: the store probes read and write.
 *
 * gdb numbers the variables and downloads them with QTDV at tstart
 * (tsv_packets.c answers the packets).  A
 * variable whose name is one of the built-ins below ("tvariable $cpu_id")
 * is not stored: every read takes the value at that moment, so
 * "collect $cpu_id" records the CPU of the hit.  Built-ins are read-only,
 * but for $gtp_stop, $gtp_enable and $gtp_disable (gtp_tsv_set(): a
 * trigger, trigger.c) and $kret, whose setting is not a
 * value but a mark: a location whose actions set it is a return probe
 * (gtp_tps_mark_returns()).  $gtp_cpu_budget and $gtp_budget_stop are
 * knobs: their initial value ("tvariable $gtp_cpu_budget = 5") sets this
 * session's CPU budget (budget.h); read, the budget in force.
 *
 * A variable named "$p_NAME" has one value per CPU (KGTP's per-CPU
 * variables): a hit reads and sets its own CPU's, with plain loads and
 * stores, no atomics and no shared cache line to fight over, so "the
 * 1000th call on this CPU" is a condition; a reader (qTV, gdb's "print")
 * gets the sum, and qGtpPcpu each CPU's.  A hit nested in another on one
 * CPU (an interrupt's) that sets it between the other's read and set is
 * lost to it, as for any variable: getv and setv are two steps.
 *
 * A variable named "$hist_NAME" or "$count_NAME" aggregates instead
 * (agg.c): setv adds its value to a per-CPU histogram or count table,
 * reads (getv, qTV) give how many values were added.
 *
 * Probe handlers look variables up without locks.  That is safe because
 * the table only grows by publishing a fully written slot (the count is
 * written last) and is cleared only by QTinit, when nothing is attached.
 */
#include "tsv.h"
#include "regs.h"
#include "tracepoint.h"	/* tp->at_return */
#include "run.h"
#include "budget.h"
#include "host.h"	/* $caller */
#include "trigger.h"	/* $gtp_enable, $gtp_disable */

static struct gtp_tsv tsvs[GTP_MAX_TSV];
static u32 ntsv;

static const char *const builtin_names[GTP_TSV_NR_BUILTIN] = {
	[GTP_TSV_CPU_ID]		= "cpu_id",
	[GTP_TSV_CURRENT_TASK]		= "current_task",
	[GTP_TSV_CURRENT_TASK_PID]	= "current_task_pid",
	[GTP_TSV_CLOCK]			= "clock",
	[GTP_TSV_RDTSC]			= "rdtsc",
	[GTP_TSV_HARDIRQ_COUNT]		= "hardirq_count",
	[GTP_TSV_SOFTIRQ_COUNT]		= "softirq_count",
	[GTP_TSV_STOP]			= "gtp_stop",
	[GTP_TSV_KRET]			= "kret",
	[GTP_TSV_KSTACK]		= "kstack",
	[GTP_TSV_CPU_BUDGET]		= "gtp_cpu_budget",
	[GTP_TSV_BUDGET_STOP]		= "gtp_budget_stop",
	[GTP_TSV_CGROUP_ID]		= "cgroup_id",
	[GTP_TSV_NS_PID]		= "ns_pid",
	[GTP_TSV_NS_TGID]		= "ns_tgid",
	[GTP_TSV_CALLER]		= "caller",
	[GTP_TSV_KRET_NS]		= "kret_ns",
	[GTP_TSV_ENABLE]		= "gtp_enable",
	[GTP_TSV_DISABLE]		= "gtp_disable",
	[GTP_TSV_PERF_CYCLES]		= "perf_cycles",
	[GTP_TSV_PERF_INSTRUCTIONS]	= "perf_instructions",
	[GTP_TSV_PERF_CACHE_MISSES]	= "perf_cache_misses",
	[GTP_TSV_PERF_PAGE_FAULTS]	= "perf_page_faults",
	[GTP_TSV_PERF_CPU_CLOCK]	= "perf_cpu_clock",
	[GTP_TSV_USTACK]		= "ustack",
	[GTP_TSV_WATCH]			= "watch",
	[GTP_TSV_AWATCH]		= "awatch",
	[GTP_TSV_WATCH_VAL]		= "watch_val",
	[GTP_TSV_WATCH_PREV]		= "watch_prev",
	[GTP_TSV_WATCH_ADDR]		= "watch_addr",
	/* a family, "watch_arm_N": watch_arm_of(), not builtin_by_name() */
	[GTP_TSV_WATCH_ARM]		= "watch_arm_",
};

/* "$p_X" with some X: one value per CPU (a built-in never starts so). */
static bool is_pcpu_name(const char *name)
{
	size_t n = strlen(GTP_TSV_PCPU_PREFIX);

	return !strncmp(name, GTP_TSV_PCPU_PREFIX, n) && name[n];
}

static enum gtp_builtin_tsv builtin_by_name(const char *name)
{
	int i;

	for (i = 1; i < GTP_TSV_NR_BUILTIN; i++)
		if (i != GTP_TSV_WATCH_ARM && !strcmp(name, builtin_names[i]))
			return i;
	return GTP_TSV_USER;
}

/*
 * "watch_arm_N", N a tracepoint number in decimal (no leading zero): N,
 * else 0.
 */
static u32 watch_arm_of(const char *name)
{
	const char *prefix = builtin_names[GTP_TSV_WATCH_ARM];
	size_t n = strlen(prefix);
	u32 num = 0;

	if (strncmp(name, prefix, n) || name[n] == '0')
		return 0;
	for (name += n; *name >= '0' && *name <= '9'; name++) {
		num = num * 10 + (*name - '0');
		if (num > GTP_TP_NUM_MAX)
			return 0;
	}
	return *name ? 0 : num;
}

/* Probe context, NMI included: compat.h's primitives are all safe there. */
static s64 builtin_value(enum gtp_builtin_tsv kind)
{
	switch (kind) {
	case GTP_TSV_CPU_ID:
		return gtp_cpu_id();
	case GTP_TSV_CURRENT_TASK:
		return gtp_current_task();
	case GTP_TSV_CURRENT_TASK_PID:
		return gtp_current_pid();
	case GTP_TSV_CLOCK:
		return gtp_mono_ns();
	case GTP_TSV_RDTSC:
		return gtp_tsc();
	case GTP_TSV_HARDIRQ_COUNT:
		return gtp_hardirq_depth();
	case GTP_TSV_SOFTIRQ_COUNT:
		return gtp_softirq_depth();
	case GTP_TSV_STOP:
		return !gtp_trace_running();
	case GTP_TSV_CPU_BUDGET:
		return gtp_budget.pct;
	case GTP_TSV_BUDGET_STOP:
		return gtp_budget.stop;
	case GTP_TSV_CGROUP_ID:
		return gtp_cgroup_id();
	case GTP_TSV_NS_PID:
		return gtp_ns_pid();
	case GTP_TSV_NS_TGID:
		return gtp_ns_tgid();
	default:
		return 0;
	}
}

struct gtp_tsv *gtp_tsv_find(u32 num)
{
	u32 i, n = READ_ONCE(ntsv);

	smp_rmb();	/* pairs with smp_wmb() in gtp_tsv_define() */
	for (i = 0; i < n; i++)
		if (tsvs[i].num == num)
			return &tsvs[i];
	return NULL;
}

/*
 * A counter ($perf_cycles, ...): the host's, on this CPU (host.h
 * @perf_read); -EIO when it has none open here (a getv then fails, and
 * the hit counts the error; qTV says unknown).
 */
static int perf_value(enum gtp_builtin_tsv kind, s64 *val)
{
	u64 v;

	if (gtp_host->perf_read(gtp_tsv_perf_kind(kind), &v))
		return -EIO;
	*val = (s64)v;
	return 0;
}

/* A per-CPU variable's readers see the sum (wrapping as s64 adds do). */
static s64 pcpu_sum(const struct gtp_tsv *v)
{
	u64 sum = 0;
	u32 cpu;

	for (cpu = 0; cpu < gtp_nr_cpus(); cpu++)
		sum += (u64)READ_ONCE(v->pcpu[cpu]);
	return (s64)sum;
}

/*
 * @v's value: a reader's (@at_hit false) or a hit's, which differ for a
 * per-CPU variable only (the sum, or this CPU's).
 */
static int tsv_value(const struct gtp_tsv *v, bool at_hit, s64 *val)
{
	if (v->agg)
		*val = gtp_agg_total(v->agg);
	else if (v->pcpu)
		*val = at_hit ? READ_ONCE(v->pcpu[gtp_cpu_id()]) : pcpu_sum(v);
	else if (gtp_tsv_perf_kind(v->builtin) >= 0)
		return perf_value(v->builtin, val);
	else if (v->builtin && v->builtin != GTP_TSV_WATCH_ARM)
		*val = builtin_value(v->builtin);
	else
		*val = READ_ONCE(v->value);
	return 0;
}

/* Current value (probe context safe).  -ENOENT if undefined. */
int gtp_tsv_get(u32 num, s64 *val)
{
	struct gtp_tsv *v = gtp_tsv_find(num);

	if (!v)
		return -ENOENT;
	return tsv_value(v, false, val);
}

/**
 * gtp_tsv_get_cpu() - one CPU's value of a per-CPU variable ("$p_X")
 * @v: the variable (gtp_tsv_find())
 * @cpu: the CPU, below gtp_nr_cpus()
 * @val: its value there
 *
 * Return: 0, or -EINVAL if @v is not per CPU or @cpu is out of range.
 */
int gtp_tsv_get_cpu(const struct gtp_tsv *v, u32 cpu, s64 *val)
{
	if (!v->pcpu || cpu >= gtp_nr_cpus())
		return -EINVAL;
	*val = READ_ONCE(v->pcpu[cpu]);
	return 0;
}

/*
 * getv at a hit: $kret is the return value (rax) at a return probe's hit,
 * 0 anywhere else; $caller is the host's to say (it knows how the hit was
 * carried), 0 without registers, and so is $kret_ns (the host times the
 * call from its entry), and $watch_val and $watch_prev at a watch's hit
 * (the host read the watched bytes); the rest as gtp_tsv_get(), but for a
 * per-CPU variable, whose value at a hit is this CPU's.
 */
int gtp_tsv_get_hit(u32 num, const struct ax_env *env, s64 *val)
{
	struct gtp_tsv *v = gtp_tsv_find(num);
	const struct gtp_tp *tp = env->tp;

	if (!v)
		return -ENOENT;
	if (v->builtin == GTP_TSV_KRET) {
		*val = tp && tp->at_return && env->regs ?
		       (s64)gtp_reg_value(env->regs, 0) : 0;
		return 0;
	}
	if (v->builtin == GTP_TSV_CALLER) {
		*val = tp && env->regs ?
		       (s64)gtp_host->caller(tp, env->regs) : 0;
		return 0;
	}
	if (v->builtin == GTP_TSV_KRET_NS) {
		*val = tp && tp->at_return ? (s64)gtp_host->kret_ns(tp) : 0;
		return 0;
	}
	if (v->builtin >= GTP_TSV_WATCH_VAL &&
	    v->builtin <= GTP_TSV_WATCH_ADDR) {
		*val = tp && tp->watch_len ?
		       (s64)gtp_host->watch(tp, GTP_WATCH_VAL + v->builtin -
						GTP_TSV_WATCH_VAL) : 0;
		return 0;
	}
	return tsv_value(v, true, val);
}

/*
 * The definitions' generation: a program's bound facts (ax.h) hold the one
 * they were bound to.  Every QTDV and QTinit starts a new one, so facts
 * bound before are told apart from fresh ones (gtp_prog_bound()).
 */
static u32 tsv_gen = 1;

u32 gtp_tsv_gen(void)
{
	return tsv_gen;
}

/* 0 is no generation: a program's facts never bound (ax.h). */
static void tsv_gen_next(void)
{
	if (!++tsv_gen)
		tsv_gen = 1;
}

/*
 * @prog's bound facts, which gtp_tps_bind() filled at this QTStart.  Asked
 * of a program not bound to the definitions in force (a new caller
 * outside QTStart, a program made after the binding), they would answer
 * for other variables: say so.
 */
const struct ax_bound *gtp_prog_bound(const struct ax_prog *prog)
{
	WARN_ON_ONCE(prog->bound.gen != tsv_gen);
	return &prog->bound;
}

/* What a setv of variable @num writes: one of the GTP_SETS_* bits. */
u64 gtp_tsv_sets_bit(u32 num)
{
	const struct gtp_tsv *v = gtp_tsv_find(num);

	if (v && v->builtin)
		return GTP_SETS_BIT(v->builtin);
	if (v && v->agg)
		return GTP_SETS_AGG;
	return GTP_SETS_PLAIN;
}

/* What a getv or tracev of variable @num names: a built-in's bit, or 0. */
u64 gtp_tsv_uses_bit(u32 num)
{
	const struct gtp_tsv *v = gtp_tsv_find(num);

	return v && v->builtin ? GTP_SETS_BIT(v->builtin) : 0;
}

/* Does @prog read (getv, tracev) or set the built-in @kind? */
bool gtp_prog_uses_builtin(const struct ax_prog *prog,
			   enum gtp_builtin_tsv kind)
{
	return prog && (gtp_prog_bound(prog)->uses & GTP_SETS_BIT(kind));
}

/* Does @prog setv a variable that is the built-in @kind? */
bool gtp_prog_sets_builtin(const struct ax_prog *prog,
			   enum gtp_builtin_tsv kind)
{
	return gtp_prog_bound(prog)->sets & GTP_SETS_BIT(kind);
}

/*
 * Does @prog setv aggregating variables and no other?  Then what it does
 * at a hit needs no frame (plan.c), if it also records nothing.  The
 * marks ($kret, $watch, $awatch) do not count either way: setting one only
 * marks the location (gtp_tsv_set() does nothing with the value).
 */
bool gtp_prog_feeds_aggs_only(const struct ax_prog *prog)
{
	u64 sets = gtp_prog_bound(prog)->sets & ~GTP_SETS_MARKS;

	return sets == GTP_SETS_AGG;
}

/*
 * Does @prog setv marks only ("teval $kret = 0", "teval $watch = 4")?
 * Then it only marks the location and does nothing at a hit.
 */
bool gtp_prog_marks_only(const struct ax_prog *prog)
{
	u64 sets = gtp_prog_bound(prog)->sets;

	return sets && !(sets & ~GTP_SETS_MARKS);
}

/**
 * gtp_tsv_set() - setv, in probe context
 * @num: the variable
 * @val: its new value
 * @tpnum: the tracepoint whose action sets it
 *
 * $gtp_stop is the flight recorder's trigger: setting it to anything but
 * 0 stops the trace from inside the probe (qTStatus then names @tpnum),
 * so a circular buffer keeps the frames that led up to the event.
 * $gtp_enable and $gtp_disable set to N switch tracepoint N on or off
 * (trigger.c); set to 0, nothing.  An aggregating variable adds @val to
 * this CPU's copy (agg.c); a per-CPU one's value on this CPU is @val.
 *
 * Return: 0, -ENOENT if @num is undefined (or the tracepoint a trigger
 * names), -EPERM for another built-in but $kret.
 */
int gtp_tsv_set(u32 num, s64 val, u32 tpnum)
{
	struct gtp_tsv *v = gtp_tsv_find(num);

	if (!v)
		return -ENOENT;
	if (v->agg) {
		gtp_agg_add(v->agg, gtp_cpu_id(), val);
		return 0;
	}
	if (v->builtin == GTP_TSV_STOP) {
		if (val)
			gtp_run_stop(GTP_STOP_TRIGGER, tpnum);
		return 0;
	}
	if (v->builtin == GTP_TSV_ENABLE || v->builtin == GTP_TSV_DISABLE) {
		/*
		 * 0 names none (gdb numbers from 1): "$gtp_enable = 2 *
		 * (counter1 == 900)" switches only on that call.  No
		 * tracepoint has a number out of range: -ENOENT.
		 */
		if (!val)
			return 0;
		return gtp_trigger_fire(val < 0 || val > GTP_TP_NUM_MAX ?
					GTP_TP_NUM_MAX + 1 : (u32)val,
					v->builtin == GTP_TSV_ENABLE, tpnum);
	}
	if (GTP_SETS_BIT(v->builtin) & GTP_SETS_MARKS)
		return 0;	/* a mark of the location, read at QTStart */
	if (v->builtin == GTP_TSV_WATCH_ARM) {
		int ret = gtp_host->watch_arm(v->arg, (u64)val);

		/* read back, the last address asked: "if ptr == $watch_arm_1" */
		if (!ret)
			WRITE_ONCE(v->value, val);
		return ret;
	}
	if (v->builtin)
		return -EPERM;
	if (v->pcpu) {
		WRITE_ONCE(v->pcpu[gtp_cpu_id()], val);
		return 0;
	}
	WRITE_ONCE(v->value, val);
	return 0;
}

/* QTinit, module exit: nothing is attached, so no probe holds an agg. */
void gtp_tsvs_clear(void)
{
	u32 i;

	for (i = 0; i < ntsv; i++) {
		gtp_agg_free(tsvs[i].agg);
		tsvs[i].agg = NULL;
		gtp_free(tsvs[i].pcpu);
		tsvs[i].pcpu = NULL;
	}
	WRITE_ONCE(ntsv, 0);
	tsv_gen_next();
	gtp_budget_reset();
}

/* Every CPU's value of a per-CPU variable starts at @initial. */
static void pcpu_fill(s64 *pcpu, s64 initial)
{
	u32 cpu;

	for (cpu = 0; cpu < gtp_nr_cpus(); cpu++)
		WRITE_ONCE(pcpu[cpu], initial);
}

/* A run starts from every variable's initial value. */
void gtp_tsvs_reset_values(void)
{
	u32 i;

	for (i = 0; i < ntsv; i++) {
		WRITE_ONCE(tsvs[i].value, tsvs[i].initial);
		if (tsvs[i].agg)
			gtp_agg_reset(tsvs[i].agg);
		if (tsvs[i].pcpu)
			pcpu_fill(tsvs[i].pcpu, tsvs[i].initial);
	}
}

/**
 * gtp_tsv_define() - define or redefine variable @num (QTDV)
 * @num: gdb's number
 * @initial: the value it starts each run with
 * @builtin_flag: gdb's "builtin" field, echoed back by qTfV
 * @name: without '$'; a built-in's name makes it that built-in, an
 *	aggregating one's ("hist_lat") allocates its per-CPU tables, a
 *	per-CPU one's ("p_calls") its values
 *
 * Context: process, while no probe runs (the header).
 * Return: 0, -ENOSPC when GTP_MAX_TSV are defined, -ENOMEM when an
 * aggregating or per-CPU variable's memory cannot be allocated.
 */
int gtp_tsv_define(u32 num, s64 initial, bool builtin_flag, const char *name)
{
	struct gtp_tsv *v = gtp_tsv_find(num);
	enum gtp_agg_kind kind = gtp_agg_kind_of(name);
	struct gtp_agg *agg = NULL;
	s64 *pcpu = NULL;

	if (kind) {
		agg = gtp_agg_alloc(kind, gtp_nr_cpus());
		if (!agg)
			return -ENOMEM;
	} else if (is_pcpu_name(name)) {
		pcpu = gtp_malloc(gtp_nr_cpus() * sizeof(*pcpu));
		if (!pcpu)
			return -ENOMEM;
		pcpu_fill(pcpu, initial);
	}
	if (!v) {
		if (ntsv == GTP_MAX_TSV) {
			gtp_agg_free(agg);
			gtp_free(pcpu);
			return -ENOSPC;
		}
		v = &tsvs[ntsv];
		memset(v, 0, sizeof(*v));
	}
	gtp_agg_free(v->agg);	/* redefined: the new name decides */
	v->agg = agg;
	gtp_free(v->pcpu);
	v->pcpu = pcpu;
	v->num = num;
	v->initial = initial;
	WRITE_ONCE(v->value, initial);
	v->builtin_flag = builtin_flag;
	snprintf(v->name, sizeof(v->name), "%s", name);
	v->builtin = builtin_by_name(v->name);
	v->arg = watch_arm_of(v->name);
	if (v->arg)
		v->builtin = GTP_TSV_WATCH_ARM;
	/*
	 * "tvariable $gtp_cpu_budget = 5": the knob is the initial value;
	 * 0 (or no value) keeps the module parameter's, so that reading it
	 * needs no change; a negative one turns the budget off.
	 */
	if (v->builtin == GTP_TSV_CPU_BUDGET && initial)
		gtp_budget_set(initial < 0 ? 0 : min_t(s64, initial, 100), -1);
	else if (v->builtin == GTP_TSV_BUDGET_STOP && initial)
		gtp_budget_set(-1, initial > 0);
	if (v == &tsvs[ntsv]) {
		smp_wmb();	/* slot contents before the count */
		WRITE_ONCE(ntsv, ntsv + 1);
	}
	tsv_gen_next();
	return 0;
}

/**
 * gtp_tsv_format() - a trace state variable as qTfV/qTsV hand it out
 * @i: which, in definition order
 * @buf: where the text goes, NUL terminated if @size is not 0
 * @size: room at @buf, NUL included
 *
 * <n>:<initial>:<builtin>:<hexname>.  The initial value, as gdbserver
 * uploads it: what was defined, so a session saved after a run (gtp-ctl
 * save-session) starts like the original; qTV reads the value now.  The
 * stream's definitions (stream.c) carry the same text.
 *
 * Return: the text's length as snprintf() counts it (@size or more: cut
 * short); -ENOENT past the last variable.
 */
int gtp_tsv_format(u32 i, char *buf, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	const struct gtp_tsv *v;
	const u8 *c;
	int n;

	if (i >= ntsv)
		return -ENOENT;
	v = &tsvs[i];
	n = snprintf(buf, size, "%x:%llx:%x:", v->num,
		     (unsigned long long)v->initial, v->builtin_flag);
	for (c = (const u8 *)v->name; *c; c++, n += 2) {
		if ((size_t)n + 2 >= size)
			continue;	/* cut short: count on */
		buf[n] = hex[*c >> 4];
		buf[n + 1] = hex[*c & 0xf];
		buf[n + 2] = '\0';
	}
	return n;
}
