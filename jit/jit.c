// SPDX-License-Identifier: GPL-2.0
/*
 * jit.c - ax_jit_compile(): verified agent expression -> sealed x86-64.
 *
 *   jit_decode()    IR, one insn per bytecode insn     (jit/ir.c)
 *   jit_optimize()  local rewriting passes              (jit/opt.c)
 *   jit_bind_direct() constant addresses -> direct loads, pinning what
 *                   they read                          (jit/bind.c)
 *   jit_codegen()   converging emission into a staging buffer (jit/codegen.c)
 *   gtp_host->exec_install() bytes -> read-only executable image; only then is
 *                   prog->jit set
 *
 * ax_jit_probe_compile() runs the same steps for a condition compiled as a
 * probe function of its own (no direct loads: it reads no memory).
 *
 * Any failure leaves prog->jit NULL and returns -errno with a reason: the
 * caller interprets instead.  Nothing here runs in probe context.
 */
#include "jit.h"
#include "host.h"
#include "jit_internal.h"

/* Failure: the IR, and the pins nobody took over. */
static void ir_release(struct jit_ir *ir)
{
	jit_unpin_all(ir->pins, ir->npins);
	ir->pins = NULL;
	ir->npins = 0;
	jit_ir_free(ir);
}

/*
 * Decode, optimize, bind direct loads (not for a probe, which reads no
 * memory), generate and install.  On success @img is installed and @ir
 * holds what binding pinned; on failure both are released.
 */
static int build(struct ax_prog *prog, const struct jit_probe_target *probe,
		 struct jit_ir *ir, struct jit_image *img, char *log,
		 size_t logsz)
{
	int err;

	if (!gtp_host->jit_enabled()) {
		scnprintf(log, logsz, "%s", gtp_host->jit_off_reason());
		return -EOPNOTSUPP;
	}
	err = jit_decode(prog, ir);
	if (err) {
		scnprintf(log, logsz, "jit: cannot decode program (error %d)",
			  err);
		return err;
	}
	jit_optimize(ir);
	if (!probe)
		jit_bind_direct(ir);
	err = jit_codegen(ir, probe, img, log, logsz);
	if (err) {
		ir_release(ir);
		return err;
	}

	err = gtp_host->exec_install(img->image, img->code, img->size,
				     img->alloc);
	gtp_vfree(img->code);
	if (err) {
		scnprintf(log, logsz, "jit: cannot install image (error %d)",
			  err);
		gtp_host->exec_free(img->image, img->alloc);
		ir_release(ir);
		return err;
	}
	return 0;
}

/**
 * ax_jit_compile - compile a verified program
 * @prog: from ax_verify(); on success prog->jit, jit_image, jit_size are set
 * @log: a one-line reason on failure
 * @logsz: bytes at @log
 *
 * Return: 0 or -errno: -EOPNOTSUPP when the JIT is disabled (jit=0, no
 * executable memory), -ENOMEM, -EINVAL (an op the JIT does not know: the
 * verifier admitted something new), -EFAULT (a JIT bug, reported rather
 * than run).
 */
int ax_jit_compile(struct ax_prog *prog, char *log, size_t logsz)
{
	struct jit_ir ir;
	struct jit_image img;
	int err;

	prog->jit = NULL;
	prog->jit_image = NULL;
	prog->jit_size = 0;

	err = build(prog, NULL, &ir, &img, log, logsz);
	if (err)
		return err;
	/* the image's direct loads need these for as long as it lives */
	prog->jit_pins = ir.pins;
	prog->jit_npins = ir.npins;
	ir.pins = NULL;
	ir.npins = 0;
	jit_ir_free(&ir);
	prog->jit_image = img.image;
	prog->jit_size = img.size;	/* code bytes (the disassembler's) */
	prog->jit = (u64 (*)(struct ax_env *))img.image;
	return 0;
}

