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
 * on caller memory), cancel_token (exec_cancel_token_init()).  Strands are
 * exec-bench's strand_churn.  Exit status 0 only if every call succeeded.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

static const struct objcost objcosts[] = {
	{ "future", 0, future_create, future_destroy,
	  sizeof(struct exec_future *) },
	{ "group", 0, group_create, group_destroy,
	  sizeof(struct exec_group *) },
	{ "latch", sizeof(struct exec_latch), latch_create, latch_destroy,
	  sizeof(struct exec_latch) },
	{ "cancel_token", sizeof(struct exec_cancel_token), token_create,
	  latch_destroy, sizeof(struct exec_cancel_token) },
};

static int objcost_run(const struct objcost *oc, unsigned long n)
{
	unsigned long long t0, t1, t2;
	long long rss0, rss1;
	unsigned long i;
	void *objs;
	int err;

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
	if (rss0 < 0 || rss1 < 0)
		return 1;
	printf("{\"bench\":\"object_cost\",\"impl\":\"libexec\"");
	printf(",\"object\":\"%s\",\"count\":%lu", oc->kind, n);
	printf(",\"create_ns\":%llu,\"destroy_ns\":%llu",
	       (t1 - t0 + n / 2) / n, (t2 + n / 2) / n);
	printf(",\"bytes_per_object\":%lld,\"object_bytes\":%zu}\n",
	       (rss1 - rss0) * 1024 / (long long)n, oc->object_bytes);
	return 0;
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
			      "kinds: future group latch cancel_token\n",
			      stderr);
			return 2;
		}
		any = true;
		ret |= objcost_run(&objcosts[k], n);
	}
	if (!any)
		for (k = 0; k < ARRAY_SIZE(objcosts); k++)
			ret |= objcost_run(&objcosts[k], n);
	return ret;
}
