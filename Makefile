# gtp - top-level Makefile.  The README documents the targets:
#   make          build module/gtp.ko and tracepoints/gtp_test.ko against KDIR
#   make deps     install the Debian packages we need (as root, when missing)
#   make tools    userspace tools (jit/gtp-ax)
#   make check    unit tests, model checks, then the guest end-to-end tests
#   make demo     boot a guest and run the paper's gdb session
#   make bench    benchmarks (never part of check)
#
# Areas add their own targets in */*.mk fragments (unit tests, fuzzers,
# benchmarks, model checks) by appending to CHECK_EXTRA / BENCH_TARGETS.

KDIR ?= $(shell if [ -d /lib/modules/$$(uname -r)/build ]; then \
	echo /lib/modules/$$(uname -r)/build; else \
	ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n1; fi)
export KDIR

CC ?= gcc
BUILD := build
UCFLAGS := -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
	   -Wno-missing-field-initializers -std=gnu11 \
	   -Imodule/core -Ijit -Itests/unit -pthread
ULIBS := -lcmocka -lcapstone -lpthread

CORE_SRCS := $(wildcard module/core/*.c) $(wildcard jit/*.c)
CORE_OBJS := $(CORE_SRCS:%.c=$(BUILD)/user/%.o)
USER_ENV_OBJS := $(patsubst %.c,$(BUILD)/user/%.o,$(wildcard tests/unit/user_*.c))

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/unit/%)

CHECK_EXTRA :=
BENCH_TARGETS :=
TOOLS :=

.PHONY: all modules deps tools check unit e2e demo bench clean
all: modules

modules:
	@test -n "$(KDIR)" || { echo "no kernel headers: run 'make deps'" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

deps:
	@tests/vm/deps

$(BUILD)/user/%.o: %.c $(wildcard module/core/*.h jit/*.h tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(UCFLAGS) -c $< -o $@

$(BUILD)/unit/%: tests/unit/%.c $(CORE_OBJS) $(USER_ENV_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(UCFLAGS) $< $(CORE_OBJS) $(USER_ENV_OBJS) -o $@ $(ULIBS)

unit: $(UNIT_BINS)
	@set -e; for t in $(UNIT_BINS); do echo "== $$t"; $$t; done

-include $(wildcard jit/*.mk tests/*/*.mk module/core/*.mk)

tools: $(TOOLS)

e2e: modules
	tests/vm/run -- python3 tests/e2e/run.py

check: deps
	$(MAKE) modules
	$(MAKE) tools
	$(MAKE) unit
	$(if $(CHECK_EXTRA),$(MAKE) $(CHECK_EXTRA))
	$(MAKE) e2e

demo: deps
	$(MAKE) modules
	tests/vm/run -- tests/e2e/demo.sh

bench: deps modules tools $(BENCH_TARGETS)

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf $(BUILD) $(TOOLS)
