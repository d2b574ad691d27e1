// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The userspace side of the thread attribute tests' helpers (exec_test.h):
 * what the calling thread is, read the way a user would see it, through
 * /proc, getpriority() and sched_getaffinity().
 */
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "exec_test.h"

/* The name in @path (a comm file), without its newline: 0 or -errno. */
static int read_comm(const char *path, char *comm, size_t size)
{
	char buf[64];
	FILE *f = fopen(path, "re");
	size_t len;

	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	len = min(strcspn(buf, "\n"), size - 1);
	memcpy(comm, buf, len);
	comm[len] = '\0';
	return 0;
}

int exec_test_thread_self(struct exec_test_thread_self *ts)
{
	pid_t tid = gettid();
	pthread_attr_t attr;
	char path[64];
	cpu_set_t set;
	unsigned int cpu;
	int ret;

	memset(ts, 0, sizeof(*ts));
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", (int)tid);
	ret = read_comm(path, ts->comm, sizeof(ts->comm));
	if (ret)
		return ret;
	errno = 0;
	ts->nice = getpriority(PRIO_PROCESS, (id_t)tid);
	if (errno)
		return -errno;
	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	for (cpu = 0; cpu < EXEC_TEST_CPU_BITS && cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			ts->cpus[cpu / BITS_PER_LONG] |=
				1UL << (cpu % BITS_PER_LONG);
	ret = pthread_getattr_np(pthread_self(), &attr);
	if (ret)
		return -ret;
	ret = pthread_attr_getstacksize(&attr, &ts->stack_size);
	pthread_attr_destroy(&attr);
	return -ret;
}

unsigned int exec_test_count_threads(const char *prefix)
{
	DIR *dir = opendir("/proc/self/task");
	size_t len = strlen(prefix);
	unsigned int n = 0;
	struct dirent *de;
	char path[300], comm[16];

	if (!dir)
		return 0;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm",
			 de->d_name);
		if (!read_comm(path, comm, sizeof(comm)) &&
		    !strncmp(comm, prefix, len))
			n++;
	}
	closedir(dir);
	return n;
}

bool exec_test_stack_size_settable(void)
{
	return true;
}

/* A process has no part in a system freezer thread by thread. */
bool exec_test_has_freezer(void)
{
	return false;
}
