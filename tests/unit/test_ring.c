// SPDX-License-Identifier: GPL-2.0
/*
 * test_ring.c - deterministic cases of the per-CPU ring buffer
 * (module/core/ring*.c, built unchanged from the module's sources).
 *
 * Nesting is played out by hand here (reserve A, then a whole "interrupt"
 * of reserves and commits, then commit A); test_ring_stress.c does it with
 * real signal handlers and a concurrent reader.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "ring.h"

/* 256-byte sub-buffers, 4 per CPU: small enough to wrap in a few writes */
#define SB_ORDER	8
#define SB_SIZE		(1u << SB_ORDER)
#define NR_ORDER	2
#define NR_SB		(1u << NR_ORDER)

static struct ring *mk(unsigned int cpus, enum ring_mode mode)
{
	struct ring_config cfg = {
		.nr_cpus = cpus, .subbuf_order = SB_ORDER,
		.nr_subbufs_order = NR_ORDER, .mode = mode,
	};
	struct ring *r = ring_create(&cfg);

	assert_non_null(r);
	return r;
}

/* write one record: payload = @len bytes of u32 @seq repeated */
static int put(struct ring *r, unsigned int cpu, u32 seq, u32 len)
{
	struct ring_ctx ctx;
	u32 i;
	int ret;

	ret = ring_reserve(r, &ctx, cpu, len);
	if (ret)
		return ret;
	for (i = 0; i + 4 <= len; i += 4)
		memcpy((char *)ctx.data + i, &seq, 4);
	ring_commit(r, &ctx);
	return 0;
}

static u32 rec_seq(const struct ring_record *rec)
{
	const u32 *p = ring_record_data(rec);
	u32 i;

	for (i = 1; i < rec->len / 4; i++)
		assert_int_equal(p[i], p[0]);	/* not torn */
	return p[0];
}

static void test_config_checked(void **state)
{
	struct ring_config cfg = { 1, SB_ORDER, NR_ORDER, RING_DISCARD };

	cfg.nr_subbufs_order = 0;	/* need two sub-buffers at least */
	assert_null(ring_create(&cfg));
	cfg.nr_subbufs_order = NR_ORDER;
	cfg.subbuf_order = 3;		/* smaller than a header + data */
	assert_null(ring_create(&cfg));
	cfg.subbuf_order = SB_ORDER;
	cfg.nr_cpus = 0;
	assert_null(ring_create(&cfg));
	cfg.nr_cpus = 1;
	cfg.mode = 7;
	assert_null(ring_create(&cfg));
}

static void test_oversize_refused(void **state)
{
	struct ring *r = mk(1, RING_DISCARD);
	struct ring_stats st;
	struct ring_ctx ctx;
	u32 maxlen = SB_SIZE - sizeof(struct ring_record);

	assert_int_equal(ring_reserve(r, &ctx, 0, maxlen + 1), -E2BIG);
	assert_int_equal(ring_reserve(r, &ctx, 0, 100000), -E2BIG);
	assert_int_equal(ring_reserve(r, &ctx, 1, 8), -EINVAL);
	/* exactly one sub-buffer fits */
	assert_int_equal(put(r, 0, 7, maxlen), 0);
	ring_get_stats(r, &st);
	assert_int_equal(st.lost_big, 2);
	assert_int_equal(st.dropped, 2);
	assert_int_equal(st.written, 1);
	assert_int_equal(st.used, SB_SIZE);
	assert_int_equal(st.size, SB_SIZE * NR_SB);
	assert_int_equal(st.free, SB_SIZE * (NR_SB - 1));
	ring_destroy(r);
}

static void test_subbuf_switch(void **state)
{
	struct ring *r = mk(1, RING_DISCARD);
	const struct ring_record *rec;
	struct ring_subbuf sb;
	struct ring_stats st;
	u32 i, n;

	/* 40-byte payload = 56-byte records: 4 per sub-buffer, 32 pad */
	assert_int_equal(ring_record_size(40), 56);
	for (i = 0; i < 5; i++)
		assert_int_equal(put(r, 0, i, 40), 0);
	ring_get_stats(r, &st);
	assert_int_equal(st.used, SB_SIZE + 56);

	assert_int_equal(ring_get_subbuf(r, 0, &sb), 0);
	assert_int_equal(sb.records, 4);
	assert_int_equal(sb.pos, 0);
	for (n = 0, rec = ring_subbuf_next(&sb, NULL); rec;
	     rec = ring_subbuf_next(&sb, rec), n++) {
		assert_int_equal(rec->type, RING_REC_DATA);
		assert_int_equal(rec->len, 40);
		assert_int_equal(rec_seq(rec), n);
	}
	assert_int_equal(n, 4);
	ring_put_subbuf(r, &sb);

	/* the second is partial: not readable until flushed */
	assert_int_equal(ring_get_subbuf(r, 0, &sb), -EAGAIN);
	ring_flush(r, 0);
	ring_flush(r, 0);		/* idempotent at a boundary */
	assert_int_equal(ring_get_subbuf(r, 0, &sb), 0);
	assert_int_equal(sb.records, 1);
	assert_int_equal(sb.pos, SB_SIZE);
	rec = ring_subbuf_next(&sb, NULL);
	assert_non_null(rec);
	assert_int_equal(rec_seq(rec), 4);
	assert_null(ring_subbuf_next(&sb, rec));
	ring_put_subbuf(r, &sb);
	assert_int_equal(ring_get_subbuf(r, 0, &sb), -EAGAIN);

	ring_get_stats(r, &st);
	assert_int_equal(st.written, 5);
	assert_int_equal(st.consumed, 5);
	assert_int_equal(st.used, 0);
	assert_int_equal(ring_count_resident(r), 0);
	ring_destroy(r);
}

