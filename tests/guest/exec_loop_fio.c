// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The fio comparison of exec_loop.ko with the stock loop driver
 * (scripts/exec-loop-fio.sh, on demand): tests/guest/init.c runs it as
 * /check once exec.ko, loop.ko and exec_loop.ko are loaded.  Built static;
 * fio itself (Debian's, with its libraries) is in the initramfs.
 *
 * Each round binds one disk of each driver to a file on tmpfs, filled
 * first so that reads read data, and runs on it every job of jobs[] with
 * each number of fio jobs asked for: 4 KiB random reads and writes,
 * O_DIRECT, io_uring, at queue depth 1 and 32, numjobs 1, 2, ... (fio's
 * --numjobs with --group_reporting: the IOPS are the group's sum, the
 * latency percentiles those of every I/O of the group).  The drivers
 * alternate, their order swapped every round.  Each fio run prints one
 * terse (version 3) line, which this program prints again as
 *
 *	exec-fio: ROUND DRIVER JOB-njN TERSE-LINE
 *
 * for the script to parse, followed by the guest's CPU time and context
 * switches over the run (from /proc/stat), to tell where the time went:
 *
 *	exec-fio-cpu: ROUND DRIVER JOB-njN user=TICKS sys=TICKS idle=TICKS
 *		      ctxt=N
 *
 * With EXEC_FIO_TRACE=1 each run is also traced, and its trace summed up in
 * an "exec-fio-trace:" line (fio_trace.h); EXEC_FIO_TRACE_RAW=N prints N
 * lines of each run's trace as well.
 *
 * Rounds, the run time, the numbers of jobs (a comma-separated list,
 * default 1) and the jobs run (names of jobs[], comma-separated, default
 * all) come from the kernel command line (init's environment):
 * EXEC_FIO_ROUNDS, EXEC_FIO_RUNTIME, EXEC_FIO_NUMJOBS, EXEC_FIO_JOBS.
 * The results are KTAP, one case a run, so that scripts/kunit-qemu.sh
 * counts them; a run that fails fails the boot.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loop_guest.h"

#define MNT		"/tmp"
#define FILE_SIZE	(128UL << 20)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_NUMJOBS	8

#include "fio_trace.h"

static const struct loop_driver drivers[] = {
	{ "loop", "/dev/loop-control", "/dev/loop" },
	{ "exec_loop", "/dev/exec-loop-control", "/dev/exec_loop" },
};

struct job {
	const char *name;
	const char *rw;
	const char *iodepth;
};

static const struct job jobs[] = {
	{ "randread-qd1", "randread", "1" },
	{ "randread-qd32", "randread", "32" },
	{ "randwrite-qd1", "randwrite", "1" },
	{ "randwrite-qd32", "randwrite", "32" },
};

static int cases;
static const char *job_list;

/* Whether @job is one EXEC_FIO_JOBS asks for (all when it is not set). */
static int job_wanted(const struct job *job)
{
	size_t n = strlen(job->name);
	const char *p = job_list;

	if (!p || !*p)
		return 1;
	while (p) {
		if (!strncmp(p, job->name, n) && (p[n] == ',' || !p[n]))
			return 1;
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return 0;
}

static unsigned int numjobs[MAX_NUMJOBS];
static size_t nr_numjobs;

static unsigned int env_uint(const char *name, unsigned int def)
{
	const char *v = getenv(name);

	return v && *v ? (unsigned int)strtoul(v, NULL, 10) : def;
}

/* A disk of @drv bound to a filled file; returns its fd, or -1. */
static int bind(const struct loop_driver *drv, int *ctl, int *nr, char *path,
		size_t size)
{
	char file[64], buf[1 << 16];
	const char *step;
	int ffd, dfd;
	size_t off;

	snprintf(file, sizeof(file), MNT "/%s.img", drv->name);
	ffd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (ffd < 0)
		return -1;
	memset(buf, 0x5a, sizeof(buf));
	for (off = 0; off < FILE_SIZE; off += sizeof(buf))
		if (pwrite(ffd, buf, sizeof(buf), off) != sizeof(buf))
			goto fail_file;
	dfd = loop_guest_bind(drv, ffd, 4096, O_RDWR, ctl, nr, path, size,
			      &step);
	if (dfd < 0) {
		if (*ctl >= 0)
			close(*ctl);
		goto fail_file;
	}
	close(ffd);
	unlink(file);
	return dfd;

fail_file:
	close(ffd);
	unlink(file);
	return -1;
}

static void unbind(int dfd, int ctl, int nr)
{
	ioctl(dfd, LOOP_CLR_FD);
	close(dfd);
	ioctl(ctl, LOOP_CTL_REMOVE, nr);
	close(ctl);
}

struct cpu_stat {
	unsigned long long user, sys, idle, ctxt;
};

/* The guest's CPU time (all CPUs, in ticks) and context switches so far. */
static void cpu_stat(struct cpu_stat *st)
{
	unsigned long long v[8] = { 0 };
	char buf[256];
	FILE *f = fopen("/proc/stat", "r");

	memset(st, 0, sizeof(*st));
	if (!f)
		return;
	while (fgets(buf, sizeof(buf), f)) {
		if (!strncmp(buf, "cpu ", 4) &&
		    sscanf(buf + 4, "%llu %llu %llu %llu %llu %llu %llu %llu",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
			   &v[7]) == 8) {
			st->user = v[0] + v[1];
			st->sys = v[2] + v[5] + v[6];
			st->idle = v[3] + v[4];
		}
		sscanf(buf, "ctxt %llu", &st->ctxt);
	}
	fclose(f);
}

/* One fio run; prints its terse line.  Returns 0 on success. */
static int run_fio(unsigned int round, const struct loop_driver *drv,
		   const struct job *job, unsigned int nj, const char *path,
		   unsigned int runtime)
{
	char filename[80], rw[40], depth[40], rt[40], njobs[40], out[8192];
	int pipefd[2], status, waited;
	ssize_t n, len = 0;
	struct cpu_stat before, after;
	char *nl;
	pid_t pid;

	snprintf(filename, sizeof(filename), "--filename=%s", path);
	snprintf(rw, sizeof(rw), "--rw=%s", job->rw);
	snprintf(depth, sizeof(depth), "--iodepth=%s", job->iodepth);
	snprintf(rt, sizeof(rt), "--runtime=%u", runtime);
	snprintf(njobs, sizeof(njobs), "--numjobs=%u", nj);
	if (pipe(pipefd))
		return -1;
	cpu_stat(&before);
	trace_start();
	pid = fork();
	if (pid == 0) {
		char *argv[] = { "/usr/bin/fio", "--name=exec-loop", filename,
			rw, depth, rt, njobs, "--group_reporting",
			"--bs=4k", "--direct=1",
			"--ioengine=io_uring", "--time_based", "--ramp_time=1",
			"--norandommap", "--randrepeat=0",
			"--output-format=terse", "--terse-version=3", NULL };

		dup2(pipefd[1], STDOUT_FILENO);
		close(pipefd[0]);
		close(pipefd[1]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pipefd[1]);
	while ((n = read(pipefd[0], out + len, sizeof(out) - 1 - len)) > 0)
		len += n;
	close(pipefd[0]);
	out[len] = '\0';
	cpu_stat(&after);
	waited = pid > 0 && waitpid(pid, &status, 0) == pid;
	trace_report(round, drv->name, job->name, nj);
	if (!waited || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	nl = strchr(out, '\n');
	if (nl)
		*nl = '\0';
	if (strncmp(out, "3;", 2))
		return -1;
	line("exec-fio: %u %s %s-nj%u %s", round, drv->name, job->name, nj,
	     out);
	line("exec-fio-cpu: %u %s %s-nj%u user=%llu sys=%llu idle=%llu ctxt=%llu",
	     round, drv->name, job->name, nj, after.user - before.user,
	     after.sys - before.sys, after.idle - before.idle,
	     after.ctxt - before.ctxt);
	return 0;
}

static int run_round(unsigned int round, unsigned int runtime)
{
	int failed = 0, ctl, nr, dfd;
	char path[64];
	size_t d, j, i, k;

	for (i = 0; i < ARRAY_SIZE(drivers); i++) {
		/* Swapped every round: neither driver always goes first. */
		d = (i + round) % ARRAY_SIZE(drivers);
		dfd = bind(&drivers[d], &ctl, &nr, path, sizeof(path));
		for (k = 0; k < nr_numjobs; k++)
			for (j = 0; j < ARRAY_SIZE(jobs); j++) {
				int bad;

				if (!job_wanted(&jobs[j]))
					continue;
				bad = dfd < 0 ||
					  run_fio(round, &drivers[d], &jobs[j],
						  numjobs[k], path, runtime);

				line("    %sok %d %u-%s-%s-nj%u",
				     bad ? "not " : "", ++cases, round,
				     drivers[d].name, jobs[j].name,
				     numjobs[k]);
				failed += bad;
			}
		if (dfd >= 0)
			unbind(dfd, ctl, nr);
	}
	return failed;
}

/* EXEC_FIO_NUMJOBS: "1,2", ...; returns 0, or -1 on a bad list. */
static int parse_numjobs(void)
{
	const char *v = getenv("EXEC_FIO_NUMJOBS");
	char *end;

	if (!v || !*v)
		v = "1";
	while (*v) {
		unsigned long n = strtoul(v, &end, 10);

		if (end == v || n == 0 || n > 64 || nr_numjobs == MAX_NUMJOBS ||
		    (*end && *end != ','))
			return -1;
		numjobs[nr_numjobs++] = n;
		v = *end ? end + 1 : end;
	}
	return 0;
}

int main(void)
{
	unsigned int rounds = env_uint("EXEC_FIO_ROUNDS", 5);
	unsigned int runtime = env_uint("EXEC_FIO_RUNTIME", 3);
	unsigned int r;
	size_t j, nr_jobs = 0;
	int failed = 0;

	if (parse_numjobs()) {
		line("# exec_loop_fio: bad EXEC_FIO_NUMJOBS '%s'",
		     getenv("EXEC_FIO_NUMJOBS"));
		return 1;
	}
	job_list = getenv("EXEC_FIO_JOBS");
	for (j = 0; j < ARRAY_SIZE(jobs); j++)
		nr_jobs += job_wanted(&jobs[j]);
	if (!nr_jobs) {
		line("# exec_loop_fio: no job in EXEC_FIO_JOBS '%s'", job_list);
		return 1;
	}
	if (env_uint("EXEC_FIO_TRACE", 0))
		trace_setup(env_uint("EXEC_FIO_TRACE_RAW", 0));
	mkdir(MNT, 0755);
	if (mount("tmpfs", MNT, "tmpfs", 0, "size=300m")) {
		line("# exec_loop_fio: mount tmpfs: %s", strerror(errno));
		return 1;
	}
	line("KTAP version 1");
	line("1..1");
	line("    KTAP version 1");
	line("    # Subtest: exec-loop-fio");
	line("    1..%zu",
	     rounds * ARRAY_SIZE(drivers) * nr_numjobs * nr_jobs);
	for (r = 0; r < rounds; r++)
		failed += run_round(r, runtime);
	line("%sok 1 exec-loop-fio", failed ? "not " : "");
	umount(MNT);
	return failed ? 1 : 0;
}
