// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * /init of the initramfs that scripts/kunit-qemu.sh boots the test kernel
 * with.  Built static (gcc -static -Os), so the initramfs needs no libc, no
 * shell and no busybox.
 *
 * It loads the modules named in /modules/order, one per line, in that
 * order:
 *
 *	exec.ko
 *	exec_test.ko stress_tasks=1000
 *
 * (a file under /modules/, then the module parameters, if any).  KUnit runs
 * the suites of a module while the module loads, so when finit_module()
 * returns, the module's results are in the kernel log.  Then, if
 * EXEC_UNLOAD=1 is in the environment (the kernel passes unknown
 * "name=value" command line parameters to init as environment), it unloads
 * them in reverse order and checks that none is left in /proc/modules;
 * EXEC_HOLD_MS (default 0) is how long they stay loaded first, so that a
 * module that starts work at load has some in flight at unload.
 * With EXEC_TRACE_EVENTS=1, as soon as a module has brought the trace
 * events of include/trace/events/exec.h (exec.ko, loaded first), it mounts
 * tracefs, enables events/exec/ in a ring buffer that keeps the oldest
 * events when full (options/overwrite 0: the kernel-only exec-trace suite,
 * which Kbuild links first, runs first and produces every event), and once
 * every module is loaded it counts each event's lines in the trace; an
 * event that never appears fails the run.
 * Where the kernel has failslab (/sys/kernel/debug/failslab), it lets
 * failslab fail GFP_KERNEL allocations and turns off its stack dump before
 * the first load, so that the exec-alloc-failslab suite's requests
 * (current->fail_nth) take effect; nothing fails unless a task asks.
 * Where the kernel has them, it also sets failslab and fail_page_alloc to
 * fail every allocation of a task marked make_it_fail (probability 100,
 * task-filter on, ignore-gfp-wait off, a large count of times, no stack
 * dump): nothing fails unless a task marks itself, as the exec-mem-reclaim
 * suite does; at the end it reports how many failures each injected.
 * With EXEC_FREEZE=N (N rounds), once every module is loaded, it sets
 * /sys/power/pm_test to "freezer" and suspend.pm_test_delay to 0 (the test
 * holds the freeze as long as it needs),
 * and for each round writes "arm" to exec_test.ko's freeze_test parameter
 * (kernel/tests/freeze_test.c), "freeze" to /sys/power/state (init is the
 * task that suspends, so it is not frozen; the kernel thaws once the
 * freeze is complete), then "check"; a check that fails, or a freeze that
 * fails, fails the run.  The freeze cannot be a KUnit case: KUnit runs a
 * module's cases inside init's finit_module(), an uninterruptible wait
 * that the freezer of user space waits for in vain.
 * With EXEC_LOAD=L (default 0: none), the loaded variant of the kernel
 * benchmark (scripts/kernel-bench.sh --load): just before the first load
 * it forks L processes that spin on plain arithmetic at nice 0, never
 * sleeping and never making a system call, so that the modules' work
 * (which runs inside the loads) competes with a busy user space for the
 * CPUs; once the last load has returned it kills and reaps them, before
 * anything else (the freeze rounds, the scans) runs.
 * With EXEC_KMEMLEAK=1, it has kmemleak scan and forget what boot left
 * unreferenced before the first load (once boot is KMEMLEAK_AGE_MS old), scans again once every module is
 * loaded (their symbols still name the allocations' callers) and once more
 * at the end, at least KMEMLEAK_AGE_MS after the last load (kmemleak
 * reports nothing younger than 5 s), and prints every report; an
 * unreferenced object allocated through our modules fails the run, one
 * the kernel allocated for itself (no frame of ours) is only listed.
 * With EXEC_GCOV=1 (kunit-qemu.sh --gcov), at the very end, it prints every
 * .gcda file under /sys/kernel/debug/gcov/ on the console, so that the host
 * can write them beside the .gcno files of the build and run gcov
 * (scripts/gcov-console.py, make coverage-kernel): a "file" line with its
 * path, its bytes in hex, 64 a line, each line with its offset, and an
 * "end" line with the size and zlib's CRC-32, by which the host checks
 * that it has the file whole (a kernel message may land inside a line: the
 * host takes it out).  Hex, because no run of hex digits can look like a
 * kernel report to the log check.  gcov keeps
 * the counters of an unloaded module (gcov_persist=1), so the module exit
 * paths are counted; a run without any .gcda file fails.
 * If the initramfs has a program /check (kunit-qemu.sh --run), it runs it
 * once every module is loaded, before the rest: the program prints its
 * results as KTAP, which the script counts as it counts KUnit's, and a
 * status other than 0 fails the run.
 * Finally it waits EXEC_SETTLE_MS milliseconds (default 1000) for late
 * reports (a kthread left running in freed module text faults only when it
 * next runs) and restarts the machine, which QEMU's -no-reboot turns into
 * QEMU's exit.
 *
 * Every step prints one line starting "exec-init: " to the console; the
 * script reads them:
 *
 *	exec-init: loaded X / exec-init: failed X: errno N (text)
 *	exec-init: unloaded X / exec-init: failed to unload X: errno N (text)
 *	exec-init: left behind X
 *	exec-init: trace EVENT: N lines / exec-init: failed trace: ...
 *	exec-init: failslab: ... / exec-init: failed failslab: ...
 *	exec-init: fault injection: ... / exec-init: failed fault injection: ...
 *	exec-init: freeze round N: ... / exec-init: failed freeze ...
 *	exec-init: load: N spinning processes started / stopped
 *	exec-init: failed load: ...
 *	exec-init: kmemleak: LINE OF A REPORT OF OURS
 *	exec-init: kmemleak: the kernel's own, from FRAME
 *	exec-init: kmemleak WHEN: N objects of ours, N of the kernel's own
 *	exec-init: failed kmemleak: ...
 *	exec-gcov: file PATH / exec-gcov: data OFFSET HEX /
 *	exec-gcov: end PATH SIZE CRC32
 *	exec-init: gcov: N files, N bytes / exec-init: failed gcov: ...
 *	exec-init: done: N loaded, N unloaded, N failed
 *
 * The last one is printed on every path that gets that far; its absence
 * means init itself died or hung.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <signal.h>
#include <sys/reboot.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MODULES_DIR	"/modules"
#define ORDER_FILE	MODULES_DIR "/order"
#define MAX_MODULES	64
#define MAX_LINE	4096
#define CHECK_PROGRAM	"/check"

/* How long an unload may wait for the module's references to drop. */
#define UNLOAD_TRIES	50
#define UNLOAD_WAIT_MS	100

struct module_entry {
	char file[256];		/* under MODULES_DIR */
	char name[256];		/* the name the kernel knows it by */
	char params[MAX_LINE];
	int loaded;
};

static struct module_entry modules[MAX_MODULES];
static int nr_modules;

static void vsay(const char *prefix, const char *fmt, va_list ap)
{
	char buf[MAX_LINE + 512];
	int len;

	len = snprintf(buf, sizeof(buf), "%s", prefix);
	len += vsnprintf(buf + len, sizeof(buf) - len, fmt, ap);
	if (len > (int)sizeof(buf) - 2)
		len = sizeof(buf) - 2;
	buf[len++] = '\n';
	/*
	 * One write() per line: the console may also be printing kernel
	 * messages from other CPUs, and a line written in pieces could be
	 * split by them, which would hide it from the log check.
	 */
	if (write(STDOUT_FILENO, buf, len) < 0)
		return;	/* nowhere else to report to */
}

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("exec-init: ", fmt, ap);
	va_end(ap);
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * The kernel opens /dev/console for init from the built-in initramfs; if that
 * failed (no such node), fds 0-2 are closed and every marker would be lost.
 * devtmpfs, mounted by then, has the node.
 */
static void setup_console(void)
{
	int fd;

	if (fcntl(STDOUT_FILENO, F_GETFD) != -1)
		return;
	fd = open("/dev/console", O_RDWR | O_NOCTTY);
	if (fd < 0)
		return;
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	if (fd > STDERR_FILENO)
		close(fd);
}

static void mount_one(const char *src, const char *dir, const char *type)
{
	mkdir(dir, 0755);
	/* EBUSY: already mounted (devtmpfs may be, with DEVTMPFS_MOUNT). */
	if (mount(src, dir, type, 0, NULL) && errno != EBUSY)
		say("cannot mount %s on %s: errno %d (%s)", type, dir, errno,
		    strerror(errno));
}

/* Whether /proc/filesystems lists @type. */
static int has_fs(const char *type)
{
	char buf[128];
	size_t len = strlen(type);
	FILE *f = fopen("/proc/filesystems", "r");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(buf, sizeof(buf), f)) {
		const char *name = strrchr(buf, '\t');

		name = name ? name + 1 : buf;
		found = !strncmp(name, type, len) &&
			(name[len] == '\n' || name[len] == '\0');
	}
	fclose(f);
	return found;
}

