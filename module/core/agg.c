// SPDX-License-Identifier: GPL-2.0
/*
 * agg.c - aggregating trace state variables: answers without frames.
 *
 * A variable that gdb names "$hist_NAME" or "$count_NAME" (QTDV) is not
 * one value but a table every setv of it adds to ("teval $hist_lat =
 * VALUE", tsv.c): a log2 histogram of the values with their count, sum,
 * min and max, or a count per distinct value (key).  A tracepoint whose
 * actions do nothing else writes no frame at all (plan.c).
 *
 * Each CPU has its own copy, allocated when the variable is defined and
 * freed at QTinit: no lock, no allocation at the hit.  Readers (qGtpAgg)
 * sum the copies while the trace runs; a value read in the middle of an
 * update is off by that one update, which the next read includes.
 *
 * Nesting on one CPU: hits nest (an irq's kprobe or static hit inside an
 * ftrace hit, static hits up to four deep, an NMI's inside any: nest.h),
 * and a nested hit may update the very copy the hit it interrupted is
 * updating; it runs to its end before that one goes on.  So every field
 * is a local_t and changes by one instruction no interrupt splits
 * (local_inc, local_add: an add to memory without a lock prefix on x86),
 * or by a compare-and-swap that starts again when a nested hit got in
 * between (min, max, a new key's slot, the key count): no update is
 * lost, and no lock is taken.
 *
 * A new key claims a free slot with a cmpxchg of its count from 0 to
 * SLOT_BUSY, writes the key, then publishes count 1.  A hit nested in
 * between sees the slot busy and goes on probing: for the same key it
 * claims a second slot, which readers merge as they merge the CPUs'
 * copies (at worst a key takes two of the CPU's GTP_AGG_KEYS).  The
 * interrupted hit finds its slot as it left it, since a nested one never
 * writes a busy slot.  Every index is bounded by the table.
 */
#include "agg.h"

/* Per-CPU copies are cache-line aligned: no two CPUs write one line. */
#define AGG_ALIGN	64

/* min and max start at the far ends, so that the first value is both */
struct agg_hist {
	local_t count;
	local_t sum;		/* wraps, as the asm add does */
	local_t min;
	local_t max;
	local_t buckets[GTP_AGG_NR_BUCKETS];
};

/* A slot of a count table: its key is valid once @count is positive. */
struct agg_slot {
	s64 key;
	local_t count;		/* 0: free; SLOT_BUSY: being claimed */
};

#define SLOT_BUSY	(-1L)

struct agg_table {
	local_t n;		/* values added: getv need not walk the slots */
	local_t overflow;
	local_t nkeys;		/* slots claimed, at most GTP_AGG_KEYS */
	struct agg_slot slots[GTP_AGG_SLOTS];
};

struct gtp_agg {
	enum gtp_agg_kind kind;
	u32 ncpus;
	size_t stride;		/* bytes from one CPU's copy to the next */
	u8 *cpus;		/* ncpus copies */
};

static const char *const agg_prefix[] = {
	[GTP_AGG_HIST]	= "hist_",
	[GTP_AGG_COUNT]	= "count_",
};

/* "hist_lat" is a histogram, "hist_" alone an ordinary variable. */
enum gtp_agg_kind gtp_agg_kind_of(const char *name)
{
	int k;

	for (k = GTP_AGG_HIST; k <= GTP_AGG_COUNT; k++) {
		size_t n = strlen(agg_prefix[k]);

		if (!strncmp(name, agg_prefix[k], n) && name[n])
			return k;
	}
	return GTP_AGG_NONE;
}

static size_t agg_size(enum gtp_agg_kind kind)
{
	size_t n = kind == GTP_AGG_HIST ? sizeof(struct agg_hist) :
					  sizeof(struct agg_table);

	return (n + AGG_ALIGN - 1) & ~(size_t)(AGG_ALIGN - 1);
}

/**
 * gtp_agg_alloc() - a zeroed aggregation with one copy per CPU
 * @kind: GTP_AGG_HIST or GTP_AGG_COUNT
 * @ncpus: CPU numbers gtp_agg_add() will be given are below this
 *
 * Context: process (it allocates); counted in gtp_allocs.
 * Return: the aggregation, NULL when out of memory.
 */
struct gtp_agg *gtp_agg_alloc(enum gtp_agg_kind kind, u32 ncpus)
{
	struct gtp_agg *agg;

	if (kind != GTP_AGG_HIST && kind != GTP_AGG_COUNT)
		return NULL;
	agg = gtp_zalloc(sizeof(*agg));
	if (!agg)
		return NULL;
	agg->kind = kind;
	agg->ncpus = ncpus;
	agg->stride = agg_size(kind);
	agg->cpus = gtp_vzalloc(agg->stride * ncpus);
	if (!agg->cpus) {
		gtp_free(agg);
		return NULL;
	}
	gtp_agg_reset(agg);
	return agg;
}

