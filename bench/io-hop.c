// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * io-hop: what a thread hop between a completion and its handler costs.
 *
 * A client thread writes one byte into a socket pair and reads the echo;
 * the server side is one pending exec_io_recv() whose handler writes the
 * byte back and starts the receive again.  The round trip is timed by the
 * client, so it holds every wake-up the server needs per request.
 *
 * Layouts of the server (two threads doing its work in both):
 *   hop    one I/O context and a thread pool of 2; the handler is bound to
 *          the pool: the context's thread takes the completion and wakes a
 *          worker, and the worker's new receive is handed back to the
 *          context's thread (the only one that enters its ring)
 *   pool   a pool of 2 I/O contexts (exec_io_pool_create()); the receive
 *          is started on a pool thread's own context and its handler bound
 *          to the pool's executor: the thread woken by the completion runs
 *          the handler and starts the next receive itself
 *
 * Build and run by hand (not part of the library build; after make):
 *
 *   cc -O2 -g -Iinclude -o io-hop bench/io-hop.c build/libexec-user.a \
 *	-luring -lpthread
 *   ./io-hop [-n round_trips] [-r rounds]
 *
 * The layouts take turns, -r rounds (default 7) of -n round trips (default
 * 20,000) each; the client pauses 50 us every 8 round trips so that the
 * server's threads also go to sleep, as a daemon's do between requests.
 * Prints each run's p50 and p99, then the medians over the rounds and the
 * ratio pool / hop.
 */
#include <exec/exec.h>
#include <exec/io.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { HOP, POOL, NR_LAYOUTS };

static const char *const layout_names[NR_LAYOUTS] = { "hop", "pool" };

/**
 * struct echo - the server side of one run
 * @io: the context that receives (hop), NULL with @pool
 * @pool: the pool of contexts (pool), NULL with @io
 * @ex: where the handler runs
 * @op: the one receive
 * @h: its handler
 * @fd: the server's end of the socket pair
 * @byte: what was received
 * @failed: a start or a write failed
 */
struct echo {
	struct exec_io *io;
	struct exec_io_pool *pool;
	struct exec_executor *ex;
	struct exec_io_op op;
	struct exec_handler h;
	int fd;
	char byte;
	int failed;
};

static struct exec_io *echo_context(struct echo *e)
{
	return e->pool ? exec_io_pool_context(e->pool) : e->io;
}

static void echo_recv(void *arg, long res);

static void echo_start(void *arg)
{
	struct echo *e = arg;

	if (exec_io_recv(echo_context(e), &e->op, e->fd, &e->byte, 1, 0,
			 &e->h))
		__atomic_store_n(&e->failed, 1, __ATOMIC_RELAXED);
}

static void echo_recv(void *arg, long res)
{
	struct echo *e = arg;

	/* 0 or -ECANCELED: the run is over. */
	if (res != 1)
		return;
	if (write(e->fd, &e->byte, 1) != 1)
		__atomic_store_n(&e->failed, 1, __ATOMIC_RELAXED);
	echo_start(e);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One run of @n round trips; p50 and p99 in us.  Returns 0 or -1. */
static int run(int layout, unsigned int n, uint64_t *t, double *p50,
	       double *p99)
{
	struct exec_thread_pool_attr pattr = { .nr_threads = 2 };
	struct exec_thread_pool *tp = NULL;
	struct echo e = { 0 };
	unsigned int i;
	int sv[2], ret = -1;
	char c = 'x';

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -1;
	e.fd = sv[0];
	exec_io_op_init(&e.op);
	if (layout == HOP) {
		if (exec_thread_pool_create(&tp, &pattr) ||
		    exec_io_create(&e.io, NULL))
			goto out;
		e.ex = exec_thread_pool_executor(tp);
	} else {
		if (exec_io_pool_create(&e.pool, 2, NULL))
			goto out;
		e.ex = exec_io_pool_executor(e.pool);
	}
	if (exec_bind_executor(&e.h, e.ex, echo_recv, &e))
		goto out;
	/* Pool: started on a pool thread, so on that thread's own context. */
	if (exec_submit_fn(e.ex, echo_start, &e))
		goto unbind;
	usleep(10000);

	for (i = 0; i < n; i++) {
		uint64_t t0 = now_ns();

		if (write(sv[1], &c, 1) != 1 || read(sv[1], &c, 1) != 1)
			break;
		t[i] = now_ns() - t0;
		if (i % 8 == 7)
			usleep(50);
	}
	if (i == n && !__atomic_load_n(&e.failed, __ATOMIC_RELAXED)) {
		qsort(t, n, sizeof(*t), cmp_u64);
		*p50 = t[n / 2] / 1e3;
		*p99 = t[n / 100 * 99] / 1e3;
		ret = 0;
	}
	/* The receive ends with 0 when the client's end closes. */
	close(sv[1]);
	sv[1] = -1;
	while (e.pool ? exec_io_pool_pending(e.pool) : exec_io_pending(e.io))
		usleep(1000);
unbind:
	/* The handler's unit of outstanding work goes just after it returns. */
	while (exec_handler_unbind(&e.h) == -EBUSY)
		usleep(1000);
out:
	if (e.pool)
		while (exec_io_pool_destroy(e.pool) == -EBUSY)
			usleep(1000);
	if (e.io)
		while (exec_io_destroy(e.io) == -EBUSY)
			usleep(1000);
	if (tp && exec_thread_pool_destroy(tp) < 0)
		ret = -1;
	close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	return ret;
}

int main(int argc, char **argv)
{
	unsigned int n = 20000, rounds = 7, r;
	double p50[NR_LAYOUTS][64], p99[NR_LAYOUTS][64], m50[2], m99[2];
	uint64_t *t;
	int opt, l;

	while ((opt = getopt(argc, argv, "n:r:")) != -1) {
		if (opt == 'n')
			n = (unsigned int)strtoul(optarg, NULL, 10);
		else if (opt == 'r')
			rounds = (unsigned int)strtoul(optarg, NULL, 10);
		else
			goto usage;
	}
	if (n < 100 || !rounds || rounds > 64)
		goto usage;
	t = malloc(n * sizeof(*t));
	if (!t)
		return 1;
	for (r = 0; r < rounds; r++) {
		for (l = 0; l < NR_LAYOUTS; l++) {
			/* Alternate which goes first. */
			int layout = (l + r) % NR_LAYOUTS;

			if (run(layout, n, t, &p50[layout][r],
				&p99[layout][r])) {
				fprintf(stderr, "io-hop: %s run failed\n",
					layout_names[layout]);
				return 1;
			}
			printf("round %u %-4s p50 %6.1f us  p99 %6.1f us\n", r,
			       layout_names[layout], p50[layout][r],
			       p99[layout][r]);
		}
	}
	for (l = 0; l < NR_LAYOUTS; l++) {
		qsort(p50[l], rounds, sizeof(double), cmp_double);
		qsort(p99[l], rounds, sizeof(double), cmp_double);
		m50[l] = p50[l][rounds / 2];
		m99[l] = p99[l][rounds / 2];
		printf("median %-4s p50 %6.1f us  p99 %6.1f us\n",
		       layout_names[l], m50[l], m99[l]);
	}
	printf("pool / hop: p50 %.2fx, p99 %.2fx\n", m50[POOL] / m50[HOP],
	       m99[POOL] / m99[HOP]);
	free(t);
	return 0;
usage:
	fprintf(stderr, "usage: io-hop [-n round_trips >= 100] [-r rounds <= 64]\n");
	return 2;
}
