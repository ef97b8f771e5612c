// SPDX-License-Identifier: GPL-2.0
/*
 * fuzzlib_packets.c - the packet fuzzers' randomness, failure reports and
 * setup (see fuzzlib_packets.h).
 *
 * A failure names its mode, the seed that reproduces it alone and the
 * last packets sent; a hang (SIGALRM), a crash or a sanitizer report
 * prints the seed too.
 */
#define _GNU_SOURCE		/* program_invocation_name */
#include <errno.h>

#include "fuzzlib_packets.h"

/* ---- deterministic randomness ---------------------------------------- */

static u64 rng_state;

u64 rnd(void)
{
	u64 x = rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545f4914f6cdd1dull;
}

void rng_seed(u64 seed)
{
	rng_state = seed * 0x9e3779b97f4a7c15ull + 0x1234567;
	if (!rng_state)
		rng_state = 1;
	rnd();
}

u32 below(u32 n)
{
	return n ? rnd() % n : 0;
}

bool chance(u32 percent)
{
	return below(100) < percent;
}

/* ---- failure reporting ------------------------------------------------ */

u64 cur_seed;
u64 base_seed = 1;
unsigned long iters = 1;
const char *cur_mode = "";
#define HIST 8
static char hist[HIST][160];	/* the last packets sent, for the report */
static unsigned int nhist;

void remember(const char *pkt, size_t len)
{
	char *h = hist[nhist++ % HIST];
	size_t i, n = min_t(size_t, len, 150);

	for (i = 0; i < n; i++)
		h[i] = pkt[i] >= 0x20 && pkt[i] < 0x7f ? pkt[i] : '.';
	h[n] = '\0';
	if (len > n)
		strcat(h, "...");
}

void report(const char *why)
{
	unsigned int i;

	print_message("FUZZ FAILURE (mode %s): %s\n", cur_mode, why);
	print_message("reproduce: GTP_FUZZ_SEED=%llu GTP_FUZZ_ITERS=1 %s\n",
		      (unsigned long long)cur_seed, program_invocation_name);
	for (i = nhist > HIST ? nhist - HIST : 0; i < nhist; i++)
		print_message("  sent: %s\n", hist[i % HIST]);
}

/* A hang is a failure too: the seed is printed before dying. */
static void on_alarm(int sig)
{
	static const char msg[] = "FUZZ FAILURE: iteration timed out (hang)\n";
	char buf[64];
	int n;

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	n = snprintf(buf, sizeof(buf), "reproduce: GTP_FUZZ_SEED=%llu\n",
		     (unsigned long long)cur_seed);
	if (write(2, buf, n) < 0)
		_exit(3);
	_exit(2);
}

/*
 * Crashes and sanitizer reports print the seed too.  Our handler runs
 * first and then hands over to the one it replaced (cmocka's).
 */
extern void __asan_set_death_callback(void (*cb)(void)) __attribute__((weak));

static void say_seed(void)
{
	char buf[96];
	int n = snprintf(buf, sizeof(buf),
			 "FUZZ FAILURE (mode %s): reproduce: GTP_FUZZ_SEED=%llu GTP_FUZZ_ITERS=1\n",
			 cur_mode, (unsigned long long)cur_seed);

	if (write(2, buf, n) < 0)
		_exit(3);
}

static struct sigaction old_act[32];

static void on_crash(int sig)
{
	say_seed();
	sigaction(sig, &old_act[sig], NULL);
	raise(sig);
}

void arm_crash_report(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	struct sigaction sa = { .sa_handler = on_crash };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &sa, &old_act[sigs[i]]);
	if (__asan_set_death_callback)
		__asan_set_death_callback(say_seed);
}

void env_setup(void)
{
	const char *s = getenv("GTP_FUZZ_SEED"), *it = getenv("GTP_FUZZ_ITERS");

	if (s)
		base_seed = strtoull(s, NULL, 0);
	iters = it ? strtoul(it, NULL, 0) : 20;
	if (!iters)
		iters = 1;
	signal(SIGALRM, on_alarm);
	gtp_packets_init();
	gtp_trace_init();
}
