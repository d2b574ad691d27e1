// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Standalone test of the userspace parker and thread helpers (user/parker.c,
 * user/platform.c), run once per wakeup backend: each backend is forced with
 * EXEC_BACKEND in a forked child before its first use, since the choice is
 * made once per process.
 *
 * Build and run by hand:
 *
 *   cc -O2 -g -D_GNU_SOURCE -Iinclude -Iuser/include -Icore \
 *	tests/user/parker_test.c core/parker.c user/platform.c \
 *	user/parker.c user/log.c \
 *	-luring -lpthread
 *   ./a.out
 *
 * The last line is "parker: N passed, M failed"; the exit status is 0 only
 * if nothing failed.  PARKER_TEST_HANDOFFS changes the number of ping-pong
 * handoffs (default 1,000,000).
 */
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform.h"
#include "exec/timer.h"
#include "exec/user.h"

#define NR_TESTS	8
#define WATCHDOG_S	300

static unsigned int passed;
static const char *current_test = "setup";
static const char *backend_name;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "  %s:%d: %s: check failed: %s\n",	\
			__FILE__, __LINE__, current_test, #cond);	\
		return false;						\
	}								\
} while (0)

static double elapsed_s(u64 start)
{
	return (double)(ktime_get_ns() - start) / 1e9;
}

/* Wait (politely) until @word holds @val; the tests' only busy waits. */
static void wait_for_u32(u32 *word, u32 val)
{
	while (__atomic_load_n(word, __ATOMIC_ACQUIRE) != val)
		sched_yield();
}

/* ------------------------------------------------------------------ */

struct sleeper {
	struct exec_parker *parker;
	u32 flag;
	u32 delay_ms;
	bool saw_sleeping;
};

/* Unpark once the owner is really asleep, after @delay_ms more. */
static int unpark_when_asleep(void *arg)
{
	struct sleeper *s = arg;

	wait_for_u32(&s->parker->sleeping, 1);
	s->saw_sleeping = true;
	msleep(s->delay_ms);
	__atomic_store_n(&s->flag, 1, __ATOMIC_RELEASE);
	exec_parker_unpark(s->parker);
	return 0;
}

/*
 * The backend asked for is the one in use; with io_uring, a parker gets a
 * ring, and at the fd limit a new parker falls back to the futex while a
 * thread without a waker ring still wakes a ring parker (via the shared
 * ring).
 */
static bool test_backend(void)
{
	struct exec_parker ring_parker, fd_parker;
	struct exec_thread t;
	struct sleeper s = { .parker = &ring_parker, .delay_ms = 20 };
	struct rlimit old, low;
	int fd, ret;

	if (!strcmp(backend_name, "io_uring") &&
	    !strcmp(exec_user_wakeup_backend(), "futex")) {
		printf("  io_uring unavailable here: testing the futex\n");
		backend_name = "futex";
	}
	CHECK(!strcmp(exec_user_wakeup_backend(), backend_name));
	CHECK(exec_parker_init(&ring_parker) == 0);
	if (!strcmp(backend_name, "futex")) {
		CHECK(ring_parker.ring == NULL);
		exec_parker_destroy(&ring_parker);
		return true;
	}
	CHECK(ring_parker.ring != NULL);

	/* Lowest free fd n: with the soft limit at n, no new fd can open. */
	fd = dup(0);
	CHECK(fd >= 0);
	close(fd);
	CHECK(getrlimit(RLIMIT_NOFILE, &old) == 0);
	low = old;
	low.rlim_cur = (rlim_t)fd;
	CHECK(setrlimit(RLIMIT_NOFILE, &low) == 0);

	ret = exec_parker_init(&fd_parker);
	/* A new thread: its first wake cannot create a waker ring. */
	if (!ret)
		ret = exec_thread_start(&t, unpark_when_asleep, &s,
					"pt-fdlimit");
	if (!ret) {
		exec_parker_park(&ring_parker);
		exec_thread_join(&t);
	}
	setrlimit(RLIMIT_NOFILE, &old);
	CHECK(ret == 0);
	CHECK(fd_parker.ring == NULL);
	CHECK(__atomic_load_n(&s.flag, __ATOMIC_ACQUIRE) == 1);

	/* The fallen-back parker works like any futex parker. */
	exec_parker_unpark(&fd_parker);
	exec_parker_park(&fd_parker);
	exec_parker_destroy(&fd_parker);
	exec_parker_destroy(&ring_parker);
	return true;
}

