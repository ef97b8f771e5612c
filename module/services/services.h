/* SPDX-License-Identifier: GPL-2.0 */
/*
 * services.h - what gtptrace borrows from the kernel, as the rooms above
 * use it.
 *
 * module/services/ is the lowest room of the kernel glue: executable
 * memory, kernel symbols (ksym.h), references on other modules, the
 * kernel's unwinder, the entry-value recorder, ftrace locations and
 * ftrace_ops that will not go (ftrace_unreg.h), and the one lock.  Its
 * files call the portable core and one another, never the probes room or
 * main.c (tests/layering/check).
 */
#ifndef GTP_SERVICES_H
#define GTP_SERVICES_H

#include <linux/mutex.h>
#include <linux/types.h>

struct ftrace_ops;
struct gtp_conn;
struct gtp_tp;
struct module;
struct pt_regs;

/*
 * lock.c: serialises packet handling, module init/exit and probe
 * (de)registration.
 */
extern struct mutex gtp_mutex;

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

/* mod_pin.c: references on the modules gtp traces or reads */
struct module *gtp_module_get_data(u64 addr, u32 size);
struct module *gtp_module_get_code(u64 addr);
void gtp_module_put(struct module *mod);

/* perf.c: host.h perf_open / perf_close / perf_read, and its binding */
int gtp_perf_init(void);
int gtp_perf_open(struct gtp_conn *gc, u32 kinds);
void gtp_perf_close(void);
int gtp_perf_read(u32 kind, u64 *val);

/* jit_direct.c: host.h jit_direct / jit_unpin (process context) */
const void *gtp_jit_direct(u64 addr, u32 size, void **pin);
void gtp_jit_unpin(void *pin);

/*
 * kstack.c: "collect $kstack" for a hit of @tp with @regs, unwound from
 * @from (the backend's word: a return hit's are the return handler's;
 * NULL: no stack), and the caller of a function at its entry.
 */
u32 gtp_kstack(const struct gtp_tp *tp, struct pt_regs *regs,
	       struct pt_regs *from, u64 *buf, u32 max);
u64 gtp_kstack_caller(const struct pt_regs *regs);

/*
 * umem.c: may a hit read the current task's user memory (@by_int3: a
 * kprobe's int3 carried it), and its user call stack: the ip, then return
 * addresses by frame pointer, at most @max into @buf, the program's text
 * start into *@text.  Probe context; call gtp_ustack() only where
 * gtp_user_ctx() said yes.
 */
bool gtp_user_ctx(bool by_int3);
u32 gtp_ustack(u64 *text, u64 *buf, u32 max);

/*
 * entry_regs.c: the argument registers tasks had on entering the
 * functions whose locations read entry values (the host's ->entry_reg)
 */
int gtp_entry_regs_arm(struct gtp_conn *gc);
void gtp_entry_regs_disarm(void);
int gtp_entry_reg(const struct gtp_tp *tp, const struct pt_regs *regs,
		  u32 dwreg, u64 *val);

/* ftrace_loc.c: point an ftrace_ops at the location @addr names */
unsigned long gtp_ftrace_filter_location(struct ftrace_ops *ops,
					 unsigned long addr, int reset);

#endif /* GTP_SERVICES_H */
