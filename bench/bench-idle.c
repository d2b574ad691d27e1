// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * exec-bench: idle_cost, what an idle executor costs the machine.
 *
 * A pool of T workers (or a loop executor's thread, or a loop scheduler's T
 * threads) is created and warmed up, left to settle, then sits idle for D
 * seconds, while this thread sleeps.  The figures are the CPU time
 * the whole process used in that time and the voluntary context switches its
 * threads made in it, each of which is a wakeup of a thread that then went
 * back to sleep: an idle executor should have neither.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <unistd.h>

#include "bench.h"

/*
 * After its last task, each worker goes to sleep, a voluntary context switch
 * that is not a wakeup; letting the pool settle first keeps those (and any
 * brief spinning before them) out of the idle figures.
 */
#define IDLE_SETTLE_NS		(100 * 1000 * NSEC_PER_USEC)

/**
 * struct idle_snap - voluntary context switches of each thread but this one
 * @tid: thread ids
 * @vcsw: their voluntary_ctxt_switches, in the same order
 * @nr: threads
 * @cap: room in the arrays
 */
struct idle_snap {
	pid_t *tid;
	unsigned long *vcsw;
	unsigned int nr;
	unsigned int cap;
};

/* Returns 0, or -1 if the thread has gone (or its status cannot be read). */
static int idle_read_vcsw(pid_t tid, unsigned long *vcsw)
{
	static const char key[] = "voluntary_ctxt_switches:";
	char path[64], line[256];
	int ret = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		/* "nonvoluntary_ctxt_switches:" does not match: no prefix. */
		if (!strncmp(line, key, sizeof(key) - 1)) {
			*vcsw = strtoul(line + sizeof(key) - 1, NULL, 10);
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

static int idle_snapshot(struct idle_snap *snap, pid_t self)
{
	struct dirent *de;
	unsigned long vcsw;
	char *end;
	DIR *dir;
	long tid;

	snap->nr = 0;
	dir = opendir("/proc/self/task");
	if (!dir) {
		bench_err("/proc/self/task: %s", strerror(errno));
		return -1;
	}
	while ((de = readdir(dir))) {
		tid = strtol(de->d_name, &end, 10);
		if (end == de->d_name || *end || tid == self)
			continue;
		if (idle_read_vcsw((pid_t)tid, &vcsw))
			continue;	/* it exited meanwhile */
		if (snap->nr == snap->cap) {
			unsigned int cap = snap->cap ? 2 * snap->cap : 64;
			pid_t *t = realloc(snap->tid, cap * sizeof(*t));
			unsigned long *v;

			if (t)
				snap->tid = t;
			v = realloc(snap->vcsw, cap * sizeof(*v));
			if (v)
				snap->vcsw = v;
			if (!t || !v) {
				bench_err("out of memory");
				closedir(dir);
				return -1;
			}
			snap->cap = cap;
		}
		snap->tid[snap->nr] = (pid_t)tid;
		snap->vcsw[snap->nr] = vcsw;
		snap->nr++;
	}
	closedir(dir);
	return 0;
}

/*
 * Switches between @a and @b, summed over the threads in @b; a thread new in
 * @b started in between, so all of its switches count.  Threads of @a gone
 * from @b took their counts with them; @lost says how many there were.
 */
static unsigned long idle_delta(const struct idle_snap *a,
				const struct idle_snap *b, unsigned int *lost)
{
	unsigned long sum = 0, base;
	unsigned int i, j, found = 0;

	for (i = 0; i < b->nr; i++) {
		base = 0;
		for (j = 0; j < a->nr; j++) {
			if (a->tid[j] == b->tid[i]) {
				base = a->vcsw[j];
				found++;
				break;
			}
		}
		sum += b->vcsw[i] - base;
	}
	*lost = a->nr - found;
	return sum;
}

static uint64_t idle_cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) *
	       NSEC_PER_SEC +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) *
	       NSEC_PER_USEC;
}

int bench_idle_cost(const struct bench_opts *opts)
{
	struct idle_snap before = { 0 }, after = { 0 };
	uint64_t cpu0, cpu1, t0, t1;
	int ret = BENCH_EXIT_FAIL;
	unsigned long wakeups;
	struct bench_exec be;
	pid_t self = gettid();
	unsigned int lost;

	if (bench_exec_create(&be, opts->kind, opts->threads))
		return BENCH_EXIT_FAIL;
	bench_sleep_until(bench_now_ns() + IDLE_SETTLE_NS);

	/*
	 * How this thread's own sleep is kept out of "wakeups": its thread
	 * id is skipped in both snapshots, so none of its switches count.
	 * In the idle period it runs no executor code at all: it reads the
	 * clocks and rusage and sleeps once in clock_nanosleep(), which is
	 * one voluntary switch (more if a signal restarts the sleep), and its
	 * /proc reads below may block on a lock now and then; none of that is
	 * the executor's.  Skipping the thread is exact where subtracting
	 * "one per sleep" would not be.  Every other thread of the process,
	 * the workers and any thread the library starts, counts in full.
	 *
	 * The snapshots bracket the CPU-time readings, so the /proc reads do
	 * not count as CPU time either; the process CPU time still includes
	 * this thread's few system calls, a few microseconds.
	 */
	if (idle_snapshot(&before, self))
		goto out;
	cpu0 = idle_cpu_ns();
	t0 = bench_now_ns();
	bench_sleep_until(t0 + (uint64_t)(opts->seconds * NSEC_PER_SEC));
	t1 = bench_now_ns();
	cpu1 = idle_cpu_ns();
	if (idle_snapshot(&after, self))
		goto out;

	wakeups = idle_delta(&before, &after, &lost);
	if (lost)
		bench_err("idle_cost: warning: %u threads exited while idle; their switches are not counted",
			  lost);

	if (bench_exec_destroy(&be))
		goto out_free;

	bench_out_begin(opts, be.threads);
	bench_out_double("seconds", "%.6f",
			 (double)(t1 - t0) / NSEC_PER_SEC);
	bench_out_double("cpu_ms", "%.3f", (double)(cpu1 - cpu0) / 1e6);
	bench_out_uint("wakeups", wakeups);
	bench_out_end();
	ret = BENCH_EXIT_OK;
	goto out_free;

out:
	bench_exec_destroy(&be);
out_free:
	free(before.tid);
	free(before.vcsw);
	free(after.tid);
	free(after.vcsw);
	return ret;
}
