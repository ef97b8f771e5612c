// SPDX-License-Identifier: GPL-2.0
/*
 * test_rsp.c - the RSP framing layer and the base packets, in userspace,
 * built from the same module/core sources as gtptrace.ko.
 *
 * Each test feeds raw bytes the way gdb writes them into /proc/gtp and
 * checks the exact bytes a read() would return.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "rsp.h"
#include "packets.h"
#include "trace.h"

/* ---- a recording handler for framing tests ---- */

#define MAX_SEEN 8
static char seen[MAX_SEEN][RSP_PKT_MAX + 1];
static size_t seen_len[MAX_SEEN];
static int nseen;

static void rec_handler(struct rsp_conn *c, char *pkt, size_t len)
{
	if (nseen < MAX_SEEN) {
		memcpy(seen[nseen], pkt, len + 1);
		seen_len[nseen] = len;
	}
	nseen++;
	if (!strcmp(pkt, "QStartNoAckMode"))
		c->noack = true;
	if (!strncmp(pkt, "say:", 4))
		rsp_console(c, "%s", pkt + 4);
	if (!strncmp(pkt, "echo:", 5))
		rsp_reply_str(c, pkt + 5);
	else
		rsp_reply_str(c, "OK");
}

static int setup_rec(void **state)
{
	struct rsp_conn *c = calloc(1, sizeof(*c));

	nseen = 0;
	assert_int_equal(rsp_init(c, rec_handler, NULL), 0);
	*state = c;
	return 0;
}

static int teardown_rec(void **state)
{
	rsp_destroy(*state);
	free(*state);
	return 0;
}

static void feed(struct rsp_conn *c, const char *s)
{
	assert_int_equal(rsp_feed(c, s, strlen(s)), strlen(s));
}

/* Drain the output queue into a static string. */
static const char *drain(struct rsp_conn *c)
{
	static char buf[RSP_OUT_MAX + 1];
	size_t n = rsp_out_read(c, buf, sizeof(buf) - 1);

	buf[n] = '\0';
	return buf;
}

/* "$data#cc" as gdb frames it: escaped, checksum over the wire bytes. */
static const char *frame(const char *data)
{
	static char buf[2 * RSP_PKT_MAX + 8];
	unsigned int sum = 0;
	size_t n = 0;
	const char *p;

	buf[n++] = '$';
	for (p = data; *p; p++) {
		char ch = *p;

		if (ch == '#' || ch == '$' || ch == '}') {
			buf[n++] = '}';
			sum += '}';
			ch ^= 0x20;
		}
		buf[n++] = ch;
		sum += (unsigned char)ch;
	}
	snprintf(buf + n, 4, "#%02x", sum & 0xff);
	return buf;
}

static void test_checksum_known_packets(void **state)
{
	struct rsp_conn *c = *state;

	/* Checksums taken from real gdb traffic (protocol reference 1.1). */
	feed(c, "$qTStatus#49");
	assert_int_equal(nseen, 1);
	assert_string_equal(seen[0], "qTStatus");
	assert_string_equal(drain(c), "+$OK#9a");
	assert_string_equal(frame("S05"), "$S05#b8");
}

static void test_bad_checksum_nak(void **state)
{
	struct rsp_conn *c = *state;

	feed(c, "$qTStatus#48");
	assert_int_equal(nseen, 0);
	assert_string_equal(drain(c), "-");
	/* Non-hex checksum digits are a bad checksum too. */
	feed(c, "$OK#zz");
	assert_int_equal(nseen, 0);
	assert_string_equal(drain(c), "-");
	assert_int_equal(c->bad_packets, 2);
	/* gdb resends; the good copy is handled. */
	feed(c, "$qTStatus#49");
	assert_int_equal(nseen, 1);
	assert_string_equal(drain(c), "+$OK#9a");
}

static void test_split_across_writes(void **state)
{
	struct rsp_conn *c = *state;
	const char *pkt = "$qTStatus#49";
	size_t i;

	for (i = 0; pkt[i]; i++) {
		assert_int_equal(rsp_feed(c, pkt + i, 1), 1);
		assert_int_equal(nseen, pkt[i + 1] ? 0 : 1);
	}
	assert_string_equal(seen[0], "qTStatus");
	assert_string_equal(drain(c), "+$OK#9a");
}