void gtp_agg_free(struct gtp_agg *agg)
{
	if (!agg)
		return;
	gtp_vfree(agg->cpus);
	gtp_free(agg);
}

enum gtp_agg_kind gtp_agg_kind(const struct gtp_agg *agg)
{
	return agg->kind;
}

static void *agg_cpu(const struct gtp_agg *agg, u32 cpu)
{
	return agg->cpus + agg->stride * cpu;
}

/* A run starts empty.  Context: no probe runs (QTStart). */
void gtp_agg_reset(struct gtp_agg *agg)
{
	u32 cpu;

	memset(agg->cpus, 0, agg->stride * agg->ncpus);
	for (cpu = 0; agg->kind == GTP_AGG_HIST && cpu < agg->ncpus; cpu++) {
		struct agg_hist *h = agg_cpu(agg, cpu);

		local_set(&h->min, LONG_MAX);
		local_set(&h->max, LONG_MIN);
	}
}

/* summary.py's log2_bucket(): -1 negative, 0 zero, else the bit length. */
int gtp_agg_bucket(s64 val)
{
	if (val < 0)
		return -1;
	if (!val)
		return 0;
	return 64 - __builtin_clzll((u64)val);
}

/* *@l = min(*@l, @val) (@less) or max: again if a nested hit moved it */
static void local_extreme(local_t *l, long val, bool less)
{
	long old = local_read(l), seen;

	while (less ? val < old : val > old) {
		seen = local_cmpxchg(l, old, val);
		if (seen == old)
			return;
		old = seen;
	}
}

/* The count last: a reader that sees it sees the rest on this CPU. */
static void hist_add(struct agg_hist *h, s64 val)
{
	local_extreme(&h->min, val, true);
	local_extreme(&h->max, val, false);
	local_add(val, &h->sum);
	local_inc(&h->buckets[gtp_agg_bucket(val) - GTP_AGG_BUCKET_MIN]);
	local_inc(&h->count);
}

static u32 key_slot(s64 key)
{
	/* Fibonacci hashing: the top bits of the product index the slots */
	return (u32)(((u64)key * 0x9e3779b97f4a7c15ULL) >> 53) &
	       (GTP_AGG_SLOTS - 1);
}

/* Take one of the GTP_AGG_KEYS keys a CPU's table may hold. */
static bool table_take_key(struct agg_table *t)
{
	long n = local_read(&t->nkeys), seen;

	while (n < GTP_AGG_KEYS) {
		seen = local_cmpxchg(&t->nkeys, n, n + 1);
		if (seen == n)
			return true;
		n = seen;
	}
	return false;
}

static void table_add(struct agg_table *t, s64 key)
{
	u32 i = key_slot(key), n;

	local_inc(&t->n);
	for (n = 0; n < GTP_AGG_SLOTS; n++, i = (i + 1) & (GTP_AGG_SLOTS - 1)) {
		struct agg_slot *e = &t->slots[i];
		long c = local_read(&e->count);

		if (c == SLOT_BUSY)
			continue;	/* an interrupted hit's new key */
		if (c) {
			if (e->key == key) {
				local_inc(&e->count);
				return;
			}
			continue;
		}
		/* a free slot: the key is not in the table */
		if (local_cmpxchg(&e->count, 0, SLOT_BUSY) != 0) {
			/* a nested hit took it first: look at it again */
			n--;
			i = (i - 1) & (GTP_AGG_SLOTS - 1);
			continue;
		}
		if (!table_take_key(t)) {
			local_set(&e->count, 0);
			break;
		}
		e->key = key;
		smp_wmb();	/* the key before the count that shows it */
		local_set(&e->count, 1);
		return;
	}
	local_inc(&t->overflow);
}

/**
 * gtp_agg_add() - the setv of an aggregating variable
 * @agg: the variable's aggregation
 * @cpu: the CPU the hit runs on (preemption is off in probes)
 * @val: the value: added to the histogram, or the key to count
 *
 * Context: probe context, NMI included: no lock, no allocation.
 */
void gtp_agg_add(struct gtp_agg *agg, u32 cpu, s64 val)
{
	if (unlikely(cpu >= agg->ncpus))
		return;
	if (agg->kind == GTP_AGG_HIST)
		hist_add(agg_cpu(agg, cpu), val);
	else
		table_add(agg_cpu(agg, cpu), val);
}

/*
 * How many values were added, over every CPU: what qTV and getv read of
 * an aggregating variable ("print $hist_lat").  Probe context safe.
 */
u64 gtp_agg_total(const struct gtp_agg *agg)
{
	u64 n = 0;
	u32 cpu;

	for (cpu = 0; cpu < agg->ncpus; cpu++) {
		const struct agg_hist *h = agg_cpu(agg, cpu);
		const struct agg_table *t = agg_cpu(agg, cpu);

		n += agg->kind == GTP_AGG_HIST ? local_read(&h->count) :
						 local_read(&t->n);
	}
	return n;
}

