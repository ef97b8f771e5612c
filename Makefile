# gtp - top-level Makefile.  The README documents the targets:
#   make              build module/gtptrace.ko and tracepoints/gtp_test.ko against KDIR
#   make deps         install the Debian packages we need (as root, when missing)
#   make deps-matrix  also every matrix kernel, the trixie root, dkms
#   make dbg-vmlinux  the default kernel's vmlinux with DWARF, in build/dbg/
#   make tools        userspace tools (jit/gtp-ax)
#   make check        unit tests, model checks, then the guest end-to-end tests
#   make check-matrix the e2e suite on every matrix kernel and gdb; one table
#   make check-debug  the e2e suite on a KASAN+lockdep+KFENCE+kmemleak kernel
#   make demo         boot a guest and run the paper's gdb session
#   make bench        benchmarks (never part of check)
#   make dkms         register the sources with dkms (/usr/src/gtptrace-VERSION)
#   make deb          Debian packages gtptrace-dkms, gtptrace-tools in build/deb/
#   make deb-check    install them in a fresh root, boot it, purge (heavy)
#   make doccheck     kernel-doc -Wall over module/ and jit/: no warnings
#   make check-fresh  the README's two commands in a pristine Debian 12 root
#   make modname-check the module names clash with no module of a matrix kernel
#   make source-coverage collect $locals/$args at random kernel lines, measured
#
# Areas add their own targets in */*.mk fragments (unit tests, fuzzers,
# benchmarks, model checks) by appending to CHECK_EXTRA / BENCH_TARGETS.

# KDIR: given, else the running kernel's build dir, else the kernel the
# guest boots by default (tests/vm/default-kdir says which it picked).
KDIR ?=

CC ?= gcc
BUILD := build
UCFLAGS := -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
	   -Wno-missing-field-initializers -std=gnu11 \
	   -Imodule/core -Ijit -Itests/unit -pthread
ULIBS := -lcmocka -lcapstone -lpthread

