# tests/bench/jit.mk - make bench: interpreter vs JIT vs gcc -O2 over the
# corpus of real gdb conditions (tests/bench/corpus/conditions.txt).

JIT_BENCH := $(BUILD)/bench/jit_bench
JIT_CORPUS := tests/bench/corpus/conditions.txt

$(BUILD)/bench/native_conds.c: $(JIT_CORPUS) tests/bench/gen_native.sh
	@mkdir -p $(dir $@)
	tests/bench/gen_native.sh $(JIT_CORPUS) > $@

# -fwrapv: C's signed overflow means what the bytecode's wrapping u64 means
$(BUILD)/bench/native_conds.o: $(BUILD)/bench/native_conds.c module/core/compat.h
	$(CC) -O2 -fwrapv -Imodule/core -c $< -o $@

$(JIT_BENCH): tests/bench/jit_bench.c $(BUILD)/bench/native_conds.o $(CORE_OBJS) $(USER_ENV_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(UCFLAGS) $< $(BUILD)/bench/native_conds.o $(CORE_OBJS) $(USER_ENV_OBJS) -o $@ $(ULIBS)

.PHONY: bench-jit
bench-jit: $(JIT_BENCH)
	$(JIT_BENCH) $(JIT_CORPUS)

BENCH_TARGETS += bench-jit
