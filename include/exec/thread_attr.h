/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Attributes of the threads an executor starts (a thread pool's workers, a
 * thread-per-task executor's threads): name, nice value, CPU affinity and
 * stack size, and whether they take part in the system's suspend freezer.
 * The same structure in both worlds; what each world can do with it is in
 * the kernel-doc of struct exec_thread_attr.
 */
#ifndef EXEC_THREAD_ATTR_H
#define EXEC_THREAD_ATTR_H

#include "types.h"

EXEC_BEGIN_DECLS

/* The range of nice values, as in the kernel's MIN_NICE and MAX_NICE. */
#define EXEC_NICE_MIN	(-20)
#define EXEC_NICE_MAX	19

/**
 * struct exec_thread_attr - attributes of the threads an executor starts
 * @name: prefix of the threads' names: each thread is named "@name/N", N
 *	counting from 0 in the order the executor starts them, and shows so in
 *	ps, /proc/PID/task/TID/comm and, for kthreads, in the kernel's task
 *	list.  Names are cut to 15 characters (TASK_COMM_LEN - 1).  NULL keeps
 *	the executor's own default name.
 * @nice: the threads' nice value, from EXEC_NICE_MIN to EXEC_NICE_MAX;
 *	used only when @set_nice is true
 * @set_nice: set @nice; false (the default) lets the threads inherit the
 *	nice value of the thread that starts them (userspace) or the kernel's
 *	default for kthreads
 * @cpus: the CPUs the threads may run on, as a bitmap of @nr_cpu_bits bits:
 *	CPU n is bit (n % BITS_PER_LONG) of word n / BITS_PER_LONG of @cpus, the
 *	layout of the kernel's struct cpumask and of glibc's cpu_set_t.  At
 *	least one of them must be online.  NULL (the default) leaves the
 *	affinity alone.  The bitmap is copied: it need not outlive the
 *	function it is passed to.
 * @nr_cpu_bits: the number of bits in @cpus; must be 0 when @cpus is NULL
 * @stack_size: the threads' stack size in bytes; 0 for the default.
 *	Userspace only: at least PTHREAD_STACK_MIN.  Kernel stacks have a
 *	fixed size, so in the kernel anything but 0 fails with -EOPNOTSUPP.
 * @freezable: the threads are frozen while the system suspends, as the
 *	workers of a WQ_FREEZABLE workqueue are.  Kernel: the kthreads mark
 *	themselves freezable (set_freezable()); a thread pool's worker freezes
 *	between two items and where it waits for work, so during a freeze it
 *	runs nothing, and what was queued or submitted meanwhile (by an
 *	interrupt, a timer, a thread that is not frozen) runs after the thaw.
 *	Threads without it, the default, keep running through a freeze.
 *	Userspace has no system freezer: there the flag is accepted and has
 *	no effect (a process is stopped whole by the kernel's freezer or by
 *	SIGSTOP, its threads all at once).
 *
 * A zeroed structure asks for nothing: the executor's defaults.  The
 * structure and @name need only be valid during the call they are passed
 * to.
 */
struct exec_thread_attr {
	const char *name;
	int nice;
	bool set_nice;
	/* In what was padding: the layout of the other fields is unchanged. */
	bool freezable;
	const unsigned long *cpus;
	unsigned int nr_cpu_bits;
	size_t stack_size;
};

EXEC_END_DECLS

#endif /* EXEC_THREAD_ATTR_H */
