// SPDX-License-Identifier: GPL-2.0
/*
 * tracepoint.c - QTDP, QTDPsrc, QTEnable/QTDisable, qTP, qTfP/qTsP.
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
 * The raw action chunks and source strings are kept verbatim: qTfP/qTsP
 * hand them back so a reconnecting gdb (or tsave) rebuilds the same
 * tracepoints.
 */
#include "tracepoint.h"
#include "host.h"
#include "trace.h"
#include "jit.h"
#include "collect.h"

struct gtp_tp *gtp_tps;

struct gtp_tp *gtp_tp_find(u32 num, u64 addr)
{
	struct gtp_tp *tp;

	for (tp = gtp_tps; tp; tp = tp->next)
		if (tp->num == num && tp->addr == addr)
			return tp;
	return NULL;
}

/* First location of tracepoint @num. */
struct gtp_tp *gtp_tp_find_num(u32 num)
{
	struct gtp_tp *tp;

	for (tp = gtp_tps; tp; tp = tp->next)
		if (tp->num == num)
			return tp;
	return NULL;
}

static void strlist_free(struct gtp_strlist *l)
{
	u32 i;

	for (i = 0; i < l->n; i++)
		gtp_free(l->s[i]);
	gtp_free(l->s);
	l->s = NULL;
	l->n = 0;
}

static int strlist_add(struct gtp_strlist *l, const char *s)
{
	size_t len = strlen(s);
	char **ns, *copy;

	copy = gtp_malloc(len + 1);
	ns = gtp_malloc((l->n + 1) * sizeof(*ns));
	if (!copy || !ns) {
		gtp_free(copy);
		gtp_free(ns);
		return -ENOMEM;
	}
	memcpy(copy, s, len + 1);
	if (l->n)
		memcpy(ns, l->s, l->n * sizeof(*ns));
	gtp_free(l->s);
	ns[l->n++] = copy;
	l->s = ns;
	return 0;
}

static void prog_free(struct ax_prog *prog)
{
	if (!prog)
		return;
	if (prog->jit)
		ax_jit_free(prog);
	ax_prog_free(prog);
}

static void tp_free(struct gtp_tp *tp)
{
	u32 i;

	prog_free(tp->cond);
	gtp_free(tp->cond_hex);
	for (i = 0; i < tp->nactions; i++)
		prog_free(tp->actions[i].prog);
	gtp_free(tp->actions);
	strlist_free(&tp->chunks);
	strlist_free(&tp->srcs);
	gtp_free(tp);
}

/*
 * Expressions of the current definitions that run interpreted because the
 * JIT could not take them, and the last reason: QTStart says so on gdb's
 * console, so a kernel without executable memory is never silently slower.
 */
static u32 interp_count;
static char interp_why[96];

/* Forget every definition (QTinit).  Nothing may be attached. */
void gtp_tps_free(void)
{
	while (gtp_tps) {
		struct gtp_tp *tp = gtp_tps;

		gtp_tps = tp->next;
		tp_free(tp);
	}
	interp_count = 0;
	interp_why[0] = '\0';
}

/**
 * gtp_tps_interpreted - how many expressions run without the JIT
 * @why: set to the last reason (valid until the next QTinit)
 *
 * Return: the count since the last QTinit (0: everything is compiled).
 */
u32 gtp_tps_interpreted(const char **why)
{
	*why = interp_why;
	return interp_count;
}

/* A new run starts: hit counts and usage start from zero. */
void gtp_tps_reset_counts(void)
{
	struct gtp_tp *tp;

	for (tp = gtp_tps; tp; tp = tp->next) {
		atomic_long_set(&tp->hits, 0);
		atomic_long_set(&tp->usage, 0);
		atomic_long_set(&tp->errors, 0);
		tp->last_err = 0;
	}
}

/* Refuse a packet: a console line saying why, then E01. */
static void refuse(struct gtp_conn *gc, const char *why, u32 num)
{
	gtp_console(gc, "gtp: tracepoint %u: %s\n", num, why);
	gtp_reply_error(gc, 1);
}

/*
 * Decode "<len>,<hex>" at *@pp (len in hex bytes), verify it, try the JIT.
 * On success *@pp points after the hex and *@out holds the program.
 */
static int parse_bytecode(struct gtp_conn *gc, u32 num, const char **pp,
			  bool is_cond, struct ax_prog **out)
{
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
	ret = ax_jit_compile(*out, log, sizeof(log));
	if (ret) {
		interp_count++;
		scnprintf(interp_why, sizeof(interp_why), "%s", log);
	}
	if (ret && ret != -EOPNOTSUPP)
		gtp_console(gc, "gtp: tracepoint %u: JIT failed (%s), interpreting\n",
			    num, log);
	*pp = p + 2 * len;
	return 0;
}

static unsigned int tp_count(void)
{
	struct gtp_tp *tp;
	unsigned int n = 0;

	for (tp = gtp_tps; tp; tp = tp->next)
		n++;
	return n;
}

