// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * peer-asio: exec-bench's timer_lateness and strand_churn on Boost.Asio,
 * the peer that Documentation/benchmarks.rst reads libexec's timed work and
 * strands against.  Built on demand (make peer-asio, with libboost-dev),
 * never by make check.
 *
 * The workload is exec-bench's (bench/bench-timer.c): K timers armed up
 * front, deadlines uniform over 1-50 ms from one start time read just
 * before the first arm, drawn from the same splitmix64 generator and seed,
 * so every run arms the same pattern; each records when its handler
 * started, and the lateness is that less the deadline.  Here each timer is
 * a boost::asio::steady_timer (CLOCK_MONOTONIC on Linux) whose async_wait
 * handler runs on the threads that run one io_context (--threads, default
 * 1).  --load [L] is exec-bench's loaded variant (bench/bench-load.c).
 * Prints one JSON line, "impl":"asio", and exits 0 only if every timer ran
 * once and none early.
 *
 *   peer-asio timer_lateness [--executor io_context] [--threads T]
 *             [--samples K] [--load [L]]
 *   peer-asio strand_churn [--executor strand] [--threads T] [--strands S]
 */
#include <boost/asio.hpp>

#include <algorithm>
#include <cstdarg>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include <time.h>
#include <unistd.h>

extern "C" {
long long bench_rss_kb(void);
int bench_load_start(unsigned int nr);
void bench_load_stop(void);
void bench_err(const char *fmt, ...);
}

#define TIMER_SEED	0x6578656362656e63ULL	/* as bench-timer.c's */
#define LATE_MIN_NS	1000000ULL
#define LATE_MAX_NS	50000000ULL

