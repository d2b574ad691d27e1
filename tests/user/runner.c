// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The userspace KUnit runner: runs every suite the test files registered with
 * kunit_test_suites() and prints KTAP version 1, as the kernel's KUnit does,
 * then one summary line, "N passed, N failed[, N skipped]", that CI reads.
 *
 *   exec-tests [GLOB]     GLOB matches suite names ("exec-loop", "exec-*"),
 *                         or "suite.case" to pick cases
 *
 * Environment:
 *   EXEC_STRESS_TASKS     tasks per stress configuration (default 10000000)
 *   EXEC_TEST_TIMEOUT     seconds one case may take (default 300); a case
 *                         that takes longer is reported failed and the run
 *                         ends, so that a hung executor cannot hang CI;
 *                         first every thread's stack goes to stderr
 *
 * A WARN_ON_ONCE() of the library that fires during a case fails it, as a
 * WARNING fails the kernel's KUnit run (scripts/kunit-qemu.sh): the runner
 * takes the library's log (exec_user_set_log()) before every case.  A
 * warning that a case provokes on purpose names its function in
 * warn_allowed[], as the kernel run's --allow does; one that fires between
 * cases fails the run.  A case that installs a log callback of its own
 * sees the warnings of its time itself.
 *
 * Exit status: 0 if no case failed and at least one ran, 1 otherwise.
 */
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <kunit/test.h>

#include "exec_test.h"

#define STRESS_TASKS_DEFAULT	10000000UL
#define CASE_TIMEOUT_DEFAULT	300U

struct kunit_user_alloc {
	struct kunit_user_alloc *next;
	/* keeps the caller's memory as aligned as malloc()'s */
	max_align_t data[];
};

static struct kunit_user_registration *reg_head, **reg_tail = &reg_head;

/* Serialises multi-line output and the allocation list of the case. */
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * The case being run.  Static rather than on the runner's stack so that a
 * worker thread a broken case leaves behind can still report into it.
 */
static struct kunit case_state;
static jmp_buf case_env;
static __thread struct kunit *case_thread_test;

static unsigned int nr_passed, nr_failed, nr_skipped;

/*
 * The case running, for the library's log, whose warnings may come from any
 * of its threads; NULL between cases.
 */
static struct kunit *case_running;
static unsigned int nr_stray_warnings;

/*
 * Functions whose warning a case provokes on purpose: destroying an
 * executor that something still uses (tests/lifetime_test.c).
 */
static const char *const warn_allowed[] = {
	"exec_executor_check_unused()",
};

/* Watchdog state, read by the watchdog thread. */
static pthread_mutex_t wd_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wd_cond;	/* on CLOCK_MONOTONIC, set up in main() */
static const char *wd_case;
static unsigned int wd_case_nr;
static struct timespec wd_deadline;
static unsigned int case_timeout = CASE_TIMEOUT_DEFAULT;

unsigned long exec_test_stress_tasks(void)
{
	static unsigned long tasks;
	const char *s;
	char *end;
	unsigned long v;

	if (tasks)
		return tasks;
	tasks = STRESS_TASKS_DEFAULT;
	s = getenv("EXEC_STRESS_TASKS");
	if (s && *s) {
		errno = 0;
		v = strtoul(s, &end, 0);
		if (!errno && !*end && v)
			tasks = v;
		else
			fprintf(stderr, "exec-tests: ignoring EXEC_STRESS_TASKS=%s\n",
				s);
	}
	return tasks;
}

void kunit_user_register(struct kunit_user_registration *reg)
{
	reg->next = NULL;
	*reg_tail = reg;
	reg_tail = &reg->next;
}

void kunit_user_log(struct kunit *test, const char *level, const char *fmt,
		    ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	printf("    # %s: %s%s\n", test ? test->name : "?", level, buf);
}

void *kunit_kmalloc_array(struct kunit *test, size_t n, size_t size,
			  unsigned int gfp)
{
	struct kunit_user_alloc *a;

	(void)gfp;
	if (size && n > (SIZE_MAX - sizeof(*a)) / size)
		return NULL;
	a = malloc(sizeof(*a) + n * size);
	if (!a)
		return NULL;
	pthread_mutex_lock(&out_lock);
	a->next = test->allocs;
	test->allocs = a;
	pthread_mutex_unlock(&out_lock);
	return a->data;
}