# The tests link recording agent-expression hooks (tests/unit/user_env.c)
# in place of the core's own (module/core/ax_hooks.c).
CORE_SRCS := $(filter-out module/core/ax_hooks.c,$(wildcard module/core/*.c)) \
	     $(wildcard jit/*.c)
CORE_OBJS := $(CORE_SRCS:%.c=$(BUILD)/user/%.o)
USER_ENV_OBJS := $(patsubst %.c,$(BUILD)/user/%.o,$(wildcard tests/unit/user_*.c))

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/unit/%)

CHECK_EXTRA :=
BENCH_TARGETS :=
TOOLS :=

.PHONY: all modules deps deps-matrix dbg-vmlinux tools check check-matrix check-debug check-layering unit e2e demo bench dkms doccheck lockdown-check replay-check clean
all: modules

modules:
	@kdir="$(KDIR)"; [ -n "$$kdir" ] || kdir=$$(tests/vm/default-kdir) || exit 1; \
	$(MAKE) -C "$$kdir" M=$(CURDIR) modules

deps:
	@tests/vm/deps

deps-matrix:
	@tests/vm/deps-matrix

$(BUILD)/user/%.o: %.c $(wildcard module/core/*.h jit/*.h tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(UCFLAGS) -c $< -o $@

$(BUILD)/unit/%: tests/unit/%.c $(CORE_OBJS) $(USER_ENV_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(UCFLAGS) $< $(CORE_OBJS) $(USER_ENV_OBJS) -o $@ $(ULIBS)

# Every binary runs, even after a failure: TAP and one summary line.
unit: $(UNIT_BINS)
	@tests/unit/run $(UNIT_BINS)

-include $(wildcard jit/*.mk tests/*/*.mk module/core/*.mk packaging/*.mk)

tools: $(TOOLS)

# The default kernel's vmlinux with DWARF for gtp-load-vmlinux's test
# (tests/e2e/test_vmlinux.py): only vmlinux, out of the -dbg package, once
# into build/dbg/ (the package is kept in /var/cache/gtp/apt; about 20 s).
dbg-vmlinux:
	@tests/vm/dbg-vmlinux > /dev/null

# tests/vm/run builds the modules for the guest's kernel itself; tests/vm/e2e
# runs the suite's files in one guest per CPU (at most 4).
# test_jit_direct runs the host-built kdata unit test on the guest's kallsyms.
E2E_HOST_BINS := $(BUILD)/unit/test_kdata $(BUILD)/progs/gtp-ustack-prog

# The program whose user stack tests/e2e/test_umem.py records: frame
# pointers, position-independent, nothing renamed (-O0); its name is its
# comm, which the test's condition names.
$(BUILD)/progs/gtp-ustack-prog: tests/e2e/progs/ustack.c
	@mkdir -p $(dir $@)
	$(CC) -O0 -g -fno-omit-frame-pointer -fPIE -pie -o $@ $<
e2e: dbg-vmlinux $(E2E_HOST_BINS)
	tests/vm/e2e

# tests/vm/matrix builds them itself: .ci/run runs it in a checkout where
# make check has not run (that ran in a fresh root, tests/vm/check-fresh).
.PHONY: e2e-host-bins
e2e-host-bins: $(E2E_HOST_BINS)

check-matrix: deps-matrix dbg-vmlinux $(E2E_HOST_BINS)
	tests/vm/matrix

# The debug kernel is built from Debian's linux-source-6.1 once (cached
# under build/debugk; about 10 minutes here, see docs/testing.md).
check-debug: $(E2E_HOST_BINS)
	@tests/vm/deps linux-source-6.1 flex bison bc libelf-dev
	tests/vm/check-debug

# check-matrix runs the e2e suite, lockdown-check and replay-check on every
# kernel, the default one included: before a check-matrix, MATRIX_FOLLOWS=1
# makes check leave those three to it rather than run them twice (they are
# most of check's time, on one CPU).  .ci/run runs the plain make check,
# in a fresh root (tests/vm/check-fresh check).
GUEST_CHECKS := lockdown-check replay-check
# The steps before the e2e suite run one job per CPU (their output kept
# whole per target): on two CPUs that halves the part of make check that
# is not the guests.
JOBS := $(shell nproc)
check: deps
	$(MAKE) -j$(JOBS) modules
	$(MAKE) -j$(JOBS) tools
	$(MAKE) -j$(JOBS) unit
	$(if $(CHECK_EXTRA),$(MAKE) -j$(JOBS) --output-sync=target $(filter-out $(if $(MATRIX_FOLLOWS),$(GUEST_CHECKS)),$(CHECK_EXTRA)))
	$(if $(MATRIX_FOLLOWS),@echo "check: e2e + lockdown-check + replay-check are left to check-matrix",$(MAKE) e2e)

demo: deps
	tests/vm/run -- tests/e2e/demo.sh

# kernel-doc over the kernel-side and portable sources, as the kernel checks
# its own (the newest scripts/kernel-doc the installed linux-kbuild packages
# carry: make deps installs the newest one apt has; bookworm's 6.1 one has
# no -Wall, so doccheck asks the script first and says what it left out).
KERNEL_DOC ?= $(shell ls -d /usr/lib/linux-kbuild-*/scripts/kernel-doc 2>/dev/null | sort -V | tail -n1)
DOC_SRCS := $(wildcard module/*.[ch] module/probes/*.[ch] module/services/*.[ch] \
	module/core/*.[ch] jit/*.[ch])

CHECK_EXTRA += doccheck check-layering lockdown-check replay-check

# module/core/ and jit/ depend on nothing above them: no #include and no
# symbol edge into module/ (on the objects of the module just built); and
# inside them every symbol edge goes down a declared file order (no cycle).
check-layering: modules
	tests/layering/check
	tests/layering/check --self-test
# gtp obeys kernel lockdown (a guest boot of the default kernel).
lockdown-check:
	tests/vm/lockdown-check
# A session saved on one boot replays on another (two guest boots).
replay-check:
	tests/vm/replay-check

doccheck:
	@test -n "$(KERNEL_DOC)" || { echo "doccheck: no scripts/kernel-doc (make deps)" >&2; exit 1; }
	@w=-Wall; $(KERNEL_DOC) -Wall -none /dev/null > /dev/null 2>&1 || { w=; \
		echo "doccheck: $(KERNEL_DOC) has no -Wall: checking without it (make deps installs a newer linux-kbuild)" >&2; }; \
	out=$$($(KERNEL_DOC) $$w -none $(filter-out %.mod.c,$(DOC_SRCS)) 2>&1); \
	if [ -n "$$out" ]; then echo "$$out"; echo "doccheck: $$(echo "$$out" | wc -l) warnings" >&2; exit 1; fi; \
	echo "doccheck: clean ($(words $(DOC_SRCS)) files)"

DKMS_VERSION = $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
DKMS_SRC = /usr/src/gtptrace-$(DKMS_VERSION)

# The sources dkms needs, and nothing else, then 'dkms add'.
dkms:
	@command -v dkms >/dev/null || { echo "dkms: not installed (apt-get install dkms)" >&2; exit 1; }
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	find module tracepoints jit -path jit/tool -prune -o -type f \
		\( -name '*.[chS]' -o -name Kbuild \) ! -name '*.mod.c' -print | \
		cpio -pdm --quiet $(DKMS_SRC)
	cp Kbuild dkms.conf $(DKMS_SRC)/
	dkms add gtptrace/$(DKMS_VERSION)

# the peer table (bench-guest) last: make bench ends with it
bench: deps modules tools $(filter-out bench-guest,$(BENCH_TARGETS)) bench-guest

clean:
	-@kdir="$(KDIR)"; [ -n "$$kdir" ] || kdir=$$(tests/vm/default-kdir) && \
	$(MAKE) -C "$$kdir" M=$(CURDIR) clean
	rm -rf $(BUILD)/kmod $(BUILD)/unit $(BUILD)/user $(BUILD)/matrix $(TOOLS)

# The README's two commands on a pristine Debian 12 root, chrooted, in a
# clone of HEAD at another path (tests/vm/check-fresh; as root).
.PHONY: check-fresh
check-fresh:
	tests/vm/check-fresh

# gtptrace and gtp_test clash with no module (built in or .ko) of any
# installed matrix kernel (tests/vm/modname-check; under a second).
CHECK_EXTRA += modname-check
.PHONY: modname-check
modname-check:
	tests/vm/modname-check
