/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcompat.h - every kernel API difference gtptrace.ko meets, in one place.
 *
 * gtp builds against Debian's 6.1, 6.1-rt, 6.12, 6.12-rt and the newest
 * trixie-backports kernel (7.x).  Anything that differs between those is
 * decided here, by version or by what the headers provide, so that no .c
 * file carries a version #if.  The kernel table in docs/kernels.md says
 * the same in prose.
 *
 *  what                         6.1 .. 6.9               6.10 ..                7.x
 *  lseek on /proc/gtp           no_llseek                stream_open() only (no_llseek gone in 6.12)
 *  JIT memory                   module_alloc() RW        execmem_alloc(BPF) RW   ROX cache: execmem +
 *                               + set_memory_ro/x        + set_memory_ro/x       text_poke_copy/set
 *  hex2bin()                    <linux/kernel.h>         <linux/kernel.h>       <linux/hex.h>
 *  IBT (CONFIG_X86_KERNEL_IBT)  not in Debian's config   on: endbr64 at every indirect-call target
 *  call-depth counter           none                     pcpu_hot.call_depth    __x86_call_depth
 *  syscall tracepoints          probes run preempt-off   probes run preempt-off  faultable: probes run
 *                                                        (6.10 .. 6.12)          preemptible (the probe
 *                                                                                disables preemption)
 *  a module's data areas        core_layout (< 6.4)      mod->mem[MOD_DATA...]   mod->mem[]
 *  struct ftrace_regs           ->regs (a pt_regs)       opaque since 6.13 and in Debian's 6.12:
 *                                                        arch_ftrace_regs()->regs
 *  ftrace direct calls          register_ftrace_direct_  register_ftrace_direct(ops, addr) since 6.6;
 *  on an ftrace_ops             multi(ops, addr); the    unregister frees the filter
 *                               caller frees the filter  (free_filters)
 *  an error from a per-CPU      IS_ERR() (no such        IS_ERR_PCPU() since 6.12; in 7.x __percpu
 *  pointer (breakpoints)        helper)                  is an address space IS_ERR() refuses
 *
 * Kernel-internal functions that are not exported are resolved at run
 * time through kallsyms (gtp_ksym(), module/ksym.c), never linked to.
 */
#ifndef GTP_KCOMPAT_H
#define GTP_KCOMPAT_H

#include <linux/version.h>
#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/preempt.h>
#include <linux/err.h>
#include <linux/tracepoint-defs.h>

#if __has_include(<linux/hex.h>)
#include <linux/hex.h>			/* hex2bin() left kernel.h in 7.x */
#endif

/*
 * /proc/gtp is a stream.  stream_open() (every version) makes lseek fail
 * with -ESPIPE; before 6.12 proc_ops also named no_llseek, which 6.12
 * removed.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 12, 0)
#define GTP_PROC_NO_LSEEK	no_llseek
#else
#define GTP_PROC_NO_LSEEK	NULL
#endif

/*
 * Executable memory for the JIT (module/exec_mem.c).  module_alloc() went
 * away in 6.10 for execmem_alloc(type, size); 6.13 added execmem_is_rox()
 * and the x86 ROX cache of huge pages for module text, written only
 * through text_poke_copy()/text_poke_set().
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#include <linux/execmem.h>
#define GTP_EXECMEM_TEXT	EXECMEM_MODULE_TEXT
#define GTP_EXECMEM_BPF		EXECMEM_BPF
#else
/* unused: execmem_alloc() does not resolve on these kernels */
#define GTP_EXECMEM_TEXT	0
#define GTP_EXECMEM_BPF		0
#endif

/*
 * Indirect Branch Tracking: with CONFIG_X86_KERNEL_IBT every target of an
 * indirect call (a JIT image, the static tracepoint probe) starts with
 * endbr64, and a kprobe on a function is placed after the function's
 * endbr64 (so kp.addr of "foo" is foo + 4).
 */
