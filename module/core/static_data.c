// SPDX-License-Identifier: GPL-2.0
/*
 * static_data.c - $_sdata: collect a static tracepoint's raw arguments on
 * the probe path, format them as text when gdb reads them.
 *
 * The split is the point: the probe path copies at most a dozen words
 * (registers, then stack words read nofault), and all the printf work
 * happens at qXfer:statictrace:read time, in process context, once per
 * frame gdb actually looks at.  See static_data.h for the layouts.
 */
#include "static_data.h"
#include "fbuild.h"
#include "fwalk.h"

/* qTSTMat answers a marker only while this is set (QTinit..QTStart). */
static bool stmat_open;

void gtp_static_on_qtinit(void)
{
	WRITE_ONCE(stmat_open, true);
}

void gtp_static_on_start(void)
{
	WRITE_ONCE(stmat_open, false);
}

void gtp_static_on_stop(void)
{
	WRITE_ONCE(stmat_open, false);
}

bool gtp_static_stmat_open(void)
{
	return READ_ONCE(stmat_open);
}

/* pt_regs slots of argument 1..5 (argument 0 is the probe's data, rdi). */
static u64 reg_arg(const struct pt_regs *regs, u32 i)
{
	switch (i) {
	case 0: return regs->si;
	case 1: return regs->dx;
	case 2: return regs->cx;
	case 3: return regs->r8;
	default: return regs->r9;
	}
}

/**
 * gtp_sdata_collect - build a $_sdata record from a static probe's regs
 * @regs:	&sr->regs of a struct gtp_static_regs (a static hit)
 * @dst:	where the record goes
 * @room:	bytes available at @dst
 *
 * Arguments past the fifth are on the stack above the return address; they
 * are read nofault and flagged in ->unread if that fails (never on a sane
 * kernel, but the probe path must not fault whatever happens).
 *
 * Return: the bytes written, or 0 if @room is too small.
 */
u32 gtp_sdata_collect(const struct pt_regs *regs, void *dst, u32 room)
{
	const struct gtp_static_regs *sr = gtp_static_regs(regs);
	struct gtp_sdata_rec *rec = dst;
	u32 i, n = min_t(u32, sr->nargs, GTP_SDATA_MAX_ARGS);

	if (room < gtp_sdata_size(n))
		return 0;
	rec->addr = regs->ip;
	rec->nwords = n;
	rec->unread = 0;
	for (i = 0; i < n; i++) {
		u64 sp_slot;

		if (i < GTP_SDATA_REG_ARGS) {
			rec->words[i] = reg_arg(regs, i);
			continue;
		}
		/* [sp] is the return address, arg 6 is at sp + 8 */
		sp_slot = regs->sp + 8 * (i - GTP_SDATA_REG_ARGS + 1);
		if (gtp_read_nofault(&rec->words[i], sp_slot, 8)) {
			rec->words[i] = 0;
			rec->unread |= 1u << i;
		}
	}
	return gtp_sdata_size(n);
}

/**
 * gtp_fb_sdata - the 'L' action: store this hit's $_sdata in the frame
 * @fb:		the frame under construction
 * @regs:	&sr->regs of a static hit (never a kprobe's pt_regs)
 *
 * Return: 0, or -ENOSPC (frame full: marked truncated, nothing written).
 */
int gtp_fb_sdata(struct gtp_fbuild *fb, const struct pt_regs *regs)
{
	u64 rec[(sizeof(struct gtp_sdata_rec) / 8) + GTP_SDATA_MAX_ARGS];
	u32 n;

	if (!fb)
		return -EINVAL;
	n = gtp_sdata_collect(regs, rec, sizeof(rec));
	if (!n) {
		fb->truncated = true;
		return -ENOSPC;
	}
	return gtp_fb_put_mem(fb, GTP_SDATA_ADDR, rec, n);
}

/**
 * gtp_frame_sdata_find - locate the $_sdata record of a stored frame
 * @frame:	the frame's bytes
 * @flen:	its length
 * @off:	set to the record's offset in @frame
 * @len:	set to the record's length
 *
 * Walks the blocks (fwalk.h); a malformed frame simply has no record.
 *
 * Return: 0 with @off and @len set, or -ENOENT when there is no record.
 */
