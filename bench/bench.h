/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * exec-bench: what the benchmark's source files share.
 *
 * The benchmark uses only the public API (include/exec/), as an application
 * would; it never reaches into core/ or the platform layer.
 */
#ifndef EXEC_BENCH_H
#define EXEC_BENCH_H

#include <pthread.h>
#include <semaphore.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <exec/exec.h>

#include "common/bench_common.h"

/* The "impl" key of every output line. */
#define BENCH_IMPL		"libexec"

/* Exit statuses. */
#define BENCH_EXIT_OK		0
#define BENCH_EXIT_FAIL		1	/* the run failed or did not verify */
#define BENCH_EXIT_USAGE	2	/* bad command line */

/*
 * Data written by different threads is kept 128 bytes apart, not 64: x86's
 * adjacent-line prefetcher fetches cache lines in pairs, so two writers 64
 * bytes apart can still contend.
 */
#define BENCH_CACHELINE		128

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#ifndef __printf
#define __printf(a, b)		__attribute__((__format__(printf, a, b)))
#endif

#define bench_likely(x)		__builtin_expect(!!(x), 1)
#define bench_unlikely(x)	__builtin_expect(!!(x), 0)

#define NSEC_PER_SEC		1000000000ULL
#define NSEC_PER_MSEC		1000000ULL
#define NSEC_PER_USEC		1000ULL

/* The executor kinds the benchmark can put under test. */
enum bench_kind {
	BENCH_THREAD_POOL,
	BENCH_LOOP,		/* a loop executor on a thread of its own */
	BENCH_SERIAL,		/* a serial executor over a thread pool */
	BENCH_MANAGED_QUEUE,	/* a managed queue of a thread manager */
	BENCH_LOOP_SCHEDULER,	/* a loop scheduler run by T threads */
	/* References, not libexec's executors; first raw ones (bench-raw.c): */
	BENCH_RAW_FUTEX,	/* wakeup_latency: a thread in FUTEX_WAIT */
	BENCH_RAW_URING_TIMEOUT, /* timer_lateness: one re-armed timeout */
	/* then reference pools of T threads (bench-refpool.c): */
	BENCH_REF_CONDVAR_POOL,	/* a mutex+condvar pool (also bench_exec's) */
	BENCH_REF_CONDVAR_SPARE, /* and a spare thread per blocking call */
};

/* The kinds that are references rather than libexec's executors. */
static inline bool bench_kind_is_ref(enum bench_kind kind)
{
	return kind >= BENCH_RAW_FUTEX;
}

/* The references that are raw primitives, one thread and no executor. */
static inline bool bench_kind_is_raw(enum bench_kind kind)
{
	return kind == BENCH_RAW_FUTEX || kind == BENCH_RAW_URING_TIMEOUT;
}

/* How tasks are handed to the executor (--submit). */
enum bench_submit {
	BENCH_SUBMIT_SUBMIT,	/* exec_submit(), N3785 add (the default) */
	BENCH_SUBMIT_POST,	/* exec_post(): never in the caller */
	BENCH_SUBMIT_DISPATCH,	/* exec_dispatch(): inline where allowed */
	BENCH_SUBMIT_DEFER,	/* exec_defer(): a continuation, kept local */
};

int bench_submit_work(enum bench_submit how, struct exec_executor *ex,
		      struct exec_work *work);
int bench_submit_fn(enum bench_submit how, struct exec_executor *ex,
		    exec_fn fn, void *arg);

/**
 * struct bench_opts - the parsed command line, defaults filled in
 * @workload: the workload's name
 * @kind: the executor under test
 * @threads: worker threads (T); 1 for a loop executor
 * @producers: producer threads (P)
 * @tasks: tasks, hops or timers (N, M)
 * @strands: serial executors (S)
 * @samples: samples or timers (K)
 * @seconds: idle time (D)
 * @blocking: blocking tasks (B)
 * @submit: submission operation
 * @closures: submit closures (exec_submit_fn()) instead of intrusive items
 * @hints: blocking_mix's blocking items call exec_blocking_begin()/end()
 * @load: spinning threads of the loaded variant (--load); 0 without
 */
struct bench_opts {
	const char *workload;
	enum bench_kind kind;
	unsigned int threads;
	unsigned int producers;
	unsigned long tasks;
	unsigned int strands;
	unsigned long samples;
	double seconds;
	unsigned long blocking;
	enum bench_submit submit;
	bool closures;
	bool hints;
	unsigned int load;
};

