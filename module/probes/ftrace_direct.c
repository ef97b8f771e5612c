// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace_direct.c - an entry tracepoint's condition as the function's own
 * ftrace trampoline (several tracepoints' joined into one by
 * ftrace_probe.c, ax_cond_any()).
 *
 * An entry tracepoint whose condition the JIT can decide on the argument
 * registers alone (ax_jit_probe_compile(): pure, no memory, cannot fail)
 * needs neither ftrace's trampoline with its register save nor our
 * callback's lookup: the compiled condition is itself the trampoline,
 * called straight from the function's __fentry__ site through ftrace's
 * direct-call API (an ftrace_ops of its own, filtered on the one
 * location).  A false condition is the call, the compare and the return
 * (and the pushes of the flags and the registers the compare computes in:
 * a frame holds those as the function got them, as the ops' frames do,
 * AX_JIT_PROBE_SAVE_SCRATCH); a true one jumps to gtp_direct_held
 * (ftrace_direct_entry.S), which saves the registers and hands the hit
 * to the ftrace path
 * (gtp_fdirect_hit(), ftrace_probe.c), which runs it as its ops run
 * theirs.
 *
 * ftrace allows one direct trampoline per function: another direct user
 * there (a BPF fentry program, another module's trampoline) makes
 * registering fail with -EBUSY, and the tracepoint stays with the shared
 * ops (ftrace_probe.c decides).  Other ftrace users on the function keep
 * working: ftrace then calls them and our trampoline in turn.  One that
 * changes the ip (a live patch) shares the function only as we agree
 * (fdirect_ops_func()).
 *
 * The trampoline is entered by a call the kernel's call thunks did not
 * count, so it counts it first where the kernel tracks call depth (as
 * ftrace's own trampolines and BPF's do), returns through the kernel's
 * return thunk, and starts with endbr64 on IBT kernels.
 *
 * Unregistering waits until no CPU is in the trampoline or was preempted
 * there (ftrace's RCU-tasks grace periods for a dynamic ops), then the
 * image goes.  That wait is per ops: ftrace_probe.c gives trampolines of
 * their own only to small traces.
 */
#define pr_fmt(fmt) "gtp: " fmt

#include <linux/ftrace.h>
#include <linux/slab.h>

#include "ax.h"
#include "jit.h"
#include "tracepoint.h"
#include "kcompat.h"
#include "services.h"
#include "ftrace_direct.h"

struct gtp_fdirect {
	struct ftrace_ops ops;
	struct ax_jit_probe probe;
	unsigned long ip;
	bool ipmodify_peer;	/* an IPMODIFY ops shares the function */
};

/*
 * ftrace asks a direct ops before an ftrace_ops that changes the ip (a
 * live patch; a kprobe with a post-handler, which kprobes carry with
 * FTRACE_OPS_FL_IPMODIFY) may share its function, whichever comes first;
 * with no ops_func it answers -EBUSY for us, and the live patch fails to
 * load.  Our trampoline never calls the function: it returns to the
 * address on the stack, which with a peer is where the peer's handler
 * sent the call (ftrace's caller runs the peer, then "returns" into us
 * with that address under our return address).  So it works unchanged
 * beside one: agree, and remember it for `attached`.  Called under
 * ftrace's direct_mutex: a flag, nothing more.
 */
static int fdirect_ops_func(GTP_OPS_FUNC_ARGS(ops, cmd))
{
	struct gtp_fdirect *d = container_of(ops, struct gtp_fdirect, ops);

	switch (cmd) {
	case FTRACE_OPS_CMD_ENABLE_SHARE_IPMODIFY_SELF:
	case FTRACE_OPS_CMD_ENABLE_SHARE_IPMODIFY_PEER:
		WRITE_ONCE(d->ipmodify_peer, true);
		return 0;
	case FTRACE_OPS_CMD_DISABLE_SHARE_IPMODIFY_PEER:
		WRITE_ONCE(d->ipmodify_peer, false);
		return 0;
	}
	return -EINVAL;
}

/* Does an ftrace_ops that changes the ip share @d's function now? */
bool gtp_fdirect_ipmodify_peer(const struct gtp_fdirect *d)
{
	return READ_ONCE(d->ipmodify_peer);
}

/* ftrace_direct_entry.S */
void gtp_direct_held(void);

/**
 * gtp_fdirect_attach - @cond as the trampoline of the function at @ip
 * @cond: a pure condition with a JIT image (the probe is compiled here)
 * @ip: the function's ftrace location
 * @fp: what the trampoline hands gtp_fdirect_hit() when @cond holds
 * @err: the reason on failure
 *
 * Return: the attachment, registered, or NULL: -EINVAL (the JIT cannot
 * compile @cond so), -EBUSY (another direct trampoline is there), or
 * what ftrace or the JIT said.
 */
struct gtp_fdirect *gtp_fdirect_attach(struct ax_prog *cond, unsigned long ip,
				       void *fp, int *err)
{
	struct gtp_fdirect *d;
	char log[96];
	int ret = -ENOMEM;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		goto out;
	ret = gtp_tp_jit_probe(cond, gtp_direct_held, fp,
			       AX_JIT_PROBE_COUNT_CALL |
			       AX_JIT_PROBE_SAVE_SCRATCH, &d->probe, log,
			       sizeof(log));
	if (ret)
		goto err_free;
	d->ops.ops_func = fdirect_ops_func;
	ret = ftrace_set_filter_ip(&d->ops, ip, 0, 1);
	if (ret)
		goto err_filter;
	ret = gtp_register_ftrace_direct(&d->ops,
					 (unsigned long)d->probe.entry);
	if (ret)
		goto err_filter;
	d->ip = ip;
	return d;

err_filter:
	ftrace_free_filter(&d->ops);
	gtp_tp_jit_probe_free(&d->probe);
err_free:
	kfree(d);
out:
	*err = ret;
	return NULL;
}

/**
 * gtp_fdirect_detach - unregister and free
 * @d: from gtp_fdirect_attach()
 *
 * Return: true when gone; false when ftrace refused (it shut itself
 * down): @d stays allocated and its trampoline may still run, so what it
 * hands over must stay too (ftrace_probe.c keeps it, as it keeps an ops
 * ftrace refused to detach).
 */
bool gtp_fdirect_detach(struct gtp_fdirect *d)
{
	int ret = gtp_unregister_ftrace_direct(&d->ops,
					       (unsigned long)d->probe.entry);

	if (ret) {
		pr_warn("ftrace refused to detach the trampoline at 0x%lx (error %d): it is kept, and gtptrace stays loaded until reboot\n",
			d->ip, ret);
		return false;
	}
	gtp_tp_jit_probe_free(&d->probe);
	kfree(d);
	return true;
}
