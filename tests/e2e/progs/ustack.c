// SPDX-License-Identifier: GPL-2.0
/*
 * ustack.c - a program whose user stack "collect $ustack" walks
 * (tests/e2e/test_umem.py): main calls a, a calls b, b calls c, each
 * with a frame pointer, and c opens its path with the openat system call
 * itself, no libc wrapper in between, so the task's user ip is in c and
 * its frame the first of the chain.  Built position-independent at -O0
 * (Makefile), as Debian builds programs and so that no function is
 * renamed or folded into another.  Exits with the number of paths that
 * did not open.
 */
#include <fcntl.h>
#include <unistd.h>

__attribute__((noinline)) long c(const char *path)
{
	register long mode asm("r10") = 0;
	long ret;

	asm volatile("syscall"
		     : "=a"(ret)
		     : "0"(257L /* openat */), "D"((long)AT_FDCWD), "S"(path),
		       "d"((long)O_RDONLY), "r"(mode)
		     : "rcx", "r11", "memory");
	return ret;
}

__attribute__((noinline)) int b(const char *path)
{
	long fd = c(path);

	if (fd < 0)
		return 1;
	close(fd);
	return 0;
}

__attribute__((noinline)) int a(const char *path)
{
	int bad = b(path);

	return bad;
}

int main(int argc, char **argv)
{
	int i, bad = 0;

	for (i = 1; i < argc; i++)
		bad += a(argv[i]);
	return bad;
}
