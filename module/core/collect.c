// SPDX-License-Identifier: GPL-2.0
/*
 * collect.c - the probe path: condition, actions, one frame per hit.
 *
 * Runs in probe context (kprobe pre-handler: preemption off, maybe IRQs
 * off, maybe NMI): no sleeping, no allocation, every read of kernel memory
 * nofault.  When the actions fix a frame's size (registers, expressions
 * that record nothing: tp->frame_len) it is built in place in the frame
 * store, between one reserve and its commit.  Otherwise the size is known
 * only after the actions ran: the frame is built in a per-CPU scratch
 * buffer, then copied into the store.
 *
 * Frame layout (gdb's trace file format, protocol reference 6.3):
 *
 *	int16 tpnum | u32 size | 'R' regs[164] | 'M' u64 addr u16 len bytes
 *	| 'V' s32 tsv s64 value | ...
 *
 * Unreadable memory is left out of the M blocks (gdb then shows it as
 * <unavailable>); a condition that fails to evaluate is false and counted.
 */
#include "collect.h"
#include "tsv.h"
#include "run.h"
#include "static_data.h"
#include "host.h"

#define PAGE_CHUNK	4096
#define M_HDR		(1 + 8 + 2)
#define M_MAX		0xffff		/* u16 length per M block */

/* gdb amd64 register i (0..17) -> its pt_regs field. */
u64 gtp_reg_value(const struct pt_regs *regs, int regno)
{
	switch (regno) {
	case 0: return regs->ax;
	case 1: return regs->bx;
	case 2: return regs->cx;
	case 3: return regs->dx;
	case 4: return regs->si;
	case 5: return regs->di;
	case 6: return regs->bp;
	case 7: return regs->sp;
	case 8: return regs->r8;
	case 9: return regs->r9;
	case 10: return regs->r10;
	case 11: return regs->r11;
	case 12: return regs->r12;
	case 13: return regs->r13;
	case 14: return regs->r14;
	case 15: return regs->r15;
	case 16: return regs->ip;
	case 17: return regs->flags;
	}
	return 0;
}

/* One 8-byte register slot of a 'g' block (unaligned: frames are packed). */
static inline void put_reg(u8 *out, int i, u64 v)
{
	memcpy(out + 8 * i, &v, 8);
}

/* One 4-byte segment/flags slot after rip. */
static inline void put_seg(u8 *out, int i, u32 v)
{
	memcpy(out + 136 + 4 * i, &v, 4);
}

/*
 * Straight-line on purpose: every 'collect $regs' hit converts a whole
 * block, and a loop through gtp_reg_value()'s switch cost ~10 times more.
 * No local array either: one costs a stack canary and a copy per hit.
 */
void gtp_regs_to_g(const struct pt_regs *regs, u64 pc, u8 *out)
{
	put_reg(out, 0, regs->ax);
	put_reg(out, 1, regs->bx);
	put_reg(out, 2, regs->cx);
	put_reg(out, 3, regs->dx);
	put_reg(out, 4, regs->si);
	put_reg(out, 5, regs->di);
	put_reg(out, 6, regs->bp);
	put_reg(out, 7, regs->sp);
	put_reg(out, 8, regs->r8);
	put_reg(out, 9, regs->r9);
	put_reg(out, 10, regs->r10);
	put_reg(out, 11, regs->r11);
	put_reg(out, 12, regs->r12);
	put_reg(out, 13, regs->r13);
	put_reg(out, 14, regs->r14);
	put_reg(out, 15, regs->r15);
	put_reg(out, 16, pc);
	put_seg(out, 0, regs->flags);	/* eflags, cs, ss; ds es fs gs 0 */
	put_seg(out, 1, regs->cs);
	put_seg(out, 2, regs->ss);
	put_seg(out, 3, 0);
	put_seg(out, 4, 0);
	put_seg(out, 5, 0);
	put_seg(out, 6, 0);
}

static u8 *fb_room(struct gtp_fbuild *fb, u32 n)
{
	u8 *p;

	if (n > fb->cap - fb->len) {
		fb->truncated = true;
		return NULL;
	}
	p = fb->buf + fb->len;
	fb->len += n;
	return p;
}

/* Start an M block for @addr; its length is patched by fb_end_mem(). */
static u8 *fb_begin_mem(struct gtp_fbuild *fb, u64 addr)
{
	u8 *h = fb_room(fb, M_HDR);

	if (!h)
		return NULL;
	h[0] = 'M';
	memcpy(h + 1, &addr, 8);
	return h;
}

