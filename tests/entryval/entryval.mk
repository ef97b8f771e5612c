# gdb-scripts/gtpgdb/entryval.py on the host: DW_OP_entry_value rewritten
# so that gdb compiles it, checked through this host's gcc and gdb on
# tests/entryval/ev.c (DWARF 5 and 4), then on Debian's 6.1 vmlinux when
# build/dbg has it (its patched copy is made if missing: about 15 s).
CHECK_EXTRA += check-entryval
.PHONY: check-entryval
check-entryval:
	python3 tests/entryval/test_entryval_rewrite.py
