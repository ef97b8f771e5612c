// SPDX-License-Identifier: GPL-2.0
/*
 * ring_bench.c - ns per event for reserve + payload copy + commit on the
 * lock-free per-CPU ring (module/core/ring.c, the module's own source),
 * against two lock-based rings built in the same harness:
 *
 *   spinlock	a per-thread ring guarded by a pthread spinlock, held from
 *		reserve to commit (the classic lock-based tracer buffer);
 *   mutex	the same with a pthread mutex;
 *   spin+sigmask the spinlock ring made safe against re-entrant writers
 *		(signal handlers), which is what irq-off is in the kernel:
 *		signals blocked around the write.  The paper's 4.3-8.1x is
 *		local CAS vs this kind of (irq-off + spinlock) baseline.
 *
 *   floor	no buffer management at all: the TSC read and the payload
 *		copy every variant pays (the rest is the ring's own cost).
 *
 * Every writer thread owns one buffer (per-CPU, as in the kernel), so
 * 2 threads measure scaling, not contention.  Every event takes a TSC
 * timestamp in all variants.  Discard mode drains full sub-buffers in the
 * writer thread when the buffer fills (amortized over 4 KiB of events).
 * Speed is reported, never asserted.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "ring_api.h"	/* the inline fast path, as a probe would use */

#define SB_ORDER	12		/* 4 KiB sub-buffers */
#define NR_ORDER	4		/* 16 per CPU: 64 KiB */
#define BUF_BYTES	(1u << (SB_ORDER + NR_ORDER))
#define MAX_THREADS	2

enum impl {
	I_DISCARD, I_OVERWRITE, I_SPIN, I_MUTEX, I_SPINMASK, I_FLOOR, NR_IMPL
};
static const char *const impl_name[NR_IMPL] = {
	"lockless discard", "lockless overwrite", "spinlock", "mutex",
	"spin+sigmask", "floor: TSC + copy",
};

/* ---- the lock-based baseline ring ---- */

struct lk_ring {
	pthread_spinlock_t spin;
	pthread_mutex_t mutex;
	unsigned long head;
	unsigned char *buf;
} __attribute__((aligned(64)));

struct lk_hdr {
	u64 ts;
	u32 len;
	u32 type;
};

static __always_inline void *lk_reserve(struct lk_ring *r, u32 len)
{
	unsigned long size = (sizeof(struct lk_hdr) + len + 7) & ~7UL;
	unsigned long off = r->head & (BUF_BYTES - 1);
	struct lk_hdr *h;

	if (off + size > BUF_BYTES)	/* wrap: overwrite the oldest */
		r->head += BUF_BYTES - off, off = 0;
	h = (struct lk_hdr *)(r->buf + off);
	h->ts = gtp_tsc();
	h->len = len;
	h->type = 1;
	r->head += size;
	return h + 1;
}

/* ---- one measurement ---- */

struct job {
	enum impl impl;
	u32 len;
	unsigned long n;
	int cpu;
	struct ring *ring;
	struct lk_ring *lk;
	pthread_barrier_t *bar;
	double ns;
};

static void drain(struct ring *ring, int cpu)
{
	struct ring_subbuf sb;

	while (!ring_get_subbuf(ring, cpu, &sb))
		ring_put_subbuf(ring, &sb);
}

/*
 * Thread CPU time, not wall time: the machine is shared, and time spent
 * descheduled is not the cost of an event.
 */
