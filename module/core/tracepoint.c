// SPDX-License-Identifier: GPL-2.0
/*
 * tracepoint.c - the table of tracepoint locations and its lifetime.
 *
 * Locations are defined by QTDP (tp_define.c), described and switched by
 * QTDPsrc/QTEnable/QTDisable/qTP (tp_state.c) and handed back to a
 * reconnecting gdb by qTfP/qTsP (tp_upload.c); tp_packets.c registers
 * those packets.  This file owns the list itself: lookup, insertion,
 * freeing, the per-run counters.
 */
#include "tracepoint.h"
#include "tp_internal.h"
#include "jit.h"
#include "tsv.h"

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

int gtp_strlist_add(struct gtp_strlist *l, const char *s)
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

/*
 * JIT images held by the current definitions and by the probes armed for
 * them (GTP_JIT_IMAGES_MAX): a probe's own image (gtp_tp_jit_probe())
 * takes executable memory as a program's does.  Under gtp_mutex, as are
 * definitions, arming and disarming.
 */
static u32 jit_images;

void gtp_tp_prog_free(struct ax_prog *prog)
{
	if (!prog)
		return;
	if (prog->jit) {
		ax_jit_free(prog);
		jit_images--;
	}
	ax_prog_free(prog);
}

/**
 * gtp_tp_jit() - JIT-compile a new definition's program, within the limit
 * @prog: verified; interpreted when this fails
 * @log: the reason when it fails
 * @logsz: bytes at @log
 *
 * Return: 0 when @prog now runs compiled, else -errno (-ENOSPC: the
 * GTP_JIT_IMAGES_MAX images exist already).
 */
int gtp_tp_jit(struct ax_prog *prog, char *log, size_t logsz)
{
	int ret;

	if (jit_images >= GTP_JIT_IMAGES_MAX) {
		scnprintf(log, logsz, "jit: limit of %u images reached",
			  GTP_JIT_IMAGES_MAX);
		return -ENOSPC;
	}
	ret = ax_jit_compile(prog, log, logsz);
	if (!ret)
		jit_images++;
	return ret;
}

/**
 * gtp_tp_jit_probe() - ax_jit_probe_compile(), within the limit
 * @cond:	the condition the probe decides
 * @hit:	where a true hit goes on
 * @ctx:	what @hit is handed
 * @flags:	AX_JIT_PROBE_*
 * @out:	the probe; free it with gtp_tp_jit_probe_free()
 * @log:	the reason when it fails
 * @logsz:	bytes at @log
 *
 * A probe arms without an image of its own when this fails: its backend
 * falls back to the generic handler, as for any condition the JIT cannot
 * compile so.
 *
 * Return: 0, or -errno (-ENOSPC: GTP_JIT_IMAGES_MAX images exist already).
 */
int gtp_tp_jit_probe(struct ax_prog *cond, void *hit, void *ctx,
		     unsigned int flags, struct ax_jit_probe *out,
		     char *log, size_t logsz)
{
	int ret;

	if (jit_images >= GTP_JIT_IMAGES_MAX) {
		out->entry = NULL;
		scnprintf(log, logsz, "jit: limit of %u images reached",
			  GTP_JIT_IMAGES_MAX);
		return -ENOSPC;
	}
	ret = ax_jit_probe_compile(cond, hit, ctx, flags, out, log, logsz);
	if (!ret)
		jit_images++;
	return ret;
}

/* Free a probe of gtp_tp_jit_probe() (none: nothing). */
void gtp_tp_jit_probe_free(struct ax_jit_probe *probe)
{
	if (!probe->entry)
		return;
	ax_jit_probe_free(probe);
	jit_images--;
}

/* Does @tp run an image that loads directly from what @pin holds? */
static bool tp_holds(const struct gtp_tp *tp, const void *pin)
{
	u32 i;

	if (ax_jit_holds(tp->cond, pin))
		return true;
	for (i = 0; i < tp->nactions; i++)
		if (ax_jit_holds(tp->actions[i].prog, pin))
			return true;
	return false;
}

/**
 * gtp_tps_jit_holder() - which tracepoint's JIT code reads through @pin?
 * @pin: a pin the host's jit_direct handed out
 *
 * Return: the number of the first such tracepoint, or 0.
 */
