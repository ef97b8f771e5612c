/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jit.h - compile a verified agent expression (struct ax_prog) to x86-64.
 *
 * ax_jit_compile() either sets prog->jit/jit_image/jit_size and returns 0,
 * or returns -errno with a one-line reason in @log and leaves prog->jit NULL:
 * the caller then interprets (never refuses the tracepoint because of us).
 * The compiled function has the same semantics as ax_interp(), errors
 * included.
 *
 * Executable memory comes from the three gtp_exec_* hooks, implemented by
 * the module (module/exec_mem.c) and by userspace (tests/unit/user_exec.c):
 * memory is writable while we emit and is sealed read-only + executable
 * before anything runs it.  Never W+X.
 */
#ifndef GTP_JIT_H
#define GTP_JIT_H

#include "ax.h"

int ax_jit_compile(struct ax_prog *prog, char *log, size_t logsz);
void ax_jit_free(struct ax_prog *prog);

void *gtp_exec_alloc(size_t size);		/* RW, not executable */
int gtp_exec_seal(void *image, size_t size);	/* -> RO + X */
void gtp_exec_free(void *image, size_t size);

/*
 * gtp_jit_enabled(): false with the module's 'jit=0' parameter or without
 * executable memory; ax_jit_compile() then returns -EOPNOTSUPP and the
 * tracepoint is interpreted.  Always true in userspace.  Module side
 * (module/exec_mem.c): gtp_exec_init() from module init resolves the
 * allocator (otherwise the first gtp_jit_enabled() does), gtp_exec_exit()
 * from module exit after every image is freed.
 */
bool gtp_jit_enabled(void);

/*
 * Where JIT code returns through instead of 'ret': the kernel's return
 * thunk when its retbleed/SRSO mitigation uses one (as the BPF JIT does),
 * else NULL.  NULL in userspace.
 */
void *gtp_exec_return_thunk(void);

int gtp_exec_init(void);
void gtp_exec_exit(void);

#endif /* GTP_JIT_H */
