// SPDX-License-Identifier: GPL-2.0
/*
 * traceframe.c - gdb looking at collected frames.
 *
 * QTFrame selects a frame (by number, or searching forward from the
 * current one by pc, tracepoint or address range) and installs the frame
 * view on the connection, so 'g' and 'm' answer from the frame:
 *
 *   g: the frame's 'R' block, with registers the tracepoint did not
 *	collect sent as "xx" (gdb shows <unavailable>); or its 'r' block
 *	(regs.h: the registers an R action named), the ones outside its
 *	mask "xx"; without either only rip is known: it is the
 *	tracepoint's address.
 *   m: the first 'M' block holding the address (a short reply is fine,
 *	gdb asks again for the rest); else live memory inside a QTro range;
 *	else an error.
 *
 * The "pc" of a frame is its R or 'r' block's rip, or its tracepoint's address:
 * what tfind pc/range/outside compare against (protocol reference 6.4).
 *
 * qTBuffer serves the frames back to back in trace-file format, which is
 * how they are stored but for 'r' blocks: gdb's trace file has no such
 * block, so each is served as a whole 'R' block (the registers it lacks
 * zero) and its frame's size grown to match; host-side tsave then writes
 * a file "target tfile" reads.  Frames are only read once the run is over
 * (see trace.h).
 *
 * The stream (/proc/gtp_stream, gtp-ctl stream) may drain the frames
 * meanwhile: what it takes is gone and the frames left are numbered anew
 * (gtp_frames_taken() changes), so a frame number or a qTBuffer offset
 * gdb got before means another frame now.  Rather than answer from it,
 * a selection made before a take fails every read (g: every register
 * unavailable; m, traceframe-info, qTV: E01) and the next QTFrame but
 * "none", the QTFrame saying why on gdb's console; that QTFrame leaves no frame selected ("gone"), so gdb's next
 * one selects among the frames left: "tfind" would otherwise walk on in
 * the new numbers as if nothing happened.  A qTBuffer read that began
 * before a take fails, saying why, until gdb reads again from offset 0: a
 * tsave would mix the two numberings.
 */
#include "traceframe.h"
#include "fwalk.h"
#include "tracepoint.h"
#include "frame.h"
#include "run.h"

static u16 frame_tpnum(const u8 *f)
{
	u16 n;

	memcpy(&n, f, 2);
	return n;
}

static const struct gtp_view_ops frame_view, gone_view;

/*
 * Was the selected frame selected before the stream took frames (or did
 * gdb's QTFrame already hear so: the gone view)?  @say: tell gdb's
 * console why.  Only for packets whose reply gdb reads past 'O' packets:
 * it takes a console line before a 'g', 'm' or qXfer reply for the reply
 * itself ("Remote 'g' packet reply is of odd length"), so those answer
 * without one.
 */
static bool frame_gone(struct gtp_conn *gc, bool say)
{
	if (gc->view == &frame_view && gc->frame_taken == gtp_frames_taken())
		return false;
	if (say)
		gtp_console(gc, "gtp: trace frame %ld is gone: the stream (gtp-ctl stream) took frames since it was selected and the frames left are numbered anew: select one again (tfind start, tfind N)\n",
			    gc->frame);
	return true;
}

/* The selected frame, or NULL when there is none or it is gone. */
static const u8 *cur_frame(struct gtp_conn *gc, u32 *len)
{
	if (gc->frame < 0 || frame_gone(gc, false))
		return NULL;
	return gtp_frame_get(gc->frame, len);
}

/* The frame's pc: its R or 'r' block's rip, else its tracepoint's address. */
static u64 frame_pc(const u8 *f, u32 flen)
{
	struct gtp_tp *tp = gtp_tp_find_num(frame_tpnum(f));
	struct gtp_fwalk w;
	struct gtp_fblock b;
	u64 pc;

	gtp_fwalk_init(&w, f, flen);
	while (gtp_fwalk_next(&w, &b)) {
		if (b.type == 'R') {
			memcpy(&pc, b.data + 8 * GTP_RSUB_PC, 8);
			return pc;
		}
		/* the writers always put rip in: a frame's pc names its site */
		if (b.type == GTP_RSUB_BLOCK && (b.mask & (1u << GTP_RSUB_PC))) {
			memcpy(&pc, b.data + gtp_rsub_reg_off(b.mask, GTP_RSUB_PC),
			       8);
			return pc;
		}
	}
	return tp ? tp->addr : 0;
}

