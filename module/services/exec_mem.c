// SPDX-License-Identifier: GPL-2.0
/*
 * exec_mem.c - executable memory for the agent-expression JIT, and the
 * 'jit' module parameters.
 *
 * JIT code must live within +-2GB of kernel and module text (it calls our
 * hooks with rel32 calls), so it comes from the allocator the kernel uses
 * for module text and BPF programs.  That allocator changed twice; the
 * best one the running kernel has is chosen once, at module init:
 *
 *   module_alloc      (up to 6.9)  RW+NX pages; we write the image, then
 *                                  set_memory_ro() and only then
 *                                  set_memory_x(), as the BPF JIT did.
 *   execmem           (6.10 on)    execmem_alloc(EXECMEM_BPF): the same RW
 *                                  pages under a new name, sealed the same.
 *   execmem-rox       (6.13 on, when the kernel keeps a ROX cache for
 *                                  module text) pages that are read-only +
 *                                  executable from the start; the image is
 *                                  written through text_poke_copy() and
 *                                  text_poke_set(), like bpf_prog_pack.
 *
 * Never writable and executable at once, in every mode.  The tail of the
 * allocation after the code is filled with int3, so a stray jump into it
 * traps.  None of these functions is exported to modules, and on kernels
 * built with IBT every one of them is sealed (its endbr64 overwritten at
 * boot: nothing in the kernel calls it through a pointer), so a call
 * through a pointer would fault on a CPU that enforces IBT.  gtp calls
 * them through its own static calls instead, retargeted to each function
 * once (gtp_kfunc_bind(), ksym.h): direct calls, which IBT does not
 * check, in every mode and on every kernel.  Without a usable set, the
 * JIT is off, the module still works (interpreting), jit_mem says why and
 * so does gdb's console at tstart (trace.c).
 *
 * The read-only parameters jit_mem (the mode, or why there is none),
 * jit_images (live images) and jit_last_image let a test or an operator
 * see what happens.
 *
 * Lifetime: an image is freed (ax_jit_free()) only after the probes that
 * run it are unregistered and their handlers have finished.
 */
#define pr_fmt(fmt) "gtp: " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/vmalloc.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/atomic.h>
#include <asm/cpufeature.h>
#include <asm/nospec-branch.h>
#include <linux/uaccess.h>
#include <linux/static_call.h>

#include "kcompat.h"
#include "ksym.h"
#include "services.h"

static bool jit = true;
module_param(jit, bool, 0644);
MODULE_PARM_DESC(jit, "compile agent expressions to x86-64 (0: always interpret)");

static char *jit_mem = "unresolved";
static char jit_off_why[160] = "this kernel offers no executable memory to gtp";
module_param(jit_mem, charp, 0444);
MODULE_PARM_DESC(jit_mem, "executable memory the JIT uses: module_alloc, execmem, execmem-rox, or none (why)");

static atomic_t gtp_jit_images = ATOMIC_INIT(0);

static int jit_images_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&gtp_jit_images));
}

static const struct kernel_param_ops jit_images_ops = {
	.get = jit_images_get,
};
module_param_cb(jit_images, &jit_images_ops, NULL, 0444);
MODULE_PARM_DESC(jit_images, "JIT images alive now");

/*
 * The newest installed image, so that a test can read its page attributes
 * (tests/e2e/test_jit.py walks the kernel's page tables through
 * /proc/kcore).  An address only for a reader /proc/kallsyms shows them.
 */
static struct {
	void *image;
	size_t size;
} last;

static int jit_last_image_get(char *buf, const struct kernel_param *kp)
{
	void *image = READ_ONCE(last.image);

	if (!image || !gtp_kaddr_visible())
		return sysfs_emit(buf, "0x0 0\n");
	return sysfs_emit(buf, "0x%lx %zu\n", (unsigned long)image,
			  READ_ONCE(last.size));
}

static const struct kernel_param_ops jit_last_image_ops = {
	.get = jit_last_image_get,
};
module_param_cb(jit_last_image, &jit_last_image_ops, NULL, 0400);
MODULE_PARM_DESC(jit_last_image, "address and size of the newest JIT image (0x0 0: none, or hidden by kptr_restrict)");

