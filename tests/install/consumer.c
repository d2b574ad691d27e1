// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * An out-of-tree consumer of an installed libexec-user.
 *
 * Built by run.sh with nothing but what `pkg-config exec-user` says, against
 * a staging install: a thread pool, a serial executor over it that must run
 * its items in submission order, and a loop executor on the main thread that
 * the last item stops.
 */
#include <exec/exec.h>
#include <stdio.h>

#define NR_ITEMS	1000UL

struct consumer {
	struct exec_loop *loop;
	unsigned long next;		/* touched by the serial items only */
	unsigned long out_of_order;
};

static struct consumer consumer;

static void stop_loop(void *arg)
{
	exec_loop_make_loop_exit(arg);
}

static void step(void *arg)
{
	unsigned long i = (unsigned long)arg;

	if (i != consumer.next)
		consumer.out_of_order++;
	consumer.next = i + 1;
	if (i == NR_ITEMS - 1 &&
	    exec_submit_fn(exec_loop_executor(consumer.loop), stop_loop,
			   consumer.loop))
		consumer.out_of_order++;
}

int main(void)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 2 };
	struct exec_thread_pool *pool;
	struct exec_serial *serial;
	unsigned long i;
	long discarded;
	int err;

	err = exec_thread_pool_create(&pool, &attr);
	if (err) {
		fprintf(stderr, "consumer: exec_thread_pool_create: %d\n", err);
		return 1;
	}
	err = exec_serial_create(&serial, exec_thread_pool_executor(pool));
	if (err) {
		fprintf(stderr, "consumer: exec_serial_create: %d\n", err);
		return 1;
	}
	err = exec_loop_create(&consumer.loop);
	if (err) {
		fprintf(stderr, "consumer: exec_loop_create: %d\n", err);
		return 1;
	}

	for (i = 0; i < NR_ITEMS; i++) {
		err = exec_submit_fn(exec_serial_executor(serial), step,
				     (void *)i);
		if (err) {
			fprintf(stderr, "consumer: exec_submit_fn: %d\n", err);
			return 1;
		}
	}

	err = exec_loop_run(consumer.loop);
	if (err) {
		fprintf(stderr, "consumer: exec_loop_run: %d\n", err);
		return 1;
	}

	discarded = exec_serial_destroy(serial);
	err = exec_thread_pool_destroy(pool);
	if (discarded || err || exec_loop_destroy(consumer.loop)) {
		fprintf(stderr, "consumer: teardown: %ld discarded, %d\n",
			discarded, err);
		return 1;
	}

	printf("consumer: %lu items in order on a %s over a %s, %lu out of order\n",
	       consumer.next, "serial", "thread_pool", consumer.out_of_order);
	return consumer.next == NR_ITEMS && !consumer.out_of_order ? 0 : 1;
}
