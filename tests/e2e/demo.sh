#!/bin/bash
# tests/e2e/demo.sh - the session `make demo` shows (run inside the guest by
# tests/vm/run): stock gdb attached to the live kernel through /proc/gtp
# runs the paper's Fig. 12 conditional-tracepoint session (demo.gdb).
set -euo pipefail
cd "$(dirname "$0")/../.."
echo "### gtp demo: stock $(gdb --version | head -n1) on guest kernel $(uname -r)"
exec gdb -nx -q -batch -x tests/e2e/demo.gdb
