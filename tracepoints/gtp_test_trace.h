/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test event of the paper's Fig. 13: one TRACE_EVENT carrying the two
 * arguments of gtp_test_function(), in system "gtp_test".
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM gtp_test

#if !defined(_GTP_TEST_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _GTP_TEST_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(gtp_test_event,
	TP_PROTO(int counter1, int counter2),
	TP_ARGS(counter1, counter2),
	TP_STRUCT__entry(
		__field(int, counter1)
		__field(int, counter2)
	),
	TP_fast_assign(
		__entry->counter1 = counter1;
		__entry->counter2 = counter2;
	),
	TP_printk("counter1=%d counter2=%d", __entry->counter1, __entry->counter2)
);

#endif /* _GTP_TEST_TRACE_H */

/* This part must be outside the include guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE gtp_test_trace
#include <trace/define_trace.h>
