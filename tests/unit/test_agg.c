// SPDX-License-Identifier: GPL-2.0
/*
 * test_agg.c - aggregating trace state variables (core/agg.c): log2
 * bucket math as summary.py's, per-CPU histograms and count tables merged
 * over the CPUs, a full table's overflow, key-cursor paging; then through
 * the packets: QTDV of $hist_X/$count_X, qTV, qGtpAgg and its errors, and
 * tracepoints that only feed them writing no frame (plan.c, collect.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "user_host.h"
#include "packets.h"
#include "trace.h"
#include "tracepoint.h"
#include "tsv.h"
#include "agg.h"
#include "collect.h"
#include "user_env.h"
#include "user_rsp.h"

#define ADDR16		"ffffffffc0000170"
#define ADDR		0xffffffffc0000170ull

static struct gtp_conn *gc;
static char console[4096];
static u8 scratch[GTP_SCRATCH_SIZE];

static const char *ask(const char *data)
{
	const char *reply = user_rsp_ask(gc, data, console, sizeof(console));

	assert_non_null(reply);
	return reply;
}

static int setup(void **state)
{
	gc = user_rsp_session();
	assert_non_null(gc);
	return 0;
}

static int teardown(void **state)
{
	user_rsp_session_end(gc);
	gc = NULL;
	return 0;
}

static u64 bucket_of(const u64 *buckets, int b)
{
	return buckets[b - GTP_AGG_BUCKET_MIN];
}

/* The same buckets as gdb-scripts/gtpctl/summary.py log2_bucket(). */
static void test_bucket_math(void **state)
{
	assert_int_equal(gtp_agg_bucket(INT64_MIN), -1);
	assert_int_equal(gtp_agg_bucket(-1), -1);
	assert_int_equal(gtp_agg_bucket(0), 0);
	assert_int_equal(gtp_agg_bucket(1), 1);
	assert_int_equal(gtp_agg_bucket(2), 2);
	assert_int_equal(gtp_agg_bucket(3), 2);
	assert_int_equal(gtp_agg_bucket(4), 3);
	assert_int_equal(gtp_agg_bucket(1023), 10);
	assert_int_equal(gtp_agg_bucket(1024), 11);
	assert_int_equal(gtp_agg_bucket(INT64_MAX), GTP_AGG_BUCKET_MAX);
}

static void test_kind_by_name(void **state)
{
	assert_int_equal(gtp_agg_kind_of("hist_lat"), GTP_AGG_HIST);
	assert_int_equal(gtp_agg_kind_of("count_who"), GTP_AGG_COUNT);
	assert_int_equal(gtp_agg_kind_of("hist_"), GTP_AGG_NONE);
	assert_int_equal(gtp_agg_kind_of("count"), GTP_AGG_NONE);
	assert_int_equal(gtp_agg_kind_of("lat"), GTP_AGG_NONE);
	assert_int_equal(gtp_agg_kind_of("myhist_x"), GTP_AGG_NONE);
	assert_null(gtp_agg_alloc(GTP_AGG_NONE, 1));
}

