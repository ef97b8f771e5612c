/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracepoint.h - tracepoint definitions as gdb downloads them (QTDP).
 *
 * A gdb tracepoint with several locations arrives as several QTDP
 * sequences with the same number; each location is one struct gtp_tp.
 * Definitions change only while no trace runs (QTinit, QTDP); while one
 * runs, probe handlers read them without locks and only ->enabled flips.
 */
#ifndef GTP_TRACEPOINT_H
#define GTP_TRACEPOINT_H

#include "packets.h"
#include "ax.h"
#include "regs.h"

enum gtp_action_type {
	GTP_ACT_REGS,		/* R<mask> */
	GTP_ACT_MEM,		/* M<basereg>,<offset>,<len> */
	GTP_ACT_EXPR,		/* X<len>,<bytecode> */
	GTP_ACT_SDATA,		/* L: static tracepoint data */
};

struct gtp_action {
	enum gtp_action_type type;
	u64 regmask;		/* R: bit i = gdb register i (0..63) */
	struct gtp_rsub rsub;	/* R: its 'r' block (plan.c); mask 0: 'R' */
	int basereg;		/* M: -1 = absolute address */
	u64 offset;		/* M */
	u64 len;		/* M */
	struct ax_prog *prog;	/* X, verified */
	bool noop;		/* X that can change and fail in nothing: skipped */
};

/*
 * What the CPU budget (budget.h) did to a location this run: a probe
 * sets PENDING when it trips, and the host, from process context, DISARMED
 * once the location's probe is unregistered (host.h @tripped).  QTStart
 * starts every location at NONE.
 */
enum gtp_trip {
	GTP_TRIP_NONE,
	GTP_TRIP_PENDING,	/* tripped: disabled, its probe still attached */
	GTP_TRIP_DISARMED,	/* tripped: its probe costs nothing any more */
};

/* A list of strings kept for upload (qTfP/qTsP) exactly as gdb sent them. */
struct gtp_strlist {
	char **s;
	u32 n;
};

struct gtp_tp {
	struct gtp_tp *next;
	u32 num;
	u64 addr;
	bool enabled;		/* READ_ONCE: the hits' gate, which gdb
				 * (QTEnable/QTDisable while running), trigger
				 * chains and the CPU budget's trips set */
	bool gdb_enabled;	/* as gdb set it (QTDP, QTEnable/QTDisable):
				 * what the upload says (tp_upload.c), so a
				 * saved session starts as gdb defined it */
	u8 tripped;		/* enum gtp_trip, READ_ONCE/WRITE_ONCE */
	bool keep_armed;	/* a trigger may enable it (trigger.c): its
				 * probe stays armed while it is disabled */
	bool fast;		/* :F (downloaded as a normal tracepoint) */
	bool is_static;		/* :S, handled by the static tracepoint code */
	bool at_return;		/* actions set $kret: fires at the return */
	u8 watch_len;		/* actions set $watch or $awatch to 1, 2, 4
				 * or 8: @addr is data, and a hit is an
				 * access to that many bytes (watch.h); 0: code */
	bool watch_reads;	/* ... $awatch: reads too, not only writes */
	bool site_pc;		/* an R action of ours, not gdb's: the pc
				 * that tells gdb which location hit */
	bool reads_entry;	/* reads entry values (entryval.h): the host
				 * records its function's entry registers */
	u64 step;
	u64 pass;		/* stop the trace after this many hits (0: never) */
	struct ax_prog *cond;	/* NULL: always collect */
	bool cond_pure;		/* cond has no side effect: may run first */
	char *cond_hex;		/* "X<len>,<hex>" as sent, for upload */

	struct gtp_action *actions;
	u32 nactions;
	u32 actions_cap;	/* allocated slots: grows by doubling */
	u64 regmask;		/* union of all R masks: g from a frame */
	u32 frame_len;		/* every frame's exact size, 0 if unknown */
	bool lean;		/* frames are the header, at most one R block */
	struct gtp_rsub rsub;	/* lean: that R action's 'r' block (mask 0:
				 * an 'R' block, or none) */
	u8 lean_head[16];	/* lean with an 'r' block: the frame's first
				 * 16 bytes but values (header, 'r', mask) */
	bool agg_only;		/* actions only feed aggregating variables:
				 * a hit writes no frame (plan.c) */

