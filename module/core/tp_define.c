// SPDX-License-Identifier: GPL-2.0
/*
 * tp_define.c - QTDP: a tracepoint location, its condition and actions.
 *
 * Wire format (protocol reference 2.3):
 *
 *   QTDP:<n>:<addr>:<E|D>:<step>:<pass>[:F<flen>][:S][:X<len>,<hex>][-]
 *   QTDP:-<n>:<addr>:[S]<action><action>...[-]
 *	action = R<mask> | M<basereg>,<offset>,<len> | X<len8>,<hex> | L
 *
 * Every bytecode is verified (ax_verify) before it is stored, then handed
 * to the JIT; a program the JIT cannot compile is interpreted.  Anything
 * refused is explained on gdb's console ('O' packet) before the 'E' reply,
 * so the user sees why "tstart" failed.  While-stepping needs single-step
 * support in probe context, which we do not have: it is refused the same
 * way rather than accepted and silently ignored.
 *
 * The raw action chunks are kept verbatim: qTfP hands them back so a
 * reconnecting gdb (or tsave) rebuilds the same tracepoints.
 */
#include "tracepoint.h"
#include "tp_internal.h"
#include "entryval.h"
#include "run.h"
#include "jit.h"
#include "plan.h"

/* Refuse a packet: a console line saying why, then E01. */
static void refuse(struct gtp_conn *gc, const char *why, u32 num)
{
	gtp_console(gc, "gtp: tracepoint %u: %s\n", num, why);
	gtp_reply_error(gc, 1);
}

/* Bytes of bytecode @tp holds so far (GTP_TP_CODE_MAX). */
static u32 tp_code_bytes(const struct gtp_tp *tp)
{
	u32 n = tp->cond ? tp->cond->code_len : 0, i;

	for (i = 0; i < tp->nactions; i++)
		if (tp->actions[i].prog)
			n += tp->actions[i].prog->code_len;
	return n;
}

/*
 * Decode "<len>,<hex>" at *@pp (len in hex bytes), verify it, try the JIT.
 * On success *@pp points after the hex and *@out holds the program.
 */
static int parse_bytecode(struct gtp_conn *gc, const struct gtp_tp *tp,
			  const char **pp, bool is_cond, struct ax_prog **out)
{
	u32 num = tp->num, have;
	char log[128];
	const char *p;
	u64 len;
	u8 *code;
	int ret;

	p = rsp_parse_hex(*pp, &len);
	if (!p || *p != ',' || len == 0 || len > AX_MAX_CODE) {
		refuse(gc, "malformed or oversized agent expression", num);
		return -EINVAL;
	}
	have = tp_code_bytes(tp);
	if (have + len > GTP_TP_CODE_MAX) {
		gtp_console(gc, "gtp: tracepoint %u: its condition and actions would hold %llu bytes of bytecode, more than the %u a location may have (one hit runs at most %u bytecode steps)\n",
			    num, (unsigned long long)(have + len),
			    GTP_TP_CODE_MAX, AX_STEP_BUDGET);
		gtp_reply_error(gc, 1);
		return -E2BIG;
	}
	p++;
	code = gtp_malloc(len);
	if (!code) {
		refuse(gc, "out of memory", num);
		return -ENOMEM;
	}
	if (strnlen(p, 2 * len) < 2 * len || rsp_hex2bin(p, 2 * len, code) < 0) {
		gtp_free(code);
		refuse(gc, "bad hex in agent expression", num);
		return -EINVAL;
	}
	log[0] = '\0';
	ret = ax_verify(code, len, is_cond, out, log, sizeof(log));
	gtp_free(code);
	if (ret) {
		gtp_console(gc, "gtp: tracepoint %u: %s refused by the verifier: %s\n",
			    num, is_cond ? "condition" : "action", log);
		gtp_reply_error(gc, 1);
		return ret;
	}
	log[0] = '\0';
	ret = gtp_tp_jit(*out, log, sizeof(log));
	if (ret)
		gtp_tps_note_interpreted(log);
	if (ret && ret != -EOPNOTSUPP && ret != -ENOSPC)
		gtp_console(gc, "gtp: tracepoint %u: JIT failed (%s), interpreting\n",
			    num, log);
	*pp = p + 2 * len;
	return 0;
}

