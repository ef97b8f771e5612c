# The peer table of docs/benchmarks.md: gtp, the floors and its peers in one
# deterministic guest boot (-icount); the table also goes to
# docs/benchmarks.md (table.py writes it on the host: the guest's view of
# the checkout is read-only).  The peers are Debian packages run in the
# guest: bench-deps installs them when run as root (tests/vm/deps), never
# as part of make check, and builds LTTng's modules (tests/bench/lttng-build:
# Debian's lttng-modules-dkms does not build as a package for 6.1), and
# trixie's bpftrace into the trixie root (tests/bench/trixie-bpftrace:
# bookworm's has no raw tracepoints); without them their rows print as
# failed.
BENCH_PKGS := bpftrace lttng-tools dwarves
BENCH_TARGETS += bench-guest
.PHONY: bench-guest bench-deps
bench-deps:
	@tests/vm/deps $(BENCH_PKGS) || echo "bench: peers missing, their rows will print as failed"
	@tests/bench/lttng-build || echo "bench: no LTTng modules, the LTTng rows will print as failed"
	@tests/bench/trixie-bpftrace --install || echo "bench: no trixie bpftrace, the rawtracepoint rows will print as failed"
bench-guest: modules bench-deps
	python3 tests/bench/table.py --doc docs/benchmarks.md --command "make bench-guest" -- \
		tests/vm/run --icount --timeout 5400 -- python3 tests/bench/guest_bench.py 20000