struct log_seen {
	int count;
	int level;
	char msg[256];
};

static void log_hook(int level, const char *msg, void *arg)
{
	struct log_seen *seen = arg;

	seen->count++;
	seen->level = level;
	snprintf(seen->msg, sizeof(seen->msg), "%s", msg);
}

/*
 * The library's messages: silent by default (a child with its stderr on a
 * pipe chooses the backend and writes nothing), and the backend forced by
 * EXEC_BACKEND reported to the installed callback, once, as information.
 * Runs before anything else in the process has chosen the backend.
 */
static bool test_log(void)
{
	struct log_seen seen = { 0 };
	char buf[512];
	int pipefd[2], status;
	ssize_t n;
	pid_t pid;

	CHECK(pipe(pipefd) == 0);
	fflush(NULL);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		close(pipefd[1]);
		exec_user_wakeup_backend();
		_exit(0);
	}
	close(pipefd[1]);
	n = read(pipefd[0], buf, sizeof(buf) - 1);
	close(pipefd[0]);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0);
	if (n > 0) {
		buf[n] = 0;
		printf("  written to stderr without a log callback: %s\n", buf);
	}
	CHECK(n == 0);

	exec_user_set_log(log_hook, &seen);
	exec_user_wakeup_backend();
	exec_user_wakeup_backend();
	exec_user_set_log(NULL, NULL);
	printf("  logged: level %d \"%s\"\n", seen.level, seen.msg);
	CHECK(seen.count == 1);
	CHECK(seen.level == EXEC_USER_LOG_INFO);
	CHECK(strstr(seen.msg, exec_user_wakeup_backend()));
	if (!strcmp(backend_name, "futex"))
		CHECK(strstr(seen.msg, "forced by EXEC_BACKEND"));
	return true;
}

/* unpark() before park(): park() consumes the permit without sleeping. */
static bool test_unpark_before_park(void)
{
	struct exec_parker p;
	u64 start;

	CHECK(exec_parker_init(&p) == 0);
	start = ktime_get_ns();
	exec_parker_unpark(&p);
	exec_parker_unpark(&p);		/* binary: still one permit */
	exec_parker_park(&p);
	CHECK(elapsed_s(start) < 0.1);
	CHECK(__atomic_load_n(&p.permit, __ATOMIC_RELAXED) == 0);
	CHECK(__atomic_load_n(&p.sleeping, __ATOMIC_RELAXED) == 0);
	exec_parker_destroy(&p);
	return true;
}

/* park() sleeps until another thread unparks, and not shorter. */
static bool test_park_sleeps(void)
{
	struct exec_parker p;
	struct exec_thread t;
	struct sleeper s = { .parker = &p, .delay_ms = 50 };
	u64 start;
	int i;

	CHECK(exec_parker_init(&p) == 0);
	for (i = 0; i < 3; i++) {
		s.flag = 0;
		s.saw_sleeping = false;
		CHECK(exec_thread_start(&t, unpark_when_asleep, &s,
					"pt-waker") == 0);
		start = ktime_get_ns();
		exec_parker_park(&p);
		CHECK(__atomic_load_n(&s.flag, __ATOMIC_ACQUIRE) == 1);
		CHECK(elapsed_s(start) >= 0.045);
		exec_thread_join(&t);
		CHECK(s.saw_sleeping);
	}
	exec_parker_destroy(&p);
	return true;
}

/* ------------------------------------------------------------------ */

struct pingpong {
	struct exec_parker parker[2];
	u32 turn;
	unsigned long rounds;		/* per side */
	unsigned long count[2];
	bool timed;			/* park_until() with a far deadline */
};

struct pp_side {
	struct pingpong *pp;
	int me;
};

