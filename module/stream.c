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
 * Records are taken under gtp_mutex, which excludes gdb's packets
 * (QTStart resets the ring; tfind walks it), into a bounce buffer of the
 * open file; copy_to_user() runs after gtp_mutex is dropped.  Holding it
 * across the copy would let a reader whose buffer faults slowly (swap,
 * userfaultfd, a FUSE-backed mapping) stall gdb, tstop and every other
 * user of gtp for as long as it likes.  The stream has moved on by then:
 * a read whose buffer turns out bad returns -EFAULT and those bytes are
 * lost to that reader.
 */
#define pr_fmt(fmt) "gtp: " fmt

#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/uaccess.h>
#include <linux/slab.h>
#include <linux/mm.h>

#include "stream.h"
#include "proc.h"
#include "kcompat.h"

/* The most one read() hands out: the bounce buffer's size. */
#define STREAM_BOUNCE	(128 << 10)

struct stream_file {
	struct gtp_stream *s;
	struct mutex rlock;	/* one read at a time: the bounce buffer */
	u8 *bounce;
};

static struct proc_dir_entry *stream_proc;
static atomic_t stream_open_count = ATOMIC_INIT(0);
static const struct gtp_proc_access *stream_access;	/* main.c's, from init */

static int stream_file_open(struct inode *inode, struct file *file)
{
	struct stream_file *f;
	int ret;

	ret = stream_access->claim(&stream_open_count);
	if (ret)
		return ret;
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		goto err_unclaim;
	mutex_init(&f->rlock);
	f->bounce = kvmalloc(STREAM_BOUNCE, GFP_KERNEL);
	if (!f->bounce)
		goto err_free;
	mutex_lock(stream_access->lock);
	f->s = gtp_stream_open();
	mutex_unlock(stream_access->lock);
	if (!f->s)
		goto err_free;
	file->private_data = f;
	return stream_open(inode, file);

err_free:
	kvfree(f->bounce);
	kfree(f);
err_unclaim:
	stream_access->unclaim(&stream_open_count);
	return -ENOMEM;
}

static int stream_file_release(struct inode *inode, struct file *file)
{
	struct stream_file *f = file->private_data;

	mutex_lock(stream_access->lock);
	gtp_stream_close(f->s);
	mutex_unlock(stream_access->lock);
	kvfree(f->bounce);
	kfree(f);
	stream_access->unclaim(&stream_open_count);
	return 0;
}

static int stream_copy(void *ctx, size_t off, const void *src, size_t n)
{
	memcpy((u8 *)ctx + off, src, n);
	return 0;
}

static ssize_t stream_file_read(struct file *file, char __user *ubuf, size_t count,
			   loff_t *ppos)
{
	struct stream_file *f = file->private_data;
	long ret;

	if (!count)
		return 0;
	count = min_t(size_t, count, STREAM_BOUNCE);
	if (mutex_lock_interruptible(&f->rlock))
		return -ERESTARTSYS;
	if (mutex_lock_interruptible(stream_access->lock)) {
		mutex_unlock(&f->rlock);
		return -ERESTARTSYS;
	}
	ret = gtp_stream_read(f->s, stream_copy, f->bounce, count);
	mutex_unlock(stream_access->lock);
	/* the reader sees only "Message too long": say which message */
	if (ret == -EMSGSIZE)
		pr_warn_ratelimited("a line of the run's definitions is longer than a DEFS record holds: the run cannot be streamed\n");
	/* outside gtp_mutex: this may fault and wait on the reader's memory */
	if (ret > 0 && copy_to_user(ubuf, f->bounce, ret))
		ret = -EFAULT;
	mutex_unlock(&f->rlock);
	return ret;
}

static const struct proc_ops stream_proc_ops = {
	.proc_open	= stream_file_open,
	.proc_release	= stream_file_release,
	.proc_read	= stream_file_read,
	.proc_lseek	= GTP_PROC_NO_LSEEK,
};

int gtp_stream_file_init(const struct gtp_proc_access *access)
{
	stream_access = access;
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