/**
 * struct bench_exec - an executor under test and what it is built from
 * @kind: its kind
 * @threads: the threads that run its items
 * @ex: the executor the workload submits to
 * @pool: the thread pool (thread_pool, serial)
 * @serial: the serial executor (serial)
 * @loop: the loop executor (loop)
 * @loop_thread: the thread donated to @loop
 * @loop_ret: what exec_loop_run() returned on @loop_thread
 * @ls: the loop scheduler (loop_scheduler), with one unit of outstanding
 *	work counted so that it does not stop when out of items
 * @ls_threads: the @threads threads in exec_loop_scheduler_run() on @ls
 * @ref: the reference pool (condvar_pool), which has no @ex: submit to it
 *	with bench_ref_pool_submit()
 */
struct bench_exec {
	enum bench_kind kind;
	unsigned int threads;
	struct exec_executor *ex;
	struct exec_thread_pool *pool;
	struct exec_serial *serial;
	struct exec_thread_manager *manager;
	struct exec_managed_queue *queue;
	struct exec_loop *loop;
	pthread_t loop_thread;
	int loop_ret;
	struct exec_loop_scheduler *ls;
	pthread_t *ls_threads;
	struct bench_ref_pool *ref;
};

/* exec-bench.c */
/* --max-threads: bench_exec_create()'s pools grow up to it; 0: fixed */
extern unsigned int bench_max_threads;
const char *bench_kind_name(enum bench_kind kind);
uint64_t bench_now_ns(void);
void bench_sleep_until(uint64_t deadline_ns);
void bench_err(const char *fmt, ...) __printf(1, 2);
int bench_exec_create(struct bench_exec *be, enum bench_kind kind,
		      unsigned int threads);
int bench_warm(struct exec_executor *ex, unsigned int nr);
int bench_exec_destroy(struct bench_exec *be);
int bench_wait(sem_t *sem);
long long bench_rss_kb(void);
void bench_touch(void *p, size_t len);

/*
 * The output line: bench_out_begin() writes the keys every workload has,
 * the bench_out_*() calls add one key each, bench_out_end() prints the line.
 */
void bench_out_begin(const struct bench_opts *opts, unsigned int threads);
void bench_out_str(const char *key, const char *val);
void bench_out_bool(const char *key, bool val);
void bench_out_uint(const char *key, unsigned long long val);
void bench_out_int(const char *key, long long val);
void bench_out_double(const char *key, const char *fmt, double val);
void bench_out_end(void);
struct bench_line *bench_out_line(void);
int bench_samples_write(const struct bench_opts *opts, unsigned int threads,
			const uint64_t *v, unsigned long n);

/* bench-load.c: the loaded variant. */
int bench_load_start(unsigned int nr);
void bench_load_stop(void);

/* bench-raw.c: the raw references. */
struct bench_raw_futex;
int bench_raw_futex_start(struct bench_raw_futex **rfp);
int bench_raw_futex_submit(struct bench_raw_futex *rf,
			   struct exec_work *work);
void bench_raw_futex_stop(struct bench_raw_futex *rf);
struct bench_raw_timers;
int bench_raw_timers_start(struct bench_raw_timers **rtp, unsigned long max);
int bench_raw_timers_add(struct bench_raw_timers *rt, struct exec_work *work,
			 uint64_t deadline);
void bench_raw_timers_go(struct bench_raw_timers *rt);
void bench_raw_timers_stop(struct bench_raw_timers *rt);

/* bench-refpool.c: the reference pools. */
struct bench_ref_pool;
int bench_ref_pool_start(struct bench_ref_pool **pp, unsigned int threads,
			 bool spare);
void bench_ref_pool_submit(struct bench_ref_pool *p, struct exec_work *work);
int bench_ref_pool_warm(struct bench_ref_pool *p, unsigned int nr);
void bench_ref_pool_blocking_begin(void);
void bench_ref_pool_blocking_end(void);
unsigned int bench_ref_pool_started(struct bench_ref_pool *p);
int bench_ref_pool_stop(struct bench_ref_pool *p);

/* One workload: returns a BENCH_EXIT_* status. */
int bench_post_throughput(const struct bench_opts *opts);
int bench_serial_throughput(const struct bench_opts *opts);
int bench_strand_churn(const struct bench_opts *opts);
int bench_chain_latency(const struct bench_opts *opts);
int bench_wakeup_latency(const struct bench_opts *opts);
int bench_timer_lateness(const struct bench_opts *opts);
int bench_timer_churn(const struct bench_opts *opts);
int bench_idle_cost(const struct bench_opts *opts);
int bench_blocking_mix(const struct bench_opts *opts);

#endif /* EXEC_BENCH_H */
