/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftrace_unreg.h - unregistering gtp's ftrace_ops; an ops the kernel
 * refused to let go (ftrace_unreg.c)
 */
#ifndef GTP_FTRACE_UNREG_H
#define GTP_FTRACE_UNREG_H

struct ftrace_ops;

int gtp_unregister_ftrace(struct ftrace_ops *ops);
void gtp_ftrace_pin(void);
void gtp_ftrace_leak(struct ftrace_ops *ops,
		     void (*release)(struct ftrace_ops *ops));
void gtp_ftrace_leaks_exit(void);

#endif /* GTP_FTRACE_UNREG_H */
