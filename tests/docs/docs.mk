# The documentation's relative links and anchors resolve, every docs/ file
# is reachable from README.md and docs/README.md, and README.md stays short
# (host only, no guest).
CHECK_EXTRA += docs-check
.PHONY: docs-check
docs-check:
	tests/docs/check
