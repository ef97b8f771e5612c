/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tsv.h - trace state variables (QTDV, qTV, qTfV/qTsV, getv/setv/tracev):
 * the store (tsv.c) and its packets (tsv_packets.c).
 */
#ifndef GTP_TSV_H
#define GTP_TSV_H

#include "packets.h"
#include "ax.h"
#include "agg.h"
#include "host.h"

/* Variables whose value is read at the hit, not stored ("$cpu_id"). */
enum gtp_builtin_tsv {
	GTP_TSV_USER = 0,	/* not built in: an ordinary variable */
	GTP_TSV_CPU_ID,
	GTP_TSV_CURRENT_TASK,
	GTP_TSV_CURRENT_TASK_PID,
	GTP_TSV_CLOCK,
	GTP_TSV_RDTSC,
	GTP_TSV_HARDIRQ_COUNT,
	GTP_TSV_SOFTIRQ_COUNT,
	GTP_TSV_STOP,		/* setting it non-zero stops the trace */
	GTP_TSV_KRET,		/* set in actions: fire at return; reads rax */
	GTP_TSV_KSTACK,		/* tracev records the kernel call stack */
	GTP_TSV_CPU_BUDGET,	/* defined with a value: this session's budget */
	GTP_TSV_BUDGET_STOP,	/* defined non-zero: a trip stops the trace */
	GTP_TSV_CGROUP_ID,	/* the task's cgroup v2 id */
	GTP_TSV_NS_PID,		/* pid and tgid in the task's pid ns */
	GTP_TSV_NS_TGID,
	GTP_TSV_CALLER,		/* where the function returns to */
	GTP_TSV_KRET_NS,	/* at a return: ns since the call's entry */
	GTP_TSV_ENABLE,		/* set to N: enables tracepoint N (trigger.c) */
	GTP_TSV_DISABLE,	/* set to N: disables it */
	GTP_TSV_PERF_CYCLES,	/* this CPU's counters (host.h gtp_perf_kind, */
	GTP_TSV_PERF_INSTRUCTIONS,	/* in that order) */
	GTP_TSV_PERF_CACHE_MISSES,
	GTP_TSV_PERF_PAGE_FAULTS,
	GTP_TSV_PERF_CPU_CLOCK,
	GTP_TSV_USTACK,		/* tracev records the user call stack */
	GTP_TSV_WATCH,		/* set in actions to 1, 2, 4 or 8: the
				 * location is that many bytes of data,
				 * watched for writes (watch.h) */
	GTP_TSV_AWATCH,		/* the same, for reads and writes */
	GTP_TSV_WATCH_VAL,	/* at a watch hit: the bytes' value now */
	GTP_TSV_WATCH_PREV,	/* ... and at the hit before (or the arm) */
	GTP_TSV_WATCH_ADDR,	/* ... and the address watched */
	GTP_TSV_WATCH_ARM,	/* "$watch_arm_N" set to an address: watch
				 * N watches there from then on (0: none);
				 * read, the last address set */
	GTP_TSV_NR_BUILTIN,
};

/*
 * The counters among built-ins' bits (struct ax_bound's @uses): bit
 * <enum gtp_perf_kind>, the kinds being in the built-ins' order.
 */
static inline u32 gtp_tsv_perf_kinds(u64 uses)
{
	return (uses >> GTP_TSV_PERF_CYCLES) & ((1u << GTP_PERF_NR) - 1);
}

/* A built-in counter's kind, or -1 for another variable. */
static inline int gtp_tsv_perf_kind(enum gtp_builtin_tsv b)
{
	return b >= GTP_TSV_PERF_CYCLES && b <= GTP_TSV_PERF_CPU_CLOCK ?
	       (int)(b - GTP_TSV_PERF_CYCLES) : -1;
}

#define GTP_MAX_TSV	256
#define GTP_TSV_NAME	64

struct gtp_tsv {
	u32 num;
	s64 initial;
	s64 value;		/* READ_ONCE/WRITE_ONCE: probes update it */
	enum gtp_builtin_tsv builtin;
	bool builtin_flag;	/* gdb's "builtin" field, echoed back */
	char name[GTP_TSV_NAME];	/* without '$' */
	struct gtp_agg *agg;	/* "$hist_X", "$count_X": setv adds here */
	s64 *pcpu;		/* "$p_X": one value per CPU (gtp_nr_cpus()),
				 * a hit's getv and setv this CPU's */
	u32 arg;		/* "$watch_arm_N": N, the watch a setv moves */
};

/* "$p_X": a variable of one value per CPU (tsv.c) */
#define GTP_TSV_PCPU_PREFIX	"p_"


/*
 * What a program's setv insns write (struct ax_bound's @sets), one bit
 * each: bit <kind> for a built-in, GTP_SETS_AGG for an aggregating
 * variable, GTP_SETS_PLAIN for an ordinary one (or a number no QTDV
 * defined).  @uses has the built-ins' bits only.
 */
#define GTP_SETS_BIT(n)	(1ull << (n))	/* fewer than 62 built-ins */
#define GTP_SETS_AGG	GTP_SETS_BIT(GTP_TSV_NR_BUILTIN)
#define GTP_SETS_PLAIN	GTP_SETS_BIT(GTP_TSV_NR_BUILTIN + 1)
/*
 * The built-ins a setv only marks the location with, read at QTStart:
 * $kret (a return probe), $watch and $awatch (a watch, watch.h).  At a
 * hit such a setv does nothing.
 */
#define GTP_SETS_MARKS	(GTP_SETS_BIT(GTP_TSV_KRET) | \
			 GTP_SETS_BIT(GTP_TSV_WATCH) | \
			 GTP_SETS_BIT(GTP_TSV_AWATCH))

struct gtp_tsv *gtp_tsv_find(u32 num);
int gtp_tsv_get(u32 num, s64 *val);
int gtp_tsv_get_hit(u32 num, const struct ax_env *env, s64 *val);
int gtp_tsv_get_cpu(const struct gtp_tsv *v, u32 cpu, s64 *val);
/*
 * The definitions' generation, new at each QTDV and QTinit: the one a
 * program's bound facts were filled against (gtp_tps_bind()).
 */
u32 gtp_tsv_gen(void);
u64 gtp_tsv_sets_bit(u32 num);	/* what a setv of @num writes */
u64 gtp_tsv_uses_bit(u32 num);	/* the built-in @num names, or 0 */
/* @prog's bound facts; warns if not bound to the definitions in force */
const struct ax_bound *gtp_prog_bound(const struct ax_prog *prog);
/*
 * The questions below read a program's bound facts, filled at QTStart
 * (ax.h struct ax_bound): ask them at QTStart, after gtp_tps_bind().
 */
bool gtp_prog_sets_builtin(const struct ax_prog *prog,
			   enum gtp_builtin_tsv kind);
bool gtp_prog_uses_builtin(const struct ax_prog *prog,
			   enum gtp_builtin_tsv kind);
bool gtp_prog_feeds_aggs_only(const struct ax_prog *prog);
bool gtp_prog_marks_only(const struct ax_prog *prog);
int gtp_tsv_set(u32 num, s64 val, u32 tpnum);
int gtp_tsv_format(u32 i, char *buf, size_t size);
void gtp_tsvs_clear(void);
void gtp_tsvs_reset_values(void);
int gtp_tsv_define(u32 num, s64 initial, bool builtin_flag, const char *name);
void gtp_tsv_init(void);		/* tsv_packets.c */

#endif /* GTP_TSV_H */
