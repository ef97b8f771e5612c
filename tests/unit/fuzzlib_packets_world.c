// SPDX-License-Identifier: GPL-2.0
/*
 * fuzzlib_packets_world.c - what the packet fuzzers trace and check (see
 * fuzzlib_packets.h).
 *
 * Fake memory (user_env.c regions low, in the kernel range and at the top
 * of the address space), tracepoint hits (gtp_tp_hit() on every armed
 * location, as the kprobe handler would call it: attaching is faked by
 * tests/unit/user_trace.c), and the checks of the global state: the
 * tracepoint definitions match what was accepted, and the frame store is
 * what qTStatus, qTBuffer, QTFrame and 'g' say it is.
 */
#include "fuzzlib_packets.h"

/* ---- the world: fake memory, registers, hits -------------------------- */

u8 scratch[GTP_SCRATCH_SIZE];

void world_reset(void)
{
	static u8 bytes[0x10000];
	size_t i;

	user_env_reset();
	for (i = 0; i < sizeof(bytes); i++)
		bytes[i] = (u8)(i * 7 + 3);
	bytes[0x40] = 0;	/* a NUL for tracenz */
	user_env_add_region(MEM_LO, bytes, 0x1000);
	user_env_add_region(MEM_KERN, bytes, sizeof(bytes));
	user_env_add_region(MEM_TOP, bytes, 0x1000);
}

u64 rnd_addr(void)
{
	switch (below(6)) {
	case 0: return MEM_LO + below(0x1100);
	case 1: return MEM_KERN + below(0x10100);
	case 2: return MEM_TOP + below(0x1000);
	case 3: return 0;
	case 4: return ~0ull - below(16);
	default: return rnd();
	}
}

/* Fire every armed location once, as the kprobe handler would. */
void hit_all(void)
{
	struct gtp_tp *tp;
	/* Static tracepoints get the static probe's register block. */
	struct gtp_static_regs sr;
	struct pt_regs *regs = &sr.regs;
	int i;

	for (tp = gtp_tps; tp; tp = tp->next) {
		if (!tp->probe)
			continue;
		memset(&sr, 0, sizeof(sr));
		for (i = 0; i < 17; i++)
			user_env_set_reg(regs, i, rnd_addr());
		regs->ip = tp->addr;
		regs->flags = rnd();
		regs->cs = 0x10;
		regs->ss = 0x18;
		sr.nargs = below(GTP_SDATA_MAX_ARGS + 4);
		fuzz_stats.hits++;
		fuzz_stats.frames += gtp_tp_hit(tp, regs, scratch, sizeof(scratch));
	}
}

/*
 * What the tracepoint definitions look like, in a few numbers: a refused
 * QTDP must not change it.
 */
u64 tps_signature(void)
{
	struct gtp_tp *tp;
	u64 sig = 0;

	for (tp = gtp_tps; tp; tp = tp->next)
		sig = sig * 31 + tp->num + tp->addr * 7 + tp->nactions * 131 +
		      tp->chunks.n * 1031 + tp->regmask + (tp->cond != NULL) +
		      tp->enabled * 3 + tp->pass * 5;
	return sig;
}

/* Number of actions in an action chunk as qTfP shows it (no checking). */
static u32 count_actions(const char *p)
{
	u32 n = 0;
	u64 len;

	while (*p) {
		n++;
		switch (*p++) {
		case 'R':
		case 'M':
			while (*p && strchr("0123456789abcdefABCDEF,-", *p))
				p++;
			break;
		case 'X':
			p = rsp_parse_hex(p, &len);
			if (!p || *p != ',')
				return ~0u;
			p += 1 + 2 * len;
			break;
		case 'L':
			break;
		default:
			return ~0u;
		}
	}
	return n;
}

/*
 * Every tracepoint holds exactly the actions of the chunks it uploads, and
 * the R action QTStart adds to a location with siblings (site_pc).
 */
void check_definitions(void)
{
	struct gtp_tp *tp;
	u32 i, n;

	for (tp = gtp_tps; tp; tp = tp->next) {
		for (i = 0, n = 0; i < tp->chunks.n; i++)
			n += count_actions(tp->chunks.s[i]);
		FZ_CHECK(n + tp->site_pc == tp->nactions,
			 "tracepoint %u has %u actions, its chunks %u",
			 tp->num, tp->nactions, n);
	}
}

