/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - the one place where the portable core differs between the
 * kernel module and the userspace tests/tools.
 *
 * Everything under module/core/ and jit/ includes only this header (plus
 * other core headers).  In the kernel it maps onto the kernel's own
 * primitives; in userspace it provides the same names on top of libc and
 * the GCC atomic builtins, so the same .c files compile unchanged in both
 * (cf. kernel/bpf/disasm.c, tools/lib/bpf/relo_core.c).
 *
 * Rules for additions: keep it small, keep the names kernel names, and add
 * to both halves in the same change.
 */
#ifndef GTP_COMPAT_H
#define GTP_COMPAT_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/errno.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/uaccess.h>
#include <linux/ptrace.h>
#include <linux/compiler.h>
#include <linux/minmax.h>
#include <linux/bug.h>
#include <linux/atomic.h>
#include <asm/local.h>
/* __annotate_jump_table (computed-goto tables, for objtool): linux/compiler.h */
#include <linux/cache.h>
#include <asm/msr.h>

/* ring.c: timestamps are raw TSC reads (synchronized across CPUs on x86-64). */
#define gtp_tsc()		rdtsc()
#include <asm/tsc.h>
#define gtp_tsc_khz()		tsc_khz
/* frame_ring.c: the writer's CPU (preemption is off in probes), and a
 * wait for every probe handler in flight (they run preempt-disabled). */
#include <linux/smp.h>
#include <linux/cpumask.h>
#include <linux/rcupdate.h>
#define gtp_cpu_id()		raw_smp_processor_id()
#define gtp_nr_cpus()		nr_cpu_ids
#define gtp_sync_writers()	synchronize_rcu()
/*
 * budget.h: per-CPU counters a probe updates (preemption is off there).
 * Hits nest on a CPU (an irq's or an NMI's hit inside another), so every
 * read-modify-write is this_cpu_*(), not __this_cpu_*(): safe against an
 * interrupt on the same CPU, one %gs-relative instruction on x86 (xadd,
 * add, cmpxchg without a lock prefix), so an NMI cannot split it either.
 */
#include <linux/percpu.h>
#define GTP_DEFINE_PER_CPU(t, n)	DEFINE_PER_CPU(t, n)
#define GTP_DECLARE_PER_CPU(t, n)	DECLARE_PER_CPU(t, n)
#define gtp_this_cpu_read(v)		this_cpu_read(v)
#define gtp_this_cpu_inc_return(v)	this_cpu_inc_return(v)
#define gtp_this_cpu_add_return(v, x)	this_cpu_add_return(v, x)
#define gtp_this_cpu_sub(v, x)		this_cpu_sub(v, x)
#define gtp_this_cpu_cmpxchg(v, o, n)	this_cpu_cmpxchg(v, o, n)
#define gtp_this_cpu_ptr(p)		this_cpu_ptr(p)
/* a probe-path local the kernel's INIT_STACK_ALL_ZERO must not memset */
#define __gtp_noinit		__attribute__((__uninitialized__))

/*
 * tsv.c's built-in variables and trace.c's start/stop times: what a probe
 * may ask about its moment, NMI included (hence the _fast clocks).
 */
#include <linux/sched.h>
#include <linux/hardirq.h>
#include <linux/timekeeping.h>
#define gtp_current_task()	((u64)(unsigned long)current)
#define gtp_current_pid()	task_pid_nr(current)
#define gtp_mono_ns()		ktime_get_mono_fast_ns()
#define gtp_real_us()		div_u64(ktime_get_real_fast_ns(), NSEC_PER_USEC)
#define gtp_hardirq_depth()	(hardirq_count() >> HARDIRQ_SHIFT)
#define gtp_softirq_depth()	(softirq_count() >> SOFTIRQ_SHIFT)

/*
 * $cgroup_id, $ns_pid, $ns_tgid: what bpf_get_current_cgroup_id(),
 * task_pid_vnr() and task_tgid_vnr() give, read inline.  Those take
 * rcu_read_lock() (a call on PREEMPT_RCU kernels) or are functions a
 * probe could itself sit on; a probe runs with preemption off, which is
 * an RCU read-side section already.  A task late in its exit may have
 * detached its pids: 0 then.
 */
#include <linux/cgroup.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched/signal.h>

static __always_inline u64 gtp_cgroup_id(void)
{
#ifdef CONFIG_CGROUPS
	/* task_css_set(): rcu_dereference_check(), preemption off is enough */
	return cgroup_id(task_dfl_cgroup(current));
#else
	return 0;
#endif
}

