# jit/jit.mk - the JIT's tool.
#
#   make tools       jit/gtp-ax (evaluate one expression: interp / JIT)
#
# The JIT's differential fuzzer (make fuzz-jit, fuzz-jit-quick) is with
# the other fuzzers in tests/fuzz/fuzz.mk.

JIT_TOOL_DEPS := $(CORE_OBJS) $(USER_ENV_OBJS)

jit/gtp-ax: jit/tool/gtp-ax.c $(JIT_TOOL_DEPS) $(wildcard jit/*.h tests/unit/*.h)
	$(CC) $(UCFLAGS) $< $(JIT_TOOL_DEPS) -o $@ $(ULIBS)

TOOLS += jit/gtp-ax