/* ---- the global state check -------------------------------------------- */

/*
 * Parse one frame the way gdb's tfile reader does; a stored frame (@stored)
 * may also hold 'r' blocks (regs.h): a mask of gdb's pt_regs registers,
 * rip among them, then their values.
 */
static void check_frame(const u8 *f, u32 flen, bool stored)
{
	u32 size, off, mask;
	u16 mlen;

	FZ_CHECK(flen >= GTP_FRAME_HDR, "frame shorter than its header");
	memcpy(&size, f + 2, 4);
	FZ_CHECK(size == flen - GTP_FRAME_HDR, "frame size %u, stored %u",
		 size, flen);
	for (off = GTP_FRAME_HDR; off < flen;) {
		switch (f[off]) {
		case 'R':
			off += 1 + GTP_G_SIZE;
			break;
		case 'r':
			FZ_CHECK(stored, "an 'r' block served to gdb");
			FZ_CHECK(flen - off >= 5, "truncated r block");
			memcpy(&mask, f + off + 1, 4);
			FZ_CHECK(!(mask & ~0xfffffu) && (mask & (1u << 16)),
				 "r block of mask %x", mask);
			off += 5 + gtp_rsub_vals_len(mask);
			break;
		case 'M':
			FZ_CHECK(flen - off >= 11, "truncated M block");
			memcpy(&mlen, f + off + 9, 2);
			FZ_CHECK(mlen > 0, "empty M block");
			off += 11 + mlen;
			break;
		case 'V':
			off += 13;
			break;
		default:
			FZ_CHECK(0, "bad block type 0x%02x", f[off]);
		}
		FZ_CHECK(off <= flen, "block runs past the frame");
	}
}

/*
 * @f (@flen bytes) as qTBuffer serves it, into @out: each 'r' block an 'R'
 * block of 164 bytes, its registers at their 'g' offsets, the rest zero,
 * and the frame's size grown to match.  Returns the served length.
 */
static size_t serve_frame(const u8 *f, u32 flen, u8 *out)
{
	u32 off = GTP_FRAME_HDR, size, mask, i, v;
	size_t n = GTP_FRAME_HDR;
	u16 mlen;

	memcpy(out, f, GTP_FRAME_HDR);
	while (off < flen) {
		switch (f[off]) {
		case 'r':
			memcpy(&mask, f + off + 1, 4);
			off += 5;
			memset(out + n, 0, 1 + GTP_G_SIZE);
			out[n] = 'R';
			for (i = 0; i < 20; i++) {
				u32 sz = i < 17 ? 8 : 4;
				u32 g = i < 17 ? 8 * i : 136 + 4 * (i - 17);

				if (!(mask & (1u << i)))
					continue;
				memcpy(out + n + 1 + g, f + off, sz);
				off += sz;
			}
			n += 1 + GTP_G_SIZE;
			continue;
		case 'R':
			v = 1 + GTP_G_SIZE;
			break;
		case 'M':
			memcpy(&mlen, f + off + 9, 2);
			v = 11 + mlen;
			break;
		default:
			v = 13;
			break;
		}
		memcpy(out + n, f + off, v);
		n += v;
		off += v;
	}
	size = n - GTP_FRAME_HDR;
	memcpy(out + 2, &size, 4);
	return n;
}

/* Random pieces of qTBuffer, in any order, are the same bytes as @all. */
static void check_pieces(struct gtp_conn *gc, const u8 *all, size_t total)
{
	static u8 bytes[2 * RSP_PKT_MAX];
	const char *r;
	char pkt[64];
	int i;

	for (i = 0; total && i < 8; i++) {
		size_t off = below(total + 1), len = 1 + below(0x900);
		int nb;

		snprintf(pkt, sizeof(pkt), "qTBuffer:%zx,%zx", off, len);
		r = send_str(gc, pkt);
		if (off == total) {
			FZ_CHECK(!strcmp(r, "l"), "qTBuffer past the end: %.20s", r);
			continue;
		}
		nb = rsp_hex2bin(r, strlen(r), bytes);
		FZ_CHECK(nb > 0 && off + nb <= total && (size_t)nb <= len,
			 "qTBuffer:%zx,%zx gave %d bytes of %zx", off, len, nb,
			 total);
		FZ_CHECK(!memcmp(bytes, all + off, nb),
			 "qTBuffer:%zx,%zx differs from the stored frames",
			 off, len);
	}
}

