# tests/fuzz/fuzz.mk - coverage-guided fuzzing with libFuzzer (clang), and
# the replay of the checked-in seed corpora.  See tests/fuzz/README.
#
#   make fuzz          build the four harnesses (rsp, packets, qtdp, ax)
#                      with clang -fsanitize=fuzzer,address,undefined
#                      (objects in build/libfuzzer/) and run each for
#                      FUZZ_TIME seconds (60) over its corpus copied to
#                      build/libfuzzer/corpus/<harness>/ (the fuzzer adds
#                      to the copy, never to tests/fuzz/corpus/); prints
#                      every harness's exec count.  FUZZ_RUNS caps the
#                      executions (-1: no cap), FUZZ_HARNESSES picks some,
#                      FUZZ_FLAGS adds libFuzzer options.  Installs clang
#                      first when run as root (make fuzz-deps).
#   make fuzz-corpus   gcc + ASan/UBSan: every harness over its seed corpus
#                      (tests/fuzz/replay.c, no clang needed); in make check
#   make fuzz-seeds    regenerate tests/fuzz/corpus/ (gen_corpus.c)

FUZZ_HARNESSES ?= rsp packets qtdp ax
FUZZ_ALL := rsp packets qtdp ax
FUZZ_CC ?= clang-16
FUZZ_TIME ?= 60
FUZZ_RUNS ?= -1
FUZZ_RSS ?= 2048
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
# tests/unit/fuzz_jit.c (compiled without its main(): fuzz_jit_lib.o).
# (Make reads this file before tests/unit/fuzz.mk: nothing here may use
# that file's variables outside a recipe; its $(BUILD)/asan/%.o pattern
# rule builds the gcc objects.)
FUZZ_LIB_SRCS := $(wildcard tests/unit/fuzz_packets*.c)
FUZZ_PKT_OBJS := tests/fuzz/harness.o $(FUZZ_LIB_SRCS:%.c=%.o)
FUZZ_OBJS_rsp := tests/fuzz/rsp.o $(FUZZ_PKT_OBJS)
FUZZ_OBJS_packets := tests/fuzz/packets.o $(FUZZ_PKT_OBJS)
FUZZ_OBJS_qtdp := tests/fuzz/qtdp.o $(FUZZ_PKT_OBJS)
FUZZ_OBJS_ax := tests/fuzz/ax.o tests/fuzz/fuzz_jit_lib.o