enum gtp_exec_mode { EXEC_NONE, EXEC_MODULE_ALLOC, EXEC_EXECMEM, EXEC_ROX };

static DEFINE_MUTEX(gtp_exec_lock);
static bool gtp_exec_tried;		/* under gtp_exec_lock */
static enum gtp_exec_mode gtp_exec_mode;	/* published by release */

/*
 * The kernel functions each mode calls, as static calls bound once
 * (resolve()); a NULL static call is never called: choose() picks only a
 * mode whose functions are all bound.  The types are the kernel's.
 */
typedef void *gtp_module_alloc_t(unsigned long size);
typedef void *gtp_execmem_alloc_t(int type, size_t size);
typedef void gtp_execmem_free_t(void *ptr);
typedef bool gtp_execmem_is_rox_t(int type);
typedef void *gtp_text_poke_copy_t(void *addr, const void *src, size_t len);
typedef void *gtp_text_poke_set_t(void *addr, int c, size_t len);
typedef int gtp_set_memory_t(unsigned long addr, int numpages);

DEFINE_STATIC_CALL_NULL(gtp_module_alloc, gtp_module_alloc_t);
DEFINE_STATIC_CALL_NULL(gtp_execmem_alloc, gtp_execmem_alloc_t);
DEFINE_STATIC_CALL_NULL(gtp_execmem_free, gtp_execmem_free_t);
DEFINE_STATIC_CALL_NULL(gtp_execmem_is_rox, gtp_execmem_is_rox_t);
DEFINE_STATIC_CALL_NULL(gtp_text_poke_copy, gtp_text_poke_copy_t);
DEFINE_STATIC_CALL_NULL(gtp_text_poke_set, gtp_text_poke_set_t);
DEFINE_STATIC_CALL_NULL(gtp_set_memory_ro, gtp_set_memory_t);
DEFINE_STATIC_CALL_NULL(gtp_set_memory_x, gtp_set_memory_t);

/* Which static calls resolve() bound. */
static struct {
	bool module_alloc, execmem_alloc, execmem_free, execmem_is_rox;
	bool text_poke_copy, text_poke_set, set_memory_ro, set_memory_x;
} have;

static void resolve(void)
{
	have.module_alloc = gtp_kfunc_bind(gtp_module_alloc, "module_alloc");
	have.execmem_alloc = gtp_kfunc_bind(gtp_execmem_alloc, "execmem_alloc");
	have.execmem_free = gtp_kfunc_bind(gtp_execmem_free, "execmem_free");
	have.execmem_is_rox = gtp_kfunc_bind(gtp_execmem_is_rox,
					     "execmem_is_rox");
	have.text_poke_copy = gtp_kfunc_bind(gtp_text_poke_copy,
					     "text_poke_copy");
	have.text_poke_set = gtp_kfunc_bind(gtp_text_poke_set, "text_poke_set");
	have.set_memory_ro = gtp_kfunc_bind(gtp_set_memory_ro, "set_memory_ro");
	have.set_memory_x = gtp_kfunc_bind(gtp_set_memory_x, "set_memory_x");
}

static bool is_rox(int type)
{
	return have.execmem_is_rox && static_call(gtp_execmem_is_rox)(type);
}

static enum gtp_exec_mode choose(void)
{
	bool sealable = have.set_memory_ro && have.set_memory_x;

	if (have.execmem_alloc && have.execmem_free) {
		if (have.text_poke_copy && have.text_poke_set &&
		    is_rox(GTP_EXECMEM_TEXT))
			return EXEC_ROX;
		/* EXECMEM_BPF is RW wherever there is no ROX cache for it */
		if (sealable && !is_rox(GTP_EXECMEM_BPF))
			return EXEC_EXECMEM;
		jit_mem = "none (execmem without a usable RW or ROX mode)";
		return EXEC_NONE;
	}
	if (have.module_alloc && sealable)
		return EXEC_MODULE_ALLOC;
	jit_mem = "none (no module_alloc, execmem_alloc or set_memory_ro/x)";
	return EXEC_NONE;
}