/* "exec-foo.ko" is known to the kernel as "exec_foo", as modprobe does. */
static void module_name(const char *file, char *name, size_t size)
{
	const char *base = strrchr(file, '/');
	size_t i, len;

	base = base ? base + 1 : file;
	len = strlen(base);
	if (len > 3 && !strcmp(base + len - 3, ".ko"))
		len -= 3;
	if (len >= size)
		len = size - 1;
	for (i = 0; i < len; i++)
		name[i] = base[i] == '-' ? '_' : base[i];
	name[len] = '\0';
}

static int read_order(void)
{
	char line[MAX_LINE];
	FILE *f;

	f = fopen(ORDER_FILE, "r");
	if (!f) {
		say("failed %s: errno %d (%s)", ORDER_FILE, errno,
		    strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		struct module_entry *m;
		char *p = line, *file, *params;

		line[strcspn(line, "\n")] = '\0';
		p += strspn(p, " \t");
		if (!*p || *p == '#')
			continue;
		if (nr_modules == MAX_MODULES) {
			say("failed %s: more than %d modules", ORDER_FILE,
			    MAX_MODULES);
			fclose(f);
			return -1;
		}
		file = p;
		p += strcspn(p, " \t");
		params = p;
		if (*p) {
			*p = '\0';
			params = p + 1 + strspn(p + 1, " \t");
		}
		m = &modules[nr_modules++];
		snprintf(m->file, sizeof(m->file), "%s", file);
		snprintf(m->params, sizeof(m->params), "%s", params);
		module_name(file, m->name, sizeof(m->name));
	}
	fclose(f);
	return 0;
}

static int load(struct module_entry *m)
{
	char path[sizeof(MODULES_DIR "/") + sizeof(m->file)];
	int fd, err;

	/* The bound: GCC cannot tell that m->file is terminated. */
	snprintf(path, sizeof(path), MODULES_DIR "/%.*s",
		 (int)sizeof(m->file) - 1, m->file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		say("failed %s: errno %d (%s)", m->file, err, strerror(err));
		return -1;
	}
	say("loading %s%s%s", m->file, *m->params ? " " : "", m->params);
	/* The module's KUnit suites run inside this call. */
	if (syscall(SYS_finit_module, fd, m->params, 0)) {
		err = errno;
		close(fd);
		say("failed %s: errno %d (%s)", m->file, err, strerror(err));
		return -1;
	}
	close(fd);
	m->loaded = 1;
	say("loaded %s", m->file);
	return 0;
}

static int unload(struct module_entry *m)
{
	int tries, err = 0;

	/*
	 * O_NONBLOCK fails at once while the module is still referenced
	 * rather than waiting forever; a reference that a correct module
	 * drops soon after its last user went away gets a few retries.
	 */
	for (tries = 0; tries < UNLOAD_TRIES; tries++) {
		if (!syscall(SYS_delete_module, m->name, O_NONBLOCK)) {
			say("unloaded %s", m->name);
			m->loaded = 0;
			return 0;
		}
		err = errno;
		if (err != EAGAIN && err != EBUSY)
			break;
		sleep_ms(UNLOAD_WAIT_MS);
	}
	say("failed to unload %s: errno %d (%s)", m->name, err,
	    strerror(err));
	return -1;
}

#define TRACEFS		"/sys/kernel/tracing"
#define TRACE_EVENTS_DIR	TRACEFS "/events/exec"

/* Every event of include/trace/events/exec.h. */
static const char *const trace_events[] = {
	"exec_work_queue", "exec_work_activate", "exec_work_start",
	"exec_work_finish", "exec_timer_arm", "exec_timer_fire",
	"exec_timer_cancel", "exec_worker_park", "exec_worker_wake",
};
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NR_TRACE_EVENTS	ARRAY_SIZE(trace_events)

static int write_file(const char *path, const char *value)
{
	ssize_t len = strlen(value);
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (write(fd, value, len) != len)
		err = errno ? errno : EIO;
	close(fd);
	return err;
}

/*
 * Enables the exec events once a loaded module has registered them;
 * returns 1 when done, 0 when they are not there yet, -1 on failure.
 */
static int trace_enable(void)
{
	static const char *const steps[][2] = {
		{ TRACEFS "/tracing_on", "0" },
		{ TRACEFS "/options/overwrite", "0" },
		{ TRACEFS "/trace", "" },
		{ TRACE_EVENTS_DIR "/enable", "1" },
		{ TRACEFS "/tracing_on", "1" },
	};
	struct stat st;
	unsigned int i;
	int err;

	if (stat(TRACEFS "/trace", &st))
		mount_one("tracefs", TRACEFS, "tracefs");
	if (stat(TRACEFS "/trace", &st)) {
		say("failed trace: no tracefs at " TRACEFS);
		return -1;
	}
	if (stat(TRACE_EVENTS_DIR, &st))
		return 0;
	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		err = write_file(steps[i][0], steps[i][1]);
		if (err) {
			say("failed trace: writing '%s' to %s: errno %d (%s)",
			    steps[i][1], steps[i][0], err, strerror(err));
			return -1;
		}
	}
	say("trace: " TRACE_EVENTS_DIR " enabled");
	return 1;
}

