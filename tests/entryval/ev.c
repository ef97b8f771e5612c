/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tests/entryval: at six()'s return, its arguments live in no register
 * or stack slot any more: gcc -O2 -g describes each as
 * DW_OP_entry_value(DW_OP_regN), N the register it came in (rdi, rsi,
 * rdx, rcx, r8, r9), which gdb cannot compile into an agent expression.
 */
__attribute__((noipa)) long sink(long x)
{
	asm volatile("" : : "r"(x) : "memory");
	return x;
}

__attribute__((noinline)) long six(long a, long b, long c, long d, long e, long f)
{
	long r = sink(a) + sink(b) + sink(c) + sink(d) + sink(e) + sink(f);
	/* values live across calls: the registers that kept b..f are reused */
	long x1 = sink(r), x2 = sink(x1), x3 = sink(x2), x4 = sink(x3), x5 = sink(x4),
	     x6 = sink(x5);

	return r + x1 + x2 + x3 + x4 + x5 + x6;	/* a..f: entry values */
}

int main(int argc, char **argv)
{
	return (int)six(argc, 2, 3, 4, 5, 6);
}
