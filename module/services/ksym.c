// SPDX-License-Identifier: GPL-2.0
/*
 * ksym.c - addresses of the few kernel symbols gtp needs that are not
 * exported: data it reads (gtp_ksym_data(), in kept data only; gtp_ksym())
 * and functions it calls (gtp_ksym_func(), bound to a static call by
 * gtp_kfunc_bind()).
 *
 * No kernel function is called to find them.  kallsyms_lookup_name() is
 * not exported, and on a kernel built with IBT (CONFIG_X86_KERNEL_IBT) a
 * function the kernel itself never calls through a pointer has its
 * endbr64 overwritten with a NOP at boot (apply_seal_endbr(), on every
 * CPU): where the CPU enforces IBT an indirect call to it is a
 * control-protection fault (#CP), an oops at best.  kallsyms_lookup_name
 * is such a function on 6.12.  So the exported register_kprobe() resolves
 * the name (it looks it up itself) for a disabled kprobe that is never
 * armed; kp.addr is the address.  For a data symbol the registration fails
 * (not text), after kp.addr is set.  On IBT kernels the kprobe layer moves
 * a probe on a function past its endbr64 (or past the NOP a sealed endbr64
 * became), so kp.addr is then the function + 4: the symbol's start is
 * found again with sprint_symbol().
 *
 * The functions gtp calls are sealed on every IBT kernel it runs on
 * (execmem_alloc, set_memory_ro, text_poke_copy, ...), so gtp never calls
 * them through a pointer: gtp_kfunc_bind() retargets one of the module's
 * own static calls, a direct call the kernel patches into the module's
 * text (static_call_update()), which IBT does not check.
 * tests/ibt/check.py verifies every name bound so against each installed
 * kernel image.
 */
#define pr_fmt(fmt) "gtp: " fmt

#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/kallsyms.h>
#include <linux/uaccess.h>
#include <linux/capability.h>
#include <linux/user_namespace.h>

#include "kcompat.h"
#include "ksym.h"
#include "kdata.h"

static bool starts_symbol(unsigned long addr)
{
	char buf[KSYM_SYMBOL_LEN];
	char *plus;

	sprint_symbol(buf, addr);
	plus = strchr(buf, '+');
	return plus && !strncmp(plus, "+0x0/", 5);
}

/* Where kallsyms says @name is, or 0 (see the top of the file). */
static unsigned long resolve(const char *name, bool *text)
{
	struct kprobe kp = {
		.symbol_name = name,
		.flags = KPROBE_FLAG_DISABLED,	/* never armed */
	};
	unsigned long addr;
	u32 insn;
	int ret;

	ret = register_kprobe(&kp);
	*text = !ret;
	if (!ret)
		unregister_kprobe(&kp);
	addr = (unsigned long)kp.addr;
	if (!addr)
		return 0;
	/* a function start the kprobe layer stepped over (IBT kernels) */
	if (GTP_KERNEL_IBT &&
	    !copy_from_kernel_nofault(&insn, (void *)(addr - 4), 4) &&
	    (insn == GTP_ENDBR64 || gtp_endbr_poison(insn)) &&
	    starts_symbol(addr - 4))
		return addr - 4;
	return addr;
}

/**
 * gtp_ksym - the address of a kernel data symbol
 * @name: as in /proc/kallsyms
 *
 * For data gtp reads, never for a function it calls: a name a kprobe could
 * be placed on (kernel text) is refused: a function is bound with
 * gtp_kfunc_bind().
 *
 * Context: process context (registers a kprobe; may sleep).
 * Return: its address, or 0 when it does not exist or is text.
 */
unsigned long gtp_ksym(const char *name)
{
	bool text;
	unsigned long addr = resolve(name, &text);

	return text ? 0 : addr;
}

/*
 * core/kdata.c's resolver.  Its ten section symbols never move, and each
 * lookup registers a kprobe, which searches kallsyms: resolved once each,
 * not ten times a check (mod_pin.c checks "modules" at every module
 * lookup, jit_direct.c every constant a JIT image would load).  @name is
 * one of kdata.c's static strings, so the slot can keep the pointer.
 */
static struct {
	const char *name;
	unsigned long addr;
} section_syms[16];
static DEFINE_MUTEX(section_syms_lock);