static void fb_end_mem(struct gtp_fbuild *fb, u8 *h, u16 len)
{
	if (len)
		memcpy(h + 9, &len, 2);
	else
		fb->len -= M_HDR;	/* nothing readable: drop the header */
}

/* An M block of @len bytes (at most a block's) at @addr, from @data. */
int gtp_fb_put_mem(struct gtp_fbuild *fb, u64 addr, const void *data,
		   u32 len)
{
	u8 *h = fb_begin_mem(fb, addr), *dst;

	if (!h)
		return -ENOSPC;
	dst = fb_room(fb, len);
	if (!dst) {
		fb_end_mem(fb, h, 0);
		return -ENOSPC;
	}
	memcpy(dst, data, len);
	fb_end_mem(fb, h, len);
	return 0;
}

/*
 * Record up to @size bytes at @addr, one page at a time so that an
 * unreadable page only loses itself.  @upto_nul stops after the first NUL
 * (tracenz).  Returns -ENOSPC if the frame filled up.
 */
int gtp_fb_trace(struct gtp_fbuild *fb, u64 addr, u32 size, bool upto_nul)
{
	u64 end = addr + size;
	u8 *h = NULL;
	u16 blen = 0;

	if (!fb)
		return -EINVAL;		/* trace ops in a condition */
	/*
	 * A frame holds at most fb->cap bytes: look no further than that.
	 * Scanning up to 4 GiB of unmapped memory page by page would fault
	 * a million times inside one probe hit.
	 */
	if (size > fb->cap)
		end = addr + fb->cap;
	while (addr < end) {
		u32 n = min_t(u64, end - addr,
			      PAGE_CHUNK - (addr & (PAGE_CHUNK - 1)));
		u8 *dst;

		n = min_t(u32, n, M_MAX - blen);
		if (!h && !(h = fb_begin_mem(fb, addr)))
			return -ENOSPC;
		dst = fb_room(fb, n);
		if (!dst) {
			fb_end_mem(fb, h, blen);
			return -ENOSPC;
		}
		if (fb->faults && *fb->faults >= AX_HIT_FAULTS_MAX) {
			/* the hit's fault budget is spent: read no further */
			fb->len -= n;
			break;
		}
		if (gtp_read_nofault(dst, addr, n)) {
			/* Unreadable: close the block, skip this chunk. */
			if (fb->faults)
				(*fb->faults)++;
			fb->len -= n;
			fb_end_mem(fb, h, blen);
			h = NULL;
			blen = 0;
			addr += n;
			continue;
		}
		if (upto_nul) {
			u8 *nul = memchr(dst, 0, n);

			if (nul) {
				fb->len -= n - (nul + 1 - dst);
				blen += nul + 1 - dst;
				break;
			}
		}
		blen += n;
		addr += n;
		if (blen == M_MAX) {
			fb_end_mem(fb, h, blen);
			h = NULL;
			blen = 0;
		}
	}
	if (h)
		fb_end_mem(fb, h, blen);
	return 0;
}

/*
 * $kstack: the kernel call stack as return addresses (u64, innermost
 * first) in an M block at GTP_KSTACK_ADDR, an address no kernel memory
 * has, so gdb reads it back from the frame like any collected memory
 * (gtp-kstack, "x/8a"), in tfind and from a saved trace file alike.
 * Returns how many addresses were recorded.
 */
static s64 fb_kstack(struct gtp_fbuild *fb, const struct ax_env *env)
{
	u64 addr = GTP_KSTACK_ADDR;
	u8 *h, *b;
	u32 n;

	h = fb_room(fb, M_HDR + 8 * GTP_KSTACK_MAX);
	if (!h)
		return -ENOSPC;
	b = h + M_HDR;
	n = gtp_host->kstack(env->tp, env->regs, (u64 *)b, GTP_KSTACK_MAX);
	n = min_t(u32, n, GTP_KSTACK_MAX);
	fb->len -= 8 * (GTP_KSTACK_MAX - n);
	h[0] = 'M';
	memcpy(h + 1, &addr, 8);
	fb_end_mem(fb, h, 8 * n);
	return n;
}

int gtp_fb_tracev(struct gtp_fbuild *fb, u32 tsv, const struct ax_env *env)
{
	const struct gtp_tsv *v = gtp_tsv_find(tsv);
	s32 num = tsv;
	s64 val;
	u8 *b;

	if (!fb)
		return -EINVAL;
	if (!v)
		return -ENOENT;
	if (v->builtin == GTP_TSV_KSTACK) {
		val = fb_kstack(fb, env);
		if (val < 0)
			return val;
	} else if (gtp_tsv_get_hit(tsv, env, &val)) {
		return -ENOENT;
	}
	b = fb_room(fb, 1 + 4 + 8);
	if (!b)
		return -ENOSPC;
	b[0] = 'V';
	memcpy(b + 1, &num, 4);
	memcpy(b + 5, &val, 8);
	return 0;
}