/* The optional ":F<flen>", ":S", ":X<len>,<hex>" after the pass count. */
static int parse_def_options(struct gtp_conn *gc, struct gtp_tp *tp,
			     const char **pp)
{
	const char *p = *pp, *x;
	u64 v;

	while (*p == ':') {
		p++;
		switch (*p) {
		case 'F':
			p = rsp_parse_hex(p + 1, &v);
			if (!p)
				goto malformed;
			tp->fast = true;
			break;
		case 'S':
			tp->is_static = true;
			p++;
			break;
		case 'X':
			if (tp->cond) {
				refuse(gc, "more than one condition", tp->num);
				return -EINVAL;
			}
			x = p;
			p++;
			if (parse_bytecode(gc, tp, &p, true, &tp->cond))
				return -EINVAL;
			tp->cond_pure = gtp_cond_is_pure(tp->cond);
			tp->cond_hex = gtp_malloc(p - x + 1);
			if (!tp->cond_hex) {
				refuse(gc, "out of memory", tp->num);
				return -ENOMEM;
			}
			memcpy(tp->cond_hex, x, p - x);
			tp->cond_hex[p - x] = '\0';
			break;
		default:
			goto malformed;
		}
	}
	*pp = p;
	return 0;
malformed:
	refuse(gc, "malformed QTDP packet", tp->num);
	return -EINVAL;
}

/* QTDP:<n>:<addr>:<E|D>:<step>:<pass>[options][-] */
static void qtdp_define(struct gtp_conn *gc, const char *p)
{
	u64 num, addr, step, pass;
	struct gtp_tp *tp;
	bool enabled;

	if (!(p = rsp_parse_hex(p, &num)) || *p++ != ':' ||
	    !(p = rsp_parse_hex(p, &addr)) || *p++ != ':' ||
	    (*p != 'E' && *p != 'D'))
		goto malformed;
	enabled = *p++ == 'E';
	if (*p++ != ':' || !(p = rsp_parse_hex(p, &step)) || *p++ != ':' ||
	    !(p = rsp_parse_hex(p, &pass)))
		goto malformed;
	if (step) {
		refuse(gc, "while-stepping is not supported by gtp", num);
		return;
	}
	/* frames carry the number as gdb's int16 (trace file format) */
	if (!num || num > GTP_TP_NUM_MAX) {
		gtp_console(gc, "gtp: tracepoint number %llu out of range (1..%u)\n",
			    (unsigned long long)num, GTP_TP_NUM_MAX);
		gtp_reply_error(gc, 1);
		return;
	}
	if (!gtp_tp_find(num, addr) && gtp_tp_count() >= GTP_TP_MAX) {
		refuse(gc, "too many tracepoint locations", num);
		return;
	}
	tp = gtp_tp_alloc(num, addr);
	if (!tp) {
		refuse(gc, "out of memory", num);
		return;
	}
	tp->enabled = enabled;
	tp->gdb_enabled = enabled;
	tp->pass = pass;
	if (parse_def_options(gc, tp, &p)) {
		gtp_tp_free(tp);
		return;
	}
	if (*p == '-')
		p++;
	if (*p) {
		gtp_tp_free(tp);
		goto malformed;
	}
	/* planned now too: a tracepoint without actions gets no other chance */
	gtp_tp_plan(tp);
	gtp_tp_insert(tp);
	gtp_reply(gc, "OK");
	return;
malformed:
	gtp_console(gc, "gtp: malformed QTDP packet\n");
	gtp_reply_error(gc, 1);
}

