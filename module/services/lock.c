// SPDX-License-Identifier: GPL-2.0
/*
 * lock.c - gtp_mutex, the one lock of gtptrace's process-context side.
 *
 * It serialises gdb's packets (proc.c), module init and exit (main.c),
 * arming and disarming probes (attach.c), the CPU budget's trips (trip.c),
 * the static_debug knob and the module notifier (forced_unload.c).  It
 * sits in the lowest room so that every room can take it without calling
 * up into the one that owns the proc file.  Nothing on a probe path takes
 * it.
 */
#include <linux/mutex.h>

#include "services.h"

DEFINE_MUTEX(gtp_mutex);
