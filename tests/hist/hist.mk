# docs/histograms.md: gtp-ctl's pure-Python parts (host), and `gtp-ctl plot` of a real
# guest trace rendered by headless Chromium and checked pixel by pixel
# (host; boots one guest to record the trace).  The gdb-side and gtp-ctl
# end-to-end tests are tests/e2e/test_hist.py (run by `make e2e`).
CHECK_EXTRA += check-hist
.PHONY: check-hist
check-hist:
	python3 tests/hist/test_hist_gtpctl.py
	python3 tests/hist/test_hist_plot.py
