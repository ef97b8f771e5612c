#!/bin/bash
# tests/e2e/demo.sh - the session `make demo` shows (run inside the guest by
# tests/vm/run): stock gdb attached to the live kernel through /proc/gtp.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
banner=$(awk '$3 == "linux_banner" { print $1 }' /proc/kallsyms)

echo "### gdb → target remote /proc/gtp (guest kernel $(uname -r))"
gdb -nx -q -batch \
	-ex 'set trace-commands on' \
	-ex "source $repo/gdb-scripts/gtp.py" \
	-ex 'target remote /proc/gtp' \
	-ex 'tstatus' \
	-ex "x/s 0x$banner" \
	-ex 'gtp-load-module gtp_test' \
	-ex 'info line gtp_test_function' \
	-ex 'detach'
