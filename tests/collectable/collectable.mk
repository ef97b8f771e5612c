# gdb-scripts/gtpgdb/collectable.py (hook-tstart drops the collect items
# gdb cannot compile) on the host: a gcc -O2 -g program traced by the
# host's gdb through gdbserver, whose tracepoints are gdb's own.  The
# guest test on the kernel's DWARF is tests/e2e/test_collectable.py.
CHECK_EXTRA += check-collectable
.PHONY: check-collectable
check-collectable:
	@tests/vm/deps gdbserver
	python3 tests/collectable/test_collectable_hook.py
