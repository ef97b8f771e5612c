// SPDX-License-Identifier: GPL-2.0
/*
 * user_rsp.c - userspace stand-ins for what the RSP/packet core gets from
 * the kernel.
 *
 * gtp_read_nofault(): the kernel's copy_from_kernel_nofault() turns a bad
 * address into an error instead of a fault.  process_vm_readv() on our own
 * pid does the same in userspace (EFAULT, no SIGSEGV), so tests can read
 * real memory and real holes through the same code path as the module.
 * Weak, so a test or tool with its own memory model can override it.
 */
#define _GNU_SOURCE
#include <sys/uio.h>
#include <unistd.h>

#include "compat.h"

__attribute__((weak)) int gtp_read_nofault(void *dst, u64 src, size_t n)
{
	struct iovec local = { .iov_base = dst, .iov_len = n };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)src,
				.iov_len = n };

	if (!n)
		return 0;
	if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != (ssize_t)n)
		return -EFAULT;
	return 0;
}
