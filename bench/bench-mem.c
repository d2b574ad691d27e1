// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The benchmarks' look at their own memory, shared by exec-bench,
 * exec-objcost and the peers (peer-asio links it too): the resident set
 * now, and a way to make an array resident before it is read.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

/* The process's resident memory now, in KiB; -1 if it cannot be read. */
long long bench_rss_kb(void)
{
	unsigned long long size, resident;
	long page = sysconf(_SC_PAGESIZE);
	FILE *f;
	int n;

	f = fopen("/proc/self/statm", "re");
	if (!f) {
		bench_err("/proc/self/statm: %s", strerror(errno));
		return -1;
	}
	n = fscanf(f, "%llu %llu", &size, &resident);
	fclose(f);
	if (n != 2 || page <= 0) {
		bench_err("/proc/self/statm: cannot read the resident set");
		return -1;
	}
	return (long long)(resident * (unsigned long long)page / 1024);
}

/* Writes a byte of each page of [@p, @p + @len), so that they are resident. */
void bench_touch(void *p, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	char *c = p;
	size_t off;

	/* Relaxed atomics: a plain store of the byte read could be elided. */
	for (off = 0; off < len; off += page > 0 ? (size_t)page : 4096)
		__atomic_store_n(&c[off],
				 __atomic_load_n(&c[off], __ATOMIC_RELAXED),
				 __ATOMIC_RELAXED);
}
