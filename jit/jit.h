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
 * Executable memory comes from the host (host.h: exec_alloc, exec_install,
 * exec_free; module/services/exec_mem.c in gtptrace.ko, tests/unit/user_exec.c in
 * userspace): code is emitted into an ordinary buffer and installed into
 * memory that is read-only + executable before anything runs it.  Never
 * W+X.
 */
#ifndef GTP_JIT_H
#define GTP_JIT_H

#include "ax.h"

int ax_jit_compile(struct ax_prog *prog, char *log, size_t logsz);

/* A condition compiled as a probe function (ax_jit_probe_compile()). */
struct ax_jit_probe {
	void *entry;	/* NULL: none */
	u32 size;
};

/* How a probe is called (ax_jit_probe_compile()'s @flags). */
#define AX_JIT_PROBE_COUNT_CALL	0x1	/* by a call the kernel does not count */
#define AX_JIT_PROBE_PT_REGS	0x2	/* as handler(p, struct pt_regs *) */
#define AX_JIT_PROBE_SAVE_SCRATCH 0x4	/* its hit gets what it computes in */

int ax_jit_probe_compile(struct ax_prog *prog, void *hit, void *ctx,
			 unsigned int flags, struct ax_jit_probe *out,
			 char *log, size_t logsz);
void ax_jit_probe_free(struct ax_jit_probe *probe);
void ax_jit_free(struct ax_prog *prog);
bool ax_jit_holds(const struct ax_prog *prog, const void *pin);

#endif /* GTP_JIT_H */