u32 gtp_tps_jit_holder(const void *pin)
{
	struct gtp_tp *tp;

	for (tp = gtp_tps; tp; tp = tp->next)
		if (tp_holds(tp, pin))
			return tp->num;
	return 0;
}

static void prog_drop_jit(struct ax_prog *prog, const void *pin)
{
	if (ax_jit_holds(prog, pin)) {
		ax_jit_free(prog);	/* and its pins */
		jit_images--;
	}
}

/**
 * gtp_tps_jit_drop() - free every JIT image that holds @pin
 * @pin: a pin the host's jit_direct handed out (what it pins is going)
 *
 * Their programs are interpreted from now on: every read through the
 * nofault hook.  Only while no probe runs them.
 */
void gtp_tps_jit_drop(const void *pin)
{
	struct gtp_tp *tp;
	u32 i;

	for (tp = gtp_tps; tp; tp = tp->next) {
		prog_drop_jit(tp->cond, pin);
		for (i = 0; i < tp->nactions; i++)
			prog_drop_jit(tp->actions[i].prog, pin);
	}
}

void gtp_tp_free(struct gtp_tp *tp)
{
	u32 i;

	gtp_tp_prog_free(tp->cond);
	gtp_free(tp->cond_hex);
	for (i = 0; i < tp->nactions; i++)
		gtp_tp_prog_free(tp->actions[i].prog);
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
		gtp_tp_free(tp);
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

/* The JIT declined one expression of a new definition, saying @why. */
void gtp_tps_note_interpreted(const char *why)
{
	interp_count++;
	scnprintf(interp_why, sizeof(interp_why), "%s", why);
}

/* A new run starts: hit counts and usage start from zero. */
void gtp_tps_reset_counts(void)
{
	struct gtp_tp *tp;

	for (tp = gtp_tps; tp; tp = tp->next) {
		atomic_long_set(&tp->hits, 0);
		atomic_long_set(&tp->usage, 0);
		atomic_long_set(&tp->errors, 0);
		atomic_long_set(&tp->cost, 0);
		tp->last_err = 0;
		tp->missed = 0;
		WRITE_ONCE(tp->tripped, GTP_TRIP_NONE);
	}
}

/*
 * A location whose actions set $kret ("teval $kret = 0") is a return
 * probe: the host attaches it to the function's return.  Decided at
 * QTStart, when gdb has named its variables (QTDV may follow QTDP).
 */
void gtp_tps_mark_returns(void)
{
	struct gtp_tp *tp;
	u32 i;

	for (tp = gtp_tps; tp; tp = tp->next) {
		tp->at_return = false;
		for (i = 0; i < tp->nactions; i++)
			if (tp->actions[i].type == GTP_ACT_EXPR &&
			    gtp_prog_sets_builtin(tp->actions[i].prog,
						  GTP_TSV_KRET))
				tp->at_return = true;
	}
}

unsigned int gtp_tp_count(void)
{
	struct gtp_tp *tp;
	unsigned int n = 0;

	for (tp = gtp_tps; tp; tp = tp->next)
		n++;
	return n;
}

struct gtp_tp *gtp_tp_alloc(u32 num, u64 addr)
{
	struct gtp_tp *tp = gtp_zalloc(sizeof(*tp));

	if (!tp)
		return NULL;
	tp->num = num;
	tp->addr = addr;
	return tp;
}

/* Insert @tp, replacing an older definition of the same location. */
void gtp_tp_insert(struct gtp_tp *tp)
{
	struct gtp_tp **pp;

	for (pp = &gtp_tps; *pp; pp = &(*pp)->next) {
		if ((*pp)->num == tp->num && (*pp)->addr == tp->addr) {
			struct gtp_tp *old = *pp;

			tp->next = old->next;
			*pp = tp;
			gtp_tp_free(old);
			return;
		}
	}
	*pp = tp;
}

/*
 * "<n>:<addr>" naming a defined location, as QTDPsrc, QTEnable/QTDisable
 * and qTP start.  Returns the location and leaves *@pp after the address,
 * or NULL (malformed, or no such location).
 */
struct gtp_tp *gtp_tp_parse_ref(const char **pp)
{
	const char *p = *pp;
	u64 num, addr;

	if (!(p = rsp_parse_hex(p, &num)) || *p++ != ':' ||
	    !(p = rsp_parse_hex(p, &addr)))
		return NULL;
	*pp = p;
	return gtp_tp_find(num, addr);
}
