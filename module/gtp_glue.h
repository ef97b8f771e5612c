/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gtp_glue.h - init/exit hooks of the kernel-only parts of gtp.ko.
 *
 * main.c calls these in order under gtp_mutex.  Each has a __weak empty
 * default in main.c, so an area that is not in the tree yet (or is built
 * without its file) costs nothing; its own file provides the real one.
 */
#ifndef GTP_GLUE_H
#define GTP_GLUE_H

#include <linux/mutex.h>

/* Serialises packet handling, module init/exit and probe (de)registration. */
extern struct mutex gtp_mutex;

int gtp_kprobe_init(void);
void gtp_kprobe_exit(void);
int gtp_static_tp_init(void);
void gtp_static_tp_exit(void);

#endif /* GTP_GLUE_H */