static u64 section_sym(const char *name)
{
	unsigned long addr;
	unsigned int i;

	mutex_lock(&section_syms_lock);
	for (i = 0; i < ARRAY_SIZE(section_syms) && section_syms[i].name; i++)
		if (!strcmp(section_syms[i].name, name))
			break;
	if (i < ARRAY_SIZE(section_syms) && section_syms[i].name) {
		addr = section_syms[i].addr;
	} else {
		addr = gtp_ksym(name);
		if (i < ARRAY_SIZE(section_syms)) {
			section_syms[i].name = name;
			section_syms[i].addr = addr;
		}
	}
	mutex_unlock(&section_syms_lock);
	return addr;
}

/**
 * gtp_kdata_kept - does [@addr, @addr + @size) lie in vmlinux's kept data?
 * @addr: start
 * @size: bytes, at least 1
 *
 * Kept data: .rodata, .data and .bss but what the kernel frees after boot
 * (core/kdata.c), mapped and meaning the same for as long as the kernel
 * runs.  For a range found otherwise than by gtp_ksym_data(): a table
 * between two linker symbols, a constant a JIT image would load.
 *
 * Context: process context (resolves the section symbols; may sleep).
 * Return: true when the whole range lies in it.
 */
bool gtp_kdata_kept(unsigned long addr, size_t size)
{
	if (!size || addr + (size - 1) < addr || size > U32_MAX)
		return false;
	return gtp_kdata_direct_ok(addr, size, section_sym);
}

/*
 * gtp_ksym_data() (ksym.h): gtp_ksym(), and then only if the object lies
 * wholly in vmlinux's kept data (gtp_kdata_kept()): a name that resolved
 * to something else (text, init memory freed after boot, a layout gtp
 * does not know) is never dereferenced.  That checks where the object
 * is, not what it is: a caller that can check its type as well still
 * does (mod_pin.c's "modules").
 */
unsigned long gtp_ksym_data(const char *name, size_t size)
{
	unsigned long addr = gtp_ksym(name);

	return addr && gtp_kdata_kept(addr, size) ? addr : 0;
}

/**
 * gtp_ksym_code - the address of kernel code, to compare with
 * @name: as in /proc/kallsyms
 *
 * For code gtp recognizes (a return address that is a trampoline), never
 * calls: nothing about IBT is checked, and code off limits to kprobes
 * (the trampolines are) is found all the same.
 *
 * Context: process context (registers a kprobe; may sleep).
 * Return: its address, or 0 when it does not exist.
 */
unsigned long gtp_ksym_code(const char *name)
{
	bool text;

	return resolve(name, &text);
}

/**
 * gtp_ksym_func - the start of a non-exported kernel function
 * @name: as in /proc/kallsyms
 *
 * For a function gtp calls, through gtp_kfunc_bind() only: a direct call,
 * so whether its endbr64 was sealed does not matter.
 *
 * Context: process context (registers a kprobe; may sleep).
 * Return: its address, or 0 when there is no function of that name.
 */
unsigned long gtp_ksym_func(const char *name)
{
	bool text;
	unsigned long addr = resolve(name, &text);

	if (!addr || !starts_symbol(addr))
		return 0;
	return addr;
}

/**
 * gtp_kaddr_visible - may the current task see kernel addresses?
 *
 * For what gtp shows outside gdb's protocol (module parameters): the rule
 * /proc/kallsyms applies (kptr_restrict: 2 hides from everyone, below that
 * CAP_SYSLOG sees them).  kptr_restrict is read, not kallsyms_show_value()
 * called (not exported; see the top of the file).  Unresolvable means
 * hidden.
 *
 * Context: process context (the reader's credentials).
 * Return: true if the address may be printed.
 */
bool gtp_kaddr_visible(void)
{
	static const int *kptr_restrict;
	const int *kr = READ_ONCE(kptr_restrict);

	if (!kr) {
		kr = (const int *)gtp_ksym_data("kptr_restrict",
						 sizeof(*kr));
		WRITE_ONCE(kptr_restrict, kr);
	}
	if (!kr || READ_ONCE(*kr) >= 2)
		return false;
	return ns_capable_noaudit(&init_user_ns, CAP_SYSLOG);
}

/**
 * gtp_ksym_func_start - the start of the function containing @addr
 * @addr: a kernel or module text address
 *
 * Return: the address of the symbol kallsyms puts @addr in, or 0.
 */
unsigned long gtp_ksym_func_start(unsigned long addr)
{
	char buf[KSYM_SYMBOL_LEN];
	unsigned long off;
	char *plus;

	sprint_symbol(buf, addr);
	plus = strchr(buf, '+');
	if (!plus || sscanf(plus, "+%lx/", &off) != 1 || off > addr)
		return 0;
	return addr - off;
}
