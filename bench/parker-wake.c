// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * parker-wake: wake-to-run latency of the candidate wake-up mechanisms for
 * the userspace parker (user/parker.c).
 *
 * One thread (the wakee) sleeps; another (the waker) waits until the wakee
 * has announced it is going to sleep, lets 200 us pass so that it really is
 * asleep in the kernel, takes a timestamp and wakes it.  The wakee takes a
 * timestamp as soon as its sleeping call returns.  The difference is the
 * wake-to-run latency: the waker's system call, the scheduler's wake-up and
 * the wakee's return to userspace.
 *
 * Mechanisms:
 *   futex     the wakee in FUTEX_WAIT_PRIVATE, the waker FUTEX_WAKE_PRIVATE
 *   msg_ring  the wakee in io_uring_wait_cqe() on its own ring; the waker
 *             sends IORING_OP_MSG_RING (IOSQE_CQE_SKIP_SUCCESS) from a ring
 *             of its own
 *   eventfd   the wakee's ring holds a pending IORING_OP_READ of an eventfd;
 *             the waker write(2)s the eventfd; the wakee re-arms the read in
 *             the same io_uring_enter() that waits
 *   uring_futex  (kernel >= 6.7) the wakee's ring holds a pending
 *             IORING_OP_FUTEX_WAIT; the waker calls FUTEX_WAKE_PRIVATE
 *
 * Build and run by hand (not part of the library build):
 *
 *   cc -O2 -g -D_GNU_SOURCE -o parker-wake bench/parker-wake.c -luring \
 *	-lpthread
 *   ./parker-wake [-n samples] [-g gap_us] [-p]
 *
 * -p pins the waker to CPU 0 and the wakee to CPU 1 (by default the
 * scheduler places them).  The mechanisms take turns in rounds of 500
 * samples, so that drift in the machine's state (frequency, other load,
 * the hypervisor) is spread over all of them rather than favouring one.
 */
#include <errno.h>
#include <liburing.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Not in liburing 2.3's headers; values from the kernel's UAPI (6.7). */
#ifndef IORING_OP_FUTEX_WAIT
#define IORING_OP_FUTEX_WAIT	51
#endif
#ifndef FUTEX2_SIZE_U32
#define FUTEX2_SIZE_U32		0x02
#endif
#ifndef FUTEX2_PRIVATE
#define FUTEX2_PRIVATE		128
#endif

enum mech { M_FUTEX, M_MSG_RING, M_EVENTFD, M_URING_FUTEX, M_NR };

static const char *const mech_name[M_NR] = {
	"futex", "msg_ring", "eventfd", "uring_futex",
};

struct bench {
	enum mech mech;
	unsigned int samples;
	unsigned int gap_us;
	bool pin;

	struct io_uring ring;	/* the wakee's ring */
	int efd;
	uint64_t efd_buf;

	uint32_t word;		/* futex word / "wake given" flag */
	uint32_t asleep;	/* wakee is about to sleep for sample @seq */
	uint32_t seq;		/* samples the wakee has finished */
	uint64_t t_wake;	/* waker's timestamp, ns */
	uint64_t *lat;		/* this round's latencies, ns */
	int error;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static long futex(uint32_t *uaddr, int op, uint32_t val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

static void pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void arm_eventfd_read(struct bench *b)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&b->ring);

	if (!sqe)
		return;
	io_uring_prep_read(sqe, b->efd, &b->efd_buf, sizeof(b->efd_buf), 0);
	io_uring_sqe_set_data64(sqe, 1);
}

static void arm_uring_futex(struct bench *b)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&b->ring);

	if (!sqe)
		return;
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_FUTEX_WAIT;
	sqe->fd = FUTEX2_SIZE_U32 | FUTEX2_PRIVATE;
	sqe->addr = (uint64_t)(uintptr_t)&b->word;
	sqe->off = 0;			/* sleep while the word is 0 */
	sqe->addr3 = 0xffffffffULL;	/* FUTEX_BITSET_MATCH_ANY */
	sqe->user_data = 2;
}

/* Sleep until the waker has given the wake for this sample. */
static void wakee_sleep(struct bench *b)
{
	struct io_uring_cqe *cqe;
	unsigned int head, n;

	switch (b->mech) {
	case M_FUTEX:
		while (!__atomic_load_n(&b->word, __ATOMIC_ACQUIRE))
			futex(&b->word, FUTEX_WAIT_PRIVATE, 0);
		break;
	case M_MSG_RING:
		while (io_uring_wait_cqe(&b->ring, &cqe) == -EINTR)
			;
		n = 0;
		io_uring_for_each_cqe(&b->ring, head, cqe)
			n++;
		io_uring_cq_advance(&b->ring, n);
		break;
	case M_EVENTFD:
	case M_URING_FUTEX:
		/* The read/wait was armed (and submitted) before. */
		while (io_uring_wait_cqe(&b->ring, &cqe) == -EINTR)
			;
		if (cqe->res < 0 && cqe->res != -EAGAIN)
			b->error = cqe->res;
		io_uring_cqe_seen(&b->ring, cqe);
		break;
	default:
		break;
	}
}