static void test_hist_merge(void **state)
{
	struct gtp_agg *agg = gtp_agg_alloc(GTP_AGG_HIST, 3);
	u64 buckets[GTP_AGG_NR_BUCKETS];
	struct gtp_agg_sum sum;

	assert_non_null(agg);
	gtp_agg_hist(agg, buckets, &sum);
	assert_int_equal(sum.n, 0);
	assert_int_equal(sum.min, 0);
	assert_int_equal(sum.max, 0);
	/* CPU 1 is never used: its empty min/max must not count */
	gtp_agg_add(agg, 0, 5);
	gtp_agg_add(agg, 0, 6);
	gtp_agg_add(agg, 2, 1000);
	gtp_agg_add(agg, 2, -7);
	gtp_agg_add(agg, 2, 0);
	gtp_agg_add(agg, 3, 1);		/* no such CPU: ignored */
	gtp_agg_hist(agg, buckets, &sum);
	assert_int_equal(sum.n, 5);
	assert_int_equal(sum.sum, 5 + 6 + 1000 - 7);
	assert_int_equal(sum.min, -7);
	assert_int_equal(sum.max, 1000);
	assert_int_equal(bucket_of(buckets, -1), 1);
	assert_int_equal(bucket_of(buckets, 0), 1);
	assert_int_equal(bucket_of(buckets, 1), 0);
	assert_int_equal(bucket_of(buckets, 3), 2);	/* [4, 8) */
	assert_int_equal(bucket_of(buckets, 10), 1);	/* [512, 1K) */
	assert_int_equal(gtp_agg_total(agg), 5);
	/* all positive on one CPU: min is not the empty CPUs' 0 */
	gtp_agg_reset(agg);
	gtp_agg_add(agg, 1, 40);
	gtp_agg_add(agg, 2, 30);
	gtp_agg_hist(agg, buckets, &sum);
	assert_int_equal(sum.n, 2);
	assert_int_equal(sum.min, 30);
	assert_int_equal(sum.max, 40);
	gtp_agg_free(agg);
}

static void test_table_full_overflow(void **state)
{
	struct gtp_agg *agg = gtp_agg_alloc(GTP_AGG_COUNT, 2);
	struct gtp_agg_entry e[8];
	struct gtp_agg_sum sum;
	u32 n, i;

	assert_non_null(agg);
	for (i = 0; i < GTP_AGG_KEYS; i++)
		gtp_agg_add(agg, 0, (s64)i * 7919);
	/* full: a new key overflows, a known one still counts */
	gtp_agg_add(agg, 0, -1);
	gtp_agg_add(agg, 0, -2);
	gtp_agg_add(agg, 0, 7919);
	/* the other CPU has room for the same new key */
	gtp_agg_add(agg, 1, -1);
	gtp_agg_add(agg, 1, 7919);
	assert_int_equal(gtp_agg_count_page(agg, false, 0, e, 2, &n, &sum), 1);
	assert_int_equal(sum.overflow, 2);
	assert_int_equal(sum.nkeys, GTP_AGG_KEYS + 1);
	assert_int_equal(sum.n, GTP_AGG_KEYS + 5);
	assert_int_equal(gtp_agg_total(agg), GTP_AGG_KEYS + 5);
	assert_int_equal(n, 2);
	assert_int_equal(e[0].key, -1);
	assert_int_equal(e[0].count, 1);
	assert_int_equal(e[1].key, 0);
	assert_int_equal(e[1].count, 1);
	/* 7919 merged over both CPUs: 1 + 1 + 1 */
	assert_int_equal(gtp_agg_count_page(agg, true, 0, e, 1, &n, &sum), 1);
	assert_int_equal(n, 1);
	assert_int_equal(e[0].key, 7919);
	assert_int_equal(e[0].count, 3);
	gtp_agg_free(agg);
}

/* Pages follow keys: each key once, in order, the last page says so. */
static void test_count_paging(void **state)
{
	struct gtp_agg *agg = gtp_agg_alloc(GTP_AGG_COUNT, 2);
	struct gtp_agg_entry e[3];
	struct gtp_agg_sum sum;
	s64 cursor = 0, next = -50;
	bool after = false;
	u32 n, i, seen = 0;
	int more;

	assert_non_null(agg);
	for (i = 0; i < 100; i++)
		gtp_agg_add(agg, i & 1, (s64)i - 50);
	do {
		more = gtp_agg_count_page(agg, after, cursor, e, 3, &n, &sum);
		assert_true(more >= 0);
		assert_int_equal(sum.nkeys, 100);
		for (i = 0; i < n; i++) {
			assert_int_equal(e[i].key, next++);
			assert_int_equal(e[i].count, 1);
		}
		seen += n;
		if (n)
			cursor = e[n - 1].key;
		after = true;
	} while (more);
	assert_int_equal(seen, 100);
	/* after the last key: an empty last page */
	assert_int_equal(gtp_agg_count_page(agg, true, 49, e, 3, &n, &sum), 0);
	assert_int_equal(n, 0);
	gtp_agg_free(agg);
}

