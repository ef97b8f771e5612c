# Ring buffer micro-benchmark: lock-free per-CPU ring vs spinlock / mutex
# rings in the same harness (tests/bench/ring_bench.c).  Only the ring's own
# objects are linked, so it builds whatever else the core contains.
RING_BENCH_OBJS := $(BUILD)/user/module/core/ring.o $(BUILD)/user/module/core/ring_read.o

$(BUILD)/bench/ring_bench: tests/bench/ring_bench.c $(RING_BENCH_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(UCFLAGS) $< $(RING_BENCH_OBJS) -o $@ -lpthread

BENCH_TARGETS += bench-ring
.PHONY: bench-ring
bench-ring: $(BUILD)/bench/ring_bench
	$(BUILD)/bench/ring_bench
