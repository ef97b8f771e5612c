// SPDX-License-Identifier: GPL-2.0
/*
 * lttng_probe_gtp_test.ko - an LTTng-modules probe provider for the test
 * event gtp_test:gtp_test_event, so that LTTng can record it (the peer
 * table of tests/bench/guest_bench.py).  LTTng ships providers for in-tree
 * events only; this is the out-of-tree one, built against Debian's
 * lttng-modules-dkms sources by tests/bench/lttng-probe (not part of the
 * gtp build).
 */
#include <linux/module.h>
#include <lttng/tracer.h>

/* The kernel's declaration: the compiler checks our prototype against it. */
#include "gtp_test_trace.h"

#define LTTNG_PACKAGE_BUILD
#define CREATE_TRACE_POINTS
#include "gtp_test_lttng.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("LTTng probe provider for gtp_test:gtp_test_event");
