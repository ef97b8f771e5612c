# tests/fuzz/fuzz.mk - every host fuzzer's build and make target (the
# list, with what each fuzzes: docs/testing.md#fuzzing).
#
#   make unit          runs the unit fuzzers (tests/unit/test_fuzz_*.c) briefly
#   make fuzz-packets  the packet-layer unit fuzzers under ASan + UBSan, long
#   make fuzz-jit      the JIT's differential fuzzer (fuzz_jit.c), 100000
#                      random programs; fuzz-jit-quick (3000) is in make check
#   make fuzz          build the four libFuzzer harnesses (fuzz_rsp.c,
#                      fuzz_packets.c, fuzz_qtdp.c, fuzz_ax.c)
#                      with clang -fsanitize=fuzzer,address,undefined
#                      (objects in build/libfuzzer/) and run each for
#                      FUZZ_TIME seconds (60) over its corpus copied to
#                      build/libfuzzer/corpus/<harness>/ (the fuzzer adds
#                      to the copy, never to tests/fuzz/corpus/); prints
#                      every harness's exec count.  FUZZ_RUNS caps the
#                      executions (-1: no cap), FUZZ_HARNESSES picks some,
#                      FUZZ_FLAGS adds libFuzzer options.  Installs clang
#                      first when run as root (make fuzz-deps).
#   make fuzz-long     every harness for FUZZ_LONG_RUNS executions
#   make fuzz-corpus   gcc + ASan/UBSan: every harness over its seed corpus
#                      (tests/fuzz/replay.c, no clang needed); in make check
#   make fuzz-seeds    regenerate tests/fuzz/corpus/ (gen_corpus.c)
#   make fuzz-live     the live-kernel fuzz (tests/e2e/test_live_fuzz.py), long

# ---- the unit fuzzers under ASan + UBSan -----------------------------------

# The packet-layer unit fuzzers (tests/unit/test_fuzz_packets_*.c: one
# per mode, and the regressions) share a library, tests/unit/fuzzlib_packets*.c
# (fuzzlib_packets.h), linked into each of them; `make unit` runs the plain
# builds for a few seconds.
#
#   make fuzz-packets   build every core object, the userspace hooks and the
#                       library with -fsanitize=address,undefined (separate
#                       objects in build/asan/) and run every unit fuzzer
#                       with GTP_FUZZ_ITERS=FUZZ_PACKETS_ITERS (default
#                       200: 4000 random byte streams, 2000 random-payload
#                       connections, 2000 mutated gdb sessions and 1000
#                       frame-store stress runs, each with store checks).
#                       FUZZ_SEED picks the base seed.

FUZZ_PACKETS_SRCS := $(wildcard tests/unit/test_fuzz_packets_*.c)
FUZZ_PACKETS_LIB := $(wildcard tests/unit/fuzzlib_packets*.c)
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

# ---- the JIT's differential fuzzer ----------------------------------------

