// SPDX-License-Identifier: GPL-2.0
/*
 * test_static_data.c - $_sdata records (core/static_data.c): collecting a
 * static tracepoint's arguments from the probe's registers and stack, and
 * formatting them as gdb reads them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "static_data.h"
#include "collect.h"
#include "frame.h"
#include "user_env.h"

#define SP	0x10000ULL	/* where the "stack" region starts */

static u64 buf[32];

static struct gtp_static_regs make_regs(u32 nargs)
{
	struct gtp_static_regs sr;

	memset(&sr, 0, sizeof(sr));
	sr.regs.ip = 0xffffffffc0001000ULL;
	sr.regs.di = 0xdada;		/* the probe's data: not an argument */
	sr.regs.si = 0xffffffff00000001ULL;	/* int 1, garbage above */
	sr.regs.dx = 0;
	sr.regs.cx = 3;
	sr.regs.r8 = 4;
	sr.regs.r9 = 5;
	sr.regs.sp = SP;
	sr.nargs = nargs;
	return sr;
}

static void test_collect_registers(void **state)
{
	struct gtp_static_regs sr = make_regs(2);
	struct gtp_sdata_rec *rec = (void *)buf;

	user_env_reset();
	assert_int_equal(gtp_sdata_collect(&sr.regs, buf, sizeof(buf)),
			 gtp_sdata_size(2));
	assert_int_equal(rec->addr, sr.regs.ip);
	assert_int_equal(rec->nwords, 2);
	assert_int_equal(rec->unread, 0);
	assert_int_equal(rec->words[0], sr.regs.si);
	assert_int_equal(rec->words[1], 0);
}

static void test_collect_stack_args(void **state)
{
	/* [sp] = return address, then args 6 and 7; arg 8 is unmapped */
	u64 stack[3] = { 0xdeadbeef, 66, 77 };
	struct gtp_static_regs sr = make_regs(8);
	struct gtp_sdata_rec *rec = (void *)buf;

	user_env_reset();
	assert_int_equal(user_env_add_region(SP, stack, sizeof(stack)), 0);
	assert_int_equal(gtp_sdata_collect(&sr.regs, buf, sizeof(buf)),
			 gtp_sdata_size(8));
	assert_int_equal(rec->words[2], 3);
	assert_int_equal(rec->words[3], 4);
	assert_int_equal(rec->words[4], 5);
	assert_int_equal(rec->words[5], 66);
	assert_int_equal(rec->words[6], 77);
	assert_int_equal(rec->words[7], 0);
	assert_int_equal(rec->unread, 1u << 7);
}

static void test_collect_no_room(void **state)
{
	struct gtp_static_regs sr = make_regs(2);

	user_env_reset();
	assert_int_equal(gtp_sdata_collect(&sr.regs, buf,
					   gtp_sdata_size(2) - 1), 0);
	/* more arguments than we ever record are clamped */
	sr.nargs = 100;
	assert_int_equal(gtp_sdata_collect(&sr.regs, buf, sizeof(buf)),
			 gtp_sdata_size(GTP_SDATA_MAX_ARGS));
}

static const struct gtp_sdata_field test_fields[] = {
	{ "counter1", 4, true },
	{ "counter2", 4, true },
};

static void test_format_named(void **state)
{
	struct gtp_static_regs sr = make_regs(2);
	char text[64];

	user_env_reset();
	sr.regs.si = 0x1234567800000001ULL;	/* an int: upper half junk */
	sr.regs.dx = 0xffffffff;		/* int -1 */
	gtp_sdata_collect(&sr.regs, buf, sizeof(buf));
	assert_int_equal(gtp_sdata_format((void *)buf, gtp_sdata_size(2),
					  test_fields, 2, text, sizeof(text)),
			 strlen("counter1=1 counter2=-1"));
	assert_string_equal(text, "counter1=1 counter2=-1");
}

static void test_format_unnamed(void **state)
{
	const struct gtp_sdata_field one[] = { { "x", 1, false } };
	struct gtp_static_regs sr = make_regs(2);
	char text[64];

	user_env_reset();
	gtp_sdata_collect(&sr.regs, buf, sizeof(buf));
	/* field count differs from the argument count: no names */
	gtp_sdata_format((void *)buf, gtp_sdata_size(2), one, 1, text,
			 sizeof(text));
	assert_string_equal(text, "arg1=0xffffffff00000001 arg2=0x0");
	gtp_sdata_format((void *)buf, gtp_sdata_size(2), NULL, 0, text,
			 sizeof(text));
	assert_string_equal(text, "arg1=0xffffffff00000001 arg2=0x0");
}

static void test_format_sizes_and_unavailable(void **state)
{
	const struct gtp_sdata_field f[] = {
		{ "b", 1, true }, { "w", 2, false }, { "q", 8, true },
		{ "s", 8, false },
	};
	struct gtp_sdata_rec *rec = (void *)buf;
	char text[128];

	rec->addr = 1;
	rec->nwords = 4;
	rec->unread = 1u << 3;
	rec->words[0] = 0x1ff;		/* s8 -1 */
	rec->words[1] = 0x1ffff;	/* u16 65535 */
	rec->words[2] = (u64)-5;
	rec->words[3] = 9;
	gtp_sdata_format(rec, gtp_sdata_size(4), f, 4, text, sizeof(text));
	assert_string_equal(text, "b=-1 w=65535 q=-5 s=<unavailable>");
}