/*
 * The 'g' reply of a frame the stream took: every register unavailable.
 * Not E01: gdb reads the current frame's registers before every tfind
 * but "tfind none", and would be stuck on the error.
 */
static void reply_regs_gone(struct gtp_conn *gc)
{
	static const char xx[] = "xxxxxxxxxxxxxxxx";
	int i;

	for (i = 0; i < 24; i++)
		rsp_reply_mem(&gc->rsp, xx, 2 * gtp_g_reg_size(i));
}

static void frame_regs(struct gtp_conn *gc)
{
	static const char xx[] = "xxxxxxxxxxxxxxxx";
	const u8 *f, *regs = NULL;
	struct gtp_tp *tp;
	struct gtp_fwalk w;
	struct gtp_fblock b;
	u64 mask = 0, pc;
	u32 flen, off = 0, bmask = 0;
	bool sub = false;
	int i;

	if (frame_gone(gc, false)) {
		reply_regs_gone(gc);
		return;
	}
	f = cur_frame(gc, &flen);
	if (!f)
		return;
	pc = frame_pc(f, flen);
	/*
	 * The registers this location's actions asked for: each location of
	 * a tracepoint has its own (an inline's variable lives in another
	 * register at each site), and its pc names it.
	 */
	tp = gtp_tp_find(frame_tpnum(f), pc);
	if (!tp)
		tp = gtp_tp_find_num(frame_tpnum(f));
	gtp_fwalk_init(&w, f, flen);
	while (!regs && gtp_fwalk_next(&w, &b)) {
		if (b.type == 'R') {
			regs = b.data;
		} else if (b.type == GTP_RSUB_BLOCK) {
			/* only what the block holds: its offsets skip the rest */
			regs = b.data;
			mask = bmask = b.mask;
			sub = true;
		}
	}
	if (regs && !sub)
		mask = tp ? tp->regmask : ~0ull;
	/* ds, es, fs, gs are not in pt_regs: never available. */
	mask &= (1ull << 20) - 1;
	for (i = 0; i < 24; i++) {
		u32 sz = gtp_g_reg_size(i);
		bool have = mask & (1ull << i);

		if (i == 16)
			rsp_reply_hex(&gc->rsp, &pc, 8);
		else if (have)
			rsp_reply_hex(&gc->rsp, regs + off, sz);
		else
			rsp_reply_mem(&gc->rsp, xx, 2 * sz);
		/* an 'r' block holds its registers alone, an 'R' block all */
		if (!sub || (bmask & (1u << i)))
			off += sz;
	}
}

static size_t frame_mem(struct gtp_conn *gc, u64 addr, u8 *buf, size_t len)
{
	struct gtp_fwalk w;
	struct gtp_fblock b;
	const u8 *f;
	u32 flen;

	f = cur_frame(gc, &flen);
	if (!f)
		return 0;
	gtp_fwalk_init(&w, f, flen);
	while (gtp_fwalk_next(&w, &b)) {
		if (b.type != 'M' || addr < b.addr || addr - b.addr >= b.len)
			continue;
		len = min_t(u64, len, b.len - (addr - b.addr));
		memcpy(buf, b.data + (addr - b.addr), len);
		return len;
	}
	if (gtp_trace_in_readonly(addr, len))
		return gtp_live_view.mem(gc, addr, buf, len);
	return 0;
}

static const struct gtp_view_ops frame_view = {
	.regs = frame_regs,
	.mem = frame_mem,
};

/* A frame gdb still thinks selected after the stream took it: nothing. */
static void gone_regs(struct gtp_conn *gc)
{
	reply_regs_gone(gc);
}

static size_t gone_mem(struct gtp_conn *gc, u64 addr, u8 *buf, size_t len)
{
	return 0;
}

static const struct gtp_view_ops gone_view = {
	.regs = gone_regs,
	.mem = gone_mem,
};

void gtp_traceframe_deselect(struct gtp_conn *gc)
{
	gc->frame = -1;
	gc->view = NULL;
	/*
	 * Also called whenever the frames change (QTStart, QTinit): the
	 * qTBuffer position cache describes the old frames; (0, 0) always
	 * holds, and no read is under way.
	 */
	gc->tbuffer.idx = 0;
	gc->tbuffer.off = 0;
	gc->tbuffer.reading = false;
}

