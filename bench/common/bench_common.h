/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What the userspace benchmark (exec-bench, bench/) and the kernel one
 * (exec_kbench.ko, bench/kernel/) share, written once: the JSON output line
 * and the random generator of the timer workloads' deadlines, the
 * percentiles of the latency workloads.  bench_common.c builds in both: in
 * exec-bench against user/include/exec_platform.h, the kernel API the core
 * is written against, and in the module against the kernel's own.
 */
#ifndef EXEC_BENCH_COMMON_H
#define EXEC_BENCH_COMMON_H

#ifdef __KERNEL__
#include <linux/compiler.h>
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
/* As user/include/exec_platform.h has them (C11 allows the repetition). */
typedef uint64_t u64;
#ifndef __printf
#define __printf(a, b)	__attribute__((__format__(__printf__, a, b)))
#endif
#endif

/* The longest output line; the kernel's is on the stack. */
#ifdef __KERNEL__
#define BENCH_LINE_SIZE		384
#else
#define BENCH_LINE_SIZE		1024
#endif

/**
 * struct bench_line - one JSON output line being built
 * @buf: the text so far, NUL-terminated
 * @len: its length
 * @overflow: a key did not fit (and was cut short)
 *
 * bench_line_add() and the typed calls append to it; each world starts it
 * with the keys every one of its lines has (bench_out_begin() in exec-bench,
 * kb_line_begin() in the module) and prints it its own way, the userspace
 * on stdout, the kernel in its log.
 */
struct bench_line {
	char buf[BENCH_LINE_SIZE];
	size_t len;
	bool overflow;
};

void bench_line_reset(struct bench_line *l);
void bench_line_add(struct bench_line *l, const char *fmt, ...) __printf(2, 3);
void bench_line_str(struct bench_line *l, const char *key, const char *val);
void bench_line_bool(struct bench_line *l, const char *key, bool val);
void bench_line_uint(struct bench_line *l, const char *key,
		     unsigned long long val);
void bench_line_int(struct bench_line *l, const char *key, long long val);
void bench_line_seconds(struct bench_line *l, unsigned long long ns);
void bench_line_ms(struct bench_line *l, const char *key,
		   unsigned long long ns);
void bench_line_close(struct bench_line *l);

int bench_cmp_u64(const void *a, const void *b);
void bench_sort_u64(u64 *v, unsigned long n);
u64 bench_rate(u64 n, u64 ns);

/*
 * Defined by each world: says why a run of @bench does not verify (on
 * stderr in exec-bench; in the kernel log, as a failed run of the current
 * impl, in exec_kbench.ko).
 */
void bench_fail(const char *bench, const char *fmt, ...) __printf(2, 3);
u64 bench_percentile(const u64 *v, unsigned long n, unsigned long q);

/*
 * The timer workloads' deadlines: a generator with a fixed seed, so that
 * every run, in either world, arms the same pattern.
 */
#define BENCH_TIMER_SEED	0x6578656362656e63ULL	/* "execbenc" */

/**
 * bench_rand - the next number of a splitmix64 generator
 * @state: the generator's state, BENCH_TIMER_SEED to start
 *
 * Small and fast; the same sequence in both worlds.
 *
 * Context: Any context.
 * Return: 64 random bits.
 */
static inline u64 bench_rand(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/**
 * bench_rand_below - a random number in [0, @range)
 * @state: the generator's state
 * @range: at most 2^32
 *
 * The top 32 random bits scaled by a multiplication (Lemire), which needs
 * no division and has no bias worth the name at the ranges used here.
 *
 * Context: Any context.
 * Return: the number.
 */
static inline u64 bench_rand_below(u64 *state, u64 range)
{
	return ((bench_rand(state) >> 32) * range) >> 32;
}

#endif /* EXEC_BENCH_COMMON_H */