/*
 * With the trace stopped: qTStatus agrees with the store, qTBuffer read
 * front to back (as tsave does) is exactly the stored frames, QTFrame can
 * select each frame and 'g' works in it.
 */
void check_store(struct gtp_conn *gc)
{
	static u8 all[4 << 20];
	static u8 bytes[2 * RSP_PKT_MAX];
	size_t total = 0, got = 0;
	u64 i, n, tframes = ~0ull;
	const char *r, *p;
	char pkt[64];

	r = send_str(gc, "QTStop");
	FZ_CHECK(!strcmp(r, "OK"), "QTStop refused");
	r = send_str(gc, "qTStatus");
	p = strstr(r, ";tframes:");
	FZ_CHECK(p && rsp_parse_hex(p + 9, &tframes), "no tframes in qTStatus");
	n = gtp_frames_count();
	FZ_CHECK(tframes == n, "tframes %llx but %llx frames stored",
		 (unsigned long long)tframes, (unsigned long long)n);
	for (i = 0; i < n; i++) {
		u32 flen;
		const u8 *f = gtp_frame_get(i, &flen);

		FZ_CHECK(f, "frame %llu missing", (unsigned long long)i);
		check_frame(f, flen, true);
		/* each 'r' block grows by at most 152 bytes ('R' minus 13) */
		if (total + flen + 152 * (flen / 13) <= sizeof(all)) {
			size_t sn = serve_frame(f, flen, all + total);

			check_frame(all + total, sn, false);
			total += sn;
		} else {
			total = sizeof(all) + 1;
		}
	}
	if (total > sizeof(all))
		return;
	check_pieces(gc, all, total);
	for (;;) {
		int nb;

		snprintf(pkt, sizeof(pkt), "qTBuffer:%zx,7d0", got);
		r = send_str(gc, pkt);
		if (!strcmp(r, "l"))
			break;
		nb = rsp_hex2bin(r, strlen(r), bytes);
		FZ_CHECK(nb > 0 && got + nb <= total,
			 "qTBuffer beyond the frames (%zx + %d > %zx)", got,
			 nb, total);
		FZ_CHECK(!memcmp(bytes, all + got, nb),
			 "qTBuffer at %zx differs from the stored frames", got);
		got += nb;
	}
	FZ_CHECK(got == total, "qTBuffer gave %zx of %zx bytes", got, total);
	check_pieces(gc, all, total);
	for (i = 0; i < n && i < 4; i++) {
		u32 flen;
		const u8 *f = gtp_frame_get(i, &flen);
		u16 num;
		char want[48];

		memcpy(&num, f, 2);
		snprintf(pkt, sizeof(pkt), "QTFrame:%llx", (unsigned long long)i);
		snprintf(want, sizeof(want), "F%llxT%x", (unsigned long long)i,
			 num);
		r = send_str(gc, pkt);
		FZ_CHECK(!strcmp(r, want), "QTFrame:%llx gave %s, want %s",
			 (unsigned long long)i, r, want);
		send_str(gc, "g");
		send_str(gc, "qXfer:traceframe-info:read::0,fff");
	}
	send_str(gc, "QTFrame:ffffffff");
}

/* Back to a known state, so that every iteration reproduces alone. */
struct gtp_conn *fresh_conn(void)
{
	struct gtp_conn *gc;

	gtp_trace_exit();
	world_reset();
	user_trace_fail_arm = 0;
	gc = gtp_conn_open();
	assert_non_null(gc);
	noack = false;
	gdb_out.state = 0;
	send_str(gc, "QTBuffer:circular:0");
	send_str(gc, "QTBuffer:size:-1");
	send_str(gc, "QTDisconnected:0");
	send_str(gc, "QTNotes:user:;notes:;tstop:;");
	send_str(gc, "QTinit");
	return gc;
}