static void test_several_per_write(void **state)
{
	struct rsp_conn *c = *state;
	char buf[4 * RSP_PKT_MAX];

	snprintf(buf, sizeof(buf), "%s", frame("echo:a"));
	strcat(buf, frame("echo:bc"));
	feed(c, buf);
	assert_int_equal(nseen, 2);
	assert_string_equal(seen[0], "echo:a");
	assert_string_equal(seen[1], "echo:bc");
	/* Each reply directly after its own ack, in order. */
	assert_string_equal(drain(c), "+$a#61+$bc#c5");
}

static void test_stray_bytes_and_interrupt(void **state)
{
	struct rsp_conn *c = *state;
	char buf[2 * RSP_PKT_MAX];

	snprintf(buf, sizeof(buf), "++-\n junk\x03%s+", frame("x"));
	feed(c, buf);
	assert_int_equal(nseen, 1);
	assert_string_equal(seen[0], "x");
	assert_int_equal(c->interrupts, 1);
	assert_string_equal(drain(c), "+$OK#9a");
}

static void test_dollar_restarts_packet(void **state)
{
	struct rsp_conn *c = *state;
	char buf[2 * RSP_PKT_MAX];

	snprintf(buf, sizeof(buf), "$half%s", frame("whole"));
	feed(c, buf);
	assert_int_equal(nseen, 1);
	assert_string_equal(seen[0], "whole");
}

static void test_escape_in_input(void **state)
{
	struct rsp_conn *c = *state;
	/* X}\x03}]}\x04 unescapes to X#}$; the sum covers the raw bytes. */
	const char raw[] = "X}\x03}]}\x04";
	unsigned int sum = 0;
	char buf[2 * RSP_PKT_MAX];
	size_t i;

	for (i = 0; raw[i]; i++)
		sum += (unsigned char)raw[i];
	snprintf(buf, sizeof(buf), "$%s#%02x", raw, sum & 0xff);
	feed(c, buf);
	assert_int_equal(nseen, 1);
	assert_int_equal(seen_len[0], 4);
	assert_string_equal(seen[0], "X#}$");
}

static void test_reply_escaping(void **state)
{
	struct rsp_conn *c = *state;
	const char *out;
	unsigned int sum = 0;
	const char *p;

	feed(c, frame("echo:a#b$c}d*e"));
	out = drain(c);
	assert_int_equal(nseen, 1);
	assert_string_equal(seen[0], "echo:a#b$c}d*e");
	assert_string_equal(out, "+$a}\x03" "b}\x04" "c}]d}\x0a" "e#51");
	/* The checksum is over the escaped bytes on the wire. */
	for (p = out + 2; *p != '#'; p++)
		sum += (unsigned char)*p;
	assert_int_equal(sum & 0xff, 0x51);
}

static void test_noack_mode(void **state)
{
	struct rsp_conn *c = *state;

	feed(c, "$QStartNoAckMode#b0");
	/* The switching packet itself is still acked. */
	assert_string_equal(drain(c), "+$OK#9a");
	/* gdb's last '+' (acking our OK) is ignored; no acks from now on. */
	feed(c, "+$qTStatus#49");
	assert_string_equal(drain(c), "$OK#9a");
	/* A corrupt packet is dropped silently: gdb would not resend. */
	feed(c, "$qTStatus#00");
	assert_int_equal(nseen, 2);
	assert_string_equal(drain(c), "");
}

static void test_console_before_reply(void **state)
{
	struct rsp_conn *c = *state;

	feed(c, frame("say:hi"));
	/* ack, then O packet ("hi" = 6869), then the reply */
	assert_string_equal(drain(c), "+$O6869#2c$OK#9a");
}

