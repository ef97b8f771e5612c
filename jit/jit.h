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
 * code is emitted into an ordinary buffer and installed into memory that
 * is read-only + executable before anything runs it.  Never W+X.
 */
#ifndef GTP_JIT_H
#define GTP_JIT_H

#include "ax.h"

int ax_jit_compile(struct ax_prog *prog, char *log, size_t logsz);
void ax_jit_free(struct ax_prog *prog);

/*
 * gtp_exec_alloc() reserves @size bytes where the image will run (near
 * kernel and module text; not necessarily writable: newer kernels hand
 * out read-only executable memory).  gtp_exec_install() writes @len bytes
 * of @code there, fills the rest of the allocation with int3 and leaves it
 * read-only + executable; the image runs only after it returned 0.
 */
void *gtp_exec_alloc(size_t size);
int gtp_exec_install(void *image, const void *code, size_t len, size_t alloc);
void gtp_exec_free(void *image, size_t size);

/* Start every image with endbr64 (the kernel enforces IBT). */
bool gtp_exec_want_endbr(void);

/*
 * gtp_jit_enabled(): false with the module's 'jit=0' parameter or without
 * executable memory; ax_jit_compile() then returns -EOPNOTSUPP and the
 * tracepoint is interpreted.  Always true in userspace.  Module side
 * (module/exec_mem.c): gtp_exec_init() from module init resolves the
 * allocator (otherwise the first gtp_jit_enabled() does), gtp_exec_exit()
 * from module exit after every image is freed.
 */
bool gtp_jit_enabled(void);

/* Why gtp_jit_enabled() is false, one line for gdb's console. */
const char *gtp_jit_off_reason(void);

/*
 * Where JIT code returns through instead of 'ret': the kernel's return
 * thunk when its retbleed/SRSO mitigation uses one (as the BPF JIT does),
 * else NULL.  NULL in userspace.
 */
void *gtp_exec_return_thunk(void);

int gtp_exec_init(void);
void gtp_exec_exit(void);

#endif /* GTP_JIT_H */
