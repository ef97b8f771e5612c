# gtp-ctl start against malformed and malicious session files (host; a
# recording fake target, a fake boot): each refused with FILE:LINE before
# the first packet.  The same files against a real /proc/gtp are
# tests/e2e/test_ctl_session_file.py (run by `make e2e`).
CHECK_EXTRA += check-ctl
.PHONY: check-ctl
check-ctl:
	python3 tests/ctl/test_session_file_refusals.py