/*
 * Counts the lines of each exec event in the trace (" exec_work_queue: "
 * after the task, CPU and time stamp); one that has none is a failure.
 * Returns the number of events missing.
 */
static int trace_check(void)
{
	unsigned long counts[NR_TRACE_EVENTS] = { 0 };
	char line[MAX_LINE], key[64];
	unsigned int i;
	int missing = 0;
	FILE *f;

	write_file(TRACEFS "/tracing_on", "0");
	f = fopen(TRACEFS "/trace", "r");
	if (!f) {
		say("failed trace: " TRACEFS "/trace: errno %d (%s)", errno,
		    strerror(errno));
		return NR_TRACE_EVENTS;
	}
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		for (i = 0; i < NR_TRACE_EVENTS; i++) {
			snprintf(key, sizeof(key), " %s: ", trace_events[i]);
			if (strstr(line, key)) {
				counts[i]++;
				break;
			}
		}
	}
	fclose(f);
	write_file(TRACE_EVENTS_DIR "/enable", "0");
	for (i = 0; i < NR_TRACE_EVENTS; i++) {
		if (counts[i]) {
			say("trace %s: %lu lines", trace_events[i], counts[i]);
		} else {
			say("failed trace: no %s event in " TRACEFS "/trace",
			    trace_events[i]);
			missing++;
		}
	}
	return missing;
}