static int pingpong_fn(void *arg)
{
	struct pp_side *side = arg;
	struct pingpong *pp = side->pp;
	int me = side->me;
	unsigned long i;

	u64 when[2] = { EXEC_TIME_NEVER, EXEC_TIME_NEVER };

	/* Far enough never to end a sleep: only the wakes do. */
	when[0] = exec_clock_read(0) + 3600ULL * 1000000000ULL;
	for (i = 0; i < pp->rounds; i++) {
		while (__atomic_load_n(&pp->turn, __ATOMIC_ACQUIRE) != (u32)me) {
			if (pp->timed)
				exec_parker_park_until(&pp->parker[me], when);
			else
				exec_parker_park(&pp->parker[me]);
		}
		pp->count[me]++;
		__atomic_store_n(&pp->turn, (u32)!me, __ATOMIC_RELEASE);
		exec_parker_unpark(&pp->parker[!me]);
	}
	return 0;
}

#define NR_PRODUCERS	4
#define PRODUCER_ITEMS	25000

struct fanin {
	struct exec_parker parker;
	u32 produced;
	u32 seen;
};

/* Each item waits until the consumer has seen it: it must be woken. */
static int producer_fn(void *arg)
{
	struct fanin *f = arg;
	u32 mine;
	int i;

	for (i = 0; i < PRODUCER_ITEMS; i++) {
		mine = __atomic_add_fetch(&f->produced, 1, __ATOMIC_SEQ_CST);
		exec_parker_unpark(&f->parker);
		while (__atomic_load_n(&f->seen, __ATOMIC_ACQUIRE) < mine)
			sched_yield();
	}
	return 0;
}

/*
 * No wake is lost: 1,000,000 handoffs between two threads that each park
 * until it is their turn (a lost wake hangs, and the watchdog fails it),
 * the same with park_until() (whose sleep, with io_uring, is the ring's,
 * woken by MSG_RING), then four threads unparking one consumer
 * concurrently.
 */
static bool test_no_lost_wakes(void)
{
	static struct pingpong pp;
	struct pp_side side[2] = { { &pp, 0 }, { &pp, 1 } };
	struct exec_thread t[NR_PRODUCERS];
	struct fanin f = { 0 };
	const char *env = getenv("PARKER_TEST_HANDOFFS");
	unsigned long handoffs = env ? strtoul(env, NULL, 0) : 1000000UL;
	u32 total = NR_PRODUCERS * PRODUCER_ITEMS, c;
	u64 start;
	int i;

	for (i = 0; i < 2; i++) {
		memset(&pp, 0, sizeof(pp));
		pp.rounds = handoffs / 2;
		pp.timed = i;
		CHECK(exec_parker_init(&pp.parker[0]) == 0);
		CHECK(exec_parker_init(&pp.parker[1]) == 0);
		start = ktime_get_ns();
		CHECK(exec_thread_start(&t[0], pingpong_fn, &side[0],
					"pt-ping") == 0);
		CHECK(exec_thread_start(&t[1], pingpong_fn, &side[1],
					"pt-pong") == 0);
		exec_thread_join(&t[0]);
		exec_thread_join(&t[1]);
		printf("  %lu handoffs%s in %.2f s\n",
		       pp.count[0] + pp.count[1],
		       pp.timed ? " (park_until)" : "", elapsed_s(start));
		CHECK(pp.count[0] == pp.rounds && pp.count[1] == pp.rounds);
		exec_parker_destroy(&pp.parker[0]);
		exec_parker_destroy(&pp.parker[1]);
	}

	CHECK(exec_parker_init(&f.parker) == 0);
	for (i = 0; i < NR_PRODUCERS; i++)
		CHECK(exec_thread_start(&t[i], producer_fn, &f,
					"pt-prod") == 0);
	for (;;) {
		c = __atomic_load_n(&f.produced, __ATOMIC_ACQUIRE);
		__atomic_store_n(&f.seen, c, __ATOMIC_RELEASE);
		if (c == total)
			break;
		exec_parker_park(&f.parker);
	}
	for (i = 0; i < NR_PRODUCERS; i++)
		exec_thread_join(&t[i]);
	exec_parker_destroy(&f.parker);
	return true;
}

