/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gtp_glue.h - the kernel-only parts of gtptrace.ko, as main.c wires them.
 *
 * main.c calls the init/exit pairs in the order of its gtp_parts[] and
 * hands the core the rest as its struct gtp_host_ops (core/host.h): the
 * core never calls these by name.
 */
#ifndef GTP_GLUE_H
#define GTP_GLUE_H

#include <linux/mutex.h>
#include <linux/atomic.h>

struct gtp_conn;
struct module;
struct gtp_tp;
struct pt_regs;

/* Serialises packet handling, module init/exit and probe (de)registration. */
extern struct mutex gtp_mutex;

/*
 * attach.c: every tracepoint location, through the backends of attach.h
 * (the host's ->arm, ->disarm, ->set_enabled, ->caller, ->kret_ns)
 */
int gtp_attach_init(void);
void gtp_attach_exit(void);
int gtp_attach_arm(struct gtp_conn *gc);
void gtp_attach_disarm(void);
void gtp_attach_set_enabled(struct gtp_tp *tp, bool enabled);
struct pt_regs *gtp_attach_unwind_regs(const struct gtp_tp *tp,
				       struct pt_regs *regs);
u32 gtp_attach_module_user(const struct module *mod);
u64 gtp_attach_caller(const struct gtp_tp *tp, const struct pt_regs *regs);
u64 gtp_attach_kret_ns(const struct gtp_tp *tp);
void gtp_attach_retire_tripped(void);

/*
 * trip.c: a location that tripped the CPU budget loses its probe, from
 * process context (the host's ->tripped)
 */
int gtp_trip_init(void);
void gtp_trip_exit(void);
void gtp_trip_queue(struct gtp_tp *tp);

/* kprobe.c: the kprobe backend's per-CPU areas; its refusals in words */
int gtp_kprobe_init(void);
void gtp_kprobe_exit(void);
const char *gtp_kprobe_refusal(int err);

/* ftrace_probe.c: the ftrace backends' per-CPU areas */
struct gtp_fprobe;
int gtp_fprobe_init(void);
void gtp_fprobe_exit(void);
/* ftrace_direct.c: an entry tracepoint's own trampoline */
struct gtp_fdirect;
struct ax_prog;
struct gtp_fdirect *gtp_fdirect_attach(struct ax_prog *cond, unsigned long ip,
				       void *fp, int *err);
bool gtp_fdirect_detach(struct gtp_fdirect *d);
bool gtp_fdirect_ipmodify_peer(const struct gtp_fdirect *d);
/* ftrace_probe.c: the hit of a trampoline whose condition held */
void gtp_fdirect_hit(struct pt_regs *regs, struct gtp_fprobe *fp);
struct ftrace_ops;
unsigned long gtp_ftrace_filter_location(struct ftrace_ops *ops,
					unsigned long addr);

/*
 * entry_regs.c: the argument registers tasks had on entering the
 * functions whose locations read entry values (the host's ->entry_reg)
 */
int gtp_entry_regs_arm(struct gtp_conn *gc);
void gtp_entry_regs_disarm(void);
int gtp_entry_reg(const struct gtp_tp *tp, const struct pt_regs *regs,
		  u32 dwreg, u64 *val);

/* kstack.c: "collect $kstack" (the host's ->kstack) */
u32 gtp_kstack(const struct gtp_tp *tp, struct pt_regs *regs, u64 *buf,
	       u32 max);
u64 gtp_kstack_caller(const struct pt_regs *regs);

/*
 * What main.c hands a proc file beside /proc/gtp at init, so that the
 * file calls nothing of main.c by name.
 */
struct gtp_proc_access {
	struct mutex *lock;		/* gtp_mutex: excludes gdb's packets */
	/*
	 * Every open's first step: root, lockdown, one opener (the file's
	 * own @open_count), the module pinned.  0 or -errno.
	 */
	int (*claim)(atomic_t *open_count);
	void (*unclaim)(atomic_t *open_count);	/* the release's last */
};

/* stream.c: /proc/gtp_stream, the live consumer (core/stream.h) */
int gtp_stream_file_init(const struct gtp_proc_access *access);
void gtp_stream_file_exit(void);

/* static_tp.c: the kernel's TRACE_EVENTs as static tracepoint markers */
int gtp_static_tp_init(void);
void gtp_static_tp_exit(void);

/*
 * exec_mem.c: executable memory for the JIT.  gtp_exec_init() from module
 * init resolves the allocator (otherwise the first gtp_jit_enabled()
 * does), gtp_exec_exit() from module exit after every image is freed.
 */
int gtp_exec_init(void);
void gtp_exec_exit(void);
bool gtp_jit_enabled(void);
const char *gtp_jit_off_reason(void);
void *gtp_exec_alloc(size_t size);
int gtp_exec_install(void *image, const void *code, size_t len, size_t alloc);
void gtp_exec_free(void *image, size_t size);
bool gtp_exec_want_endbr(void);
void *gtp_exec_return_thunk(void);
bool gtp_exec_call_depth(s32 *var);

/*
 * mod_pin.c: references on the modules gtp traces or reads, and the
 * notifier that stops using a module "rmmod -f" takes away
 */
int gtp_mod_pin_init(void);
void gtp_mod_pin_exit(void);
struct module *gtp_module_get_data(u64 addr, u32 size);
struct module *gtp_module_get_code(u64 addr);
void gtp_module_put(struct module *mod);

/* jit_direct.c: host.h jit_direct / jit_unpin (process context) */
const void *gtp_jit_direct(u64 addr, u32 size, void **pin);
void gtp_jit_unpin(void *pin);

#endif /* GTP_GLUE_H */