#define DEBUGFS		"/sys/kernel/debug"
#define FAILSLAB_DIR	DEBUGFS "/failslab"
#define KMEMLEAK_FILE	DEBUGFS "/kmemleak"
/* kmemleak's minimum age of a report (5 s), and a margin. */
#define KMEMLEAK_AGE_MS	6000
/* Lines kept of one report: its header, hex dump and backtrace. */
#define KMEMLEAK_LINES	32

/*
 * failslab fails only what a task asks for (fail_nth), but by default it
 * leaves alone the allocations that may sleep, which are the ones the
 * operations make; and each failure would dump a stack that the log check
 * takes for a report.  Returns 0, or -1 if failslab is there and could not
 * be set.
 */
static int failslab_setup(void)
{
	static const char *const steps[][2] = {
		{ FAILSLAB_DIR "/ignore-gfp-wait", "N" },
		{ FAILSLAB_DIR "/verbose", "0" },
	};
	struct stat st;
	unsigned int i;
	int err;

	if (stat(FAILSLAB_DIR, &st)) {
		say("failslab: not in this kernel");
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		err = write_file(steps[i][0], steps[i][1]);
		if (err) {
			say("failed failslab: writing '%s' to %s: errno %d (%s)",
			    steps[i][1], steps[i][0], err, strerror(err));
			return -1;
		}
	}
	say("failslab: allocations that may sleep fail on request");
	return 0;
}

#define FAIL_PAGE_DIR	DEBUGFS "/fail_page_alloc"
/* The count of failures each may inject: more than any run asks for. */
#define FAULT_TIMES	"1000000000"

/*
 * failslab and fail_page_alloc fail every allocation of a task that has
 * make_it_fail set, and no other (task-filter), with no stack dump; each
 * counts its failures down from FAULT_TIMES.  Returns 0, or -1 if they
 * are there and could not be set.
 */
static int fault_setup(void)
{
	static const char *const steps[][2] = {
		{ FAILSLAB_DIR "/task-filter", "Y" },
		{ FAILSLAB_DIR "/interval", "1" },
		{ FAILSLAB_DIR "/times", FAULT_TIMES },
		{ FAILSLAB_DIR "/probability", "100" },
		{ FAIL_PAGE_DIR "/task-filter", "Y" },
		{ FAIL_PAGE_DIR "/ignore-gfp-wait", "N" },
		{ FAIL_PAGE_DIR "/min-order", "0" },
		{ FAIL_PAGE_DIR "/verbose", "0" },
		{ FAIL_PAGE_DIR "/interval", "1" },
		{ FAIL_PAGE_DIR "/times", FAULT_TIMES },
		{ FAIL_PAGE_DIR "/probability", "100" },
	};
	struct stat st;
	unsigned int i;
	int err;

	if (stat(FAILSLAB_DIR, &st) || stat(FAIL_PAGE_DIR, &st)) {
		say("fault injection: no failslab and fail_page_alloc here");
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		err = write_file(steps[i][0], steps[i][1]);
		if (err) {
			say("failed fault injection: writing '%s' to %s: errno %d (%s)",
			    steps[i][1], steps[i][0], err, strerror(err));
			return -1;
		}
	}
	say("fault injection: every allocation of a make_it_fail task fails");
	return 0;
}

