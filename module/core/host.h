/* SPDX-License-Identifier: GPL-2.0 */
/*
 * host.h - what the portable core asks of whoever links it, as one table.
 *
 * The core and the JIT never call the layer above them by name: gtptrace.ko
 * (module/main.c) and the userspace tests (tests/unit/user_trace.c) each
 * fill a struct gtp_host_ops and hand it to gtp_host_register() before the
 * first packet, the way kernel/bpf/disasm.c takes struct bpf_insn_cbs from
 * its callers.  So module/core/ and jit/ depend on nothing above them
 * ("make check-layering" proves it on the built objects).
 *
 * Every entry but @kstack, @entry_reg, @caller, @kret_ns, @user_ok,
 * @ustack, @watch, @tripped and @perf_read is
 * called from
 * process context under the packet lock, never from a probe: what a probe
 * needs
 * (clocks, the CPU, the task) are plain kernel primitives and live in
 * compat.h.  The kernel's unwinder is not one a module may call by name
 * (stack_trace_save_regs() is not exported), hence a probe-context entry;
 * the entry registers a task's hit needs are the host's to record, hence
 * another; and only the host knows how a hit was carried (an entry, a
 * return), which $caller and $kret_ns depend on, hence two more; the CPU
 * budget trips in a probe, and only the host can take that probe away,
 * hence @tripped; the kernel's counters are read through a function a
 * module binds, hence @perf_read.
 */
#ifndef GTP_HOST_H
#define GTP_HOST_H

#include "compat.h"

struct gtp_tp;
struct gtp_conn;

/* What a watch's hit reads of its host ($watch_val, ...: tsv.c). */
enum gtp_watch_what {
	GTP_WATCH_VAL,		/* the watched bytes after the access */
	GTP_WATCH_PREV,		/* ... before it */
	GTP_WATCH_ADDR,		/* where they are */
};

/* The counters a trace state variable reads ($perf_cycles, ...: tsv.c). */
enum gtp_perf_kind {
	GTP_PERF_CYCLES,
	GTP_PERF_INSTRUCTIONS,
	GTP_PERF_CACHE_MISSES,
	GTP_PERF_PAGE_FAULTS,
	GTP_PERF_CPU_CLOCK,	/* software: nanoseconds this CPU ran */
	GTP_PERF_NR,
};