/*
 * How JIT code returns and calls, as the kernel's BPF JIT does it
 * (emit_return(), emit_rsb_call()): through the return thunk the kernel
 * selected at boot (x86_return_thunk: SRSO, call-depth stuffing or ITS
 * may have replaced the default __x86_return_thunk; module text is
 * re-pointed at load through .return_sites, JIT code is not), and with
 * call-depth accounting before each call when the kernel stuffs the RSB
 * by call depth.  x86_return_thunk is not exported: read once, it is
 * __ro_after_init.
 */
static void *ret_thunk;
static bool call_depth;
static s32 call_depth_var;

static bool returns_init(void)
{
	void **sel;

	if (cpu_feature_enabled(X86_FEATURE_RETHUNK)) {
		sel = (void **)gtp_ksym_data("x86_return_thunk",
					     sizeof(*sel));
		if (!sel || copy_from_kernel_nofault(&ret_thunk, sel,
						     sizeof(ret_thunk)) ||
		    !ret_thunk) {
			jit_mem = "none (cannot read x86_return_thunk, the kernel's return thunk)";
			return false;
		}
	}
	call_depth = gtp_call_depth_on();
	if (call_depth) {
		long var = gtp_call_depth_var();

		if (var != (s32)var) {
			jit_mem = "none (the call-depth counter is out of disp32 reach)";
			return false;
		}
		call_depth_var = var;
	}
	return true;
}

/**
 * gtp_exec_init - choose the executable memory (once); call from module init
 *
 * Context: may sleep.
 *
 * Return: 0 always: without executable memory the JIT is simply disabled
 * (and says so), the module still works.
 */
int gtp_exec_init(void)
{
	static const char * const names[] = {
		[EXEC_MODULE_ALLOC] = "module_alloc",
		[EXEC_EXECMEM] = "execmem",
		[EXEC_ROX] = "execmem-rox",
	};
	enum gtp_exec_mode mode;

	mutex_lock(&gtp_exec_lock);
	if (!gtp_exec_tried) {
		gtp_exec_tried = true;
		resolve();
		mode = choose();
		if (mode != EXEC_NONE && !returns_init())
			mode = EXEC_NONE;
		if (mode != EXEC_NONE)
			jit_mem = (char *)names[mode];
		else {
			scnprintf(jit_off_why, sizeof(jit_off_why),
				  "no executable memory for the JIT: %s", jit_mem);
			pr_warn("jit: %s: agent expressions will be interpreted\n",
				jit_mem);
		}
		smp_store_release(&gtp_exec_mode, mode);
	}
	mutex_unlock(&gtp_exec_lock);
	return 0;
}

/**
 * gtp_jit_enabled - should a new tracepoint be JIT-compiled?
 *
 * Asked by ax_jit_compile() when a tracepoint is created (process context;
 * the first call may resolve the allocator and sleep): changing the
 * parameter affects tracepoints created afterwards.
 *
 * Return: false with jit=0 or when there is no executable memory.
 */
bool gtp_jit_enabled(void)
{
	if (!READ_ONCE(jit))
		return false;
	if (!READ_ONCE(gtp_exec_tried))
		gtp_exec_init();
	return smp_load_acquire(&gtp_exec_mode) != EXEC_NONE;
}

/**
 * gtp_jit_off_reason - why gtp_jit_enabled() is false
 *
 * Return: one line for gdb's console.
 */
const char *gtp_jit_off_reason(void)
{
	if (!READ_ONCE(jit))
		return "the module parameter jit is 0";
	if (smp_load_acquire(&gtp_exec_mode) == EXEC_NONE)
		return jit_off_why;
	return "the JIT is on";
}

/**
 * gtp_exec_want_endbr - does JIT code start with endbr64?
 *
 * Return: true on kernels built with IBT: probes call images through a
 * function pointer, and an enforcing CPU traps an indirect call that
 * lands anywhere but on endbr64.
 */
bool gtp_exec_want_endbr(void)
{
	return GTP_KERNEL_IBT;
}

/**
 * gtp_exec_return_thunk - what JIT code jumps to instead of 'ret'
 *
 * Return: the thunk the kernel selected (returns_init()), or NULL for a
 * plain 'ret' (no X86_FEATURE_RETHUNK).
 */
void *gtp_exec_return_thunk(void)
{
	return ret_thunk;
}

