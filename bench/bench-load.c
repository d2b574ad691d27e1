// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * exec-bench: the loaded variant (--load L).
 *
 * A daemon runs on a machine busy with other work.  With --load, before the
 * workload starts (and so before anything is timed) the benchmark forks a
 * separate process of L threads that spin on plain arithmetic at nice 0,
 * never sleeping and never making a system call, until the run ends; it is
 * killed and reaped afterwards.  The process is forked while the benchmark
 * still has one thread, so the child may start threads of its own; it dies
 * with the benchmark (PR_SET_PDEATHSIG) if the watchdog or a signal ends
 * the run first.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

static pid_t bench_load_pid = -1;

/* Plain arithmetic, kept from being optimised away by a volatile sink. */
static void *bench_load_spin(void *arg)
{
	volatile uint64_t sink = (uintptr_t)arg;
	uint64_t x = sink | 1;

	for (;;) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		sink = x;
	}
	return NULL;
}

static void bench_load_child(pid_t parent, unsigned int nr)
{
	pthread_t t;
	unsigned int i;

	/* Gone with the benchmark, even if it is killed. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(0);
	/* Nice 0 where allowed; a benchmark already niced keeps its own. */
	(void)setpriority(PRIO_PROCESS, 0, 0);
	for (i = 1; i < nr; i++)
		if (pthread_create(&t, NULL, bench_load_spin,
				   (void *)(uintptr_t)i))
			break;
	bench_load_spin(NULL);
}

/**
 * bench_load_start - start the load process of @nr spinning threads
 * @nr: its threads; 0 starts nothing
 *
 * Must be called while the caller has one thread.
 *
 * Return: 0, or -1 with a message on stderr.
 */
int bench_load_start(unsigned int nr)
{
	pid_t parent = getpid(), pid;

	if (!nr)
		return 0;
	pid = fork();
	if (pid < 0) {
		bench_err("--load: fork: %s", strerror(errno));
		return -1;
	}
	if (!pid)
		bench_load_child(parent, nr);
	bench_load_pid = pid;
	return 0;
}

/**
 * bench_load_stop - stop and reap the load process, if there is one
 */
void bench_load_stop(void)
{
	if (bench_load_pid <= 0)
		return;
	kill(bench_load_pid, SIGKILL);
	while (waitpid(bench_load_pid, NULL, 0) < 0 && errno == EINTR)
		;
	bench_load_pid = -1;
}
