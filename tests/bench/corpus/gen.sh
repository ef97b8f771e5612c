#!/bin/bash
# tests/bench/corpus/gen.sh - regenerate conditions.txt from real gdb.
#
# For each C expression below, gdb compiles it to agent-expression bytecode
# at gtp_test_function's entry, from tracepoints/gtp_test.ko's DWARF:
#
#   gdb -batch tracepoints/gtp_test.ko \
#       -ex 'maint agent-eval -at gtp_test_function, EXPR'
#
# gdb prints a listing ("  5  const16 7752"); this script turns it back
# into the bytes (opcode values and operand sizes from gdb's ax.def).
# Module globals appear as const* addresses relative to their section
# (the .ko is not relocated); '@sym NAME ADDR' lines record them so the
# benchmark can place readable memory there.
#
# Usage: tests/bench/corpus/gen.sh [path/to/gtp_test.ko]  (run from the
# top of the tree, after 'make modules').
set -euo pipefail

ko=${1:-tracepoints/gtp_test.ko}
out=$(dirname "$0")/conditions.txt
[ -f "$ko" ] || { echo "gen.sh: $ko missing: run 'make modules'" >&2; exit 1; }

exprs=(
	'2*counter1+3*counter2 < 0'
	'2*counter1+3*counter2 > 0'
	'counter1 == 5'
	'counter1 > 5 && counter2 < 3'
	'counter1 < 100 || counter2 == 7'
	'counter1 / 3 + counter2 % 7 > 4'
	'(counter1 << 3) ^ counter2'
	'counter1 * counter2 - 1000 > 0'
	'(counter1 & 0xff) == (counter2 | 1)'
	'counter1 % 16 == 0'
	'counter1 >= counter2'
	'(unsigned int)counter1 < 10u'
	'!(counter1 & 1)'
	'counter1 > 10 ? counter1 - 10 : 10 - counter1'
	'(char)counter1 == 97'
	'(short)counter2 < 0'
	'(long)counter1 * 1000000007 % 998244353 > 12345'
	'counter1 >> 2 != counter2 >> 3'
	'~counter1 & counter2'
	'gtp_test_calls > 100'
	'counter1 == gtp_test_calls'
	'loop_counter1 + loop_counter2 > counter1'
)

# name -> opcode byte, operand bytes (gdbsupport/ax.def)
declare -A OPC=(
	[add]=02 [sub]=03 [mul]=04 [div_signed]=05 [div_unsigned]=06
	[rem_signed]=07 [rem_unsigned]=08 [lsh]=09 [rsh_signed]=0a
	[rsh_unsigned]=0b [trace]=0c [trace_quick]=0d [log_not]=0e
	[bit_and]=0f [bit_or]=10 [bit_xor]=11 [bit_not]=12 [equal]=13
	[less_signed]=14 [less_unsigned]=15 [ext]=16 [ref8]=17 [ref16]=18
	[ref32]=19 [ref64]=1a [if_goto]=20 [goto]=21 [const8]=22
	[const16]=23 [const32]=24 [const64]=25 [reg]=26 [end]=27 [dup]=28
	[pop]=29 [zero_ext]=2a [swap]=2b [getv]=2c [setv]=2d [tracev]=2e
	[tracenz]=2f [trace16]=30 [pick]=32 [rot]=33
)
declare -A OPND=(
	[trace_quick]=1 [ext]=1 [zero_ext]=1 [pick]=1 [const8]=1
	[if_goto]=2 [goto]=2 [const16]=2 [reg]=2 [getv]=2 [setv]=2
	[tracev]=2 [trace16]=2 [const32]=4 [const64]=8
)

# gdb listing on stdin -> hex bytes on stdout
listing_to_hex() {
	local hex="" off name arg n
	while read -r off name arg _; do
		[[ $off =~ ^[0-9]+$ ]] || continue
		[ -n "${OPC[$name]:-}" ] || { echo "gen.sh: unknown op $name" >&2; return 1; }
		hex+=${OPC[$name]}
		n=${OPND[$name]:-0}
		if [ "$n" -gt 0 ]; then
			hex+=$(python3 -c "import sys; print(format(int(sys.argv[1]) % (1 << (8*$n)), '0$((2 * n))x'))" "$arg")
		fi
	done
	echo "$hex"
}

{
	echo "# Conditions compiled by $(gdb --version | head -n1) at gtp_test_function"
	echo "# from $ko; regenerate with tests/bench/corpus/gen.sh."
	echo "# Format: '@sym NAME ADDR' (a global's unrelocated address), then"
	echo "# one condition per line: C expression, a tab, bytecode hex."
	for sym in gtp_test_calls loop_counter1 loop_counter2; do
		addr=$(gdb -nx -batch "$ko" -ex "p/x &$sym" 2>/dev/null |
		       sed -n 's/^\$1 = .*\(0x[0-9a-f]*\).*/\1/p')
		echo "@sym $sym $addr"
	done
	for e in "${exprs[@]}"; do
		hex=$(gdb -nx -batch "$ko" \
			-ex "maint agent-eval -at gtp_test_function, $e" 2>&1 |
		      listing_to_hex)
		printf '%s\t%s\n' "$e" "$hex"
	done
} > "$out.tmp"
mv "$out.tmp" "$out"
echo "gen.sh: wrote $out ($(grep -vc '^[#@]' "$out") conditions)"