static void test_oversized_packet_refused(void **state)
{
	struct rsp_conn *c = *state;
	char *big = malloc(RSP_PKT_MAX + 16);

	memset(big, 'a', RSP_PKT_MAX + 15);
	big[0] = 'k';
	big[RSP_PKT_MAX + 15] = '\0';
	feed(c, frame(""));		/* warm up: empty packet is fine */
	assert_int_equal(nseen, 1);
	drain(c);
	assert_int_equal(rsp_feed(c, "$", 1), 1);
	assert_int_equal(rsp_feed(c, big, strlen(big)), strlen(big));
	/* sum of 'k' + (RSP_PKT_MAX + 14) * 'a' */
	{
		unsigned int sum = 'k' + (RSP_PKT_MAX + 14) * 'a';
		char tail[4];

		snprintf(tail, sizeof(tail), "#%02x", sum & 0xff);
		feed(c, tail);
	}
	assert_int_equal(nseen, 1);	/* never handed to the handler */
	assert_string_equal(drain(c), "+$E01#a6");
	free(big);
}

static void test_output_backpressure(void **state)
{
	struct rsp_conn *c = *state;
	char *buf, *reply;
	size_t len = 0, used, n, total = 0;
	int i;

	/* Each packet asks for a ~RSP_PKT_MAX reply. */
	reply = malloc(RSP_PKT_MAX);
	memset(reply, 'z', RSP_PKT_MAX - 16);
	reply[RSP_PKT_MAX - 16] = '\0';
	memcpy(reply, "echo:", 5);
	buf = malloc(8 * RSP_PKT_MAX);
	for (i = 0; i < 6; i++) {
		strcpy(buf + len, frame(reply));
		len += strlen(buf + len);
	}
	used = rsp_feed(c, buf, len);
	assert_true(used < len);	/* stopped: no room for more replies */
	assert_true(nseen >= 1 && nseen < 6);
	while (used < len) {
		char tmp[4096];

		while ((n = rsp_out_read(c, tmp, sizeof(tmp))))
			total += n;
		used += rsp_feed(c, buf + used, len - used);
	}
	assert_int_equal(nseen, 6);
	free(buf);
	free(reply);
}

/* ---- the base packets through gtp_dispatch ---- */

static int setup_conn(void **state)
{
	gtp_packets_init();
	gtp_trace_init();
	*state = gtp_conn_open();
	assert_non_null(*state);
	return 0;
}

static int teardown_conn(void **state)
{
	gtp_conn_close(*state);
	return 0;
}

/* Send one packet, return the reply payload (checks ack and checksum). */
static const char *ask(struct gtp_conn *gc, const char *data)
{
	static char payload[RSP_OUT_MAX];
	const char *out, *hash;
	unsigned int sum = 0, want;
	bool acked = !gc->rsp.noack;
	size_t n;

	feed(&gc->rsp, frame(data));
	out = drain(&gc->rsp);
	if (acked) {
		assert_int_equal(*out, '+');
		out++;
	}
	assert_int_equal(*out, '$');
	hash = strrchr(out, '#');
	assert_non_null(hash);
	n = hash - out - 1;
	memcpy(payload, out + 1, n);
	payload[n] = '\0';
	for (size_t i = 0; i < n; i++)
		sum += (unsigned char)payload[i];
	assert_int_equal(sscanf(hash + 1, "%2x", &want), 1);
	assert_int_equal(sum & 0xff, want);
	return payload;
}

static void test_connect_sequence(void **state)
{
	struct gtp_conn *gc = *state;
	const char *r;

	r = ask(gc, "qSupported:multiprocess+;swbreak+;xmlRegisters=i386");
	assert_non_null(strstr(r, "PacketSize=3fff"));
	assert_non_null(strstr(r, "QStartNoAckMode+"));
	assert_non_null(strstr(r, "qXfer:features:read+"));
	assert_string_equal(ask(gc, "vMustReplyEmpty"), "");
	assert_string_equal(ask(gc, "QStartNoAckMode"), "OK");
	assert_true(gc->rsp.noack);
	assert_string_equal(ask(gc, "Hg0"), "OK");
	r = ask(gc, "qTStatus");
	assert_memory_equal(r, "T0;tnotrun:0;", 13);
	assert_non_null(strstr(r, ";tframes:0"));
	assert_non_null(strstr(r, ";tsize:"));
	assert_string_equal(ask(gc, "?"), "S05");
	assert_string_equal(ask(gc, "qfThreadInfo"), "m1");
	assert_string_equal(ask(gc, "qsThreadInfo"), "l");
	assert_string_equal(ask(gc, "qAttached"), "1");
	assert_string_equal(ask(gc, "Hc-1"), "OK");
	assert_string_equal(ask(gc, "qC"), "QC1");
	assert_string_equal(ask(gc, "qOffsets"), "");
	assert_int_equal(strlen(ask(gc, "g")), 2 * GTP_G_SIZE);
	assert_string_equal(ask(gc, "QTinit"), "OK");
	assert_string_equal(ask(gc, "qCRC:0,1"), "");	/* not qC */
	assert_string_equal(ask(gc, "D"), "OK");
}