static void test_full_discard(void **state)
{
	struct ring *r = mk(1, RING_DISCARD);
	struct ring_subbuf sb;
	struct ring_stats st;
	u32 ok = 0, i;
	int ret;

	/* 4 records per sub-buffer, 4 sub-buffers: the 17th is dropped */
	for (i = 0; i < 40; i++) {
		ret = put(r, 0, i, 40);
		if (!ret)
			ok++;
		else
			assert_int_equal(ret, -ENOBUFS);
	}
	assert_int_equal(ok, 16);
	ring_get_stats(r, &st);
	assert_int_equal(st.written, 16);
	assert_int_equal(st.lost_full, 24);
	assert_int_equal(st.written + st.dropped, 40);
	assert_int_equal(st.overwritten, 0);
	/* used counts positions: the padding of sub-buffers 0-2 too */
	assert_int_equal(st.free, SB_SIZE * NR_SB - (3 * SB_SIZE + 4 * 56));

	/* reading one sub-buffer makes room for 4 more, oldest kept */
	assert_int_equal(ring_get_subbuf(r, 0, &sb), 0);
	assert_int_equal(rec_seq(ring_subbuf_next(&sb, NULL)), 0);
	ring_put_subbuf(r, &sb);
	for (i = 100; i < 110; i++)
		put(r, 0, i, 40);
	ring_get_stats(r, &st);
	assert_int_equal(st.written, 20);
	assert_int_equal(st.lost_full, 30);
	assert_int_equal(ring_count_resident(r), 16);
	assert_int_equal(st.written,
			 st.consumed + st.overwritten + ring_count_resident(r));
	ring_destroy(r);
}

static void test_full_overwrite_keeps_newest(void **state)
{
	struct ring *r = mk(1, RING_OVERWRITE);
	struct ring_iter *it = malloc(ring_iter_size(r));
	const struct ring_record *rec;
	struct ring_stats st;
	u32 i, expect, n = 0;

	for (i = 0; i < 1000; i++)
		assert_int_equal(put(r, 0, i, 40), 0);
	ring_flush(r, 0);
	ring_get_stats(r, &st);
	assert_int_equal(st.written, 1000);
	assert_int_equal(st.dropped, 0);
	/* 4 sub-buffers x 4 records stay, all else counted as overwritten */
	assert_int_equal(ring_count_resident(r), 16);
	assert_int_equal(st.overwritten, 1000 - 16);

	ring_iter_start(r, it);
	expect = 1000 - 16;
	while ((rec = ring_iter_next(it, NULL))) {
		assert_int_equal(rec_seq(rec), expect);
		expect++;
		n++;
	}
	assert_int_equal(n, 16);
	free(it);
	ring_destroy(r);
}

static void test_overwrite_spares_reader(void **state)
{
	struct ring *r = mk(1, RING_OVERWRITE);
	const struct ring_record *rec;
	unsigned char copy[SB_SIZE];
	struct ring_subbuf sb;
	struct ring_stats st;
	u32 i, n = 0;

	for (i = 0; i < 16; i++)
		put(r, 0, i, 40);
	assert_int_equal(ring_get_subbuf(r, 0, &sb), 0);
	memcpy(copy, sb.data, SB_SIZE);
	/* writers lap the reader many times while it holds its page */
	for (i = 16; i < 500; i++)
		assert_int_equal(put(r, 0, i, 40), 0);
	assert_memory_equal(copy, sb.data, SB_SIZE);
	for (rec = ring_subbuf_next(&sb, NULL); rec;
	     rec = ring_subbuf_next(&sb, rec))
		assert_int_equal(rec_seq(rec), n++);
	assert_int_equal(n, 4);
	ring_put_subbuf(r, &sb);	/* consumed was pushed: no effect */

	ring_flush(r, 0);
	ring_get_stats(r, &st);
	assert_int_equal(st.consumed, 4);
	assert_int_equal(st.written, 500);
	/* every record counted once: delivered, overwritten or resident */
	assert_int_equal(st.written,
			 st.consumed + st.overwritten + ring_count_resident(r));
	/* the next read is the oldest surviving sub-buffer */
	assert_int_equal(ring_get_subbuf(r, 0, &sb), 0);
	assert_int_equal(rec_seq(ring_subbuf_next(&sb, NULL)), 500 - 16);
	ring_put_subbuf(r, &sb);
	ring_destroy(r);
}

