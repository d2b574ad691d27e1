// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * exec-bench: the userspace benchmark of libexec's executors.
 *
 * It follows the rules of Documentation/benchmarks.rst: one
 * workload per run, named on the command line, one JSON object per run on
 * stdout, exit status 0 only when the run verified its own result, and
 * anything else (errors, progress) on stderr.  The same workloads run against
 * other executor libraries, so the figures are read as ratios to theirs and
 * the measured regions must match that document's wording exactly.
 *
 * This file holds the command line, the output line and the executors under
 * test; the workloads are in bench-throughput.c, bench-churn.c, bench-latency.c,
 * bench-timer.c, bench-idle.c and bench-blocking.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <exec/user.h>

#include "bench.h"

#define BENCH_KIND_BIT(kind)	(1U << (kind))

/**
 * struct bench_workload - one workload of the contract
 * @name: its name on the command line and in the "bench" key
 * @run: runs it
 * @default_tasks: default of --tasks; 0 if it takes no task count
 * @default_samples: default of --samples; 0 if it takes no sample count
 * @default_strands: default of --strands; 0: BENCH_DEF_STRANDS
 * @blocking: takes --blocking (blocking tasks, B = 4T by default)
 * @kinds: BENCH_KIND_BIT()s of the executor kinds it can measure
 * @default_kind: the kind measured without --executor
 * @closures: whether --closures applies
 */
struct bench_workload {
	const char *name;
	int (*run)(const struct bench_opts *opts);
	unsigned long default_tasks;
	unsigned long default_samples;
	unsigned int default_strands;
	bool blocking;
	unsigned int kinds;
	enum bench_kind default_kind;
	bool closures;
};

/* In the contract's order. */
static const struct bench_workload bench_workloads[] = {
	{
		.name = "post_throughput",
		.run = bench_post_throughput,
		.default_tasks = 2000000,
		.kinds = BENCH_KIND_BIT(BENCH_THREAD_POOL) |
			 BENCH_KIND_BIT(BENCH_REF_CONDVAR_POOL),
		.default_kind = BENCH_THREAD_POOL,
		.closures = true,
	}, {
		.name = "chain_latency",
		.run = bench_chain_latency,
		.default_tasks = 1000000,
		.kinds = BENCH_KIND_BIT(BENCH_THREAD_POOL) |
			 BENCH_KIND_BIT(BENCH_LOOP) |
			 BENCH_KIND_BIT(BENCH_LOOP_SCHEDULER) |
			 BENCH_KIND_BIT(BENCH_SERIAL) |
			 BENCH_KIND_BIT(BENCH_REF_CONDVAR_POOL),
		.default_kind = BENCH_THREAD_POOL,
		.closures = true,
	}, {
		.name = "wakeup_latency",
		.run = bench_wakeup_latency,
		.default_samples = 20000,
		.kinds = BENCH_KIND_BIT(BENCH_THREAD_POOL) |
			 BENCH_KIND_BIT(BENCH_LOOP) |
			 BENCH_KIND_BIT(BENCH_LOOP_SCHEDULER) |
			 BENCH_KIND_BIT(BENCH_SERIAL) |
			 BENCH_KIND_BIT(BENCH_RAW_FUTEX) |
			 BENCH_KIND_BIT(BENCH_REF_CONDVAR_POOL),
		.default_kind = BENCH_THREAD_POOL,
	}, {
		.name = "timer_lateness",
		.run = bench_timer_lateness,
		.default_samples = 10000,
		.kinds = BENCH_KIND_BIT(BENCH_THREAD_POOL) |
			 BENCH_KIND_BIT(BENCH_LOOP) |
			 BENCH_KIND_BIT(BENCH_SERIAL) |
			 BENCH_KIND_BIT(BENCH_RAW_URING_TIMEOUT),
		.default_kind = BENCH_THREAD_POOL,
	}, {
		.name = "timer_churn",
		.run = bench_timer_churn,
		.default_tasks = 1000000,
		.kinds = BENCH_KIND_BIT(BENCH_THREAD_POOL) |
			 BENCH_KIND_BIT(BENCH_LOOP) |
			 BENCH_KIND_BIT(BENCH_SERIAL),
		.default_kind = BENCH_THREAD_POOL,
	}, {
		/*
		 * What is under test here is always S serial executors over
		 * one thread pool.  "thread_pool", the contract's default
		 * name, is accepted for the pool they share, so a harness
		 * that passes --executor thread_pool to every workload still
		 * runs; the output line says "serial" either way.
		 */
		.name = "serial_throughput",
		.run = bench_serial_throughput,
		.default_tasks = 2000000,
		.kinds = BENCH_KIND_BIT(BENCH_SERIAL) |
			 BENCH_KIND_BIT(BENCH_THREAD_POOL),
		.default_kind = BENCH_SERIAL,
	}, {
		/* Strands over one pool, whatever the pool's name. */
		.name = "strand_churn",
		.run = bench_strand_churn,
		.default_strands = 100000,
		.kinds = BENCH_KIND_BIT(BENCH_SERIAL) |
			 BENCH_KIND_BIT(BENCH_THREAD_POOL),
		.default_kind = BENCH_SERIAL,
	}, {
		.name = "idle_cost",
		.run = bench_idle_cost,
		.kinds = BENCH_KIND_BIT(BENCH_THREAD_POOL) |
			 BENCH_KIND_BIT(BENCH_LOOP) |
			 BENCH_KIND_BIT(BENCH_LOOP_SCHEDULER),
		.default_kind = BENCH_THREAD_POOL,
	}, {
		.name = "blocking_mix",
		.run = bench_blocking_mix,
		.default_tasks = 10000,
		.blocking = true,
		.kinds = BENCH_KIND_BIT(BENCH_THREAD_POOL) |
			 BENCH_KIND_BIT(BENCH_MANAGED_QUEUE) |
			 BENCH_KIND_BIT(BENCH_REF_CONDVAR_POOL) |
			 BENCH_KIND_BIT(BENCH_REF_CONDVAR_SPARE),
		.default_kind = BENCH_THREAD_POOL,
	},
};

