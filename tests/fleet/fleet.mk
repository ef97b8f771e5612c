# gtp-ctl fleet on the host: four stand-in hosts (tests/fleet/standin.py:
# gtpctl's real host end with a FIFO for /proc/gtp_stream and skewed
# clocks) into a real lttng-relayd on free ports of 127.0.0.1, read back
# on one timeline with a real babeltrace2.  Fails, saying so, without
# lttng-relayd (lttng-tools) or babeltrace2.
CHECK_EXTRA += check-fleet
.PHONY: check-fleet
check-fleet:
	python3 tests/fleet/test_fleet.py