/* How many failures @dir injected since fault_setup(): its times count. */
static void fault_report(const char *dir)
{
	char path[256], buf[64] = "";
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "%s/times", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return;
	buf[len] = '\0';
	say("fault injection: %s injected %lld failures", dir,
	    atoll(FAULT_TIMES) - atoll(buf));
}

#define PM_TEST		"/sys/power/pm_test"
#define PM_STATE	"/sys/power/state"
#define PM_TEST_DELAY	"/sys/module/suspend/parameters/pm_test_delay"
#define FREEZE_TEST	"/sys/module/exec_test/parameters/freeze_test"

/* Prints the freeze test's last result line, as a failure or not. */
static void freeze_result(unsigned int round, int failed)
{
	char buf[512] = "";
	ssize_t len;
	int fd;

	fd = open(FREEZE_TEST, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len > 0)
			buf[len] = '\0';
	}
	buf[strcspn(buf, "\n")] = '\0';
	say("%sfreeze round %u: %s", failed ? "failed " : "", round, buf);
}

/*
 * @rounds suspend-to-idle freezes with pm_test at "freezer", each armed
 * and checked by exec_test.ko (kernel/tests/freeze_test.c).  Returns how
 * many failed.
 */
static int freeze_rounds(unsigned int rounds)
{
	unsigned int round;
	int err, failed = 0;

	err = write_file(PM_TEST, "freezer");
	if (!err)
		err = write_file(PM_TEST_DELAY, "0");
	if (err) {
		say("failed freeze: setting " PM_TEST ": errno %d (%s)", err,
		    strerror(err));
		return 1;
	}
	for (round = 1; round <= rounds; round++) {
		err = write_file(FREEZE_TEST, "arm");
		if (err) {
			say("failed freeze round %u: arm: errno %d (%s)", round,
			    err, strerror(err));
			failed++;
			break;
		}
		err = write_file(PM_STATE, "freeze");
		if (err) {
			say("failed freeze round %u: writing freeze to " PM_STATE
			    ": errno %d (%s)", round, err, strerror(err));
			failed++;
		}
		/* Checked even after a failed freeze: it cleans up too. */
		err = write_file(FREEZE_TEST, "check");
		freeze_result(round, err != 0);
		failed += err != 0;
	}
	write_file(PM_TEST, "none");
	return failed;
}

/* One report of /sys/kernel/debug/kmemleak: its lines, and whose it is. */
struct leak_report {
	char lines[KMEMLEAK_LINES][MAX_LINE];
	int nr_lines;
	int ours;
};

/*
 * A backtrace frame names our modules ("exec_foo+0x12/0x40 [exec]"), or
 * no symbol at all: code of a module unloaded since, and only ours were
 * loaded.  A report with neither is the kernel's own (its boot-time ACPI
 * caches, say).
 */
static void leak_line(struct leak_report *r, const char *line)
{
	const char *frame = strstr(line, "[<");

	if (frame && (strstr(frame, " [exec") || !strstr(frame, "+0x")))
		r->ours = 1;
	if (r->nr_lines < KMEMLEAK_LINES)
		snprintf(r->lines[r->nr_lines++], MAX_LINE, "%s", line);
}

/*
 * Prints a finished report: in full if it is ours (its "unreferenced
 * object" line fails the log check too), as the kernel's otherwise.
 * Returns whether it is ours.
 */
static int leak_report_end(struct leak_report *r)
{
	int i, ours = r->ours;

	for (i = 0; i < r->nr_lines; i++) {
		if (ours)
			say("kmemleak: %s", r->lines[i]);
		else if (strstr(r->lines[i], "[<"))
			say("kmemleak: the kernel's own, from%s",
			    strstr(r->lines[i], "]") + 1);
	}
	r->nr_lines = 0;
	r->ours = 0;
	return ours;
}

/*
 * Has kmemleak scan, prints its reports and returns how many objects of
 * ours it reports, or -1 if it could not be asked.  With @forget, nothing
 * is ours and the reports are then cleared: what boot leaves unreferenced
 * is not the modules' doing.
 */