$(BUILD)/fuzz_jit: tests/fuzz/fuzz_jit.c $(CORE_OBJS) $(USER_ENV_OBJS) $(wildcard jit/*.h tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(UCFLAGS) $< $(CORE_OBJS) $(USER_ENV_OBJS) -o $@ $(ULIBS)

.PHONY: fuzz-jit fuzz-jit-quick
fuzz-jit: $(BUILD)/fuzz_jit
	$(BUILD)/fuzz_jit 100000 $(FUZZ_SEED)

fuzz-jit-quick: $(BUILD)/fuzz_jit
	$(BUILD)/fuzz_jit 3000 $(FUZZ_SEED)

CHECK_EXTRA += fuzz-jit-quick

# ---- libFuzzer harnesses ----------------------------------------------------

FUZZ_HARNESSES ?= rsp packets qtdp ax
FUZZ_ALL := rsp packets qtdp ax
FUZZ_CC ?= clang-16
FUZZ_TIME ?= 60
FUZZ_RUNS ?= -1
FUZZ_RSS ?= 2048
# Seconds one input may take (libFuzzer's -timeout, wall clock).
FUZZ_TIMEOUT ?= 5
FUZZ_FLAGS ?=
LF := $(BUILD)/libfuzzer

# Longest input per harness: past PacketSize for the framer, past
# AX_MAX_CODE for bytecode, a long session for the others.
FUZZ_MAXLEN_rsp := 20000
FUZZ_MAXLEN_packets := 4096
FUZZ_MAXLEN_qtdp := 4096
FUZZ_MAXLEN_ax := 1100

# What each harness links besides the core and the userspace hooks: the
# packet-layer ones the unit fuzzers' library, ax the comparison of
# fuzz_jit.c (compiled without its main(): fuzz_jit_lib.o).
FUZZ_LIB_SRCS := $(FUZZ_PACKETS_LIB)
FUZZ_PKT_OBJS := tests/fuzz/harness.o $(FUZZ_LIB_SRCS:%.c=%.o)
FUZZ_OBJS_rsp := tests/fuzz/fuzz_rsp.o $(FUZZ_PKT_OBJS)
FUZZ_OBJS_packets := tests/fuzz/fuzz_packets.o $(FUZZ_PKT_OBJS)
FUZZ_OBJS_qtdp := tests/fuzz/fuzz_qtdp.o $(FUZZ_PKT_OBJS)
FUZZ_OBJS_ax := tests/fuzz/fuzz_ax.o tests/fuzz/fuzz_jit_lib.o

FUZZ_HDRS := $(wildcard module/core/*.h jit/*.h tests/unit/*.h tests/fuzz/*.h)
LF_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	    -fno-omit-frame-pointer
LF_BASE_OBJS := $(CORE_SRCS:%.c=$(LF)/%.o) \
		$(patsubst %.c,$(LF)/%.o,$(wildcard tests/unit/user_*.c))
ASAN_BASE_OBJS := $(CORE_SRCS:%.c=$(BUILD)/asan/%.o) \
		  $(patsubst %.c,$(BUILD)/asan/%.o,$(wildcard tests/unit/user_*.c))

SAN_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	   UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

.PHONY: fuzz fuzz-long fuzz-deps fuzz-corpus fuzz-seeds $(FUZZ_ALL:%=fuzz-run-%)

fuzz-deps:
	@tests/fuzz/deps

# ---- libFuzzer builds (clang) --------------------------------------------

# The code under test (module/core/, jit/) gets libFuzzer's coverage
# instrumentation; the harnesses and the userspace backend (tests/) only
# the sanitizers: their coverage would only mislead the fuzzer, and their
# byte loops (fake memory, the output parser) would cost most of the
# time.  Order-only: clang must be there, but installing it rebuilds
# nothing.
LF_TEST_FLAGS := $(LF_FLAGS) -fsanitize-address-use-after-return=never

$(LF)/%.o: %.c $(FUZZ_HDRS) | fuzz-deps
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(UCFLAGS) $(LF_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(LF)/tests/%.o: tests/%.c $(FUZZ_HDRS) | fuzz-deps
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(UCFLAGS) $(LF_TEST_FLAGS) -c $< -o $@

$(LF)/tests/fuzz/fuzz_jit_lib.o: tests/fuzz/fuzz_jit.c $(FUZZ_HDRS) | fuzz-deps
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(UCFLAGS) $(LF_TEST_FLAGS) -DFUZZ_JIT_NO_MAIN -c $< -o $@

define FUZZ_HARNESS
$(LF)/fuzz_$(1): $(addprefix $(LF)/,$(FUZZ_OBJS_$(1))) $(LF_BASE_OBJS)
	$(FUZZ_CC) $(UCFLAGS) $(LF_FLAGS) -fsanitize=fuzzer $$^ -o $$@ $(ULIBS)

$(BUILD)/asan/fuzz_$(1)_replay: $(BUILD)/asan/tests/fuzz/replay.o $(addprefix $(BUILD)/asan/,$(FUZZ_OBJS_$(1))) $(ASAN_BASE_OBJS)
	$(CC) $(UCFLAGS) $$(ASAN_FLAGS) $$^ -o $$@ $(ULIBS)
endef
$(foreach h,$(FUZZ_ALL),$(eval $(call FUZZ_HARNESS,$(h))))

# One harness per target, so that make -j runs them side by side; a
# failure is recorded in <h>.rc, not returned, so that every harness runs.
# A run bounded by FUZZ_RUNS alone (FUZZ_TIME=0) must reach that count:
# fewer executions without an error would mean a run that proved less
# than it claims.
FUZZ_SUMMARY := ^(Done |==[0-9]+==ERROR|SUMMARY|FUZZ FAILURE|artifact_prefix)

$(FUZZ_ALL:%=fuzz-run-%): fuzz-run-%: $(LF)/fuzz_% | fuzz-deps
	@rm -f $(LF)/$*.rc; mkdir -p $(LF)/corpus/$* $(LF)/artifacts/$*
	@cp tests/fuzz/corpus/$*/* $(LF)/corpus/$*/
	@echo "fuzz: $* for $(if $(filter 0,$(FUZZ_TIME)),$(FUZZ_RUNS) runs,$(FUZZ_TIME) s) (log: $(LF)/$*.log)"
	@$(SAN_ENV) $(LF)/fuzz_$* -max_total_time=$(FUZZ_TIME) \
		-runs=$(FUZZ_RUNS) -rss_limit_mb=$(FUZZ_RSS) -timeout=$(FUZZ_TIMEOUT) \
		-max_len=$(FUZZ_MAXLEN_$*) -print_final_stats=1 \
		-artifact_prefix=$(LF)/artifacts/$*/ $(FUZZ_FLAGS) \
		$(LF)/corpus/$* > $(LF)/$*.log 2>&1; echo $$? > $(LF)/$*.rc
	@grep -E '$(FUZZ_SUMMARY)' $(LF)/$*.log | sed 's/^/fuzz: $*: /' | head -n 5

# Then a table of every harness's executions; fails if any failed.
fuzz: $(FUZZ_HARNESSES:%=fuzz-run-%)
	@fail=; \
	printf '%-8s %12s %8s %10s %s\n' harness execs seconds exec/s result; \
	for h in $(FUZZ_HARNESSES); do \
		ex=$$(sed -n 's/^stat::number_of_executed_units: *//p' $(LF)/$$h.log); \
		sp=$$(sed -n 's/^stat::average_exec_per_sec: *//p' $(LF)/$$h.log); \
		tm=$$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' $(LF)/$$h.log); \
		r=ok; \
		if [ "$$(cat $(LF)/$$h.rc)" != 0 ]; then \
			r="FAILED (see $(LF)/$$h.log, $(LF)/artifacts/$$h/)"; \
		elif [ $(FUZZ_TIME) = 0 ] && [ $(FUZZ_RUNS) -gt 0 ] && \
		     [ "$${ex:-0}" -lt $(FUZZ_RUNS) ]; then \
			r="SHORT (fewer than $(FUZZ_RUNS) executions)"; \
		fi; \
		[ "$$r" = ok ] || fail="$$fail $$h"; \
		printf '%-8s %12s %8s %10s %s\n' $$h "$${ex:-?}" "$${tm:-?}" "$${sp:-?}" "$$r"; \
	done; \
	test -z "$$fail"

# The long run before a hardening change lands: FUZZ_LONG_RUNS executions
# of every harness, however long that takes (make -j2 fuzz-long runs two
# harnesses at a time; docs/testing.md has the times).  An input takes
# milliseconds, but over an hour on a shared machine a harness can lose
# the CPU for more than 5 s (two harnesses "timed out" here at the same
# second, on inputs that replay in 3 ms): the long run allows 60 s.
FUZZ_LONG_RUNS ?= 1000000
fuzz-long:
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory fuzz FUZZ_RUNS=$(FUZZ_LONG_RUNS) FUZZ_TIME=0 \
		FUZZ_TIMEOUT=60; rc=$$?; \
	echo "fuzz-long: $(FUZZ_LONG_RUNS) runs per harness, $$(( $$(date +%s) - start )) s wall"; \
	exit $$rc

# ---- replay of the seed corpora (gcc) ------------------------------------

$(BUILD)/asan/tests/fuzz/fuzz_jit_lib.o: tests/fuzz/fuzz_jit.c $(FUZZ_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(UCFLAGS) $(ASAN_FLAGS) -DFUZZ_JIT_NO_MAIN -c $< -o $@

# The generic $(BUILD)/asan/%.o rule (above), plus our headers.
$(patsubst %.c,$(BUILD)/asan/%.o,$(wildcard tests/fuzz/*.c)): $(wildcard tests/fuzz/*.h)

fuzz-corpus: $(FUZZ_ALL:%=$(BUILD)/asan/fuzz_%_replay)
	@for h in $(FUZZ_ALL); do \
		$(SAN_ENV) $(BUILD)/asan/fuzz_$${h}_replay tests/fuzz/corpus/$$h || exit 1; \
	done

# ---- the seed corpora -----------------------------------------------------

FUZZ_GEN_OBJS := $(patsubst %.c,$(BUILD)/user/%.o,$(filter-out %_corpus.c,$(FUZZ_LIB_SRCS)))

$(BUILD)/fuzz-gen-corpus: tests/fuzz/gen_corpus.c tests/unit/fuzzlib_packets_corpus.c $(FUZZ_GEN_OBJS) $(CORE_OBJS) $(USER_ENV_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(UCFLAGS) $< $(FUZZ_GEN_OBJS) $(CORE_OBJS) $(USER_ENV_OBJS) -o $@ $(ULIBS)

fuzz-seeds: $(BUILD)/fuzz-gen-corpus
	$(BUILD)/fuzz-gen-corpus tests/fuzz/corpus

CHECK_EXTRA += fuzz-corpus

# ---- the live-kernel fuzz, long ------------------------------------------

# tests/e2e/test_live_fuzz.py for FUZZ_LIVE_STEPS steps (e2e runs 100) in
# one guest boot of FUZZ_LIVE_KERNEL (the default kernel if empty), then
# the clean gdb session; GTP_LIVE_FUZZ_SEED in the environment replays a
# seed.  About two seconds a step under TCG.
FUZZ_LIVE_STEPS ?= 1000
FUZZ_LIVE_KERNEL ?=
.PHONY: fuzz-live
fuzz-live:
	tests/vm/run $(if $(FUZZ_LIVE_KERNEL),--kernel $(FUZZ_LIVE_KERNEL)) \
		--timeout $$(( 600 + 10 * $(FUZZ_LIVE_STEPS) )) -- \
		env GTP_LIVE_FUZZ_STEPS=$(FUZZ_LIVE_STEPS) \
		GTP_LIVE_FUZZ_SEED=$(or $(GTP_LIVE_FUZZ_SEED),random) \
		python3 tests/e2e/run.py test_live_fuzz
