// SPDX-License-Identifier: GPL-2.0
/*
 * tests/collectable/prog.c - built with gcc -O2 -g by
 * test_collectable_hook.py: at the line marked AFTER, f's arguments live
 * only as DW_OP_entry_value (gdb cannot compile them for tracing) while
 * ret is in a register, and helper is inlined at two sites (main and f).
 */
__attribute__((noinline)) long sink(long x)
{
	asm volatile("" : : "r"(x) : "memory");
	return x;
}

static inline long helper(long amt, long k)
{
	long r = amt * 3 + k;

	sink(r);
	return r;
}

__attribute__((noinline)) long f(long count, long k)
{
	long ret = sink(count + 1);

	ret += helper(ret, k);
	sink(ret); /* AFTER */
	return ret + 1;
}

int main(int c, char **v)
{
	return (int)f(c, 7) + (int)helper(c, 2);
}
