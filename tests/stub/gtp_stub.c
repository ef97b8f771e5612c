// SPDX-License-Identifier: GPL-2.0
/*
 * gtp_stub.c - the portable core on stdin/stdout, for trying protocol
 * changes against a real gdb without booting a guest:
 *
 *	gdb -ex 'target remote | build/gtp-stub'
 *
 * Memory reads are of this process (nofault via process_vm_readv); no
 * probes exist, so tracing commands only exercise the protocol.
 */
#include <unistd.h>

#include "packets.h"
#include "trace.h"

int main(void)
{
	struct gtp_conn *gc;
	char buf[4096];
	ssize_t n;

	gtp_packets_init();
	gtp_trace_init();
	gc = gtp_conn_open();
	if (!gc)
		return 1;
	while ((n = read(0, buf, sizeof(buf))) > 0) {
		size_t used = 0;

		while (used < (size_t)n) {
			used += rsp_feed(&gc->rsp, buf + used, n - used);
			while (rsp_out_pending(&gc->rsp)) {
				char out[4096];
				size_t k = rsp_out_read(&gc->rsp, out, sizeof(out));

				if (write(1, out, k) != (ssize_t)k)
					return 1;
			}
		}
		if (gc->killed)
			break;
	}
	gtp_conn_close(gc);
	return 0;
}
