/* SPDX-License-Identifier: GPL-2.0 */
/*
 * harness.h - what the libFuzzer harnesses of the packet layer share (see
 * tests/fuzz/README).
 *
 * The harnesses reuse the deterministic fuzz library of tests/unit
 * (fuzzlib_packets.h): its wire (framing, reply-shape checks, send_pkt()),
 * its world (fake memory, hits, definition and store checks) and its
 * randomness.  Here an input is a byte string from libFuzzer: whatever
 * the library decides at random (feed piece sizes, read sizes, register
 * values at hits) comes from a generator seeded by a hash of the input,
 * so every input replays exactly.
 *
 * The library's checks end in cmocka's fail(); outside a cmocka test that
 * would exit(), which libFuzzer reports less usefully than a crash, so
 * fz_init() makes them abort() (CMOCKA_TEST_ABORT=1): libFuzzer then
 * prints the stack and saves the input.
 */
#ifndef GTP_FUZZ_HARNESS_H
#define GTP_FUZZ_HARNESS_H

#include "fuzzlib_packets.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

void fz_init(void);
void fz_begin(const u8 *data, size_t size, const char *mode);
struct gtp_conn *fz_conn(void);
void fz_buffer(struct gtp_conn *gc, u64 size);	/* QTBuffer:size */

/* The next '\n'-terminated line of [*p, end), or false at the end. */
bool fz_line(const u8 **p, const u8 *end, const char **line, size_t *len);

/*
 * Largest trace buffer an input gets: check_store() reads the whole frame
 * store back through qTBuffer, and a store of megabytes (the 4 MB
 * default, or up to the 1 GiB QTBuffer:size allows) would make one input
 * take seconds.  The unit fuzzers cover the default size.
 */
#define FZ_BUF_MAX	0x10000

/* Longest packet the harnesses send: oversized, yet within send_pkt(). */
#define FZ_PKT_MAX	(RSP_PKT_MAX + 64)

#endif /* GTP_FUZZ_HARNESS_H */