int gtp_frame_sdata_find(const u8 *frame, u32 flen, u32 *off, u32 *len)
{
	struct gtp_fwalk w;
	struct gtp_fblock b;

	gtp_fwalk_init(&w, frame, flen);
	while (gtp_fwalk_next(&w, &b)) {
		if (b.type == 'M' && b.addr == GTP_SDATA_ADDR) {
			*off = b.data - frame;
			*len = b.len;
			return 0;
		}
	}
	return -ENOENT;
}

/* Append to a bounded buffer; *pos may pass @size (then we only count). */
static void put(char *buf, size_t size, size_t *pos, const char *s)
{
	size_t n = strlen(s);

	if (*pos < size) {
		size_t k = min_t(size_t, n, size - 1 - *pos);

		memcpy(buf + *pos, s, k);
		buf[*pos + k] = '\0';
	}
	*pos += n;
}

static void put_value(char *tmp, size_t tsz, u64 w,
		      const struct gtp_sdata_field *f)
{
	/* Arguments narrower than a word have garbage above them. */
	switch (f ? f->size : 8) {
	case 1:
		if (f->is_signed)
			scnprintf(tmp, tsz, "%d", (int)(s8)w);
		else
			scnprintf(tmp, tsz, "%u", (unsigned int)(u8)w);
		return;
	case 2:
		if (f->is_signed)
			scnprintf(tmp, tsz, "%d", (int)(s16)w);
		else
			scnprintf(tmp, tsz, "%u", (unsigned int)(u16)w);
		return;
	case 4:
		if (f->is_signed)
			scnprintf(tmp, tsz, "%d", (int)(s32)w);
		else
			scnprintf(tmp, tsz, "%u", (unsigned int)(u32)w);
		return;
	default:
		if (f && f->is_signed)
			scnprintf(tmp, tsz, "%lld", (long long)(s64)w);
		else
			scnprintf(tmp, tsz, "0x%llx", (unsigned long long)w);
	}
}

/**
 * gtp_sdata_format - $_sdata text of one record
 * @rec:	the record as stored in the frame
 * @len:	its length in bytes
 * @fields:	names/sizes of the arguments, or NULL (then "argN=0x...")
 * @nfields:	entries in @fields; used only if it equals rec->nwords
 * @buf:	output, always NUL terminated when @size > 0
 * @size:	bytes at @buf
 *
 * Output: "counter1=1 counter2=0"; an unreadable stack argument prints as
 * "name=<unavailable>".
 *
 * Return: the length of the full text (which may exceed @size - 1, as
 * snprintf does), or -EINVAL for a truncated or inconsistent record.
 */
int gtp_sdata_format(const struct gtp_sdata_rec *rec, u32 len,
		     const struct gtp_sdata_field *fields, u32 nfields,
		     char *buf, size_t size)
{
	size_t pos = 0;
	char tmp[64];
	u32 i;

	if (len < sizeof(*rec) || rec->nwords > GTP_SDATA_MAX_ARGS ||
	    len < gtp_sdata_size(rec->nwords))
		return -EINVAL;
	if (size)
		buf[0] = '\0';
	if (nfields != rec->nwords)
		fields = NULL;
	for (i = 0; i < rec->nwords; i++) {
		const struct gtp_sdata_field *f = fields ? &fields[i] : NULL;

		if (i)
			put(buf, size, &pos, " ");
		if (f) {
			put(buf, size, &pos, f->name);
		} else {
			scnprintf(tmp, sizeof(tmp), "arg%u", i + 1);
			put(buf, size, &pos, tmp);
		}
		put(buf, size, &pos, "=");
		if (rec->unread & (1u << i))
			scnprintf(tmp, sizeof(tmp), "<unavailable>");
		else
			put_value(tmp, sizeof(tmp), rec->words[i], f);
		put(buf, size, &pos, tmp);
	}
	return pos;
}