/* an uncommitted record holds back its sub-buffer, in both modes */
static void nested_holds(enum ring_mode mode)
{
	struct ring *r = mk(1, mode);
	struct ring_ctx outer;
	struct ring_subbuf sb;
	struct ring_stats st;
	u32 i, ok = 0;
	int ret;

	assert_int_equal(put(r, 0, 1, 40), 0);
	assert_int_equal(ring_reserve(r, &outer, 0, 40), 0);	/* A */
	memset(outer.data, 0xab, 40);
	/* the "interrupt": enough writes to wrap the whole buffer */
	for (i = 0; i < 40; i++) {
		ret = put(r, 0, 100 + i, 40);
		if (!ret)
			ok++;
		else
			assert_true(ret == -EAGAIN || ret == -ENOBUFS);
	}
	/* the sub-buffer holding A can be neither read nor reused */
	assert_int_equal(ring_get_subbuf(r, 0, &sb), -EAGAIN);
	ring_get_stats(r, &st);
	assert_int_equal(st.overwritten, 0);
	assert_int_equal(st.written, 1 + ok);
	assert_int_equal(ok, 14);	/* 2 + 3 x 4 fit around A */
	if (mode == RING_OVERWRITE)
		assert_int_equal(st.lost_wrap, 40 - ok);
	else
		assert_int_equal(st.lost_full, 40 - ok);

	ring_commit(r, &outer);					/* F */
	assert_int_equal(ring_get_subbuf(r, 0, &sb), 0);
	assert_int_equal(sb.records, 4);
	{
		const struct ring_record *a, *b;

		a = ring_subbuf_next(&sb, NULL);
		b = ring_subbuf_next(&sb, a);
		assert_int_equal(rec_seq(a), 1);
		assert_int_equal(((u8 *)ring_record_data(b))[39], 0xab);
		assert_true(b->ts > a->ts);
		assert_int_equal(rec_seq(ring_subbuf_next(&sb, b)), 100);
	}
	ring_put_subbuf(r, &sb);
	ring_destroy(r);
}

static void test_nested_holds_discard(void **state)
{
	nested_holds(RING_DISCARD);
}

static void test_nested_holds_overwrite(void **state)
{
	nested_holds(RING_OVERWRITE);
}

static void test_merge_order(void **state)
{
	static const unsigned char who[] = {
		0, 1, 2, 2, 1, 0, 0, 0, 2, 1, 1, 2, 0, 2, 2, 2, 1, 0, 1, 1,
	};
	struct ring *r = mk(3, RING_DISCARD);
	struct ring_iter *it = malloc(ring_iter_size(r));
	const struct ring_record *rec;
	unsigned int cpu;
	u32 i, n = 0;
	u64 last = 0;

	for (i = 0; i < ARRAY_SIZE(who) * 3; i++)
		assert_int_equal(put(r, who[i % ARRAY_SIZE(who)], i,
				     8 + (i % 3) * 8), 0);
	/* partial sub-buffers are walked too; no flush needed */
	ring_iter_start(r, it);
	while ((rec = ring_iter_next(it, &cpu))) {
		assert_int_equal(rec_seq(rec), n);
		assert_int_equal(cpu, who[n % ARRAY_SIZE(who)]);
		assert_true(rec->ts >= last);
		last = rec->ts;
		n++;
	}
	assert_int_equal(n, ARRAY_SIZE(who) * 3);
	/* walking is non-destructive: a second walk sees the same */
	ring_iter_start(r, it);
	for (i = 0; ring_iter_next(it, NULL); i++)
		;
	assert_int_equal(i, n);
	assert_int_equal(ring_count_resident(r), n);

	ring_reset(r);
	ring_iter_start(r, it);
	assert_null(ring_iter_next(it, NULL));
	free(it);
	ring_destroy(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_checked),
		cmocka_unit_test(test_oversize_refused),
		cmocka_unit_test(test_subbuf_switch),
		cmocka_unit_test(test_full_discard),
		cmocka_unit_test(test_full_overwrite_keeps_newest),
		cmocka_unit_test(test_overwrite_spares_reader),
		cmocka_unit_test(test_nested_holds_discard),
		cmocka_unit_test(test_nested_holds_overwrite),
		cmocka_unit_test(test_merge_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
