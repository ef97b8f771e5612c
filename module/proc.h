/* SPDX-License-Identifier: GPL-2.0 */
/*
 * proc.h - the module's proc files, as main.c wires them: /proc/gtp
 * (proc.c) and /proc/gtp_stream (stream.c).
 */
#ifndef GTP_PROC_H
#define GTP_PROC_H

#include <linux/mutex.h>
#include <linux/atomic.h>

/*
 * What main.c hands a proc file beside /proc/gtp at init, so that the
 * file calls nothing of proc.c by name.
 */
struct gtp_proc_access {
	struct mutex *lock;		/* gtp_mutex: excludes gdb's packets */
	/*
	 * Every open's first step: root, lockdown, one opener (the file's
	 * own @open_count), the module pinned.  0 or -errno.
	 */
	int (*claim)(atomic_t *open_count);
	void (*unclaim)(atomic_t *open_count);	/* the release's last */
};

/* proc.c: /proc/gtp, created last at init and removed first at exit */
extern const struct gtp_proc_access gtp_proc_access;
int gtp_proc_init(void);
void gtp_proc_exit(void);

/* stream.c: /proc/gtp_stream, the live consumer (core/stream.h) */
int gtp_stream_file_init(const struct gtp_proc_access *access);
void gtp_stream_file_exit(void);

#endif /* GTP_PROC_H */
