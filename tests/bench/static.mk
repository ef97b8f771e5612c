# Static tracepoints (docs/static-tracepoints.md): guest cycles per call of the Fig. 11 loop
# with no probe, an empty tracepoint probe, gtp's probe trampoline, and a
# gtp static tracepoint whose condition is false (-icount: repeatable).
BENCH_TARGETS += bench-static
.PHONY: bench-static
bench-static: modules
	tests/vm/run --icount -- python3 tests/bench/static_bench.py 20000
