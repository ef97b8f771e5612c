// SPDX-License-Identifier: GPL-2.0
/*
 * static_tp.c - the kernel's tracepoints as gdb static tracepoint markers.
 *
 * Enumeration needs no kernel patch:
 *  - vmlinux tracepoints: for_each_kernel_tracepoint() at init;
 *  - module tracepoints: the tracepoint module notifier, which replays
 *    MODULE_STATE_COMING for the modules already loaded when we register
 *    and reports GOING before a module's memory goes away.
 *
 * A tracepoint only knows its event name; the tracefs system name
 * ("sched" of sched:sched_switch), the field list and the argument count
 * live in the trace event (struct trace_event_call) and the BPF raw
 * tracepoint map (struct bpf_raw_event_map), both public types:
 *  - a module carries arrays of both (mod->trace_events, ->bpf_raw_events),
 *    set by the loader before COMING: we read them in the notifier;
 *  - for vmlinux, the argument counts are in the __bpf_raw_tp section
 *    (read-only data, kept after boot), but the _ftrace_events section is
 *    init data, freed after boot: its events are reached through the
 *    ftrace_events list, walked once at init under event_mutex.  None of
 *    these symbols is exported, so ksym.c looks them up, in kept data.
 *  If a lookup fails the markers are still listed, with id "?:EVENT".
 *
 * The marker address is tp->iterator, __traceiter_EVENT(): it identifies
 * the tracepoint, gdb symbolizes it, and its DWARF places the arguments
 * in the registers our probe captures (core/static_data.h).
 *
 * qTSTMat gating (the gdb `strace` crash, docs/static-tracepoints.md):
 * qTSTMat answers "no marker" except between QTinit and QTStart, when gdb
 * downloads the tracepoints and needs the marker to send the 'S' flag.
 *
 * Locking: gtp_static_mutex protects the marker list and hashes.  Order:
 * gtp_mutex -> (tracepoint module list mutex) -> gtp_static_mutex ->
 * event_mutex (init only) or tracepoints_mutex (probe registration).
 */
#define pr_fmt(fmt) "gtp: static: " fmt

#include <linux/module.h>
#include <linux/hashtable.h>
#include <linux/notifier.h>
#include <linux/trace_events.h>
#include <linux/tracepoint.h>
#include <linux/slab.h>

#include "packets.h"
#include "frame.h"
#include "trace.h"
#include "static_tp.h"
#include "services.h"
#include "probes.h"
#include "ksym.h"

DEFINE_MUTEX(gtp_static_mutex);
static LIST_HEAD(markers);
static DEFINE_HASHTABLE(markers_by_addr, 11);

struct marker_node {
	struct hlist_node hnode;
	struct gtp_marker *m;
};

/* vmlinux's __bpf_raw_tp section, from kallsyms (NULL if unavailable). */
static struct bpf_raw_event_map *raw_start, *raw_stop;

static void find_vmlinux_raw_tps(void)
{
	raw_start = (void *)gtp_ksym("__start__bpf_raw_tp");
	raw_stop = (void *)gtp_ksym("__stop__bpf_raw_tp");
	/* the whole table is read: all of it in kept data (ksym.h) */
	if (!raw_start || raw_stop <= raw_start ||
	    !gtp_kdata_kept((unsigned long)raw_start,
			    (void *)raw_stop - (void *)raw_start)) {
		pr_warn("no __bpf_raw_tp table: argument counts unknown\n");
		raw_start = raw_stop = NULL;
	}
}

static struct gtp_marker *marker_of_addr(u64 addr)
{
	struct marker_node *n;

	hash_for_each_possible(markers_by_addr, n, hnode, addr)
		if (gtp_marker_addr(n->m) == addr)
			return n->m;
	return NULL;
}

/**
 * gtp_marker_find - the marker at an address
 * @addr: a marker's address (its __traceiter_EVENT)
 *
 * Context: gtp_static_mutex held; the result is valid until it is dropped.
 *
 * Return: the marker, or NULL when none is at @addr.
 */
struct gtp_marker *gtp_marker_find(u64 addr)
{
	lockdep_assert_held(&gtp_static_mutex);
	return marker_of_addr(addr);
}

