# The Debian packages (packaging/build-deb) and their install test.
#   make deb        gtptrace-dkms and gtptrace-tools into build/deb/
#   make deb-check  install them into a fresh root, boot it, run gtp from
#                   the installed files, purge, nothing left (tests/vm/
#                   deb-check; heavy: not part of make check)
.PHONY: deb deb-check
deb:
	packaging/build-deb $(CURDIR)/$(BUILD)/deb

deb-check: deb
	tests/vm/deb-check
