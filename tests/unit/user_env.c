// SPDX-License-Identifier: GPL-2.0
/*
 * user_env.c - userspace implementations of the core's hooks: fake
 * readable memory, a recording frame, trace state variables.  The API and
 * its rules are in user_env.h.
 *
 * Memory is a short list of regions (copies of the caller's bytes).  A read
 * is served from the newest region that holds the whole range (the common
 * case, and the one gtp-ax's timing loop hits); a read that straddles
 * regions falls back to byte by byte, each byte from the newest region
 * holding it, and faults if any byte is in none.
 */
#include "user_env.h"
#include "hitmem.h"

struct user_region {
	u64 addr;
	size_t len;
	u8 *bytes;
	bool direct;	/* JIT code may load from bytes (user_env_direct()) */
};

static struct user_region regions[USER_ENV_MAX_REGIONS];
static unsigned int nr_regions;

static struct user_env_trace traces[USER_ENV_MAX_TRACES];
static unsigned int nr_traces;
static struct user_env_tracev tracevs[USER_ENV_MAX_TRACES];
static unsigned int nr_tracevs;
static u8 trace_bytes[USER_ENV_TRACE_BYTES];
static size_t trace_used;
static unsigned int records_left = USER_ENV_MAX_TRACES;

static s64 tsvs[USER_ENV_NR_TSV];
static unsigned int nr_reads;
static unsigned int nr_user_reads;
static unsigned int nr_pins;

void user_env_reset(void)
{
	unsigned int i;

	for (i = 0; i < nr_regions; i++)
		if (!regions[i].direct)
			free(regions[i].bytes);
	nr_regions = 0;
	nr_traces = 0;
	nr_tracevs = 0;
	trace_used = 0;
	records_left = USER_ENV_MAX_TRACES;
	memset(tsvs, 0, sizeof(tsvs));
	nr_reads = 0;
	nr_user_reads = 0;
}

static int add_region(u64 addr, const void *bytes, size_t len, bool direct)
{
	struct user_region *r;

	if (len && addr + (len - 1) < addr)
		return -EINVAL;
	if (nr_regions == USER_ENV_MAX_REGIONS)
		return -ENOSPC;
	r = &regions[nr_regions];
	if (direct) {
		/* the caller's bytes, changing in place like kernel data */
		r->bytes = (u8 *)bytes;
	} else {
		r->bytes = malloc(len ? len : 1);
		if (!r->bytes)
			return -ENOMEM;
		memcpy(r->bytes, bytes, len);
	}
	r->addr = addr;
	r->len = len;
	r->direct = direct;
	nr_regions++;
	return 0;
}

int user_env_add_region(u64 addr, const void *bytes, size_t len)
{
	return add_region(addr, bytes, len, false);
}

int user_env_add_direct_region(u64 addr, const void *bytes, size_t len)
{
	return add_region(addr, bytes, len, true);
}

/*
 * The newest region touching [addr, addr + n) decides: it must be direct
 * and hold the whole range (a newer region shadowing part of a direct one
 * makes the range "not provably one mapping", like a range that leaves a
 * kernel section).
 */
const void *user_env_direct(u64 addr, size_t n, void **pin)
{
	unsigned int i = nr_regions;

	*pin = NULL;
	if (!n || addr + (n - 1) < addr)
		return NULL;
	while (i--) {
		struct user_region *r = &regions[i];

		if (!r->len || addr + (n - 1) < r->addr ||
		    addr > r->addr + (r->len - 1))
			continue;	/* no byte in common */
		if (!r->direct || addr < r->addr ||
		    n > r->len - (addr - r->addr))
			return NULL;
		*pin = r;
		nr_pins++;
		return r->bytes + (addr - r->addr);
	}
	return NULL;
}

void user_env_unpin(void *pin)
{
	if (pin)
		nr_pins--;
}

unsigned int user_env_nr_pins(void)
{
	return nr_pins;
}

/* Newest region holding [addr, addr + n), n >= 1, or NULL. */
static const struct user_region *find_region(u64 addr, size_t n)
{
	unsigned int i = nr_regions;

	while (i--) {
		const struct user_region *r = &regions[i];

		if (addr >= r->addr && addr - r->addr < r->len &&
		    n <= r->len - (addr - r->addr))
			return r;
	}
	return NULL;
}

static unsigned int nr_faults;

static int user_read_nofault(void *dst, u64 src, size_t n);

/* Every failed read is a fault the kernel would have taken. */
int gtp_read_nofault(void *dst, u64 src, size_t n)
{
	int ret = user_read_nofault(dst, src, n);

	if (ret)
		nr_faults++;
	return ret;
}

unsigned int user_env_nr_faults(void)
{
	return nr_faults;
}