bool gtp_static_marker_at(u64 addr)
{
	bool found;

	mutex_lock(&gtp_static_mutex);
	found = marker_of_addr(addr);
	mutex_unlock(&gtp_static_mutex);
	return found;
}

int gtp_static_marker_by_id(const char *id, u64 *addr)
{
	const char *colon = strchr(id, ':');
	struct gtp_marker *m;
	int ret = -ENOENT;

	if (!colon)
		return -EINVAL;
	mutex_lock(&gtp_static_mutex);
	list_for_each_entry(m, &markers, list) {
		const char *sys = m->system ? m->system : "?";

		if (strlen(sys) == colon - id && !strncmp(sys, id, colon - id) &&
		    !strcmp(m->tp->name, colon + 1)) {
			*addr = gtp_marker_addr(m);
			ret = 0;
			break;
		}
	}
	mutex_unlock(&gtp_static_mutex);
	return ret;
}

/* A field can name an argument only if it is a scalar a register holds. */
static bool field_is_scalar(const struct trace_event_fields *f)
{
	if (strncmp(f->type, "__data_loc", 10) == 0 ||
	    strncmp(f->type, "__rel_loc", 9) == 0 || strchr(f->type, '['))
		return false;
	return f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8;
}

/*
 * Describe the event: system, fields, and the "extra data" gdb shows.
 * TRACE_EVENTs usually store their arguments as fields of the same names
 * (gtp_test_event does); when the count matches and every field is a
 * scalar, $_sdata names argument i after field i, else it says "argN".
 */
static void describe_event(struct gtp_marker *m, struct trace_event_call *call)
{
	const struct trace_event_fields *f = NULL;
	bool scalars = true;
	size_t len = 64;
	char *s;
	u32 n = 0;

	if (call) {
		m->system = call->class->system;
		f = call->class->fields_array;
	}
	/* Syscall events define their fields by a callback: none to read. */
	for (; f && f->type; f++) {
		len += strlen(f->type) + strlen(f->name) + 3;
		if (n < GTP_SDATA_MAX_FIELDS) {
			m->fields[n].name = f->name;
			m->fields[n].size = f->size;
			m->fields[n].is_signed = f->is_signed;
		}
		scalars &= field_is_scalar(f);
		n++;
	}
	m->nfields = (scalars && n == m->nargs) ? n : 0;

	kfree(m->extra);
	m->extra = NULL;
	s = kmalloc(len, GFP_KERNEL);
	if (!s)
		return;
	if (m->nfields)
		s[0] = '\0';
	else
		scnprintf(s, len, "%u args; fields:", m->nargs);
	f = call ? call->class->fields_array : NULL;
	for (n = 0; f && f->type; f++, n++) {
		if (n)
			strlcat(s, "; ", len);
		else if (!m->nfields)
			strlcat(s, " ", len);
		strlcat(s, f->type, len);
		strlcat(s, " ", len);
		strlcat(s, f->name, len);
	}
	m->extra = s;
}

static struct trace_event_call *find_event(struct trace_event_call **calls,
					   unsigned int n, struct tracepoint *tp)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if ((calls[i]->flags & TRACE_EVENT_FL_TRACEPOINT) &&
		    calls[i]->tp == tp)
			return calls[i];
	return NULL;
}

static u32 find_nargs(struct bpf_raw_event_map *raw, unsigned int n,
		      struct tracepoint *tp)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (raw[i].tp == tp)
			return raw[i].num_args;
	/* Unknown: the register arguments are all we can show. */
	return GTP_SDATA_REG_ARGS;
}

