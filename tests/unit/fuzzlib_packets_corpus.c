// SPDX-License-Identifier: GPL-2.0
/*
 * fuzzlib_packets_corpus.c - real gdb packets for the packet fuzzers, and
 * their mutations (see fuzzlib_packets.h).
 *
 * gen_real() makes one packet of a gdb session (protocol reference 2.3,
 * 2.19: QTDP with conditions and actions, QTDPsrc, QTDV, QTFrame,
 * qTBuffer, m, qXfer, ...), from bytecode gdb 13 really sends and random
 * programs; mutate() damages it (bit flips, huge and negative numbers,
 * non-hex digits, missing fields, truncation, very long packets).
 */
#include "fuzzlib_packets.h"

/* ---- corpus and mutations ---------------------------------------------- */

char gbuf[4 * RSP_PKT_MAX];

/* Real condition and action bytecode from gdb 13 (reference 2.3, 3.4). */
static const char *const conds[] = {
	"X13,26000622100222ec1608021916202200140e27",
	"X13,26000622100222ec1608021916202201140e27",
	"X5,2200220113",			/* const8 0, const8 1, equal */
	"Xa,22012202100e2015000027",		/* jumps */
	"X3,220127",
	"X2,2227",				/* truncated const */
	"X1,27",
	"X400,00",				/* length disagrees */
};

static const char *const actions[] = {
	"R0fffffffffffffffffffffffffffffffffffff",
	"R40", "R010000", "Rffffffffffffffff",
	"M-1,404074,4", "M-1,ffffffff81000010,40", "M7,-10,8", "M6,10,ffff",
	"M-1,fffffffffffff800,1000", "M-1,fffffffffffffff0,ffffffff",
	"M10,0,8", "M11,0,8", "M-2,0,8",
	"X0000000F,26000622100222ec16080222040c27",
	"X0000000F,26000622100222e016080222080c27",
	"X00000012,26000622100222e01608020d081a22080c27",
	"X0000000C,2c000222010216402d000227",
	"X00000008,2c00022e00022927",
	"X00000009,240040406022100c27",
	"X00000013,26000622100222e01608020d081a2300c82f27",
	"X00000006,2300400d27",			/* trace_quick */
	"X0000000b,24ffffff812210100c27",
	"X00000003,2e000127",			/* tracev */
	"L", "S", "SR010000",
};

/* Random hex number: small, 16-digit, huge (overflowing), or odd. */
static void put_num(char **p)
{
	switch (below(9)) {
	case 0: *p += sprintf(*p, "%llx", (unsigned long long)below(4)); break;
	case 1: *p += sprintf(*p, "%016llx", (unsigned long long)rnd()); break;
	case 2: *p += sprintf(*p, "ffffffffffffffffff"); break;
	case 3: *p += sprintf(*p, "10000000000000000"); break;
	case 4: *p += sprintf(*p, "-1"); break;
	case 5: *p += sprintf(*p, "%llx", (unsigned long long)rnd_addr()); break;
	case 6: *p += sprintf(*p, "7fffffff"); break;
	case 7: *p += sprintf(*p, "ffffffff"); break;
	default: *p += sprintf(*p, "%x", below(0x20)); break;
	}
}

/* The tracepoint numbers/addresses a session reuses, so actions attach. */
u32 tp_nums[4];
u64 tp_addrs[4];

static void put_tp(char **p, bool padded)
{
	int i = below(4);

	if (chance(10)) {
		put_num(p);
		**p = ':';
		(*p)++;
		put_num(p);
		return;
	}
	*p += sprintf(*p, padded ? "%x:%016llx" : "%x:%llx", tp_nums[i],
		      (unsigned long long)tp_addrs[i]);
}

/* Operand bytes of each opcode (0x02..0x33), for random bytecode. */
static int operand_bytes(u8 op)
{
	switch (op) {
	case 0x22: case 0x16: case 0x2a: case 0x0d: case 0x32: return 1;
	case 0x23: case 0x26: case 0x20: case 0x21: case 0x30:
	case 0x2c: case 0x2d: case 0x2e: return 2;
	case 0x24: return 4;
	case 0x25: return 8;
	default: return 0;
	}
}

/*
 * "X<len>,<hex>" of a random program: a few pushes, random ops (operands
 * small so registers, variables and jump targets are often valid), end.
 * Many fail verification (that is tested too); the rest run on hits.
 */
