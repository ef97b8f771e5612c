# gtpctl/abi.py (what the Python side shares with the module: version,
# special frame addresses, ax_error names, stream records) checked against
# the C sources on the host.
CHECK_EXTRA += check-abi
.PHONY: check-abi
check-abi:
	python3 tests/abi/test_abi.py
