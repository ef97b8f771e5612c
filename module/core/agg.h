/* SPDX-License-Identifier: GPL-2.0 */
/*
 * agg.h - aggregating trace state variables: per-CPU log2 histograms
 * ($hist_NAME) and bounded per-key counts ($count_NAME) that a setv
 * feeds at the hit, read merged over the CPUs while the trace runs
 * (qGtpAgg, tsv_packets.c).  docs/histograms.md, "In-kernel aggregation".
 */
#ifndef GTP_AGG_H
#define GTP_AGG_H

#include "compat.h"

enum gtp_agg_kind {
	GTP_AGG_NONE = 0,	/* an ordinary variable */
	GTP_AGG_HIST,		/* "hist_NAME": log2 histogram of the values */
	GTP_AGG_COUNT,		/* "count_NAME": how often each value came */
};

/*
 * Histogram buckets, as gtp-hist's log2 output (gdb-scripts/gtpctl/
 * summary.py log2_bucket()): bucket -1 holds every negative value, 0 the
 * value 0, k >= 1 the values of bit length k, [2^(k-1), 2^k).  Stored at
 * index bucket + 1.
 */
#define GTP_AGG_BUCKET_MIN	(-1)
#define GTP_AGG_BUCKET_MAX	63
#define GTP_AGG_NR_BUCKETS	(GTP_AGG_BUCKET_MAX - GTP_AGG_BUCKET_MIN + 1)

/*
 * A count table holds at most GTP_AGG_KEYS distinct keys per CPU, in
 * twice as many open-addressed slots so that a probe for a key never
 * walks far; a new key that finds the table full is counted as overflow.
 */
#define GTP_AGG_KEYS		1024
#define GTP_AGG_SLOTS		(2 * GTP_AGG_KEYS)

struct gtp_agg_entry {
	s64 key;
	u64 count;		/* how many values had this key */
};

/* The merged view a reader gets (gtp_agg_summary()). */
struct gtp_agg_sum {
	u64 n;			/* values added, overflowed ones included */
	s64 sum;		/* histogram: their sum (wraps), min, max */
	s64 min;
	s64 max;
	u64 overflow;		/* count table: values whose key found no room */
	u32 nkeys;		/* count table: distinct keys, merged */
};

struct gtp_agg;

enum gtp_agg_kind gtp_agg_kind_of(const char *name);
struct gtp_agg *gtp_agg_alloc(enum gtp_agg_kind kind, u32 ncpus);
void gtp_agg_free(struct gtp_agg *agg);
void gtp_agg_reset(struct gtp_agg *agg);
enum gtp_agg_kind gtp_agg_kind(const struct gtp_agg *agg);
void gtp_agg_add(struct gtp_agg *agg, u32 cpu, s64 val);
u64 gtp_agg_total(const struct gtp_agg *agg);
int gtp_agg_bucket(s64 val);
void gtp_agg_hist(const struct gtp_agg *agg, u64 buckets[GTP_AGG_NR_BUCKETS],
		  struct gtp_agg_sum *sum);
int gtp_agg_count_page(const struct gtp_agg *agg, bool after, s64 cursor,
		       struct gtp_agg_entry *out, u32 max, u32 *nout,
		       struct gtp_agg_sum *sum);

#endif /* GTP_AGG_H */
