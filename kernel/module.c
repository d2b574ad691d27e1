// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * exec.ko: the shared core (the .c files of core/) and the kernel platform
 * (kernel/platform.c) as one loadable module.  The public API
 * (include/exec/) is exported GPL-only by the core; see
 * Documentation/executors.rst.
 *
 * Loading.  The built-in default thread pool is started here rather than on
 * first use, as in userspace: starting it sleeps (it creates kthreads), and
 * exec_default_submit() of an intrusive item must not sleep, since a driver
 * may call it from an interrupt handler.
 *
 * Unloading.  The module can only be removed once no module that uses it is
 * loaded; those must destroy their executors in their own exit functions
 * (destroying a thread pool runs what is queued on it, destroying a serial or
 * loop executor discards it, as in userspace).  What the module owns itself,
 * the built-in default thread pool, is destroyed here with the same
 * semantics: whatever is still queued on it runs, then its kthreads are
 * joined and its memory freed.  The inline executor's execution context,
 * which lives as long as the module, goes first: its services are shut down
 * and destroyed while the default pool can still run what they submit.
 */
#include <linux/init.h>
#include <linux/module.h>

#include <exec/exec.h>

#include "platform.h"
#include "exec_kernel.h"

/*
 * The stall watchdog's threshold at loading, as the workqueue watchdog's
 * workqueue.watchdog_thresh (which counts seconds); 0 leaves it off.
 * exec_watchdog_set() changes it later.
 */
static unsigned int watchdog_thresh_ms = 30000;
module_param(watchdog_thresh_ms, uint, 0444);
MODULE_PARM_DESC(watchdog_thresh_ms,
		 "report thread pool items and queues stuck this long (ms; 0: off)");

static int __init exec_module_init(void)
{
	int ret;

	exec_platform_init();
	exec_timer_sys_init();
	/* Before the first pool: per-CPU pools watch the CPUs. */
	ret = exec_hotplug_init();
	if (ret) {
		exec_platform_exit();
		return ret;
	}
	/* Before the first pool, the default one, wants its file. */
	exec_stats_files_init();
	if (!exec_default_executor()) {
		exec_stats_files_exit();
		exec_hotplug_exit();
		exec_platform_exit();
		return -ENOMEM;
	}
	ret = exec_watchdog_set((u64)watchdog_thresh_ms * NSEC_PER_MSEC);
	if (ret)
		pr_warn("exec: stall watchdog not started: %d\n", ret);
	return 0;
}

static void __exit exec_module_exit(void)
{
	exec_static_context_release();
	exec_default_shutdown();
	exec_watchdog_exit();
	exec_serial_sys_exit();
	exec_stats_files_exit();
	exec_hotplug_exit();
	exec_platform_exit();
}

module_init(exec_module_init);
module_exit(exec_module_exit);

MODULE_DESCRIPTION("Executors: thread pool, serial, loop, inline, thread-per-task");
MODULE_AUTHOR("libexec maintainers <maintainers@users.noreply.a-seed-99d49043.example>");
MODULE_VERSION(EXEC_VERSION);
MODULE_LICENSE("Dual MIT/GPL");