/* Append @a; the array doubles, so a long action list is not quadratic. */
static int add_action(struct gtp_tp *tp, const struct gtp_action *a)
{
	if (tp->nactions == tp->actions_cap) {
		u32 cap = max_t(u32, 4, 2 * tp->actions_cap);
		struct gtp_action *na;

		na = gtp_malloc(min_t(u32, cap, GTP_TP_ACTIONS_MAX) * sizeof(*na));
		if (!na)
			return -ENOMEM;
		if (tp->nactions)
			memcpy(na, tp->actions, tp->nactions * sizeof(*na));
		gtp_free(tp->actions);
		tp->actions = na;
		tp->actions_cap = min_t(u32, cap, GTP_TP_ACTIONS_MAX);
	}
	tp->actions[tp->nactions++] = *a;
	if (a->type == GTP_ACT_REGS)
		tp->regmask |= a->regmask;
	return 0;
}

/* R<mask>: most significant byte first; we keep bits 0..63. */
static const char *parse_regmask(const char *p, u64 *mask)
{
	const char *start = p;
	u64 m = 0;

	while (rsp_hexval(*p) >= 0)
		p++;
	if (p == start)
		return NULL;
	/* Registers above 63 cannot be collected from pt_regs anyway. */
	rsp_parse_hex(p - min_t(size_t, p - start, 16), &m);
	*mask = m;
	return p;
}

/* M<basereg>,<offset>,<len>; basereg is signed ("-1" = absolute). */
static const char *parse_mem(const char *p, struct gtp_action *a)
{
	bool neg = *p == '-';
	u64 reg;

	if (neg)
		p++;
	if (!(p = rsp_parse_hex(p, &reg)) || *p++ != ',' ||
	    !(p = rsp_parse_hex(p, &a->offset)) || *p++ != ',' ||
	    !(p = rsp_parse_hex(p, &a->len)))
		return NULL;
	if (neg && reg != 1)
		return NULL;
	if (!neg && reg >= AX_NR_GDB_REGS)
		return NULL;
	a->basereg = neg ? -1 : (int)reg;
	return p;
}

/* One action chunk: actions back to back, '-' at the end if more follow. */
static int parse_actions(struct gtp_conn *gc, struct gtp_tp *tp,
			 const char *p)
{
	while (*p && *p != '-') {
		struct gtp_action a = { 0 };

		/* before anything is compiled: the limit costs nothing */
		if (tp->nactions >= GTP_TP_ACTIONS_MAX) {
			gtp_console(gc, "gtp: tracepoint %u: more than %u actions\n",
				    tp->num, GTP_TP_ACTIONS_MAX);
			gtp_reply_error(gc, 1);
			return -E2BIG;
		}
		switch (*p++) {
		case 'R':
			a.type = GTP_ACT_REGS;
			p = parse_regmask(p, &a.regmask);
			break;
		case 'M':
			a.type = GTP_ACT_MEM;
			p = parse_mem(p, &a);
			/* no frame is longer than the largest buffer */
			if (p && a.len > GTP_MAX_BUF_SIZE) {
				gtp_console(gc, "gtp: tracepoint %u: memory range of %llu bytes is longer than any trace buffer\n",
					    tp->num, (unsigned long long)a.len);
				gtp_reply_error(gc, 1);
				return -EINVAL;
			}
			break;
		case 'X':
			a.type = GTP_ACT_EXPR;
			if (parse_bytecode(gc, tp, &p, false, &a.prog))
				return -EINVAL;
			break;
		case 'L':
			a.type = GTP_ACT_SDATA;
			break;
		default:
			p = NULL;
		}
		if (!p) {
			refuse(gc, "malformed action", tp->num);
			return -EINVAL;
		}
		if (add_action(tp, &a)) {
			gtp_tp_prog_free(a.prog);
			refuse(gc, "out of memory", tp->num);
			return -ENOMEM;
		}
	}
	if (*p == '-' && p[1]) {
		refuse(gc, "malformed action", tp->num);
		return -EINVAL;
	}
	return 0;
}