static int kmemleak_scan(const char *when, int forget)
{
	static struct leak_report report;
	char line[MAX_LINE];
	int err, ours = 0, theirs = 0;
	FILE *f;

	err = write_file(KMEMLEAK_FILE, "scan");
	if (err) {
		say("failed kmemleak: scan %s: errno %d (%s)", when, err,
		    strerror(err));
		return -1;
	}
	f = fopen(KMEMLEAK_FILE, "r");
	if (!f) {
		say("failed kmemleak: reading " KMEMLEAK_FILE ": errno %d (%s)",
		    errno, strerror(errno));
		return -1;
	}
	report.nr_lines = 0;
	report.ours = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strstr(line, "unreferenced object") && report.nr_lines) {
			if (leak_report_end(&report) && !forget)
				ours++;
			else
				theirs++;
		}
		leak_line(&report, line);
	}
	if (report.nr_lines) {
		if (leak_report_end(&report) && !forget)
			ours++;
		else
			theirs++;
	}
	fclose(f);
	if (forget) {
		err = write_file(KMEMLEAK_FILE, "clear");
		if (err) {
			say("failed kmemleak: clear: errno %d (%s)", err,
			    strerror(err));
			return -1;
		}
	}
	say("kmemleak %s: %d objects of ours, %d of the kernel's own%s", when,
	    ours, theirs, forget ? ", forgotten" : "");
	return ours;
}

/* 0 if the scan found nothing the modules left, 1 otherwise. */
static int kmemleak_check(const char *when)
{
	int objects = kmemleak_scan(when, 0);

	if (objects > 0)
		say("failed kmemleak: %d unreferenced objects of ours %s",
		    objects, when);
	return objects != 0;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/*
 * kmemleak reports nothing younger than 5 s: until then, what boot left
 * unreferenced would not be reported, hence not forgotten either.
 */
static void boot_age_wait(void)
{
	struct timespec ts;
	long long up_ms;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	up_ms = ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
	if (up_ms < KMEMLEAK_AGE_MS)
		sleep_ms(KMEMLEAK_AGE_MS - up_ms);
}

/* The loaded variant's spinning processes (EXEC_LOAD), at most this many. */
#define MAX_SPINNERS	256

static pid_t spinners[MAX_SPINNERS];
static unsigned int nr_spinners;

/* Plain arithmetic, kept from being optimised away by a volatile sink. */
static void __attribute__((noreturn)) spin(unsigned int seed)
{
	volatile unsigned long long sink = seed;
	unsigned long long x = sink | 1;

	for (;;) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		sink = x;
	}
}

/*
 * Forks @nr spinning processes at nice 0 (init's own nice, set again in
 * case the kernel ever starts init otherwise).  Returns 0, or -1 if not
 * all could be started (load_stop() stops those that were).
 */
static int load_start(unsigned int nr)
{
	pid_t pid;

	if (nr > MAX_SPINNERS) {
		say("failed load: %u spinning processes, at most %d", nr,
		    MAX_SPINNERS);
		return -1;
	}
	while (nr_spinners < nr) {
		pid = fork();
		if (pid < 0) {
			say("failed load: fork: errno %d (%s)", errno,
			    strerror(errno));
			return -1;
		}
		if (!pid) {
			(void)setpriority(PRIO_PROCESS, 0, 0);
			spin(nr_spinners);
		}
		spinners[nr_spinners++] = pid;
	}
	say("load: %u spinning processes started", nr);
	return 0;
}

/* Kills and reaps every spinning process; returns how many would not go. */
static int load_stop(void)
{
	unsigned int i, started = nr_spinners;
	int failed = 0;

	if (!nr_spinners)
		return 0;
	for (i = 0; i < nr_spinners; i++)
		kill(spinners[i], SIGKILL);
	for (i = 0; i < nr_spinners; i++) {
		pid_t pid;

		do
			pid = waitpid(spinners[i], NULL, 0);
		while (pid < 0 && errno == EINTR);
		if (pid != spinners[i]) {
			say("failed load: waiting for process %d: errno %d (%s)",
			    (int)spinners[i], errno, strerror(errno));
			failed++;
		}
	}
	nr_spinners = 0;
	say("load: %u spinning processes stopped", started);
	return failed;
}

/* Run CHECK_PROGRAM, if the initramfs has one; returns 1 if it failed. */
static int run_check(void)
{
	char *const argv[] = { CHECK_PROGRAM, NULL };
	struct stat st;
	int status;
	pid_t pid;

	if (stat(CHECK_PROGRAM, &st))
		return 0;
	say("running " CHECK_PROGRAM);
	pid = fork();
	if (pid < 0) {
		say("failed " CHECK_PROGRAM ": fork: %s", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		execv(CHECK_PROGRAM, argv);
		say("failed " CHECK_PROGRAM ": exec: %s", strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			say("failed " CHECK_PROGRAM ": wait: %s",
			    strerror(errno));
			return 1;
		}
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		say("failed " CHECK_PROGRAM ": status 0x%x", status);
		return 1;
	}
	say("ran " CHECK_PROGRAM);
	return 0;
}

/* Return how many of our modules /proc/modules still lists. */
static int check_left_behind(void)
{
	char line[512], name[256];
	int i, left = 0;
	FILE *f;

	f = fopen("/proc/modules", "r");
	if (!f) {
		say("failed /proc/modules: errno %d (%s)", errno,
		    strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s", name) != 1)
			continue;
		for (i = 0; i < nr_modules; i++) {
			if (!strcmp(name, modules[i].name)) {
				say("left behind %s", name);
				left++;
			}
		}
	}
	fclose(f);
	return left;
}

#define GCOV_DIR	DEBUGFS "/gcov"
/* Bytes of a .gcda per console line: 128 hex digits. */
#define GCOV_LINE_BYTES	64

static unsigned int gcov_files;
static unsigned long gcov_bytes;
static int gcov_errors;

static void gcov_say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("exec-gcov: ", fmt, ap);
	va_end(ap);
}

/* zlib's CRC-32 (reflected, polynomial 0xedb88320), a bit at a time. */
static uint32_t crc32_update(uint32_t crc, const unsigned char *p,
			     size_t len)
{
	int k;

	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320U & -(crc & 1));
	}
	return ~crc;
}

