// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * exec_test.ko: the KUnit suites of tests/ (the very files the userspace
 * runner builds) and the kernel-only suites of kernel/tests/, in one module.
 * KUnit runs every suite when the module is loaded; select some with
 * kunit.filter_glob on the kernel command line, as for any KUnit module.
 *
 * Parameters: stress_tasks, the number of tasks per stress configuration
 * (the default is small because the test kernel usually runs under
 * software emulation; the userspace runner's default is 10000000), and
 * freeze_test, which tests/guest/init.c writes to once the suites have run
 * (kernel/tests/freeze_test.c).
 */
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "exec_kunit.h"

static unsigned long stress_tasks = 200000;
module_param(stress_tasks, ulong, 0444);
MODULE_PARM_DESC(stress_tasks,
		 "Tasks per stress configuration (default 200000)");

/**
 * exec_test_stress_tasks - number of tasks per stress configuration
 *
 * Context: Any context.
 * Return: the stress_tasks module parameter, at least 1.
 */
unsigned long exec_test_stress_tasks(void)
{
	return max(stress_tasks, 1UL);
}

static void __exit exec_test_exit(void)
{
	exec_freeze_test_exit();
}
module_exit(exec_test_exit);

MODULE_DESCRIPTION("KUnit tests of exec.ko");
MODULE_IMPORT_NS(EXEC);
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_LICENSE("Dual MIT/GPL");
