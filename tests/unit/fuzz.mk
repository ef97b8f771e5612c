# tests/unit/fuzz.mk - the packet-layer fuzzer under ASan + UBSan.
#
#   make fuzz-packets   build every core object and the userspace hooks with
#                       -fsanitize=address,undefined (separate objects in
#                       build/asan/) and run tests/unit/test_packets_fuzz.c
#                       with GTP_FUZZ_ITERS=FUZZ_PACKETS_ITERS (default
#                       200: 4000 random byte streams, 2000 random-payload
#                       connections, 2000 mutated gdb sessions and 1000
#                       frame-store stress runs, each with store checks).
#                       FUZZ_SEED picks the base seed.
#
# The plain build of the same test runs a few seconds in `make unit`.

ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	      -fno-omit-frame-pointer
ASAN_CORE_OBJS := $(CORE_SRCS:%.c=$(BUILD)/asan/%.o)
ASAN_USER_OBJS := $(patsubst %.c,$(BUILD)/asan/%.o,$(wildcard tests/unit/user_*.c))
FUZZ_PACKETS_ITERS ?= 200
FUZZ_SEED ?= 1

$(BUILD)/asan/%.o: %.c $(wildcard module/core/*.h jit/*.h tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(UCFLAGS) $(ASAN_FLAGS) -c $< -o $@

$(BUILD)/asan/test_packets_fuzz: tests/unit/test_packets_fuzz.c $(ASAN_CORE_OBJS) $(ASAN_USER_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(UCFLAGS) $(ASAN_FLAGS) $< $(ASAN_CORE_OBJS) $(ASAN_USER_OBJS) -o $@ $(ULIBS)

.PHONY: fuzz-packets
fuzz-packets: $(BUILD)/asan/test_packets_fuzz
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	GTP_FUZZ_ITERS=$(FUZZ_PACKETS_ITERS) GTP_FUZZ_SEED=$(FUZZ_SEED) \
		$(BUILD)/asan/test_packets_fuzz