#define BENCH_NR_WORKLOADS	ARRAY_SIZE(bench_workloads)

static const char * const bench_kind_names[] = {
	[BENCH_THREAD_POOL] = "thread_pool",
	[BENCH_LOOP] = "loop",
	[BENCH_SERIAL] = "serial",
	[BENCH_MANAGED_QUEUE] = "managed_queue",
	[BENCH_LOOP_SCHEDULER] = "loop_scheduler",
	[BENCH_RAW_FUTEX] = "raw_futex",
	[BENCH_RAW_URING_TIMEOUT] = "raw_uring_timeout",
	[BENCH_REF_CONDVAR_POOL] = "condvar_pool",
	[BENCH_REF_CONDVAR_SPARE] = "condvar_spare",
};

#define BENCH_NR_KINDS		ARRAY_SIZE(bench_kind_names)

/* Defaults of the contract. */
#define BENCH_DEF_BLOCKING_PER_THREAD	4	/* blocking_mix: B = 4T */
#define BENCH_DEF_PRODUCERS	1
#define BENCH_DEF_STRANDS	64
#define BENCH_DEF_SECONDS	5.0

/* Sanity bounds, so that a typo does not ask for terabytes. */
#define BENCH_MAX_PRODUCERS	1024UL
#define BENCH_MAX_TASKS		1000000000UL
#define BENCH_MAX_BLOCKING	100000UL
#define BENCH_MAX_STRANDS	1000000UL
#define BENCH_MAX_SAMPLES	100000000UL
#define BENCH_MAX_SECONDS	86400.0