/*
 * A waker that never sleeps: it spins until it is its turn and unparks the
 * owner at once, so its exchange of the permit and its look at @sleeping
 * land within nanoseconds of the owner's store of @sleeping and look at
 * the permit, the store-load window that the full barrier in
 * exec_parker_park_until() closes.  Without it the waker can miss the
 * sleeper and the owner sleeps until its deadline (1 s here: a lost wake,
 * counted).  The owner's ring sleep, unlike the futex one, does not look
 * at the permit again.  The window is a few nanoseconds wide and both
 * threads must be on a CPU at once, so a relaxed barrier loses about one
 * wake in a million handoffs here: PARKER_TEST_SPIN_HANDOFFS (default
 * 500,000) raises the count, as scripts/mutation-check.sh does.
 */
struct tight {
	struct exec_parker parker;
	u32 turn;			/* 0: the owner's, 1: the waker's */
	unsigned long rounds;
	unsigned long lost;
};

static int tight_waker_fn(void *arg)
{
	struct tight *tt = arg;
	unsigned long i;

	for (i = 0; i < tt->rounds; i++) {
		while (__atomic_load_n(&tt->turn, __ATOMIC_ACQUIRE) != 1)
			cpu_relax();
		__atomic_store_n(&tt->turn, 0, __ATOMIC_RELEASE);
		exec_parker_unpark(&tt->parker);
	}
	return 0;
}

static bool test_no_lost_wakes_spinning_waker(void)
{
	static struct tight tt;
	const char *env = getenv("PARKER_TEST_SPIN_HANDOFFS");
	unsigned long handoffs = env ? strtoul(env, NULL, 0) : 500000UL;
	struct exec_thread t;
	u64 when[2] = { EXEC_TIME_NEVER, EXEC_TIME_NEVER };
	u64 start, t0;
	unsigned long i;

	memset(&tt, 0, sizeof(tt));
	tt.rounds = handoffs;
	CHECK(exec_parker_init(&tt.parker) == 0);
	start = ktime_get_ns();
	CHECK(exec_thread_start(&t, tight_waker_fn, &tt, "pt-spin") == 0);
	for (i = 0; i < tt.rounds; i++) {
		__atomic_store_n(&tt.turn, 1, __ATOMIC_RELEASE);
		t0 = exec_clock_read(0);
		when[0] = t0 + 1000000000ULL;
		while (__atomic_load_n(&tt.turn, __ATOMIC_ACQUIRE) != 0) {
			exec_parker_park_until(&tt.parker, when);
			if (exec_clock_read(0) >= when[0]) {
				tt.lost++;
				break;
			}
		}
		/* After a lost wake: the waker has not yet handed back. */
		while (__atomic_load_n(&tt.turn, __ATOMIC_ACQUIRE) != 0)
			cpu_relax();
	}
	exec_thread_join(&t);
	exec_parker_destroy(&tt.parker);
	printf("  %lu handoffs to a spinning waker (park_until) in %.2f s, %lu lost\n",
	       tt.rounds, elapsed_s(start), tt.lost);
	CHECK(tt.lost == 0);
	return true;
}

/*
 * unpark() of an owner that is not asleep makes no system call.  Timed: a
 * million of them (each followed by the park() that consumes the permit,
 * so that every unpark() takes the full path) take well under a second,
 * where a million system calls would not.  `strace -c -f` on this test
 * shows the same directly.
 */
static bool test_unpark_awake_no_syscall(void)
{
	struct exec_parker p;
	double t;
	u64 start;
	int i;

	CHECK(exec_parker_init(&p) == 0);
	start = ktime_get_ns();
	for (i = 0; i < 1000000; i++) {
		exec_parker_unpark(&p);
		exec_parker_park(&p);
	}
	t = elapsed_s(start);
	printf("  1M unpark+park without sleeping: %.3f s\n", t);
	CHECK(t < 1.0);
	exec_parker_destroy(&p);
	return true;
}

