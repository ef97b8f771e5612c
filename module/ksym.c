// SPDX-License-Identifier: GPL-2.0
/*
 * ksym.c - gtp_ksym(): the address of a kernel symbol, for the few
 * kernel-internal functions and tables gtp needs that are not exported
 * (module_alloc/execmem, set_memory_*, text_poke_*, __bpf_raw_tp).
 *
 * kallsyms_lookup_name() itself has not been exported since 5.7.  A kprobe
 * on it, registered only to read kp.addr and removed at once, tells where
 * it is.  On an IBT kernel the kprobe layer puts a probe on a function
 * *after* its endbr64 (arch_adjust_kprobe_addr()), so kp.addr is the
 * function + 4: calling that through a pointer would be an indirect branch
 * to a non-ENDBR instruction, which an IBT-enforcing CPU traps (#CP).  We
 * step back over the endbr64 before we ever call it.  (QEMU's TCG does not
 * enforce IBT, so no guest test can catch this: hence the care here.)
 */
#define pr_fmt(fmt) "gtp: " fmt

#include <linux/kprobes.h>
#include <linux/uaccess.h>
#include <linux/capability.h>
#include <linux/user_namespace.h>

#include "kcompat.h"
#include "ksym.h"

static unsigned long (*gtp_kln)(const char *name);

static unsigned long find_kallsyms_lookup_name(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	unsigned long addr;
	u32 insn;
	int ret;

	ret = register_kprobe(&kp);
	if (ret < 0) {
		pr_warn("cannot find kallsyms_lookup_name (error %d)\n", ret);
		return 0;
	}
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	if (GTP_KERNEL_IBT &&
	    !copy_from_kernel_nofault(&insn, (void *)(addr - 4), 4) &&
	    insn == GTP_ENDBR64)
		addr -= 4;
	return addr;
}

/**
 * gtp_ksym - look a kernel symbol up by name
 * @name: as in /proc/kallsyms
 *
 * Process context (the first call registers a kprobe and may sleep).
 *
 * Return: its address, or 0 when it does not exist (or kallsyms cannot be
 * reached).
 */
unsigned long gtp_ksym(const char *name)
{
	unsigned long (*kln)(const char *name) = READ_ONCE(gtp_kln);

	if (!kln) {
		kln = (void *)find_kallsyms_lookup_name();
		if (!kln)
			return 0;
		WRITE_ONCE(gtp_kln, kln);
	}
	return kln(name);
}

/**
 * gtp_kaddr_visible - may the current task see kernel addresses?
 *
 * For what gtp shows outside gdb's protocol (module parameters): the rule
 * /proc/kallsyms applies (kptr_restrict: 2 hides from everyone, below that
 * CAP_SYSLOG sees them).  kptr_restrict is read, not kallsyms_show_value()
 * called: an unexported function may have lost its ENDBR (IBT sealing) and
 * must not be called through a pointer.  Unresolvable means hidden.
 *
 * Context: process context (the reader's credentials).
 * Return: true if the address may be printed.
 */
bool gtp_kaddr_visible(void)
{
	const int *kptr_restrict = (const int *)gtp_ksym("kptr_restrict");

	if (!kptr_restrict || READ_ONCE(*kptr_restrict) >= 2)
		return false;
	return ns_capable_noaudit(&init_user_ns, CAP_SYSLOG);
}