static void test_format_truncation(void **state)
{
	struct gtp_static_regs sr = make_regs(2);
	char text[8];
	int n;

	user_env_reset();
	sr.regs.si = 1;
	gtp_sdata_collect(&sr.regs, buf, sizeof(buf));
	n = gtp_sdata_format((void *)buf, gtp_sdata_size(2), test_fields, 2,
			     text, sizeof(text));
	/* like snprintf: the full length, a NUL-terminated prefix */
	assert_int_equal(n, strlen("counter1=1 counter2=0"));
	assert_string_equal(text, "counter");
	/* a record shorter than it claims is refused */
	assert_int_equal(gtp_sdata_format((void *)buf, gtp_sdata_size(2) - 8,
					  test_fields, 2, text, sizeof(text)),
			 -EINVAL);
	assert_int_equal(gtp_sdata_format((void *)buf, 4, NULL, 0, text,
					  sizeof(text)), -EINVAL);
}

/* The 'L' action's block, found again in the stored frame. */
static void test_frame_block_roundtrip(void **state)
{
	struct gtp_static_regs sr = make_regs(2);
	u8 frame[512];
	struct gtp_fbuild fb = { .buf = frame, .cap = sizeof(frame) };
	u32 off, len, size;
	u64 addr;
	char text[64];
	u64 rec[8];

	user_env_reset();
	assert_int_equal(user_env_add_region(SP, "abcd", 4), 0);
	sr.regs.si = 1;
	/* header, R, M and V blocks before the record */
	fb.len = GTP_FRAME_HDR;
	frame[fb.len] = 'R';
	fb.len += 1 + GTP_G_SIZE;
	assert_int_equal(gtp_fb_trace(&fb, SP, 4, false), 0);
	frame[fb.len] = 'V';
	fb.len += 1 + 4 + 8;
	assert_int_equal(gtp_fb_sdata(&fb, &sr.regs), 0);
	assert_int_equal(fb.len, GTP_FRAME_HDR + 1 + GTP_G_SIZE + 15 + 13 +
				 11 + gtp_sdata_size(2));
	/* the header's size, as the store keeps it (collect.c) */
	size = fb.len - GTP_FRAME_HDR;
	memcpy(frame + 2, &size, 4);
	memcpy(&addr, frame + fb.len - gtp_sdata_size(2) - 10, 8);
	assert_int_equal(addr, GTP_SDATA_ADDR);

	assert_int_equal(gtp_frame_sdata_find(frame, fb.len, &off, &len), 0);
	assert_int_equal(len, gtp_sdata_size(2));
	memcpy(rec, frame + off, len);
	gtp_sdata_format((void *)rec, len, test_fields, 2, text, sizeof(text));
	assert_string_equal(text, "counter1=1 counter2=0");

	/* a frame cut inside the block, or without one, has no record */
	assert_int_equal(gtp_frame_sdata_find(frame, fb.len - 1, &off, &len),
			 -ENOENT);
	assert_int_equal(gtp_frame_sdata_find(frame, GTP_FRAME_HDR + 1 +
					      GTP_G_SIZE, &off, &len), -ENOENT);
}

static void test_frame_block_full(void **state)
{
	struct gtp_static_regs sr = make_regs(2);
	u8 frame[32];
	struct gtp_fbuild fb = { .buf = frame, .cap = sizeof(frame),
				 .len = GTP_FRAME_HDR };

	user_env_reset();
	assert_int_equal(gtp_fb_sdata(&fb, &sr.regs), -ENOSPC);
	assert_true(fb.truncated);
	assert_int_equal(fb.len, GTP_FRAME_HDR);
	assert_int_equal(gtp_fb_sdata(NULL, &sr.regs), -EINVAL);
}

/* qTSTMat reports markers only between QTinit and QTStart. */
static void test_stmat_gate(void **state)
{
	gtp_static_on_stop();
	assert_false(gtp_static_stmat_open());
	gtp_static_on_qtinit();
	assert_true(gtp_static_stmat_open());
	gtp_static_on_start();
	assert_false(gtp_static_stmat_open());
	gtp_static_on_qtinit();
	gtp_static_on_stop();
	assert_false(gtp_static_stmat_open());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_collect_registers),
		cmocka_unit_test(test_collect_stack_args),
		cmocka_unit_test(test_collect_no_room),
		cmocka_unit_test(test_format_named),
		cmocka_unit_test(test_format_unnamed),
		cmocka_unit_test(test_format_sizes_and_unavailable),
		cmocka_unit_test(test_format_truncation),
		cmocka_unit_test(test_frame_block_roundtrip),
		cmocka_unit_test(test_frame_block_full),
		cmocka_unit_test(test_stmat_gate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
