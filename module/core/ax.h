/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ax.h - GDB agent expressions: the verified program, its evaluation
 * environment, and the three consumers (verifier, interpreter, JIT).
 *
 *   bytecode (from QTDP) --ax_verify()--> struct ax_prog (decoded insns)
 *                                          |            |
 *                                   ax_interp()     ax_jit_compile() (jit/)
 *                                          \            /
 *                                  u64 result, env->err (same semantics)
 *
 * Nothing executes bytecode that ax_verify() has not accepted.  The JIT and
 * the interpreter must agree on every program and every input, errors
 * included: the interpreter is the reference (tests/unit, make fuzz-jit).
 *
 * Opcode values and semantics are gdb's gdbsupport/ax.def; multi-byte
 * operands are big-endian in the bytecode.
 */
#ifndef GTP_AX_H
#define GTP_AX_H

#include "compat.h"

struct ax_env;

enum ax_opcode {
	AX_FLOAT = 0x01, AX_ADD = 0x02, AX_SUB = 0x03, AX_MUL = 0x04,
	AX_DIV_SIGNED = 0x05, AX_DIV_UNSIGNED = 0x06,
	AX_REM_SIGNED = 0x07, AX_REM_UNSIGNED = 0x08,
	AX_LSH = 0x09, AX_RSH_SIGNED = 0x0a, AX_RSH_UNSIGNED = 0x0b,
	AX_TRACE = 0x0c, AX_TRACE_QUICK = 0x0d, AX_LOG_NOT = 0x0e,
	AX_BIT_AND = 0x0f, AX_BIT_OR = 0x10, AX_BIT_XOR = 0x11,
	AX_BIT_NOT = 0x12, AX_EQUAL = 0x13, AX_LESS_SIGNED = 0x14,
	AX_LESS_UNSIGNED = 0x15, AX_EXT = 0x16,
	AX_REF8 = 0x17, AX_REF16 = 0x18, AX_REF32 = 0x19, AX_REF64 = 0x1a,
	AX_REF_FLOAT = 0x1b, AX_REF_DOUBLE = 0x1c, AX_REF_LONG_DOUBLE = 0x1d,
	AX_L_TO_D = 0x1e, AX_D_TO_L = 0x1f,
	AX_IF_GOTO = 0x20, AX_GOTO = 0x21,
	AX_CONST8 = 0x22, AX_CONST16 = 0x23, AX_CONST32 = 0x24,
	AX_CONST64 = 0x25, AX_REG = 0x26, AX_END = 0x27, AX_DUP = 0x28,
	AX_POP = 0x29, AX_ZERO_EXT = 0x2a, AX_SWAP = 0x2b,
	AX_GETV = 0x2c, AX_SETV = 0x2d, AX_TRACEV = 0x2e,
	AX_TRACENZ = 0x2f, AX_TRACE16 = 0x30, AX_INVALID2 = 0x31,
	AX_PICK = 0x32, AX_ROT = 0x33, AX_PRINTF = 0x34,
};

#define AX_MAX_CODE	1024	/* bytes of bytecode accepted (gdb sends <= 184) */
#define AX_MAX_STACK	64	/* verified bound on stack depth */
#define AX_STEP_BUDGET	65536	/* insns one probe hit may run, all programs */
#define AX_NR_GDB_REGS	18	/* reg 0..17 = rax..r15, rip, eflags (gdb amd64 numbers) */

/* Why an evaluation stopped early (env->err).  0 = ran to 'end'. */
enum ax_error {
	AX_ERR_NONE = 0,
	AX_ERR_MEM,		/* ref* on an unreadable address */
	AX_ERR_DIV0,		/* div/rem by zero */
	AX_ERR_BUDGET,		/* the hit's step budget is spent */
	AX_ERR_TRACE,		/* a trace helper failed (frame full) */
	AX_ERR_REG,		/* reg N the context cannot supply */
	AX_ERR_TSV,		/* getv/setv: the hook refused the variable */
	AX_ERR_INTERNAL,	/* an insn ax_verify() should have refused */
};

