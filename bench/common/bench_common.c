// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The JSON output line and the percentiles of both benchmarks
 * (bench_common.h), against the kernel API: the kernel's own in
 * exec_kbench.ko, user/include/exec_platform.h's in exec-bench.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/sort.h>
#include <linux/time64.h>
#else
#include <stdarg.h>
#include <exec_platform.h>
#endif

#include "bench_common.h"

void bench_line_reset(struct bench_line *l)
{
	l->len = 0;
	l->buf[0] = '\0';
	l->overflow = false;
}

void bench_line_add(struct bench_line *l, const char *fmt, ...)
{
	size_t room = sizeof(l->buf) - l->len;
	va_list args;
	int n;

	va_start(args, fmt);
	n = vsnprintf(l->buf + l->len, room, fmt, args);
	va_end(args);
	/* Every key is short: running out of room is a bug of ours. */
	if (n < 0 || (size_t)n >= room) {
		l->overflow = true;
		l->len = sizeof(l->buf) - 1;
		return;
	}
	l->len += n;
}

void bench_line_str(struct bench_line *l, const char *key, const char *val)
{
	bench_line_add(l, ",\"%s\":\"%s\"", key, val);
}

void bench_line_bool(struct bench_line *l, const char *key, bool val)
{
	bench_line_add(l, ",\"%s\":%s", key, val ? "true" : "false");
}

void bench_line_uint(struct bench_line *l, const char *key,
		     unsigned long long val)
{
	bench_line_add(l, ",\"%s\":%llu", key, val);
}

void bench_line_int(struct bench_line *l, const char *key, long long val)
{
	bench_line_add(l, ",\"%s\":%lld", key, val);
}

/* "seconds" of @ns nanoseconds, to the microsecond, rounded down. */
void bench_line_seconds(struct bench_line *l, unsigned long long ns)
{
	u32 rem;
	u64 secs = div_u64_rem(ns, NSEC_PER_SEC, &rem);

	bench_line_add(l, ",\"seconds\":%llu.%06u", (unsigned long long)secs,
		       (u32)(rem / NSEC_PER_USEC));
}

/* @ns nanoseconds as "key":milliseconds, to the microsecond, rounded down. */
void bench_line_ms(struct bench_line *l, const char *key,
		   unsigned long long ns)
{
	u32 rem;
	u64 ms = div_u64_rem(ns, NSEC_PER_MSEC, &rem);

	bench_line_add(l, ",\"%s\":%llu.%03u", key, (unsigned long long)ms,
		       (u32)(rem / NSEC_PER_USEC));
}

/* Ends the line: its closing brace. */
void bench_line_close(struct bench_line *l)
{
	bench_line_add(l, "}");
}

/* sort()'s and qsort()'s comparison of u64 values. */
int bench_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Operations per second of @n operations in @ns nanoseconds. */
u64 bench_rate(u64 n, u64 ns)
{
	return ns ? div64_u64(n * NSEC_PER_SEC, ns) : 0;
}

/* Sorts @n values in ascending order. */
void bench_sort_u64(u64 *v, unsigned long n)
{
#ifdef __KERNEL__
	sort(v, n, sizeof(*v), bench_cmp_u64, NULL);
#else
	qsort(v, n, sizeof(*v), bench_cmp_u64);
#endif
}

/**
 * bench_percentile - the nearest-rank percentile of sorted values
 * @v: the values, in ascending order
 * @n: how many, at least 1
 * @q: the percentile in units of 0.001% (50000: the median)
 *
 * Context: Any context.
 * Return: the value of that rank.
 */
u64 bench_percentile(const u64 *v, unsigned long n, unsigned long q)
{
	u64 rank = div_u64((u64)n * q + 99999, 100000);

	rank = clamp_t(u64, rank, 1, n);
	return v[rank - 1];
}
