/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The stall watchdog: reports an item of a thread pool that has run longer
 * than a threshold, and a thread pool whose queue has held items without
 * starting any for that long, once per stall, as the kernel's workqueue
 * watchdog does for workqueues.  Each report names the pool (its threads'
 * name prefix), the item's function (as %ps prints it) and how long; in the
 * kernel the stuck worker's stack follows.
 *
 * Off by default in userspace; in the kernel on, with the threshold of the
 * module parameter watchdog_thresh_ms (default 30000, 0 for off).  Managed
 * queues have their own per-queue limit (time_limit_ns), reported in the
 * same words.
 */
#ifndef EXEC_WATCHDOG_H
#define EXEC_WATCHDOG_H

#include "types.h"

EXEC_BEGIN_DECLS

/**
 * exec_watchdog_set - set the stall watchdog's threshold
 * @thresh_ns: report what has been stuck this long, in nanoseconds; 0
 *	turns the watchdog off.  The watchdog looks every quarter of it, so a
 *	stall is reported between 1 and 1.25 times the threshold after it
 *	began.
 *
 * Applies to every thread pool, those that exist and those to come.
 * Reports go to pr_warn() in the kernel and to the log callback in
 * userspace (exec_user_set_log()).
 *
 * Context: Process context; may sleep.
 * Return: 0; -EINVAL for a threshold under 1 ms; -ENOMEM or -EAGAIN if the
 * watchdog's timer could not be set up (userspace: its thread).
 */
int exec_watchdog_set(uint64_t thresh_ns);

/**
 * exec_watchdog_thresh - the stall watchdog's threshold
 *
 * Context: Any context.
 * Return: the threshold in nanoseconds; 0 when the watchdog is off.
 */
uint64_t exec_watchdog_thresh(void);

EXEC_END_DECLS

#endif /* EXEC_WATCHDOG_H */
