// SPDX-License-Identifier: GPL-2.0
/*
 * ax_verify.c - the agent-expression verifier: decide, before anything
 * runs, that a bytecode program from gdb is safe to interpret or compile,
 * and decode it into the struct ax_insn[] both consumers execute.
 *
 * Nothing a user sends may crash or hang the kernel, so every property the
 * interpreter and the JIT rely on is established here, once, and never
 * re-checked at run time:
 *
 *   - every insn is a known, supported opcode with its full operand;
 *   - every jump lands on an insn boundary inside the program;
 *   - the stack depth before each insn is the same on every path that
 *     reaches it, never below what the insn reads, never above
 *     AX_MAX_STACK after it (so the run-time stack is a fixed local array
 *     and no push or pop is checked);
 *   - every insn is reachable and no path falls off the end: each one
 *     stops at 'end' (with >= 1 value when the program is a condition);
 *   - 'reg N' names a pt_regs slot, ext/zero_ext widths are 1..64.
 *
 * The passes, each one function, stop at the first error and write one
 * line to the caller's log naming the byte offset of the insn at fault
 * (e.g. "insn at 7: unknown opcode 0x1b"), cf. the BPF verifier:
 *
 *   1. check_size()	  0 < len <= AX_MAX_CODE
 *   2. decode_insns()	  linear scan: opcode, operand (big-endian), per-
 *			  operand range checks; records which byte offsets
 *			  start an insn (v->index[])
 *   3. resolve_jumps()	  goto/if_goto offsets -> insn indexes; notes
 *			  backward jumps (they need the step budget)
 *   4. check_stack()	  worklist walk of the control-flow graph from insn
 *			  0 at depth 0, assigning insn->depth at first visit
 *			  and requiring equality at every later one
 *   5. check_reachable() an insn no path reached is refused
 *   6. note_facts()	  what every consumer asks of a program (registers
 *			  read, memory, frame, variables, printf, jumps,
 *			  plainness: struct ax_facts), once
 *
 * Unreachable code is refused rather than skipped: gdb never emits it (its
 * own ax_reqs() rejects code after goto/end that no jump targets as a
 * "hole"), and refusing it means every insn the JIT sees has a known depth.
 * Loops are allowed (a backward jump sets prog->backjump); the equal-depth
 * rule makes every loop stack-neutral, and the step budget (see ax.h)
 * bounds its run time.
 */
#include "ax.h"
#include "ax_ops.h"

#define AX_DEPTH_UNKNOWN	0xffff

struct ax_verifier {
	const u8 *code;
	u32 len;
	bool is_cond;
	char *log;
	size_t logsz;

	struct ax_insn *insns;	/* decoded program, ninsns entries */
	u32 ninsns;
	s16 *index;		/* byte offset -> insn index, -1 mid-insn */
	u16 *work;		/* worklist of insn indexes (check_stack) */
	u32 nwork;
	u32 max_depth;
	bool backjump;
};