static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void *job_main(void *arg)
{
	struct job *j = arg;
	unsigned char payload[64];
	unsigned long i;
	sigset_t all, old;
	cpu_set_t set;
	double t0;

	CPU_ZERO(&set);
	CPU_SET(j->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	memset(payload, 0x5a, sizeof(payload));
	sigfillset(&all);
	pthread_barrier_wait(j->bar);
	t0 = now_ns();

	switch (j->impl) {
	case I_DISCARD:
	case I_OVERWRITE:
		for (i = 0; i < j->n; i++) {
			struct ring_ctx ctx;
			int ret = __ring_reserve(j->ring, &ctx, j->cpu,
						 j->len);

			if (unlikely(ret)) {	/* full (discard): read, retry */
				drain(j->ring, j->cpu);
				i--;
				continue;
			}
			memcpy(ctx.data, payload, j->len);
			__ring_commit(j->ring, &ctx);
		}
		break;
	case I_SPIN:
		for (i = 0; i < j->n; i++) {
			pthread_spin_lock(&j->lk->spin);
			memcpy(lk_reserve(j->lk, j->len), payload, j->len);
			pthread_spin_unlock(&j->lk->spin);
		}
		break;
	case I_MUTEX:
		for (i = 0; i < j->n; i++) {
			pthread_mutex_lock(&j->lk->mutex);
			memcpy(lk_reserve(j->lk, j->len), payload, j->len);
			pthread_mutex_unlock(&j->lk->mutex);
		}
		break;
	case I_SPINMASK:
		for (i = 0; i < j->n; i++) {
			pthread_sigmask(SIG_BLOCK, &all, &old);
			pthread_spin_lock(&j->lk->spin);
			memcpy(lk_reserve(j->lk, j->len), payload, j->len);
			pthread_spin_unlock(&j->lk->spin);
			pthread_sigmask(SIG_SETMASK, &old, NULL);
		}
		break;
	case I_FLOOR:
		for (i = 0; i < j->n; i++) {
			struct lk_hdr *h = (struct lk_hdr *)(j->lk->buf +
					   ((i * 128) & (BUF_BYTES - 1)));

			h->ts = gtp_tsc();
			memcpy(h + 1, payload, j->len);
			barrier();
		}
		break;
	default:
		break;
	}
	j->ns = (now_ns() - t0) / j->n;
	return NULL;
}

/* ns/event per thread (best of @reps), all threads running at once */
static double measure(enum impl impl, u32 len, int threads, int reps)
{
	unsigned long n = impl == I_SPINMASK ? 200000 : 2000000;
	struct ring_config cfg = {
		.nr_cpus = MAX_THREADS, .subbuf_order = SB_ORDER,
		.nr_subbufs_order = NR_ORDER,
		.mode = impl == I_DISCARD ? RING_DISCARD : RING_OVERWRITE,
	};
	struct lk_ring lk[MAX_THREADS];
	struct job jobs[MAX_THREADS];
	pthread_t tid[MAX_THREADS];
	pthread_barrier_t bar;
	double best = 1e30;
	int r, t;

	for (r = 0; r < reps; r++) {
		struct ring *ring = ring_create(&cfg);
		double sum = 0;

		if (!ring)
			abort();
		pthread_barrier_init(&bar, NULL, threads);
		for (t = 0; t < threads; t++) {
			memset(&lk[t], 0, sizeof(lk[t]));
			pthread_spin_init(&lk[t].spin, PTHREAD_PROCESS_PRIVATE);
			pthread_mutex_init(&lk[t].mutex, NULL);
			lk[t].buf = calloc(1, BUF_BYTES);
			jobs[t] = (struct job){ impl, len, n, t, ring, &lk[t],
						&bar, 0 };
			pthread_create(&tid[t], NULL, job_main, &jobs[t]);
		}
		for (t = 0; t < threads; t++) {
			pthread_join(tid[t], NULL);
			sum += jobs[t].ns;
			free(lk[t].buf);
		}
		pthread_barrier_destroy(&bar);
		ring_destroy(ring);
		if (sum / threads < best)
			best = sum / threads;
	}
	return best;
}

int main(int argc, char **argv)
{
	static const u32 lens[] = { 16, 64 };
	double res[2][MAX_THREADS + 1][NR_IMPL];
	int reps = argc > 1 ? atoi(argv[1]) : 5;
	int li, th, im;

	for (li = 0; li < 2; li++)
		for (th = 1; th <= MAX_THREADS; th++)
			for (im = 0; im < NR_IMPL; im++)
				res[li][th][im] = measure(im, lens[li], th,
							  reps);

	printf("ring buffer: ns per event (reserve + copy + commit, TSC "
	       "stamp), per thread, best of %d;\n"
	       "2 threads = 2 writers on 2 cores, one buffer each. "
	       "scale = total throughput 2T / 1T.\n\n", reps);
	printf("%-19s %7s %7s %9s %6s %10s %9s %13s\n", "impl", "payload",
	       "threads", "ns/event", "scale", "x spinlock", "x mutex",
	       "x spin+sigmask");
	for (li = 0; li < 2; li++)
		for (im = 0; im < NR_IMPL; im++)
			for (th = 1; th <= MAX_THREADS; th++) {
				double ns = res[li][th][im];
				char scale[16] = "";

				if (th == 2)
					snprintf(scale, sizeof(scale), "%.2f",
						 2 * res[li][1][im] / ns);
				printf("%-19s %7u %7d %9.2f %6s %10.2f %9.2f "
				       "%13.2f\n", impl_name[im], lens[li], th,
				       ns, scale, res[li][th][I_SPIN] / ns,
				       res[li][th][I_MUTEX] / ns,
				       res[li][th][I_SPINMASK] / ns);
			}
	return 0;
}