/*
 * tests/unit/user_env.c, linked into every unit test, serves
 * gtp_read_nofault() only from regions registered with it (the one
 * userspace gtp_read_nofault()).
 */
int user_env_add_region(u64 addr, const void *bytes, size_t len);

static void test_mem_read(void **state)
{
	/* Two whole pages: the live view reads page by page. */
	static char secret[8192] __attribute__((aligned(4096))) =
		"Linux version";
	struct gtp_conn *gc = *state;
	char pkt[64];
	const char *r;

	assert_int_equal(user_env_add_region((uintptr_t)secret, secret,
					     sizeof(secret)), 0);

	snprintf(pkt, sizeof(pkt), "m%lx,4", (unsigned long)secret);
	assert_string_equal(ask(gc, pkt), "4c696e75");
	/* Unreadable: E01.  Malformed: E01. */
	assert_string_equal(ask(gc, "m0,4"), "E01");
	assert_string_equal(ask(gc, "mzz"), "E01");
	/* Oversized requests get a short (but non-empty) reply. */
	snprintf(pkt, sizeof(pkt), "m%lx,100000", (unsigned long)secret);
	r = ask(gc, pkt);
	assert_true(strlen(r) > 0 && strlen(r) <= RSP_PKT_MAX);
	assert_memory_equal(r, "4c696e7578", 10);
}

static void test_target_xml(void **state)
{
	struct gtp_conn *gc = *state;
	const char *r;
	char whole[1024] = "";
	int off = 0;

	/* Read it in 16-byte chunks: 'm' until the last chunk 'l'. */
	for (;;) {
		char pkt[64];

		snprintf(pkt, sizeof(pkt),
			 "qXfer:features:read:target.xml:%x,10", off);
		r = ask(gc, pkt);
		assert_true(r[0] == 'm' || r[0] == 'l');
		strcat(whole, r + 1);
		off += strlen(r + 1);
		if (r[0] == 'l')
			break;
	}
	assert_non_null(strstr(whole, "<architecture>i386:x86-64</architecture>"));
	assert_non_null(strstr(whole, "<osabi>GNU/Linux</osabi>"));
	assert_string_equal(ask(gc, "qXfer:features:read:other.xml:0,10"), "E00");
}

static void test_kill_no_reply(void **state)
{
	struct gtp_conn *gc = *state;

	feed(&gc->rsp, "$k#6b");
	assert_string_equal(drain(&gc->rsp), "+");
	assert_true(gc->killed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define REC(t) cmocka_unit_test_setup_teardown(t, setup_rec, teardown_rec)
#define CONN(t) cmocka_unit_test_setup_teardown(t, setup_conn, teardown_conn)
		REC(test_checksum_known_packets),
		REC(test_bad_checksum_nak),
		REC(test_split_across_writes),
		REC(test_several_per_write),
		REC(test_stray_bytes_and_interrupt),
		REC(test_dollar_restarts_packet),
		REC(test_escape_in_input),
		REC(test_reply_escaping),
		REC(test_noack_mode),
		REC(test_console_before_reply),
		REC(test_oversized_packet_refused),
		REC(test_output_backpressure),
		CONN(test_connect_sequence),
		CONN(test_mem_read),
		CONN(test_target_xml),
		CONN(test_kill_no_reply),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
