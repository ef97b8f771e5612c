// SPDX-License-Identifier: GPL-2.0
/*
 * trigger.c - trigger chains: "teval $gtp_enable = N" in a tracepoint's
 * actions enables tracepoint N from the probe, at that hit, and
 * "$gtp_disable" disables it ("record tcp_sendmsg once
 * tcp_retransmit_skb has fired": the one disabled in gdb before tstart,
 * the other's actions enabling it).
 *
 * A hit cannot arm a probe (that takes the kernel's locks), so in a run
 * whose actions may enable a tracepoint (gtp_trigger_plan()'s @chained)
 * every location keeps its probe armed while disabled: tp->keep_armed,
 * which the backends and QTDisable honour.  Its hits then end at the
 * enable flag, the first thing a hit tests (collect.h); one that is
 * enabled collects from the very next hit, on any CPU.
 *
 * The probe finds tracepoint N in a table sorted by number, made at
 * QTStart from the list of locations (all of a number's locations
 * change together, as QTEnable's do not: gdb names one there).  The
 * table and the list live until QTinit, when nothing is attached: no hit
 * can be reading them then.  A location the CPU budget tripped stays off.
 *
 * What the chains did is kept on the target (who switched it last, how
 * many times) and reported in tstatus's notes (trace.c).
 */
#include "trigger.h"

static struct gtp_tp **by_num;	/* READ_ONCE: the probes' table */
static u32 n_by_num;

/* Sorted by number; gdb downloads in that order, so this is linear. */
static void sort_by_num(struct gtp_tp **t, u32 n)
{
	u32 i, j;

	for (i = 1; i < n; i++) {
		struct gtp_tp *tp = t[i];

		for (j = i; j > 0 && t[j - 1]->num > tp->num; j--)
			t[j] = t[j - 1];
		t[j] = tp;
	}
}

/**
 * gtp_trigger_plan() - the table of a new run (QTStart, nothing armed)
 * @tps:	the locations
 * @chained:	some action may set $gtp_enable: keep every probe armed
 *
 * Return: 0, or -ENOMEM.
 */
int gtp_trigger_plan(struct gtp_tp *tps, bool chained)
{
	struct gtp_tp *tp, **t = NULL;
	u32 n = 0;

	gtp_trigger_clear();
	for (tp = tps; tp; tp = tp->next) {
		tp->keep_armed = chained;
		tp->trig_by = 0;
		tp->trig_on = false;
		atomic_long_set(&tp->trig_count, 0);
		n++;
	}
	if (!n)
		return 0;
	t = gtp_malloc(n * sizeof(*t));
	if (!t)
		return -ENOMEM;
	n = 0;
	for (tp = tps; tp; tp = tp->next)
		t[n++] = tp;
	sort_by_num(t, n);
	n_by_num = n;
	smp_wmb();	/* the table is whole before a probe finds it */
	WRITE_ONCE(by_num, t);
	return 0;
}

/* QTinit, module exit: nothing is attached. */
void gtp_trigger_clear(void)
{
	struct gtp_tp **t = by_num;

	WRITE_ONCE(by_num, NULL);
	n_by_num = 0;
	gtp_free(t);
}

/**
 * gtp_trigger_fire() - a hit of tracepoint @by switches tracepoint @target
 * @target:	the tracepoint number the action set $gtp_enable or
 *		$gtp_disable to
 * @enable:	which of the two
 * @by:		the tracepoint whose action it is
 *
 * Context: probe context: no lock, no allocation, O(log n) to find it.
 * Return: 0, or -ENOENT when no location has that number (the setting
 * tracepoint's error, as any action's).
 */
int gtp_trigger_fire(u32 target, bool enable, u32 by)
{
	struct gtp_tp **t = READ_ONCE(by_num);
	u32 lo = 0, hi, i;
	int ret = -ENOENT;

	if (!t)
		return -ENOENT;
	smp_rmb();	/* pairs with gtp_trigger_plan()'s smp_wmb() */
	hi = n_by_num;
	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (t[mid]->num < target)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < n_by_num && t[i]->num == target; i++) {
		struct gtp_tp *tp = t[i];

		ret = 0;
		if (enable && READ_ONCE(tp->tripped))
			continue;
		WRITE_ONCE(tp->enabled, enable);
		WRITE_ONCE(tp->trig_by, by);
		WRITE_ONCE(tp->trig_on, enable);
		atomic_long_inc(&tp->trig_count);
	}
	return ret;
}

/**
 * gtp_trigger_report() - what the chains did, for tstatus's notes
 * @buf:	where
 * @size:	its size
 * @sep:	what goes before it, when there is anything
 *
 * One entry per tracepoint number a chain switched: "tracepoint 2
 * enabled by 1 (3 switches)", its first location's.
 *
 * Return: the length written (no NUL counted), 0 if none switched.
 */
size_t gtp_trigger_report(char *buf, size_t size, const char *sep)
{
	struct gtp_tp **t = by_num;
	size_t len = 0;
	u32 i;

	if (!size)
		return 0;
	buf[0] = '\0';
	for (i = 0; t && i < n_by_num; i++) {
		const struct gtp_tp *tp = t[i];
		long n = atomic_long_read(&tp->trig_count);

		if (!n || (i && t[i - 1]->num == tp->num))
			continue;
		len += scnprintf(buf + len, size - len,
				 "%stracepoint %u %s by %u (%ld switch%s)",
				 len ? "; " : sep, tp->num,
				 READ_ONCE(tp->trig_on) ? "enabled" : "disabled",
				 READ_ONCE(tp->trig_by), n, n == 1 ? "" : "es");
	}
	return len;
}
