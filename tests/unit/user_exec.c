// SPDX-License-Identifier: GPL-2.0
/*
 * user_exec.c - userspace executable memory for the JIT (tests, tools).
 *
 * The same W^X discipline as module/services/exec_mem.c: pages are mapped
 * read-write, user_exec_install() copies the code in, fills the rest with
 * int3 and turns them read-only + executable.  The mapping length is kept in a header in front of the
 * image, so callers' size arguments need not match the allocation.
 */
#include <sys/mman.h>
#include <stdint.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "user_host.h"

struct exec_hdr {
	size_t maplen;
	size_t pad;
};

static size_t page_round(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	return (n + pg - 1) & ~(pg - 1);
}

bool user_exec_near;

/* Upward from 1GB below our text, never reusing an address. */
static void *map_near_text(size_t len)
{
	static uintptr_t next;
	void *p;
	int i;

	if (!next)
		next = ((uintptr_t)&map_near_text & ~(uintptr_t)0xfffff) -
		       (1UL << 30);
	for (i = 0; i < 1024; i++, next += len) {
		p = mmap((void *)next, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			 -1, 0);
		if (p != MAP_FAILED) {
			next += len;
			return p;
		}
	}
	return MAP_FAILED;
}

void *user_exec_alloc(size_t size)
{
	size_t len = page_round(size + sizeof(struct exec_hdr));
	struct exec_hdr *h;

	h = user_exec_near ? map_near_text(len) :
	    mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (h == MAP_FAILED)
		return NULL;
	h->maplen = len;
	return h + 1;
}

int user_exec_install(void *image, const void *code, size_t len, size_t alloc)
{
	struct exec_hdr *h = (struct exec_hdr *)image - 1;
	size_t room = h->maplen - sizeof(*h);

	if (len > room)
		return -EINVAL;
	memcpy(image, code, len);
	memset((char *)image + len, 0xcc, room - len);	/* int3 */
	return mprotect(h, h->maplen, PROT_READ | PROT_EXEC) ? -errno : 0;
}

void user_exec_free(void *image, size_t size)
{
	struct exec_hdr *h;

	if (!image)
		return;
	h = (struct exec_hdr *)image - 1;
	munmap(h, h->maplen);
}

/*
 * Userspace returns with a plain 'ret', unless a test sets this to a
 * function that is just 'ret' to exercise the kernel's return-thunk path.
 */
void *user_exec_return_thunk;

void *user_exec_return_thunk_of(void)
{
	return user_exec_return_thunk;
}

/*
 * Call-depth accounting: off unless a test points it at a per-CPU-like
 * counter ("sarq $5, %gs:var": userspace's %gs base is 0, so @var is a
 * plain address below 2GB that the test maps).
 */
bool user_exec_call_depth_on;
s32 user_exec_call_depth_var;

bool user_exec_call_depth(s32 *var)
{
	*var = user_exec_call_depth_var;
	return user_exec_call_depth_on;
}

/* The module's 'jit' parameter, as a knob for tests (user_host.h). */
bool user_jit_off;

bool user_jit_enabled(void)
{
	return !user_jit_off;
}

const char *user_jit_off_reason(void)
{
	return user_jit_off ? "jit: off (user_jit_off)" : "jit: on";
}

/* Tests set this to check the IBT entry (the kernel asks its config). */
bool user_exec_endbr;

bool user_exec_want_endbr(void)
{
	return user_exec_endbr;
}
