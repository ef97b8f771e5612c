# docs/kernel-symbols.md: gtp-kernel-symbols' pure-Python parts on the host (BTF parser,
# DWARF and ELF writers, checked through this host's gdb), on Debian's 6.1
# BTF (vmlinuz and a module's .ko).  The guest end-to-end tests are
# tests/e2e/test_btf.py (run by `make e2e`).
CHECK_EXTRA += check-btf
.PHONY: check-btf
check-btf:
	python3 tests/btf/test_btf_to_dwarf.py
