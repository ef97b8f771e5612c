// SPDX-License-Identifier: GPL-2.0
/*
 * stream.c - /proc/gtp_stream: the live consumer's file (core/stream.h).
 *
 * A second file beside /proc/gtp, so that streaming never disturbs the
 * gdb connected there: read() hands out the record stream (definitions,
 * then per-CPU sub-buffers as they fill, then END records once the run
 * stopped and drained).  read() never blocks and poll() is not offered:
 * the reader polls on its own timer, and the probe path wakes nobody.
 *
 * Same rules as /proc/gtp: root only, refused under lockdown, one opener.
 * Everything runs under gtp_mutex, which excludes gdb's packets (QTStart
 * resets the ring; tfind walks it) while records are taken and copied.
 */
#define pr_fmt(fmt) "gtp: " fmt

#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/uaccess.h>

#include "stream.h"
#include "gtp_glue.h"
#include "kcompat.h"

static struct proc_dir_entry *stream_proc;
static atomic_t stream_open_count = ATOMIC_INIT(0);

static int stream_file_open(struct inode *inode, struct file *file)
{
	struct gtp_stream *s;
	int ret;

	ret = gtp_proc_claim(&stream_open_count);
	if (ret)
		return ret;
	mutex_lock(&gtp_mutex);
	s = gtp_stream_open();
	mutex_unlock(&gtp_mutex);
	if (!s) {
		gtp_proc_unclaim(&stream_open_count);
		return -ENOMEM;
	}
	file->private_data = s;
	return stream_open(inode, file);
}

static int stream_file_release(struct inode *inode, struct file *file)
{
	mutex_lock(&gtp_mutex);
	gtp_stream_close(file->private_data);
	mutex_unlock(&gtp_mutex);
	gtp_proc_unclaim(&stream_open_count);
	return 0;
}

static int stream_copy(void *ctx, size_t off, const void *src, size_t n)
{
	return copy_to_user((char __user *)ctx + off, src, n) ? -EFAULT : 0;
}

static ssize_t stream_file_read(struct file *file, char __user *ubuf, size_t count,
			   loff_t *ppos)
{
	long ret;

	if (!count)
		return 0;
	/*
	 * copy_to_user() under gtp_mutex may fault in the reader's buffer;
	 * nothing that fault can reach takes gtp_mutex (no mmap here).
	 */
	if (mutex_lock_interruptible(&gtp_mutex))
		return -ERESTARTSYS;
	ret = gtp_stream_read(file->private_data, stream_copy,
			      (void __force *)ubuf, count);
	mutex_unlock(&gtp_mutex);
	return ret;
}

static const struct proc_ops stream_proc_ops = {
	.proc_open	= stream_file_open,
	.proc_release	= stream_file_release,
	.proc_read	= stream_file_read,
	.proc_lseek	= GTP_PROC_NO_LSEEK,
};

int gtp_stream_file_init(void)
{
	stream_proc = proc_create("gtp_stream", 0400, NULL, &stream_proc_ops);
	if (!stream_proc) {
		pr_err("cannot create /proc/gtp_stream\n");
		return -ENOMEM;
	}
	return 0;
}

void gtp_stream_file_exit(void)
{
	proc_remove(stream_proc);
}
