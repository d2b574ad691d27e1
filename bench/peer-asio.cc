// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * peer-asio: exec-bench's timer_lateness and strand_churn, and
 * exec-objcost's objects, on Boost.Asio, the peer that
 * Documentation/benchmarks.rst reads libexec's timed work, strands and
 * the objects a request creates against.  Built on demand (make
 * peer-asio, with libboost-dev), never by make check.
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
 *   peer-asio object_cost [--count N] [KIND...]
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
#include <sys/wait.h>

extern "C" {
long long bench_rss_kb(void);
void bench_touch(void *p, size_t len);
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
	      "       peer-asio object_cost [--count N] [promise]\n"
	      "                 [counter_promise] [post] [bind_executor]\n"
	      "                 [bound_post]\n", stderr);
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
 * exec-objcost's kinds (bench/exec-objcost.c) on Asio and on the C++
 * library Asio builds on, as that program measures them: N of one kind
 * created (timed), the resident set read, all destroyed (timed), each kind
 * in a process of its own; one JSON line per kind.
 *
 *   promise          std::promise<long> with its shared state made by
 *                    get_future(), the future held beside it (future)
 *   counter_promise  what a group is written as by hand: a counter, a
 *                    std::promise<void> and its future in one new object
 *                    (group)
 *   post             boost::asio::post() of a function and argument to an
 *                    io_context nobody runs / run_one() running it (closure)
 *   bind_executor    boost::asio::bind_executor() of a function and
 *                    argument, an executor_binder in the caller's memory
 *                    (bound_handler)
 *   bound_post       boost::asio::post() of such a binder with a result
 *                    beside it, to its associated executor / run_one()
 *                    (handler_op)
 */
struct oc_handler {
	void (*fn)(void *arg, long result);
	void *arg;
	long result;

	void operator()() const { fn(arg, result); }
};

/* A completion handler, as struct exec_handler's function and argument. */
struct oc_result_handler {
	void (*fn)(void *arg, long result);
	void *arg;

	void operator()(long result) const { fn(arg, result); }
};

struct counter_promise {
	std::atomic<long> pending{0};
	std::promise<void> done;
	std::future<void> fut;
};

typedef decltype(boost::asio::bind_executor(
	std::declval<boost::asio::io_context::executor_type>(),
	std::declval<oc_result_handler>())) oc_binder;

static boost::asio::io_context *oc_io;
static unsigned long oc_ran;

static void oc_fn(void *arg, long result)
{
	oc_ran++;
}

struct oc_kind {
	const char *name;
	const char *impl;
	size_t object_bytes;	/* the caller's memory, for embedded kinds */
	size_t handle_bytes;
	bool runs;		/* destroy runs the object on oc_io */
	bool (*create)(void *objs, unsigned long i);
	void (*destroy)(void *objs, unsigned long i);
};

static bool promise_create(void *objs, unsigned long i)
{
	auto *p = &static_cast<std::pair<std::promise<long> *,
			std::future<long>> *>(objs)[i];

	new (p) std::pair<std::promise<long> *, std::future<long>>();
	p->first = new std::promise<long>();
	p->second = p->first->get_future();
	return true;
}

static void promise_destroy(void *objs, unsigned long i)
{
	auto *p = &static_cast<std::pair<std::promise<long> *,
			std::future<long>> *>(objs)[i];

	p->second = std::future<long>();
	delete p->first;
}

static bool counter_promise_create(void *objs, unsigned long i)
{
	counter_promise *c = new counter_promise();

	c->fut = c->done.get_future();
	static_cast<counter_promise **>(objs)[i] = c;
	return true;
}

static void counter_promise_destroy(void *objs, unsigned long i)
{
	delete static_cast<counter_promise **>(objs)[i];
}

static bool post_create(void *objs, unsigned long i)
{
	boost::asio::post(*oc_io, oc_handler{oc_fn, nullptr, (long)i});
	return true;
}

static void run_one(void *objs, unsigned long i)
{
	if (oc_io->run_one() != 1)
		oc_ran = 0;
}

