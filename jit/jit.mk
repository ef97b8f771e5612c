# jit/jit.mk - the JIT's tools, fuzzer and check targets.
#
#   make tools       jit/gtp-ax (evaluate one expression: interp / JIT)
#   make fuzz-jit    differential fuzzer, >= 100000 random programs
#   make check       runs fuzz-jit-quick (a few thousand) via CHECK_EXTRA

JIT_TOOL_DEPS := $(CORE_OBJS) $(USER_ENV_OBJS)

jit/gtp-ax: jit/tool/gtp-ax.c $(JIT_TOOL_DEPS) $(wildcard jit/*.h tests/unit/*.h)
	$(CC) $(UCFLAGS) $< $(JIT_TOOL_DEPS) -o $@ $(ULIBS)

$(BUILD)/fuzz_jit: tests/unit/fuzz_jit.c $(JIT_TOOL_DEPS) $(wildcard jit/*.h tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(UCFLAGS) $< $(JIT_TOOL_DEPS) -o $@ $(ULIBS)

TOOLS += jit/gtp-ax

.PHONY: fuzz-jit fuzz-jit-quick
fuzz-jit: $(BUILD)/fuzz_jit
	$(BUILD)/fuzz_jit 100000 $(FUZZ_SEED)

fuzz-jit-quick: $(BUILD)/fuzz_jit
	$(BUILD)/fuzz_jit 3000 $(FUZZ_SEED)

CHECK_EXTRA += fuzz-jit-quick
