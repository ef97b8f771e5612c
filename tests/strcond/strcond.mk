# gdb-scripts/gtpgdb/strcond.py on the host: the host's gdb sends
# build/gtp-stub the bytecode of conditions with $current_comm, $_streq,
# $_memeq and 'c' (rewritten by gtp's hook-tstart), and the refusals.
# The guest test, on real hits, is tests/e2e/test_comm.py.
CHECK_EXTRA += check-strcond
.PHONY: check-strcond
check-strcond: $(BUILD)/gtp-stub
	python3 tests/strcond/test_strcond.py