static int add_marker(struct tracepoint *tp, struct module *mod)
{
	struct trace_event_call *call;
	struct marker_node *node;
	struct gtp_marker *m;

	lockdep_assert_held(&gtp_static_mutex);
	if (!tp->iterator || marker_of_addr((unsigned long)tp->iterator))
		return 0;
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	node = kzalloc(sizeof(*node), GFP_KERNEL);
	if (!m || !node)
		goto err_free;
	m->tp = tp;
	m->mod = mod;
	if (mod) {
#ifdef CONFIG_BPF_EVENTS
		m->nargs = find_nargs(mod->bpf_raw_events,
				      mod->num_bpf_raw_events, tp);
#else
		m->nargs = GTP_SDATA_REG_ARGS;
#endif
		call = find_event(mod->trace_events, mod->num_trace_events, tp);
	} else {
		m->nargs = find_nargs(raw_start, raw_stop - raw_start, tp);
		call = NULL;	/* describe_vmlinux_events() finds it */
	}
	m->nargs = min_t(u32, m->nargs, GTP_SDATA_MAX_ARGS);
	describe_event(m, call);

	node->m = m;
	hash_add(markers_by_addr, &node->hnode, gtp_marker_addr(m));
	list_add_tail(&m->list, &markers);
	return 0;

err_free:
	kfree(node);
	kfree(m);
	return -ENOMEM;
}

static void del_marker(struct gtp_marker *m)
{
	struct marker_node *n;
	struct hlist_node *tmp;

	hash_for_each_possible_safe(markers_by_addr, n, tmp, hnode,
				    gtp_marker_addr(m))
		if (n->m == m) {
			hash_del(&n->hnode);
			kfree(n);
		}
	list_del(&m->list);
	kfree(m->extra);
	kfree(m);
}

static void add_vmlinux_tp(struct tracepoint *tp, void *priv)
{
	int *err = priv;

	if (!*err)
		*err = add_marker(tp, NULL);
}

/*
 * Attach vmlinux markers to their trace events.  Builtin events live in
 * vmlinux data for good, so the pointers we keep (system name, fields)
 * stay valid after event_mutex is dropped.
 */
static void describe_vmlinux_events(void)
{
	struct list_head *events =
		(void *)gtp_ksym_data("ftrace_events", sizeof(*events));
	struct mutex *ev_mutex =
		(void *)gtp_ksym_data("event_mutex", sizeof(*ev_mutex));
	struct trace_event_call *call;
	struct gtp_marker *m;

	if (!events || !ev_mutex) {
		pr_warn("no ftrace_events list: vmlinux markers have no system name\n");
		return;
	}
	mutex_lock(ev_mutex);
	list_for_each_entry(call, events, list) {
		if (!(call->flags & TRACE_EVENT_FL_TRACEPOINT) || !call->tp)
			continue;
		m = marker_of_addr((unsigned long)call->tp->iterator);
		if (m && !m->mod && m->tp == call->tp && !m->system)
			describe_event(m, call);
	}
	mutex_unlock(ev_mutex);
}

static int module_coming(struct module *mod)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < mod->num_tracepoints && !ret; i++)
		ret = add_marker(tracepoint_ptr_deref(&mod->tracepoints_ptrs[i]),
				 mod);
	return ret;
}

static void module_going(struct module *mod)
{
	struct gtp_marker *m, *tmp;

	list_for_each_entry_safe(m, tmp, &markers, list) {
		if (m->mod != mod)
			continue;
		/* Attached markers pin their module: it cannot be going. */
		WARN_ON_ONCE(m->attached);
		del_marker(m);
	}
}

static int tp_module_notify(struct notifier_block *nb, unsigned long val,
			    void *data)
{
	struct tp_module *tp_mod = data;
	int ret = 0;

	mutex_lock(&gtp_static_mutex);
	if (val == MODULE_STATE_COMING)
		ret = module_coming(tp_mod->mod);
	else if (val == MODULE_STATE_GOING)
		module_going(tp_mod->mod);
	mutex_unlock(&gtp_static_mutex);
	/* A marker we could not allocate is only missing from the list. */
	if (ret)
		pr_warn("cannot list the markers of %s (error %d)\n",
			tp_mod->mod->name, ret);
	return NOTIFY_OK;
}

static struct notifier_block tp_module_nb = {
	.notifier_call = tp_module_notify,
};

/* ---- packets ---- */

/* Reply bytes of "ADDR:HEXID:HEXEXTRA" for @m. */
static size_t marker_len(const struct gtp_marker *m)
{
	const char *sys = m->system ? m->system : "?";
	const char *extra = m->extra ? m->extra : "";

	return 16 + 2 + 2 * (strlen(sys) + 1 + strlen(m->tp->name) +
			     strlen(extra));
}

