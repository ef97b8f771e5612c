// SPDX-License-Identifier: GPL-2.0
/*
 * bind.c - direct loads: the step between jit_optimize() and jit_codegen()
 * that binds constant addresses to the host's memory (host.h jit_direct).
 *
 *   jit_bind_direct const A; refN -> one load from A, when the host
 *                   vouches that [A, A + N/8) stays mapped (host.h)
 *
 * Unlike an optimizer pass it asks the host and may take references (a
 * module pinned while the image can read its data), so it runs once, on
 * the final IR, and jit_unpin_all() gives the references back.
 */
#include "host.h"
#include "entryval.h"
#include "jit_internal.h"

static void kill(struct jit_insn *in)
{
	in->op = JIT_NOP;
}

static bool is_const(const struct jit_ir *ir, int i)
{
	return i >= 0 && ir->insn[i].op == AX_CONST64;
}

/**
 * jit_unpin_all - release what gtp_host->jit_direct() pinned
 * @pins: the pins (may be NULL), freed too
 * @npins: how many
 */
void jit_unpin_all(void **pins, u32 npins)
{
	u32 i;

	for (i = 0; i < npins; i++)
		gtp_host->jit_unpin(pins[i]);
	gtp_free(pins);
}

/**
 * jit_bind_direct - turn 'const A; ref8..64' into loads from the host
 * @ir: the optimized IR, rewritten in place
 *
 * const A; refN -> JIT_LOAD from the host's address for A, when the host
 * says the whole range stays readable while the image lives.  The load
 * replaces the ref (its err_pc: the fault budget still applies, see
 * codegen.c); the const goes.  Any pin the host took is kept in ir->pins
 * (ax_jit_compile() hands them to the program, or releases them).  Runs
 * after jit_optimize(): the passes know refs, not loads, and by now
 * 'const; ext 32' (gdb's encoding of a module address) has folded into
 * one const.
 *
 * Return: the number of loads bound.
 */
int jit_bind_direct(struct jit_ir *ir)
{
	const void *where;
	void *pin;
	int n = 0, p;
	u32 i, size;

	for (i = 0; i < ir->n; i++) {
		struct jit_insn *in = &ir->insn[i];

		if (in->op < AX_REF8 || in->op > AX_REF64)
			continue;
		p = jit_prev(ir, i);
		if (!is_const(ir, p))
			continue;
		size = 1U << (in->op - AX_REF8);
		/* the range must not wrap (ax_hook_read() refuses that) */
		if (ir->insn[p].imm + size - 1 < ir->insn[p].imm)
			continue;
		/* entry values are the hook's to give, never memory */
		if (gtp_ev_addr(ir->insn[p].imm))
			continue;
		if (!ir->pins) {
			ir->pins = gtp_zalloc(sizeof(*ir->pins) * ir->n);
			if (!ir->pins)
				return n;
		}
		pin = NULL;
		where = gtp_host->jit_direct(ir->insn[p].imm, size, &pin);
		if (!where)
			continue;
		if (pin)
			ir->pins[ir->npins++] = pin;
		kill(&ir->insn[p]);
		in->op = JIT_LOAD;
		in->ext = 8 * size;
		in->imm = (u64)(unsigned long)where;
		in->depth--;	/* before it: the const's depth */
		n++;
	}
	return n;
}
