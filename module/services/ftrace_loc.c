// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace_loc.c - which ftrace location an address names.
 *
 * Two users point an ftrace_ops at a function's location: the ftrace
 * backends (probes/ftrace_probe.c) and the entry-value recorder
 * (entry_regs.c).  Both must agree on what "the location of @addr" is,
 * on IBT kernels too, so the rule lives here, below both.
 */
#include <linux/ftrace.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/nops.h>

#include "kcompat.h"
#include "services.h"

/* A call or ftrace's 5-byte NOP at @addr: what ftrace keeps at a location. */
static bool is_location_insn(unsigned long addr)
{
	static const u8 nop5[] = { BYTES_NOP5 };
	u8 insn[5];

	return !copy_from_kernel_nofault(insn, (void *)addr, sizeof(insn)) &&
	       (insn[0] == 0xe8 || !memcmp(insn, nop5, sizeof(nop5)));
}

/*
 * Point @ops's filter at the ftrace location @addr names, and return it
 * (0: none); @reset drops what the filter held before.  That is @addr
 * itself, or (IBT kernels, where gdb's "trace FUNC" gives the function's
 * first byte) the location right after the function's endbr64 (or the
 * NOP a sealed endbr64 became), which a kprobe on @addr moves onto too.
 * Anything else is a kprobe's.  The exported ftrace_set_filter_ip()
 * decides, as it refuses an ip that is no location; it also maps a
 * function's first byte to that function's location wherever it is, so
 * an exact @addr is confirmed by what ftrace keeps at each location: its
 * 5-byte NOP, or a call while traced.  It also takes any ip inside a
 * location's 5 bytes as that location, so the IBT case checks that the
 * endbr64 (or its NOP) is at @addr itself: "trace *(FUNC + 1)" is
 * mid-instruction, a kprobe's to refuse.
 */
unsigned long gtp_ftrace_filter_location(struct ftrace_ops *ops,
					unsigned long addr, int reset)
{
	u32 endbr;

	if (GTP_KERNEL_IBT &&
	    !copy_from_kernel_nofault(&endbr, (void *)addr, sizeof(endbr)) &&
	    (endbr == GTP_ENDBR64 || gtp_endbr_poison(endbr)) &&
	    is_location_insn(addr + GTP_ENDBR64_SIZE) &&
	    !ftrace_set_filter_ip(ops, addr + GTP_ENDBR64_SIZE, 0, reset))
		return addr + GTP_ENDBR64_SIZE;
	if (!is_location_insn(addr) ||
	    ftrace_set_filter_ip(ops, addr, 0, reset))
		return 0;
	return addr;
}