/*
 * @pid's number in the namespace at @level (the task's own active pid
 * namespace is the one at its thread pid's level: task_active_pid_ns()).
 */
static __always_inline int gtp_pid_nr_at(const struct pid *pid,
					 unsigned int level)
{
	return pid && level <= READ_ONCE(pid->level) ?
	       READ_ONCE(pid->numbers[level].nr) : 0;
}

static __always_inline int gtp_ns_pid(void)
{
	struct pid *pid = READ_ONCE(current->thread_pid);

	return pid ? gtp_pid_nr_at(pid, pid->level) : 0;
}

static __always_inline int gtp_ns_tgid(void)
{
	struct pid *pid = READ_ONCE(current->thread_pid);
	struct pid *tgid;

	if (!pid)
		return 0;
	/* as __task_pid_nr_ns(current, PIDTYPE_TGID, NULL) reads it */
	tgid = rcu_dereference_sched(current->signal->pids[PIDTYPE_TGID]);
	return gtp_pid_nr_at(tgid, pid->level);
}

/*
 * Every allocation of the core and the JIT is counted (host.c), so that
 * the module parameter "allocations" shows that QTinit gives all of a
 * session's memory back (tests/e2e/test_faults.py).
 */
extern atomic_long_t gtp_allocs;

static inline void *gtp_counted(void *p)
{
	if (p)
		atomic_long_inc(&gtp_allocs);
	return p;
}

#define gtp_malloc(n)		gtp_counted(kmalloc((n), GFP_KERNEL))
#define gtp_zalloc(n)		gtp_counted(kzalloc((n), GFP_KERNEL))
#define gtp_vzalloc(n)		gtp_counted(vzalloc(n))

static inline void gtp_free(const void *p)
{
	if (p)
		atomic_long_dec(&gtp_allocs);
	kfree(p);
}

static inline void gtp_vfree(const void *p)
{
	if (p)
		atomic_long_dec(&gtp_allocs);
	vfree(p);
}

/*
 * What a user may read: kernel memory mapped write-back onto a page frame
 * the kernel has a struct page for (RAM).  ioremap()'d device registers
 * are mapped uncached or write-combined (PCD/PWT set in Linux's PAT
 * layout, where every non-WB type has one) or lie outside RAM; reading
 * one can have side effects, and /proc/kcore does not show them.  The
 * walk is lockless (lookup_address()), so it is fine in any context.
 */
#include <linux/mm.h>
#include <linux/pgtable.h>
#include <linux/sizes.h>

static inline bool gtp_kpage_is_ram(unsigned long addr)
{
	unsigned int level;
	pte_t *ptep;
	pte_t pte;

	/*
	 * No walk where ioremap() never maps: the kernel image and modules,
	 * and the direct map above the ISA range (the legacy VGA window).
	 * A hole there faults, and the nofault copy reports it.
	 */
	if (addr >= __START_KERNEL_map && addr < MODULES_END)
		return true;
	if (addr >= PAGE_OFFSET + SZ_1M && addr < (unsigned long)high_memory)
		return true;
	ptep = lookup_address(addr, &level);
	if (!ptep)
		return false;
	pte = READ_ONCE(*ptep);
	if (!pte_present(pte) || (pte_flags(pte) & (_PAGE_PWT | _PAGE_PCD)))
		return false;
	return pfn_valid(pte_pfn(pte));
}

/* Reads on behalf of a user never fault: a bad address is an error code. */
static inline int gtp_read_nofault(void *dst, u64 src, size_t n)
{
	u64 last = src + n - 1, page = src & PAGE_MASK, pages;

	if (!n)
		return 0;
	if (last < src)
		return -EFAULT;
	/* counted, so that the top page of the address space ends the loop */
	for (pages = ((last & PAGE_MASK) - page) >> PAGE_SHIFT; ; pages--) {
		if (!gtp_kpage_is_ram(page))
			return -EFAULT;
		if (!pages)
			break;
		page += PAGE_SIZE;
	}
	return copy_from_kernel_nofault(dst, (const void *)(unsigned long)src, n)
		? -EFAULT : 0;
}

/*
 * The user half of the address space: what a read on behalf of a hit
 * takes from the current task's memory (hitmem.h), never from the
 * kernel's.
 */
static inline bool gtp_user_addr(u64 addr)
{
	return addr < TASK_SIZE_MAX;
}

