// SPDX-License-Identifier: GPL-2.0
/*
 * kdata.c - which vmlinux data stays mapped, and keeps its meaning, for as
 * long as the kernel runs: where a JIT image may load directly.
 *
 * vmlinux .rodata, .data and .bss, between the linker's section symbols
 * (__start_rodata..__end_rodata, _sdata.._edata, __bss_start..__bss_stop).
 * Never the gaps around them: x86 frees and unmaps the padding after
 * __end_rodata and between text and rodata.  And not what the kernel
 * frees after boot although it lies inside them or may on some layout:
 *  - __start_bss_decrypted_unused..__end_bss_decrypted, the unused tail
 *    of .bss..decrypted inside .bss, handed to the page allocator by
 *    mem_encrypt_free_decrypted_mem() (CONFIG_AMD_MEM_ENCRYPT, set on
 *    every Debian kernel): another owner's memory after boot;
 *  - __init_begin..__init_end (init text and data, the per-CPU load
 *    image, freed by free_initmem()), which x86 places between .data and
 *    .bss: excluded in case a layout ever overlaps it.
 * A symbol the kernel does not have (no AMD_MEM_ENCRYPT) excludes
 * nothing.  Reads there keep the nofault hook, as for any other address.
 *
 * Portable: the kernel asks through kallsyms, the unit tests through a
 * kallsyms file of a matrix kernel (tests/unit/test_kdata.c).
 */
#include "kdata.h"

struct kdata_range {
	const char *start, *end;	/* [start, end) */
};

static const struct kdata_range kept[] = {
	{ "__start_rodata", "__end_rodata" },
	{ "_sdata", "_edata" },
	{ "__bss_start", "__bss_stop" },
};

static const struct kdata_range freed[] = {
	{ "__start_bss_decrypted_unused", "__end_bss_decrypted" },
	{ "__init_begin", "__init_end" },
};

/* [addr, addr + size) inside r; false if r's symbols are not there */
static bool inside(const struct kdata_range *r, u64 addr, u32 size,
		   gtp_kdata_sym_t sym)
{
	u64 lo = sym(r->start), hi = sym(r->end);

	return lo && lo < hi && addr >= lo && addr - lo < hi - lo &&
	       size <= hi - addr;
}

/* [addr, addr + size) meets r at all */
static bool overlaps(const struct kdata_range *r, u64 addr, u32 size,
		     gtp_kdata_sym_t sym)
{
	u64 lo = sym(r->start), hi = sym(r->end);

	return lo && lo < hi && addr < hi && addr + size > lo;
}

/**
 * gtp_kdata_direct_ok() - may JIT code load [@addr, @addr + @size) directly?
 * @addr: a constant address in the bytecode
 * @size: bytes read, at least 1, @addr + @size not wrapping
 * @sym: resolves the section symbols
 *
 * Return: true when the range lies wholly inside vmlinux's kept data.
 */
bool gtp_kdata_direct_ok(u64 addr, u32 size, gtp_kdata_sym_t sym)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(freed); i++)
		if (overlaps(&freed[i], addr, size, sym))
			return false;
	for (i = 0; i < ARRAY_SIZE(kept); i++)
		if (inside(&kept[i], addr, size, sym))
			return true;
	return false;
}