static void bench_usage(FILE *f)
{
	fputs("usage: exec-bench WORKLOAD [--executor KIND] [--threads T] [--producers P]\n"
	      "                  [--tasks N] [--strands S] [--samples K] [--seconds D]\n"
	      "                  [--submit OP] [--closures] [--blocking B] [--hints]\n"
	      "                  [--timing] [--max-threads M] [--load [L]]\n"
	      "       exec-bench list\n"
	      "\n"
	      "Runs one workload of Documentation/benchmarks.rst and prints one\n"
	      "JSON line on stdout; exit status 0 only if the run verified.\n"
	      "\n"
	      "  --executor KIND  thread_pool (default); chain_latency,\n"
	      "                   wakeup_latency, timer_lateness and timer_churn also\n"
	      "                   take loop (a loop executor run by a dedicated\n"
	      "                   thread) and serial (a serial executor over a pool\n"
	      "                   of T threads); chain_latency, wakeup_latency\n"
	      "                   and idle_cost also take loop_scheduler (a loop\n"
	      "                   scheduler run by T threads, each in\n"
	      "                   exec_loop_scheduler_run()), and idle_cost\n"
	      "                   loop; blocking_mix also takes\n"
	      "                   managed_queue (a managed queue of a thread\n"
	      "                   manager whose pool starts T workers and grows\n"
	      "                   under the default policy)\n"
	      "                   Raw references, the limits read against:\n"
	      "                   wakeup_latency takes raw_futex (one thread in\n"
	      "                   FUTEX_WAIT, woken by the submitter) and\n"
	      "                   timer_lateness raw_uring_timeout (one thread\n"
	      "                   re-arming one absolute IORING_OP_TIMEOUT for\n"
	      "                   the earliest deadline of a sorted array, running\n"
	      "                   the items inline); their lines say\n"
	      "                   \"impl\":\"raw\"\n"
	      "                   Reference pools of T threads: condvar_pool\n"
	      "                   (one mutex, one condition variable, one FIFO;\n"
	      "                   post_throughput, chain_latency, wakeup_latency\n"
	      "                   and blocking_mix, without --submit or\n"
	      "                   --closures) and, blocking_mix only,\n"
	      "                   condvar_spare (the same, plus a thread started\n"
	      "                   per blocking task); their lines say\n"
	      "                   \"impl\":\"condvar_pool\"\n"
	      "  --threads T      worker threads (default: online CPUs)\n"
	      "  --producers P    post_throughput's producer threads (default 1)\n"
	      "  --tasks N        tasks (post_throughput, serial_throughput: 2000000;\n"
	      "                   blocking_mix's CPU tasks: 10000), hops\n"
	      "                   (chain_latency: 1000000) or timers\n"
	      "                   (timer_churn: 1000000)\n"
	      "  --strands S      serial executors (serial_throughput: 64,\n"
	      "                   strand_churn: 100000)\n"
	      "  --samples K      samples (wakeup_latency: 20000) or timers\n"
	      "                   (timer_lateness: 10000)\n"
	      "  --seconds D      idle_cost's idle time in seconds (default 5)\n"
	      "\n"
	      "Extensions to the contract:\n"
	      "  --submit OP      post_throughput, chain_latency: how tasks are\n"
	      "                   submitted: submit (exec_submit(), the default),\n"
	      "                   post, dispatch or defer (P0113); adds \"submit\"\n"
	      "                   to the output line\n"
	      "  --closures       post_throughput, chain_latency: submit closures with\n"
	      "                   exec_submit_fn() instead of intrusive items; adds\n"
	      "                   \"closures\":true to the output line\n"
	      "  --blocking B     blocking_mix's blocking tasks (default 4T)\n"
	      "  --timing         turn on the executors' timing of items for their\n"
	      "                   statistics (exec_stats_set_timing()), to measure\n"
	      "                   what it costs; adds \"timing\":true\n"
	      "  --max-threads M  thread_pool, serial: the pool grows up to M\n"
	      "                   workers while its workers block (the\n"
	      "                   attribute max_threads; the built-in\n"
	      "                   default executor's is\n"
	      "                   EXEC_DEFAULT_MAX_THREADS); adds\n"
	      "                   \"max_threads\" to the output line\n"
	      "  --load [L]       the loaded variant, any workload and executor:\n"
	      "                   before the run a separate process of L\n"
	      "                   threads (default: online CPUs) spins on plain\n"
	      "                   arithmetic at nice 0 until the run ends; adds\n"
	      "                   \"load\":L\n"
	      "  --hints          blocking_mix: the blocking items also tell\n"
	      "                   libexec (exec_blocking_begin()/end()), as they\n"
	      "                   tell condvar_spare; adds \"hints\":true\n"
	      "  output keys      \"backend\" (how idle workers sleep: io_uring or\n"
	      "                   futex, see EXEC_BACKEND) on every line;\n"
	      "                   \"strands\" and \"samples\" where they apply;\n"
	      "                   timer_churn's \"item_bytes\" (the size of one\n"
	      "                   timer's item, the part of \"rss_kb\" that is the\n"
	      "                   caller's); blocking_mix's \"blocking\" (B),\n"
	      "                   \"threads_before\" (the threads just before\n"
	      "                   the first submission, counted as\n"
	      "                   \"threads_max\" is) and, for condvar_spare,\n"
	      "                   \"spare_threads\" (spare threads started)\n"
	      "  EXEC_BENCH_SAMPLES=FILE\n"
	      "                   wakeup_latency, timer_lateness: append every\n"
	      "                   sample of a verified run to FILE, one JSON\n"
	      "                   line per run (\"samples_ns\", in the order\n"
	      "                   taken); stdout is unchanged\n"
	      "\n"
	      "Exit status: 0 verified, 1 failed or did not verify, 2 bad usage.\n",
	      f);
}