/* "teval $<tsv> = $rdi": reg 5, setv <tsv>, pop, end. */
#define SETV_RDI(tsv)	"X8,260005" "2d000" #tsv "2927"

/* hex of "hist_lat", "count_who", "plain", "kret" */
#define HIST_LAT	"686973745f6c6174"
#define COUNT_WHO	"636f756e745f77686f"
#define PLAIN		"706c61696e"
#define KRET		"6b726574"

/* "teval $<tsv> = 0": const8 0, setv <tsv>, pop, end. */
#define SETV_0(tsv)	"X7,22002d000" #tsv "2927"

static u64 hexfield(const char *status, const char *name)
{
	const char *p = strstr(status, name);
	u64 v = 0;

	assert_non_null(p);
	assert_non_null(rsp_parse_hex(p + strlen(name), &v));
	return v;
}

static bool hit(struct gtp_tp *tp, u64 a)
{
	struct pt_regs regs = { .di = a, .ip = tp->addr + 1,
				.sp = 0xffffc90000123450ull };

	return gtp_tp_hit(tp, &regs, scratch, sizeof(scratch));
}

static void test_packets(void **state)
{
	struct gtp_tp *tp1, *tp2;
	const char *r;

	assert_string_equal(ask("QTDV:1:0:0:" HIST_LAT), "OK");
	assert_string_equal(ask("QTDV:2:0:0:" COUNT_WHO), "OK");
	assert_string_equal(ask("QTDV:3:0:0:" PLAIN), "OK");
	assert_string_equal(ask("QTDV:4:0:0:" KRET), "OK");
	/*
	 * 3 is a return probe feeding an aggregate: its $kret mark is no
	 * effect that needs a frame; 4, the mark alone, writes its frames
	 */
	assert_string_equal(ask("QTDP:3:" ADDR16 ":E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-3:" ADDR16 ":" SETV_RDI(1)
				SETV_0(4)), "OK");
	assert_string_equal(ask("QTDP:4:" ADDR16 ":E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-4:" ADDR16 ":" SETV_0(4)), "OK");
	/* 1 feeds aggregates only; 2 also sets an ordinary variable */
	assert_string_equal(ask("QTDP:1:" ADDR16 ":E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-1:" ADDR16 ":" SETV_RDI(1)
				SETV_RDI(2)), "OK");
	assert_string_equal(ask("QTDP:2:" ADDR16 ":E:0:0"), "OK");
	assert_string_equal(ask("QTDP:-2:" ADDR16 ":" SETV_RDI(1)
				SETV_RDI(3)), "OK");
	assert_string_equal(ask("QTStart"), "OK");
	tp1 = gtp_tp_find(1, ADDR);
	tp2 = gtp_tp_find(2, ADDR);
	assert_true(tp1->agg_only);
	assert_false(tp2->agg_only);
	assert_true(gtp_tp_find(3, ADDR)->at_return);
	assert_true(gtp_tp_find(3, ADDR)->agg_only);
	assert_false(gtp_tp_find(4, ADDR)->agg_only);
	assert_false(hit(tp1, 3));
	assert_false(hit(tp1, 4));
	assert_true(hit(tp2, 5));
	r = ask("qTStatus");
	assert_int_equal(hexfield(r, ";tframes:"), 1);
	/* two hits, no frame bytes (no errors, no time measured here) */
	assert_string_equal(ask("qTP:1:" ADDR16), "V2:0:0:0:0");

	/* the unit tests' setv hook records; feed the tables directly */
	assert_int_equal(gtp_tsv_set(1, 3, 1), 0);
	assert_int_equal(gtp_tsv_set(1, 4, 1), 0);
	assert_int_equal(gtp_tsv_set(1, -2, 1), 0);
	assert_int_equal(gtp_tsv_set(1, 1024, 1), 0);
	assert_int_equal(gtp_tsv_set(2, 7, 1), 0);
	assert_int_equal(gtp_tsv_set(2, 7, 1), 0);
	assert_int_equal(gtp_tsv_set(2, -1, 1), 0);
	assert_string_equal(ask("qTV:1"), "V4");
	assert_string_equal(ask("qTV:2"), "V3");
	assert_string_equal(ask("qGtpAgg:1"),
			    "h;n:4;sum:405;min:-2;max:400;-1=1;2=1;3=1;b=1;l");
	assert_string_equal(ask("qGtpAgg:2"),
			    "c;n:3;over:0;keys:2;-1=1;7=2;l");
	assert_string_equal(ask("qGtpAgg:2:-1"), "c;n:3;over:0;keys:2;7=2;l");
	assert_string_equal(ask("qGtpAgg:2:7"), "c;n:3;over:0;keys:2;l");
	/* errors: malformed, no such variable, not an aggregating one */
	assert_string_equal(ask("qGtpAgg:"), "E01");
	assert_string_equal(ask("qGtpAgg:2:"), "E01");
	assert_string_equal(ask("qGtpAgg:2x"), "E01");
	assert_string_equal(ask("qGtpAgg:9"), "E02");
	assert_non_null(strstr(console, "no trace state variable 9"));
	assert_string_equal(ask("qGtpAgg:3"), "E03");
	assert_non_null(strstr(console, "$plain does not aggregate"));
	/* readable after the stop; the next run starts empty */
	assert_string_equal(ask("QTStop"), "OK");
	assert_string_equal(ask("qGtpAgg:2"), "c;n:3;over:0;keys:2;-1=1;7=2;l");
	assert_string_equal(ask("QTStart"), "OK");
	assert_string_equal(ask("qGtpAgg:1"),
			    "h;n:0;sum:0;min:0;max:0;l");
	assert_string_equal(ask("qTV:2"), "V0");
	/* QTinit forgets them */
	assert_string_equal(ask("QTinit"), "OK");
	assert_string_equal(ask("qGtpAgg:1"), "E02");
}

