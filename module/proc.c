// SPDX-License-Identifier: GPL-2.0
/*
 * proc.c - /proc/gtp, the file gdb opens with "target remote".
 *
 * gdb treats the path as a serial line (protocol reference 5.2): it writes
 * packets and acks, select()s, then read()s the answers.  So the file keeps
 * two streams: write() feeds the RSP parser, which answers synchronously
 * into an output queue, and read() drains that queue.  read() blocks until
 * output exists and never returns 0 while the file is open (0 is EOF to
 * gdb: "Remote connection closed"); poll() reports exactly what read() and
 * write() would do.  The tty ioctls gdb issues (tcgetattr, tcsetattr,
 * tcflush) succeed as no-ops so that gdb prints no warnings.
 *
 * Only one connection exists at a time: the protocol state (no-ack mode,
 * selected frame) is per connection.  All packet handling runs under
 * gtp_mutex, which also serialises against module init/exit.
 *
 * It is the module's front door: main.c creates it last and removes it
 * first (gtp_proc_init(), gtp_proc_exit()), and hands /proc/gtp_stream
 * the same claim on opening (gtp_proc_access).
 */
#define pr_fmt(fmt) "gtp: " fmt

#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/poll.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <linux/capability.h>
#include <linux/sched/signal.h>

#include "packets.h"
#include "kcompat.h"
#include "services.h"
#include "proc.h"

#define GTP_IO_CHUNK	4096

/*
 * Each direction has its own bounce buffer and its own lock: copies to and
 * from user memory may fault and sleep, so they run outside gtp_mutex, and
 * two threads sharing the fd must not hand each other's bytes to the
 * parser or to the reader.
 */
struct gtp_file {
	struct gtp_conn *gc;
	struct mutex wlock, rlock;
	char wbuf[GTP_IO_CHUNK];	/* gdb -> parser */
	char rbuf[GTP_IO_CHUNK];	/* replies -> gdb */
};

static DECLARE_WAIT_QUEUE_HEAD(gtp_wait);
static atomic_t gtp_open_count = ATOMIC_INIT(0);
static bool gtp_exiting;		/* module exit: wake and refuse */

static struct proc_dir_entry *gtp_proc;

/* Lockless hints for wait conditions; re-checked under gtp_mutex. */
static size_t gtp_pending;
static bool gtp_room = true;

static void gtp_update_hints(struct gtp_conn *gc)
{
	lockdep_assert_held(&gtp_mutex);
	WRITE_ONCE(gtp_pending, rsp_out_pending(&gc->rsp));
	WRITE_ONCE(gtp_room, rsp_out_has_room(&gc->rsp));
}

/*
 * What opening any gtp proc file takes first: root only; under lockdown
 * refused as /proc/kcore and kprobe_events are; one opener at a time
 * (@open_count is that file's, 0 or 1); the module pinned while open.
 * Undone by proc_unclaim().  /proc/gtp_stream gets both through
 * gtp_proc_access.
 *
 * Return: 0, -EPERM, lockdown's error, -EBUSY or -ENODEV.
 */
static int proc_claim(atomic_t *open_count)
{
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	ret = gtp_locked_down();
	if (ret)
		return ret;
	if (atomic_cmpxchg(open_count, 0, 1))
		return -EBUSY;
	if (!try_module_get(THIS_MODULE)) {
		atomic_set(open_count, 0);
		return -ENODEV;
	}
	return 0;
}

static void proc_unclaim(atomic_t *open_count)
{
	atomic_set(open_count, 0);
	module_put(THIS_MODULE);
}

static int gtp_open(struct inode *inode, struct file *file)
{
	struct gtp_file *f;
	int ret;

	ret = proc_claim(&gtp_open_count);
	if (ret)
		return ret;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		goto err_put;
	mutex_init(&f->wlock);
	mutex_init(&f->rlock);
	mutex_lock(&gtp_mutex);
	f->gc = gtp_conn_open();
	if (f->gc)
		gtp_update_hints(f->gc);
	mutex_unlock(&gtp_mutex);
	if (!f->gc)
		goto err_free;

	file->private_data = f;
	return stream_open(inode, file);

err_free:
	kfree(f);
err_put:
	proc_unclaim(&gtp_open_count);
	return -ENOMEM;
}

static int gtp_release(struct inode *inode, struct file *file)
{
	struct gtp_file *f = file->private_data;

	mutex_lock(&gtp_mutex);
	gtp_conn_close(f->gc);
	mutex_unlock(&gtp_mutex);
	kfree(f);
	proc_unclaim(&gtp_open_count);
	return 0;
}

