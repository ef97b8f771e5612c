// SPDX-License-Identifier: GPL-2.0
/*
 * watch.c - which locations are watches, and of what (watch.h).
 *
 * gdb compiles "teval $watch = 4" to "const8 4; setv N; pop; end": the
 * length is the constant the setv stores.  Only a constant is taken, and
 * only in a program without jumps, where nothing else can reach the setv:
 * the host must know the length before any hit, to program the debug
 * register.
 *
 * A watch at address 0 watches nothing until a hit moves it: an action
 * "teval $watch_arm_N = ADDR" at another location (a dynamic watch: an
 * object's field from when it is allocated).  Each $watch_arm_N must
 * name a watch, which QTStart checks.
 */
#include "watch.h"
#include "tracepoint.h"
#include "tsv.h"

/* The mark (GTP_TSV_WATCH or GTP_TSV_AWATCH) insn @i of @prog sets, or 0. */
static enum gtp_builtin_tsv mark_of(const struct ax_prog *prog, u32 i)
{
	const struct gtp_tsv *v;

	if (prog->insns[i].op != AX_SETV)
		return GTP_TSV_USER;
	v = gtp_tsv_find(prog->insns[i].imm);
	if (!v || (v->builtin != GTP_TSV_WATCH &&
		   v->builtin != GTP_TSV_AWATCH))
		return GTP_TSV_USER;
	return v->builtin;
}

/* The constant the setv at @i stores, or -1 when it is not one. */
static s64 constant_of(const struct ax_prog *prog, u32 i)
{
	const struct ax_insn *in;

	if (prog->facts.jumps || !i)
		return -1;
	in = &prog->insns[i - 1];
	if (in->op < AX_CONST8 || in->op > AX_CONST64 || in->imm > 8)
		return -1;
	return in->imm;
}

static int refuse(struct gtp_conn *gc, const struct gtp_tp *tp,
		  const char *why)
{
	gtp_console(gc, "gtp: tracepoint %u at 0x%llx: %s\n", tp->num,
		    (unsigned long long)tp->addr, why);
	return -EINVAL;
}

/* One location's marks into @tp: 0, or the refusal (said). */
static int mark_one(struct gtp_conn *gc, struct gtp_tp *tp)
{
	enum gtp_builtin_tsv mark, seen = GTP_TSV_USER;
	s64 len = 0, n;
	u32 a, i;

	for (a = 0; a < tp->nactions; a++) {
		const struct ax_prog *prog = tp->actions[a].prog;

		if (tp->actions[a].type != GTP_ACT_EXPR ||
		    (!gtp_prog_sets_builtin(prog, GTP_TSV_WATCH) &&
		     !gtp_prog_sets_builtin(prog, GTP_TSV_AWATCH)))
			continue;
		for (i = 0; i < prog->ninsns; i++) {
			mark = mark_of(prog, i);
			if (!mark)
				continue;
			n = constant_of(prog, i);
			if (n != 1 && n != 2 && n != 4 && n != 8)
				return refuse(gc, tp, "$watch and $awatch take a constant length: 1, 2, 4 or 8 (bytes)");
			if ((seen && seen != mark) || (len && len != n))
				return refuse(gc, tp, "set $watch or $awatch once, to one length");
			seen = mark;
			len = n;
		}
	}
	if (!len)
		return 0;
	if (tp->at_return)
		return refuse(gc, tp, "a watch cannot also be a return probe ($kret)");
	if (tp->is_static)
		return refuse(gc, tp, "a static tracepoint cannot be a watch");
	if (gtp_user_addr(tp->addr) && tp->addr)	/* 0: moved by hits */
		return refuse(gc, tp, "a watch takes a kernel address");
	/* the debug registers compare whole aligned words */
	if (tp->addr & (len - 1))
		return refuse(gc, tp, "a watch's address must be aligned to its length");
	tp->watch_len = len;
	tp->watch_reads = seen == GTP_TSV_AWATCH;
	return 0;
}

static bool is_watch(u32 num)
{
	const struct gtp_tp *tp;

	for (tp = gtp_tps; tp; tp = tp->next)
		if (tp->num == num && tp->watch_len)
			return true;
	return false;
}

/* Each $watch_arm_N that @prog of @tp sets names a watch: 0, or said. */
static int check_arms(struct gtp_conn *gc, const struct gtp_tp *tp,
		      const struct ax_prog *prog)
{
	const struct gtp_tsv *v;
	u32 i;

	if (!prog || !gtp_prog_sets_builtin(prog, GTP_TSV_WATCH_ARM))
		return 0;
	for (i = 0; i < prog->ninsns; i++) {
		if (prog->insns[i].op != AX_SETV)
			continue;
		v = gtp_tsv_find(prog->insns[i].imm);
		if (!v || v->builtin != GTP_TSV_WATCH_ARM || is_watch(v->arg))
			continue;
		gtp_console(gc, "gtp: tracepoint %u at 0x%llx: sets $%s, but tracepoint %u is no watch ($watch or $awatch in its actions)\n",
			    tp->num, (unsigned long long)tp->addr, v->name,
			    v->arg);
		return -EINVAL;
	}
	return 0;
}

int gtp_tps_mark_watches(struct gtp_conn *gc)
{
	struct gtp_tp *tp;
	u32 a;
	int ret;

	for (tp = gtp_tps; tp; tp = tp->next) {
		tp->watch_len = 0;
		tp->watch_reads = false;
		ret = mark_one(gc, tp);
		if (ret)
			return ret;
	}
	for (tp = gtp_tps; tp; tp = tp->next) {
		ret = check_arms(gc, tp, tp->cond);
		for (a = 0; !ret && a < tp->nactions; a++)
			if (tp->actions[a].type == GTP_ACT_EXPR)
				ret = check_arms(gc, tp, tp->actions[a].prog);
		if (ret)
			return ret;
	}
	return 0;
}
