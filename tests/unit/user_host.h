/* SPDX-License-Identifier: GPL-2.0 */
/*
 * user_host.h - the userspace host's executable memory (user_exec.c) and
 * the knobs tests turn on it and on user_trace.c.
 */
#ifndef GTP_USER_HOST_H
#define GTP_USER_HOST_H

#include "compat.h"

void *user_exec_alloc(size_t size);
int user_exec_install(void *image, const void *code, size_t len, size_t alloc);
void user_exec_free(void *image, size_t size);
void *user_exec_return_thunk_of(void);
bool user_exec_want_endbr(void);
bool user_exec_call_depth(s32 *var);
bool user_jit_enabled(void);
const char *user_jit_off_reason(void);

/* A function that is just 'ret', to exercise the return-thunk path. */
extern void *user_exec_return_thunk;
/* Account calls as call-depth tracking does, on this counter */
extern bool user_exec_call_depth_on;
extern s32 user_exec_call_depth_var;
/* Start images with endbr64, as a kernel with IBT asks. */
extern bool user_exec_endbr;
/*
 * Map images within 1GB below this program's text, as the kernel maps JIT
 * images near kernel text (rel32 calls; and CPUs predict near indirect
 * calls and returns faster than ones across the address space): the
 * benchmark sets it.  Off: anywhere mmap() likes (movabs calls).
 */
extern bool user_exec_near;
/* Definitions made while set are interpreted, as with the module's jit=0. */
extern bool user_jit_off;
/* errno to fail the next arm with, the way a kernel refusal does */
extern int user_trace_fail_arm;
extern int user_trace_armed;
/*
 * The counters ($perf_*, host.h @perf_open): which kinds are open (bit
 * <kind>), a refusal the next open gives (an errno, then 0 again), and
 * what each kind reads (the test sets it).
 */
extern u32 user_perf_open_kinds;
extern int user_perf_fail_open;
extern u64 user_perf_value[];
extern u32 user_kstack_depth;	/* entries "collect $kstack" records */
/* a hit is in its task's context (user memory readable), and the
 * addresses "collect $ustack" records there after the text start */
extern bool user_task_ctx;
extern u32 user_ustack_depth;
extern u64 user_ustack_text;
/* entry values (entryval.h): DWARF register N held user_entry_regs[N] on
 * entry; user_entry_ok false: none recorded */
extern u64 user_entry_regs[16];
/*
 * $watch_val, $watch_prev, $watch_addr at a watch's hit (enum
 * gtp_watch_what order); the last $watch_arm_N = ADDR as (N, ADDR)
 */
extern u64 user_watch_vals[3];
extern u64 user_watch_armed[2];
/* $kret_ns at a return probe's hit (user_trace.c) */
extern u64 user_kret_time;
extern bool user_entry_ok;

#endif /* GTP_USER_HOST_H */