/* Fills @buf from @fd up to @size bytes; returns the count, -1 on error. */
static ssize_t read_full(int fd, unsigned char *buf, size_t size)
{
	size_t got = 0;
	ssize_t n;

	while (got < size) {
		n = read(fd, buf + got, size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += n;
	}
	return got;
}

/*
 * Prints one .gcda on the console, framed as the top of this file says.
 * debugfs gives the file no size: it is read to its end.
 */
static void gcov_print(const char *path)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char buf[GCOV_LINE_BYTES];
	char digits[2 * GCOV_LINE_BYTES + 1];
	unsigned long size = 0;
	uint32_t crc = 0;
	ssize_t n, i;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		say("failed gcov: %s: errno %d (%s)", path, errno,
		    strerror(errno));
		gcov_errors++;
		return;
	}
	gcov_say("file %s", path);
	while ((n = read_full(fd, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i++) {
			digits[2 * i] = hex[buf[i] >> 4];
			digits[2 * i + 1] = hex[buf[i] & 15];
		}
		digits[2 * n] = '\0';
		gcov_say("data %lu %s", size, digits);
		crc = crc32_update(crc, buf, n);
		size += n;
	}
	if (n < 0) {
		say("failed gcov: reading %s: errno %d (%s)", path, errno,
		    strerror(errno));
		gcov_errors++;
	} else {
		gcov_say("end %s %lu %08x", path, size, (unsigned int)crc);
		gcov_files++;
		gcov_bytes += size;
	}
	close(fd);
}

/* Prints every .gcda under @path (of @len bytes, in a buffer of @size). */
static void gcov_walk(char *path, size_t len, size_t size)
{
	struct dirent *de;
	struct stat st;
	size_t n;
	DIR *dir;

	dir = opendir(path);
	if (!dir) {
		say("failed gcov: %s: errno %d (%s)", path, errno,
		    strerror(errno));
		gcov_errors++;
		return;
	}
	while ((de = readdir(dir))) {
		n = strlen(de->d_name);
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (len + 1 + n >= size) {
			say("failed gcov: a path under %s is too long", path);
			gcov_errors++;
			continue;
		}
		path[len] = '/';
		memcpy(path + len + 1, de->d_name, n + 1);
		/* The .gcno beside each .gcda is a link to the build's. */
		if (lstat(path, &st)) {
			say("failed gcov: %s: errno %d (%s)", path, errno,
			    strerror(errno));
			gcov_errors++;
		} else if (S_ISDIR(st.st_mode)) {
			gcov_walk(path, len + 1 + n, size);
		} else if (S_ISREG(st.st_mode) && n > 5 &&
			   !strcmp(de->d_name + n - 5, ".gcda")) {
			gcov_print(path);
		}
		path[len] = '\0';
	}
	closedir(dir);
}

/* 0 if every .gcda was printed and there was one at least, 1 otherwise. */
static int gcov_dump(void)
{
	char path[MAX_LINE] = GCOV_DIR;
	struct stat st;

	if (stat(GCOV_DIR, &st)) {
		say("failed gcov: no " GCOV_DIR " (CONFIG_GCOV_KERNEL off?)");
		return 1;
	}
	gcov_walk(path, strlen(path), sizeof(path));
	if (!gcov_files && !gcov_errors) {
		say("failed gcov: no .gcda file under " GCOV_DIR
		    " (modules built without EXEC_GCOV=1?)");
		return 1;
	}
	say("gcov: %u files, %lu bytes", gcov_files, gcov_bytes);
	return gcov_errors != 0;
}

static unsigned int env_uint(const char *name, unsigned int def)
{
	const char *v = getenv(name);

	return v && *v ? (unsigned int)strtoul(v, NULL, 10) : def;
}

