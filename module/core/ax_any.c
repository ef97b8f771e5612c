// SPDX-License-Identifier: GPL-2.0
/*
 * ax_any.c - one condition that holds when any of several does.
 *
 * Several tracepoints on one function can share one probe only if that
 * probe decides all their conditions: ax_cond_any() joins them into one
 * bytecode program, each condition's 'end' becoming "if_goto TRUE" (and,
 * where more code of it follows, "goto" to the next condition), then
 * "const8 0; end" and at TRUE "const8 1; end".  The result is verified
 * again by ax_verify(), like anything gdb sends: nothing is trusted to
 * have been joined right.  Whoever gets true still decides which of the
 * tracepoints hold, each with its own condition.
 *
 * Only conditions whose every 'end' leaves one value join (gdb's always
 * do): then the stack is empty where each next one starts.
 */
#include "ax_any.h"

/* Bytes in the joined program at a condition's 'end' insn @i. */
static u32 end_size(const struct ax_prog *c, u32 i)
{
	return i + 1 < c->ninsns ? 6 : 3;	/* if_goto [+ goto] */
}

static void put_jump(u8 *p, u8 op, u32 to)
{
	p[0] = op;
	p[1] = to >> 8;
	p[2] = to & 0xff;
}

/*
 * New offset of every insn, one array per condition, laid end to end;
 * the joined code's length, or 0 when a condition cannot join.
 */
static u32 layout(struct ax_prog *const *conds, u32 n, u32 *noff, u32 *start)
{
	u32 len = 0, k, i;

	for (k = 0; k < n; k++) {
		const struct ax_prog *c = conds[k];

		start[k] = len;
		for (i = 0; i < c->ninsns; i++) {
			const struct ax_insn *in = &c->insns[i];

			*noff++ = len;
			if (in->op != AX_END) {
				len += in->len;
				continue;
			}
			if (in->depth != 1)
				return 0;
			len += end_size(c, i);
		}
	}
	start[n] = len;
	return len;
}

/**
 * ax_cond_any - a condition true when any of @conds is
 * @conds:	verified conditions
 * @n:		how many (at least 1)
 * @out:	the joined program on success (free with ax_prog_free())
 * @log:	a one-line reason on failure
 * @logsz:	bytes at @log
 *
 * Return: 0, -EINVAL (a condition that does not join, or the verifier
 * refused the result), -E2BIG (longer than AX_MAX_CODE), -ENOMEM.
 */
int ax_cond_any(struct ax_prog *const *conds, u32 n, struct ax_prog **out,
		char *log, size_t logsz)
{
	u32 ninsns = 0, len, t, k, i, *noff, *start, *o;
	u8 *code, *p;
	int ret = -ENOMEM;

	*out = NULL;
	for (k = 0; k < n; k++)
		ninsns += conds[k]->ninsns;
	noff = gtp_malloc((ninsns + n + 1) * sizeof(*noff));
	if (!noff)
		return -ENOMEM;
	start = noff + ninsns;
	len = layout(conds, n, noff, start);
	if (!len) {
		scnprintf(log, logsz, "a condition leaves more than its value");
		ret = -EINVAL;
		goto out;
	}
	t = len + 3;			/* TRUE, after "const8 0; end" */
	if (t + 3 > AX_MAX_CODE) {
		scnprintf(log, logsz, "joined conditions longer than %u bytes",
			  AX_MAX_CODE);
		ret = -E2BIG;
		goto out;
	}
	code = gtp_malloc(t + 3);
	if (!code)
		goto out;
	p = code;
	for (o = noff, k = 0; k < n; o += conds[k]->ninsns, k++) {
		const struct ax_prog *c = conds[k];

		for (i = 0; i < c->ninsns; i++) {
			const struct ax_insn *in = &c->insns[i];

			if (in->op == AX_END) {
				put_jump(p, AX_IF_GOTO, t);
				if (end_size(c, i) == 6)
					put_jump(p + 3, AX_GOTO, start[k + 1]);
				p += end_size(c, i);
			} else if (in->op == AX_GOTO || in->op == AX_IF_GOTO) {
				put_jump(p, in->op, o[in->imm]);
				p += 3;
			} else {
				memcpy(p, c->code + in->off, in->len);
				p += in->len;
			}
		}
	}
	p[0] = AX_CONST8;
	p[1] = 0;
	p[2] = AX_END;
	p[3] = AX_CONST8;
	p[4] = 1;
	p[5] = AX_END;
	ret = ax_verify(code, t + 3, true, out, log, logsz);
	gtp_free(code);
out:
	gtp_free(noff);
	return ret;
}
