// SPDX-License-Identifier: GPL-2.0
/*
 * exec_mem.c - executable memory for the agent-expression JIT, and the
 * 'jit' module parameter.
 *
 * The kernel's BPF JIT allocates with module_alloc() (within +-2GB of
 * kernel and module text, so JIT code can call our hooks with a rel32
 * call), writes the image while it is still RW+NX, then makes it RO and
 * only then X: never writable and executable at once.  On x86 module_alloc()
 * sets VM_FLUSH_RESET_PERMS, so vfree() restores the permissions and
 * flushes the TLB itself.
 *
 * module_alloc(), set_memory_ro() and set_memory_x() are not exported to
 * modules on 6.1.  gtp_exec_init() resolves them once through
 * kallsyms_lookup_name(), whose own address comes from a kprobe that is
 * registered only to read kp.addr and is unregistered at once.  If that
 * fails the JIT is off and every tracepoint is interpreted.  Resolution
 * happens in gtp_exec_init() (module init) or, if nobody called that, on
 * the first gtp_jit_enabled() (tracepoint creation, process context).
 *
 * Lifetime: an image is freed (ax_jit_free()) only after the probes that
 * run it are unregistered and their handlers have finished.
 */
#define pr_fmt(fmt) "gtp: " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kprobes.h>
#include <linux/vmalloc.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <asm/cpufeature.h>
#include <asm/nospec-branch.h>
#include "jit.h"

static bool jit = true;
module_param(jit, bool, 0644);
MODULE_PARM_DESC(jit, "compile agent expressions to x86-64 (0: always interpret)");

static DEFINE_MUTEX(gtp_exec_lock);
static bool gtp_exec_tried;		/* under gtp_exec_lock */
static void *(*gtp_module_alloc)(unsigned long size);
static int (*gtp_set_memory_ro)(unsigned long addr, int numpages);
static int (*gtp_set_memory_x)(unsigned long addr, int numpages);


static unsigned long lookup_kallsyms_lookup_name(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	unsigned long addr;
	int ret;

	ret = register_kprobe(&kp);
	if (ret < 0) {
		pr_warn("jit: cannot find kallsyms_lookup_name (error %d)\n",
			ret);
		return 0;
	}
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	return addr;
}

static void gtp_exec_resolve(void)
{
	unsigned long (*lookup)(const char *name);
	void *ma, *ro, *x;

	lookup = (void *)lookup_kallsyms_lookup_name();
	if (!lookup)
		goto out_disabled;
	ma = (void *)lookup("module_alloc");
	ro = (void *)lookup("set_memory_ro");
	x = (void *)lookup("set_memory_x");
	if (!ma || !ro || !x) {
		pr_warn("jit: module_alloc/set_memory_ro/set_memory_x not found\n");
		goto out_disabled;
	}
	gtp_set_memory_ro = ro;
	gtp_set_memory_x = x;
	/* published last: gtp_jit_enabled() tests this one */
	smp_store_release(&gtp_module_alloc, ma);
	return;

out_disabled:
	pr_warn("jit: disabled, agent expressions will be interpreted\n");
}

/**
 * gtp_exec_init - resolve the allocator (once); call from module init
 *
 * May sleep.  Always returns 0: without executable memory the JIT is
 * simply disabled (and says so), the module still works.
 */
int gtp_exec_init(void)
{
	mutex_lock(&gtp_exec_lock);
	if (!gtp_exec_tried) {
		gtp_exec_tried = true;
		gtp_exec_resolve();
	}
	mutex_unlock(&gtp_exec_lock);
	return 0;
}

/**
 * gtp_jit_enabled - should a new tracepoint be JIT-compiled?
 *
 * False with jit=0 or when executable memory is unavailable.  Asked by
 * ax_jit_compile() when a tracepoint is created (process context; the
 * first call may resolve the allocator and sleep): changing the parameter
 * affects tracepoints created afterwards.
 */
bool gtp_jit_enabled(void)
{
	if (!READ_ONCE(jit))
		return false;
	if (!smp_load_acquire(&gtp_module_alloc))
		gtp_exec_init();
	return READ_ONCE(gtp_module_alloc) != NULL;
}

/**
 * gtp_exec_return_thunk - what JIT code jumps to instead of 'ret'
 *
 * With X86_FEATURE_RETHUNK every kernel return goes through
 * __x86_return_thunk (retbleed/SRSO mitigations); JIT code must too, or
 * it would be the unmitigated return the mitigation exists to remove.
 */
void *gtp_exec_return_thunk(void)
{
	if (cpu_feature_enabled(X86_FEATURE_RETHUNK))
		return (void *)__x86_return_thunk;
	return NULL;
}

/* Images are freed by their tracepoints before this runs. */
void gtp_exec_exit(void)
{
	WRITE_ONCE(gtp_module_alloc, NULL);
}

/**
 * gtp_exec_alloc - RW, non-executable memory for a JIT image
 * @size: bytes
 *
 * Returns NULL when the JIT is unavailable or memory is short.
 */
void *gtp_exec_alloc(size_t size)
{
	void *(*alloc)(unsigned long size) = READ_ONCE(gtp_module_alloc);

	if (!alloc || !size)
		return NULL;
	return alloc(PAGE_ALIGN(size));
}

/**
 * gtp_exec_seal - make a written image read-only, then executable
 * @image: from gtp_exec_alloc()
 * @size:  the size passed to gtp_exec_alloc()
 *
 * Returns 0 or -errno; on error the image must not be run (free it).
 */
int gtp_exec_seal(void *image, size_t size)
{
	unsigned long addr = (unsigned long)image;
	int pages = PAGE_ALIGN(size) >> PAGE_SHIFT;
	int ret;

	if (!gtp_set_memory_ro || !gtp_set_memory_x)
		return -EOPNOTSUPP;
	ret = gtp_set_memory_ro(addr, pages);
	if (ret) {
		pr_err("jit: set_memory_ro failed (error %d)\n", ret);
		return ret;
	}
	ret = gtp_set_memory_x(addr, pages);
	if (ret)
		pr_err("jit: set_memory_x failed (error %d)\n", ret);
	return ret;
}

/**
 * gtp_exec_free - release an image; nothing may be executing it
 *
 * vfree() resets the permissions (VM_FLUSH_RESET_PERMS) before the pages
 * are reused.
 */
void gtp_exec_free(void *image, size_t size)
{
	vfree(image);
}
