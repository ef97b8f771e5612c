# The CTF writer of gtp-ctl stream on the host: traces built from
# constructed frames and record streams, read back by babeltrace2.
CHECK_EXTRA += check-ctf
.PHONY: check-ctf
check-ctf:
	python3 tests/ctf/test_ctf_writer.py