#define GTP_KERNEL_IBT		IS_ENABLED(CONFIG_X86_KERNEL_IBT)
#define GTP_ENDBR64		0xfa1e0ff3U	/* f3 0f 1e fa, little-endian */
#define GTP_ENDBR64_SIZE	4

/*
 * What the kernel writes at boot over the endbr64 of a function it never
 * calls through a pointer (apply_seal_endbr(), on every CPU): "osp nopl
 * (%rax)" (66 0f 1f 00) up to 6.14 and in Debian's 6.12, "nopl -42(%rax)"
 * (0f 1f 40 d6) since.  Both are told apart from code by kprobes.
 */
static inline bool gtp_endbr_poison(u32 insn)
{
	return insn == 0x001f0f66U || insn == 0xd6401f0fU;
}

/*
 * Call-depth tracking (retbleed=stuff, CALL_THUNKS from 6.2): every call
 * shifts a per-CPU depth counter, every return goes through
 * call_depth_return_thunk.  The counter was pcpu_hot.call_depth (6.2 ..
 * 6.14, the config option CALL_DEPTH_TRACKING until 6.9), then the per-CPU
 * variable __x86_call_depth; both are exported.  gtp_call_depth_var() is
 * its %gs-relative address, as "sarq $5, %gs:var" needs it.
 */
#if defined(CONFIG_MITIGATION_CALL_DEPTH_TRACKING) || \
	defined(CONFIG_CALL_DEPTH_TRACKING)
#include <asm/cpufeature.h>
#define gtp_call_depth_on()	cpu_feature_enabled(X86_FEATURE_CALL_DEPTH)
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 15, 0)
#include <asm/nospec-branch.h>
#define gtp_call_depth_var()	((long)&__x86_call_depth)
#else
#include <asm/current.h>
#define gtp_call_depth_var()	((long)&pcpu_hot.call_depth)
#endif
#else
#define gtp_call_depth_on()	false
#define gtp_call_depth_var()	0L
#endif

/*
 * ftrace_ops.ops_func (ftrace asks a direct ops whether an IPMODIFY ops
 * may share its function) is (ops, cmd) on 6.1 and 6.12 and (ops, ip, cmd)
 * on 7.3, where one direct ops may cover many functions.  The test puts
 * the change at 6.19, with ftrace's rework of direct ops; no matrix kernel
 * lies between 6.12 and 7.3 to pin it down.  GTP_OPS_FUNC_ARGS declares
 * either.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 19, 0)
#define GTP_OPS_FUNC_ARGS(ops, cmd) \
	struct ftrace_ops *ops, unsigned long ip, enum ftrace_ops_cmd cmd
#else
#define GTP_OPS_FUNC_ARGS(ops, cmd) \
	struct ftrace_ops *ops, enum ftrace_ops_cmd cmd
#endif

/*
 * Tracepoint probes: since 6.13 faultable tracepoints (the syscall ones)
 * call their probes with preemption enabled (they may fault user memory).
 * The static probe turns preemption off itself, whatever the tracepoint
 * did (static_probe.c), so no version test is needed.
 */

/*
 * Kernel lockdown: gtp reads kernel memory (as /proc/kcore does) and
 * places kprobes, so it obeys the same confidentiality reasons the kernel
 * checks for those (the same names from 6.1 to 7.x).  security_locked_down()
 * logs the refusal itself.
 */
#include <linux/security.h>

static inline int gtp_locked_down(void)
{
	int ret = security_locked_down(LOCKDOWN_KCORE);

	return ret ? ret : security_locked_down(LOCKDOWN_KPROBES);
}

/*
 * A module's data, which stays mapped from load until its memory is freed
 * (the JIT loads from it directly while it holds a reference, jit_direct.c):
 * .rodata, .data..ro_after_init, .data and .bss.  6.4 split the module's
 * "core layout" (one mapping: text | rodata | ro_after_init | data+bss)
 * into one mod->mem[] area per kind.
 */