static char *put_random_prog(char *p, bool action)
{
	u8 code[96];
	int n = 0, k = below(24), i, j;

	for (i = 0; i < 3; i++) {
		code[n++] = 0x22;
		code[n++] = below(4) ? below(8) : rnd();
	}
	for (i = 0; i < k && n < 80; i++) {
		u8 op = 0x02 + below(0x32);
		int nb = operand_bytes(op);

		if (chance(15)) {
			op = 0x26;	/* reg */
			nb = 2;
		}
		code[n++] = op;
		for (j = 0; j < nb; j++)
			code[n++] = j == nb - 1 ? below(op == 0x20 || op == 0x21 ?
						       90 : 20) : 0;
	}
	code[n++] = 0x27;
	p += sprintf(p, action ? "X%08X," : "X%x,", n);
	for (i = 0; i < n; i++)
		p += sprintf(p, "%02x", code[i]);
	return p;
}

/* One real-shaped packet into gbuf; returns its length. */
size_t gen_real(void)
{
	char *p = gbuf;
	int i, n;

	switch (below(40)) {
	case 0: case 1: case 2: case 3:
		p += sprintf(p, "QTDP:");
		put_tp(&p, true);
		p += sprintf(p, ":%c:%x:%x", chance(80) ? 'E' : 'D',
			     chance(90) ? 0 : below(3), below(4));
		if (chance(10))
			p += sprintf(p, ":F5");
		if (chance(5))
			p += sprintf(p, ":S");
		if (chance(20)) {
			*p++ = ':';
			p = put_random_prog(p, false);
		} else if (chance(40)) {
			p += sprintf(p, ":%s", conds[below(ARRAY_SIZE(conds))]);
		}
		if (chance(60))
			*p++ = '-';
		break;
	case 4: case 5: case 6: case 7: case 8:
		p += sprintf(p, "QTDP:-");
		put_tp(&p, true);
		*p++ = ':';
		n = 1 + below(4);
		for (i = 0; i < n; i++) {
			if (chance(25))
				p = put_random_prog(p, true);
			else
				p += sprintf(p, "%s",
					     actions[below(ARRAY_SIZE(actions))]);
		}
		if (chance(50))
			*p++ = '-';
		break;
	case 9:
		p += sprintf(p, "QTDPsrc:");
		put_tp(&p, false);
		p += sprintf(p, ":%s:0:1c:636f6c6c65637420782c20732c20636f756e7465722c202472656773",
			     chance(50) ? "cmd" : "at");
		break;
	case 10: case 11:
		p += sprintf(p, "QTDV:%x:", below(6));
		put_num(&p);
		p += sprintf(p, ":%x:%s", below(2),
			     chance(50) ? "68697473" : "6370755f6964");
		break;
	case 12: p += sprintf(p, "QTinit"); break;
	case 13: case 14: p += sprintf(p, "QTStart"); break;
	case 15: p += sprintf(p, "QTStop"); break;
	case 16: case 17: p += sprintf(p, "qTStatus"); break;
	case 18:
		p += sprintf(p, "QTFrame:");
		switch (below(6)) {
		case 0: put_num(&p); break;
		case 1: p += sprintf(p, "pc:"); put_num(&p); break;
		case 2: p += sprintf(p, "tdp:"); put_num(&p); break;
		case 3: p += sprintf(p, "range:"); put_num(&p); *p++ = ':'; put_num(&p); break;
		case 4: p += sprintf(p, "outside:"); put_num(&p); *p++ = ':'; put_num(&p); break;
		default: p += sprintf(p, "%x", below(4)); break;
		}
		break;
	case 19:
		p += sprintf(p, "qTBuffer:");
		put_num(&p);
		*p++ = ',';
		put_num(&p);
		break;
	case 20: case 21:
		*p++ = 'm';
		if (chance(50))
			p += sprintf(p, "%llx", (unsigned long long)rnd_addr());
		else
			put_num(&p);
		*p++ = ',';
		put_num(&p);
		break;
	case 22:
		p += sprintf(p, chance(50) ? "qXfer:traceframe-info:read::" :
			     "qXfer:features:read:target.xml:");
		put_num(&p);
		*p++ = ',';
		put_num(&p);
		break;
	case 23:
		p += sprintf(p, "qTP:");
		put_tp(&p, false);
		break;
	case 24:
		p += sprintf(p, chance(50) ? "QTEnable:" : "QTDisable:");
		put_tp(&p, true);
		break;
	case 25:
		p += sprintf(p, "QTBuffer:");
		if (chance(50)) {
			p += sprintf(p, "circular:%x", below(2));
		} else {
			p += sprintf(p, "size:");
			if (chance(50))
				p += sprintf(p, "%x", 1024 + below(0x10000));
			else
				put_num(&p);
		}
		break;
	case 26: p += sprintf(p, "qTfP"); break;
	case 27: case 28: p += sprintf(p, "qTsP"); break;
	case 29: p += sprintf(p, chance(50) ? "qTfV" : "qTsV"); break;
	case 30:
		p += sprintf(p, chance(50) ? "qTV:" : "qGtpFrameOrigin:");
		put_num(&p);
		break;
	case 31: p += sprintf(p, "g"); break;
	case 32:
		p += sprintf(p, "QTro");
		n = below(4);
		for (i = 0; i < n; i++) {
			*p++ = ':';
			put_num(&p);
			*p++ = ',';
			put_num(&p);
		}
		break;
	case 33: p += sprintf(p, "QTNotes:user:6a6f65;notes:6869;tstop:7374;"); break;
	case 34: p += sprintf(p, "QTDisconnected:%x", below(2)); break;
	case 35: p += sprintf(p, "qSupported:multiprocess+;swbreak+;xmlRegisters=i386"); break;
	case 36: p += sprintf(p, "D"); break;
	case 37: p += sprintf(p, "?"); break;
	case 38:
		p += sprintf(p, "QTDP:-");
		put_tp(&p, true);
		*p++ = ':';
		n = below(2000);	/* a very long action chunk */
		for (i = 0; i < n && p - gbuf < RSP_PKT_MAX + 64; i++)
			p += sprintf(p, "%s", actions[below(4)]);
		break;
	default: p += sprintf(p, "qTsV"); break;
	}
	*p = '\0';
	return p - gbuf;
}