static void reply_marker(struct gtp_conn *gc, const struct gtp_marker *m)
{
	const char *sys = m->system ? m->system : "?";
	const char *extra = m->extra ? m->extra : "";

	gtp_replyf(gc, "%llx:", gtp_marker_addr(m));
	rsp_reply_hex(gtp_rsp(gc), sys, strlen(sys));
	rsp_reply_hex(gtp_rsp(gc), ":", 1);
	rsp_reply_hex(gtp_rsp(gc), m->tp->name, strlen(m->tp->name));
	gtp_reply(gc, ":");
	rsp_reply_hex(gtp_rsp(gc), extra, strlen(extra));
}

/*
 * qTfSTM/qTsSTM: as many markers per reply as fit.  The cursor
 * (gc->stm_upload) is an index into the list: if a module comes or goes
 * between two packets, gdb may see a marker twice or miss one, never a
 * freed one.
 */
static void reply_markers(struct gtp_conn *gc)
{
	struct gtp_stm_upload *cur = &gc->stm_upload;
	struct gtp_marker *m;
	unsigned int i = 0, sent = 0;

	mutex_lock(&gtp_static_mutex);
	list_for_each_entry(m, &markers, list) {
		if (i++ < cur->next)
			continue;
		/* +1: the 'm' or ',' before it */
		if (rsp_reply_room(gtp_rsp(gc)) < marker_len(m) + 1) {
			if (sent)
				break;
			cur->next++;	/* too big for any reply: skip it */
			continue;
		}
		gtp_reply(gc, sent ? "," : "m");
		reply_marker(gc, m);
		sent++;
		cur->next++;
	}
	mutex_unlock(&gtp_static_mutex);
	if (!sent)
		gtp_reply(gc, "l");
}

static void pkt_qtfstm(struct gtp_conn *gc, char *args)
{
	gc->stm_upload.next = 0;
	reply_markers(gc);
}

static void pkt_qtsstm(struct gtp_conn *gc, char *args)
{
	reply_markers(gc);
}

static void pkt_qtstmat(struct gtp_conn *gc, char *args)
{
	struct gtp_marker *m;
	const char *p;
	u64 addr;

	p = rsp_parse_hex(args, &addr);
	if (!p || *p) {
		gtp_reply_error(gc, 1);
		return;
	}
	mutex_lock(&gtp_static_mutex);
	m = gtp_static_stmat_open() ? marker_of_addr(addr) : NULL;
	if (m && rsp_reply_room(gtp_rsp(gc)) > marker_len(m)) {
		gtp_reply(gc, "m");
		reply_marker(gc, m);
	} else {
		m = NULL;
	}
	mutex_unlock(&gtp_static_mutex);
	if (!m)
		gtp_reply(gc, "l");
}

/*
 * The selected frame's $_sdata record, copied (frames hold it unaligned).
 * Returns a kmalloc'ed record and its length, or NULL.
 */
static void *frame_sdata(struct gtp_conn *gc, u32 *len)
{
	const u8 *f;
	u32 flen, off;
	void *rec;

	if (gc->frame < 0 || !gtp_trace_frames_readable())
		return NULL;
	f = gtp_frame_get(gc->frame, &flen);
	if (!f || gtp_frame_sdata_find(f, flen, &off, len))
		return NULL;
	rec = kmalloc(*len, GFP_KERNEL);
	if (rec)
		memcpy(rec, f + off, *len);
	return rec;
}

/**
 * gtp_static_sdata_format - $_sdata text of a record
 * @rec:	the record as stored in the frame
 * @len:	its length in bytes
 * @buf:	output, always NUL terminated when @size > 0
 * @size:	bytes at @buf
 *
 * Names come from the record's marker if it still exists (its module may
 * have been unloaded since: then the arguments are "argN").
 *
 * Return: as gtp_sdata_format().
 */
