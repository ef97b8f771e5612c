// SPDX-License-Identifier: GPL-2.0
/*
 * user_trace.c - the host (host.h) of the userspace tests and tools.
 *
 * "Attaching" records nothing but a pointer (a test hits tracepoints by
 * calling gtp_tp_hit() itself); user_trace_fail_arm makes the next arm
 * fail the way a kernel refusal does.  Executable memory is user_exec.c's.
 * The table is registered before main(), so every test binary and tool
 * that links the core has its host.
 */
#include "host.h"
#include "tracepoint.h"
#include "user_host.h"
#include "user_env.h"

int user_trace_fail_arm;	/* errno to fail the next arm */
int user_trace_armed;

static int user_arm(struct gtp_conn *gc)
{
	struct gtp_tp *tp;
	int err = user_trace_fail_arm;

	if (err) {
		user_trace_fail_arm = 0;
		gtp_console(gc, "gtp: refused (error %d)\n", -err);
		return -err;
	}
	for (tp = gtp_tps; tp; tp = tp->next)
		tp->probe = tp;
	user_trace_armed = 1;
	return 0;
}

static void user_disarm(void)
{
	struct gtp_tp *tp;

	for (tp = gtp_tps; tp; tp = tp->next)
		tp->probe = NULL;
	user_trace_armed = 0;
}

static void user_set_enabled(struct gtp_tp *tp, bool enabled)
{
}

/*
 * No kernel to unwind: "collect $kstack" records the hit's ip, then
 * made-up return addresses, user_kstack_depth in all.
 */
u32 user_kstack_depth = 3;

static u32 user_kstack(const struct gtp_tp *tp, struct pt_regs *regs,
		       u64 *buf, u32 max)
{
	u32 i, n = user_kstack_depth < max ? user_kstack_depth : max;

	for (i = 0; i < n; i++) {
		u64 v = i ? 0xffffffff81000000ull + 0x10 * i : regs->ip;

		memcpy(&buf[i], &v, 8);
	}
	return n;
}

u64 user_entry_regs[16];
bool user_entry_ok = true;

static int user_entry_reg(const struct gtp_tp *tp, const struct pt_regs *regs,
			  u32 dwreg, u64 *val)
{
	if (!user_entry_ok || !tp->reads_entry || dwreg >= 16)
		return -ENOENT;
	*val = user_entry_regs[dwreg];
	return 0;
}

/*
 * "$caller": the word at sp, as at a kernel function's entry, for a test
 * that points regs->sp at one; 0 for a return probe or with no sp.
 */
static u64 user_caller(const struct gtp_tp *tp, const struct pt_regs *regs)
{
	u64 ret;

	if (tp->at_return || !regs->sp ||
	    gtp_read_nofault(&ret, regs->sp, sizeof(ret)))
		return 0;
	return ret;
}

/*
 * "$kret_ns": what a test put in user_kret_time at a return probe's hit
 * (a userspace "call" has no entry to time), 0 at any other.
 */
u64 user_kret_time;

static u64 user_kret_ns(const struct gtp_tp *tp)
{
	return tp->at_return ? user_kret_time : 0;
}

/*
 * A watch's hit: the watched bytes after and before, their address (the
 * test sets them); and the last "$watch_arm_N = ADDR" (N, ADDR).
 */
u64 user_watch_vals[3];
u64 user_watch_armed[2];

static u64 user_watch(const struct gtp_tp *tp, enum gtp_watch_what what)
{
	return tp->watch_len ? user_watch_vals[what] : 0;
}

static int user_watch_arm(u32 tpnum, u64 addr)
{
	user_watch_armed[0] = tpnum;
	user_watch_armed[1] = addr;
	return 0;
}

/*
 * User memory: a test says whether a hit is in its task's context
 * (user_task_ctx), and what "collect $ustack" finds there
 * (user_ustack_depth addresses after user_ustack_text).
 */
bool user_task_ctx;
u32 user_ustack_depth;
u64 user_ustack_text = 0x555555554000ull;

static bool user_user_ok(const struct gtp_tp *tp)
{
	return user_task_ctx;
}

static u32 user_ustack(const struct gtp_tp *tp, u64 *text, u64 *buf, u32 max)
{
	u32 i, n = user_ustack_depth < max ? user_ustack_depth : max;

	if (!user_task_ctx)
		return 0;
	memcpy(text, &user_ustack_text, 8);
	for (i = 0; i < n; i++) {
		u64 v = user_ustack_text + 0x100 + 0x10 * i;

		memcpy(&buf[i], &v, 8);
	}
	return n;
}

/* Nothing attached to take away: the core's state is the test's to see. */
static void user_tripped(struct gtp_tp *tp)
{
}

u32 user_perf_open_kinds;
int user_perf_fail_open;
u64 user_perf_value[GTP_PERF_NR];

static int user_perf_open(struct gtp_conn *gc, u32 kinds)
{
	int err = user_perf_fail_open;

	if (err) {
		user_perf_fail_open = 0;
		gtp_console(gc, "gtp: no such counter (error %d)\n", -err);
		return -err;
	}
	user_perf_open_kinds = kinds;
	return 0;
}

static void user_perf_close(void)
{
	user_perf_open_kinds = 0;
}

static int user_perf_read(u32 kind, u64 *val)
{
	if (kind >= GTP_PERF_NR || !(user_perf_open_kinds & (1u << kind)))
		return -ENODEV;
	*val = user_perf_value[kind];
	return 0;
}

/* One made-up static event, so the consumer's definitions name fields. */
static int user_sdata_fields(u64 addr, char *buf, size_t size)
{
	return snprintf(buf, size, "counter1:4:s counter2:4:s");
}

static const void *user_jit_direct(u64 addr, u32 size, void **pin)
{
	return user_env_direct(addr, size, pin);
}

static const struct gtp_host_ops user_host = {
	.arm			= user_arm,
	.disarm			= user_disarm,
	.set_enabled		= user_set_enabled,
	.jit_enabled		= user_jit_enabled,
	.jit_off_reason		= user_jit_off_reason,
	.exec_alloc		= user_exec_alloc,
	.exec_install		= user_exec_install,
	.exec_free		= user_exec_free,
	.exec_want_endbr	= user_exec_want_endbr,
	.exec_return_thunk	= user_exec_return_thunk_of,
	.exec_call_depth	= user_exec_call_depth,
	.jit_direct		= user_jit_direct,
	.jit_unpin		= user_env_unpin,
	.kstack			= user_kstack,
	.entry_reg		= user_entry_reg,
	.caller			= user_caller,
	.kret_ns		= user_kret_ns,
	.user_ok		= user_user_ok,
	.ustack			= user_ustack,
	.watch			= user_watch,
	.watch_arm		= user_watch_arm,
	.tripped		= user_tripped,
	.perf_open		= user_perf_open,
	.perf_close		= user_perf_close,
	.perf_read		= user_perf_read,
	.sdata_fields		= user_sdata_fields,
};

__attribute__((constructor)) static void user_host_register(void)
{
	gtp_host_register(&user_host);
}
