/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Helpers of the kernel-only KUnit suites (kernel/tests/): counting
 * kthreads by name.  (Timer API names across kernel versions:
 * exec_hrtimer_setup() in exec_platform.h.)
 */
#ifndef EXEC_KUNIT_H
#define EXEC_KUNIT_H

#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/timer.h>

#include "exec_test.h"

/* Tasks whose name starts with @prefix, exiting ones included. */
static inline unsigned int exec_kunit_count_tasks(const char *prefix)
{
	size_t len = strlen(prefix);
	struct task_struct *p;
	unsigned int n = 0;

	rcu_read_lock();
	for_each_process(p)
		if (!strncmp(p->comm, prefix, len))
			n++;
	rcu_read_unlock();
	return n;
}

/*
 * Wait until no task's name starts with @prefix.  A joined kthread runs only
 * the kernel's exit path, so it is gone soon after; false if it is not
 * gone within @ms.
 */
static inline bool exec_kunit_wait_no_tasks(const char *prefix,
					    unsigned int ms)
{
	u64 deadline = exec_test_deadline(ms);

	while (exec_kunit_count_tasks(prefix)) {
		if (exec_test_expired(deadline))
			return false;
		usleep_range(5000, 10000);
	}
	return true;
}

/* kernel/tests/freeze_test.c: a round armed and never checked. */
void exec_freeze_test_exit(void);

#endif /* EXEC_KUNIT_H */
