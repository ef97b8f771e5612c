// SPDX-License-Identifier: GPL-2.0
/*
 * gtp_test_klp.ko - a live patch of cmdline_proc_show(), as the kernel's
 * samples/livepatch/livepatch-sample.c makes one: /proc/cmdline then
 * reads "gtp_test_klp: live patched".
 *
 * The e2e tests load it on a function where gtp has its own direct
 * trampoline (ftrace_direct.c): a live patch is an ftrace_ops with
 * FTRACE_OPS_FL_IPMODIFY, which ftrace lets share a function with a
 * direct trampoline only as that trampoline's ops agrees
 * (docs/kernels.md).  Loading it enables the patch; unloading needs
 * "echo 0 > /sys/kernel/livepatch/gtp_test_klp/enabled" first.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/livepatch.h>
#include <linux/seq_file.h>

static int patched_cmdline_proc_show(struct seq_file *m, void *v)
{
	seq_puts(m, "gtp_test_klp: live patched\n");
	return 0;
}

static struct klp_func funcs[] = {
	{
		.old_name = "cmdline_proc_show",
		.new_func = patched_cmdline_proc_show,
	}, { }
};

static struct klp_object objs[] = {
	{
		/* name NULL: vmlinux */
		.funcs = funcs,
	}, { }
};

static struct klp_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int __init gtp_test_klp_init(void)
{
	return klp_enable_patch(&patch);
}

static void __exit gtp_test_klp_exit(void)
{
}

module_init(gtp_test_klp_init);
module_exit(gtp_test_klp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("gtp's tests: a live patch of cmdline_proc_show()");
MODULE_INFO(livepatch, "Y");