void kunit_kfree(struct kunit *test, const void *ptr)
{
	struct kunit_user_alloc **pp, *a = NULL;

	if (!ptr)
		return;
	pthread_mutex_lock(&out_lock);
	for (pp = &test->allocs; *pp; pp = &(*pp)->next) {
		if ((const void *)(*pp)->data == ptr) {
			a = *pp;
			*pp = a->next;
			break;
		}
	}
	pthread_mutex_unlock(&out_lock);
	if (a)
		free(a);
	else
		fprintf(stderr, "exec-tests: kunit_kfree of unknown %p\n", ptr);
}

static void free_allocs(struct kunit *test)
{
	struct kunit_user_alloc *a, *next;

	for (a = test->allocs; a; a = next) {
		next = a->next;
		free(a);
	}
	test->allocs = NULL;
}

/*
 * The library's log while a case runs: its WARN_ON_ONCE() messages
 * ("WARNING at FILE:LINE FUNCTION(): CONDITION", user/include/
 * exec_platform.h) fail the case unless warn_allowed[] names the function;
 * other messages (a watchdog's report, a pr_warn() before a warning) are
 * printed as the case's log lines.
 */
static void runner_log(int level, const char *msg, void *arg)
{
	struct kunit *test = __atomic_load_n(&case_running, __ATOMIC_ACQUIRE);
	bool warning = !strncmp(msg, "WARNING at ", 11), allowed = false;
	size_t i;

	for (i = 0; warning && i < ARRAY_SIZE(warn_allowed); i++)
		allowed |= strstr(msg, warn_allowed[i]) != NULL;
	pthread_mutex_lock(&out_lock);
	if (warning && !allowed && test)
		__atomic_store_n(&test->status, KUNIT_FAILURE,
				 __ATOMIC_RELAXED);
	else if (warning && !allowed)
		nr_stray_warnings++;
	printf("    # %s: %s%s\n", test ? test->name : "(between cases)",
	       msg, warning ? (allowed ? " (provoked)" : " (fails)") : "");
	pthread_mutex_unlock(&out_lock);
}

void kunit_user_fail_begin(struct kunit *test, const char *file, int line,
			   enum kunit_user_kind kind)
{
	pthread_mutex_lock(&out_lock);
	__atomic_store_n(&test->status, KUNIT_FAILURE, __ATOMIC_RELAXED);
	printf("    # %s: %s FAILED at %s:%d\n", test->name,
	       kind == KUNIT_ASSERTION ? "ASSERTION" : "EXPECTATION", file,
	       line);
}