/**
 * struct gtp_host_ops - the services a host gives the core and the JIT
 * @arm: attach every tracepoint location (gtp_tps) at QTStart.  On failure
 *	nothing stays attached and a console message saying why has been
 *	sent on the connection.
 * @disarm: detach everything and wait until no probe handler runs.
 * @set_enabled: QTEnable/QTDisable of one tracepoint while attached.
 * @jit_enabled: false with the module's 'jit=0' parameter or without
 *	executable memory; the JIT then declines and programs are
 *	interpreted.
 * @jit_off_reason: why @jit_enabled is false, one line for gdb's console.
 * @exec_alloc: reserve room for a JIT image where it will run (near kernel
 *	text; newer kernels hand out memory that is never writable).
 * @exec_install: write the code into the image, fill the rest of the
 *	allocation with int3 and leave it read-only + executable.  Never W+X.
 * @exec_free: release an image once no probe can run it.
 * @exec_want_endbr: start every image with endbr64 (the kernel enforces
 *	IBT).
 * @exec_return_thunk: where JIT code returns through instead of 'ret'
 *	(the kernel's return thunk, as its BPF JIT uses), or NULL.
 * @exec_call_depth: emit call-depth accounting ("sarq $5, %gs:*@var")
 *	before every call JIT code makes, as the kernel's BPF JIT does when
 *	it stuffs the return stack buffer by call depth; false: none.
 * @jit_direct: may JIT code read [@addr, @addr + @size) of a constant
 *	address with a plain load instead of calling ax_hook_read()?  Only
 *	when the whole range stays mapped for as long as the image can run
 *	(kernel .rodata/.data/.bss; data of a module the host then pins) and
 *	reading it is allowed now (lockdown).  Returns where the code loads
 *	from (@addr itself in the kernel; a test's copy in userspace), or
 *	NULL: use the nofault hook.  *@pin is set to what @jit_unpin must
 *	release when the image is freed, or NULL.
 * @jit_unpin: release a pin @jit_direct handed out (the image is gone).
 * @kstack: probe context ("collect $kstack"): the kernel call stack of
 *	the hit of @tp with registers @regs, innermost first, at most @max
 *	return addresses into @buf; returns how many.  No locks, no sleep.
 * @entry_reg: probe context: what DWARF register @dwreg (an argument
 *	register, entryval.h) held when the function containing @tp was
 *	entered by the task now at @regs, into *@val.  -ENOENT if that entry
 *	was not recorded (it came before the trace started, or the host
 *	could not attach its recorder there).  No locks, no sleep.
 * @caller: probe context ("$caller"): where the function the hit of @tp
 *	is in returns to, the return address into its caller: at the
 *	function's entry the word at @regs->sp, at a return probe the
 *	address the kernel kept; 0 where the host cannot say (mid-function,
 *	static tracepoints, an unreadable stack).  No locks, no sleep.
 * @kret_ns: probe context ("$kret_ns"): at a return probe's hit of @tp,
 *	the nanoseconds (gtp_mono_ns(), $clock's clock) since the call that
 *	is returning was entered; 0 at any other hit.  No locks, no sleep.
 * @user_ok: probe context: may the hit of @tp read the current task's
 *	user memory (hitmem.h)?  Only when the probed code ran in that
 *	task's own context: not in an interrupt, a softirq or an NMI, not
 *	in a kernel thread.  No locks, no sleep.
 * @ustack: probe context ("collect $ustack"): where @user_ok allows, the
 *	current task's user call stack, its ip then return addresses by
 *	frame pointer, at most @max into @buf, and the start of its
 *	program's text into *@text (for symbols of a position-independent
 *	program); returns how many addresses, 0 where not allowed.  No
 *	locks, no sleep.
 * @watch: probe context ("$watch_val", "$watch_prev", "$watch_addr"): at
 *	a hit of the watch @tp (watch.h), the watched bytes' value after
 *	the access, before it (as the hit before on any CPU left it, or as
 *	they were when armed), or their address.  No locks, no sleep.
 * @watch_arm: probe context ("$watch_arm_N = ADDR"): from now on, the
 *	watch tracepoint @tpnum watches @addr (0: nothing), as soon as the
 *	host can move its breakpoints (from process context, later).
 *	-ENOENT: @tpnum is no watch of this run; -EINVAL: an address no
 *	watch of its length may have.  No locks, no sleep, no wake-up.
 * @tripped: probe context: @tp tripped the CPU budget (tp->tripped is
 *	GTP_TRIP_PENDING, tp->enabled false).  The host unregisters its
 *	probe later, from process context, and sets GTP_TRIP_DISARMED, so
 *	that a tripped location stops costing what it cost.  No locks, no
 *	sleep, no allocation, no wake-up.
 * @perf_open: at QTStart, before @arm: open the counters of the kinds in
 *	@kinds (bit <enum gtp_perf_kind>) on every CPU.  On failure none
 *	stays open and a console message says which counter and why.
 * @perf_close: release them, once no probe runs (after @disarm).
 * @perf_read: probe context: this CPU's count of counter @kind into
 *	*@val; -ENODEV when it is not open here.  No locks, no sleep.
 * @sdata_fields: the $_sdata fields of the static tracepoint at marker
 *	@addr as "NAME:SIZE:s|u ..." into @buf (for the consumer's
 *	definitions); the length, or 0 if the marker or its names are gone.
 */
struct gtp_host_ops {
	int (*arm)(struct gtp_conn *gc);
	void (*disarm)(void);
	void (*set_enabled)(struct gtp_tp *tp, bool enabled);

	bool (*jit_enabled)(void);
	const char *(*jit_off_reason)(void);
	void *(*exec_alloc)(size_t size);
	int (*exec_install)(void *image, const void *code, size_t len,
			    size_t alloc);
	void (*exec_free)(void *image, size_t size);
	bool (*exec_want_endbr)(void);
	void *(*exec_return_thunk)(void);
	bool (*exec_call_depth)(s32 *var);
	const void *(*jit_direct)(u64 addr, u32 size, void **pin);
	void (*jit_unpin)(void *pin);

	u32 (*kstack)(const struct gtp_tp *tp, struct pt_regs *regs,
		      u64 *buf, u32 max);
	int (*entry_reg)(const struct gtp_tp *tp, const struct pt_regs *regs,
			 u32 dwreg, u64 *val);
	u64 (*caller)(const struct gtp_tp *tp, const struct pt_regs *regs);
	u64 (*kret_ns)(const struct gtp_tp *tp);
	bool (*user_ok)(const struct gtp_tp *tp);
	u32 (*ustack)(const struct gtp_tp *tp, u64 *text, u64 *buf, u32 max);
	u64 (*watch)(const struct gtp_tp *tp, enum gtp_watch_what what);
	int (*watch_arm)(u32 tpnum, u64 addr);
	void (*tripped)(struct gtp_tp *tp);

	int (*perf_open)(struct gtp_conn *gc, u32 kinds);
	void (*perf_close)(void);
	int (*perf_read)(u32 kind, u64 *val);

	int (*sdata_fields)(u64 addr, char *buf, size_t size);
};

/* Set once, before /proc/gtp exists; every entry must be filled in. */
extern const struct gtp_host_ops *gtp_host;

void gtp_host_register(const struct gtp_host_ops *ops);

#endif /* GTP_HOST_H */
