// SPDX-License-Identifier: GPL-2.0
/*
 * trace.c - the trace experiment's run state and its packets: QTinit,
 * QTStart, QTStop, qTStatus, QTBuffer, QTro, QTNotes, QTDisconnected, and
 * what a dropped connection does to a running trace.
 *
 * "running" is the one flag probe handlers read (gtp_trace_running(),
 * run.h); it is set after everything a handler needs exists and cleared
 * first when stopping.  Probes attached to a stopped trace return at once,
 * so a stop decided in probe context (full buffer, pass count) needs no
 * detaching there; process context detaches later (QTStop, QTinit,
 * QTStart, close).
 *
 * With QTDisconnected:1 the trace outlives the connection: a later gdb sees
 * it in qTStatus, uploads the definitions (qTfP) and can stop it.  With 0,
 * closing or detaching stops it and keeps the frames.
 */
#include "trace.h"
#include "tracepoint.h"
#include "tsv.h"
#include "frame.h"
#include "traceframe.h"
#include "host.h"
#include "plan.h"
#include "static_data.h"
#include "budget.h"
#include "trigger.h"
#include "watch.h"

#define GTP_NOTE_MAX	128	/* hex digits kept per note */

/* What only the packets read; what probes and readers share is gtp_run. */
static struct {
	u64 start_us;
	bool circular, disconn;
	u64 buf_size;		/* requested by QTBuffer:size, 0 = default */
	char user[GTP_NOTE_MAX + 1];	/* notes, hex as gdb sent them */
	char notes[GTP_NOTE_MAX + 1];
	char stop_note[GTP_NOTE_MAX + 1];
	char error[GTP_NOTE_MAX + 1];	/* GTP_STOP_ERROR's text */
} run;

/* Process context: stop collecting and detach every probe. */
static void trace_stop(enum gtp_stop_reason why)
{
	gtp_run_stop(why, 0);
	if (gtp_run.armed) {
		gtp_host->disarm();
		gtp_host->perf_close();	/* no probe reads them now */
		gtp_run.armed = false;
	}
	gtp_frames_stop();
	gtp_static_on_stop();
}

/**
 * gtp_trace_stop_error() - the host stops the trace: it cannot go on
 * @why: one line for gdb's tstatus ("Trace stopped by an error (@why,
 *	tracepoint @tpnum)")
 * @tpnum: the tracepoint concerned, or 0
 *
 * Context: process, under the host's lock.  Detaches every probe (and
 * waits for running hits) if any is attached; keeps the frames.
 */
void gtp_trace_stop_error(const char *why, u32 tpnum)
{
	if (!gtp_trace_busy())
		return;
	if (gtp_run_stop(GTP_STOP_ERROR, tpnum))
		scnprintf(run.error, sizeof(run.error), "%s", why);
	trace_stop(GTP_STOP_ERROR);
}

static void reply_note(struct gtp_conn *gc, const char *name,
		       const char *hex)
{
	if (*hex)
		gtp_replyf(gc, ";%s:%s", name, hex);
}

/*
 * gdb's tstatus prints "notes" as "Trace notes: ..."; gtp's own (the CPU
 * budget's trips, what trigger chains switched) come first there, then
 * the user's notes (hex, as gdb sent them).
 */
static void reply_notes(struct gtp_conn *gc, const char *own, size_t len)
{
	if (!len) {
		reply_note(gc, "notes", run.notes);
		return;
	}
	gtp_reply(gc, ";notes:");
	rsp_reply_hex(&gc->rsp, own, len);
	if (*run.notes) {
		rsp_reply_hex(&gc->rsp, "; ", 2);
		gtp_reply(gc, run.notes);
	}
}

/* gtp_budget_report()'s question: is @num's tripped probe still armed? */
static bool trip_armed(u32 num)
{
	const struct gtp_tp *tp;

	for (tp = gtp_tps; tp; tp = tp->next)
		if (tp->num == num &&
		    READ_ONCE(tp->tripped) != GTP_TRIP_DISARMED)
			return true;
	return false;
}

