# Source-level coverage (tests/source/coverage.py, docs/kernel-symbols.md):
# random statement lines of hot kernel functions, `collect $locals` and
# `collect $args` at each, tstart, a workload; one guest boot of the default
# kernel with its -dbg vmlinux (about a minute of guest time).  Not part of
# check: tests/e2e/test_source_coverage.py runs it there.
#   make source-coverage [COVERAGE_ARGS="--seed N ..."] [GTP_VMLINUX=PATH]
.PHONY: source-coverage
source-coverage: dbg-vmlinux
	tests/vm/run -- env $(if $(GTP_VMLINUX),GTP_VMLINUX=$(GTP_VMLINUX)) \
		python3 tests/source/coverage.py $(COVERAGE_ARGS)
