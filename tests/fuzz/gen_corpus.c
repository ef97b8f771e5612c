// SPDX-License-Identifier: GPL-2.0
/*
 * gen_corpus.c - write the seed corpora of the libFuzzer harnesses
 * (tests/fuzz/corpus/<harness>/) from the real gdb packets of
 * tests/unit/fuzzlib_packets_corpus.c (`make fuzz-seeds`; the output is
 * checked in, this only documents and redoes it).
 *
 *   gen_corpus DIR
 *
 * That file is #included rather than linked: its tables of the bytecode
 * gdb 13 really sends (conds[], actions[]) are static, and the ax seeds
 * are exactly those programs, hex-decoded.  gen_real() makes the packets
 * of the other seeds, unmutated and from a fixed seed, so the output is
 * the same on every run.
 */
#include <sys/stat.h>

#include "fuzzlib_packets_corpus.c"

static const char *outdir;

static FILE *create(const char *harness, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", outdir, harness);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", outdir, harness, name);
	f = fopen(path, "wb");
	if (!f) {
		perror(path);
		exit(1);
	}
	return f;
}

static void done(FILE *f)
{
	if (ferror(f) || fclose(f)) {
		perror("gen_corpus");
		exit(1);
	}
}

/* A session's tracepoints, mostly where the fake kernel has memory. */
static void pick_tps(void)
{
	int i;

	for (i = 0; i < 4; i++) {
		tp_nums[i] = 1 + below(3);
		tp_addrs[i] = chance(70) ? MEM_KERN + 0x100 * i : rnd_addr();
	}
}

/* One gen_real() packet that fits a seed file (no newline, not huge). */
static size_t real_pkt(void)
{
	size_t n;

	do
		n = gen_real();
	while (n > 1024 || memchr(gbuf, '\n', n));
	return n;
}

static bool is_definition(void)
{
	return starts(gbuf, "QTDP:") || starts(gbuf, "QTDV:") ||
	       starts(gbuf, "QTDPsrc:");
}

/* The head of a session that does trace (mode c0 of the unit fuzzers). */
static const char *const head[] = {
	"QTDP:1:ffffffff81000000:E:0:0-",
	"QTDP:-1:ffffffff81000000:R0fffffffffffffffffffffffffffffffffffff-",
	"QTDP:-1:ffffffff81000000:M-1,ffffffff81000010,40",
};

/* What gdb 13 sends for: trace, actions, tstart, tstop, tfind, tdump. */
static const char *const gdb_trace[] = {
	"qSupported:multiprocess+;swbreak+;xmlRegisters=i386",
	"QTinit",
	"QTDP:1:ffffffff81000000:E:0:0-",
	"QTDP:-1:ffffffff81000000:R0fffffffffffffffffffffffffffffffffffff-",
	"QTDP:-1:ffffffff81000000:X0000000F,26000622100222ec16080222040c27",
	"QTDPsrc:1:ffffffff81000000:at:0:13:2a307866666666666666663831303030303030",
	"QTDPsrc:1:ffffffff81000000:cmd:0:d:636f6c6c656374202472656773",
	"QTDV:1:0000000000000000:1:68697473",
	"QTro:ffffffff81000000,ffffffff81001000",
	"QTBuffer:circular:0",
	"QTNotes:user:6a6f65;notes:6869;tstop:7374;",
	"QTStart",
	"qTStatus",
	"",
	"",
	"QTStop",
	"qTStatus",
	"QTFrame:0",
	"g",
	"mffffffff81000010,40",
	"qXfer:traceframe-info:read::0,fff",
	"QTFrame:pc:ffffffff81000000",
	"QTFrame:tdp:1",
	"QTFrame:ffffffff",
	"qTBuffer:0,7d0",
	"qTfP",
	"qTsP",
	"qTsP",
	"qTfV",
	"qTsV",
	"qTP:1:ffffffff81000000",
};

static void lines(FILE *f, const char *const *l, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(f, "%s\n", l[i]);
}

static void gen_packets(void)
{
	char name[64];
	FILE *f;
	int s, k, n;

	f = create("packets", "gdb-trace-session");
	lines(f, gdb_trace, ARRAY_SIZE(gdb_trace));
	done(f);
	for (s = 0; s < 12; s++) {
		snprintf(name, sizeof(name), "real-session-%02d", s);
		f = create("packets", name);
		pick_tps();
		if (s & 1)
			lines(f, head, ARRAY_SIZE(head));
		for (k = 0, n = 5 + below(40); k < n; k++) {
			size_t len = real_pkt();

			fwrite(gbuf, 1, len, f);
			fputs(chance(20) ? "\n\n" : "\n", f);
		}
		done(f);
	}
}