static void note_error(struct gtp_tp *tp, struct ax_env *env)
{
	atomic_long_inc(&tp->errors);
	WRITE_ONCE(tp->last_err, env->err);
}

static void run_action(struct gtp_tp *tp, const struct gtp_action *a,
		       struct ax_env *env, struct gtp_fbuild *fb)
{
	struct pt_regs *regs = env->regs;
	u8 *b;
	u64 addr;

	switch (a->type) {
	case GTP_ACT_REGS:
		b = fb_room(fb, 1 + GTP_G_SIZE);
		if (b) {
			b[0] = 'R';
			gtp_regs_to_g(regs, tp->addr, b + 1);
		}
		break;
	case GTP_ACT_MEM:
		addr = a->offset;
		if (a->basereg >= 0)
			addr += gtp_reg_value(regs, a->basereg);
		gtp_fb_trace(fb, addr, min_t(u64, a->len, 0xffffffffu), false);
		break;
	case GTP_ACT_EXPR:
		if (a->noop)
			break;
		env->frame = fb;
		ax_run_hit(a->prog, env);
		if (env->err)
			note_error(tp, env);
		break;
	case GTP_ACT_SDATA:
		/* Only a static tracepoint's regs carry $_sdata. */
		if (tp->is_static)
			gtp_fb_sdata(fb, regs);
		break;
	}
}

/* Does running @prog leave the frame as it was? */
static bool prog_records_nothing(const struct ax_prog *prog)
{
	u32 i;

	for (i = 0; i < prog->ninsns; i++) {
		switch (prog->insns[i].op) {
		case AX_TRACE:
		case AX_TRACE_QUICK:
		case AX_TRACE16:
		case AX_TRACENZ:
		case AX_TRACEV:
			return false;
		}
	}
	return true;
}

bool gtp_cond_is_pure(const struct ax_prog *cond)
{
	u32 i;

	for (i = 0; i < cond->ninsns; i++)
		if (cond->insns[i].op == AX_SETV ||
		    cond->insns[i].op == AX_PRINTF)
			return false;
	/* trace ops in a condition fail (no frame): an error, counted */
	return prog_records_nothing(cond);
}

u32 gtp_tp_exact_frame_len(const struct gtp_tp *tp)
{
	u32 len = GTP_FRAME_HDR;
	u32 i;

	for (i = 0; i < tp->nactions; i++) {
		const struct gtp_action *a = &tp->actions[i];

		switch (a->type) {
		case GTP_ACT_REGS:
			len += 1 + GTP_G_SIZE;
			break;
		case GTP_ACT_EXPR:
			if (!prog_records_nothing(a->prog))
				return 0;
			break;
		default:
			/* M: unreadable memory shrinks it; $_sdata varies */
			return 0;
		}
	}
	return len;
}

/*
 * Is @prog straight code (forward jumps if @jumps) on constants and the
 * gdb registers in @regs only, with no memory (a fault is an error), no
 * division (by zero), no hook and no backward jump (a loop may run out of
 * budget)?  Then it can fail in nothing and change nothing but its result.
 */
static bool prog_is_simple(const struct ax_prog *prog, u64 regs, bool jumps)
{
	u32 i;

	for (i = 0; i < prog->ninsns; i++) {
		const struct ax_insn *in = &prog->insns[i];

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
			break;
		case AX_GOTO: case AX_IF_GOTO:
			if (!jumps || in->imm <= i)
				return false;
			break;
		case AX_REG:
			if (in->imm >= 64 || !(regs & (1ull << in->imm)))
				return false;
			break;
		default:
			return false;
		}
	}
	return true;
}

/*
 * gdb sends such a program for 'collect EXPR' when EXPR lives in
 * registers: the R block it also asks for is what holds the value, the
 * program only computes it and drops it.  Skipped at the hit.
 */
static bool prog_is_noop(const struct ax_prog *prog)
{
	return prog_is_simple(prog, (1ull << AX_NR_GDB_REGS) - 1, false);
}

bool gtp_cond_reads_only(const struct ax_prog *cond, u64 regs)
{
	return prog_is_simple(cond, regs, true);
}