static struct gtp_tp *tp_alloc(u32 num, u64 addr)
{
	struct gtp_tp *tp = gtp_zalloc(sizeof(*tp));

	if (!tp)
		return NULL;
	tp->num = num;
	tp->addr = addr;
	return tp;
}

/* Insert @tp, replacing an older definition of the same location. */
static void tp_insert(struct gtp_tp *tp)
{
	struct gtp_tp **pp;

	for (pp = &gtp_tps; *pp; pp = &(*pp)->next) {
		if ((*pp)->num == tp->num && (*pp)->addr == tp->addr) {
			struct gtp_tp *old = *pp;

			tp->next = old->next;
			*pp = tp;
			tp_free(old);
			return;
		}
	}
	*pp = tp;
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
			if (parse_bytecode(gc, tp->num, &p, true, &tp->cond))
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
	if (!gtp_tp_find(num, addr) && tp_count() >= GTP_TP_MAX) {
		refuse(gc, "too many tracepoint locations", num);
		return;
	}
	tp = tp_alloc(num, addr);
	if (!tp) {
		refuse(gc, "out of memory", num);
		return;
	}
	tp->enabled = enabled;
	tp->pass = pass;
	if (parse_def_options(gc, tp, &p)) {
		tp_free(tp);
		return;
	}
	if (*p == '-')
		p++;
	if (*p) {
		tp_free(tp);
		goto malformed;
	}
	tp_insert(tp);
	gtp_reply(gc, "OK");
	return;
malformed:
	gtp_console(gc, "gtp: malformed QTDP packet\n");
	gtp_reply_error(gc, 1);
}