static uint64_t timer_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t timer_rand_below(uint64_t *state, uint64_t range)
{
	return ((timer_rand(state) >> 32) * range) >> 32;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* bench-load.c reports its errors through this. */
void bench_err(const char *fmt, ...)
{
	va_list ap;

	fputs("peer-asio: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static uint64_t percentile(const std::vector<uint64_t> &v, unsigned long q)
{
	unsigned long n = v.size();
	unsigned long rank = (unsigned long)(((unsigned long long)n * q +
					      99999) / 100000);

	rank = std::min(std::max(rank, 1UL), n);
	return v[rank - 1];
}

struct item {
	std::unique_ptr<boost::asio::steady_timer> timer;
	uint64_t deadline;
	uint64_t ran_ns;
	std::atomic<unsigned int> runs{0};
};

static int usage(void)
{
	fputs("usage: peer-asio timer_lateness [--executor io_context] [--threads T]\n"
	      "                 [--samples K] [--load [L]]\n"
	      "       peer-asio strand_churn [--executor strand] [--threads T]\n"
	      "                 [--strands S]\n"
	      "       peer-asio object_cost [--count N] [promise]\n", stderr);
	return 2;
}

static int timer_lateness(int argc, char **argv)
{
	unsigned long n = 10000, threads = 1, load = 0;
	uint64_t rng = TIMER_SEED, t0, last = 0;
	std::atomic<unsigned long> ran{0};
	unsigned long k, bad = 0, early = 0;
	int i;

	for (i = 2; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : nullptr;

		if (!strcmp(a, "--executor") && v && !strcmp(v, "io_context")) {
			i++;
		} else if (!strcmp(a, "--threads") && v) {
			threads = strtoul(v, nullptr, 10);
			i++;
		} else if (!strcmp(a, "--samples") && v) {
			n = strtoul(v, nullptr, 10);
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
	if (!n || !threads || threads > 1024 || load > 1024)
		return usage();

	/* Before any thread, as bench_load_start() needs. */
	if (bench_load_start((unsigned int)load))
		return 1;

	boost::asio::io_context io((int)threads);
	auto guard = boost::asio::make_work_guard(io);
	std::vector<item> items(n);
	std::vector<std::thread> pool;

	for (k = 0; k < n; k++) {
		items[k].timer.reset(new boost::asio::steady_timer(io));
		items[k].deadline = LATE_MIN_NS +
			timer_rand_below(&rng, LATE_MAX_NS - LATE_MIN_NS + 1);
	}
	for (k = 0; k < threads; k++)
		pool.emplace_back([&io] { io.run(); });

	t0 = now_ns();
	for (k = 0; k < n; k++) {
		item *it = &items[k];

		it->deadline += t0;
		/* steady_clock is CLOCK_MONOTONIC: the same time line. */
		it->timer->expires_at(boost::asio::steady_timer::time_point(
			std::chrono::nanoseconds(it->deadline)));
		it->timer->async_wait([it, &ran, &io, n](
				const boost::system::error_code &ec) {
			if (ec)
				return;
			it->ran_ns = now_ns();
			it->runs.fetch_add(1, std::memory_order_relaxed);
			if (ran.fetch_add(1, std::memory_order_acq_rel) + 1 == n)
				io.stop();
		});
	}
	for (auto &t : pool)
		t.join();
	bench_load_stop();

	std::vector<uint64_t> lat;
	lat.reserve(n);
	for (k = 0; k < n; k++) {
		item *it = &items[k];

		if (it->runs.load() != 1) {
			bad++;
			continue;
		}
		if (it->ran_ns < it->deadline) {
			early++;
			continue;
		}
		lat.push_back(it->ran_ns - it->deadline);
		last = std::max(last, it->ran_ns);
	}
	if (bad || early) {
		fprintf(stderr, "peer-asio: of %lu timers, %lu did not run exactly once and %lu ran early\n",
			n, bad, early);
		return 1;
	}
	std::sort(lat.begin(), lat.end());
	printf("{\"bench\":\"timer_lateness\",\"impl\":\"asio\",\"executor\":\"io_context\",\"threads\":%lu",
	       threads);
	if (load)
		printf(",\"load\":%lu", load);
	printf(",\"samples\":%lu,\"seconds\":%.6f,\"p50_ns\":%llu,\"p99_ns\":%llu,\"max_ns\":%llu}\n",
	       n, (double)(last - t0) / 1e9,
	       (unsigned long long)percentile(lat, 50000),
	       (unsigned long long)percentile(lat, 99000),
	       (unsigned long long)lat.back());
	return 0;
}

typedef boost::asio::strand<boost::asio::thread_pool::executor_type> strand_t;

/*
 * exec-bench's strand_churn (bench/bench-churn.c) on Asio: S strands made
 * with make_strand() over one thread_pool of T threads, one post() each,
 * then all destroyed idle.  The strands' handles (the strand objects, an
 * executor and a shared pointer each) are reserved and touched before the
 * resident set is first read, as exec-bench's array of pointers is.
 */
static int strand_churn(int argc, char **argv)
{
	unsigned long n = 100000, threads = sysconf(_SC_NPROCESSORS_ONLN);
	std::atomic<unsigned long> left;
	uint64_t t0, t1, t2, t3, t4;
	long long rss0, rss1;
	unsigned long k;
	int i;

	for (i = 2; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : nullptr;

		if (!strcmp(a, "--executor") && v && !strcmp(v, "strand")) {
			i++;
		} else if (!strcmp(a, "--threads") && v) {
			threads = strtoul(v, nullptr, 10);
			i++;
		} else if (!strcmp(a, "--strands") && v) {
			n = strtoul(v, nullptr, 10);
			i++;
		} else {
			return usage();
		}
	}
	if (!n || !threads || threads > 1024)
		return usage();

	boost::asio::thread_pool pool(threads);
	std::vector<strand_t> strands;
	std::vector<std::atomic<unsigned int>> runs(n);
	std::mutex m;
	std::condition_variable cv;
	bool done = false;

	strands.reserve(n);
	memset(static_cast<void *>(strands.data()), 0, n * sizeof(strand_t));
	for (k = 0; k < n; k++)
		runs[k].store(0);
	left.store(n);

	rss0 = bench_rss_kb();
	t0 = now_ns();
	for (k = 0; k < n; k++)
		strands.emplace_back(boost::asio::make_strand(pool.get_executor()));
	t1 = now_ns();
	rss1 = bench_rss_kb();

	t2 = now_ns();
	for (k = 0; k < n; k++) {
		boost::asio::post(strands[k], [k, &runs, &left, &m, &cv, &done,
					       &t3] {
			runs[k].fetch_add(1, std::memory_order_relaxed);
			if (left.fetch_sub(1, std::memory_order_acq_rel) == 1) {
				t3 = now_ns();
				std::lock_guard<std::mutex> lk(m);
				done = true;
				cv.notify_one();
			}
		});
	}
	{
		std::unique_lock<std::mutex> lk(m);
		cv.wait(lk, [&done] { return done; });
	}
	t4 = now_ns();
	strands.clear();
	t4 = now_ns() - t4;
	pool.join();

	for (k = 0; k < n; k++) {
		if (runs[k].load() != 1) {
			fprintf(stderr, "peer-asio: strand %lu's task ran %u times\n",
				k, runs[k].load());
			return 1;
		}
	}
	if (rss0 < 0 || rss1 < 0) {
		fprintf(stderr, "peer-asio: cannot read /proc/self/statm\n");
		return 1;
	}
	printf("{\"bench\":\"strand_churn\",\"impl\":\"asio\",\"executor\":\"strand\",\"threads\":%lu",
	       threads);
	printf(",\"strands\":%lu,\"seconds\":%.6f,\"create_ns\":%llu,\"destroy_ns\":%llu,\"bytes_per_strand\":%lld,\"ops_per_s\":%.0f}\n",
	       n, (double)(t1 - t0 + t3 - t2 + t4) / 1e9,
	       (unsigned long long)((t1 - t0 + n / 2) / n),
	       (unsigned long long)((t4 + n / 2) / n),
	       (rss1 - rss0) * 1024 / (long long)n,
	       (double)n * 1e9 / (double)(t3 - t2));
	return 0;
}

/*
 * exec-objcost's future (bench/exec-objcost.c) on the C++ library Asio
 * builds on: N std::promise<long>s, each with its shared state made by
 * get_future() (the future held beside it, as exec_future_create() makes
 * one object for both sides), then all destroyed.
 */
static int object_cost(int argc, char **argv)
{
	unsigned long n = 100000, k;
	uint64_t t0, t1, t2;
	long long rss0, rss1;
	int i;

	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--count") && i + 1 < argc)
			n = strtoul(argv[++i], nullptr, 10);
		else if (strcmp(argv[i], "promise"))
			return usage();
	}
	if (!n)
		return usage();

	std::vector<std::promise<long> *> promises(n);
	std::vector<std::future<long>> futures(n);

	memset(static_cast<void *>(promises.data()), 0,
	       n * sizeof(promises[0]));
	rss0 = bench_rss_kb();
	t0 = now_ns();
	for (k = 0; k < n; k++) {
		promises[k] = new std::promise<long>();
		futures[k] = promises[k]->get_future();
	}
	t1 = now_ns();
	rss1 = bench_rss_kb();
	t2 = now_ns();
	for (k = 0; k < n; k++) {
		futures[k] = std::future<long>();
		delete promises[k];
	}
	t2 = now_ns() - t2;
	if (rss0 < 0 || rss1 < 0)
		return 1;
	printf("{\"bench\":\"object_cost\",\"impl\":\"std\",\"object\":\"promise\",\"count\":%lu,\"create_ns\":%llu,\"destroy_ns\":%llu,\"bytes_per_object\":%lld}\n",
	       n, (unsigned long long)((t1 - t0 + n / 2) / n),
	       (unsigned long long)((t2 + n / 2) / n),
	       (rss1 - rss0) * 1024 / (long long)n);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "object_cost"))
		return object_cost(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "timer_lateness"))
		return timer_lateness(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "strand_churn"))
		return strand_churn(argc, argv);
	return usage();
}