void bench_err(const char *fmt, ...)
{
	va_list ap;

	fputs("exec-bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* bench/common/'s workloads: why a run of @bench does not verify. */
void bench_fail(const char *bench, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "exec-bench: %s: ", bench);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

const char *bench_kind_name(enum bench_kind kind)
{
	return bench_kind_names[kind];
}

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/*
 * Sleeps until CLOCK_MONOTONIC reads @deadline_ns; an absolute deadline does
 * not drift however late each wakeup is.
 */
void bench_sleep_until(uint64_t deadline_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(deadline_ns / NSEC_PER_SEC),
		.tv_nsec = (long)(deadline_ns % NSEC_PER_SEC),
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

int bench_wait(sem_t *sem)
{
	while (sem_wait(sem)) {
		if (errno != EINTR) {
			bench_err("sem_wait: %s", strerror(errno));
			return -1;
		}
	}
	return 0;
}

/*
 * The output line, bench_common.c's.  It is built in a buffer and written
 * with one call, so that it is one line on stdout even if something else
 * ever writes there.
 */
unsigned int bench_max_threads;

static struct bench_line bench_line;

static const char *const bench_submit_names[] = {
	[BENCH_SUBMIT_SUBMIT] = "submit",
	[BENCH_SUBMIT_POST] = "post",
	[BENCH_SUBMIT_DISPATCH] = "dispatch",
	[BENCH_SUBMIT_DEFER] = "defer",
};

/* The line being written is a reference's, not libexec's. */
static bool bench_out_ref;

/* The "impl" key of a line for @kind. */
static const char *bench_kind_impl(enum bench_kind kind)
{
	if (bench_kind_is_raw(kind))
		return "raw";
	if (bench_kind_is_ref(kind))
		return "condvar_pool";
	return BENCH_IMPL;
}

/* The keys every line starts with, the samples file's lines too. */
#define BENCH_HEAD_FMT \
	"{\"bench\":\"%s\",\"impl\":\"%s\",\"executor\":\"%s\",\"threads\":%u"

void bench_out_begin(const struct bench_opts *opts, unsigned int threads)
{
	bench_line_reset(&bench_line);
	bench_out_ref = bench_kind_is_ref(opts->kind);
	bench_line_add(&bench_line, BENCH_HEAD_FMT, opts->workload,
		       bench_kind_impl(opts->kind), bench_kind_name(opts->kind),
		       threads);
	if (opts->submit != BENCH_SUBMIT_SUBMIT)
		bench_out_str("submit", bench_submit_names[opts->submit]);
	if (bench_max_threads)
		bench_out_uint("max_threads", bench_max_threads);
	/* The loaded variant (--load), references included. */
	if (opts->load)
		bench_out_uint("load", opts->load);
}

/* The line begun, for bench/common/'s workloads to add their figures. */
struct bench_line *bench_out_line(void)
{
	return &bench_line;
}

void bench_out_str(const char *key, const char *val)
{
	bench_line_str(&bench_line, key, val);
}

void bench_out_bool(const char *key, bool val)
{
	bench_line_bool(&bench_line, key, val);
}

void bench_out_uint(const char *key, unsigned long long val)
{
	bench_line_uint(&bench_line, key, val);
}

void bench_out_int(const char *key, long long val)
{
	bench_line_int(&bench_line, key, val);
}

void bench_out_double(const char *key, const char *fmt, double val)
{
	bench_line_add(&bench_line, ",\"%s\":", key);
	bench_line_add(&bench_line, fmt, val);
}

void bench_out_end(void)
{
	/*
	 * Extension: how idle workers sleep and are woken differs between
	 * kernels, and the latency figures with it.  A reference has none.
	 */
	if (!bench_out_ref)
		bench_out_str("backend", exec_user_wakeup_backend());
	/* Extension: --timing. */
	if (!bench_out_ref && exec_stats_timing())
		bench_out_bool("timing", true);
	bench_line_close(&bench_line);
	/* Every key is short: running out of room is a bug of ours. */
	if (bench_line.overflow)
		abort();
	puts(bench_line.buf);
	fflush(stdout);
}

/*
 * Extension: the samples file.  With EXEC_BENCH_SAMPLES naming a file, the
 * workloads that take samples (wakeup_latency, timer_lateness) append every
 * sample of a verified run to it, as one JSON line: the output line's first
 * keys, "backend" for libexec, "samples" and "samples_ns", the samples in
 * nanoseconds in the order they were taken (wakeup_latency) or the timers
 * armed (timer_lateness).  The file is opened before the run, so that a bad
 * path costs no run, and the line is written with one write() to a file
 * opened with O_APPEND, so that runs can share a file.  Stdout is untouched.
 */
#define BENCH_SAMPLES_ENV	"EXEC_BENCH_SAMPLES"

static int bench_samples_fd = -1;

static int bench_samples_open(void)
{
	const char *path = getenv(BENCH_SAMPLES_ENV);

	if (!path || !*path)
		return 0;
	bench_samples_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
				0644);
	if (bench_samples_fd < 0) {
		bench_err("%s=%s: %s", BENCH_SAMPLES_ENV, path,
			  strerror(errno));
		return -1;
	}
	return 0;
}

/**
 * bench_samples_write - append a run's samples to the samples file
 * @opts: the run's options
 * @threads: its threads, as on the output line
 * @v: the samples, in nanoseconds
 * @n: how many
 *
 * Does nothing without EXEC_BENCH_SAMPLES.
 *
 * Return: 0, or -1 with a message on stderr.
 */
int bench_samples_write(const struct bench_opts *opts, unsigned int threads,
			const uint64_t *v, unsigned long n)
{
	char *buf = NULL;
	size_t len = 0, off;
	unsigned long i;
	ssize_t w;
	FILE *f;
	int ret = 0;

	if (bench_samples_fd < 0)
		return 0;
	f = open_memstream(&buf, &len);
	if (!f) {
		bench_err("samples: open_memstream: %s", strerror(errno));
		return -1;
	}
	fprintf(f, BENCH_HEAD_FMT, opts->workload, bench_kind_impl(opts->kind),
		bench_kind_name(opts->kind), threads);
	if (opts->load)
		fprintf(f, ",\"load\":%u", opts->load);
	if (!bench_kind_is_ref(opts->kind))
		fprintf(f, ",\"backend\":\"%s\"", exec_user_wakeup_backend());
	fprintf(f, ",\"samples\":%lu,\"samples_ns\":[", n);
	for (i = 0; i < n; i++)
		fprintf(f, i ? ",%llu" : "%llu", (unsigned long long)v[i]);
	fputs("]}\n", f);
	if (fclose(f)) {
		bench_err("samples: out of memory");
		free(buf);
		return -1;
	}
	/* One write() in the usual case; a short one is continued. */
	for (off = 0; off < len; off += (size_t)w) {
		w = write(bench_samples_fd, buf + off, len - off);
		if (w < 0 && errno == EINTR) {
			w = 0;
			continue;
		}
		if (w <= 0) {
			bench_err("samples: write: %s",
				  w < 0 ? strerror(errno) : "nothing written");
			ret = -1;
			break;
		}
	}
	free(buf);
	return ret;
}

/*
 * Warm-up items: they make every thread of the executor exist and run an
 * item before the measured region, so that no workload times thread start-up
 * or first-touch page faults.  The semaphore is static so that a late
 * sem_post() never touches a dead stack frame.
 */
static sem_t bench_warm_done;

static void bench_warm_fn(struct exec_work *work)
{
	sem_post(&bench_warm_done);
}

int bench_warm(struct exec_executor *ex, unsigned int nr)
{
	unsigned int i, submitted = 0;
	struct exec_work *items;
	int err, ret = 0;

	items = calloc(nr, sizeof(*items));
	if (!items) {
		bench_err("out of memory");
		return -1;
	}
	for (i = 0; i < nr; i++) {
		exec_work_init(&items[i], bench_warm_fn);
		err = exec_submit(ex, &items[i]);
		if (err) {
			bench_err("warm-up: exec_submit: %s", strerror(-err));
			ret = -1;
			break;
		}
		submitted++;
	}
	for (i = 0; i < submitted; i++)
		if (bench_wait(&bench_warm_done))
			ret = -1;
	/* Every item's function has been called: the executor is done. */
	free(items);
	return ret;
}

static void *bench_loop_main(void *arg)
{
	struct bench_exec *be = arg;

	be->loop_ret = exec_loop_run(be->loop);
	return NULL;
}

static void *bench_ls_main(void *arg)
{
	struct bench_exec *be = arg;
	long n = exec_loop_scheduler_run(be->ls);

	if (n < 0)
		bench_err("exec_loop_scheduler_run: %s", strerror((int)-n));
	return NULL;
}

/*
 * A loop scheduler run by @threads threads, kept from stopping by one unit
 * of outstanding work until bench_exec_destroy() stops it.
 */
static int bench_ls_create(struct bench_exec *be, unsigned int threads)
{
	unsigned int i;
	int err;

	err = exec_loop_scheduler_create(&be->ls);
	if (err) {
		bench_err("exec_loop_scheduler_create: %s", strerror(-err));
		return -1;
	}
	be->ex = exec_loop_scheduler_executor(be->ls);
	exec_on_work_started(be->ex);
	be->ls_threads = calloc(threads, sizeof(*be->ls_threads));
	if (!be->ls_threads) {
		bench_err("out of memory");
		return -1;
	}
	for (i = 0; i < threads; i++) {
		err = pthread_create(&be->ls_threads[i], NULL, bench_ls_main,
				     be);
		if (err) {
			bench_err("pthread_create: %s", strerror(err));
			be->threads = i;
			return -1;
		}
	}
	return 0;
}

static int bench_ls_destroy(struct bench_exec *be)
{
	unsigned int i;
	long n;

	/* Out of work once the unit goes: the scheduler stops itself. */
	exec_on_work_finished(be->ex);
	for (i = 0; be->ls_threads && i < be->threads; i++)
		pthread_join(be->ls_threads[i], NULL);
	free(be->ls_threads);
	be->ls_threads = NULL;
	n = exec_loop_scheduler_destroy(be->ls);
	be->ls = NULL;
	if (n) {
		bench_err("exec_loop_scheduler_destroy: %ld", n);
		return -1;
	}
	return 0;
}

int bench_exec_create(struct bench_exec *be, enum bench_kind kind,
		      unsigned int threads)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = threads,
		.thread.name = "bench-pool",
		.max_threads = bench_max_threads,
	};
	int err;

	memset(be, 0, sizeof(*be));
	be->kind = kind;
	be->threads = threads;

	if (kind == BENCH_REF_CONDVAR_POOL) {
		/* The reference: no executor, bench_ref_pool_submit(). */
		if (bench_ref_pool_start(&be->ref, threads, false))
			return -1;
		if (bench_ref_pool_warm(be->ref, 4 * threads)) {
			bench_exec_destroy(be);
			return -1;
		}
		return 0;
	} else if (kind == BENCH_LOOP_SCHEDULER) {
		if (bench_ls_create(be, threads)) {
			bench_exec_destroy(be);
			return -1;
		}
	} else if (kind == BENCH_LOOP) {
		be->threads = 1;
		err = exec_loop_create(&be->loop);
		if (err) {
			bench_err("exec_loop_create: %s", strerror(-err));
			return -1;
		}
		be->ex = exec_loop_executor(be->loop);
		err = pthread_create(&be->loop_thread, NULL, bench_loop_main,
				     be);
		if (err) {
			bench_err("pthread_create: %s", strerror(err));
			exec_loop_destroy(be->loop);
			be->loop = NULL;
			return -1;
		}
	} else {
		err = exec_thread_pool_create(&be->pool, &attr);
		if (err) {
			bench_err("exec_thread_pool_create: %s",
				  strerror(-err));
			return -1;
		}
		be->ex = exec_thread_pool_executor(be->pool);
		if (kind == BENCH_SERIAL) {
			err = exec_serial_create(&be->serial, be->ex);
			if (err) {
				bench_err("exec_serial_create: %s",
					  strerror(-err));
				bench_exec_destroy(be);
				return -1;
			}
			be->ex = exec_serial_executor(be->serial);
		}
	}

	/*
	 * Besides warming up, this makes sure that a loop executor's thread
	 * is inside exec_loop_run(), which bench_exec_destroy() relies on:
	 * exec_loop_make_loop_exit() has no effect on a loop not yet running.
	 */
	if (bench_warm(be->ex, 4 * be->threads)) {
		bench_exec_destroy(be);
		return -1;
	}
	return 0;
}