	struct gtp_strlist chunks;	/* QTDP:- action chunks (A pieces) */
	struct gtp_strlist srcs;	/* QTDPsrc bodies (Z pieces) */
	u32 src_bytes;		/* their total length */

	atomic_long_t hits;	/* times the condition passed */
	atomic_long_t usage;	/* frame bytes written */
	atomic_long_t errors;	/* evaluations stopped by an error */
	atomic_long_t cost;	/* estimated TSC ticks spent in hits (budget.h) */
	u32 last_err;		/* enum ax_error of the last error */
	u32 trig_by;		/* the tracepoint whose action switched it
				 * last (trigger.c), WRITE_ONCE */
	bool trig_on;		/* ... and to which state */
	atomic_long_t trig_count;	/* switches by trigger actions */
	u64 missed;		/* hits the kernel did not deliver: set by the
				 * host's disarm (a kprobe fired inside another
				 * handler, a return with no free instance) */

	void *probe;		/* owned by the host: how it is attached */
	u64 entry_key;		/* owned by the host: whose entry registers
				 * @reads_entry reads (0: none recorded) */
};

/*
 * Limits on what one gdb can make the kernel hold: tracepoint numbers fit
 * the int16 of a trace frame; locations are bounded so a client cannot
 * exhaust kernel memory (and module space for JIT images), above the
 * 2,000 functions gtp-trace-many takes by default.
 */
#define GTP_TP_NUM_MAX	0x7fff
#define GTP_TP_MAX	4096

/*
 * Per location, far above what a gdb "actions" list sends (one action per
 * collected item, one source string per line) but bounded: every action
 * runs on every hit, and every X action may hold a JIT image.
 */
#define GTP_TP_ACTIONS_MAX	1024
/*
 * Bytecode per location, condition and actions together.  Every insn
 * takes at least a byte, so a location without loops never runs out of
 * its hit's step budget (ax.h), and one with loops is refused no less
 * clearly at definition time than it would be cut at every hit.
 */
#define GTP_TP_CODE_MAX		AX_STEP_BUDGET
#define GTP_TP_CHUNKS_MAX	128
#define GTP_TP_SRCS_MAX		256
#define GTP_TP_SRC_BYTES_MAX	(64 * 1024)
/*
 * JIT images across all definitions and the probes armed for them: each
 * takes at least a page of the kernel's module/execmem space, which the
 * kernel itself needs.  Past the limit expressions are interpreted, and
 * QTStart says so; probes take their generic handler.
 */
#define GTP_JIT_IMAGES_MAX	1024

/* All locations, in download order. */
extern struct gtp_tp *gtp_tps;

struct gtp_tp *gtp_tp_find(u32 num, u64 addr);
struct gtp_tp *gtp_tp_find_num(u32 num);
void gtp_tps_free(void);
u32 gtp_tps_interpreted(const char **why);
void gtp_tps_reset_counts(void);
void gtp_tps_mark_returns(void);
void gtp_tps_mark_sites(void);
/*
 * A probe's own compiled condition (jit.h ax_jit_probe_compile()), counted
 * in GTP_JIT_IMAGES_MAX with the definitions' images.  Under gtp_mutex.
 */
struct ax_jit_probe;
int gtp_tp_jit_probe(struct ax_prog *cond, void *hit, void *ctx,
		     unsigned int flags, struct ax_jit_probe *out,
		     char *log, size_t logsz);
void gtp_tp_jit_probe_free(struct ax_jit_probe *probe);
/* JIT images holding a host pin (host.h jit_direct): a module going away */
u32 gtp_tps_jit_holder(const void *pin);
void gtp_tps_jit_drop(const void *pin);
void gtp_tp_packets_init(void);	/* tp_packets.c */

/* tp_upload.c: a qTfP/qTsP piece's text, for the stream's definitions too */
int gtp_tp_format_piece(const struct gtp_tp *tp, u32 sub, char *buf,
			size_t size);

/* Parsers, exposed for the unit tests; reply through @gc. */
void gtp_pkt_qtdp(struct gtp_conn *gc, char *args);

#endif /* GTP_TRACEPOINT_H */