static void pkt_qtstatus(struct gtp_conn *gc, char *args)
{
	struct gtp_frame_stats st;
	/* the trips, then room for what trigger chains switched */
	char why[48], trips[GTP_BUDGET_MAX_TRIPS * 96 + 16 +
			    GTP_TRIGGER_REPORT_MAX];
	size_t ntrips = gtp_budget_report(trips, sizeof(trips) -
					  GTP_TRIGGER_REPORT_MAX, trip_armed);

	gtp_frames_stats(&st);
	gtp_replyf(gc, "T%d;", gtp_trace_running());
	switch (gtp_trace_running() ? GTP_STOP_NOTRUN : gtp_run.stop_reason) {
	case GTP_STOP_NOTRUN:
		gtp_reply(gc, "tnotrun:0");
		break;
	case GTP_STOP_USER:
		/*
		 * Always with the (maybe empty) note: gdb's tsave does
		 * strlen() on it and crashes on the older "tstop:0".
		 */
		gtp_replyf(gc, "tstop:%s:0", run.stop_note);
		break;
	case GTP_STOP_FULL:
		gtp_reply(gc, "tfull:0");
		break;
	case GTP_STOP_DISCONNECTED:
		gtp_reply(gc, "tdisconnected:0");
		break;
	case GTP_STOP_PASSCOUNT:
		gtp_replyf(gc, "tpasscount:%x", gtp_run.stop_tp);
		break;
	case GTP_STOP_TRIGGER:
		/* gdb: "Trace stopped by a tstop command (<text>)." */
		scnprintf(why, sizeof(why), "$gtp_stop set by tracepoint %u",
			  gtp_run.stop_tp);
		gtp_reply(gc, "tstop:");
		rsp_reply_hex(&gc->rsp, why, strlen(why));
		gtp_replyf(gc, ":%x", gtp_run.stop_tp);
		break;
	case GTP_STOP_ERROR:
		/* gdb: "Trace stopped by an error (<text>, tracepoint N)." */
		gtp_reply(gc, "terror:");
		rsp_reply_hex(&gc->rsp, run.error, strlen(run.error));
		gtp_replyf(gc, ":%x", gtp_run.stop_tp);
		break;
	case GTP_STOP_BUDGET:
		/* gdb: "Trace stopped by an error (<text>, tracepoint N)." */
		gtp_reply(gc, "terror:");
		rsp_reply_hex(&gc->rsp, trips, ntrips);
		gtp_replyf(gc, ":%x", gtp_run.stop_tp);
		break;
	}
	if (!st.size)
		st.size = st.free = run.buf_size ? run.buf_size :
				    GTP_DEFAULT_BUF_SIZE;
	gtp_replyf(gc, ";tframes:%llx;tcreated:%llx;tsize:%llx;tfree:%llx",
		   (unsigned long long)st.frames,
		   (unsigned long long)st.created,
		   (unsigned long long)st.size, (unsigned long long)st.free);
	gtp_replyf(gc, ";circular:%d;disconn:%d;starttime:%llx;stoptime:%llx",
		   run.circular, run.disconn,
		   (unsigned long long)run.start_us,
		   (unsigned long long)gtp_run.stop_us);
	reply_note(gc, "username", run.user);
	/* a stop by the budget said it above already */
	if (gtp_run.stop_reason == GTP_STOP_BUDGET && !gtp_trace_running())
		ntrips = 0;
	ntrips += gtp_trigger_report(trips + ntrips, sizeof(trips) - ntrips,
				     ntrips ? "; " : "");
	reply_notes(gc, trips, ntrips);
}

/*
 * QTinit: forget tracepoints, variables and frames, and free the frame
 * store too: a module at rest holds only what it allocated at load (the
 * next QTStart sizes a new store anyway).
 */
static void pkt_qtinit(struct gtp_conn *gc, char *args)
{
	trace_stop(GTP_STOP_USER);
	gtp_traceframe_deselect(gc);
	gtp_trigger_clear();
	gtp_tps_free();
	gtp_tsvs_clear();
	gtp_frames_release();
	gtp_run.nro = 0;
	gtp_run.stop_reason = GTP_STOP_NOTRUN;
	run.start_us = 0;
	gtp_run.stop_us = 0;
	run.stop_note[0] = '\0';
	/* strace works between QTinit and QTStart (static_data.h). */
	gtp_static_on_qtinit();
	gtp_reply(gc, "OK");
}

/*
 * Refuse to start when a tracepoint's frames can never fit the buffer's
 * per-CPU sub-buffers (the store would drop every one of them).
 */
static int check_frame_sizes(struct gtp_conn *gc, u64 size)
{
	u32 max = gtp_frames_max_len(size);
	struct gtp_tp *tp;

	for (tp = gtp_tps; tp; tp = tp->next) {
		u64 need = gtp_tp_min_frame_len(tp);

		if (need > max) {
			gtp_console(gc, "gtp: tracepoint %u: its frames need at least %llu bytes, a %llu-byte trace buffer holds frames of at most %u bytes (set trace-buffer-size larger)\n",
				    tp->num, (unsigned long long)need,
				    (unsigned long long)size, max);
			return -E2BIG;
		}
	}
	return 0;
}

/* Never silently slower: say which expressions the JIT did not take. */
static void report_interpreted(struct gtp_conn *gc)
{
	const char *why;
	u32 n = gtp_tps_interpreted(&why);

	if (n)
		gtp_console(gc, "gtp: %u agent expression(s) interpreted, not JIT-compiled: %s\n",
			    n, why);
}