static bool bind_create(void *objs, unsigned long i)
{
	new (&static_cast<oc_binder *>(objs)[i]) oc_binder(
		boost::asio::bind_executor(oc_io->get_executor(),
					   oc_result_handler{oc_fn, nullptr}));
	return true;
}

static void bind_destroy(void *objs, unsigned long i)
{
	static_cast<oc_binder *>(objs)[i].~oc_binder();
}

static bool bound_post_create(void *objs, unsigned long i)
{
	boost::asio::post(boost::asio::bind_executor(oc_io->get_executor(),
			oc_handler{oc_fn, nullptr, (long)i}));
	return true;
}

static const oc_kind oc_kinds[] = {
	{ "promise", "std", 0,
	  sizeof(std::pair<std::promise<long> *, std::future<long>>), false,
	  promise_create, promise_destroy },
	{ "counter_promise", "std", 0, sizeof(counter_promise *), false,
	  counter_promise_create, counter_promise_destroy },
	{ "post", "asio", 0, 1, true, post_create, run_one },
	{ "bind_executor", "asio", sizeof(oc_binder), sizeof(oc_binder), false,
	  bind_create, bind_destroy },
	{ "bound_post", "asio", 0, 1, true, bound_post_create, run_one },
};

static int object_cost_run(const oc_kind *oc, unsigned long n)
{
	uint64_t t0, t1, t2;
	long long rss0, rss1;
	unsigned long k;
	void *objs;

	oc_io = new boost::asio::io_context(1);
	objs = calloc(n, oc->handle_bytes);
	if (!objs)
		return 1;
	/* The caller's array is not the objects' memory: touched first. */
	bench_touch(objs, n * oc->handle_bytes);
	rss0 = bench_rss_kb();
	t0 = now_ns();
	for (k = 0; k < n; k++)
		if (!oc->create(objs, k))
			return 1;
	t1 = now_ns();
	rss1 = bench_rss_kb();
	t2 = now_ns();
	for (k = 0; k < n; k++)
		oc->destroy(objs, k);
	t2 = now_ns() - t2;
	free(objs);
	delete oc_io;
	if (rss0 < 0 || rss1 < 0)
		return 1;
	if (oc_ran != (oc->runs ? n : 0)) {
		fprintf(stderr, "peer-asio: %s: %lu of %lu ran\n", oc->name,
			oc_ran, oc->runs ? n : 0);
		return 1;
	}
	printf("{\"bench\":\"object_cost\",\"impl\":\"%s\",\"object\":\"%s\",\"count\":%lu,\"create_ns\":%llu,\"destroy_ns\":%llu,\"bytes_per_object\":%lld,\"object_bytes\":%zu}\n",
	       oc->impl, oc->name, n,
	       (unsigned long long)((t1 - t0 + n / 2) / n),
	       (unsigned long long)((t2 + n / 2) / n),
	       (rss1 - rss0) * 1024 / (long long)n, oc->object_bytes);
	return 0;
}

/* In a child process: a fresh heap for each kind, as exec-objcost. */
static int object_cost_fork(const oc_kind *oc, unsigned long n)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		status = object_cost_run(oc, n);
		fflush(stdout);
		_exit(status);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static int object_cost(int argc, char **argv)
{
	const size_t nr = sizeof(oc_kinds) / sizeof(oc_kinds[0]);
	unsigned long n = 100000;
	bool any = false;
	int i, ret = 0;
	size_t k;

	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--count") && i + 1 < argc) {
			n = strtoul(argv[++i], nullptr, 10);
			if (!n || n > 100000000UL)
				return usage();
			continue;
		}
		for (k = 0; k < nr; k++)
			if (!strcmp(argv[i], oc_kinds[k].name))
				break;
		if (k == nr)
			return usage();
		any = true;
		ret |= object_cost_fork(&oc_kinds[k], n);
	}
	if (!any)
		for (k = 0; k < nr; k++)
			ret |= object_cost_fork(&oc_kinds[k], n);
	return ret;
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
