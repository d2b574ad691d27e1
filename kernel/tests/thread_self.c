// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The kernel side of the thread attribute tests' helpers (exec_test.h):
 * what the calling task is, from its task_struct, and the kernel's task
 * list.
 */
#include <linux/cpumask.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>

#include "exec_test.h"

int exec_test_thread_self(struct exec_test_thread_self *ts)
{
	unsigned int cpu;

	memset(ts, 0, sizeof(*ts));
	get_task_comm(ts->comm, current);
	ts->nice = task_nice(current);
	for_each_cpu(cpu, current->cpus_ptr)
		if (cpu < EXEC_TEST_CPU_BITS)
			ts->cpus[cpu / BITS_PER_LONG] |=
				1UL << (cpu % BITS_PER_LONG);
	ts->stack_size = THREAD_SIZE;
	ts->freezable = !(current->flags & PF_NOFREEZE);
	return 0;
}

unsigned int exec_test_count_threads(const char *prefix)
{
	size_t len = strlen(prefix);
	struct task_struct *g, *p;
	unsigned int n = 0;

	rcu_read_lock();
	for_each_process_thread(g, p)
		if (!strncmp(p->comm, prefix, len))
			n++;
	rcu_read_unlock();
	return n;
}

bool exec_test_stack_size_settable(void)
{
	return false;
}

bool exec_test_has_freezer(void)
{
	return IS_ENABLED(CONFIG_FREEZER);
}