/**
 * gtp_agg_hist() - a histogram merged over the CPUs
 * @agg: a GTP_AGG_HIST aggregation
 * @buckets: filled with the count of bucket b at [b - GTP_AGG_BUCKET_MIN]
 * @sum: filled with count, sum, min and max (min, max 0 when empty)
 */
void gtp_agg_hist(const struct gtp_agg *agg, u64 buckets[GTP_AGG_NR_BUCKETS],
		  struct gtp_agg_sum *sum)
{
	u64 total = 0;
	u32 cpu, b;

	memset(buckets, 0, sizeof(u64) * GTP_AGG_NR_BUCKETS);
	memset(sum, 0, sizeof(*sum));
	for (cpu = 0; cpu < agg->ncpus; cpu++) {
		const struct agg_hist *h = agg_cpu(agg, cpu);
		u64 n = local_read(&h->count);
		s64 lo = local_read(&h->min), hi = local_read(&h->max);

		if (!n)
			continue;
		if (!sum->n || lo < sum->min)
			sum->min = lo;
		if (!sum->n || hi > sum->max)
			sum->max = hi;
		sum->n += n;
		total += local_read(&h->sum);
		for (b = 0; b < GTP_AGG_NR_BUCKETS; b++)
			buckets[b] += local_read(&h->buckets[b]);
	}
	sum->sum = (s64)total;
}

/* In-place heapsort by key: no allocation, no recursion, both builds. */
static void sift_down(struct gtp_agg_entry *e, u32 root, u32 n)
{
	for (;;) {
		u32 child = 2 * root + 1;
		struct gtp_agg_entry t;

		if (child >= n)
			return;
		if (child + 1 < n && e[child + 1].key > e[child].key)
			child++;
		if (e[root].key >= e[child].key)
			return;
		t = e[root];
		e[root] = e[child];
		e[child] = t;
		root = child;
	}
}

static void sort_by_key(struct gtp_agg_entry *e, u32 n)
{
	struct gtp_agg_entry t;
	u32 i;

	for (i = n / 2; i-- > 0;)
		sift_down(e, i, n);
	for (i = n; i-- > 1;) {
		t = e[0];
		e[0] = e[i];
		e[i] = t;
		sift_down(e, 0, i);
	}
}

/**
 * gtp_agg_count_page() - one page of a count table merged over the CPUs
 * @agg: a GTP_AGG_COUNT aggregation
 * @after: page from the key after @cursor (else from the smallest key)
 * @cursor: the last key of the previous page
 * @out: filled with up to @max (key, count), ascending by key
 * @max: room at @out
 * @nout: how many were filled
 * @sum: filled with n, overflow and nkeys (distinct keys, all pages)
 *
 * Pages follow keys, not positions, so a table that gains keys between
 * two pages (the trace runs) never shows a key twice.
 *
 * Context: process (it allocates a merge buffer).
 * Return: 1 when keys follow this page, 0 when it is the last, -ENOMEM.
 */
int gtp_agg_count_page(const struct gtp_agg *agg, bool after, s64 cursor,
		       struct gtp_agg_entry *out, u32 max, u32 *nout,
		       struct gtp_agg_sum *sum)
{
	struct gtp_agg_entry *all;
	u32 cpu, i, n = 0, d = 0;
	int more = 0;

	memset(sum, 0, sizeof(*sum));
	*nout = 0;
	all = gtp_vzalloc(sizeof(*all) * GTP_AGG_KEYS * agg->ncpus);
	if (!all)
		return -ENOMEM;
	for (cpu = 0; cpu < agg->ncpus; cpu++) {
		const struct agg_table *t = agg_cpu(agg, cpu);
		u32 kept = 0;

		sum->n += local_read(&t->n);
		sum->overflow += local_read(&t->overflow);
		for (i = 0; i < GTP_AGG_SLOTS && kept < GTP_AGG_KEYS; i++) {
			long c = local_read(&t->slots[i].count);

			if (c <= 0)
				continue;	/* free, or a key being claimed */
			smp_rmb();	/* pairs with table_add()'s smp_wmb() */
			all[n].key = READ_ONCE(t->slots[i].key);
			all[n++].count = c;
			kept++;
		}
	}
	sort_by_key(all, n);
	/* merge the counts of one key: the CPUs', and a CPU's two slots */
	for (i = 0; i < n; i++) {
		if (d && all[d - 1].key == all[i].key)
			all[d - 1].count += all[i].count;
		else
			all[d++] = all[i];
	}
	sum->nkeys = d;
	for (i = 0; i < d; i++) {
		if (after && all[i].key <= cursor)
			continue;
		if (*nout == max) {
			more = 1;
			continue;
		}
		out[(*nout)++] = all[i];
	}
	gtp_vfree(all);
	return more;
}
