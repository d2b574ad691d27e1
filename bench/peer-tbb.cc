// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * peer-tbb: exec-bench's post_throughput and serial_throughput on oneTBB,
 * the peer that Documentation/benchmarks.rst reads libexec's throughput
 * under load against.  Built on demand (make peer-tbb, with libtbb-dev),
 * never by make check.
 *
 * post_throughput: the calling thread submits N tasks (task_group::run())
 * into a task_arena of T worker threads plus its own slot; each adds 1 to
 * a counter of the thread that runs it.  Timed from the first submission
 * until task_group::wait() returns, in which the caller helps run what is
 * left (where libexec's caller only waits): the counters must sum to N.
 *
 * serial_throughput: S strands over the same arena, each a concurrent
 * queue and a count of its pending items, the usual strand on a task
 * scheduler: the submission that finds the count at 0 runs a drain task,
 * which runs items in order until the count falls back to 0.  The caller
 * submits N items round robin; each checks that it is the next of its
 * strand.  Timed as post_throughput.
 *
 * --load [L] is exec-bench's loaded variant (bench/bench-load.c).  Prints
 * one JSON line, "impl":"tbb"; exit status 0 only if the run verified.
 *
 *   peer-tbb post_throughput|serial_throughput [--executor task_arena]
 *            [--threads T] [--tasks N] [--strands S] [--load [L]]
 */
#include <oneapi/tbb/concurrent_queue.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <atomic>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include <time.h>
#include <unistd.h>

extern "C" {
int bench_load_start(unsigned int nr);
void bench_load_stop(void);
void bench_err(const char *fmt, ...);
}

/* bench-load.c reports its errors through this. */
void bench_err(const char *fmt, ...)
{
	va_list ap;

	fputs("peer-tbb: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

struct alignas(128) counter {
	unsigned long n = 0;
};

struct strand {
	tbb::concurrent_queue<unsigned long> queue;
	std::atomic<long> pending{0};
	unsigned long next = 0;		/* only its drain task touches it */
	unsigned long bad = 0;
};

static int usage(void)
{
	fputs("usage: peer-tbb post_throughput|serial_throughput [--threads T] [--tasks N]\n"
	      "                [--strands S] [--load [L]]\n", stderr);
	return 2;
}

int main(int argc, char **argv)
{
	unsigned long threads = sysconf(_SC_NPROCESSORS_ONLN), tasks = 2000000;
	unsigned long strands = 64, load = 0, k, sum = 0, bad = 0;
	bool serial;
	uint64_t t0, t1;
	int i;

	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "post_throughput"))
		serial = false;
	else if (!strcmp(argv[1], "serial_throughput"))
		serial = true;
	else
		return usage();
	for (i = 2; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : nullptr;

		if (!strcmp(a, "--executor") && v &&
		    !strcmp(v, "task_arena")) {
			i++;
		} else if (!strcmp(a, "--threads") && v) {
			threads = strtoul(v, nullptr, 10);
			i++;
		} else if (!strcmp(a, "--tasks") && v) {
			tasks = strtoul(v, nullptr, 10);
			i++;
		} else if (!strcmp(a, "--strands") && v) {
			strands = strtoul(v, nullptr, 10);
			i++;
		} else if (!strcmp(a, "--load")) {
			load = sysconf(_SC_NPROCESSORS_ONLN);
			if (v && strncmp(v, "--", 2)) {
				load = strtoul(v, nullptr, 10);
				i++;
			}
		} else {
			return usage();
		}
	}
	if (!threads || threads > 1024 || !tasks || !strands || load > 1024)
		return usage();

	/* Before any thread, as bench_load_start() needs. */
	if (bench_load_start((unsigned int)load))
		return 1;

	/* T workers and the caller's slot; oneTBB allows CPUs - 1 workers. */
	tbb::global_control gc(tbb::global_control::max_allowed_parallelism,
			       threads + 1);
	tbb::task_arena arena((int)threads + 1, 1);
	tbb::task_group tg;
	std::vector<counter> counters(threads + 2);
	std::vector<std::unique_ptr<strand>> st;

	for (k = 0; k < strands; k++)
		st.emplace_back(new strand);
	/* Warm-up: every worker exists and has run a task. */
	arena.execute([&] {
		for (k = 0; k < 4 * threads; k++)
			tg.run([] {});
		tg.wait();
	});

	t0 = now_ns();
	arena.execute([&] {
		for (k = 0; k < tasks; k++) {
			if (!serial) {
				tg.run([&counters] {
					int idx = tbb::this_task_arena::current_thread_index();

					counters[idx + 1].n++;
				});
				continue;
			}
			strand *s = st[k % strands].get();

			s->queue.push(k / strands);
			if (s->pending.fetch_add(1, std::memory_order_acq_rel))
				continue;
			tg.run([s, &counters] {
				int idx = tbb::this_task_arena::current_thread_index();
				unsigned long seq = 0;

				do {
					while (!s->queue.try_pop(seq))
						;
					if (seq != s->next)
						s->bad++;
					s->next = seq + 1;
					counters[idx + 1].n++;
				} while (s->pending.fetch_sub(1, std::memory_order_acq_rel) > 1);
			});
		}
		tg.wait();
	});
	t1 = now_ns();
	bench_load_stop();

	for (auto &c : counters)
		sum += c.n;
	for (auto &s : st)
		bad += s->bad;
	if (sum != tasks || bad) {
		fprintf(stderr, "peer-tbb: %lu of %lu tasks ran, %lu out of order\n",
			sum, tasks, bad);
		return 1;
	}
	printf("{\"bench\":\"%s\",\"impl\":\"tbb\",\"executor\":\"task_arena\",\"threads\":%lu",
	       argv[1], threads);
	if (load)
		printf(",\"load\":%lu", load);
	if (serial)
		printf(",\"strands\":%lu", strands);
	printf(",\"tasks\":%lu,\"seconds\":%.6f,\"ops_per_s\":%.0f}\n", tasks,
	       (double)(t1 - t0) / 1e9, (double)tasks * 1e9 / (double)(t1 - t0));
	return 0;
}