/* More keys than a table holds, paged over several replies. */
static void test_packet_pages(void **state)
{
	char pkt[64];
	u64 last = 0;
	u32 keys = 0;
	bool first = true;
	int i;

	assert_string_equal(ask("QTDV:2:0:0:" COUNT_WHO), "OK");
	for (i = 0; i < GTP_AGG_KEYS + 10; i++)
		assert_int_equal(gtp_tsv_set(2, i, 1), 0);
	for (;;) {
		const char *r, *p;

		if (first)
			snprintf(pkt, sizeof(pkt), "qGtpAgg:2");
		else
			snprintf(pkt, sizeof(pkt), "qGtpAgg:2:%llx",
				 (unsigned long long)last);
		r = ask(pkt);
		assert_int_equal(r[0], 'c');
		assert_int_equal(hexfield(r, ";over:"), 10);
		assert_int_equal(hexfield(r, ";keys:"), GTP_AGG_KEYS);
		assert_true(strlen(r) < RSP_PKT_MAX);
		for (p = strchr(r, '='); p; p = strchr(p + 1, '=')) {
			const char *k = p;
			u64 key;

			while (k[-1] != ';')
				k--;
			assert_non_null(rsp_parse_hex(k, &key));
			assert_true(first ? key == 0 : key == last + 1);
			last = key;
			first = false;
			keys++;
		}
		if (!strcmp(r + strlen(r) - 2, ";l"))
			break;
		assert_string_equal(r + strlen(r) - 2, ";m");
	}
	assert_int_equal(keys, GTP_AGG_KEYS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bucket_math),
		cmocka_unit_test(test_kind_by_name),
		cmocka_unit_test(test_hist_merge),
		cmocka_unit_test(test_table_full_overflow),
		cmocka_unit_test(test_count_paging),
		cmocka_unit_test_setup_teardown(test_packets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_packet_pages, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
