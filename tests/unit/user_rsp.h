/* SPDX-License-Identifier: GPL-2.0 */
/*
 * user_rsp.h - one gdb exchange over a connection's RSP framer, for the
 * unit tests that drive the core through packets as gdb would.
 */
#ifndef GTP_USER_RSP_H
#define GTP_USER_RSP_H

#include <stddef.h>

struct gtp_conn;

/* "$@data#cc": @data framed with its checksum (a static buffer). */
const char *user_rsp_frame(const char *data);

/*
 * Feed @data to @gc as one packet and read everything it answered: the
 * final reply's payload is returned (a static buffer), and the text of
 * any 'O' console packets before it is decoded into @console.  NULL when
 * the output is not a run of well-formed packets.
 */
const char *user_rsp_ask(struct gtp_conn *gc, const char *data,
			 char *console, size_t console_size);

/*
 * A fresh core and one connection to it, as gdb leaves it after
 * connecting: no-ack mode, QTinit done.  NULL if a step fails.
 * user_rsp_session_end() stops and clears the run and closes it.
 */
struct gtp_conn *user_rsp_session(void);
void user_rsp_session_end(struct gtp_conn *gc);

#endif