/*
 * The current task's user memory, as bpf_probe_read_user() reads it: with
 * page faults disabled (a page not present is an error, never waited
 * for), and only while the mm loaded on this CPU is the task's own
 * (nmi_uaccess_okay()), so it is safe in any context.
 *
 * Through a bounce buffer on the stack: with CONFIG_HARDENED_USERCOPY
 * (Debian's) the copy checks its destination, and for one in vmalloc
 * space (a frame's scratch, the frame store) that check looks the area
 * up under a spinlock (find_vmap_area()), which a probe must never take:
 * the CPU may hold it already.  A destination on the task's stack passes
 * without a lock.  Called out of line (hitmem.c), so that the buffer is
 * in no frame but that one.
 */
#define GTP_USER_BOUNCE	128

static inline int gtp_read_user_nofault(void *dst, u64 src, size_t n)
{
	u8 bounce[GTP_USER_BOUNCE];
	size_t done, len;

	for (done = 0; done < n; done += len) {
		len = min_t(size_t, n - done, sizeof(bounce));
		if (copy_from_user_nofault(bounce, (const void __user *)
					   (unsigned long)(src + done), len))
			return -EFAULT;
		memcpy((u8 *)dst + done, bounce, len);
	}
	return 0;
}

#else /* userspace: tests and tools */

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <string.h>
#include <stdlib.h>
#include <stdio.h>
#include <errno.h>
#include <limits.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#ifndef noinline
#define noinline __attribute__((__noinline__))
#endif
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))
#define barrier()		__asm__ __volatile__("" ::: "memory")
#define smp_mb()		__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb()		__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb()		__atomic_thread_fence(__ATOMIC_RELEASE)
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define WARN_ON_ONCE(c)		({ int __c = !!(c); if (__c) fprintf(stderr, "WARN_ON_ONCE %s:%d\n", __FILE__, __LINE__); __c; })
#ifndef min
#define min(a, b)		((a) < (b) ? (a) : (b))
#define max(a, b)		((a) > (b) ? (a) : (b))
#endif
#define min_t(t, a, b)		((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)		((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define fallthrough		__attribute__((__fallthrough__))
#define __maybe_unused		__attribute__((unused))
#define __annotate_jump_table	/* objtool's marker; nothing to mark here */
#define scnprintf		snprintf_clamped

static inline int snprintf_clamped(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#include <stdarg.h>
static inline int snprintf_clamped(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!size)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0)
		return 0;
	return (size_t)n >= size ? (int)size - 1 : n;
}

/* ring.c's timestamps off x86, and tsv.c/trace.c's clocks */
#include <time.h>
static inline u64 gtp_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (u64)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/*
 * ring.c: local_t (atomic only against interrupts -- here: signal handlers
 * -- on the owning CPU/thread, as the kernel's asm/local.h: no lock prefix)
 * and atomic_long_t (SMP-safe), with the kernel's names and argument order.
 */