/**
 * ax_jit_probe_compile - compile a condition as a probe of its own
 * @prog: a condition from ax_verify()
 * @hit: where the probe jumps when the condition holds
 * @ctx: if not NULL, in r11 at that jump (the hit's context, for probes
 *       whose caller passes none)
 * @flags: AX_JIT_PROBE_COUNT_CALL: the probe is called by a patched call
 *       the kernel's call thunks do not count (an ftrace direct call):
 *       where the kernel tracks call depth, its entry counts it, as the
 *       kernel's own ftrace trampolines and BPF's do.
 *       AX_JIT_PROBE_PT_REGS: the probe is a handler(p, regs) returning 0
 *       (a kprobe's pre-handler): it reads registers from the struct
 *       pt_regs its second argument points to, any of them, and jumps to
 *       @hit with both arguments as it got them.
 *       AX_JIT_PROBE_SAVE_SCRATCH: the hit records every register as the
 *       probe got them (a function's entry, whose ftrace callers record
 *       them all): the flags, rax, r10 and r11 as the probe got them are
 *       on the stack at the jump, [rsp] r11, [rsp + 8] r10, [rsp + 16]
 *       rax, [rsp + 24] flags, above them the probe's return address;
 *       the hit pops them before it returns.  Not with
 *       AX_JIT_PROBE_PT_REGS
 * @out: on success the probe's entry and size, freed by ax_jit_probe_free()
 *       once nothing can call it any more; its owner is the attachment
 * @log: a one-line reason on failure
 * @logsz: bytes at @log
 *
 * The probe is called as a probe function, with what the condition reads
 * in the registers it names (a tracepoint's probe(data, args...) at
 * __traceiter_EVENT, a function's arguments at its __fentry__ call): it
 * decides the condition on those registers, returns when it is false, and
 * jumps to @hit with every argument and callee-saved register as it got
 * them when it is true.  Only conditions that can fail in nothing and read
 * nothing but those registers compile (codegen.c's probe_ok()); -EINVAL
 * for any other.  A pt_regs probe reads them from memory it was handed,
 * which is no different: the caller saved them there.
 *
 * Return: 0 or -errno, as ax_jit_compile().
 */
int ax_jit_probe_compile(struct ax_prog *prog, void *hit, void *ctx,
			 unsigned int flags, struct ax_jit_probe *out,
			 char *log, size_t logsz)
{
	struct jit_probe_target tgt = {
		.hit = hit, .ctx = ctx,
		.count_call = flags & AX_JIT_PROBE_COUNT_CALL,
		.pt_regs = flags & AX_JIT_PROBE_PT_REGS,
		.save_scratch = flags & AX_JIT_PROBE_SAVE_SCRATCH,
	};
	struct jit_ir ir;
	struct jit_image img;
	int err;

	out->entry = NULL;
	out->size = 0;
	if (tgt.pt_regs && tgt.save_scratch) {
		/* a handler's registers are in its block already */
		scnprintf(log, logsz, "jit: a pt_regs probe saves no registers");
		return -EINVAL;
	}
	err = build(prog, &tgt, &ir, &img, log, logsz);
	if (err)
		return err;
	jit_ir_free(&ir);
	out->entry = img.image;
	out->size = img.size;
	return 0;
}

/**
 * ax_jit_probe_free - release a probe
 * @probe: from ax_jit_probe_compile(), or empty
 *
 * Only once nothing can call it any more (the probe is unregistered and
 * every call of it has returned).
 */
void ax_jit_probe_free(struct ax_jit_probe *probe)
{
	if (!probe->entry)
		return;
	gtp_host->exec_free(probe->entry, probe->size);
	probe->entry = NULL;
	probe->size = 0;
}

/**
 * ax_jit_free - release a program's image
 * @prog: the program; interpreted from now on
 *
 * Only once nothing can run it any more: the caller has unregistered the
 * probes using @prog (and waited for running handlers).  The exec layer
 * knows its own allocation size; jit_size is only the code's.
 */
void ax_jit_free(struct ax_prog *prog)
{
	if (!prog->jit_image)
		return;
	prog->jit = NULL;
	gtp_host->exec_free(prog->jit_image, prog->jit_size);
	prog->jit_image = NULL;
	prog->jit_size = 0;
	/* no code that loads directly from pinned memory is left */
	jit_unpin_all(prog->jit_pins, prog->jit_npins);
	prog->jit_pins = NULL;
	prog->jit_npins = 0;
}

/**
 * ax_jit_holds - does @prog's image load directly from what @pin holds?
 * @prog: a program, or NULL
 * @pin: one of gtp_host->jit_direct()'s pins
 *
 * Return: true if @prog has an image and it holds @pin.
 */
bool ax_jit_holds(const struct ax_prog *prog, const void *pin)
{
	u32 i;

	for (i = 0; prog && prog->jit && i < prog->jit_npins; i++)
		if (prog->jit_pins[i] == pin)
			return true;
	return false;
}
