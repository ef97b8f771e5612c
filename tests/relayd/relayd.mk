# gtp-ctl stream --relayd on the host: a real lttng-relayd on free ports of
# 127.0.0.1 takes constructed record streams (saved spools, FIFOs standing
# in for /proc/gtp_stream), and a real babeltrace2 reads what it wrote and
# what it serves live.  Fails, saying so, without lttng-relayd (lttng-tools)
# or babeltrace2.
CHECK_EXTRA += check-relayd
.PHONY: check-relayd
check-relayd:
	python3 tests/relayd/test_relayd.py