/*
 * Evaluation semantics where C or gdb leave a choice.  ax_interp() defines
 * them and the JIT must produce the same result, env->err and env->err_pc.
 *
 *  - On any error: evaluation stops at the failing insn, env->err is set,
 *    env->err_pc = that insn's bytecode offset, and the return value is 0.
 *    Hook side effects of earlier insns (trace, setv) are not undone.
 *  - Shifts (lsh, rsh_signed, rsh_unsigned): the count is b & 63, as the
 *    x86 shl/sar/shr instructions do.  So "x lsh 64" = x, "x lsh 65" = x << 1.
 *  - div_signed/rem_signed: b == 0 -> AX_ERR_DIV0.  INT64_MIN / -1 is
 *    INT64_MIN (wraps), INT64_MIN % -1 is 0 (no trap).  Quotients truncate
 *    toward zero, the remainder has the sign of the dividend (C99).
 *    div_unsigned/rem_unsigned: b == 0 -> AX_ERR_DIV0.
 *  - ext n (1..64, verified): n == 64 is a no-op, else sign-extend bit n-1.
 *    zero_ext n (1..64): n == 64 is a no-op, else keep the low n bits.
 *  - Comparisons and log_not push 1 or 0.  const* are zero-extended.
 *  - tracev pushes nothing; setv leaves its value on the stack.
 *  - ref8..ref64: ax_hook_read() of 1/2/4/8 bytes in target (little-endian)
 *    byte order, zero-extended; a failed read -> AX_ERR_MEM.
 *  - trace/tracenz: the size on the stack is a u64; above U32_MAX the insn
 *    stops with AX_ERR_TRACE without calling the hook.  trace_quick/trace16
 *    pass their operand (0 is allowed: flexible array members).  Any hook
 *    failure (trace, tracev) -> AX_ERR_TRACE; getv/setv -> AX_ERR_TSV.
 *  - reg N with env->regs == NULL -> AX_ERR_REG.
 *  - Step budget (ax_run() sets env->steps = AX_STEP_BUDGET; a probe hit
 *    sets it once for its condition and all its actions): every
 *    evaluation first costs prog->ninsns steps, the most insns it can run
 *    without a backward jump; if env->steps < ninsns it stops at once
 *    with AX_ERR_BUDGET (err_pc 0, nothing run, steps unchanged), else
 *    env->steps -= ninsns.  Then a *taken* backward jump from insn index
 *    j to target index t (t <= j) costs span = j - t + 1 steps: if
 *    env->steps < span the jump stops with AX_ERR_BUDGET (err_pc = the
 *    jump), else env->steps -= span.  Forward jumps cost nothing more.
 *    An evaluation runs at most ninsns + (the spans it paid) insns, so
 *    the steps charged bound the insns run: one hit never runs more than
 *    AX_STEP_BUDGET insns in all, straight-line code included.
 *  - Result: the top of stack at 'end', or 0 when the stack is empty.
 */

/*
 * One decoded instruction, produced by the verifier.  ax_verify() refuses
 * unreachable code, so every insn has a known depth (the same on every
 * path reaching it); see module/core/ax_verify.c for the rules.
 */
struct ax_insn {
	u8 op;			/* enum ax_opcode */
	u8 len;			/* bytes in the bytecode, operands included */
	u16 depth;		/* stack depth before this insn executes */
	u32 off;		/* byte offset in the bytecode */
	u64 imm;		/* operand: constant (zero-extended), reg/tsv
				 * number, ext/zero_ext bits, trace size, pick n;
				 * for goto/if_goto: target *insn index* */
};

/*
 * What the verifier learns about a program, once (ax_verify()), for every
 * consumer: the plan (plan.c), the probes (ftrace_probe.c, static_arm.c),
 * the variables (tsv.c) and the JIT.  Nothing recomputes it.
 */
struct ax_facts {
	u64 regs;		/* gdb registers 'reg' reads: bit N for reg N */
	bool reads_mem;		/* ref8..ref64 */
	bool records;		/* trace, trace_quick, trace16, tracenz, tracev */
	bool gets_tsv;		/* getv, tracev */
	bool sets_tsv;		/* setv */
	bool prints;		/* printf */
	bool jumps;		/* goto, if_goto */
	/*
	 * Plain: arithmetic, compares, constants, stack ops, 'reg' and
	 * forward jumps only, so it can fail in nothing and change nothing
	 * but its result (no memory, no division, no variable, no loop).
	 */
	bool plain;
};

/*
 * Bound facts: what the program's variable numbers stand for, which only
 * the variables' definitions tell (gdb's QTDV may come after the QTDP that
 * brought the program), and whether it reads entry values.  Filled in one
 * pass over the insns by gtp_tps_bind() (plan.c) at QTStart, before the
 * run's plan asks anything of them; read through tsv.h's and entryval.h's
 * questions by QTStart alone, never at a hit.  They cannot go stale: each
 * QTStart binds every tracepoint's programs again before asking, under
 * the packet lock that QTDV and QTDP also take, and both are refused
 * while a trace is armed or running.  @gen is the tripwire for a caller
 * that would ask elsewhere (tsv.c gtp_prog_bound()).
 */