static void pkt_qtstart(struct gtp_conn *gc, char *args)
{
	u64 size = run.buf_size ? run.buf_size : GTP_DEFAULT_BUF_SIZE;
	struct ax_bound all;
	u32 kinds;
	int ret;

	trace_stop(GTP_STOP_USER);
	gtp_traceframe_deselect(gc);
	ret = gtp_frames_setup(size, run.circular);
	if (ret) {
		gtp_console(gc, "gtp: cannot allocate a %llu-byte trace buffer (error %d)\n",
			    (unsigned long long)size, ret);
		gtp_reply_error(gc, 1);
		return;
	}
	/* before anything below asks what a program's variables are */
	all = gtp_tps_bind();
	gtp_tps_mark_sites();
	if (check_frame_sizes(gc, size)) {
		gtp_reply_error(gc, 1);
		return;
	}
	gtp_tps_reset_counts();
	gtp_tsvs_reset_values();
	gtp_tps_mark_returns();
	if (gtp_tps_mark_watches(gc)) {
		gtp_reply_error(gc, 1);	/* it said which and why */
		return;
	}
	gtp_tps_plan_aggs();
	/* an action may enable a tracepoint: every probe stays armed */
	if (gtp_trigger_plan(gtp_tps,
			     all.sets & GTP_SETS_BIT(GTP_TSV_ENABLE))) {
		gtp_console(gc, "gtp: out of memory for the trigger table\n");
		gtp_reply_error(gc, 1);
		return;
	}
	gtp_budget_arm();
	/* The counters the programs read, open before any probe reads one. */
	kinds = gtp_tsv_perf_kinds(all.uses);
	if (kinds && gtp_host->perf_open(gc, kinds)) {
		gtp_reply_error(gc, 1);	/* the host said which and why */
		return;
	}
	ret = gtp_host->arm(gc);
	if (ret) {
		/* The host told gdb why; nothing is attached. */
		gtp_host->perf_close();
		gtp_reply_error(gc, 1);
		return;
	}
	gtp_run.armed = true;
	gtp_run.stop_reason = GTP_STOP_NOTRUN;
	run.stop_note[0] = '\0';
	run.start_us = gtp_real_us();
	gtp_run.stop_us = 0;
	gtp_static_on_start();
	gtp_frames_start();
	atomic_long_set(&gtp_trace_run_flag, 1);
	report_interpreted(gc);
	gtp_reply(gc, "OK");
}

static const char *ax_error_name(u32 err)
{
	switch (err) {
	case AX_ERR_MEM:	return "unreadable memory";
	case AX_ERR_DIV0:	return "division by zero";
	case AX_ERR_BUDGET:	return "step budget exhausted";
	case AX_ERR_TRACE:	return "frame full";
	case AX_ERR_REG:	return "register unavailable";
	case AX_ERR_TSV:	return "trace state variable refused";
	default:		return "internal error";
	}
}

/*
 * Evaluation errors do not stop the run (a failed condition is false, a
 * failed action keeps what it recorded): say at tstop how many there were.
 */
static void report_errors(struct gtp_conn *gc)
{
	struct gtp_tp *tp;

	for (tp = gtp_tps; tp; tp = tp->next) {
		long n = atomic_long_read(&tp->errors);

		if (n)
			gtp_console(gc, "gtp: tracepoint %u at 0x%llx: %ld evaluation error(s), last: %s\n",
				    tp->num, (unsigned long long)tp->addr, n,
				    ax_error_name(READ_ONCE(tp->last_err)));
		if (tp->missed && tp->is_static)
			gtp_console(gc, "gtp: static tracepoint %u at 0x%llx: %llu hit(s) dropped (fired by its own hit's work, or nested deeper than the probe's slots on a CPU)\n",
				    tp->num, (unsigned long long)tp->addr,
				    (unsigned long long)tp->missed);
		else if (tp->missed)
			gtp_console(gc, "gtp: %stracepoint %u at 0x%llx: %llu hit(s) missed by the kernel (%s)\n",
				    tp->at_return ? "return " : "", tp->num,
				    (unsigned long long)tp->addr,
				    (unsigned long long)tp->missed,
				    tp->at_return ?
				    "more calls in flight than return slots, or inside another probe's handler" :
				    "fired inside another probe's handler");
	}
}

static void pkt_qtstop(struct gtp_conn *gc, char *args)
{
	trace_stop(GTP_STOP_USER);
	report_errors(gc);
	gtp_reply(gc, "OK");
}