/*
 * Tears down what bench_exec_create() built; nonzero if anything was amiss
 * (an error, or queued work discarded instead of run).
 */
int bench_exec_destroy(struct bench_exec *be)
{
	int err, ret = 0;
	long n;

	if (be->queue) {
		n = exec_managed_queue_destroy(be->queue);
		if (n) {
			bench_err("exec_managed_queue_destroy: %ld", n);
			ret = -1;
		}
		be->queue = NULL;
	}
	if (be->manager) {
		err = exec_thread_manager_destroy(be->manager);
		if (err) {
			bench_err("exec_thread_manager_destroy: %s",
				  strerror(-err));
			ret = -1;
		}
		be->manager = NULL;
	}
	if (be->serial) {
		n = exec_serial_destroy(be->serial);
		if (n) {
			bench_err("exec_serial_destroy: %ld", n);
			ret = -1;
		}
		be->serial = NULL;
	}
	if (be->pool) {
		err = exec_thread_pool_destroy(be->pool);
		if (err) {
			bench_err("exec_thread_pool_destroy: %s",
				  strerror(-err));
			ret = -1;
		}
		be->pool = NULL;
	}
	if (be->loop) {
		exec_loop_make_loop_exit(be->loop);
		pthread_join(be->loop_thread, NULL);
		if (be->loop_ret) {
			bench_err("exec_loop_run: %s",
				  strerror(-be->loop_ret));
			ret = -1;
		}
		n = exec_loop_destroy(be->loop);
		if (n) {
			bench_err("exec_loop_destroy: %ld", n);
			ret = -1;
		}
		be->loop = NULL;
	}
	if (be->ls && bench_ls_destroy(be))
		ret = -1;
	if (be->ref) {
		if (bench_ref_pool_stop(be->ref))
			ret = -1;
		be->ref = NULL;
	}
	be->ex = NULL;
	return ret;
}

