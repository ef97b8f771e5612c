# tests/unit/fuzz.mk - the packet-layer fuzzers: their harness library, and
# all of them under ASan + UBSan.
#
# The fuzz programs (tests/unit/test_packets_*.c: one per mode, and the
# regressions) share a harness, tests/unit/fuzz_packets*.c
# (fuzz_packets.h), linked into each of them; `make unit` runs the plain
# builds for a few seconds.
#
#   make fuzz-packets   build every core object, the userspace hooks and the
#                       harness with -fsanitize=address,undefined (separate
#                       objects in build/asan/) and run every fuzz program
#                       with GTP_FUZZ_ITERS=FUZZ_PACKETS_ITERS (default
#                       200: 4000 random byte streams, 2000 random-payload
#                       connections, 2000 mutated gdb sessions and 1000
#                       frame-store stress runs, each with store checks).
#                       FUZZ_SEED picks the base seed.

FUZZ_PACKETS_SRCS := $(wildcard tests/unit/test_packets_*.c)
FUZZ_PACKETS_LIB := $(wildcard tests/unit/fuzz_packets*.c)
FUZZ_PACKETS_BINS := $(FUZZ_PACKETS_SRCS:tests/unit/%.c=$(BUILD)/unit/%)

# The generic $(BUILD)/unit/% rule, plus the harness.
$(FUZZ_PACKETS_BINS): $(BUILD)/unit/%: tests/unit/%.c $(FUZZ_PACKETS_LIB:%.c=$(BUILD)/user/%.o) $(CORE_OBJS) $(USER_ENV_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(UCFLAGS) $^ -o $@ $(ULIBS)

ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	      -fno-omit-frame-pointer
ASAN_CORE_OBJS := $(CORE_SRCS:%.c=$(BUILD)/asan/%.o)
ASAN_USER_OBJS := $(patsubst %.c,$(BUILD)/asan/%.o,$(wildcard tests/unit/user_*.c))
ASAN_FUZZ_PACKETS_BINS := $(FUZZ_PACKETS_SRCS:tests/unit/%.c=$(BUILD)/asan/%)
FUZZ_PACKETS_ITERS ?= 200
FUZZ_SEED ?= 1

$(BUILD)/asan/%.o: %.c $(wildcard module/core/*.h jit/*.h tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(UCFLAGS) $(ASAN_FLAGS) -c $< -o $@

$(ASAN_FUZZ_PACKETS_BINS): $(BUILD)/asan/%: tests/unit/%.c $(FUZZ_PACKETS_LIB:%.c=$(BUILD)/asan/%.o) $(ASAN_CORE_OBJS) $(ASAN_USER_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(UCFLAGS) $(ASAN_FLAGS) $^ -o $@ $(ULIBS)

# Each program in turn; the first failure stops (its seed is printed).
.PHONY: fuzz-packets
fuzz-packets: $(ASAN_FUZZ_PACKETS_BINS)
	@for t in $^; do \
		echo "$$t"; \
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		GTP_FUZZ_ITERS=$(FUZZ_PACKETS_ITERS) GTP_FUZZ_SEED=$(FUZZ_SEED) \
			$$t || exit 1; \
	done