/* Mutate the packet in gbuf in place; returns the new length. */
size_t mutate(size_t n)
{
	static const char *const nums[] = {
		"ffffffffffffffffff", "-1", "10000000000000000", "0", "",
		"g", "-", "::", ",,", "7fffffffffffffff", "8000000000000000",
	};
	int k = 1 + below(3);

	while (k--) {
		size_t pos = n ? below(n + 1) : 0;
		const char *s;
		size_t sl;

		switch (below(8)) {
		case 0:	/* flip a byte */
			if (n)
				gbuf[below(n)] ^= 1 << below(8);
			break;
		case 1:	/* truncate */
			n = pos;
			break;
		case 2:	/* delete a range */
			if (n) {
				size_t len = 1 + below(min_t(size_t, n - pos + 1, 20));

				if (pos + len > n)
					len = n - pos;
				memmove(gbuf + pos, gbuf + pos + len, n - pos - len);
				n -= len;
			}
			break;
		case 3:	/* insert a tricky token */
			s = nums[below(ARRAY_SIZE(nums))];
			sl = strlen(s);
			if (n + sl < sizeof(gbuf) - 1) {
				memmove(gbuf + pos + sl, gbuf + pos, n - pos);
				memcpy(gbuf + pos, s, sl);
				n += sl;
			}
			break;
		case 4:	/* replace a hex digit with a non-hex one */
			if (n)
				gbuf[below(n)] = "gz:,-;xX\x7f"[below(9)];
			break;
		case 5:	/* duplicate a range */
			if (n && n < RSP_PKT_MAX) {
				size_t len = 1 + below(min_t(size_t, n - pos + 1, 64));

				if (pos + len > n)
					len = n - pos;
				memmove(gbuf + pos + len, gbuf + pos, n - pos);
				n += len;
			}
			break;
		case 6:	/* insert a random byte */
			if (n + 1 < sizeof(gbuf) - 1) {
				memmove(gbuf + pos + 1, gbuf + pos, n - pos);
				gbuf[pos] = rnd();
				n++;
			}
			break;
		default: /* grow the packet past PacketSize */
			if (chance(20))
				while (n < RSP_PKT_MAX + 8)
					gbuf[n++] = "0123456789abcdef"[below(16)];
			break;
		}
	}
	gbuf[n] = '\0';
	return n;
}