int gtp_traceframe_tsv(struct gtp_conn *gc, u32 tsv, s64 *val)
{
	struct gtp_fwalk w;
	struct gtp_fblock b;
	const u8 *f;
	u32 flen;
	int ret = -ENOENT;

	if (frame_gone(gc, true))
		return -ESTALE;
	f = cur_frame(gc, &flen);
	if (!f)
		return ret;
	gtp_fwalk_init(&w, f, flen);
	/* The last V block for the variable wins, as in gdb's tfile reader. */
	while (gtp_fwalk_next(&w, &b))
		if (b.type == 'V' && (u32)b.tsv == tsv) {
			*val = b.val;
			ret = 0;
		}
	return ret;
}

enum find_kind { FIND_PC, FIND_TDP, FIND_RANGE, FIND_OUTSIDE };

static bool frame_matches(const u8 *f, u32 flen, enum find_kind kind,
			  u64 a, u64 b)
{
	u64 pc;

	if (kind == FIND_TDP)
		return frame_tpnum(f) == a;
	pc = frame_pc(f, flen);
	switch (kind) {
	case FIND_PC:
		return pc == a;
	case FIND_RANGE:
		return pc >= a && pc <= b;
	default:
		return pc < a || pc > b;
	}
}

static void select_frame(struct gtp_conn *gc, s64 idx)
{
	const u8 *f;
	u32 flen;

	f = idx >= 0 ? gtp_frame_get(idx, &flen) : NULL;
	if (!f) {
		gtp_traceframe_deselect(gc);
		gtp_reply(gc, "F-1");
		return;
	}
	gc->frame = idx;
	gc->frame_taken = gtp_frames_taken();
	gc->view = &frame_view;
	gtp_replyf(gc, "F%llxT%x", (unsigned long long)idx, frame_tpnum(f));
}

/* Search forward from the frame after the current one (none: all). */
static void find_frame(struct gtp_conn *gc, enum find_kind kind, u64 a, u64 b)
{
	u64 i, n = gtp_frames_count();
	const u8 *f;
	u32 flen;

	for (i = gc->view == &frame_view ? gc->frame + 1 : 0; i < n; i++) {
		f = gtp_frame_get(i, &flen);
		if (f && frame_matches(f, flen, kind, a, b)) {
			select_frame(gc, i);
			return;
		}
	}
	select_frame(gc, -1);
}

/* "A:B" -> two hex numbers */
static bool parse_pair(const char *p, u64 *a, u64 *b)
{
	return (p = rsp_parse_hex(p, a)) && *p++ == ':' &&
	       (p = rsp_parse_hex(p, b)) && !*p;
}

static void pkt_qtframe(struct gtp_conn *gc, char *args)
{
	const char *p;
	bool none;
	u64 a, b;

	if (!gtp_trace_frames_readable()) {
		gtp_console(gc, "gtp: stop the trace before looking at frames\n");
		gtp_reply_error(gc, 1);
		return;
	}
	/*
	 * "tfind" asks for the frame after the one gdb selected, by number:
	 * in the new numbers it is not.  Refused once, then none is selected.
	 */
	none = (p = rsp_parse_hex(args, &a)) && !*p && (s32)a == -1;
	if (gc->view == &frame_view && !none && frame_gone(gc, true)) {
		gc->view = &gone_view;
		gtp_reply_error(gc, 1);
		return;
	}
	if (!strncmp(args, "pc:", 3) && (p = rsp_parse_hex(args + 3, &a)) &&
	    !*p)
		find_frame(gc, FIND_PC, a, 0);
	else if (!strncmp(args, "tdp:", 4) &&
		 (p = rsp_parse_hex(args + 4, &a)) && !*p)
		find_frame(gc, FIND_TDP, a, 0);
	else if (!strncmp(args, "range:", 6) && parse_pair(args + 6, &a, &b))
		find_frame(gc, FIND_RANGE, a, b);
	else if (!strncmp(args, "outside:", 8) && parse_pair(args + 8, &a, &b))
		find_frame(gc, FIND_OUTSIDE, a, b);
	else if ((p = rsp_parse_hex(args, &a)) && !*p) {
		if ((s32)a == -1) {
			gtp_traceframe_deselect(gc);
			gtp_reply(gc, "OK");
		} else {
			select_frame(gc, a);
		}
	} else {
		gtp_reply_error(gc, 1);
	}
}

/*
 * Room for the traceframe-info XML of a frame of @flen bytes: every block
 * takes at least 12 bytes of the frame and at most 64 bytes of XML.
 */
static size_t tframe_info_cap(u32 flen)
{
	return 128 + (flen / 12 + 1) * 64;
}

