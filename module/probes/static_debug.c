// SPDX-License-Identifier: GPL-2.0
/*
 * static_debug.c - a self-test and benchmark knob for static probes.
 *
 * /sys/module/gtptrace/parameters/static_debug attaches the generic static
 * probe through the same gtp_static_attach() the tracepoint code uses, so
 * tests can check register capture and probe removal, and benchmarks can
 * measure the probe alone, without a gdb session:
 *
 *	echo "capture SYSTEM:EVENT" >   count hits, keep the last $_sdata
 *	echo "bare SYSTEM:EVENT" >      probe + empty callback (its cost)
 *	echo "cond SYSTEM:EVENT HEX" >  evaluate agent expression HEX per hit
 *					(JIT if present, else interpreter)
 *	echo off >                      detach
 *	cat                             "attached=N hits=N true=N sdata=TEXT"
 *					(attached: all static probes, gdb's too)
 */
#define pr_fmt(fmt) "gtp: static: " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "ax.h"
#include "jit.h"
#include "static_tp.h"
#include "services.h"
#include "probes.h"
#include "kcompat.h"

/* a record with GTP_SDATA_MAX_ARGS words, as u64s */
#define DBG_SDATA_WORDS	(2 + GTP_SDATA_MAX_ARGS)

static struct {
	void *handle;
	struct ax_prog *prog;
	atomic64_t hits, trues;
	raw_spinlock_t lock;		/* last_sdata, from probe context */
	u64 last_sdata[DBG_SDATA_WORDS];
	u32 last_len;
	bool exiting;		/* module exit ran: refuse new probes */
} dbg = {
	.lock = __RAW_SPIN_LOCK_UNLOCKED(dbg.lock),
};

/*
 * Capture hits that ran preemptible (static_debug_preemptible): must stay
 * 0 whatever the kernel calls the probe with (static_probe.c pins).
 */
static atomic64_t dbg_preemptible = ATOMIC64_INIT(0);

static int dbg_preemptible_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lld\n", atomic64_read(&dbg_preemptible));
}

static const struct kernel_param_ops dbg_preemptible_ops = {
	.get = dbg_preemptible_get,
};
module_param_cb(static_debug_preemptible, &dbg_preemptible_ops, NULL, 0400);
MODULE_PARM_DESC(static_debug_preemptible,
		 "static_debug capture hits whose callback ran preemptible (must be 0)");

static void dbg_capture_hit(void *ctx, struct pt_regs *regs)
{
	unsigned long flags;

	if (preemptible())
		atomic64_inc(&dbg_preemptible);
	atomic64_inc(&dbg.hits);
	/*
	 * Only try: a hit in NMI (or in an interrupt on this CPU) while the
	 * reader holds the lock must not spin on it.  A missed capture only
	 * leaves the previous one in place.
	 */
	if (!raw_spin_trylock_irqsave(&dbg.lock, flags))
		return;
	dbg.last_len = gtp_sdata_collect(regs, dbg.last_sdata,
					 sizeof(dbg.last_sdata));
	raw_spin_unlock_irqrestore(&dbg.lock, flags);
}

static void dbg_bare_hit(void *ctx, struct pt_regs *regs)
{
}

static void dbg_cond_hit(void *ctx, struct pt_regs *regs)
{
	struct ax_env env = { .regs = regs };

	if (ax_run(ctx, &env) && !env.err)
		atomic64_inc(&dbg.trues);
}

static void dbg_off(void)
{
	if (dbg.handle)
		gtp_static_detach(dbg.handle);
	dbg.handle = NULL;
	if (dbg.prog) {
		if (dbg.prog->jit)
			ax_jit_free(dbg.prog);
		ax_prog_free(dbg.prog);
		dbg.prog = NULL;
	}
}