FUZZ_HDRS := $(wildcard module/core/*.h jit/*.h tests/unit/*.h tests/fuzz/*.h)
LF_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	    -fno-omit-frame-pointer
LF_BASE_OBJS := $(CORE_SRCS:%.c=$(LF)/%.o) \
		$(patsubst %.c,$(LF)/%.o,$(wildcard tests/unit/user_*.c))
ASAN_BASE_OBJS := $(CORE_SRCS:%.c=$(BUILD)/asan/%.o) \
		  $(patsubst %.c,$(BUILD)/asan/%.o,$(wildcard tests/unit/user_*.c))

SAN_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	   UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

.PHONY: fuzz fuzz-deps fuzz-corpus fuzz-seeds

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

$(LF)/tests/fuzz/fuzz_jit_lib.o: tests/unit/fuzz_jit.c $(FUZZ_HDRS) | fuzz-deps
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(UCFLAGS) $(LF_TEST_FLAGS) -DFUZZ_JIT_NO_MAIN -c $< -o $@

define FUZZ_HARNESS
$(LF)/fuzz-$(1): $(addprefix $(LF)/,$(FUZZ_OBJS_$(1))) $(LF_BASE_OBJS)
	$(FUZZ_CC) $(UCFLAGS) $(LF_FLAGS) -fsanitize=fuzzer $$^ -o $$@ $(ULIBS)

$(BUILD)/asan/fuzz-replay-$(1): $(BUILD)/asan/tests/fuzz/replay.o $(addprefix $(BUILD)/asan/,$(FUZZ_OBJS_$(1))) $(ASAN_BASE_OBJS)
	$(CC) $(UCFLAGS) $$(ASAN_FLAGS) $$^ -o $$@ $(ULIBS)
endef
$(foreach h,$(FUZZ_ALL),$(eval $(call FUZZ_HARNESS,$(h))))

# Each harness in turn, all of them even after a failure; then a table.
fuzz: $(FUZZ_HARNESSES:%=$(LF)/fuzz-%) | fuzz-deps
	@fail=; for h in $(FUZZ_HARNESSES); do \
		mkdir -p $(LF)/corpus/$$h $(LF)/artifacts/$$h; \
		cp tests/fuzz/corpus/$$h/* $(LF)/corpus/$$h/; \
		echo "fuzz: $$h for $(FUZZ_TIME) s (log: $(LF)/$$h.log)"; \
		$(SAN_ENV) $(LF)/fuzz-$$h -max_total_time=$(FUZZ_TIME) \
			-runs=$(FUZZ_RUNS) -rss_limit_mb=$(FUZZ_RSS) -timeout=5 \
			-max_len=$$(echo $(foreach h,$(FUZZ_ALL),$(h)=$(FUZZ_MAXLEN_$(h))) | \
				tr ' ' '\n' | sed -n "s/^$$h=//p") -print_final_stats=1 \
			-artifact_prefix=$(LF)/artifacts/$$h/ $(FUZZ_FLAGS) \
			$(LF)/corpus/$$h > $(LF)/$$h.log 2>&1 || fail="$$fail $$h"; \
		grep -E '^(Done |==[0-9]+==ERROR|SUMMARY|FUZZ FAILURE|artifact_prefix)' \
			$(LF)/$$h.log | head -n 5; \
	done; \
	printf '%-8s %12s %8s %10s %s\n' harness execs seconds exec/s result; \
	for h in $(FUZZ_HARNESSES); do \
		ex=$$(sed -n 's/^stat::number_of_executed_units: *//p' $(LF)/$$h.log); \
		sp=$$(sed -n 's/^stat::average_exec_per_sec: *//p' $(LF)/$$h.log); \
		tm=$$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' $(LF)/$$h.log); \
		case " $$fail " in *" $$h "*) r="FAILED (see $(LF)/$$h.log, $(LF)/artifacts/$$h/)";; *) r=ok;; esac; \
		printf '%-8s %12s %8s %10s %s\n' $$h "$${ex:-?}" "$${tm:-?}" "$${sp:-?}" "$$r"; \
	done; \
	test -z "$$fail"

# ---- replay of the seed corpora (gcc) ------------------------------------

$(BUILD)/asan/tests/fuzz/fuzz_jit_lib.o: tests/unit/fuzz_jit.c $(FUZZ_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(UCFLAGS) $(ASAN_FLAGS) -DFUZZ_JIT_NO_MAIN -c $< -o $@

# The generic $(BUILD)/asan/%.o rule (tests/unit/fuzz.mk), plus our header.
$(patsubst %.c,$(BUILD)/asan/%.o,$(wildcard tests/fuzz/*.c)): $(wildcard tests/fuzz/*.h)

fuzz-corpus: $(FUZZ_ALL:%=$(BUILD)/asan/fuzz-replay-%)
	@for h in $(FUZZ_ALL); do \
		$(SAN_ENV) $(BUILD)/asan/fuzz-replay-$$h tests/fuzz/corpus/$$h || exit 1; \
	done

# ---- the seed corpora -----------------------------------------------------

FUZZ_GEN_OBJS := $(patsubst %.c,$(BUILD)/user/%.o,$(filter-out %_corpus.c,$(FUZZ_LIB_SRCS)))

$(BUILD)/fuzz-gen-corpus: tests/fuzz/gen_corpus.c tests/unit/fuzz_packets_corpus.c $(FUZZ_GEN_OBJS) $(CORE_OBJS) $(USER_ENV_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(UCFLAGS) $< $(FUZZ_GEN_OBJS) $(CORE_OBJS) $(USER_ENV_OBJS) -o $@ $(ULIBS)

fuzz-seeds: $(BUILD)/fuzz-gen-corpus
	$(BUILD)/fuzz-gen-corpus tests/fuzz/corpus

CHECK_EXTRA += fuzz-corpus