/* The traceframe-info XML of the selected frame, into @s (@cap bytes). */
static size_t build_tframe_info(struct gtp_conn *gc, char *s, size_t cap)
{
	size_t n = 0;
	struct gtp_fwalk w;
	struct gtp_fblock b;
	const u8 *f;
	u32 flen;

	n += scnprintf(s + n, cap - n, "<traceframe-info>\n");
	f = cur_frame(gc, &flen);
	if (f) {
		gtp_fwalk_init(&w, f, flen);
		while (gtp_fwalk_next(&w, &b) && cap - n > 128) {
			if (b.type == 'M')
				n += scnprintf(s + n, cap - n,
					"<memory start=\"0x%llx\" length=\"0x%x\"/>\n",
					(unsigned long long)b.addr, b.len);
			else if (b.type == 'V')
				n += scnprintf(s + n, cap - n,
					       "<tvar id=\"%d\"/>\n", b.tsv);
		}
	}
	n += scnprintf(s + n, cap - n, "</traceframe-info>\n");
	return n;
}

/* qXfer:traceframe-info:read::<off>,<len> */
static void pkt_tframe_info(struct gtp_conn *gc, char *args)
{
	char *s = (char *)gc->scratch;
	size_t cap = RSP_PKT_MAX, n;
	u32 flen = 0;

	if (gc->frame >= 0 && frame_gone(gc, false)) {
		gtp_reply_error(gc, 1);
		return;
	}
	/* Every block must be listed, or gdb calls it <unavailable>. */
	if (cur_frame(gc, &flen) && tframe_info_cap(flen) > cap) {
		cap = tframe_info_cap(flen);
		s = gtp_vzalloc(cap);
		if (!s) {
			gtp_reply_error(gc, 1);
			return;
		}
	}
	n = build_tframe_info(gc, s, cap);
	/* The object lives in scratch (or s); the reply is built elsewhere. */
	gtp_reply_xfer(gc, s, n, args);
	if (s != (char *)gc->scratch)
		gtp_vfree(s);
}

/* An 'r' block as gdb's trace file has it: a whole 'R' block, @out. */
static void rsub_to_g(const struct gtp_fblock *b, u8 *out)
{
	u32 i, off = 0;

	memset(out, 0, 1 + GTP_G_SIZE);
	out[0] = 'R';
	for (i = 0; i < 24; i++) {
		u32 sz = gtp_g_reg_size(i);

		if (b->mask & (1u << i)) {
			memcpy(out + 1 + gtp_g_reg_off(i), b->data + off, sz);
			off += sz;
		}
	}
}

/* Extra bytes the served frame has: each 'r' block grows to an 'R' block. */
static u32 rsub_growth(const struct gtp_fblock *b)
{
	return 1 + GTP_G_SIZE - (GTP_RSUB_HDR + b->len);
}

/*
 * The served frame (qTBuffer, tsave): @f with its 'r' blocks as 'R'
 * blocks.  Its length; frames without 'r' blocks are served as stored.
 */
static u64 served_len(const u8 *f, u32 flen)
{
	struct gtp_fwalk w;
	struct gtp_fblock b;
	u64 len = flen;

	gtp_fwalk_init(&w, f, flen);
	while (gtp_fwalk_next(&w, &b))
		if (b.type == GTP_RSUB_BLOCK)
			len += rsub_growth(&b);
	return len;
}

/* Reply with the served bytes [@from, @from + @n) of @src (@len bytes). */
static void reply_part(struct gtp_conn *gc, const u8 *src, u64 len,
		       u64 *pos, u64 *from, u64 *n)
{
	u64 skip, take;

	if (*n && *from < *pos + len) {
		skip = *from - *pos;
		take = min_t(u64, len - skip, *n);
		rsp_reply_hex(&gc->rsp, src + skip, take);
		*from += take;
		*n -= take;
	}
	*pos += len;
}

/*
 * Reply with the bytes [@from, @from + @n) of the served frame of @f
 * (@vlen = served_len()): its header with the grown size, its blocks,
 * each 'r' block rebuilt as an 'R' block.
 */