/*
 * A run whose executor loses a task would otherwise wait for it forever; the
 * watchdog turns that into a failed run with a message.
 */
static void bench_watchdog(int sig)
{
	static const char msg[] =
		"exec-bench: watchdog: the run did not finish in time; the executor seems stuck\n";
	ssize_t n;

	n = write(STDERR_FILENO, msg, sizeof(msg) - 1);
	(void)n;
	_exit(BENCH_EXIT_FAIL);
}

/*
 * Generous: a minute, plus the run's own sleeping, plus 20 us per task,
 * which no executor worth measuring comes near.
 */
static unsigned int bench_watchdog_seconds(const struct bench_opts *opts)
{
	double s = 60.0;

	if (!strcmp(opts->workload, "idle_cost"))
		s += opts->seconds;
	else if (!strcmp(opts->workload, "wakeup_latency"))
		s += (double)opts->samples * 2 * 200e-6;
	else if (!strcmp(opts->workload, "timer_lateness"))
		s += (double)opts->samples * 20e-6;
	else if (!strcmp(opts->workload, "blocking_mix"))
		s += (double)opts->tasks * 20e-6 + (double)opts->blocking * 20e-3;
	else
		s += (double)opts->tasks * 20e-6;
	return s > (double)UINT_MAX ? UINT_MAX : (unsigned int)s;
}

static int bench_parse_ulong(const char *opt, const char *s,
			     unsigned long lo, unsigned long hi,
			     unsigned long *val)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < lo || v > hi) {
		bench_err("%s: expected an integer from %lu to %lu, got '%s'",
			  opt, lo, hi, s);
		return -1;
	}
	*val = (unsigned long)v;
	return 0;
}

static int bench_parse_uint(const char *opt, const char *s,
			    unsigned long lo, unsigned long hi,
			    unsigned int *val)
{
	unsigned long v;

	if (bench_parse_ulong(opt, s, lo, hi, &v))
		return -1;
	*val = (unsigned int)v;
	return 0;
}

static int bench_parse_seconds(const char *opt, const char *s, double *val)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0.0) ||
	    v > BENCH_MAX_SECONDS) {
		bench_err("%s: expected seconds, more than 0 and at most %.0f, got '%s'",
			  opt, BENCH_MAX_SECONDS, s);
		return -1;
	}
	*val = v;
	return 0;
}

static int bench_parse_kind(const char *s, enum bench_kind *kind)
{
	unsigned int i;

	for (i = 0; i < BENCH_NR_KINDS; i++) {
		if (!strcmp(s, bench_kind_names[i])) {
			*kind = (enum bench_kind)i;
			return 0;
		}
	}
	bench_err("--executor: unknown executor kind '%s' (thread_pool, loop, serial, managed_queue, loop_scheduler, raw_futex, raw_uring_timeout, condvar_pool, condvar_spare)",
		  s);
	return -1;
}


static int bench_parse_submit(const char *s, enum bench_submit *submit)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bench_submit_names); i++) {
		if (!strcmp(s, bench_submit_names[i])) {
			*submit = (enum bench_submit)i;
			return 0;
		}
	}
	bench_err("--submit: unknown operation '%s' (submit, post, dispatch, defer)",
		  s);
	return -1;
}

