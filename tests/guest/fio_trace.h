/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Where a fio run's time went, from the guest's own event trace
 * (exec_loop_fio.c with EXEC_FIO_TRACE=1, scripts/exec-loop-fio.sh
 * --trace, on a kernel with event tracing): the block layer's issue and
 * completion of every request, and the scheduler's switches and wake-ups,
 * recorded over the run and read back in the guest, which prints one line
 * a run:
 *
 *	exec-fio-trace: ROUND DRIVER JOB-njN reqs=N drv_us=P50/P90/P99/MAX
 *		CLASS:run=MS,wait=MS,waits=N,preempted=N,wait_us=P99/MAX,
 *		by=N/N/N/N/N ...
 *
 * drv_us is each request's time in the driver (block_rq_issue, when the
 * block layer hands it to the driver, to block_rq_complete); fio's own
 * completion latency adds the time until fio's thread reaps it.  For each
 * class of task (fio, the stock driver's kworkers, exec's workers,
 * io_uring's workers, the rest): the CPU time it ran, the time it waited
 * runnable (from its wake-up, or from being switched out while runnable,
 * to its switch-in), how many such waits, how many were preemptions,
 * their p99 and longest, and how many of the preemptions went to each
 * class, in the same order.  Nothing is printed when the trace cannot be
 * set up; the run itself goes on.  Included by exec_loop_fio.c after its
 * FILE_SIZE, ARRAY_SIZE() and loop_guest.h's line().
 */
#ifndef EXEC_FIO_TRACE_H
#define EXEC_FIO_TRACE_H

#include <stdlib.h>
#include <sys/mount.h>

#define TRACEFS		"/sys/kernel/tracing"
#define TRACE_MAX_PID	32768
#define TRACE_REQ_SLOTS	(FILE_SIZE >> 12)
#define TRACE_DUMP_FROM	100000

enum trace_class { TC_FIO, TC_KWORKER, TC_EXEC, TC_IOU, TC_OTHER, TC_COUNT };

static const char *const trace_class_names[TC_COUNT] = {
	"fio", "kworker", "exec", "iou", "other",
};

struct trace_class_stat {
	double run_us, wait_us;
	unsigned long waits, preempted;
	unsigned long preempted_by[TC_COUNT];
	double *wait;		/* every wait, us, for the p99 */
	size_t nr_wait, cap_wait;
};

enum trace_state { TS_UNKNOWN, TS_RUNNING, TS_RUNNABLE, TS_ASLEEP };

struct trace_task {
	double since;		/* switch-in, or start of the runnable wait */
	unsigned char state;	/* enum trace_state */
	unsigned char preempted;
	unsigned char cls;
};

struct trace_req {
	unsigned long long key;	/* trace_req_key(), 0 when free */
	double issued;
};

static struct {
	int ok;
	unsigned int dump;	/* raw lines to print a run */
	struct trace_task *task;
	struct trace_req req[TRACE_REQ_SLOTS];
	struct trace_class_stat cls[TC_COUNT];
	double *lat;
	size_t nr_lat, cap_lat;
} ftr;

static int trace_write(const char *file, const char *val)
{
	char path[128];
	int fd, ret = 0;

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -1;
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		ret = -1;
	close(fd);
	return ret;
}

/*
 * The events and the buffer; ftr.ok only if all were set.  @dump raw lines
 * of each run's trace are printed too, from the TRACE_DUMP_FROM'th on
 * (about a fifth into a run of 3 s), as "exec-fio-raw:" lines.
 */
static void trace_setup(unsigned int dump)
{
	static const char *const events[] = {
		"events/block/block_rq_issue/enable",
		"events/block/block_rq_complete/enable",
		"events/sched/sched_switch/enable",
		"events/sched/sched_wakeup/enable",
	};
	size_t i;

	mkdir(TRACEFS, 0755);
	if (mount("nodev", TRACEFS, "tracefs", 0, NULL) && errno != EBUSY) {
		line("# fio trace: mount tracefs: %s", strerror(errno));
		return;
	}
	if (trace_write("tracing_on", "0") ||
	    trace_write("buffer_size_kb", "65536") ||
	    trace_write("trace_clock", "mono")) {
		line("# fio trace: tracefs: %s", strerror(errno));
		return;
	}
	for (i = 0; i < ARRAY_SIZE(events); i++)
		if (trace_write(events[i], "1")) {
			line("# fio trace: %s: %s", events[i], strerror(errno));
			return;
		}
	ftr.dump = dump;
	ftr.task = calloc(TRACE_MAX_PID, sizeof(*ftr.task));
	ftr.ok = ftr.task != NULL;
}

static void trace_start(void)
{
	if (!ftr.ok)
		return;
	trace_write("trace", "");
	trace_write("tracing_on", "1");
}

static int trace_push(double **arr, size_t *nr, size_t *cap, double v)
{
	if (*nr == *cap) {
		size_t n = *cap ? *cap * 2 : 4096;
		double *a = realloc(*arr, n * sizeof(*a));

		if (!a)
			return -1;
		*arr = a;
		*cap = n;
	}
	(*arr)[(*nr)++] = v;
	return 0;
}

static enum trace_class trace_classify(const char *comm)
{
	if (!strncmp(comm, "fio", 3))
		return TC_FIO;
	if (!strncmp(comm, "kworker", 7))
		return TC_KWORKER;
	if (!strncmp(comm, "exec", 4) || !strncmp(comm, "loop", 4))
		return TC_EXEC;
	if (!strncmp(comm, "iou-", 4))
		return TC_IOU;
	return TC_OTHER;
}

static struct trace_task *trace_task(int pid, const char *comm)
{
	struct trace_task *t;

	if (pid <= 0 || pid >= TRACE_MAX_PID)
		return NULL;
	t = &ftr.task[pid];
	t->cls = trace_classify(comm);
	return t;
}

/* @t starts waiting runnable at @ts, unless it is already. */
static void trace_runnable(struct trace_task *t, double ts, int preempted)
{
	if (t->state == TS_RUNNABLE)
		return;
	t->state = TS_RUNNABLE;
	t->since = ts;
	t->preempted = preempted;
}

static void trace_switch(const char *p, double ts)
{
	char prev[64], next[64], state[16];
	int ppid, npid, pprio, nprio;
	struct trace_task *t;

	if (sscanf(p, "prev_comm=%63s prev_pid=%d prev_prio=%d prev_state=%15s ==> next_comm=%63s next_pid=%d next_prio=%d",
		   prev, &ppid, &pprio, state, next, &npid, &nprio) != 7)
		return;
	t = trace_task(ppid, prev);
	if (t) {
		if (t->state == TS_RUNNING)
			ftr.cls[t->cls].run_us += ts - t->since;
		if (state[0] == 'R') {
			trace_runnable(t, ts, 1);
			ftr.cls[t->cls].preempted_by[trace_classify(next)]++;
		} else {
			t->state = TS_ASLEEP;
		}
	}
	t = trace_task(npid, next);
	if (t) {
		if (t->state == TS_RUNNABLE) {
			struct trace_class_stat *c = &ftr.cls[t->cls];

			c->wait_us += ts - t->since;
			c->waits++;
			c->preempted += t->preempted;
			trace_push(&c->wait, &c->nr_wait, &c->cap_wait,
				   ts - t->since);
		}
		t->state = TS_RUNNING;
		t->since = ts;
	}
}

static void trace_wakeup(const char *p, double ts)
{
	char comm[64];
	struct trace_task *t;
	int pid;

	if (sscanf(p, "comm=%63s pid=%d", comm, &pid) != 2)
		return;
	t = trace_task(pid, comm);
	if (t && t->state != TS_RUNNING)
		trace_runnable(t, ts, 0);
}

/* "7,0 R 4096 () 2345 + 8 [fio]" or "7,0 R () 2345 + 8 [0]": the key. */
static unsigned long long trace_req_key(const char *p)
{
	unsigned int major, minor;
	unsigned long long sector;
	const char *s = strstr(p, ") ");

	if (sscanf(p, "%u,%u", &major, &minor) != 2 || !s ||
	    sscanf(s + 2, "%llu", &sector) != 1)
		return 0;
	return ((unsigned long long)major << 52 | (unsigned long long)minor << 40 |
		sector) + 1;
}

/*
 * A request is found again by its sector: the runs' file is 128 MiB, so
 * its 4 KiB blocks index the table, and two requests in flight for one
 * block, which would share a slot, are rare enough to ignore.
 */
static void trace_block(const char *p, double ts, int complete)
{
	unsigned long long key = trace_req_key(p);
	struct trace_req *r;

	if (!key)
		return;
	r = &ftr.req[((key - 1) >> 3) % TRACE_REQ_SLOTS];
	if (!complete) {
		r->key = key;
		r->issued = ts;
	} else if (r->key == key) {
		r->key = 0;
		trace_push(&ftr.lat, &ftr.nr_lat, &ftr.cap_lat, ts - r->issued);
	}
}

static int trace_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double trace_pct(double *v, size_t n, double pct)
{
	if (!n)
		return 0;
	return v[(size_t)((n - 1) * pct / 100.0 + 0.5)];
}

/* The line's timestamp: the word before @ev (" 123.456789: "), in us. */
static double trace_ts(const char *line, const char *ev)
{
	const char *s = ev;

	while (s > line && s[-1] != ' ')
		s--;
	return strtod(s, NULL) * 1e6;
}

static void trace_parse(FILE *f)
{
	static const char *const marks[] = {
		": sched_switch: ", ": sched_wakeup: ", ": block_rq_issue: ",
		": block_rq_complete: ",
	};
	char buf[512];
	size_t i;

	unsigned long nline = 0;

	while (fgets(buf, sizeof(buf), f)) {
		char *ev = NULL;
		double ts;

		if (buf[0] == '#')
			continue;
		if (++nline > TRACE_DUMP_FROM && nline <= TRACE_DUMP_FROM + ftr.dump)
			line("exec-fio-raw: %s", strtok(buf, "\n"));
		for (i = 0; i < ARRAY_SIZE(marks) && !ev; i++)
			ev = strstr(buf, marks[i]);
		if (!ev)
			continue;
		i--;
		ts = trace_ts(buf, ev);
		ev += strlen(marks[i]);
		if (i == 0)
			trace_switch(ev, ts);
		else if (i == 1)
			trace_wakeup(ev, ts);
		else
			trace_block(ev, ts, i == 3);
	}
}

/* Stops the trace, reads it back and prints the run's line. */
static void trace_report(unsigned int round, const char *drv, const char *job,
			 unsigned int nj)
{
	char out[1024];
	size_t len, i;
	FILE *f;

	if (!ftr.ok)
		return;
	trace_write("tracing_on", "0");
	memset(ftr.task, 0, TRACE_MAX_PID * sizeof(*ftr.task));
	memset(ftr.req, 0, sizeof(ftr.req));
	for (i = 0; i < TC_COUNT; i++) {
		ftr.cls[i].run_us = ftr.cls[i].wait_us = 0;
		ftr.cls[i].waits = ftr.cls[i].preempted = 0;
		memset(ftr.cls[i].preempted_by, 0,
		       sizeof(ftr.cls[i].preempted_by));
		ftr.cls[i].nr_wait = 0;
	}
	ftr.nr_lat = 0;
	f = fopen(TRACEFS "/trace", "r");
	if (!f)
		return;
	trace_parse(f);
	fclose(f);
	qsort(ftr.lat, ftr.nr_lat, sizeof(double), trace_cmp);
	len = snprintf(out, sizeof(out),
		       "exec-fio-trace: %u %s %s-nj%u reqs=%zu drv_us=%.0f/%.0f/%.0f/%.0f",
		       round, drv, job, nj, ftr.nr_lat,
		       trace_pct(ftr.lat, ftr.nr_lat, 50),
		       trace_pct(ftr.lat, ftr.nr_lat, 90),
		       trace_pct(ftr.lat, ftr.nr_lat, 99),
		       trace_pct(ftr.lat, ftr.nr_lat, 100));
	for (i = 0; i < TC_COUNT && len < sizeof(out); i++) {
		struct trace_class_stat *c = &ftr.cls[i];

		qsort(c->wait, c->nr_wait, sizeof(double), trace_cmp);
		len += snprintf(out + len, sizeof(out) - len,
				" %s:run=%.0f,wait=%.0f,waits=%lu,preempted=%lu,wait_us=%.0f/%.0f,by=%lu/%lu/%lu/%lu/%lu",
				trace_class_names[i], c->run_us / 1000,
				c->wait_us / 1000, c->waits, c->preempted,
				trace_pct(c->wait, c->nr_wait, 99),
				trace_pct(c->wait, c->nr_wait, 100),
				c->preempted_by[TC_FIO],
				c->preempted_by[TC_KWORKER],
				c->preempted_by[TC_EXEC],
				c->preempted_by[TC_IOU],
				c->preempted_by[TC_OTHER]);
	}
	line("%s", out);
}

#endif /* EXEC_FIO_TRACE_H */