static void gen_qtdp(void)
{
	char name[64];
	FILE *f;
	size_t i;
	int s, k;

	f = create("qtdp", "gdb-conditions");
	for (i = 0; i < ARRAY_SIZE(conds); i++)
		fprintf(f, "QTDP:%zx:ffffffff81000%03zx:E:0:0:%s\n", i + 1,
			i * 0x10, conds[i]);
	done(f);
	f = create("qtdp", "gdb-actions");
	fprintf(f, "QTDP:1:ffffffff81000000:E:0:0-\n");
	for (i = 0; i < ARRAY_SIZE(actions); i++)
		fprintf(f, "QTDP:-1:ffffffff81000000:%s%s\n", actions[i],
			i + 1 < ARRAY_SIZE(actions) ? "-" : "");
	done(f);
	f = create("qtdp", "gdb-trace-defs");
	for (i = 0; i < ARRAY_SIZE(gdb_trace); i++)
		if (starts(gdb_trace[i], "QTD"))
			fprintf(f, "%s\n", gdb_trace[i]);
	done(f);
	for (s = 0; s < 8; s++) {
		snprintf(name, sizeof(name), "real-defs-%02d", s);
		f = create("qtdp", name);
		pick_tps();
		for (k = 0; k < 12;) {
			size_t len = real_pkt();

			if (!is_definition())
				continue;
			fwrite(gbuf, 1, len, f);
			fputc('\n', f);
			k++;
		}
		done(f);
	}
}

/* As gdb writes it on the wire: framed packets, each reply acked. */
static void wire(FILE *f, const char *data, size_t n)
{
	static char w[2 * sizeof(gbuf) + 8];

	fwrite(w, 1, frame_pkt(w, data, n), f);
	fputc('+', f);
}

static void gen_rsp(void)
{
	static char big[RSP_PKT_MAX + 64];
	/* Packets the harness's handler answers in its own ways. */
	static const char *const handler[] = {
		"k", "N", "hexify this", "print this", "console line", "reset",
		"escapes: #$}* and \x03",
	};
	char name[64];
	size_t i, n;
	FILE *f;
	int s, k;

	f = create("rsp", "gdb-trace-session");
	fputc('+', f);
	for (i = 0; i < ARRAY_SIZE(gdb_trace); i++)
		wire(f, gdb_trace[i], strlen(gdb_trace[i]));
	done(f);
	for (s = 0; s < 6; s++) {
		snprintf(name, sizeof(name), "real-wire-%02d", s);
		f = create("rsp", name);
		pick_tps();
		for (k = 0; k < 8; k++) {
			n = real_pkt();
			wire(f, gbuf, n);
		}
		done(f);
	}
	f = create("rsp", "handler-cases");
	for (i = 0; i < ARRAY_SIZE(handler); i++)
		wire(f, handler[i], strlen(handler[i]));
	done(f);
	/* gdb's interrupt, a resend after a bad checksum, junk, uppercase. */
	f = create("rsp", "interrupt-nak-resend");
	fputs("\x03+$qTStatus#00-$qTStatus#49+junk$QTStop#4B+", f);
	done(f);
	/* One packet longer than PacketSize: refused with E01. */
	f = create("rsp", "oversized");
	memset(big, 'a', sizeof(big));
	wire(f, big, sizeof(big));
	done(f);
}

static void write_bytecode(const char *name, const char *x)
{
	u8 code[AX_MAX_CODE];
	const char *hex = strchr(x, ',');
	FILE *f;
	int n;

	if (!hex)
		return;
	hex++;
	n = rsp_hex2bin(hex, strlen(hex), code);
	if (n <= 0)
		return;
	f = create("ax", name);
	fwrite(code, 1, n, f);
	done(f);
}

static void gen_ax(void)
{
	char name[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(conds); i++) {
		snprintf(name, sizeof(name), "gdb-cond-%02zu", i);
		write_bytecode(name, conds[i]);
	}
	for (i = 0; i < ARRAY_SIZE(actions); i++) {
		if (actions[i][0] != 'X')
			continue;
		snprintf(name, sizeof(name), "gdb-action-%02zu", i);
		write_bytecode(name, actions[i]);
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	outdir = argv[1];
	mkdir(outdir, 0755);
	gtp_packets_init();
	gtp_trace_init();
	world_reset();
	rng_seed(1);
	gen_packets();
	gen_qtdp();
	gen_rsp();
	gen_ax();
	return 0;
}