void gtp_tp_plan(struct gtp_tp *tp)
{
	u32 i, nregs = 0;
	bool others = false;

	for (i = 0; i < tp->nactions; i++) {
		struct gtp_action *a = &tp->actions[i];

		a->noop = a->type == GTP_ACT_EXPR && prog_is_noop(a->prog);
		if (a->type == GTP_ACT_REGS)
			nregs++;
		else if (!a->noop)
			others = true;
	}
	tp->frame_len = gtp_tp_exact_frame_len(tp);
	tp->regs_only = nregs == 1 && !others && tp->frame_len;
}

/* Frames are u32-sized: any bound past this says "never fits" alike. */
#define FRAME_LEN_CAP	0xffffffffULL

u64 gtp_tp_min_frame_len(const struct gtp_tp *tp)
{
	u64 len = GTP_FRAME_HDR;
	u32 i;

	for (i = 0; i < tp->nactions; i++) {
		const struct gtp_action *a = &tp->actions[i];

		if (a->type == GTP_ACT_REGS)
			len += 1 + GTP_G_SIZE;
		else if (a->type == GTP_ACT_MEM && a->len)
			/*
			 * gtp_fb_trace() splits at 65535 bytes a block.  QTDP
			 * bounds a->len (<= 1 GiB), and the sum saturates, so
			 * it cannot wrap under QTStart's size check.
			 */
			len += min_t(u64, a->len, FRAME_LEN_CAP) +
			       M_HDR * ((min_t(u64, a->len, FRAME_LEN_CAP) +
					 0xfffe) / 0xffff);
		if (len > FRAME_LEN_CAP)
			return FRAME_LEN_CAP + 1;
	}
	return len;
}

static __always_inline void put_frame_hdr(const struct gtp_tp *tp, u8 *buf,
					  u32 len)
{
	s16 num = tp->num;
	u32 size = len - GTP_FRAME_HDR;

	memcpy(buf, &num, 2);
	memcpy(buf + 2, &size, 4);
}

/*
 * No room for a frame (@err from gtp_frame_reserve()): stop the trace if
 * the store is full.  A frame the store can never hold (larger than a
 * sub-buffer: QTStart refuses the ones it can predict) is an error of this
 * tracepoint.
 */
static void store_failed(struct gtp_tp *tp, int err)
{
	if (err == -ENOSPC)
		gtp_run_stop(GTP_STOP_FULL, 0);
	if (err == -E2BIG) {
		atomic_long_inc(&tp->errors);
		WRITE_ONCE(tp->last_err, AX_ERR_TRACE);
	}
}

/* Copy the frame built in scratch into the store. */
static bool store_frame(struct gtp_tp *tp, struct gtp_fbuild *fb)
{
	struct gtp_frame_slot slot __gtp_noinit;
	u8 *dst;

	put_frame_hdr(tp, fb->buf, fb->len);
	dst = gtp_frame_reserve(&slot, fb->len);
	if (!dst) {
		store_failed(tp, slot.err);
		return false;
	}
	memcpy(dst, fb->buf, fb->len);
	gtp_frame_commit(&slot);
	atomic_long_add(fb->len, &tp->usage);
	return true;
}

/* The hit that reaches the pass count stops the trace (gdb's "passcount"). */
static inline void pass_count_check(struct gtp_tp *tp, long hits)
{
	if (tp->pass && hits >= tp->pass)
		gtp_run_stop(GTP_STOP_PASSCOUNT, tp->num);
}

/*
 * The lean path for a frame that is one R block (tp->regs_only): written
 * straight into the store, no scratch, no action loop, no environment.
 */
static bool tp_collect_regs(struct gtp_tp *tp, struct pt_regs *regs)
{
	struct gtp_frame_slot slot __gtp_noinit;
	u32 len = tp->frame_len;
	long hits = atomic_long_add_return(1, &tp->hits);
	bool stored = false;
	u8 *dst;

	dst = gtp_frame_reserve(&slot, len);
	if (likely(dst)) {
		put_frame_hdr(tp, dst, len);
		dst[GTP_FRAME_HDR] = 'R';
		gtp_regs_to_g(regs, tp->addr, dst + GTP_FRAME_HDR + 1);
		gtp_frame_commit(&slot);
		atomic_long_add(len, &tp->usage);
		stored = true;
	} else {
		store_failed(tp, slot.err);
	}
	pass_count_check(tp, hits);
	return stored;
}

/*
 * The condition held: run the actions, store one frame.  A frame whose
 * size the actions fix (tp->frame_len) is built in place in the store,
 * saving the copy out of scratch; should the store refuse it, the actions
 * still run (into scratch) for their side effects and errors, as they do
 * for any frame the store refuses.
 */