static int user_read_nofault(void *dst, u64 src, size_t n)
{
	const struct user_region *r;
	u8 *out = dst;
	size_t i;

	if (!n)
		return 0;
	if (src + (n - 1) < src)
		return -EFAULT;
	r = find_region(src, n);
	if (r) {
		memcpy(dst, r->bytes + (src - r->addr), n);
		return 0;
	}
	for (i = 0; i < n; i++) {
		r = find_region(src + i, 1);
		if (!r)
			return -EFAULT;
		out[i] = r->bytes[src + i - r->addr];
	}
	return 0;
}

bool gtp_user_addr(u64 addr)
{
	return addr >= USER_ENV_USER_LO && addr < USER_ENV_USER_HI;
}

/* The user half's regions, as the kernel's copy reads a task's memory. */
int gtp_read_user_nofault(void *dst, u64 src, size_t n)
{
	nr_user_reads++;
	if (!gtp_user_addr(src) || n > USER_ENV_USER_HI - src)
		return -EFAULT;
	return user_read_nofault(dst, src, n);
}

unsigned int user_env_user_reads(void)
{
	return nr_user_reads;
}

int user_env_set_reg(struct pt_regs *regs, unsigned int regno, u64 val)
{
	int off = ax_reg_offset(regno);

	if (off < 0)
		return -EINVAL;
	*(unsigned long *)((u8 *)regs + off) = val;
	return 0;
}

int user_env_set_tsv(u32 tsv, s64 val)
{
	if (tsv >= USER_ENV_NR_TSV)
		return -EINVAL;
	tsvs[tsv] = val;
	return 0;
}

s64 user_env_tsv(u32 tsv)
{
	return tsv < USER_ENV_NR_TSV ? tsvs[tsv] : 0;
}

void user_env_set_trace_limit(unsigned int nr)
{
	records_left = nr;
}

unsigned int user_env_nr_traces(void)
{
	return nr_traces;
}

const struct user_env_trace *user_env_trace(unsigned int i)
{
	return i < nr_traces ? &traces[i] : NULL;
}

unsigned int user_env_nr_tracevs(void)
{
	return nr_tracevs;
}

const struct user_env_tracev *user_env_tracev(unsigned int i)
{
	return i < nr_tracevs ? &tracevs[i] : NULL;
}

unsigned int user_env_nr_reads(void)
{
	return nr_reads;
}

/* --- the hooks of ax.h ------------------------------------------------ */

/*
 * A hit's read as module/core/hitmem.h routes it, where a host
 * (user_trace.c) says whether user memory is readable; without one, the
 * user half is read as any other memory.
 */
static int hit_read(const struct ax_env *env, void *dst, u64 addr, u32 n)
{
	if (!gtp_host)
		return gtp_read_nofault(dst, addr, n);
	return gtp_hit_read(env, dst, addr, n);
}

/* The hit's fault budget as module/core/ax_hooks.c applies it. */
int ax_hook_read(struct ax_env *env, u64 addr, void *dst, u32 size)
{
	nr_reads++;
	if (env->faults >= AX_HIT_FAULTS_MAX)
		return -EFAULT;
	if (hit_read(env, dst, addr, size)) {
		env->faults++;
		return -EFAULT;
	}
	return 0;
}

int ax_hook_trace(struct ax_env *env, u64 addr, u32 size, bool upto_nul)
{
	size_t space = USER_ENV_TRACE_BYTES - trace_used;
	u8 *data = trace_bytes + trace_used;
	struct user_env_trace *t;
	u32 len;
	u8 c;

	if (!records_left || nr_traces == USER_ENV_MAX_TRACES)
		return -ENOSPC;
	if (!upto_nul && size <= space && !hit_read(env, data, addr, size)) {
		len = size;
		goto record;
	}
	/* the readable prefix; tracenz stops after the first NUL */
	for (len = 0; len < size; len++) {
		if (hit_read(env, &c, addr + len, 1))
			break;
		if (len == space)
			return -ENOSPC;
		data[len] = c;
		if (upto_nul && !c) {
			len++;
			break;
		}
	}
record:
	t = &traces[nr_traces++];
	t->addr = addr;
	t->size = size;
	t->len = len;
	t->upto_nul = upto_nul;
	t->data = data;
	trace_used += len;
	records_left--;
	return 0;
}

int ax_hook_tracev(struct ax_env *env, u32 tsv)
{
	if (tsv >= USER_ENV_NR_TSV)
		return -EINVAL;
	if (!records_left || nr_tracevs == USER_ENV_MAX_TRACES)
		return -ENOSPC;
	tracevs[nr_tracevs].tsv = tsv;
	tracevs[nr_tracevs].val = tsvs[tsv];
	nr_tracevs++;
	records_left--;
	return 0;
}

int ax_hook_getv(struct ax_env *env, u32 tsv, s64 *val)
{
	if (tsv >= USER_ENV_NR_TSV)
		return -EINVAL;
	*val = tsvs[tsv];
	return 0;
}

int ax_hook_setv(struct ax_env *env, u32 tsv, s64 val)
{
	if (tsv >= USER_ENV_NR_TSV)
		return -EINVAL;
	tsvs[tsv] = val;
	return 0;
}
