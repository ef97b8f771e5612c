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
#   make fuzz-packets-ring  the same over the per-CPU ring frame store.
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

# The same fuzzer over the per-CPU ring store (module/core/frame_ring.c)
# before it is switched on: its gtp_ring_frame* symbols are renamed to the
# frame.h names in a copy of its object, which replaces frame.o.
FRAME_H_SYMS := frames_setup frames_release frames_start frames_stop \
	frames_clear frames_stats frame_reserve frame_commit frames_count \
	frame_get
ASAN_RING_OBJS := $(filter-out $(BUILD)/asan/module/core/frame.o \
	$(BUILD)/asan/module/core/frame_ring.o,$(ASAN_CORE_OBJS))

$(BUILD)/asan/frame_ring_as_store.o: $(BUILD)/asan/module/core/frame_ring.o
	objcopy $(foreach s,$(FRAME_H_SYMS),--redefine-sym gtp_ring_$(s)=gtp_$(s)) $< $@

$(BUILD)/asan/test_packets_fuzz_ring: tests/unit/test_packets_fuzz.c $(ASAN_RING_OBJS) $(BUILD)/asan/frame_ring_as_store.o $(ASAN_USER_OBJS)
	$(CC) $(UCFLAGS) $(ASAN_FLAGS) $< $(ASAN_RING_OBJS) $(BUILD)/asan/frame_ring_as_store.o $(ASAN_USER_OBJS) -o $@ $(ULIBS)

.PHONY: fuzz-packets-ring
fuzz-packets-ring: $(BUILD)/asan/test_packets_fuzz_ring
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	GTP_FUZZ_ITERS=$(FUZZ_PACKETS_ITERS) GTP_FUZZ_SEED=$(FUZZ_SEED) \
		$(BUILD)/asan/test_packets_fuzz_ring
