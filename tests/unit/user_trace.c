// SPDX-License-Identifier: GPL-2.0
/*
 * user_trace.c - the host services of host.h for userspace tests.
 *
 * "Attaching" records nothing but a pointer (a test hits tracepoints by
 * calling gtp_tp_hit() itself); user_trace_fail_arm makes the next arm
 * fail the way a kernel refusal does.  The frame lock is a mutex; built-in
 * variables return fixed, recognisable values.
 */
#include <pthread.h>
#include <time.h>

#include "host.h"
#include "tracepoint.h"
#include "jit.h"

int user_trace_fail_arm;	/* errno to fail the next gtp_host_arm() */
int user_trace_armed;

int gtp_host_arm(struct gtp_conn *gc)
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

void gtp_host_disarm(void)
{
	struct gtp_tp *tp;

	for (tp = gtp_tps; tp; tp = tp->next)
		tp->probe = NULL;
	user_trace_armed = 0;
}

void gtp_host_set_enabled(struct gtp_tp *tp, bool enabled)
{
}

u64 gtp_host_time_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (u64)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

s64 gtp_host_builtin_tsv(enum gtp_builtin_tsv kind)
{
	return 1000 + kind;
}

/* Until the JIT is in the tree every program is interpreted. */
__attribute__((weak)) int ax_jit_compile(struct ax_prog *prog, char *log,
					 size_t logsz)
{
	return -EOPNOTSUPP;
}

__attribute__((weak)) void ax_jit_free(struct ax_prog *prog)
{
}