/* QTDP:-<n>:<addr>:<actions>[-] */
static void qtdp_actions(struct gtp_conn *gc, const char *p)
{
	u64 num, addr;
	struct gtp_tp *tp;
	const char *acts;
	char *chunk;
	size_t len;
	u32 old_n;
	u64 old_mask;

	if (!(p = rsp_parse_hex(p, &num)) || *p++ != ':' ||
	    !(p = rsp_parse_hex(p, &addr)) || *p++ != ':') {
		gtp_console(gc, "gtp: malformed QTDP packet\n");
		gtp_reply_error(gc, 1);
		return;
	}
	tp = gtp_tp_find(num, addr);
	if (!tp) {
		refuse(gc, "actions for an undefined tracepoint", num);
		return;
	}
	if (*p == 'S') {
		refuse(gc, "while-stepping is not supported by gtp", num);
		return;
	}
	if (tp->chunks.n >= GTP_TP_CHUNKS_MAX) {
		gtp_console(gc, "gtp: tracepoint %u: more than %u action packets\n",
			    tp->num, GTP_TP_CHUNKS_MAX);
		gtp_reply_error(gc, 1);
		return;
	}
	acts = p;
	old_n = tp->nactions;
	old_mask = tp->regmask;
	if (parse_actions(gc, tp, acts))
		goto drop_chunk;
	/* Keep the chunk without its "more follows" '-' for qTfP. */
	len = strlen(acts);
	if (len && acts[len - 1] == '-')
		len--;
	chunk = gtp_malloc(len + 1);
	if (!chunk) {
		refuse(gc, "out of memory", num);
		goto drop_chunk;
	}
	memcpy(chunk, acts, len);
	chunk[len] = '\0';
	if (gtp_strlist_add(&tp->chunks, chunk)) {
		gtp_free(chunk);
		refuse(gc, "out of memory", num);
		goto drop_chunk;
	}
	gtp_reply(gc, "OK");
	gtp_free(chunk);
	gtp_tp_plan(tp);
	return;
drop_chunk:
	/* gdb was told the chunk failed: none of it may stay. */
	while (tp->nactions > old_n)
		gtp_tp_prog_free(tp->actions[--tp->nactions].prog);
	tp->regmask = old_mask;
	gtp_tp_plan(tp);
}

void gtp_pkt_qtdp(struct gtp_conn *gc, char *args)
{
	if (gtp_trace_busy()) {
		gtp_console(gc, "gtp: tracepoints cannot change while a trace runs\n");
		gtp_reply_error(gc, 1);
		return;
	}
	if (*args == '-')
		qtdp_actions(gc, args + 1);
	else
		qtdp_define(gc, args);
}

/* Does another location share @tp's number (an inline's sites, a line)? */
static bool has_sibling(const struct gtp_tp *tp)
{
	const struct gtp_tp *o;

	for (o = gtp_tps; o; o = o->next)
		if (o != tp && o->num == tp->num)
			return true;
	return false;
}

static bool has_regs(const struct gtp_tp *tp)
{
	u32 i;

	for (i = 0; i < tp->nactions; i++)
		if (tp->actions[i].type == GTP_ACT_REGS)
			return true;
	return false;
}

/**
 * gtp_tps_mark_sites() - at QTStart, what each location's hits must carry
 *
 * gdb tells a frame's location by the frame's $pc: a frame with no R
 * block is taken for the tracepoint's first location, and its variables
 * are then read with that location's DWARF.  So every location of a
 * tracepoint with several records an R block (only its pc need be
 * available).  And a location reading entry values has them recorded.
 */
void gtp_tps_mark_sites(void)
{
	struct gtp_action pc = {
		.type = GTP_ACT_REGS,
		.regmask = 1ull << 16,	/* gdb's rip */
	};
	struct gtp_tp *tp;

	for (tp = gtp_tps; tp; tp = tp->next) {
		tp->reads_entry = gtp_tp_reads_entry(tp);
		if (tp->is_static || has_regs(tp) || !has_sibling(tp))
			continue;
		/* out of memory: frames then name the first location */
		if (!add_action(tp, &pc)) {
			tp->site_pc = true;
			gtp_tp_plan(tp);
		}
	}
}