#ifndef ____cacheline_aligned
#define ____cacheline_aligned	__attribute__((__aligned__(64)))
#endif
typedef struct { long a; } local_t;
typedef struct { long counter; } atomic_long_t;
#define LOCAL_INIT(i)		{ (i) }
#define local_read(l)		READ_ONCE((l)->a)
#define local_set(l, i)		WRITE_ONCE((l)->a, (i))
#if defined(__x86_64__)
static inline void local_add(long i, local_t *l)
{
	__asm__ __volatile__("addq %1,%0" : "+m"(l->a) : "er"(i) : "memory");
}
static inline long local_add_return(long i, local_t *l)
{
	long r = i;

	__asm__ __volatile__("xaddq %0,%1" : "+r"(r), "+m"(l->a) : : "memory");
	return r + i;
}
static inline long local_cmpxchg(local_t *l, long old, long new)
{
	__asm__ __volatile__("cmpxchgq %2,%1"
			     : "+a"(old), "+m"(l->a) : "r"(new) : "memory");
	return old;
}
#include <x86intrin.h>
#define gtp_tsc()		((u64)__rdtsc())
#define gtp_tsc_khz()		0UL	/* not known to a test program */
#else
static inline void local_add(long i, local_t *l)
{
	__atomic_fetch_add(&l->a, i, __ATOMIC_RELAXED);
}
static inline long local_add_return(long i, local_t *l)
{
	return __atomic_add_fetch(&l->a, i, __ATOMIC_RELAXED);
}
static inline long local_cmpxchg(local_t *l, long old, long new)
{
	__atomic_compare_exchange_n(&l->a, &old, new, 0, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
	return old;
}
#define gtp_tsc()		gtp_clock_ns(CLOCK_MONOTONIC)
#define gtp_tsc_khz()		1000000UL	/* ticks are nanoseconds */
#endif
#define local_inc(l)		local_add(1, (l))
#define local_sub(i, l)		local_add(-(long)(i), (l))
#define atomic_long_read(v)	READ_ONCE((v)->counter)
#define atomic_long_set(v, i)	WRITE_ONCE((v)->counter, (i))
static inline long atomic_long_cmpxchg(atomic_long_t *v, long old, long new)
{
	__atomic_compare_exchange_n(&v->counter, &old, new, 0,
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	return old;
}
static inline long atomic_long_add_return(long i, atomic_long_t *v)
{
	return __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST);
}
static inline void atomic_long_add(long i, atomic_long_t *v)
{
	__atomic_fetch_add(&v->counter, i, __ATOMIC_RELAXED);
}
#define atomic_long_inc(v)	atomic_long_add(1, (v))
/* frame_ring.c: userspace users of the frame store are single-threaded */
#define gtp_cpu_id()		0u
#define gtp_nr_cpus()		1u
#define gtp_sync_writers()	smp_mb()
/*
 * One "CPU": the thread.  Its interrupts are signal handlers, which the
 * unit tests use to nest an update inside another
 * (tests/unit/test_nest_counts.c): the builtins are one instruction
 * each on x86, or a loop no handler can split, as this_cpu_*() are.
 */
#define GTP_DEFINE_PER_CPU(t, n)	t n
#define GTP_DECLARE_PER_CPU(t, n)	extern t n
#define gtp_this_cpu_read(v)		READ_ONCE(v)
#define gtp_this_cpu_inc_return(v)	__atomic_add_fetch(&(v), 1, __ATOMIC_RELAXED)
#define gtp_this_cpu_add_return(v, x)	__atomic_add_fetch(&(v), (x), __ATOMIC_RELAXED)
#define gtp_this_cpu_sub(v, x)		__atomic_fetch_sub(&(v), (x), __ATOMIC_RELAXED)
#define gtp_this_cpu_cmpxchg(v, o, n)	({				\
	__typeof__(v) __o = (o);					\
	__atomic_compare_exchange_n(&(v), &__o, (n), 0,			\
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);	\
	__o; })
#define gtp_this_cpu_ptr(p)		(p)
#define __gtp_noinit		__attribute__((__uninitialized__))

/* tsv.c and trace.c: a userspace "probe" runs in the calling thread */
#include <pthread.h>
#include <unistd.h>
#define gtp_current_task()	((u64)(unsigned long)pthread_self())
#define gtp_current_pid()	getpid()
#define gtp_mono_ns()		gtp_clock_ns(CLOCK_MONOTONIC)
#define gtp_real_us()		(gtp_clock_ns(CLOCK_REALTIME) / 1000)
#define gtp_hardirq_depth()	0
#define gtp_softirq_depth()	0
/* no cgroup of its own to name; the test's process is in no pid namespace */
#define gtp_cgroup_id()		0
#define gtp_ns_pid()		getpid()
#define gtp_ns_tgid()		getpid()

#define gtp_malloc(n)		malloc(n)
#define gtp_zalloc(n)		calloc(1, (n))
#define gtp_free(p)		free(p)
#define gtp_vzalloc(n)		calloc(1, (n))
#define gtp_vfree(p)		free(p)

/* x86-64 struct pt_regs, field for field as in arch/x86/include/asm/ptrace.h */
struct pt_regs {
	unsigned long r15, r14, r13, r12, bp, bx;
	unsigned long r11, r10, r9, r8, ax, cx, dx, si, di;
	unsigned long orig_ax, ip, cs, flags, sp, ss;
};

/*
 * Userspace has no nofault copy: the test or tool that links the core
 * supplies this (e.g. jit/gtp-ax.c serves only its --mem ranges).
 */
int gtp_read_nofault(void *dst, u64 src, size_t n);
/*
 * The user half and its reads, likewise: tests give it a window of their
 * own (tests/unit/user_env.c), so that the low addresses they use as
 * kernel memory stay kernel memory.
 */
bool gtp_user_addr(u64 addr);
int gtp_read_user_nofault(void *dst, u64 src, size_t n);

#endif /* __KERNEL__ */

#endif /* GTP_COMPAT_H */
