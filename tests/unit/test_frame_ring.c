// SPDX-License-Identifier: GPL-2.0
/*
 * test_frame_ring.c - the frame store contract (frame.h) as implemented on
 * the per-CPU ring (module/core/frame_ring.c): the same calls collect.c and
 * traceframe.c make, with the figures qTStatus reports checked exactly.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "frame.h"

/* write frame @n: @len bytes, each (n + i) & 0xff; NULL if refused */
static int put(u32 n, u32 len, int *err)
{
	struct gtp_frame_slot slot;
	u8 *p = gtp_frame_reserve(&slot, len);
	u32 i;

	*err = slot.err;
	if (!p)
		return 0;
	for (i = 0; i < len; i++)
		p[i] = (u8)(n + i);
	gtp_frame_commit(&slot);
	return 1;
}

#define LEN_POISON	0xdeadbeefu

/*
 * Frame @idx must be there, @want_len bytes long and intact; returns its
 * number (low byte).  One statement per step on purpose: in
 * "f(gtp_frame_get(i, &len), len)" the compiler may read len before the
 * call sets it (argument order is unspecified; gcc does), and the walk
 * then runs over whatever the stack held.  @len starts poisoned so a get
 * that leaves it unset fails here, whatever the stack layout.
 */
static u32 frame_at(u64 idx, u32 want_len)
{
	u32 i, len = LEN_POISON;
	const u8 *f;

	f = gtp_frame_get(idx, &len);
	assert_non_null(f);
	assert_int_equal(len, want_len);
	for (i = 1; i < len; i++)
		assert_int_equal(f[i], (u8)(f[0] + i));	/* intact */
	return f[0];
}

static int teardown(void **state)
{
	gtp_frames_release();
	return 0;
}

static void test_discard_fills_and_reads_in_order(void **state)
{
	struct gtp_frame_stats st;
	u32 i, ok = 0, len;
	int err;

	assert_int_equal(gtp_frames_setup(8192, false), 0);
	gtp_frames_start();
	/* 8 KiB = 8 x 1 KiB sub-buffers; 100-byte frames, 120 in the ring */
	for (i = 0; i < 200; i++) {
		if (put(i, 100, &err))
			ok++;
		else
			assert_int_equal(err, -ENOSPC);	/* tfull */
	}
	assert_int_equal(ok, 8 * 8);		/* 8 per sub-buffer */
	gtp_frames_stats(&st);
	assert_int_equal(st.size, 8192);
	assert_int_equal(st.created, ok);
	assert_int_equal(st.frames, ok);
	assert_int_equal(st.dropped, 200 - ok);
	assert_false(st.circular);
	assert_int_equal(st.free, 1024 - 8 * 120);

	gtp_frames_stop();
	assert_null(gtp_frame_reserve(&(struct gtp_frame_slot){0}, 8));
	assert_int_equal(gtp_frames_count(), ok);
	for (i = 0; i < ok; i++)
		assert_int_equal(frame_at(i, 100), i);
	assert_null(gtp_frame_get(ok, &len));
	/* random access, backwards too */
	assert_int_equal(frame_at(5, 100), 5);
	assert_int_equal(frame_at(5, 100), 5);
	assert_int_equal(frame_at(60, 100), 60);
	assert_int_equal(frame_at(0, 100), 0);
}

static void test_circular_keeps_newest(void **state)
{
	struct gtp_frame_stats st;
	u32 i, n, len;
	int err;

	assert_int_equal(gtp_frames_setup(8192, true), 0);
	gtp_frames_start();
	for (i = 0; i < 1000; i++)
		assert_int_equal(put(i, 100, &err), 1);
	gtp_frames_stop();
	gtp_frames_stats(&st);
	assert_true(st.circular);
	assert_int_equal(st.created, 1000);
	assert_int_equal(st.dropped, 0);
	n = gtp_frames_count();
	assert_int_equal(st.frames, n);
	/* 8 sub-buffers minus the one being filled, at least */
	assert_true(n >= 7 * 8 && n <= 8 * 8);
	for (i = 0; i < n; i++)
		assert_int_equal(frame_at(i, 100), (u8)(1000 - n + i));
	assert_null(gtp_frame_get(n, &len));
}

/*
 * Frame @n's length in the mixed runs: 1..240 bytes, so sub-buffer tails of
 * 8..216 bytes occur (padding records, and the header-less 8-byte tail).
 */
static u32 mixed_len(u32 n)
{
	return 1 + (n * 37) % 240;
}

/*
 * One run of @total mixed-length frames on a ring that still holds the
 * previous run's bytes (same geometry: gtp_frames_setup() only resets the
 * positions).  The reader must walk exactly this run's records -- headers,
 * padding records and short tails included -- and never a stale header.
 */
static void mixed_run(bool circular, u32 total)
{
	struct gtp_frame_stats st;
	u32 i, n, len;
	int err;

	assert_int_equal(gtp_frames_setup(8192, circular), 0);
	gtp_frames_start();
	for (i = 0; i < total; i++)
		assert_int_equal(put(i, mixed_len(i), &err), 1);
	gtp_frames_stop();
	gtp_frames_stats(&st);
	assert_int_equal(st.created, total);
	assert_int_equal(st.dropped, 0);
	n = gtp_frames_count();
	assert_int_equal(st.frames, n);
	assert_true(n <= total);
	if (!circular || total < 8)
		assert_int_equal(n, total);
	for (i = 0; i < n; i++)
		assert_int_equal(frame_at(i, mixed_len(total - n + i)),
				 (u8)(total - n + i));
	assert_null(gtp_frame_get(n, &len));
}

static void test_circular_reuse_reads_this_run_only(void **state)
{
	u32 i;
	int err;

	/* fill the ring with 100-byte frames: the stale bytes below */
	assert_int_equal(gtp_frames_setup(8192, true), 0);
	gtp_frames_start();
	for (i = 0; i < 1000; i++)
		assert_int_equal(put(i, 100, &err), 1);
	gtp_frames_stop();

	mixed_run(true, 1000);		/* wraps many times */
	mixed_run(true, 20);		/* partial: stale records after it */
	mixed_run(true, 3);
	mixed_run(false, 30);
	mixed_run(true, 0);
}

static void test_too_big_counted_not_full(void **state)
{
	struct gtp_frame_stats st;
	int err;

	assert_int_equal(gtp_frames_setup(8192, false), 0);
	assert_int_equal(gtp_frames_max_len(8192), 1024 - 16);
	assert_int_equal(gtp_frames_max_len(32), 0);
	gtp_frames_start();
	assert_int_equal(put(1, 1024 - 16, &err), 1);
	assert_int_equal(put(2, 1024 - 15, &err), 0);
	assert_int_equal(err, -E2BIG);		/* dropped, trace goes on */
	gtp_frames_stats(&st);
	assert_int_equal(st.dropped, 1);
	assert_int_equal(st.created, 1);
	/* restart: same geometry, emptied */
	gtp_frames_stop();
	assert_int_equal(gtp_frames_setup(8192, false), 0);
	gtp_frames_start();
	gtp_frames_stats(&st);
	assert_int_equal(st.created, 0);
	assert_int_equal(st.free, 8192);
	assert_int_equal(gtp_frames_setup(32, false), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_discard_fills_and_reads_in_order,
					  teardown),
		cmocka_unit_test_teardown(test_circular_keeps_newest, teardown),
		cmocka_unit_test_teardown(test_circular_reuse_reads_this_run_only,
					  teardown),
		cmocka_unit_test_teardown(test_too_big_counted_not_full,
					  teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
