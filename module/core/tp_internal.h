/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tp_internal.h - what the tracepoint files share among themselves
 * (tracepoint.c owns the table; tp_define.c, tp_state.c and tp_upload.c
 * answer its packets, tp_packets.c registers them).  Not for the rest of
 * the core.
 */
#ifndef GTP_TP_INTERNAL_H
#define GTP_TP_INTERNAL_H

#include "tracepoint.h"

/* tracepoint.c: the table */
int gtp_strlist_add(struct gtp_strlist *l, const char *s);
void gtp_tp_prog_free(struct ax_prog *prog);
int gtp_tp_jit(struct ax_prog *prog, char *log, size_t logsz);
unsigned int gtp_tp_count(void);
struct gtp_tp *gtp_tp_alloc(u32 num, u64 addr);
void gtp_tp_free(struct gtp_tp *tp);
void gtp_tp_insert(struct gtp_tp *tp);
struct gtp_tp *gtp_tp_parse_ref(const char **pp);
void gtp_tps_note_interpreted(const char *why);

/* tp_state.c */
void gtp_pkt_qtdpsrc(struct gtp_conn *gc, char *args);
void gtp_pkt_qtenable(struct gtp_conn *gc, char *args);
void gtp_pkt_qtdisable(struct gtp_conn *gc, char *args);
void gtp_pkt_qtp(struct gtp_conn *gc, char *args);

/* tp_upload.c */
void gtp_pkt_qtfp(struct gtp_conn *gc, char *args);
void gtp_pkt_qtsp(struct gtp_conn *gc, char *args);

#endif /* GTP_TP_INTERNAL_H */