/* ------------------------------------------------------------------ */

struct thread_info {
	u32 ran;
	bool name_ok;
	bool signals_blocked;
	int id;
};

static int thread_fn(void *arg)
{
	struct thread_info *ti = arg;
	char name[32] = "";
	sigset_t set;

	pthread_getname_np(pthread_self(), name, sizeof(name));
	ti->name_ok = !strcmp(name, "parker-test-wor");
	pthread_sigmask(SIG_BLOCK, NULL, &set);
	ti->signals_blocked = sigismember(&set, SIGINT) &&
			      sigismember(&set, SIGTERM) &&
			      sigismember(&set, SIGUSR1);
	exec_thread_self_set(ti);
	__atomic_store_n(&ti->ran, exec_thread_self_get() == ti,
			 __ATOMIC_RELEASE);
	return ti->id;
}

/* Threads run and join, are named (truncated) and block all signals. */
static bool test_threads(void)
{
	struct exec_thread t[4];
	struct thread_info ti[4] = { { 0 } };
	sigset_t set;
	int i;

	CHECK(exec_online_cpus() >= 1);
	exec_thread_self_set(NULL);
	for (i = 0; i < 4; i++) {
		ti[i].id = i;
		CHECK(exec_thread_start(&t[i], thread_fn, &ti[i],
					"parker-test-worker-long") == 0);
	}
	for (i = 0; i < 4; i++) {
		exec_thread_join(&t[i]);
		CHECK(ti[i].ran == 1);
		CHECK(ti[i].name_ok);
		CHECK(ti[i].signals_blocked);
	}
	/* The creator's own mask and per-thread pointer are untouched. */
	pthread_sigmask(SIG_BLOCK, NULL, &set);
	CHECK(!sigismember(&set, SIGINT));
	CHECK(exec_thread_self_get() == NULL);
	return true;
}

/* ------------------------------------------------------------------ */

static void watchdog(int sig)
{
	static const char msg[] = "  watchdog: test hung (lost wake?)\n";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(100 + passed);
	_exit(100 + passed);
}

static const struct {
	const char *name;
	bool (*fn)(void);
} tests[NR_TESTS] = {
	{ "log", test_log },
	{ "backend", test_backend },
	{ "unpark_before_park", test_unpark_before_park },
	{ "park_sleeps_until_unpark", test_park_sleeps },
	{ "no_lost_wakes", test_no_lost_wakes },
	{ "no_lost_wakes_spinning_waker", test_no_lost_wakes_spinning_waker },
	{ "unpark_awake_no_syscall", test_unpark_awake_no_syscall },
	{ "threads", test_threads },
};

/* In a fresh child: force @backend, run every test, exit with passes. */
static void run_backend(const char *backend)
{
	int i;

	backend_name = backend;
	setenv("EXEC_BACKEND", backend, 1);
	signal(SIGALRM, watchdog);
	alarm(WATCHDOG_S);
	for (i = 0; i < NR_TESTS; i++) {
		current_test = tests[i].name;
		printf("[%s] %s\n", backend, tests[i].name);
		fflush(stdout);
		if (tests[i].fn()) {
			passed++;
			printf("  ok\n");
		} else {
			printf("  FAILED\n");
		}
		fflush(stdout);
	}
	exit((int)passed);
}

int main(void)
{
	static const char *const backends[] = { "io_uring", "futex" };
	unsigned int total_passed = 0, total_failed = 0, n;
	size_t i;
	pid_t pid;
	int status;

	for (i = 0; i < ARRAY_SIZE(backends); i++) {
		fflush(stdout);
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (!pid)
			run_backend(backends[i]);
		n = 0;
		if (waitpid(pid, &status, 0) == pid && WIFEXITED(status))
			n = (unsigned int)WEXITSTATUS(status) % 100;
		else
			fprintf(stderr, "[%s] child died\n", backends[i]);
		total_passed += n;
		total_failed += NR_TESTS - n;
	}
	printf("parker: %u passed, %u failed\n", total_passed, total_failed);
	return total_failed ? 1 : 0;
}