static int add_action(struct gtp_tp *tp, const struct gtp_action *a)
{
	struct gtp_action *na;

	na = gtp_malloc((tp->nactions + 1) * sizeof(*na));
	if (!na)
		return -ENOMEM;
	if (tp->nactions)
		memcpy(na, tp->actions, tp->nactions * sizeof(*na));
	na[tp->nactions++] = *a;
	gtp_free(tp->actions);
	tp->actions = na;
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
			if (parse_bytecode(gc, tp->num, &p, false, &a.prog))
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
			prog_free(a.prog);
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
	if (strlist_add(&tp->chunks, chunk)) {
		gtp_free(chunk);
		refuse(gc, "out of memory", num);
		goto drop_chunk;
	}
	gtp_reply(gc, "OK");
	gtp_free(chunk);
	tp->frame_len = gtp_tp_exact_frame_len(tp);
	return;
drop_chunk:
	/* gdb was told the chunk failed: none of it may stay. */
	while (tp->nactions > old_n)
		prog_free(tp->actions[--tp->nactions].prog);
	tp->regmask = old_mask;
	tp->frame_len = gtp_tp_exact_frame_len(tp);
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

/*
 * <at|cond|cmd>:<start>:<slen>:<hex>, as gdb sends it.  qTfP hands it
 * back to every gdb that connects, whose parser follows the colons blindly
 * (a missing one crashes it) and hex-decodes the rest.
 */
static bool src_ok(const char *p)
{
	u64 v;
	size_t n;

	if (!strncmp(p, "at:", 3))
		p += 3;
	else if (!strncmp(p, "cond:", 5))
		p += 5;
	else if (!strncmp(p, "cmd:", 4))
		p += 4;
	else
		return false;
	if (!(p = rsp_parse_hex(p, &v)) || *p++ != ':' ||
	    !(p = rsp_parse_hex(p, &v)) || *p++ != ':')
		return false;
	for (n = 0; p[n]; n++)
		if (rsp_hexval(p[n]) < 0)
			return false;
	return !(n & 1);
}

/*
 * "at:<start>:<len>:<hex of '*...'>": a location given as an address
 * expression, e.g. "*(gtp_test_function + 5)".  A gdb that connects
 * without those symbols cannot re-create such a tracepoint from our upload
 * and refuses the whole connection ("No symbol table is loaded"), so we
 * keep no such source: gdb then uses the address, which is the same.
 */
static bool src_is_address_expr(const char *p)
{
	if (strncmp(p, "at:", 3))
		return false;
	p = strchr(p + 3, ':');		/* after <start> */
	if (p)
		p = strchr(p + 1, ':');	/* after <len> */
	return p && !strncmp(p + 1, "2a", 2);
}

/*
 * "<n>:<addr>" naming a defined location, as QTDPsrc, QTEnable/QTDisable
 * and qTP start.  Returns the location and leaves *@pp after the address,
 * or NULL (malformed, or no such location).
 */
static struct gtp_tp *parse_tp_ref(const char **pp)
{
	const char *p = *pp;
	u64 num, addr;

	if (!(p = rsp_parse_hex(p, &num)) || *p++ != ':' ||
	    !(p = rsp_parse_hex(p, &addr)))
		return NULL;
	*pp = p;
	return gtp_tp_find(num, addr);
}

/* QTDPsrc:<n>:<addr>:<type>:<start>:<slen>:<hex> - kept for Z pieces. */
static void pkt_qtdpsrc(struct gtp_conn *gc, char *args)
{
	const char *p = args;
	struct gtp_tp *tp = parse_tp_ref(&p);

	if (!tp || *p++ != ':') {
		gtp_reply_error(gc, 1);
		return;
	}
	if (!src_ok(p)) {
		gtp_console(gc, "gtp: tracepoint %u: malformed QTDPsrc packet\n",
			    tp->num);
		gtp_reply_error(gc, 1);
		return;
	}
	if (src_is_address_expr(p)) {
		gtp_reply(gc, "OK");	/* upload "*0xADDR" instead */
		return;
	}
	if (strlist_add(&tp->srcs, p))
		gtp_reply_error(gc, 1);
	else
		gtp_reply(gc, "OK");
}

/* QTEnable:<n>:<addr> / QTDisable:<n>:<addr>, also while running. */
static void set_enabled(struct gtp_conn *gc, char *args, bool enabled)
{
	const char *p = args;
	struct gtp_tp *tp = parse_tp_ref(&p);

	if (!tp || *p) {
		gtp_reply_error(gc, 1);
		return;
	}
	WRITE_ONCE(tp->enabled, enabled);
	if (tp->probe)
		gtp_host->set_enabled(tp, enabled);
	gtp_reply(gc, "OK");
}

static void pkt_qtenable(struct gtp_conn *gc, char *args)
{
	set_enabled(gc, args, true);
}

static void pkt_qtdisable(struct gtp_conn *gc, char *args)
{
	set_enabled(gc, args, false);
}

/* qTP:<n>:<addr> -> V<hits>:<usage>, both hex. */
static void pkt_qtp(struct gtp_conn *gc, char *args)
{
	const char *p = args;
	struct gtp_tp *tp = parse_tp_ref(&p);

	if (!tp || *p) {
		gtp_reply_error(gc, 1);
		return;
	}
	gtp_replyf(gc, "V%lx:%lx", atomic_long_read(&tp->hits),
		   atomic_long_read(&tp->usage));
}

/*
 * Upload piece @sub of @tp: 0 = T (definition), then one A per action
 * chunk, then one Z per source string.  Returns false past the last.
 */
static bool upload_piece(struct gtp_conn *gc, struct gtp_tp *tp, u32 sub)
{
	if (sub == 0) {
		gtp_replyf(gc, "T%x:%llx:%c:%llx:%llx", tp->num,
			   (unsigned long long)tp->addr, tp->enabled ? 'E' : 'D',
			   (unsigned long long)tp->step,
			   (unsigned long long)tp->pass);
		if (tp->is_static)
			gtp_reply(gc, ":S");
		if (tp->cond_hex)
			gtp_replyf(gc, ":%s", tp->cond_hex);
		return true;
	}
	sub--;
	if (sub < tp->chunks.n) {
		gtp_replyf(gc, "A%x:%llx:%s", tp->num,
			   (unsigned long long)tp->addr, tp->chunks.s[sub]);
		return true;
	}
	sub -= tp->chunks.n;
	if (sub < tp->srcs.n) {
		gtp_replyf(gc, "Z%x:%llx:%s", tp->num,
			   (unsigned long long)tp->addr, tp->srcs.s[sub]);
		return true;
	}
	return false;
}

/* Next upload piece after the cursor in @gc, or 'l'. */
static void upload_next(struct gtp_conn *gc)
{
	struct gtp_tp *tp;
	u32 i;

	for (;;) {
		for (tp = gtp_tps, i = 0; tp && i < gc->upload_pos; i++)
			tp = tp->next;
		if (!tp) {
			gtp_reply(gc, "l");
			return;
		}
		if (upload_piece(gc, tp, gc->upload_sub++))
			return;
		gc->upload_pos++;
		gc->upload_sub = 0;
	}
}

static void pkt_qtfp(struct gtp_conn *gc, char *args)
{
	gc->upload_pos = 0;
	gc->upload_sub = 0;
	upload_next(gc);
}

static void pkt_qtsp(struct gtp_conn *gc, char *args)
{
	upload_next(gc);
}

static const struct gtp_pkt_handler tp_handlers[] = {
	{ "QTDPsrc:", 0, pkt_qtdpsrc },
	{ "QTDP:", 0, gtp_pkt_qtdp },
	{ "QTEnable:", 0, pkt_qtenable },
	{ "QTDisable:", 0, pkt_qtdisable },
	{ "qTP:", 0, pkt_qtp },
	{ "qTfP", GTP_PKT_EXACT, pkt_qtfp },
	{ "qTsP", GTP_PKT_EXACT, pkt_qtsp },
	{ NULL },
};

static struct gtp_pkt_table tp_table = {
	.handlers = tp_handlers,
	/* tracenz: the interpreter and JIT run it, ax_hook_trace() stops at NUL */
	.features = "ConditionalTracepoints+;TracepointSource+;"
		    "EnableDisableTracepoints+;tracenz+",
};

void gtp_tracepoint_init(void)
{
	gtp_packets_register(&tp_table);
}