#include <linux/module.h>

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
static inline bool gtp_module_data_has(const struct module *mod, u64 addr,
				       u32 size)
{
	static const enum mod_mem_type kinds[] = {
		MOD_RODATA, MOD_RO_AFTER_INIT, MOD_DATA,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		u64 base = (unsigned long)mod->mem[kinds[i]].base;
		u64 len = mod->mem[kinds[i]].size;

		if (base && addr >= base && addr - base < len &&
		    size <= len - (addr - base))
			return true;
	}
	return false;
}
#else
static inline bool gtp_module_data_has(const struct module *mod, u64 addr,
				       u32 size)
{
	u64 base = (unsigned long)mod->core_layout.base +
		   mod->core_layout.text_size;
	u64 len = mod->core_layout.size - mod->core_layout.text_size;

	return mod->core_layout.base && addr >= base && addr - base < len &&
	       size <= len - (addr - base);
}
#endif

/*
 * Entry tracepoints through ftrace (module/ftrace_probe.c).  On x86 the
 * ftrace_regs a callback gets is a struct pt_regs underneath on every
 * version: complete with FTRACE_OPS_FL_SAVE_REGS, else (with
 * DYNAMIC_FTRACE_WITH_ARGS, every matrix kernel) only ax, cx, dx, si, di,
 * r8, r9, bp, sp and ip are filled ("lite").  6.13 made struct
 * ftrace_regs opaque (<linux/ftrace_regs.h>; Debian's 6.12 has it
 * backported, so it is detected by that header, not by version): the
 * pt_regs is then reached through arch_ftrace_regs().
 */
#include <linux/ftrace.h>

#define GTP_FTRACE_LITE		IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_ARGS)

#if __has_include(<linux/ftrace_regs.h>)
static __always_inline struct pt_regs *
gtp_fregs_pt_regs(struct ftrace_regs *fregs)
{
	return &arch_ftrace_regs(fregs)->regs;
}
#else
static __always_inline struct pt_regs *
gtp_fregs_pt_regs(struct ftrace_regs *fregs)
{
	return &fregs->regs;
}
#endif

/*
 * A trampoline of our own called straight from a function's __fentry__
 * site (module/ftrace_direct.c): the ops form of ftrace's direct calls,
 * its filter set beforehand with ftrace_set_filter_ip().  6.6 renamed
 * the *_multi functions (the ip forms went) and gave unregister a
 * free_filters flag; before, the caller frees the filter.  Without
 * DYNAMIC_FTRACE_WITH_DIRECT_CALLS the header's stubs return -ENODEV.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
static inline int gtp_register_ftrace_direct(struct ftrace_ops *ops,
					     unsigned long addr)
{
	return register_ftrace_direct(ops, addr);
}

static inline int gtp_unregister_ftrace_direct(struct ftrace_ops *ops,
					       unsigned long addr)
{
	return unregister_ftrace_direct(ops, addr, true);
}
#else
static inline int gtp_register_ftrace_direct(struct ftrace_ops *ops,
					     unsigned long addr)
{
	return register_ftrace_direct_multi(ops, addr);
}

static inline int gtp_unregister_ftrace_direct(struct ftrace_ops *ops,
					       unsigned long addr)
{
	int ret = unregister_ftrace_direct_multi(ops, addr);

	if (!ret)
		ftrace_free_filter(ops);
	return ret;
}
#endif

/* register_wide_hw_breakpoint()'s per-CPU result may be an error */
#ifndef IS_ERR_PCPU
#define IS_ERR_PCPU(ptr)	IS_ERR((const void *)(__force const unsigned long)(ptr))
#define PTR_ERR_PCPU(ptr)	PTR_ERR((const void *)(__force const unsigned long)(ptr))
#endif

#endif /* GTP_KCOMPAT_H */
