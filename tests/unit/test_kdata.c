// SPDX-License-Identifier: GPL-2.0
/*
 * test_kdata.c - core/kdata.c against a real kernel's section symbols.
 *
 * The symbols come from a kallsyms-format file ("ADDR TYPE NAME"):
 * $GTP_KALLSYMS when set (tests/e2e/test_jit_direct.py runs this binary
 * in the guest on /proc/kallsyms), else tests/unit/kdata-6.1.syms, those
 * lines of a 6.1 guest's /proc/kallsyms.  Direct loads must stay inside
 * rodata, data and bss and out of what the kernel frees after boot: the
 * unused part of .bss..decrypted (inside .bss) and the init sections.
 * And every data symbol module/services/ksym.c's gtp_ksym_data() is asked
 * for must lie there (helper_syms[]): tests/unit/kdata-images runs this
 * binary on the kallsyms of every installed matrix kernel's image.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kdata.h"

#define MAX_SYMS 64

static struct {
	char name[64];
	u64 addr;
} syms[MAX_SYMS];
static int nsyms;

/*
 * Every data symbol module/services/ksym.c's gtp_ksym_data() is asked
 * for, with the size its caller passes (sizeof the object on the matrix's
 * x86-64 configs, none with lock debugging): mod_pin.c, static_tp.c,
 * exec_mem.c, ksym.c.  A new caller adds its name here.
 */
static const struct {
	const char *name;
	u32 size;
} helper_syms[] = {
	{ "modules", 16 },		/* struct list_head */
	{ "kptr_restrict", 4 },		/* int */
	{ "x86_return_thunk", 8 },	/* a pointer, __ro_after_init */
	{ "ftrace_events", 16 },	/* struct list_head */
	{ "event_mutex", 32 },		/* struct mutex, rt_mutex's too */
};

/* static_tp.c reads the table between these (gtp_kdata_kept()) */
#define RAW_TP_START	"__start__bpf_raw_tp"
#define RAW_TP_STOP	"__stop__bpf_raw_tp"

static const char *const wanted[] = {
	"__start_rodata", "__end_rodata", "_sdata", "_edata",
	"__bss_start", "__bss_stop", "__init_begin", "__init_end",
	"__start_bss_decrypted", "__start_bss_decrypted_unused",
	"__end_bss_decrypted",
	RAW_TP_START, RAW_TP_STOP,
};

static u64 sym(const char *name)
{
	int i;

	for (i = 0; i < nsyms; i++)
		if (!strcmp(syms[i].name, name))
			return syms[i].addr;
	return 0;
}

static int load(void **state)
{
	const char *path = getenv("GTP_KALLSYMS");
	char line[256], name[128], type;
	unsigned long long addr;
	unsigned int i;
	FILE *f;

	if (!path)
		path = "tests/unit/kdata-6.1.syms";
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		return -1;
	}
	while (fgets(line, sizeof(line), f) && nsyms < MAX_SYMS) {
		if (sscanf(line, "%llx %c %127s", &addr, &type, name) != 3 ||
		    strchr(name, '\t') || sym(name))
			continue;
		for (i = 0; i < ARRAY_SIZE(wanted); i++)
			if (!strcmp(name, wanted[i]))
				break;
		if (i == ARRAY_SIZE(wanted)) {
			for (i = 0; i < ARRAY_SIZE(helper_syms); i++)
				if (!strcmp(name, helper_syms[i].name))
					break;
			if (i == ARRAY_SIZE(helper_syms))
				continue;
		}
		if (!addr)
			continue;
		snprintf(syms[nsyms].name, sizeof(syms[nsyms].name), "%s", name);
		syms[nsyms++].addr = addr;
	}
	fclose(f);
	return 0;
}

static bool ok(u64 addr, u32 size)
{
	return gtp_kdata_direct_ok(addr, size, sym);
}

static void test_sections_present(void **state)
{
	unsigned int i;

	/* every matrix kernel has AMD_MEM_ENCRYPT: all of them exist */
	for (i = 0; i < ARRAY_SIZE(wanted); i++) {
		if (!sym(wanted[i]))
			fail_msg("%s missing", wanted[i]);
	}
}

static void test_kept_data(void **state)
{
	assert_true(ok(sym("__start_rodata"), 8));
	assert_true(ok(sym("__end_rodata") - 8, 8));
	assert_false(ok(sym("__end_rodata") - 4, 8));
	assert_true(ok(sym("_sdata"), 8));
	assert_true(ok(sym("_edata") - 1, 1));
	assert_false(ok(sym("_edata"), 1));
	assert_true(ok(sym("__bss_start"), 4));
	assert_false(ok(sym("__bss_stop"), 1));
}

/* The used part of .bss..decrypted stays (the kvm clock pages live there). */
static void test_decrypted_used_part_kept(void **state)
{
	u64 lo = sym("__start_bss_decrypted");
	u64 unused = sym("__start_bss_decrypted_unused");

	if (lo == unused)
		skip();
	assert_true(ok(lo, 8));
	assert_true(ok(unused - 8, 8));
}

/* Freed by mem_encrypt_free_decrypted_mem(): inside .bss, but not ours. */
static void test_decrypted_unused_excluded(void **state)
{
	u64 lo = sym("__start_bss_decrypted_unused");
	u64 hi = sym("__end_bss_decrypted");

	/* empty without AMD_MEM_ENCRYPT (the debug kernel's defconfig) */
	if (lo == hi)
		skip();
	assert_true(lo < hi);
	/* the premise: it lies inside .bss, which is otherwise kept */
	assert_true(lo >= sym("__bss_start") && hi <= sym("__bss_stop"));
	assert_false(ok(lo, 1));
	assert_false(ok(lo + (hi - lo) / 2, 8));
	assert_false(ok(hi - 1, 1));
	assert_false(ok(lo - 4, 8));	/* straddles the start */
	assert_true(ok(hi, 8) == (hi + 8 <= sym("__bss_stop")));
}

static void test_init_excluded(void **state)
{
	u64 lo = sym("__init_begin"), hi = sym("__init_end");

	assert_true(lo < hi);
	assert_false(ok(lo, 8));
	assert_false(ok(hi - 8, 8));
}

/*
 * What gtp_ksym_data() resolves lies in kept data with the size its
 * caller touches, and so does the whole __bpf_raw_tp table: else gtp
 * would go without it on that kernel (or, before the check, have read
 * memory it does not know).
 */
static void test_helper_symbols_kept(void **state)
{
	u64 lo = sym(RAW_TP_START), hi = sym(RAW_TP_STOP);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(helper_syms); i++) {
		u64 a = sym(helper_syms[i].name);

		if (!a)
			fail_msg("%s missing", helper_syms[i].name);
		if (!ok(a, helper_syms[i].size))
			fail_msg("%s at 0x%llx, %u bytes: not in kept data",
				 helper_syms[i].name, (unsigned long long)a,
				 helper_syms[i].size);
	}
	if (!lo || !hi)
		fail_msg("no " RAW_TP_START "/" RAW_TP_STOP);
	assert_true(lo < hi);
	assert_true(ok(lo, hi - lo));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sections_present),
		cmocka_unit_test(test_kept_data),
		cmocka_unit_test(test_decrypted_used_part_kept),
		cmocka_unit_test(test_decrypted_unused_excluded),
		cmocka_unit_test(test_init_excluded),
		cmocka_unit_test(test_helper_symbols_kept),
	};

	return cmocka_run_group_tests(tests, load, NULL);
}
