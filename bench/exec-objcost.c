// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * exec-objcost: what the objects a request creates cost, each on its own:
 * N of one kind are created (timed), the resident set is read with all N
 * alive, and all are destroyed (timed).  One JSON line per kind, as
 * exec-bench's lines: "create_ns" and "destroy_ns" (mean per call),
 * "bytes_per_object" (growth of the resident set over N; the caller's
 * array of handles or of embedded objects is touched before it, so an
 * embedded object's own size shows as "object_bytes" instead).
 *
 *   exec-objcost [--count N] [KIND...]
 *
 * Kinds: future (exec_future_create() / exec_future_put()), group
 * (exec_group_create() / exec_group_destroy()), latch (exec_latch_init()
 * on caller memory), cancel_token (exec_cancel_token_init()), closure
 * (exec_post_fn() to a loop executor nobody runs / the loop running that
 * one closure: the closure cache's record, warmed by nothing before),
 * bound_handler (exec_bind_executor() / exec_handler_unbind() on caller
 * memory) and handler_op (exec_handler_complete() of a bound handler,
 * which queues a copy of it with the result / the loop running it).
 * Strands are exec-bench's strand_churn.  Each kind runs in a process of
 * its own, so that none finds the memory another freed.  Exit status 0
 * only if every call succeeded.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include <exec/exec.h>
#include <exec/user.h>

#include "bench.h"

struct objcost {
	const char *kind;
	size_t object_bytes;	/* the caller's memory, for embedded kinds */
	int (*create)(void *objs, unsigned long i);
	void (*destroy)(void *objs, unsigned long i);
	size_t handle_bytes;
};

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* bench-mem.c reports its errors through this. */
void bench_err(const char *fmt, ...)
{
	va_list ap;

	fputs("exec-objcost: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int future_create(void *objs, unsigned long i)
{
	return exec_future_create(&((struct exec_future **)objs)[i]);
}

static void future_destroy(void *objs, unsigned long i)
{
	exec_future_put(((struct exec_future **)objs)[i]);
}

static int group_create(void *objs, unsigned long i)
{
	return exec_group_create(&((struct exec_group **)objs)[i]);
}

static void group_destroy(void *objs, unsigned long i)
{
	exec_group_destroy(((struct exec_group **)objs)[i]);
}

static int latch_create(void *objs, unsigned long i)
{
	return exec_latch_init(&((struct exec_latch *)objs)[i], 1, NULL, NULL,
			       NULL);
}

static void latch_destroy(void *objs, unsigned long i)
{
	/* Embedded, nothing pending: the caller's memory is all there is. */
}

static int token_create(void *objs, unsigned long i)
{
	exec_cancel_token_init(&((struct exec_cancel_token *)objs)[i]);
	return 0;
}

/* The loop the closures and handler completions are queued on. */
static struct exec_loop *objcost_loop;
static unsigned long objcost_ran;

static void objcost_fn(void *arg)
{
	objcost_ran++;
}

static void objcost_result_fn(void *arg, long result)
{
	objcost_ran++;
}

static int closure_create(void *objs, unsigned long i)
{
	return exec_post_fn(exec_loop_executor(objcost_loop), objcost_fn,
			    NULL);
}

/* Runs the oldest closure, not necessarily the i-th: one per call. */
static void loop_run_one(void *objs, unsigned long i)
{
	if (exec_loop_try_run_one_closure(objcost_loop) != 1)
		objcost_ran = 0;
}

static int handler_create(void *objs, unsigned long i)
{
	return exec_bind_executor(&((struct exec_handler *)objs)[i],
				  exec_loop_executor(objcost_loop),
				  objcost_result_fn, NULL);
}

static void handler_destroy(void *objs, unsigned long i)
{
	if (exec_handler_unbind(&((struct exec_handler *)objs)[i]))
		objcost_ran = 0;
}

static struct exec_handler objcost_handler;

static int handler_op_create(void *objs, unsigned long i)
{
	return exec_handler_complete(&objcost_handler, NULL, (long)i);
}

static const struct objcost objcosts[] = {
	{ "future", 0, future_create, future_destroy,
	  sizeof(struct exec_future *) },
	{ "group", 0, group_create, group_destroy,
	  sizeof(struct exec_group *) },
	{ "latch", sizeof(struct exec_latch), latch_create, latch_destroy,
	  sizeof(struct exec_latch) },
	{ "cancel_token", sizeof(struct exec_cancel_token), token_create,
	  latch_destroy, sizeof(struct exec_cancel_token) },
	{ "closure", 0, closure_create, loop_run_one, 1 },
	{ "bound_handler", sizeof(struct exec_handler), handler_create,
	  handler_destroy, sizeof(struct exec_handler) },
	{ "handler_op", 0, handler_op_create, loop_run_one, 1 },
};

/* The loop is made before the measured calls and checked after them. */
static int objcost_loop_begin(void)
{
	int err = exec_loop_create(&objcost_loop);

	if (!err)
		err = exec_bind_executor(&objcost_handler,
					 exec_loop_executor(objcost_loop),
					 objcost_result_fn, NULL);
	if (err)
		fprintf(stderr, "exec-objcost: loop: %s\n", strerror(-err));
	return err ? 1 : 0;
}

static int objcost_loop_end(const struct objcost *oc, unsigned long n)
{
	unsigned long want = oc->destroy == loop_run_one ? n : 0;

	exec_handler_unbind(&objcost_handler);
	if (exec_loop_destroy(objcost_loop) || objcost_ran != want) {
		fprintf(stderr, "exec-objcost: %s: %lu of %lu ran\n",
			oc->kind, objcost_ran, want);
		return 1;
	}
	return 0;
}

static int objcost_run(const struct objcost *oc, unsigned long n)
{
	unsigned long long t0, t1, t2;
	long long rss0, rss1;
	unsigned long i;
	void *objs;
	int err;

	if (objcost_loop_begin())
		return 1;
	objs = malloc(n * oc->handle_bytes);
	if (!objs) {
		fprintf(stderr, "exec-objcost: out of memory\n");
		return 1;
	}
	bench_touch(objs, n * oc->handle_bytes);
	rss0 = bench_rss_kb();
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		err = oc->create(objs, i);
		if (err) {
			fprintf(stderr, "exec-objcost: %s %lu: %s\n", oc->kind,
				i, strerror(-err));
			return 1;
		}
	}
	t1 = now_ns();
	rss1 = bench_rss_kb();
	t2 = now_ns();
	for (i = 0; i < n; i++)
		oc->destroy(objs, i);
	t2 = now_ns() - t2;
	free(objs);
	if (rss0 < 0 || rss1 < 0 || objcost_loop_end(oc, n))
		return 1;
	printf("{\"bench\":\"object_cost\",\"impl\":\"libexec\"");
	printf(",\"object\":\"%s\",\"count\":%lu", oc->kind, n);
	printf(",\"create_ns\":%llu,\"destroy_ns\":%llu",
	       (t1 - t0 + n / 2) / n, (t2 + n / 2) / n);
	printf(",\"bytes_per_object\":%lld,\"object_bytes\":%zu}\n",
	       (rss1 - rss0) * 1024 / (long long)n, oc->object_bytes);
	return 0;
}

/* In a child process: a fresh heap for each kind. */
static int objcost_fork(const struct objcost *oc, unsigned long n)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("exec-objcost: fork");
		return 1;
	}
	if (!pid) {
		status = objcost_run(oc, n);
		fflush(stdout);
		_exit(status);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
	unsigned long n = 100000;
	bool any = false;
	unsigned int k;
	int i, ret = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--count") && i + 1 < argc) {
			n = strtoul(argv[++i], NULL, 10);
			if (!n || n > 100000000UL) {
				fprintf(stderr, "exec-objcost: bad --count\n");
				return 2;
			}
			continue;
		}
		for (k = 0; k < ARRAY_SIZE(objcosts); k++)
			if (!strcmp(argv[i], objcosts[k].kind))
				break;
		if (k == ARRAY_SIZE(objcosts)) {
			fputs("usage: exec-objcost [--count N] [KIND...]\n"
			      "kinds: future group latch cancel_token\n"
			      "       closure bound_handler handler_op\n",
			      stderr);
			return 2;
		}
		any = true;
		ret |= objcost_fork(&objcosts[k], n);
	}
	if (!any)
		for (k = 0; k < ARRAY_SIZE(objcosts); k++)
			ret |= objcost_fork(&objcosts[k], n);
	return ret;
}
