// SPDX-License-Identifier: GPL-2.0
/*
 * gtp_test.ko - the workload of Fahem & Dagenais, Fig. 10/11/13.
 *
 * gtp_test_function(counter1, counter2) increments a global and fires the
 * gtp_test:gtp_test_event TRACE_EVENT.  Writing N to /proc/gtp_test runs
 * the Fig. 11 loop N times:
 *
 *	counter1++; gtp_test_function(counter1, counter2); counter2++;
 *
 * starting from counter1 = counter2 = 0, so the calls are (1,0), (2,1),
 * (3,2)...  Reading /proc/gtp_test prints "calls=N cycles=C" for the last
 * run, C being TSC cycles around the whole loop: benchmarks divide by N.
 *
 * Built with -g so that gdb resolves the arguments counter1/counter2 at
 * gtp_test_function (and the globals loop_counter1/loop_counter2, which
 * mirror the loop's state, for conditions on globals).
 */
#define pr_fmt(fmt) "gtp_test: " fmt

#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/uaccess.h>
#include <linux/kstrtox.h>
#include <linux/mutex.h>
#include <asm/msr.h>

#define CREATE_TRACE_POINTS
#include "gtp_test_trace.h"

/* Globals gdb can name in conditions and collect actions. */
int gtp_test_calls;
int loop_counter1;
int loop_counter2;
EXPORT_SYMBOL_GPL(gtp_test_calls);

static DEFINE_MUTEX(gtp_test_lock);
static unsigned long last_calls;
static u64 last_cycles;

noinline int gtp_test_function(int counter1, int counter2)
{
	gtp_test_calls++;
	trace_gtp_test_event(counter1, counter2);
	/* keep the call and its arguments from being optimized away */
	barrier();
	return counter1 + counter2;
}
EXPORT_SYMBOL_GPL(gtp_test_function);

static void gtp_test_loop(unsigned long n)
{
	unsigned long i;
	u64 t0, t1;

	loop_counter1 = 0;
	loop_counter2 = 0;
	t0 = rdtsc_ordered();
	for (i = 0; i < n; i++) {
		WRITE_ONCE(loop_counter1, loop_counter1 + 1);
		gtp_test_function(READ_ONCE(loop_counter1),
				  READ_ONCE(loop_counter2));
		WRITE_ONCE(loop_counter2, loop_counter2 + 1);
	}
	t1 = rdtsc_ordered();
	last_calls = n;
	last_cycles = t1 - t0;
}

static ssize_t gtp_test_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	unsigned long n;
	int ret;

	ret = kstrtoul_from_user(ubuf, count, 0, &n);
	if (ret)
		return ret;
	mutex_lock(&gtp_test_lock);
	gtp_test_loop(n);
	mutex_unlock(&gtp_test_lock);
	return count;
}

static ssize_t gtp_test_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char buf[64];
	int len;

	mutex_lock(&gtp_test_lock);
	len = scnprintf(buf, sizeof(buf), "calls=%lu cycles=%llu\n",
			last_calls, last_cycles);
	mutex_unlock(&gtp_test_lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct proc_ops gtp_test_ops = {
	.proc_read = gtp_test_read,
	.proc_write = gtp_test_write,
	.proc_lseek = default_llseek,
};

static int __init gtp_test_init(void)
{
	if (!proc_create("gtp_test", 0600, NULL, &gtp_test_ops)) {
		pr_err("cannot create /proc/gtp_test\n");
		return -ENOMEM;
	}
	return 0;
}

static void __exit gtp_test_exit(void)
{
	remove_proc_entry("gtp_test", NULL);
}

module_init(gtp_test_init);
module_exit(gtp_test_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("gtp test workload: the paper's Fig. 11 loop and test event");