/**
 * bench_submit_work - hand an intrusive item to @ex the way --submit says
 * @how: the operation
 * @ex: the executor
 * @work: the item
 *
 * Return: what the library call returned.
 */
int bench_submit_work(enum bench_submit how, struct exec_executor *ex,
		      struct exec_work *work)
{
	switch (how) {
	case BENCH_SUBMIT_POST:
		return exec_post(ex, work);
	case BENCH_SUBMIT_DISPATCH:
		return exec_dispatch(ex, work);
	case BENCH_SUBMIT_DEFER:
		return exec_defer(ex, work);
	default:
		return exec_submit(ex, work);
	}
}

/**
 * bench_submit_fn - submit a closure to @ex the way --submit says
 * @how: the operation
 * @ex: the executor
 * @fn: the closure's function
 * @arg: its argument
 *
 * Return: what the library call returned.
 */
int bench_submit_fn(enum bench_submit how, struct exec_executor *ex,
		    exec_fn fn, void *arg)
{
	switch (how) {
	case BENCH_SUBMIT_POST:
		return exec_post_fn(ex, fn, arg);
	case BENCH_SUBMIT_DISPATCH:
		return exec_dispatch_fn(ex, fn, arg);
	case BENCH_SUBMIT_DEFER:
		return exec_defer_fn(ex, fn, arg);
	default:
		return exec_submit_fn(ex, fn, arg);
	}
}

static const struct bench_workload *bench_find_workload(const char *name)
{
	unsigned int i;

	for (i = 0; i < BENCH_NR_WORKLOADS; i++)
		if (!strcmp(name, bench_workloads[i].name))
			return &bench_workloads[i];
	return NULL;
}

static void bench_list(void)
{
	unsigned int i;

	for (i = 0; i < BENCH_NR_WORKLOADS; i++)
		printf("%s\n", bench_workloads[i].name);
}

static unsigned int bench_online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	if ((unsigned long)n > EXEC_THREAD_POOL_MAX_THREADS)
		return EXEC_THREAD_POOL_MAX_THREADS;
	return (unsigned int)n;
}

/* The options that take a value. */
static const char * const bench_value_options[] = {
	"--executor", "--threads", "--producers", "--tasks", "--strands",
	"--samples", "--seconds", "--submit", "--blocking", "--max-threads",
};

static bool bench_known_option(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bench_value_options); i++)
		if (!strcmp(name, bench_value_options[i]))
			return true;
	return false;
}

/*
 * Parses the options after the workload's name; both "--opt value" and
 * "--opt=value" are taken.
 */
static int bench_parse(int argc, char **argv, const struct bench_workload *w,
		       struct bench_opts *opts)
{
	bool kind_set = false, threads_set = false, tasks_set = false;
	bool samples_set = false, blocking_set = false;
	int i;

	opts->workload = w->name;
	opts->kind = w->default_kind;
	opts->threads = bench_online_cpus();
	opts->producers = BENCH_DEF_PRODUCERS;
	opts->tasks = w->default_tasks;
	opts->strands = w->default_strands ? w->default_strands :
					     BENCH_DEF_STRANDS;
	opts->samples = w->default_samples;
	opts->seconds = BENCH_DEF_SECONDS;
	opts->submit = BENCH_SUBMIT_SUBMIT;
	opts->closures = false;
	opts->hints = false;
	opts->blocking = 0;
	opts->load = 0;