static __always_inline bool tp_collect(struct gtp_tp *tp,
					struct ax_env *env, u8 *scratch,
					u32 cap)
{
	struct gtp_fbuild fb = { .buf = scratch, .cap = cap,
				 .faults = &env->faults };
	struct gtp_frame_slot slot __gtp_noinit;
	u32 len = tp->frame_len;
	bool stored = false;
	long hits;
	u32 i;

	if (tp->regs_only)
		return tp_collect_regs(tp, env->regs);
	hits = atomic_long_add_return(1, &tp->hits);
	if (len) {
		u8 *dst = gtp_frame_reserve(&slot, len);

		if (dst) {
			fb.buf = dst;
			fb.cap = len;
		}
	}
	fb.len = GTP_FRAME_HDR;
	for (i = 0; i < tp->nactions; i++) {
		run_action(tp, &tp->actions[i], env, &fb);
		/* the hit's budget is spent: it ends, keeping what it has */
		if (unlikely(env->err == AX_ERR_BUDGET))
			break;
	}
	if (!len) {
		stored = store_frame(tp, &fb);
	} else if (fb.buf != scratch) {
		put_frame_hdr(tp, fb.buf, len);
		gtp_frame_commit(&slot);
		atomic_long_add(len, &tp->usage);
		stored = true;
	} else {
		store_failed(tp, slot.err);
	}
	pass_count_check(tp, hits);
	return stored;
}

/* Out of line: its environment costs a stack canary the lean path avoids. */
static noinline bool hit_held_actions(struct gtp_tp *tp, struct pt_regs *regs,
				      u8 *scratch, u32 cap,
				      const struct ax_env *pre)
{
	struct ax_env env = { .regs = regs, .tp = tp, .steps = pre->steps,
			      .faults = pre->faults };

	return tp_collect(tp, &env, scratch, cap);
}

bool gtp_tp_hit_held(struct gtp_tp *tp, struct pt_regs *regs, u8 *scratch,
		     u32 cap, const struct ax_env *pre)
{
	if (!gtp_trace_running() || !READ_ONCE(tp->enabled))
		return false;
	if (tp->regs_only)
		return tp_collect_regs(tp, regs);
	return hit_held_actions(tp, regs, scratch, cap, pre);
}

/**
 * gtp_tp_hit_undecided - the rest of a hit gtp_tp_precheck() left open
 * @tp:		the tracepoint
 * @regs:	the registers at the hit
 * @scratch:	this CPU's scratch area for building a frame
 * @cap:	bytes at @scratch
 * @pre:	the precheck's environment: the hit's budget so far, and the
 *		error of a pure condition that failed there
 *
 * Context: probe context.  Collects one frame if the trace runs, @tp is
 * enabled and its condition holds; enforces the pass count.  A pure
 * condition is never evaluated twice in one hit: that would give it a
 * second budget.
 *
 * Return: true when a frame was collected.
 */
bool gtp_tp_hit_undecided(struct gtp_tp *tp, struct pt_regs *regs,
			  u8 *scratch, u32 cap, const struct ax_env *pre)
{
	struct ax_env env = { .regs = regs, .tp = tp, .steps = pre->steps,
			      .faults = pre->faults };
	u64 res = 1;

	if (!gtp_trace_running() || !READ_ONCE(tp->enabled))
		return false;
	if (tp->cond_pure) {
		env.err = pre->err;
		env.err_pc = pre->err_pc;
	} else if (tp->cond) {
		res = ax_run_hit(tp->cond, &env);
	}
	if (env.err) {
		note_error(tp, &env);
		return false;
	}
	if (!res)
		return false;
	return tp_collect(tp, &env, scratch, cap);
}

/**
 * gtp_tp_hit - tracepoint @tp was hit with registers @regs
 * @tp:		the tracepoint
 * @regs:	the registers at the hit
 * @scratch:	this CPU's scratch area for building a frame
 * @cap:	bytes at @scratch
 *
 * Context: probe context.  What the probes do in two steps (precheck,
 * then the rest), in one call.
 *
 * Return: true when a frame was collected.
 */
bool gtp_tp_hit(struct gtp_tp *tp, struct pt_regs *regs, u8 *scratch,
		u32 cap)
{
	struct ax_env env = { 0 };

	switch (gtp_tp_precheck(tp, regs, &env)) {
	case GTP_PRE_FALSE:
		return false;
	case GTP_PRE_HELD:
		return gtp_tp_hit_held(tp, regs, scratch, cap, &env);
	default:
		return gtp_tp_hit_undecided(tp, regs, scratch, cap, &env);
	}
}
