# test_kdata on every installed matrix kernel's own kallsyms, read out of
# its image (tests/unit/kdata-images): the section bounds and every data
# symbol gtp_ksym_data() is asked for.  make unit checks one 6.1 boot's.
CHECK_EXTRA += check-kdata-images
.PHONY: check-kdata-images
check-kdata-images: $(BUILD)/unit/test_kdata
	python3 tests/unit/kdata-images
