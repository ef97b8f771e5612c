# Spin model of the ring buffer (module/core/ring.pml): exhaustive safety
# check of both modes, part of `make check`.  About 35 s and 300 MB.
SPIN ?= spin
RING_PML := module/core/ring.pml

CHECK_EXTRA += ring-spin
.PHONY: ring-spin
ring-spin: $(BUILD)/spin/ring-discard.ok $(BUILD)/spin/ring-overwrite.ok

$(BUILD)/spin/ring-discard.ok: RING_OW := 0
$(BUILD)/spin/ring-overwrite.ok: RING_OW := 1
$(BUILD)/spin/ring-%.ok: $(RING_PML)
	@command -v $(SPIN) >/dev/null || { echo "spin missing: make deps" >&2; exit 1; }
	@rm -rf $(BUILD)/spin/$* && mkdir -p $(BUILD)/spin/$*
	cd $(BUILD)/spin/$* && $(SPIN) -DOVERWRITE=$(RING_OW) -a $(abspath $(RING_PML)) && \
		$(CC) -O2 -DSAFETY -DCOLLAPSE -o pan pan.c && \
		./pan -m100000 -w22 > pan.out 2>&1; \
		grep -E "states, stored|errors:" pan.out; \
		grep -q "errors: 0" pan.out && ! grep -q "assertion violated" pan.out || \
		{ cat pan.out; echo "ring.pml ($*): Spin found a violation" >&2; exit 1; }
	@touch $@