/**
 * gtp_exec_call_depth - call-depth accounting before JIT calls?
 * @var: set to the per-CPU counter's %gs-relative displacement
 *
 * Return: true when the kernel tracks call depth (X86_FEATURE_CALL_DEPTH).
 */
bool gtp_exec_call_depth(s32 *var)
{
	*var = call_depth_var;
	return call_depth;
}

/* Images are freed by their tracepoints before this runs. */
void gtp_exec_exit(void)
{
	WARN_ON(atomic_read(&gtp_jit_images));
}

/**
 * gtp_exec_alloc - room for a JIT image, near kernel text
 * @size: bytes
 *
 * Return: the image's address (not necessarily writable: write it with
 * gtp_exec_install()), or NULL when the JIT is unavailable or memory is
 * short.
 */
void *gtp_exec_alloc(size_t size)
{
	void *p = NULL;

	if (!size)
		return NULL;
	size = PAGE_ALIGN(size);
	switch (smp_load_acquire(&gtp_exec_mode)) {
	case EXEC_MODULE_ALLOC:
		p = static_call(gtp_module_alloc)(size);
		break;
	case EXEC_EXECMEM:
		p = static_call(gtp_execmem_alloc)(GTP_EXECMEM_BPF, size);
		break;
	case EXEC_ROX:
		p = static_call(gtp_execmem_alloc)(GTP_EXECMEM_TEXT, size);
		break;
	case EXEC_NONE:
		break;
	}
	if (p)
		atomic_inc(&gtp_jit_images);
	return p;
}

static int seal(void *image, size_t size)
{
	unsigned long addr = (unsigned long)image;
	int pages = size >> PAGE_SHIFT;
	int ret;

	ret = static_call(gtp_set_memory_ro)(addr, pages);
	if (!ret)
		ret = static_call(gtp_set_memory_x)(addr, pages);
	if (ret)
		pr_err("jit: cannot seal an image (error %d)\n", ret);
	return ret;
}

static int install(void *image, const void *code, size_t len, size_t size)
{
	switch (smp_load_acquire(&gtp_exec_mode)) {
	case EXEC_MODULE_ALLOC:
	case EXEC_EXECMEM:
		/* RW + NX until seal(): never writable and executable */
		memcpy(image, code, len);
		memset(image + len, 0xcc, size - len);
		return seal(image, size);
	case EXEC_ROX:
		/* already RO + X: written through a temporary RW alias */
		static_call(gtp_text_poke_copy)(image, code, len);
		if (size > len)
			static_call(gtp_text_poke_set)(image + len, 0xcc,
							size - len);
		return 0;
	case EXEC_NONE:
		break;
	}
	return -EOPNOTSUPP;
}

/**
 * gtp_exec_install - write a JIT image and make it executable
 * @image: from gtp_exec_alloc(@alloc)
 * @code:  the bytes, laid out to run at @image
 * @len:   how many
 * @alloc: the size given to gtp_exec_alloc()
 *
 * Return: 0, after which @image is read-only + executable and the rest of
 * the allocation is int3; or -errno, and @image must not run (free it).
 */
int gtp_exec_install(void *image, const void *code, size_t len, size_t alloc)
{
	size_t size = PAGE_ALIGN(alloc);
	int ret;

	if (len > size)
		return -EINVAL;
	ret = install(image, code, len, size);
	if (!ret) {
		WRITE_ONCE(last.size, size);
		WRITE_ONCE(last.image, image);
	}
	return ret;
}

/**
 * gtp_exec_free - release an image; nothing may be executing it
 * @image: from gtp_exec_alloc()
 * @size:  unused (the allocator knows)
 *
 * vfree() (module_alloc) and execmem_free() reset the permissions, or
 * return the pages to the ROX cache filled with traps, before reuse.
 */
void gtp_exec_free(void *image, size_t size)
{
	if (!image)
		return;
	if (READ_ONCE(last.image) == image)
		WRITE_ONCE(last.image, NULL);
	if (READ_ONCE(gtp_exec_mode) == EXEC_MODULE_ALLOC)
		vfree(image);
	else
		static_call(gtp_execmem_free)(image);
	atomic_dec(&gtp_jit_images);
}
