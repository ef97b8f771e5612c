# Streaming throughput: events/s gtp-ctl stream sustains (wall clock, -smp 2).
BENCH_TARGETS += bench-stream
.PHONY: bench-stream
bench-stream: modules
	tests/vm/run -- python3 tests/bench/stream_bench.py

# The copy path against the conversion on this host (a synthetic producer).
BENCH_TARGETS += bench-stream-host
.PHONY: bench-stream-host
bench-stream-host:
	python3 tests/bench/stream_host.py
