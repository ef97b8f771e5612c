# The IBT check on the host: no kernel function gtp calls through a pointer
# without a run-time endbr64 check, on the real image of every installed
# matrix kernel (tests/ibt/check.py; QEMU's TCG enforces no IBT, so no guest
# test can see a sealed function).  Kernels not installed are skipped.
CHECK_EXTRA += check-ibt
.PHONY: check-ibt
check-ibt:
	python3 tests/ibt/check.py