struct ax_bound {
	u64 uses;	/* built-ins getv, setv or tracev name: bit <kind> */
	u64 sets;	/* what setv writes: tsv.h GTP_SETS_* bits */
	bool reads_entry;	/* reads or records an entry value */
	u32 gen;	/* the definitions they were bound to (tsv.c), 0: not */
};

struct ax_prog {
	struct ax_insn *insns;
	u32 ninsns;
	u32 max_depth;		/* deepest stack the program can reach */
	bool backjump;		/* has a backward jump: loops charge spans */
	bool is_cond;		/* a condition: result matters */
	struct ax_facts facts;	/* the verifier's, at QTDP */
	struct ax_bound bound;	/* at QTStart */
	u32 code_len;
	u8 *code;		/* copy of the original bytecode */

	/* filled by ax_jit_compile(); jit == NULL means "interpret" */
	u64 (*jit)(struct ax_env *env);
	void *jit_image;
	u32 jit_size;
	void **jit_pins;	/* held while the image lives (host.h) */
	u32 jit_npins;
};

/*
 * Evaluation environment of one hit.  The JIT addresses these fields
 * directly (offsetof), so their layout is part of its contract.
 */
struct ax_env {
	struct pt_regs *regs;	/* registers at the probe */
	void *frame;		/* the frame under construction (hooks) */
	void *tp;		/* the tracepoint being evaluated (hooks) */
	u32 steps;		/* insns this hit may still run */
	u32 err;		/* enum ax_error, 0 if none */
	u64 err_pc;		/* bytecode offset of the failing insn */
	u32 faults;		/* nofault reads that failed in this hit */
	u64 t0;			/* a timed hit's start (budget.h), or 0 */
};

/*
 * Hooks the core calls for side effects.  Defined once by whoever links the
 * core: the module (the glue in module/) or a userspace test/tool.  They
 * are plain functions (no function pointers) so the JIT can emit direct
 * calls.
 * Each returns 0 or a negative errno.
 */
int ax_hook_read(struct ax_env *env, u64 addr, void *dst, u32 size);	/* nofault */
int ax_hook_trace(struct ax_env *env, u64 addr, u32 size, bool upto_nul);
int ax_hook_getv(struct ax_env *env, u32 tsv, s64 *val);
int ax_hook_setv(struct ax_env *env, u32 tsv, s64 val);
int ax_hook_tracev(struct ax_env *env, u32 tsv);

/*
 * ax_verify - check and decode bytecode
 * @code, @len:	the bytecode as gdb sent it
 * @is_cond:	true for a condition (must leave a value at 'end')
 * @out:	the decoded program on success (free with ax_prog_free())
 * @log, @logsz: a one-line reason on failure, naming the offset
 *		(e.g. "insn at 7: jump target 40 out of range")
 *
 * Returns 0 or -EINVAL (program refused), -ENOMEM, -EFAULT (internal bug).
 */
int ax_verify(const u8 *code, u32 len, bool is_cond, struct ax_prog **out,
	      char *log, size_t logsz);
void ax_prog_free(struct ax_prog *prog);

/*
 * Reference evaluation.  Returns the top of stack at 'end' (0 if empty, 0 on
 * error).  Uses env->steps as left by the caller: call it through ax_run().
 */
u64 ax_interp(const struct ax_prog *prog, struct ax_env *env);

/*
 * A probe hit runs its condition and all its actions on one budget, so
 * neither the number of actions nor running the condition twice can
 * multiply the work one hit may do: env->steps is set once per hit
 * (AX_STEP_BUDGET) and never again, and every failed nofault read counts
 * in env->faults; past AX_HIT_FAULTS_MAX the hit's reads fail without
 * being tried (each fault is an exception taken with preemption off).
 * AX_ERR_BUDGET ends the hit: no further action runs, and what it
 * collected so far is kept.
 */
#define AX_HIT_FAULTS_MAX	128

/* Continue the hit's budget: the JIT image if there is one, else interpret. */
static inline u64 ax_run_hit(const struct ax_prog *prog, struct ax_env *env)
{
	env->err = 0;
	if (prog->jit)
		return prog->jit(env);
	return ax_interp(prog, env);
}

/* One evaluation on a budget of its own (tests, tools). */
static inline u64 ax_run(const struct ax_prog *prog, struct ax_env *env)
{
	env->steps = AX_STEP_BUDGET;
	return ax_run_hit(prog, env);
}

/* pt_regs slot of gdb register @regno (0..17), or -1. */
int ax_reg_offset(unsigned int regno);

#endif /* GTP_AX_H */