/* Wait until the output queue has room to start another packet. */
static int gtp_wait_room(struct file *file)
{
	if (file->f_flags & O_NONBLOCK)
		return -EAGAIN;
	return wait_event_interruptible(gtp_wait,
			READ_ONCE(gtp_room) || READ_ONCE(gtp_exiting));
}

static ssize_t gtp_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	struct gtp_file *f = file->private_data;
	size_t done = 0;
	int ret = 0;

	if (mutex_lock_interruptible(&f->wlock))
		return -ERESTARTSYS;
	while (done < count) {
		size_t n = min_t(size_t, count - done, GTP_IO_CHUNK), used;

		if (copy_from_user(f->wbuf, ubuf + done, n)) {
			ret = -EFAULT;
			break;
		}
		mutex_lock(&gtp_mutex);
		used = rsp_feed(&f->gc->rsp, f->wbuf, n);
		gtp_update_hints(f->gc);
		mutex_unlock(&gtp_mutex);
		wake_up_interruptible(&gtp_wait);
		done += used;
		if (used < n) {
			/* The reader must drain replies first. */
			ret = gtp_wait_room(file);
			if (ret || READ_ONCE(gtp_exiting))
				break;
		}
	}
	mutex_unlock(&f->wlock);
	if (done)
		return done;
	return ret ? ret : -ENODEV;
}

static ssize_t gtp_read(struct file *file, char __user *ubuf, size_t count,
			loff_t *ppos)
{
	struct gtp_file *f = file->private_data;
	size_t n;
	int ret;

	if (!count)
		return 0;
	if (mutex_lock_interruptible(&f->rlock))
		return -ERESTARTSYS;
	for (;;) {
		mutex_lock(&gtp_mutex);
		n = rsp_out_read(&f->gc->rsp, f->rbuf,
				 min_t(size_t, count, GTP_IO_CHUNK));
		gtp_update_hints(f->gc);
		mutex_unlock(&gtp_mutex);
		if (n)
			break;
		ret = 0;	/* the module is going: real EOF */
		if (READ_ONCE(gtp_exiting))
			goto out_unlock;
		ret = -EAGAIN;
		if (file->f_flags & O_NONBLOCK)
			goto out_unlock;
		ret = wait_event_interruptible(gtp_wait,
				READ_ONCE(gtp_pending) || READ_ONCE(gtp_exiting));
		if (ret)
			goto out_unlock;
	}
	wake_up_interruptible(&gtp_wait);	/* writers waiting for room */
	ret = copy_to_user(ubuf, f->rbuf, n) ? -EFAULT : n;
out_unlock:
	mutex_unlock(&f->rlock);
	return ret;
}

static __poll_t gtp_poll(struct file *file, poll_table *wait)
{
	__poll_t mask = 0;

	poll_wait(file, &gtp_wait, wait);
	if (READ_ONCE(gtp_pending))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (READ_ONCE(gtp_room))
		mask |= EPOLLOUT | EPOLLWRNORM;
	if (READ_ONCE(gtp_exiting))
		mask |= EPOLLHUP;
	return mask;
}

/*
 * gdb sets the "serial line" raw with tcgetattr/tcsetattr and flushes it
 * with tcflush.  Saying yes to every ioctl keeps gdb quiet; there is no
 * line to configure.
 */
static long gtp_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	return 0;
}

static const struct proc_ops gtp_proc_ops = {
	.proc_open		= gtp_open,
	.proc_release		= gtp_release,
	.proc_read		= gtp_read,
	.proc_write		= gtp_write,
	.proc_poll		= gtp_poll,
	.proc_ioctl		= gtp_ioctl,
#ifdef CONFIG_COMPAT
	.proc_compat_ioctl	= gtp_ioctl,
#endif
	.proc_lseek		= GTP_PROC_NO_LSEEK,
};

const struct gtp_proc_access gtp_proc_access = {
	.lock		= &gtp_mutex,
	.claim		= proc_claim,
	.unclaim	= proc_unclaim,
};

int gtp_proc_init(void)
{
	gtp_proc = proc_create("gtp", 0600, NULL, &gtp_proc_ops);
	if (!gtp_proc) {
		pr_err("cannot create /proc/gtp\n");
		return -ENOMEM;
	}
	return 0;
}

/* Readers and writers blocked on /proc/gtp wake to EOF, then it goes. */
void gtp_proc_exit(void)
{
	WRITE_ONCE(gtp_exiting, true);
	wake_up_interruptible_all(&gtp_wait);
	proc_remove(gtp_proc);
}