	for (i = 2; i < argc; i++) {
		const char *opt = argv[i], *val = NULL, *eq;
		char name[32];
		size_t len;
		int err;

		if (strncmp(opt, "--", 2)) {
			bench_err("unexpected argument '%s'", opt);
			return -1;
		}
		eq = strchr(opt, '=');
		len = eq ? (size_t)(eq - opt) : strlen(opt);
		if (len >= sizeof(name)) {
			bench_err("unknown option '%s'", opt);
			return -1;
		}
		memcpy(name, opt, len);
		name[len] = '\0';

		if (!strcmp(name, "--closures")) {
			if (eq) {
				bench_err("--closures takes no value");
				return -1;
			}
			if (!w->closures) {
				bench_err("--closures: %s submits no closures (post_throughput and chain_latency do)",
					  w->name);
				return -1;
			}
			opts->closures = true;
			continue;
		}

		if (!strcmp(name, "--timing")) {
			if (eq) {
				bench_err("--timing takes no value");
				return -1;
			}
			exec_stats_set_timing(true);
			continue;
		}

		if (!strcmp(name, "--hints")) {
			if (eq || !w->blocking) {
				bench_err("--hints takes no value, and only blocking_mix takes it");
				return -1;
			}
			opts->hints = true;
			continue;
		}

		/* --load alone is one spinner per online CPU. */
		if (!strcmp(name, "--load")) {
			opts->load = bench_online_cpus();
			if (eq)
				val = eq + 1;
			else if (i + 1 < argc && strncmp(argv[i + 1], "--", 2))
				val = argv[++i];
			if (val && bench_parse_uint(name, val, 0,
						    BENCH_MAX_PRODUCERS,
						    &opts->load))
				return -1;
			continue;
		}

		if (!bench_known_option(name)) {
			bench_err("unknown option '%s'", name);
			return -1;
		}
		if (eq) {
			val = eq + 1;
		} else if (i + 1 < argc) {
			val = argv[++i];
		} else {
			bench_err("%s needs a value", name);
			return -1;
		}

		if (!strcmp(name, "--executor")) {
			err = bench_parse_kind(val, &opts->kind);
			kind_set = true;
		} else if (!strcmp(name, "--threads")) {
			err = bench_parse_uint(name, val, 1,
					       EXEC_THREAD_POOL_MAX_THREADS,
					       &opts->threads);
			threads_set = true;
		} else if (!strcmp(name, "--max-threads")) {
			err = bench_parse_uint(name, val, 1,
					       EXEC_THREAD_POOL_MAX_THREADS,
					       &bench_max_threads);
		} else if (!strcmp(name, "--producers")) {
			err = bench_parse_uint(name, val, 1,
					       BENCH_MAX_PRODUCERS,
					       &opts->producers);
		} else if (!strcmp(name, "--tasks")) {
			err = bench_parse_ulong(name, val, 1, BENCH_MAX_TASKS,
						&opts->tasks);
			tasks_set = true;
		} else if (!strcmp(name, "--strands")) {
			err = bench_parse_uint(name, val, 1, BENCH_MAX_STRANDS,
					       &opts->strands);
		} else if (!strcmp(name, "--samples")) {
			err = bench_parse_ulong(name, val, 1,
						BENCH_MAX_SAMPLES,
						&opts->samples);
			samples_set = true;
		} else if (!strcmp(name, "--seconds")) {
			err = bench_parse_seconds(name, val, &opts->seconds);
		} else if (!strcmp(name, "--blocking")) {
			err = bench_parse_ulong(name, val, 0,
						BENCH_MAX_BLOCKING,
						&opts->blocking);
			if (!err && !w->blocking) {
				bench_err("--blocking: %s has no blocking tasks (blocking_mix has)",
					  w->name);
				err = -1;
			}
			blocking_set = true;
		} else if (!strcmp(name, "--submit")) {
			err = bench_parse_submit(val, &opts->submit);
			if (!err && !w->closures) {
				bench_err("--submit: %s takes no --submit (post_throughput and chain_latency do)",
					  w->name);
				err = -1;
			}
		} else {
			bench_err("unknown option '%s'", name);
			return -1;
		}
		if (err)
			return -1;
	}

	if (kind_set && !(w->kinds & BENCH_KIND_BIT(opts->kind))) {
		bench_err("%s does not run on --executor %s",
			  w->name, bench_kind_name(opts->kind));
		return -1;
	}
	/* A reference pool takes intrusive items, submitted one way. */
	if (bench_kind_is_ref(opts->kind) &&
	    (opts->closures || opts->submit != BENCH_SUBMIT_SUBMIT)) {
		bench_err("--executor %s takes neither --closures nor --submit",
			  bench_kind_name(opts->kind));
		return -1;
	}
	/* Serial executors are under test, whatever the pool's name. */
	if (w->default_kind == BENCH_SERIAL)
		opts->kind = BENCH_SERIAL;
	if (opts->kind == BENCH_LOOP || bench_kind_is_raw(opts->kind)) {
		/* A loop executor runs on the one thread donated to it. */
		if (threads_set && opts->threads != 1) {
			bench_err("--executor %s runs on one thread; --threads %u makes no sense",
				  bench_kind_name(opts->kind), opts->threads);
			return -1;
		}
		opts->threads = 1;
	}
	if (w->blocking && !blocking_set)
		opts->blocking = (unsigned long)BENCH_DEF_BLOCKING_PER_THREAD *
				 opts->threads;
	if (tasks_set && !w->default_tasks)
		bench_err("warning: %s takes no --tasks; ignored", w->name);
	if (samples_set && !w->default_samples)
		bench_err("warning: %s takes no --samples; ignored", w->name);
	return 0;
}

int main(int argc, char **argv)
{
	const struct bench_workload *w;
	struct sigaction sa;
	struct bench_opts opts;
	int ret;

	if (argc < 2) {
		bench_usage(stderr);
		return BENCH_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		bench_usage(stdout);
		return BENCH_EXIT_OK;
	}
	if (!strcmp(argv[1], "list")) {
		if (argc > 2) {
			bench_err("list takes no arguments");
			return BENCH_EXIT_USAGE;
		}
		bench_list();
		return BENCH_EXIT_OK;
	}

	w = bench_find_workload(argv[1]);
	if (!w) {
		bench_err("unknown workload '%s' (see 'exec-bench list')",
			  argv[1]);
		return BENCH_EXIT_USAGE;
	}
	if (bench_parse(argc, argv, w, &opts))
		return BENCH_EXIT_USAGE;
	if (w->default_samples && bench_samples_open())
		return BENCH_EXIT_FAIL;

	if (sem_init(&bench_warm_done, 0, 0)) {
		bench_err("sem_init: %s", strerror(errno));
		return BENCH_EXIT_FAIL;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = bench_watchdog;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	alarm(bench_watchdog_seconds(&opts));

	/* Still one thread here, as bench_load_start() needs. */
	if (bench_load_start(opts.load))
		return BENCH_EXIT_FAIL;
	ret = w->run(&opts);
	bench_load_stop();
	return ret;
}