int gtp_static_sdata_format(const void *rec, u32 len, char *buf, size_t size)
{
	const struct gtp_sdata_rec *r = rec;
	struct gtp_marker *m;
	int ret;

	if (len < sizeof(*r))
		return -EINVAL;
	mutex_lock(&gtp_static_mutex);
	m = marker_of_addr(r->addr);
	ret = gtp_sdata_format(r, len, m ? m->fields : NULL,
			       m ? m->nfields : 0, buf, size);
	mutex_unlock(&gtp_static_mutex);
	return ret;
}

/**
 * gtp_static_sdata_fields - the $_sdata fields of a marker, for the consumer
 * @addr:	the marker's address (a static tracepoint's location)
 * @buf:	output: "NAME:SIZE:s|u ..." in argument order
 * @size:	bytes at @buf
 *
 * Return: the length written, 0 if the marker is gone or its names are
 * unknown (the consumer then names the words arg1, arg2...).
 */
int gtp_static_sdata_fields(u64 addr, char *buf, size_t size)
{
	struct gtp_marker *m;
	size_t len = 0;
	u32 i;

	mutex_lock(&gtp_static_mutex);
	m = marker_of_addr(addr);
	if (m && m->nfields == m->nargs)
		for (i = 0; i < m->nfields && len < size; i++)
			len += scnprintf(buf + len, size - len, "%s%s:%u:%c",
					 i ? " " : "", m->fields[i].name,
					 m->fields[i].size,
					 m->fields[i].is_signed ? 's' : 'u');
	mutex_unlock(&gtp_static_mutex);
	return len;
}

#define SDATA_TEXT_MAX	1024

/* qXfer:statictrace:read::OFF,LEN - $_sdata of the selected frame. */
static void pkt_xfer_sdata(struct gtp_conn *gc, char *args)
{
	char *text = NULL;
	void *rec;
	u32 len;
	int n = 0;

	/* No frame or no 'L' action: an empty object, gdb's void $_sdata. */
	rec = frame_sdata(gc, &len);
	if (rec)
		text = kmalloc(SDATA_TEXT_MAX, GFP_KERNEL);
	if (text)
		n = gtp_static_sdata_format(rec, len, text, SDATA_TEXT_MAX);
	gtp_reply_xfer(gc, text ? text : "", clamp(n, 0, SDATA_TEXT_MAX - 1),
		       args);
	kfree(text);
	kfree(rec);
}

static void static_on_close(struct gtp_conn *gc)
{
	/* A new gdb must not inherit an open QTinit..QTStart window. */
	gtp_static_on_stop();
}

static const struct gtp_pkt_handler static_handlers[] = {
	{ "qTfSTM", GTP_PKT_EXACT, pkt_qtfstm },
	{ "qTsSTM", GTP_PKT_EXACT, pkt_qtsstm },
	{ "qTSTMat:", 0, pkt_qtstmat },
	{ "qXfer:statictrace:read::", 0, pkt_xfer_sdata },
	{ NULL },
};

static struct gtp_pkt_table static_table = {
	.handlers = static_handlers,
	.features = "StaticTracepoints+;qXfer:statictrace:read+",
	.on_close = static_on_close,
};

static void free_markers(void)
{
	struct gtp_marker *m, *tmp;

	mutex_lock(&gtp_static_mutex);
	list_for_each_entry_safe(m, tmp, &markers, list)
		del_marker(m);
	mutex_unlock(&gtp_static_mutex);
}

int gtp_static_tp_init(void)
{
	int ret = 0;

	find_vmlinux_raw_tps();
	mutex_lock(&gtp_static_mutex);
	for_each_kernel_tracepoint(add_vmlinux_tp, &ret);
	if (!ret)
		describe_vmlinux_events();
	mutex_unlock(&gtp_static_mutex);
	if (ret)
		goto err_free;
	/* Replays COMING for every module already loaded. */
	ret = register_tracepoint_module_notifier(&tp_module_nb);
	if (ret)
		goto err_free;
	gtp_packets_register(&static_table);
	return 0;

err_free:
	free_markers();
	return ret;
}

void gtp_static_tp_exit(void)
{
	unregister_tracepoint_module_notifier(&tp_module_nb);
	free_markers();
}
