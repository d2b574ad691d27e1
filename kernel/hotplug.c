// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * CPU hotplug, the kernel's half (core/platform.h): one cpuhp
 * multi-instance state of the module, as workqueues have
 * (workqueue_online_cpu() and workqueue_offline_cpu()), whose instances are
 * the watches of the per-CPU pools.  What a pool does when a CPU goes or
 * comes is the core's (core/thread_pool.c); here is only how it learns of
 * it and how a thread's CPU is changed.
 *
 * The state is a dynamic one of the AP range (CPUHP_AP_ONLINE_DYN): its
 * callbacks run on the CPU concerned, in its hotplug thread, with the CPU
 * hotplug lock held for writing; going offline after the scheduler has
 * deactivated the CPU, coming online before it activates it.  The CPU is
 * online meanwhile, so a kthread may still be bound to it and leave it
 * (Documentation/lifecycle.rst).
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/sched.h>

#include "platform.h"
#include "exec_kernel.h"

/* The state cpuhp_setup_state_multi() gave us; set at module init. */
static enum cpuhp_state exec_cpuhp_state;

static int exec_cpuhp_online(unsigned int cpu, struct hlist_node *node)
{
	struct exec_cpu_watch *w = hlist_entry(node, struct exec_cpu_watch,
					       node);

	w->fn(w, cpu, true);
	return 0;
}

static int exec_cpuhp_offline(unsigned int cpu, struct hlist_node *node)
{
	struct exec_cpu_watch *w = hlist_entry(node, struct exec_cpu_watch,
					       node);

	w->fn(w, cpu, false);
	return 0;
}

/**
 * exec_hotplug_init - set up the module's CPU hotplug state
 *
 * Context: Module init.
 * Return: 0, or the negative errno of cpuhp_setup_state_multi() (-ENOSPC
 * when no dynamic state is left).
 */
int exec_hotplug_init(void)
{
	int ret;

	ret = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "exec:online",
				      exec_cpuhp_online, exec_cpuhp_offline);
	if (ret < 0)
		return ret;
	exec_cpuhp_state = ret;
	return 0;
}

/**
 * exec_hotplug_exit - remove the module's CPU hotplug state
 *
 * Every watch has been removed by then: their pools are destroyed.
 *
 * Context: Module exit.
 */
void exec_hotplug_exit(void)
{
	cpuhp_remove_multi_state(exec_cpuhp_state);
}

/**
 * exec_cpu_watch_add - be told of the CPUs that go offline or come online
 * @watch: the watch, its @fn set
 *
 * @fn is called for each change from this call's return, and maybe for
 * one under way at the call; not for the CPUs as they are (the caller looks
 * at them with exec_cpus_hold() held, after this call).
 *
 * Context: Process context; may sleep; not under exec_cpus_hold().
 * Return: 0, or -ENOMEM.
 */
int exec_cpu_watch_add(struct exec_cpu_watch *watch)
{
	return cpuhp_state_add_instance_nocalls(exec_cpuhp_state,
						&watch->node);
}

/**
 * exec_cpu_watch_remove - stop telling @watch
 * @watch: a watch added
 *
 * Context: Process context; may sleep (waits for a CPU going offline or
 * coming online); not under exec_cpus_hold() nor from @watch's @fn.
 */
void exec_cpu_watch_remove(struct exec_cpu_watch *watch)
{
	cpuhp_state_remove_instance_nocalls(exec_cpuhp_state, &watch->node);
}

/**
 * exec_cpus_hold - keep every CPU online or offline
 *
 * Until exec_cpus_release(): cpus_read_lock().
 *
 * Context: Process context; may sleep.
 */
void exec_cpus_hold(void)
{
	cpus_read_lock();
}

/**
 * exec_cpus_release - let CPUs go offline and come online again
 *
 * Context: Process context, after exec_cpus_hold().
 */
void exec_cpus_release(void)
{
	cpus_read_unlock();
}

/**
 * exec_thread_set_cpu - bind a thread to a CPU, or unbind it
 * @thread: a thread started and not joined
 * @cpu: the CPU, or -1 for any CPU
 *
 * Unbinding lets the thread run on every CPU, as an unbound workqueue's
 * workers may (the scheduler leaves out those offline); a thread that runs
 * on a CPU going offline is moved off it when it next runs there.  A
 * kthread may be bound to a CPU that is online and not yet active, as a
 * CPU coming online is when a watch is told.
 *
 * Context: Process context; may sleep.
 * Return: 0; -EINVAL if @cpu is not online.
 */
int exec_thread_set_cpu(struct exec_thread *thread, int cpu)
{
	if (cpu < 0)
		return set_cpus_allowed_ptr(thread->task, cpu_possible_mask);
	if (cpu >= nr_cpu_ids)
		return -EINVAL;
	return set_cpus_allowed_ptr(thread->task, cpumask_of(cpu));
}
