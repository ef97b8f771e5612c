// SPDX-License-Identifier: GPL-2.0
/*
 * gtp_test_kppost.ko - a kprobe with a post-handler on the entry of the
 * function named by func= (cmdline_proc_show() by default), counting the
 * calls of each handler in the read-only parameters pre and post.
 *
 * At a function's ftrace location, kprobes carry a kprobe that has a
 * post-handler on an ftrace_ops with FTRACE_OPS_FL_IPMODIFY (the handler
 * moves the ip past the call to run post_handler, then puts it back):
 * the other kind of ftrace user, beside a live patch (gtp_test_klp.ko),
 * that ftrace lets share a function with a direct trampoline only as the
 * trampoline's ops agrees (docs/kernels.md).  The e2e tests load it on a
 * function where gtp has its own trampoline; loading fails with the
 * kprobe's error if the kernel refuses it.
 */
#define pr_fmt(fmt) "gtp_test_kppost: " fmt

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>

static char *func = "cmdline_proc_show";
module_param(func, charp, 0444);
MODULE_PARM_DESC(func, "the function whose entry is probed");

/*
 * Counts for a test that checks lower bounds only: a lost update between
 * two CPUs' hits makes a count smaller, never larger.
 */
static unsigned long pre, post;
module_param(pre, ulong, 0444);
module_param(post, ulong, 0444);

static int kppost_pre(struct kprobe *p, struct pt_regs *regs)
{
	WRITE_ONCE(pre, pre + 1);
	return 0;
}

static void kppost_post(struct kprobe *p, struct pt_regs *regs,
			unsigned long flags)
{
	WRITE_ONCE(post, post + 1);
}

static struct kprobe kp = {
	.pre_handler = kppost_pre,
	.post_handler = kppost_post,
};

static int __init gtp_test_kppost_init(void)
{
	int ret;

	kp.symbol_name = func;
	ret = register_kprobe(&kp);
	if (ret)
		pr_info("%s: register_kprobe: %d\n", func, ret);
	else
		pr_info("%s probed at %px%s\n", func, kp.addr,
			kp.flags & KPROBE_FLAG_FTRACE ? " (ftrace)" : "");
	return ret;
}

static void __exit gtp_test_kppost_exit(void)
{
	unregister_kprobe(&kp);
}

module_init(gtp_test_kppost_init);
module_exit(gtp_test_kppost_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("gtp's tests: a kprobe with a post-handler on a function's entry");