static void *wakee(void *arg)
{
	struct bench *b = arg;
	unsigned int i;

	if (b->pin)
		pin_to(1);
	for (i = 0; i < b->samples; i++) {
		/* Arm the next wait before announcing it. */
		if (b->mech == M_EVENTFD)
			arm_eventfd_read(b);
		if (b->mech == M_URING_FUTEX)
			arm_uring_futex(b);
		if (b->mech == M_EVENTFD || b->mech == M_URING_FUTEX)
			io_uring_submit(&b->ring);
		__atomic_store_n(&b->asleep, i + 1, __ATOMIC_RELEASE);
		wakee_sleep(b);
		b->lat[i] = now_ns() -
			__atomic_load_n(&b->t_wake, __ATOMIC_ACQUIRE);
		__atomic_store_n(&b->word, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&b->seq, i + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void sleep_us(unsigned int us)
{
	struct timespec ts = { 0, (long)us * 1000L };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

static int run(struct bench *b)
{
	struct io_uring waker_ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	pthread_t tid;
	uint64_t one = 1;
	unsigned int i;
	int ret;

	ret = io_uring_queue_init(4, &b->ring, 0);
	if (ret < 0)
		return ret;
	ret = io_uring_queue_init(4, &waker_ring, 0);
	if (ret < 0)
		return ret;
	b->efd = eventfd(0, EFD_CLOEXEC);
	if (b->efd < 0)
		return -errno;
	b->word = 0;
	b->asleep = 0;
	b->seq = 0;
	b->error = 0;

	ret = pthread_create(&tid, NULL, wakee, b);
	if (ret)
		return -ret;
	if (b->pin)
		pin_to(0);
	for (i = 0; i < b->samples; i++) {
		while (__atomic_load_n(&b->asleep, __ATOMIC_ACQUIRE) != i + 1)
			sleep_us(10);
		/* Long enough for the wakee to be asleep in the kernel. */
		sleep_us(b->gap_us);
		__atomic_store_n(&b->t_wake, now_ns(), __ATOMIC_RELEASE);
		switch (b->mech) {
		case M_FUTEX:
		case M_URING_FUTEX:
			__atomic_store_n(&b->word, 1, __ATOMIC_RELEASE);
			futex(&b->word, FUTEX_WAKE_PRIVATE, 1);
			break;
		case M_MSG_RING:
			sqe = io_uring_get_sqe(&waker_ring);
			if (!sqe)
				break;
			io_uring_prep_msg_ring(sqe, b->ring.ring_fd, 0, 7, 0);
			sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
			io_uring_submit(&waker_ring);
			if (io_uring_peek_cqe(&waker_ring, &cqe) == 0) {
				b->error = cqe->res;
				io_uring_cqe_seen(&waker_ring, cqe);
			}
			break;
		case M_EVENTFD:
			if (write(b->efd, &one, sizeof(one)) != sizeof(one))
				b->error = -errno;
			break;
		default:
			break;
		}
		while (__atomic_load_n(&b->seq, __ATOMIC_ACQUIRE) != i + 1)
			sleep_us(10);
		if (b->error)
			break;
	}
	if (b->error) {
		/* Unblock the wakee however it sleeps, then give up. */
		__atomic_store_n(&b->word, 1, __ATOMIC_RELEASE);
		futex(&b->word, FUTEX_WAKE_PRIVATE, 1);
		if (write(b->efd, &one, sizeof(one)) < 0)
			perror("write");
	}
	pthread_join(tid, NULL);
	close(b->efd);
	io_uring_queue_exit(&waker_ring);
	io_uring_queue_exit(&b->ring);
	return b->error;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double pct(const uint64_t *v, unsigned int n, double p)
{
	unsigned int i = (unsigned int)(p / 100.0 * (n - 1) + 0.5);

	return v[i] / 1000.0;
}

int main(int argc, char **argv)
{
	struct bench b = { .gap_us = 200 };
	unsigned int samples = 20000, round = 500, done, n;
	uint64_t *lat[M_NR];
	int opt, m, ret;
	bool ok[M_NR];

	while ((opt = getopt(argc, argv, "n:g:p")) != -1) {
		switch (opt) {
		case 'n':
			samples = (unsigned int)atoi(optarg);
			break;
		case 'g':
			b.gap_us = (unsigned int)atoi(optarg);
			break;
		case 'p':
			b.pin = true;
			break;
		default:
			fprintf(stderr,
				"usage: %s [-n samples] [-g gap_us] [-p]\n",
				argv[0]);
			return 2;
		}
	}
	if (!samples)
		return 2;
	for (m = 0; m < M_NR; m++) {
		lat[m] = calloc(samples, sizeof(*lat[m]));
		if (!lat[m])
			return 1;
		ok[m] = true;
	}

	printf("%u samples each, wakes %u us apart, %s\n", samples, b.gap_us,
	       b.pin ? "waker on CPU 0, wakee on CPU 1" : "unpinned");
	for (done = 0; done < samples; done += n) {
		n = samples - done < round ? samples - done : round;
		for (m = 0; m < M_NR; m++) {
			if (!ok[m])
				continue;
			b.mech = (enum mech)m;
			b.samples = n;
			b.lat = lat[m] + done;
			ret = run(&b);
			if (ret) {
				printf("%-12s unavailable: %s\n", mech_name[m],
				       strerror(-ret));
				ok[m] = false;
			}
		}
	}
	printf("%-12s %9s %9s %9s %9s  (us)\n", "mechanism", "p50", "p90",
	       "p99", "max");
	for (m = 0; m < M_NR; m++) {
		if (!ok[m])
			continue;
		qsort(lat[m], samples, sizeof(*lat[m]), cmp_u64);
		printf("%-12s %9.1f %9.1f %9.1f %9.1f\n", mech_name[m],
		       pct(lat[m], samples, 50), pct(lat[m], samples, 90),
		       pct(lat[m], samples, 99), lat[m][samples - 1] / 1000.0);
		free(lat[m]);
	}
	return 0;
}
