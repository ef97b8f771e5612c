# Guest benchmarks: deterministic cycles per probed call (-icount).
BENCH_TARGETS += bench-guest
.PHONY: bench-guest
bench-guest: modules
	tests/vm/run --icount -- python3 tests/bench/guest_bench.py 20000