int main(void)
{
	int i, loaded = 0, unloaded = 0, failed = 0;
	int do_unload = env_uint("EXEC_UNLOAD", 0) != 0;
	unsigned int settle_ms = env_uint("EXEC_SETTLE_MS", 1000);
	unsigned int hold_ms = env_uint("EXEC_HOLD_MS", 0);
	unsigned int freeze = env_uint("EXEC_FREEZE", 0);
	unsigned int spin_load = env_uint("EXEC_LOAD", 0);
	/* 0: to be enabled; 1: enabled; -1: not asked for, or failed. */
	int tracing = env_uint("EXEC_TRACE_EVENTS", 0) ? 0 : -1;
	int kmemleak = env_uint("EXEC_KMEMLEAK", 0) != 0;
	int gcov = env_uint("EXEC_GCOV", 0) != 0;
	long long loads_end = 0, wait_ms;
	struct stat st;

	mount_one("devtmpfs", "/dev", "devtmpfs");
	setup_console();
	mount_one("proc", "/proc", "proc");
	mount_one("sysfs", "/sys", "sysfs");
	say("start (unload %s, kmemleak %s)", do_unload ? "on" : "off",
	    kmemleak ? "on" : "off");
	/*
	 * The benchmark kernel has no debugfs (scripts/kernel-config-bench);
	 * what needs it (kmemleak, fault injection) checks for its files.
	 */
	if (access("/proc/filesystems", R_OK) || has_fs("debugfs"))
		mount_one("debugfs", DEBUGFS, "debugfs");
	else
		say("debugfs: not in this kernel");
	if (failslab_setup() || fault_setup())
		failed++;
	if (kmemleak && stat(KMEMLEAK_FILE, &st)) {
		say("failed kmemleak: no " KMEMLEAK_FILE
		    " (CONFIG_DEBUG_KMEMLEAK off?)");
		failed++;
		kmemleak = 0;
	}
	if (kmemleak) {
		boot_age_wait();
		if (kmemleak_scan("at boot", 1) < 0) {
			failed++;
			kmemleak = 0;
		}
	}

	if (read_order() || nr_modules == 0) {
		if (nr_modules == 0)
			say("failed %s: no modules listed", ORDER_FILE);
		failed++;
	}

	if (spin_load && !failed && load_start(spin_load))
		failed++;
	/*
	 * Stop at the first failure: the modules after it usually depend on
	 * it, and their errors would only bury the first one.
	 */
	for (i = 0; i < nr_modules && !failed; i++) {
		if (load(&modules[i])) {
			failed++;
		} else {
			loaded++;
			if (tracing == 0) {
				tracing = trace_enable();
				if (tracing < 0)
					failed++;
			}
		}
	}
	failed += load_stop();
	if (freeze && !failed)
		failed += freeze_rounds(freeze);
	if (!failed)
		failed += run_check();
	loads_end = now_ms();
	if (kmemleak && loaded)
		failed += kmemleak_check("with the modules loaded");
	if (tracing == 0 && loaded) {
		say("failed trace: no module brought " TRACE_EVENTS_DIR);
		failed++;
	} else if (tracing == 1) {
		failed += trace_check() ? 1 : 0;
	}

	if (hold_ms && loaded) {
		say("holding the modules for %u ms", hold_ms);
		sleep_ms(hold_ms);
	}

	if (do_unload) {
		for (i = nr_modules - 1; i >= 0; i--) {
			if (!modules[i].loaded)
				continue;
			if (unload(&modules[i]))
				failed++;
			else
				unloaded++;
		}
		failed += check_left_behind();
	}

	sleep_ms(settle_ms);
	if (kmemleak && loaded) {
		wait_ms = loads_end + KMEMLEAK_AGE_MS - now_ms();
		if (wait_ms > 0)
			sleep_ms(wait_ms);
		failed += kmemleak_check("at the end");
	}
	if (!stat(FAILSLAB_DIR, &st) && !stat(FAIL_PAGE_DIR, &st)) {
		fault_report(FAILSLAB_DIR);
		fault_report(FAIL_PAGE_DIR);
	}
	/* Last: the counters then include the unload and the settle time. */
	if (gcov)
		failed += gcov_dump();
	say("done: %d loaded, %d unloaded, %d failed", loaded, unloaded,
	    failed);
	sync();
	/*
	 * A restart rather than RB_POWER_OFF: the tiny kernel has no ACPI, so
	 * a power-off request would only halt the CPUs and QEMU would run on
	 * until its timeout.  QEMU's -no-reboot makes the restart its exit.
	 */
	reboot(RB_AUTOBOOT);
	say("reboot failed: errno %d (%s)", errno, strerror(errno));
	for (;;)
		pause();
}