void kunit_user_fail_text(struct kunit *test, const char *fmt, ...)
{
	va_list ap;

	(void)test;
	fputs("    ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

void kunit_user_fail_end(struct kunit *test, enum kunit_user_kind kind)
{
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
	if (kind == KUNIT_ASSERTION)
		kunit_user_abort(test);
}

void kunit_user_mark_skipped(struct kunit *test, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(test->status_comment, sizeof(test->status_comment), fmt, ap);
	va_end(ap);
	/* A failure already recorded is not hidden by a later skip. */
	if (__atomic_load_n(&test->status, __ATOMIC_RELAXED) != KUNIT_FAILURE)
		__atomic_store_n(&test->status, KUNIT_SKIPPED,
				 __ATOMIC_RELAXED);
}

void kunit_user_abort(struct kunit *test)
{
	if (case_thread_test == test && test->abort_env)
		longjmp(*test->abort_env, 1);
	/*
	 * Another thread: it cannot be unwound, so it carries on; the failure
	 * is recorded already.
	 */
	printf("    # %s: assertion failed off the case's thread; thread continues\n",
	       test->name);
}

static void watchdog_arm(const char *name, unsigned int nr)
{
	pthread_mutex_lock(&wd_lock);
	wd_case = name;
	wd_case_nr = nr;
	clock_gettime(CLOCK_MONOTONIC, &wd_deadline);
	wd_deadline.tv_sec += case_timeout;
	pthread_cond_signal(&wd_cond);
	pthread_mutex_unlock(&wd_lock);
}

static void watchdog_disarm(void)
{
	pthread_mutex_lock(&wd_lock);
	wd_case = NULL;
	pthread_mutex_unlock(&wd_lock);
}

/*
 * Before a hung run ends, every thread's stack, so that the hang can be
 * read from a CI log.  gdb attached to the process prints them all, with
 * names and lines (scripts/install-deps.sh installs it).  Without gdb,
 * each thread that takes signals, signalled in turn, writes its own with
 * backtrace_symbols_fd(), which does not allocate (a hung thread may hold
 * the allocator's lock), and so does the listing of the threads; the
 * library's threads block every signal and are only named.  Frames of
 * static functions print as offsets into the binary there, which
 * "addr2line -f -e exec-tests OFFSET" names for the same build.
 */
/* Ignored by default: a thread that takes it too late is not killed. */
#define STACK_SIGNAL	SIGURG
#define STACK_FRAMES	48
#define STACK_WAIT_MS	200
#define STACK_GDB_WAIT_S	120

static int stack_written;	/* set by the signalled thread, atomically */

/*
 * Writes "    # <what> <n>:" and a newline to stderr, without stdio; @what
 * is cut short if need be, @n is not negative.
 */
static void stack_write_header(const char *what, long n)
{
	char buf[128], digits[24];
	size_t len = strlen(what), d = 0;

	do {
		digits[d++] = (char)('0' + n % 10);
		n /= 10;
	} while (n && d < sizeof(digits));
	/* The prefix, a space, the digits, ':' and '\n' fit beside it. */
	len = len < sizeof(buf) - 6 - 1 - d - 2 ?
	      len : sizeof(buf) - 6 - 1 - d - 2;
	memcpy(buf, "    # ", 6);
	memcpy(buf + 6, what, len);
	len += 6;
	buf[len++] = ' ';
	while (d)
		buf[len++] = digits[--d];
	buf[len++] = ':';
	buf[len++] = '\n';
	if (write(STDERR_FILENO, buf, len) < 0)
		return;
}

static void stack_write_own(int sig)
{
	void *frames[STACK_FRAMES];
	int saved = errno, n;

	(void)sig;
	stack_write_header("stack of thread", (long)syscall(SYS_gettid));
	n = backtrace(frames, STACK_FRAMES);
	backtrace_symbols_fd(frames, n, STDERR_FILENO);
	__atomic_store_n(&stack_written, 1, __ATOMIC_RELEASE);
	errno = saved;
}

struct stack_dirent {
	unsigned long long ino;
	long long off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/* gdb's "thread apply all bt" on this process; false if it did not run. */
static bool stacks_write_gdb(void)
{
	char pid[24];
	int status, s;
	pid_t child;

	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	/* Where Yama restricts ptrace to descendants, let the child in. */
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	child = fork();
	if (child < 0)
		return false;
	if (!child) {
		dup2(STDERR_FILENO, STDOUT_FILENO);
		execlp("gdb", "gdb", "-nx", "-batch", "-p", pid,
		       "-ex", "thread apply all bt", (char *)NULL);
		_exit(127);
	}
	for (s = 0; s < STACK_GDB_WAIT_S * 10; s++) {
		if (waitpid(child, &status, WNOHANG) == child)
			return WIFEXITED(status) && !WEXITSTATUS(status);
		usleep(100000);
	}
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	return false;
}

static void stacks_write_all(void)
{
	struct sigaction sa = { .sa_handler = stack_write_own };
	long self = (long)syscall(SYS_gettid), tid;
	char buf[4096];
	long n, pos;
	int fd, ms;

	if (stacks_write_gdb())
		return;
	stack_write_header("no gdb; the stacks of threads that take signals, pid",
			   (long)getpid());
	sigemptyset(&sa.sa_mask);
	if (sigaction(STACK_SIGNAL, &sa, NULL))
		return;
	fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (pos = 0; pos < n;
		     pos += ((struct stack_dirent *)(buf + pos))->reclen) {
			tid = atol(((struct stack_dirent *)(buf + pos))->name);
			if (tid <= 0 || tid == self)
				continue;
			__atomic_store_n(&stack_written, 0, __ATOMIC_RELAXED);
			if (syscall(SYS_tgkill, (long)getpid(), tid,
				    STACK_SIGNAL)) {
				stack_write_header("cannot signal thread", tid);
				continue;
			}
			for (ms = 0; ms < STACK_WAIT_MS &&
			     !__atomic_load_n(&stack_written, __ATOMIC_ACQUIRE);
			     ms++)
				usleep(1000);
			if (ms == STACK_WAIT_MS)
				stack_write_header("no stack (signals blocked?) from thread",
						   tid);
		}
	}
	close(fd);
}

static void *watchdog(void *arg)
{
	struct timespec now;

	(void)arg;
	pthread_mutex_lock(&wd_lock);
	for (;;) {
		if (!wd_case) {
			pthread_cond_wait(&wd_cond, &wd_lock);
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > wd_deadline.tv_sec ||
		    (now.tv_sec == wd_deadline.tv_sec &&
		     now.tv_nsec >= wd_deadline.tv_nsec))
			break;
		/* a spurious or re-arming wake-up just re-reads the deadline */
		pthread_cond_timedwait(&wd_cond, &wd_lock, &wd_deadline);
	}
	/*
	 * The case hangs.  No one can unwind it, so report it failed and end
	 * the run with what is known.
	 */
	pthread_mutex_lock(&out_lock);
	printf("    # %s: timed out after %u s; the threads' stacks follow on stderr\n",
	       wd_case, case_timeout);
	fflush(stdout);
	stacks_write_all();
	printf("    not ok %u - %s\n", wd_case_nr, wd_case);
	printf("# exec-tests: aborted, remaining cases not run\n");
	printf("%u passed, %u failed", nr_passed, nr_failed + 1);
	if (nr_skipped)
		printf(", %u skipped", nr_skipped);
	printf("\n");
	fflush(stdout);
	_exit(1);
	return NULL;
}

static bool suite_selected(const struct kunit_suite *suite, const char *glob)
{
	char sglob[256];
	const char *dot;

	if (!glob)
		return true;
	dot = strchr(glob, '.');
	if (!dot)
		return !fnmatch(glob, suite->name, 0);
	snprintf(sglob, sizeof(sglob), "%.*s", (int)(dot - glob), glob);
	return !fnmatch(sglob, suite->name, 0);
}

static bool case_selected(const struct kunit_case *c, const char *glob)
{
	const char *dot = glob ? strchr(glob, '.') : NULL;

	return !dot || !fnmatch(dot + 1, c->name, 0);
}

static unsigned int count_cases(const struct kunit_suite *suite,
				const char *glob)
{
	const struct kunit_case *c;
	unsigned int n = 0;

	for (c = suite->test_cases; c->run_case; c++)
		n += case_selected(c, glob);
	return n;
}

static int run_case(struct kunit_suite *suite, struct kunit_case *c,
		    unsigned int nr, bool suite_ok)
{
	struct kunit *test = &case_state;

	memset(test, 0, sizeof(*test));
	test->name = c->name;
	test->status = KUNIT_SUCCESS;
	test->abort_env = &case_env;
	case_thread_test = test;
	__atomic_store_n(&case_running, test, __ATOMIC_RELEASE);
	/* Again for every case: one may have installed its own. */
	exec_user_set_log(runner_log, NULL);
	watchdog_arm(c->name, nr);

	if (!suite_ok) {
		kunit_err(test, "suite initialisation failed");
		test->status = KUNIT_FAILURE;
	} else if (!setjmp(case_env)) {
		if (suite->init && suite->init(test)) {
			kunit_err(test, "failed to initialize");
			test->status = KUNIT_FAILURE;
		} else {
			c->run_case(test);
		}
	}
	if (suite_ok && suite->exit && !setjmp(case_env))
		suite->exit(test);

	watchdog_disarm();
	__atomic_store_n(&case_running, NULL, __ATOMIC_RELEASE);
	case_thread_test = NULL;
	test->abort_env = NULL;
	free_allocs(test);

	c->status = __atomic_load_n(&test->status, __ATOMIC_RELAXED);
	pthread_mutex_lock(&out_lock);
	switch (c->status) {
	case KUNIT_SUCCESS:
		printf("    ok %u - %s\n", nr, c->name);
		nr_passed++;
		break;
	case KUNIT_SKIPPED:
		printf("    ok %u - %s # SKIP %s\n", nr, c->name,
		       test->status_comment);
		nr_skipped++;
		break;
	default:
		printf("    not ok %u - %s\n", nr, c->name);
		nr_failed++;
		break;
	}
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
	return c->status;
}

static bool run_suite(struct kunit_suite *suite, unsigned int nr,
		      const char *glob)
{
	unsigned int pass = 0, fail = 0, skip = 0, n = 0;
	struct kunit_case *c;
	bool suite_ok = true;

	printf("    KTAP version 1\n");
	printf("    # Subtest: %s\n", suite->name);
	printf("    1..%u\n", count_cases(suite, glob));
	fflush(stdout);
	if (suite->suite_init && suite->suite_init(suite))
		suite_ok = false;

	for (c = suite->test_cases; c->run_case; c++) {
		if (!case_selected(c, glob))
			continue;
		switch (run_case(suite, c, ++n, suite_ok)) {
		case KUNIT_SUCCESS:
			pass++;
			break;
		case KUNIT_SKIPPED:
			skip++;
			break;
		default:
			fail++;
			break;
		}
	}
	if (suite_ok && suite->suite_exit)
		suite->suite_exit(suite);

	printf("# %s: pass:%u fail:%u skip:%u total:%u\n", suite->name, pass,
	       fail, skip, n);
	if (fail)
		printf("not ok %u - %s\n", nr, suite->name);
	else if (skip && !pass)
		printf("ok %u - %s # SKIP\n", nr, suite->name);
	else
		printf("ok %u - %s\n", nr, suite->name);
	fflush(stdout);
	return !fail;
}

int main(int argc, char **argv)
{
	struct kunit_user_registration *reg;
	const char *glob = argc > 1 ? argv[1] : NULL;
	const char *s;
	unsigned int nr_suites = 0, nr = 0;
	pthread_condattr_t ca;
	void *frame;
	pthread_t wd;
	size_t i;

	if (argc > 2 || (glob && (!strcmp(glob, "-h") ||
				  !strcmp(glob, "--help")))) {
		fprintf(stderr, "usage: %s [SUITE-GLOB[.CASE-GLOB]]\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* The unwinder's library is loaded now, not in a hung run's handler. */
	backtrace(&frame, 1);
	s = getenv("EXEC_TEST_TIMEOUT");
	if (s && atoi(s) > 0)
		case_timeout = (unsigned int)atoi(s);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&wd_cond, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&wd, NULL, watchdog, NULL)) {
		fprintf(stderr, "exec-tests: cannot start the watchdog\n");
		return 1;
	}
	pthread_detach(wd);

	for (reg = reg_head; reg; reg = reg->next)
		for (i = 0; i < reg->nr; i++)
			if (suite_selected(reg->suites[i], glob) &&
			    count_cases(reg->suites[i], glob))
				nr_suites++;

	printf("KTAP version 1\n");
	printf("1..%u\n", nr_suites);
	fflush(stdout);
	for (reg = reg_head; reg; reg = reg->next)
		for (i = 0; i < reg->nr; i++)
			if (suite_selected(reg->suites[i], glob) &&
			    count_cases(reg->suites[i], glob))
				run_suite(reg->suites[i], ++nr, glob);

	printf("# Totals: pass:%u fail:%u skip:%u total:%u\n", nr_passed,
	       nr_failed, nr_skipped, nr_passed + nr_failed + nr_skipped);
	if (nr_stray_warnings)
		printf("# %u warning(s) of the library between cases\n",
		       nr_stray_warnings);
	printf("%u passed, %u failed", nr_passed, nr_failed);
	if (nr_skipped)
		printf(", %u skipped", nr_skipped);
	printf("\n");
	fflush(stdout);
	if (!nr_suites)
		fprintf(stderr, "exec-tests: no case matches '%s'\n",
			glob ? glob : "");
	return nr_failed || nr_stray_warnings || !nr_suites ? 1 : 0;
}
