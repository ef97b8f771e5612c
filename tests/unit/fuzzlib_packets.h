/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzzlib_packets.h - the packet-layer fuzz harness: whatever bytes arrive on
 * /proc/gtp, the portable core neither crashes nor corrupts itself, and
 * every reply is well framed.
 *
 * The whole connection is driven as the module drives it: bytes go through
 * rsp_feed() (split at random points, re-fed when the output queue is
 * full, like gtp_write()), the dispatcher runs the real packet tables, and
 * the framed output is drained and checked like gdb would read it.
 *
 *   fuzzlib_packets.c		deterministic randomness, failure reports
 *				(seed, last packets; hangs and crashes
 *				too), env_setup()
 *   fuzzlib_packets_wire.c	gdb's side of the wire: framing, the reply
 *				parser, the shape each packet's reply must
 *				have, send_pkt()
 *   fuzzlib_packets_world.c	fake memory and tracepoint hits, the
 *				definition and frame-store checks,
 *				fresh_conn()
 *   fuzzlib_packets_corpus.c	real gdb packets (protocol reference 2.3,
 *				2.19) and their mutations
 *
 * The test programs, one per mode (make unit runs each):
 *
 *   test_fuzz_packets_bytes.c	  (a) random byte streams
 *   test_fuzz_packets_payloads.c (b) well-framed random payloads
 *   test_fuzz_packets_sessions.c (c) mutated real gdb sessions
 *   test_fuzz_packets_store.c	  (d) the frame store under pressure
 *   test_fuzz_packets_regress.c  the bugs the modes found, as plain tests
 *
 * Every iteration resets the global state and takes its own seed, so one
 * failure reproduces alone: the failing seed is printed as
 * GTP_FUZZ_SEED=<seed> GTP_FUZZ_ITERS=1 <program>.  GTP_FUZZ_ITERS
 * (default 20) scales the run; `make fuzz-packets` (tests/fuzz/fuzz.mk)
 * runs many iterations of every program under ASan+UBSan.
 *
 * All state is global and single-threaded, as in user_env.c.
 */
#ifndef GTP_FUZZLIB_PACKETS_H
#define GTP_FUZZLIB_PACKETS_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <signal.h>
#include <unistd.h>
#include <cmocka.h>

#include "rsp.h"
#include "packets.h"
#include "trace.h"
#include "tracepoint.h"
#include "collect.h"
#include "frame.h"
#include "static_data.h"
#include "user_env.h"
#include "user_host.h"

/* ---- fuzzlib_packets.c: randomness, failure reports, setup ---- */

u64 rnd(void);
void rng_seed(u64 seed);
u32 below(u32 n);		/* 0..n-1 */
bool chance(u32 percent);

extern u64 cur_seed;		/* the iteration's seed, printed on failure */
extern u64 base_seed;		/* GTP_FUZZ_SEED (1) */
extern unsigned long iters;	/* GTP_FUZZ_ITERS (20) */
extern const char *cur_mode;	/* "a".."d", "c0", "regress" */

void remember(const char *pkt, size_t len);	/* for the report */
void report(const char *why);

/* Fail the test, printing @cond's message, the seed and the last packets. */
#define FZ_CHECK(cond, ...) do {					\
	if (!(cond)) {							\
		char why_[512];						\
		snprintf(why_, sizeof(why_), __VA_ARGS__);		\
		report(why_);						\
		fail();							\
	}								\
} while (0)

void arm_crash_report(void);
void env_setup(void);

/* ---- fuzzlib_packets_wire.c: gdb's side of the wire ---- */

#define MAX_PKTS 64

/* What gdb would read, parsed as it arrives. */
struct fuzz_out {
	/* streaming parser state */
	int state;		/* 0 idle, 1 data, 2 esc, 3 csum1, 4 csum2 */
	u8 sum, rx;
	char cur[RSP_PKT_MAX + 16];
	size_t cur_len;
	/* what came out since the last collect_reset() */
	char pkts[MAX_PKTS][RSP_PKT_MAX + 16];
	size_t pkt_len[MAX_PKTS];
	unsigned int npkts;
	unsigned int acks, naks;
};
extern struct fuzz_out gdb_out;

/* How deep the fuzzing got: accepted definitions, runs, frames looked at. */
struct fuzz_stats {
	unsigned long qtdp_ok, actions_ok, qtstart_ok, frames_sel, tbuf_data;
	unsigned long mem_data, hits, frames;
};
extern struct fuzz_stats fuzz_stats;
void print_stats(void);		/* and zero them */

extern bool noack;		/* QStartNoAckMode accepted */

void collect_reset(void);
void out_byte(char ch);
void drain(struct gtp_conn *gc);
void feed(struct gtp_conn *gc, const char *buf, size_t len);
size_t frame_pkt(char *dst, const char *data, size_t n);
bool is_hex_str(const char *s, size_t n);
bool is_err(const char *r, size_t n);
bool starts(const char *s, const char *prefix);
const char *send_pkt(struct gtp_conn *gc, const char *data, size_t n);
const char *send_str(struct gtp_conn *gc, const char *s);

/* ---- fuzzlib_packets_world.c: memory, hits, state checks ---- */

#define MEM_LO		0x1000ull
#define MEM_KERN	0xffffffff81000000ull
#define MEM_TOP		0xfffffffffffff000ull

extern u8 scratch[GTP_SCRATCH_SIZE];

void world_reset(void);
u64 rnd_addr(void);
void hit_all(void);
u64 tps_signature(void);
void check_definitions(void);
void check_store(struct gtp_conn *gc);
struct gtp_conn *fresh_conn(void);

/* ---- fuzzlib_packets_corpus.c: real gdb packets, mutated ---- */

extern char gbuf[4 * RSP_PKT_MAX];	/* the packet gen_real() made */
extern u32 tp_nums[4];			/* numbers and addresses a  */
extern u64 tp_addrs[4];			/* session's packets reuse  */

size_t gen_real(void);
size_t mutate(size_t n);

#endif /* GTP_FUZZLIB_PACKETS_H */