static void reply_served(struct gtp_conn *gc, const u8 *f, u32 flen,
			 u64 vlen, u64 from, u64 n)
{
	u8 hdr[GTP_FRAME_HDR], g[1 + GTP_G_SIZE];
	const u8 *raw;
	struct gtp_fwalk w;
	struct gtp_fblock b;
	u64 pos = 0;
	u32 size;

	if (vlen == flen) {
		rsp_reply_hex(&gc->rsp, f + from, n);
		return;
	}
	size = vlen - GTP_FRAME_HDR;
	memcpy(hdr, f, 2);
	memcpy(hdr + 2, &size, 4);
	reply_part(gc, hdr, GTP_FRAME_HDR, &pos, &from, &n);
	gtp_fwalk_init(&w, f, flen);
	raw = w.p;
	while (n && gtp_fwalk_next(&w, &b)) {
		if (b.type != GTP_RSUB_BLOCK)
			continue;
		/* the stored bytes before it, then it as an 'R' block */
		reply_part(gc, raw, b.data - GTP_RSUB_HDR - raw, &pos, &from,
			   &n);
		rsub_to_g(&b, g);
		reply_part(gc, g, sizeof(g), &pos, &from, &n);
		raw = b.data + b.len;
	}
	reply_part(gc, raw, f + flen - raw, &pos, &from, &n);
}

/*
 * qTBuffer:<offset>,<len>: the frames as one byte stream, oldest first.
 * gdb reads it front to back in 2000-byte pieces, so the position of the
 * last piece is kept to make each request O(1).  Offsets count the served
 * frames (reply_served()): 'r' blocks as the 'R' blocks gdb's file has.
 */
static void pkt_qtbuffer_read(struct gtp_conn *gc, char *args)
{
	u64 off, len, i, n, base = 0;
	bool any = false;
	const char *p;
	const u8 *f;
	u32 flen;

	if (!(p = rsp_parse_hex(args, &off)) || *p++ != ',' ||
	    !(p = rsp_parse_hex(p, &len)) || *p) {
		gtp_reply_error(gc, 1);
		return;
	}
	if (!gtp_trace_frames_readable()) {
		gtp_reply_error(gc, 1);
		return;
	}
	if (!off || !gc->tbuffer.reading) {
		/* a read begins: the frames as they are now */
		gc->tbuffer.idx = 0;
		gc->tbuffer.off = 0;
		gc->tbuffer.reading = true;
		gc->tbuffer.taken = gtp_frames_taken();
	} else if (gc->tbuffer.taken != gtp_frames_taken()) {
		gtp_console(gc, "gtp: the stream (gtp-ctl stream) took frames since this read of the trace buffer began: the frames left are numbered anew; read them again from the start (tsave again)\n");
		gtp_reply_error(gc, 1);
		return;
	}
	len = min_t(u64, len, rsp_reply_room(&gc->rsp) / 2);
	n = gtp_frames_count();
	i = 0;
	if (gc->tbuffer.idx < n && gc->tbuffer.off <= off) {
		i = gc->tbuffer.idx;
		base = gc->tbuffer.off;
	}
	for (; i < n && len; i++) {
		u64 take, vlen;

		f = gtp_frame_get(i, &flen);
		if (!f)
			break;
		vlen = served_len(f, flen);
		if (off >= base + vlen) {
			base += vlen;
			continue;
		}
		gc->tbuffer.idx = i;
		gc->tbuffer.off = base;
		take = min_t(u64, base + vlen - off, len);
		reply_served(gc, f, flen, vlen, off - base, take);
		off += take;
		len -= take;
		any = true;
		base += vlen;
	}
	if (!any)
		gtp_reply(gc, "l");
}

/*
 * qGtpFrameOrigin:<idx> -> <cpu>:<ticks>:<khz>: the CPU a frame was
 * written on and when, in gtp_tsc() ticks since the run started, ticking
 * at <khz> (0: unknown).  gdb's trace file has no per-frame CPU or time;
 * gtp-ctl dump shows them.
 */
static void pkt_frame_origin(struct gtp_conn *gc, char *args)
{
	unsigned int cpu;
	u64 idx, ticks;
	const char *p;

	p = rsp_parse_hex(args, &idx);
	if (!p || *p || !gtp_trace_frames_readable() ||
	    gtp_frame_origin(idx, &cpu, &ticks)) {
		gtp_reply_error(gc, 1);
		return;
	}
	gtp_replyf(gc, "%x:%llx:%lx", cpu, (unsigned long long)ticks,
		   (unsigned long)gtp_tsc_khz());
}

static const struct gtp_pkt_handler tframe_handlers[] = {
	{ "QTFrame:", 0, pkt_qtframe },
	{ "qGtpFrameOrigin:", 0, pkt_frame_origin },
	{ "qXfer:traceframe-info:read::", 0, pkt_tframe_info },
	{ "qTBuffer:", 0, pkt_qtbuffer_read },
	{ NULL },
};

static struct gtp_pkt_table tframe_table = {
	.handlers = tframe_handlers,
	.features = "qXfer:traceframe-info:read+",
};

void gtp_traceframe_init(void)
{
	gtp_packets_register(&tframe_table);
}