/* One line for the user; the first error wins because every pass stops. */
#define verbose(v, fmt, ...) \
	scnprintf((v)->log, (v)->logsz, fmt, ##__VA_ARGS__)

static u64 decode_be(const u8 *p, unsigned int n)
{
	u64 val = 0;

	while (n--)
		val = (val << 8) | *p++;
	return val;
}

static int check_size(struct ax_verifier *v)
{
	if (!v->len) {
		verbose(v, "empty program");
		return -EINVAL;
	}
	if (v->len > AX_MAX_CODE) {
		verbose(v, "program too long: %u bytes, at most %u",
			v->len, AX_MAX_CODE);
		return -EINVAL;
	}
	return 0;
}

/* Range checks that need only the insn itself. */
static int check_operand(struct ax_verifier *v, const struct ax_insn *insn)
{
	switch (insn->op) {
	case AX_REG:
		if (insn->imm >= AX_NR_GDB_REGS) {
			verbose(v, "insn at %u: reg %llu is not available (only 0..17: rax..r15, rip, eflags)",
				insn->off, (unsigned long long)insn->imm);
			return -EINVAL;
		}
		break;
	case AX_EXT:
	case AX_ZERO_EXT:
		if (insn->imm == 0 || insn->imm > 64) {
			verbose(v, "insn at %u: %s %llu: bit count must be 1..64",
				insn->off, ax_op_name(insn->op),
				(unsigned long long)insn->imm);
			return -EINVAL;
		}
		break;
	}
	return 0;
}

static int decode_insns(struct ax_verifier *v)
{
	u32 off = 0, left;

	while (off < v->len) {
		struct ax_insn *insn = &v->insns[v->ninsns];
		u8 op = v->code[off];
		const struct ax_op_info *info = ax_op_info(op);
		int ret;

		if (!info->name) {
			verbose(v, "insn at %u: unknown opcode 0x%02x", off, op);
			return -EINVAL;
		}
		if (info->flags & AX_OPF_FLOAT) {
			verbose(v, "insn at %u: float opcodes are not supported (%s)",
				off, info->name);
			return -EINVAL;
		}
		if (info->flags & AX_OPF_PRINTF) {
			verbose(v, "insn at %u: printf is not supported in tracepoints",
				off);
			return -EINVAL;
		}
		left = v->len - off - 1;
		if (left < info->operand) {
			verbose(v, "insn at %u: truncated operand (%s: %u of %u bytes)",
				off, info->name, left, info->operand);
			return -EINVAL;
		}
		insn->op = op;
		insn->len = 1 + info->operand;
		insn->depth = AX_DEPTH_UNKNOWN;
		insn->off = off;
		insn->imm = decode_be(v->code + off + 1, info->operand);
		ret = check_operand(v, insn);
		if (ret)
			return ret;
		v->index[off] = v->ninsns++;
		off += insn->len;
	}
	return 0;
}

static int resolve_jumps(struct ax_verifier *v)
{
	u32 i;

	for (i = 0; i < v->ninsns; i++) {
		struct ax_insn *insn = &v->insns[i];
		u64 target = insn->imm;

		if (!(ax_op_info(insn->op)->flags & AX_OPF_JUMP))
			continue;
		if (target >= v->len) {
			verbose(v, "insn at %u: jump target %llu out of range",
				insn->off, (unsigned long long)target);
			return -EINVAL;
		}
		if (v->index[target] < 0) {
			verbose(v, "insn at %u: jump target %llu is not an instruction boundary",
				insn->off, (unsigned long long)target);
			return -EINVAL;
		}
		insn->imm = v->index[target];
		if (insn->imm <= i)
			v->backjump = true;
	}
	return 0;
}

/*
 * Record that insn @to is reached from insn @from with @depth items on the
 * stack: the first visit fixes its depth and queues it, later visits must
 * agree.
 */
static int mark_depth(struct ax_verifier *v, u32 from, u32 to, u32 depth)
{
	struct ax_insn *insn = &v->insns[to];

	if (insn->depth == AX_DEPTH_UNKNOWN) {
		insn->depth = depth;
		v->work[v->nwork++] = to;
		return 0;
	}
	if (insn->depth != depth) {
		verbose(v, "insn at %u: stack depth %u when reached from insn at %u, %u on another path",
			insn->off, depth, v->insns[from].off, insn->depth);
		return -EINVAL;
	}
	return 0;
}

/* Stack effect of one insn at its known depth; successors get marked. */
static int check_insn_stack(struct ax_verifier *v, u32 i)
{
	const struct ax_insn *insn = &v->insns[i];
	const struct ax_op_info *info = ax_op_info(insn->op);
	u32 depth = insn->depth;
	u32 need = info->need;
	u32 after;
	int ret;

	if (insn->op == AX_PICK) {
		if (insn->imm >= depth) {
			verbose(v, "insn at %u: pick %llu deeper than the stack (depth %u)",
				insn->off, (unsigned long long)insn->imm, depth);
			return -EINVAL;
		}
	} else if (depth < need) {
		verbose(v, "insn at %u: stack underflow: %s needs %u, depth %u",
			insn->off, info->name, need, depth);
		return -EINVAL;
	}
	after = depth + info->delta;
	if (after > AX_MAX_STACK) {
		verbose(v, "insn at %u: stack depth %u exceeds %u",
			insn->off, after, AX_MAX_STACK);
		return -EINVAL;
	}
	v->max_depth = max(v->max_depth, after);

	if (insn->op == AX_END) {
		if (v->is_cond && !depth) {
			verbose(v, "insn at %u: condition ends with an empty stack",
				insn->off);
			return -EINVAL;
		}
		return 0;
	}
	if (info->flags & AX_OPF_JUMP) {
		ret = mark_depth(v, i, insn->imm, after);
		if (ret)
			return ret;
	}
	if (info->flags & AX_OPF_STOP)
		return 0;
	if (i + 1 >= v->ninsns) {
		verbose(v, "program does not end with 'end'");
		return -EINVAL;
	}
	return mark_depth(v, i, i + 1, after);
}

static int check_stack(struct ax_verifier *v)
{
	int ret;

	v->insns[0].depth = 0;
	v->work[v->nwork++] = 0;
	while (v->nwork) {
		ret = check_insn_stack(v, v->work[--v->nwork]);
		if (ret)
			return ret;
	}
	return 0;
}

static int check_reachable(struct ax_verifier *v)
{
	u32 i;

	for (i = 0; i < v->ninsns; i++) {
		if (v->insns[i].depth == AX_DEPTH_UNKNOWN) {
			verbose(v, "insn at %u: unreachable instruction",
				v->insns[i].off);
			return -EINVAL;
		}
	}
	return 0;
}

/* One insn's part of the program's facts (struct ax_facts). */
static void note_fact(struct ax_facts *f, const struct ax_insn *in, u32 i)
{
	switch (in->op) {
	case AX_ADD: case AX_SUB: case AX_MUL:
	case AX_LSH: case AX_RSH_SIGNED: case AX_RSH_UNSIGNED:
	case AX_LOG_NOT: case AX_BIT_AND: case AX_BIT_OR:
	case AX_BIT_XOR: case AX_BIT_NOT: case AX_EQUAL:
	case AX_LESS_SIGNED: case AX_LESS_UNSIGNED:
	case AX_EXT: case AX_ZERO_EXT:
	case AX_CONST8: case AX_CONST16: case AX_CONST32:
	case AX_CONST64: case AX_END: case AX_DUP: case AX_POP:
	case AX_SWAP: case AX_PICK: case AX_ROT:
		return;
	case AX_REG:
		f->regs |= 1ull << in->imm;	/* < AX_NR_GDB_REGS */
		return;
	case AX_GOTO: case AX_IF_GOTO:
		f->jumps = true;
		if (in->imm <= i)
			f->plain = false;	/* a loop */
		return;
	case AX_REF8: case AX_REF16: case AX_REF32: case AX_REF64:
		f->reads_mem = true;
		break;
	case AX_TRACEV:
		f->gets_tsv = true;
		fallthrough;
	case AX_TRACE: case AX_TRACE_QUICK: case AX_TRACE16:
	case AX_TRACENZ:
		f->records = true;
		break;
	case AX_GETV:
		f->gets_tsv = true;
		break;
	case AX_SETV:
		f->sets_tsv = true;
		break;
	case AX_PRINTF:
		f->prints = true;
		break;
	}
	f->plain = false;
}

static void note_facts(struct ax_prog *prog)
{
	struct ax_facts *f = &prog->facts;
	u32 i;

	f->plain = true;
	for (i = 0; i < prog->ninsns; i++)
		note_fact(f, &prog->insns[i], i);
}

static int build_prog(struct ax_verifier *v, struct ax_prog **out)
{
	struct ax_prog *prog;

	if (WARN_ON_ONCE(v->max_depth > AX_MAX_STACK)) {
		verbose(v, "verifier internal error: depth %u", v->max_depth);
		return -EFAULT;
	}
	prog = gtp_zalloc(sizeof(*prog));
	if (!prog)
		return -ENOMEM;
	prog->code = gtp_malloc(v->len);
	if (!prog->code) {
		gtp_free(prog);
		return -ENOMEM;
	}
	memcpy(prog->code, v->code, v->len);
	prog->code_len = v->len;
	prog->insns = v->insns;
	prog->ninsns = v->ninsns;
	prog->max_depth = v->max_depth;
	prog->backjump = v->backjump;
	prog->is_cond = v->is_cond;
	note_facts(prog);
	v->insns = NULL;	/* now owned by prog */
	*out = prog;
	return 0;
}

/**
 * ax_verify - check and decode agent-expression bytecode
 * @code:	the bytecode as gdb sent it
 * @len:	its length in bytes
 * @is_cond:	true for a condition: every 'end' must have a value to return
 * @out:	on success, the decoded program (free with ax_prog_free())
 * @log:	on failure, one line naming the offending byte offset (may be
 *		NULL)
 * @logsz:	size of @log
 *
 * Return: 0, -EINVAL when the program is refused (reason in @log), -ENOMEM,
 * or -EFAULT on a verifier bug.
 */
int ax_verify(const u8 *code, u32 len, bool is_cond, struct ax_prog **out,
	      char *log, size_t logsz)
{
	struct ax_verifier v = {
		.code = code, .len = len, .is_cond = is_cond,
		.log = log, .logsz = log ? logsz : 0,
	};
	u32 i;
	int ret;

	*out = NULL;
	if (v.logsz)
		log[0] = '\0';
	ret = check_size(&v);
	if (ret)
		return ret;

	/* at most one insn per byte */
	v.insns = gtp_zalloc(len * sizeof(*v.insns));
	v.index = gtp_malloc(len * sizeof(*v.index));
	v.work = gtp_malloc(len * sizeof(*v.work));
	if (!v.insns || !v.index || !v.work) {
		ret = -ENOMEM;
		goto out_free;
	}
	for (i = 0; i < len; i++)
		v.index[i] = -1;

	ret = decode_insns(&v);
	ret = ret ?: resolve_jumps(&v);
	ret = ret ?: check_stack(&v);
	ret = ret ?: check_reachable(&v);
	ret = ret ?: build_prog(&v, out);

out_free:
	gtp_free(v.work);
	gtp_free(v.index);
	gtp_free(v.insns);	/* NULL once build_prog() took it */
	return ret;
}

/**
 * ax_prog_free - free a program from ax_verify()
 * @prog:	the program, or NULL
 *
 * The JIT image, if any, must already be gone (ax_jit_free()).
 */
void ax_prog_free(struct ax_prog *prog)
{
	if (!prog)
		return;
	gtp_free(prog->code);
	gtp_free(prog->insns);
	gtp_free(prog);
}

/*
 * gdb's amd64 register numbers (amd64-tdep.c, as sent by the 'reg' opcode)
 * for the registers pt_regs holds.  eflags (17) is the flags as the probed
 * instruction finds them: a probe on a conditional jump tells from them
 * whether it is taken (gtp-trace-errno).  The segment registers that follow
 * in gdb's numbering are not accepted: gdb never needs them in a
 * condition, and fs/gs/ds/es are not in pt_regs at all.
 */
static const u16 ax_reg_offsets[AX_NR_GDB_REGS] = {
	offsetof(struct pt_regs, ax),	/*  0 rax */
	offsetof(struct pt_regs, bx),	/*  1 rbx */
	offsetof(struct pt_regs, cx),	/*  2 rcx */
	offsetof(struct pt_regs, dx),	/*  3 rdx */
	offsetof(struct pt_regs, si),	/*  4 rsi */
	offsetof(struct pt_regs, di),	/*  5 rdi */
	offsetof(struct pt_regs, bp),	/*  6 rbp */
	offsetof(struct pt_regs, sp),	/*  7 rsp */
	offsetof(struct pt_regs, r8),	/*  8 */
	offsetof(struct pt_regs, r9),	/*  9 */
	offsetof(struct pt_regs, r10),	/* 10 */
	offsetof(struct pt_regs, r11),	/* 11 */
	offsetof(struct pt_regs, r12),	/* 12 */
	offsetof(struct pt_regs, r13),	/* 13 */
	offsetof(struct pt_regs, r14),	/* 14 */
	offsetof(struct pt_regs, r15),	/* 15 */
	offsetof(struct pt_regs, ip),	/* 16 rip */
	offsetof(struct pt_regs, flags),	/* 17 eflags */
};

/**
 * ax_reg_offset - where gdb register @regno lives in struct pt_regs
 * @regno:	gdb amd64 register number, as in the 'reg' opcode
 *
 * Return: the byte offset in struct pt_regs, or -1 for registers pt_regs
 * does not hold (anything above 17).
 */
int ax_reg_offset(unsigned int regno)
{
	if (regno >= AX_NR_GDB_REGS)
		return -1;
	return ax_reg_offsets[regno];
}