/* QTBuffer:circular:<0|1> or QTBuffer:size:<hex>|-1 */
static void pkt_qtbuffer(struct gtp_conn *gc, char *args)
{
	const char *p;
	u64 v;

	if (!strncmp(args, "circular:", 9)) {
		p = rsp_parse_hex(args + 9, &v);
		if (!p || *p)
			goto malformed;
		run.circular = v != 0;
	} else if (!strcmp(args, "size:-1")) {
		run.buf_size = 0;
	} else if (!strncmp(args, "size:", 5)) {
		p = rsp_parse_hex(args + 5, &v);
		if (!p || *p || v < 1024 || v > GTP_MAX_BUF_SIZE) {
			gtp_console(gc, "gtp: trace buffer size must be 1 KiB .. 1 GiB\n");
			goto malformed;
		}
		run.buf_size = v;
	} else {
		goto malformed;
	}
	gtp_reply(gc, "OK");
	return;
malformed:
	gtp_reply_error(gc, 1);
}

static void pkt_qtdisconnected(struct gtp_conn *gc, char *args)
{
	run.disconn = args[0] == '1';
	gtp_reply(gc, "OK");
}

/* QTro:<start>,<end>[:<start>,<end>]... */
static void pkt_qtro(struct gtp_conn *gc, char *args)
{
	const char *p = args;

	gtp_run.nro = 0;
	while (*p == ':' && gtp_run.nro < GTP_MAX_RO) {
		struct gtp_ro_range *r = &gtp_run.ro[gtp_run.nro];

		if (!(p = rsp_parse_hex(p + 1, &r->start)) || *p++ != ',' ||
		    !(p = rsp_parse_hex(p, &r->end)))
			break;
		gtp_run.nro++;
	}
	gtp_reply(gc, "OK");
}

/* Copy one "name:<hex>;" field of QTNotes into @dst if present. */
static void take_note(const char *args, const char *name, char *dst)
{
	const char *p = strstr(args, name);
	size_t n;

	if (!p)
		return;
	p += strlen(name);
	for (n = 0; p[n] && p[n] != ';' && n < GTP_NOTE_MAX; n++)
		dst[n] = p[n];
	dst[n] = '\0';
}

/* Is the "name:<hex>" field of QTNotes, if present, hex digits only? */
static bool note_ok(const char *args, const char *name)
{
	const char *p = strstr(args, name);

	if (!p)
		return true;
	for (p += strlen(name); *p && *p != ';'; p++)
		if (rsp_hexval(*p) < 0)
			return false;
	return true;
}

static void pkt_qtnotes(struct gtp_conn *gc, char *args)
{
	/*
	 * qTStatus hands them back and gdb hex-decodes them: one bad digit
	 * would make every later tstatus (and connect) fail.
	 */
	if (!note_ok(args, "user:") || !note_ok(args, "notes:") ||
	    !note_ok(args, "tstop:")) {
		gtp_reply_error(gc, 1);
		return;
	}
	take_note(args, "user:", run.user);
	take_note(args, "notes:", run.notes);
	take_note(args, "tstop:", run.stop_note);
	gtp_reply(gc, "OK");
}

/* The connection is gone (or detached): keep tracing only if asked to. */
static void trace_disconnect(struct gtp_conn *gc)
{
	gtp_traceframe_deselect(gc);
	if (run.disconn && gtp_trace_running())
		return;
	if (gtp_trace_busy())
		trace_stop(GTP_STOP_DISCONNECTED);
}

static const struct gtp_pkt_handler trace_handlers[] = {
	{ "qTStatus", GTP_PKT_EXACT, pkt_qtstatus },
	{ "QTinit", GTP_PKT_EXACT, pkt_qtinit },
	{ "QTStart", GTP_PKT_EXACT, pkt_qtstart },
	{ "QTStop", GTP_PKT_EXACT, pkt_qtstop },
	{ "QTBuffer:", 0, pkt_qtbuffer },
	{ "QTDisconnected:", 0, pkt_qtdisconnected },
	{ "QTro", 0, pkt_qtro },
	{ "QTNotes:", 0, pkt_qtnotes },
	{ NULL },
};

static struct gtp_pkt_table trace_table = {
	.handlers = trace_handlers,
	.features = "DisconnectedTracing+;QTBuffer:size+",
	.on_close = trace_disconnect,
	.on_detach = trace_disconnect,
};

/* Register every tracing packet table (main.c and the unit tests). */
void gtp_trace_init(void)
{
	gtp_packets_register(&trace_table);
	gtp_tp_packets_init();
	gtp_tsv_init();
	gtp_traceframe_init();
}

/* Module exit: the host has detached every probe already. */
void gtp_trace_exit(void)
{
	trace_stop(GTP_STOP_USER);
	gtp_trigger_clear();
	gtp_tps_free();
	gtp_tsvs_clear();
	gtp_frames_release();
}
