/* SPDX-License-Identifier: GPL-2.0 */
/*
 * user_env.h - a userspace world for the portable core: fake memory, a
 * recording frame and trace state variables.
 *
 * Linked into every unit test and into jit/tool/gtp-ax.  It implements
 * what the module implements in the kernel:
 *
 *   gtp_read_nofault()	reads only from registered regions; any byte
 *			outside them faults (-EFAULT), like a bad kernel
 *			pointer.  This is gtp-ax's --mem ADDR=HEX model.
 *   gtp_user_addr()	the user half is [USER_ENV_USER_LO, USER_ENV_USER_HI),
 *			far from the low addresses tests use as kernel
 *			memory; gtp_read_user_nofault() reads regions there
 *			(user_env_user_reads() counts the calls)
 *   ax_hook_read()	= gtp_read_nofault(), within the hit's fault budget
 *			(env->faults, AX_HIT_FAULTS_MAX) as in the module
 *   ax_hook_trace()	appends a trace record (addr, size asked, the
 *			readable prefix of the bytes); unreadable memory is
 *			not an error (the rest is "unavailable"), only a
 *			full frame is (-ENOSPC)
 *   ax_hook_tracev()	appends a (tsv, value) record
 *   ax_hook_getv/setv()	an array of USER_ENV_NR_TSV variables, all 0
 *			after user_env_reset(); others are -EINVAL
 *
 * All state is global and single-threaded; user_env_reset() returns it to
 * empty (no regions, no records, variables 0, no record limit).
 */
#ifndef GTP_USER_ENV_H
#define GTP_USER_ENV_H

#include "ax.h"

#define USER_ENV_MAX_REGIONS	64
#define USER_ENV_MAX_TRACES	256	/* trace + tracev records per frame */
#define USER_ENV_TRACE_BYTES	65536	/* recorded bytes per frame */
#define USER_ENV_NR_TSV		256	/* getv/setv/tracev 0..255 */
#define USER_ENV_USER_LO	0x7f0000000000ull
#define USER_ENV_USER_HI	0x800000000000ull

/* One trace/trace_quick/trace16/tracenz call. */
struct user_env_trace {
	u64 addr;
	u32 size;	/* size asked for (tracenz: the upper bound) */
	u32 len;	/* bytes recorded: the readable prefix of [addr, +size),
			 * for tracenz cut after the first NUL */
	bool upto_nul;	/* from tracenz */
	const u8 *data;	/* the len recorded bytes */
};

/* One tracev call: the variable's value when it ran. */
struct user_env_tracev {
	u32 tsv;
	s64 val;
};

/* Forget all regions, records and variable values; lift the limit. */
void user_env_reset(void);

/* gtp_read_user_nofault() calls since the last user_env_reset(). */
unsigned int user_env_user_reads(void);

/*
 * Make @len bytes readable at @addr, with the contents of @bytes (copied).
 * Later regions win where they overlap earlier ones.  Returns 0, -EINVAL
 * (range wraps around), -ENOSPC or -ENOMEM.
 */
int user_env_add_region(u64 addr, const void *bytes, size_t len);

/*
 * A region JIT code may load from directly (host.h jit_direct): the model
 * of kernel .data/.rodata/.bss and of a pinned module's data.  Not a copy:
 * @bytes stay the caller's and change in place, as kernel data does, seen
 * alike by the hook and by compiled loads; they must outlive every image
 * compiled while the region was registered.
 */
int user_env_add_direct_region(u64 addr, const void *bytes, size_t len);

/*
 * gtp_host->jit_direct() and ->jit_unpin() of the userspace host: where
 * JIT code may load [addr, addr + n) from, or NULL; every grant takes a
 * pin (*pin != NULL), counted until unpinned.
 */
const void *user_env_direct(u64 addr, size_t n, void **pin);
void user_env_unpin(void *pin);
unsigned int user_env_nr_pins(void);

/* Set gdb register @regno (0..17, see ax_reg_offset()); -EINVAL if bad. */
int user_env_set_reg(struct pt_regs *regs, unsigned int regno, u64 val);

/* Trace state variables, as getv/setv see them. -EINVAL if out of range. */
int user_env_set_tsv(u32 tsv, s64 val);
s64 user_env_tsv(u32 tsv);

/*
 * Let only @nr more trace/tracev records succeed (the frame is "full"
 * after that and the hooks return -ENOSPC): how tests reach AX_ERR_TRACE.
 */
void user_env_set_trace_limit(unsigned int nr);

/* What the program recorded since the last reset, in order. */
unsigned int user_env_nr_traces(void);
const struct user_env_trace *user_env_trace(unsigned int i);
unsigned int user_env_nr_tracevs(void);
const struct user_env_tracev *user_env_tracev(unsigned int i);

/* Number of ax_hook_read() calls since the last reset. */
unsigned int user_env_nr_reads(void);
/* Failed gtp_read_nofault() calls since the program started. */
unsigned int user_env_nr_faults(void);

#endif /* GTP_USER_ENV_H */