static int dbg_parse_cond(const char *hex, struct ax_prog **prog)
{
	size_t n = strlen(hex);
	char log[128];
	u8 *code;
	int ret;

	if (!n || n % 2 || n / 2 > AX_MAX_CODE)
		return -EINVAL;
	code = kmalloc(n / 2, GFP_KERNEL);
	if (!code)
		return -ENOMEM;
	ret = hex2bin(code, hex, n / 2);
	if (!ret)
		ret = ax_verify(code, n / 2, true, prog, log, sizeof(log));
	kfree(code);
	if (ret) {
		pr_info("static_debug: condition refused: %s\n", log);
		return ret;
	}
	if (ax_jit_compile(*prog, log, sizeof(log)))
		pr_info("static_debug: interpreting: %s\n", log);
	return 0;
}

static int dbg_set(const char *val, const struct kernel_param *kp)
{
	char *buf, *argv[3] = { NULL };
	void (*hit)(void *, struct pt_regs *);
	void *ctx = NULL;
	int argc = 0, ret;
	char *p, *tok;
	u64 addr;

	/*
	 * The knob runs bytecode on any tracepoint: the same policy as
	 * /proc/gtp, whatever the file mode says.
	 */
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	ret = gtp_locked_down();
	if (ret)
		return ret;
	buf = kstrdup(val, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	p = strim(buf);
	while ((tok = strsep(&p, " \t")) && argc < 3)
		if (*tok)
			argv[argc++] = tok;

	mutex_lock(&gtp_mutex);
	ret = -ENODEV;
	if (dbg.exiting)
		goto unlock;
	dbg_off();
	atomic64_set(&dbg.hits, 0);
	atomic64_set(&dbg.trues, 0);
	dbg.last_len = 0;
	ret = 0;
	if (argc == 1 && !strcmp(argv[0], "off"))
		goto unlock;
	ret = -EINVAL;
	if (argc < 2 || gtp_static_marker_by_id(argv[1], &addr))
		goto unlock;
	if (argc == 2 && !strcmp(argv[0], "capture")) {
		hit = dbg_capture_hit;
	} else if (argc == 2 && !strcmp(argv[0], "bare")) {
		hit = dbg_bare_hit;
	} else if (argc == 3 && !strcmp(argv[0], "cond")) {
		ret = dbg_parse_cond(argv[2], &dbg.prog);
		if (ret)
			goto unlock;
		hit = dbg_cond_hit;
		ctx = dbg.prog;
	} else {
		goto unlock;
	}
	ret = gtp_static_attach(addr, hit, ctx, &dbg.handle);
	if (ret)
		dbg_off();
unlock:
	mutex_unlock(&gtp_mutex);
	kfree(buf);
	return ret;
}

static int dbg_get(char *buffer, const struct kernel_param *kp)
{
	char text[256] = "";
	unsigned long flags;
	u64 rec[DBG_SDATA_WORDS];
	unsigned int attached = gtp_static_nr_attached();
	u32 len;

	raw_spin_lock_irqsave(&dbg.lock, flags);
	len = dbg.last_len;
	memcpy(rec, dbg.last_sdata, len);
	raw_spin_unlock_irqrestore(&dbg.lock, flags);
	if (len)
		gtp_static_sdata_format(rec, len, text, sizeof(text));
	return scnprintf(buffer, PAGE_SIZE,
			 "attached=%u hits=%lld true=%lld sdata=%s\n", attached,
			 atomic64_read(&dbg.hits), atomic64_read(&dbg.trues),
			 text);
}

static const struct kernel_param_ops dbg_ops = {
	.set = dbg_set,
	.get = dbg_get,
};
module_param_cb(static_debug, &dbg_ops, NULL, 0600);
MODULE_PARM_DESC(static_debug,
		 "static tracepoint self-test: capture|bare SYSTEM:EVENT, cond SYSTEM:EVENT HEX, off");

/* Module exit (under gtp_mutex): the knob's file outlives exit() briefly. */
void gtp_static_debug_exit(void)
{
	lockdep_assert_held(&gtp_mutex);
	dbg.exiting = true;
	dbg_off();
}

/* Under gtp_mutex: the knob's marker (or its JIT image's data) is going. */
void gtp_static_debug_going(const struct module *mod)
{
	lockdep_assert_held(&gtp_mutex);
	if ((dbg.handle && gtp_static_handle_module(dbg.handle) == mod) ||
	    (dbg.prog && ax_jit_holds(dbg.prog, mod)))
		dbg_off();
}
