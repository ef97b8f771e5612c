/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gtp_test:gtp_test_event for LTTng-modules: the LTTng description of the
 * event (its fields as LTTng records them), read by lttng's
 * LTTNG_TRACEPOINT_EVENT machinery.  It mirrors ../gtp_test_trace.h.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM gtp_test

#if !defined(GTP_TEST_LTTNG_H) || defined(TRACE_HEADER_MULTI_READ)
#define GTP_TEST_LTTNG_H

#include <lttng/tracepoint-event.h>

LTTNG_TRACEPOINT_EVENT(gtp_test_event,
	TP_PROTO(int counter1, int counter2),
	TP_ARGS(counter1, counter2),
	TP_FIELDS(
		ctf_integer(int, counter1, counter1)
		ctf_integer(int, counter2, counter2)
	)
)

#endif /* GTP_TEST_LTTNG_H */

/* This part must be outside the include guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE gtp_test_lttng
#include <lttng/define_trace.h>
