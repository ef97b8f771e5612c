# The IBT check on the host: no kernel function gtp calls through a pointer
# without a run-time endbr64 check, on the real image of every installed
# matrix kernel (tests/ibt/check.py; QEMU's TCG enforces no IBT, so no guest
# test can see a sealed function).  Kernels not installed are skipped.
CHECK_EXTRA += check-ibt
.PHONY: check-ibt
check-ibt:
	python3 tests/ibt/check.py

# The IBT-enforcing guest (tests/vm/ibt-check: a Bochs boot per kernel
# whose CPU traps a missing endbr64, the sessions of test_ibt.case, a
# short live fuzz, a negative control that must trap): Debian's 6.12 by
# default, or the kernels in IBT_KERNELS.  Part of check-matrix (6.12 and
# the newest kernel) and of CI (6.12), not of make check (minutes of
# interpreted CPU).
.PHONY: check-ibt-guest
check-ibt-guest: deps-matrix
	tests/vm/ibt-check $(IBT_KERNELS)
