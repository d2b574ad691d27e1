// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Userspace only: the asynchronous I/O operations of <exec/io.h>.  Every
 * case runs on the process's backend (io_uring, or epoll under
 * EXEC_BACKEND=futex) and on the epoll backend forced per context.
 */
#include <kunit/test.h>
#include <exec/exec.h>
#include <exec/io.h>
#include <exec/user.h>

#include "platform.h"
#include "internal.h"
#include "exec_test.h"
/* exec_io_test_*(): what the tests may reach inside user/io/. */
#include "../../user/io/io_internal.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

/* One recorded completion per handler call. */
struct io_rec {
	atomic_t calls;
	long result;
	struct exec_executor *expect;	/* the handler must run on it */
	atomic_t wrong_thread;
	struct exec_io_op op;
};

static void io_rec_fn(void *arg, long result)
{
	struct io_rec *r = arg;

	if (r->expect && !exec_running_in_this_thread(r->expect))
		exec_test_count(&r->wrong_thread);
	WRITE_ONCE(r->result, result);
	exec_test_count(&r->calls);
}

static void io_rec_init(struct io_rec *r, struct exec_handler *h,
			struct exec_executor *ex)
{
	atomic_set(&r->calls, 0);
	atomic_set(&r->wrong_thread, 0);
	r->result = 0;
	r->expect = ex;
	exec_io_op_init(&r->op);
	exec_handler_init(h, io_rec_fn, r);
	h->ex = ex;
}

/* Waits for the one call, then a while for a second one that must not come. */
static long io_rec_wait(struct kunit *test, struct io_rec *r)
{
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&r->calls, 1,
							 EXEC_TEST_TIMEOUT_MS));
	return READ_ONCE(r->result);
}

static void io_rec_once(struct kunit *test, struct io_rec *r)
{
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->calls), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->wrong_thread), 0);
}

struct io_env {
	struct exec_thread_pool *pool;
	struct exec_executor *ex;
	struct exec_io *io;
};

static void io_env_init(struct kunit *test, struct io_env *env, bool epoll)
{
	struct exec_thread_pool_attr pattr = { .nr_threads = 2 };
	struct exec_io_attr attr = { .force_epoll = epoll };

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&env->pool, &pattr), 0);
	env->ex = exec_thread_pool_executor(env->pool);
	attr.executor = env->ex;
	KUNIT_ASSERT_EQ(test, exec_io_create(&env->io, &attr), 0);
	if (epoll || strcmp(exec_user_wakeup_backend(), "io_uring"))
		KUNIT_EXPECT_STREQ(test, exec_io_backend(env->io), "epoll");
	else
		KUNIT_EXPECT_STREQ(test, exec_io_backend(env->io), "io_uring");
}

/*
 * A handler's unit of outstanding work is released after it returns, a
 * little after what it did is seen: until then the pool refuses to go.
 */
static void io_wait_unused(struct kunit *test, struct exec_executor *ex)
{
	u64 deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	unsigned int spins = 0;

	while (exec_executor_dependents(ex) && !exec_test_expired(deadline))
		exec_test_relax(&spins);
	KUNIT_EXPECT_EQ(test, exec_executor_dependents(ex), 0UL);
}

static void io_env_fini(struct kunit *test, struct io_env *env)
{
	KUNIT_EXPECT_EQ(test, exec_io_destroy(env->io), 0L);
	io_wait_unused(test, env->ex);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(env->pool), 0L);
}

/* A connected pair of TCP sockets on 127.0.0.1 through a listener. */
static int io_listener(struct kunit *test, struct sockaddr_in *sin)
{
	socklen_t len = sizeof(*sin);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	KUNIT_ASSERT_GE(test, fd, 0);
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	KUNIT_ASSERT_EQ(test, bind(fd, (struct sockaddr *)sin, len), 0);
	KUNIT_ASSERT_EQ(test, listen(fd, 16), 0);
	KUNIT_ASSERT_EQ(test, getsockname(fd, (struct sockaddr *)sin, &len), 0);
	return fd;
}

/* accept + connect, then send and recv both ways. */
static void io_sockets_one(struct kunit *test, bool epoll)
{
	struct io_rec acc, con, snd, rcv;
	struct exec_handler ha, hc, hs, hr;
	struct sockaddr_in sin;
	struct io_env env;
	char buf[16] = { 0 };
	int lfd, cfd, afd;

	io_env_init(test, &env, epoll);
	lfd = io_listener(test, &sin);
	cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	KUNIT_ASSERT_GE(test, cfd, 0);
	io_rec_init(&acc, &ha, env.ex);
	io_rec_init(&con, &hc, env.ex);
	KUNIT_EXPECT_EQ(test, exec_io_accept(env.io, &acc.op, lfd, &ha), 0);
	KUNIT_EXPECT_EQ(test, exec_io_connect(env.io, &con.op, cfd,
					      (struct sockaddr *)&sin,
					      sizeof(sin), &hc), 0);
	KUNIT_EXPECT_EQ(test, io_rec_wait(test, &con), 0L);
	afd = (int)io_rec_wait(test, &acc);
	KUNIT_ASSERT_GE(test, afd, 0);
	KUNIT_EXPECT_TRUE(test, fcntl(afd, F_GETFD) & FD_CLOEXEC);

	io_rec_init(&snd, &hs, env.ex);
	io_rec_init(&rcv, &hr, env.ex);
	KUNIT_EXPECT_EQ(test, exec_io_recv(env.io, &rcv.op, afd, buf,
					   sizeof(buf), 0, &hr), 0);
	KUNIT_EXPECT_EQ(test, exec_io_send(env.io, &snd.op, cfd, "ping", 4, 0,
					   &hs), 0);
	KUNIT_EXPECT_EQ(test, io_rec_wait(test, &snd), 4L);
	KUNIT_EXPECT_EQ(test, io_rec_wait(test, &rcv), 4L);
	KUNIT_EXPECT_EQ(test, memcmp(buf, "ping", 4), 0);

	/* End of stream: recv completes with 0. */
	shutdown(cfd, SHUT_WR);
	io_rec_init(&rcv, &hr, env.ex);
	KUNIT_EXPECT_EQ(test, exec_io_recv(env.io, &rcv.op, afd, buf,
					   sizeof(buf), 0, &hr), 0);
	KUNIT_EXPECT_EQ(test, io_rec_wait(test, &rcv), 0L);

	/* A peer that resets: send fails with a negative errno, no signal. */
	close(afd);
	io_rec_init(&snd, &hs, env.ex);
	for (int i = 0; i < 100; i++) {
		atomic_set(&snd.calls, 0);
		KUNIT_ASSERT_EQ(test, exec_io_send(env.io, &snd.op, cfd, buf,
						   sizeof(buf), 0, &hs), 0);
		if (io_rec_wait(test, &snd) < 0)
			break;
		msleep(20);
	}
	KUNIT_EXPECT_TRUE(test, snd.result == -EPIPE ||
			  snd.result == -ECONNRESET);
	io_rec_once(test, &acc);
	io_rec_once(test, &con);
	close(cfd);
	close(lfd);
	io_env_fini(test, &env);
}

static void io_sockets(struct kunit *test)
{
	io_sockets_one(test, false);
	io_sockets_one(test, true);
	/* A ring whose completions interrupt nobody, as before 6.1. */
	exec_io_test_set_no_defer_taskrun(true);
	io_sockets_one(test, false);
	exec_io_test_set_no_defer_taskrun(false);
}

/*
 * read and write on a pipe, read and writev on a socket, readv and writev
 * on a file, with offsets.
 */
static void io_files_one(struct kunit *test, bool epoll)
{
	char path[] = "/tmp/exec-io-test-XXXXXX";
	char a[4] = { 0 }, b[6] = { 0 }, buf[8] = { 0 };
	struct iovec wv[2] = { { "abcd", 4 }, { "efghij", 6 } };
	struct iovec rv[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	struct exec_handler hw, hr;
	struct io_rec w, r;
	struct io_env env;
	int p[2], fd;

	io_env_init(test, &env, epoll);
	KUNIT_ASSERT_EQ(test, pipe2(p, O_CLOEXEC), 0);
	io_rec_init(&w, &hw, env.ex);
	io_rec_init(&r, &hr, env.ex);
	/* The read waits for the write. */
	KUNIT_EXPECT_EQ(test, exec_io_read(env.io, &r.op, p[0], buf,
					   sizeof(buf), (uint64_t)-1, &hr), 0);
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&r.calls), 0);
	KUNIT_EXPECT_EQ(test, exec_io_write(env.io, &w.op, p[1], "hello", 5,
					    (uint64_t)-1, &hw), 0);
	KUNIT_EXPECT_EQ(test, io_rec_wait(test, &w), 5L);
	KUNIT_EXPECT_EQ(test, io_rec_wait(test, &r), 5L);
	KUNIT_EXPECT_EQ(test, memcmp(buf, "hello", 5), 0);
	io_rec_once(test, &r);
	close(p[0]);
	close(p[1]);

	/* A socket at its current position: a read waits for a writev. */
	KUNIT_ASSERT_EQ(test, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC,
					 0, p), 0);
	io_rec_init(&w, &hw, env.ex);
	io_rec_init(&r, &hr, env.ex);
	memset(buf, 0, sizeof(buf));
	KUNIT_EXPECT_EQ(test, exec_io_read(env.io, &r.op, p[0], buf,
					   sizeof(buf), (uint64_t)-1, &hr), 0);
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&r.calls), 0);
	KUNIT_EXPECT_EQ(test, exec_io_writev(env.io, &w.op, p[1], wv, 2,
					     (uint64_t)-1, &hw), 0);
	KUNIT_EXPECT_EQ(test, io_rec_wait(test, &w), 10L);
	KUNIT_EXPECT_EQ(test, io_rec_wait(test, &r), 8L);
	KUNIT_EXPECT_EQ(test, memcmp(buf, "abcdefgh", 8), 0);
	io_rec_once(test, &r);
	close(p[0]);
	close(p[1]);

	fd = mkstemp(path);
	KUNIT_ASSERT_GE(test, fd, 0);
	unlink(path);
	io_rec_init(&w, &hw, env.ex);
	KUNIT_EXPECT_EQ(test, exec_io_writev(env.io, &w.op, fd, wv, 2, 100,
					     &hw), 0);
	KUNIT_EXPECT_EQ(test, io_rec_wait(test, &w), 10L);
	io_rec_init(&r, &hr, env.ex);
	KUNIT_EXPECT_EQ(test, exec_io_readv(env.io, &r.op, fd, rv, 2, 100,
					    &hr), 0);
	KUNIT_EXPECT_EQ(test, io_rec_wait(test, &r), 10L);
	KUNIT_EXPECT_EQ(test, memcmp(a, "abcd", 4), 0);
	KUNIT_EXPECT_EQ(test, memcmp(b, "efghij", 6), 0);
	io_rec_init(&r, &hr, env.ex);
	KUNIT_EXPECT_EQ(test, exec_io_read(env.io, &r.op, fd, buf, 3, 104,
					   &hr), 0);
	KUNIT_EXPECT_EQ(test, io_rec_wait(test, &r), 3L);
	KUNIT_EXPECT_EQ(test, memcmp(buf, "efg", 3), 0);
	/* At the end of the file: 0. */
	io_rec_init(&r, &hr, env.ex);
	KUNIT_EXPECT_EQ(test, exec_io_read(env.io, &r.op, fd, buf, 3, 110,
					   &hr), 0);
	KUNIT_EXPECT_EQ(test, io_rec_wait(test, &r), 0L);

	/* close, then the fd is gone. */
	io_rec_init(&w, &hw, env.ex);
	KUNIT_EXPECT_EQ(test, exec_io_close(env.io, &w.op, fd, &hw), 0);
	KUNIT_EXPECT_EQ(test, io_rec_wait(test, &w), 0L);
	KUNIT_EXPECT_EQ(test, fcntl(fd, F_GETFD), -1);
	KUNIT_EXPECT_EQ(test, errno, EBADF);
	/* An error is a result: reading a closed fd. */
	io_rec_init(&r, &hr, env.ex);
	KUNIT_EXPECT_EQ(test, exec_io_read(env.io, &r.op, fd, buf, 3, 0, &hr),
			0);
	KUNIT_EXPECT_EQ(test, io_rec_wait(test, &r), (long)-EBADF);
	io_rec_once(test, &r);
	io_env_fini(test, &env);
}

static void io_files(struct kunit *test)
{
	io_files_one(test, false);
	io_files_one(test, true);
}

/* poll, and a timeout that takes its time. */
static void io_poll_timeout_one(struct kunit *test, bool epoll)
{
	struct exec_handler hp, ht;
	struct io_rec pr, tr;
	struct io_env env;
	u64 t0, elapsed;
	int p[2];

	io_env_init(test, &env, epoll);
	KUNIT_ASSERT_EQ(test, pipe2(p, O_CLOEXEC), 0);
	io_rec_init(&pr, &hp, env.ex);
	KUNIT_EXPECT_EQ(test, exec_io_poll(env.io, &pr.op, p[0], POLLIN, &hp),
			0);
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&pr.calls), 0);
	KUNIT_EXPECT_EQ(test, write(p[1], "x", 1), 1);
	KUNIT_EXPECT_TRUE(test, io_rec_wait(test, &pr) & POLLIN);
	io_rec_once(test, &pr);
	close(p[0]);
	close(p[1]);

	io_rec_init(&tr, &ht, env.ex);
	t0 = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, exec_io_timeout(env.io, &tr.op, 30000000ULL,
					      &ht), 0);
	KUNIT_EXPECT_EQ(test, io_rec_wait(test, &tr), 0L);
	elapsed = ktime_get_ns() - t0;
	KUNIT_EXPECT_GE(test, elapsed, 30000000ULL);
	io_rec_once(test, &tr);
	io_env_fini(test, &env);
}

static void io_poll_timeout(struct kunit *test)
{
	io_poll_timeout_one(test, false);
	io_poll_timeout_one(test, true);
}

/* Cancellation by handle: -ECANCELED, once; not pending: -EALREADY. */
static void io_cancel_one(struct kunit *test, bool epoll)
{
	struct exec_handler hr, ht;
	struct io_rec r, t;
	struct io_env env;
	char buf[4];
	int sv[2];

	io_env_init(test, &env, epoll);
	KUNIT_ASSERT_EQ(test, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC,
					 0, sv), 0);
	io_rec_init(&r, &hr, env.ex);
	io_rec_init(&t, &ht, env.ex);
	KUNIT_EXPECT_EQ(test, exec_io_cancel(&r.op), -EALREADY);
	KUNIT_EXPECT_EQ(test, exec_io_recv(env.io, &r.op, sv[0], buf,
					   sizeof(buf), 0, &hr), 0);
	KUNIT_EXPECT_EQ(test, exec_io_timeout(env.io, &t.op,
					      3600ULL * NSEC_PER_SEC, &ht), 0);
	KUNIT_EXPECT_EQ(test, exec_io_pending(env.io), 2UL);
	msleep(20);
	KUNIT_EXPECT_EQ(test, exec_io_cancel(&r.op), 0);
	KUNIT_EXPECT_EQ(test, exec_io_cancel(&t.op), 0);
	KUNIT_EXPECT_EQ(test, io_rec_wait(test, &r), (long)-ECANCELED);
	KUNIT_EXPECT_EQ(test, io_rec_wait(test, &t), (long)-ECANCELED);
	KUNIT_EXPECT_EQ(test, exec_io_cancel(&r.op), -EALREADY);
	/* Data that comes later does not complete it again. */
	KUNIT_EXPECT_EQ(test, write(sv[1], "abc", 3), 3);
	io_rec_once(test, &r);
	io_rec_once(test, &t);
	KUNIT_EXPECT_EQ(test, exec_io_pending(env.io), 0UL);
	/* The cancelled operation can be started again, and works. */
	KUNIT_EXPECT_EQ(test, exec_io_recv(env.io, &r.op, sv[0], buf,
					   sizeof(buf), 0, &hr), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&r.calls, 2,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, READ_ONCE(r.result), 3L);
	close(sv[0]);
	close(sv[1]);
	io_env_fini(test, &env);
}

static void io_cancel(struct kunit *test)
{
	io_cancel_one(test, false);
	io_cancel_one(test, true);
}

/* Cancellation by token: every pending operation with it, and later starts. */
static void io_cancel_token_one(struct kunit *test, bool epoll)
{
	struct exec_cancel_token tok = EXEC_CANCEL_TOKEN_INIT;
	struct exec_handler h[3];
	struct io_rec r[3];
	struct io_env env;
	char buf[3][4];
	int sv[2], i;

	io_env_init(test, &env, epoll);
	KUNIT_ASSERT_EQ(test, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC,
					 0, sv), 0);
	for (i = 0; i < 3; i++) {
		io_rec_init(&r[i], &h[i], env.ex);
		/* The third has no token and stays. */
		if (i < 2)
			exec_io_op_set_token(&r[i].op, &tok);
	}
	KUNIT_EXPECT_EQ(test, exec_io_recv(env.io, &r[0].op, sv[0], buf[0], 4,
					   0, &h[0]), 0);
	KUNIT_EXPECT_EQ(test, exec_io_timeout(env.io, &r[1].op,
					      3600ULL * NSEC_PER_SEC, &h[1]),
			0);
	KUNIT_EXPECT_EQ(test, exec_io_recv(env.io, &r[2].op, sv[1], buf[2], 4,
					   0, &h[2]), 0);
	KUNIT_EXPECT_EQ(test, exec_io_cancel_token(env.io, &tok), 2L);
	KUNIT_EXPECT_TRUE(test, exec_cancel_requested(&tok));
	KUNIT_EXPECT_EQ(test, io_rec_wait(test, &r[0]), (long)-ECANCELED);
	KUNIT_EXPECT_EQ(test, io_rec_wait(test, &r[1]), (long)-ECANCELED);
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r[2].calls), 0);
	/* A start with the requested token is refused. */
	KUNIT_EXPECT_EQ(test, exec_io_recv(env.io, &r[0].op, sv[0], buf[0], 4,
					   0, &h[0]), -ECANCELED);
	KUNIT_EXPECT_EQ(test, exec_io_cancel_token(env.io, &tok), 0L);
	io_rec_once(test, &r[0]);
	io_rec_once(test, &r[1]);
	/* Destroy cancels what is left. */
	KUNIT_EXPECT_EQ(test, exec_io_destroy(env.io), 1L);
	KUNIT_EXPECT_EQ(test, io_rec_wait(test, &r[2]), (long)-ECANCELED);
	io_rec_once(test, &r[2]);
	io_wait_unused(test, env.ex);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(env.pool), 0L);
	close(sv[0]);
	close(sv[1]);
}

static void io_cancel_token(struct kunit *test)
{
	io_cancel_token_one(test, false);
	io_cancel_token_one(test, true);
}

/*
 * Outstanding work: a loop scheduler's run() returns when the I/O is done,
 * not before, here after a chain of three timeouts, each started by the
 * handler of the one before.
 */
struct io_chain {
	struct exec_io *io;
	struct exec_handler h;
	struct exec_io_op op;
	atomic_t done;
	long last;
};

static void io_chain_fn(void *arg, long result)
{
	struct io_chain *c = arg;

	c->last = result;
	if (exec_test_count(&c->done) < 3)
		WARN_ON(exec_io_timeout(c->io, &c->op, 10000000ULL, &c->h));
}

static void io_outstanding_one(struct kunit *test, bool epoll)
{
	struct exec_io_attr attr = { .force_epoll = epoll };
	struct exec_loop_scheduler *ls;
	struct io_chain c;
	u64 t0;

	KUNIT_ASSERT_EQ(test, exec_loop_scheduler_create(&ls), 0);
	attr.executor = exec_loop_scheduler_executor(ls);
	KUNIT_ASSERT_EQ(test, exec_io_create(&c.io, &attr), 0);
	atomic_set(&c.done, 0);
	c.last = 1;
	exec_io_op_init(&c.op);
	exec_handler_init(&c.h, io_chain_fn, &c);
	t0 = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, exec_io_timeout(c.io, &c.op, 10000000ULL, &c.h),
			0);
	/* Three handlers ran, in this thread. */
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_run(ls), 3L);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.done), 3);
	KUNIT_EXPECT_EQ(test, c.last, 0L);
	KUNIT_EXPECT_GE(test, ktime_get_ns() - t0, 30000000ULL);
	KUNIT_EXPECT_EQ(test, exec_io_pending(c.io), 0UL);
	KUNIT_EXPECT_EQ(test, exec_io_destroy(c.io), 0L);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_destroy(ls), 0L);
}

static void io_outstanding(struct kunit *test)
{
	io_outstanding_one(test, false);
	io_outstanding_one(test, true);
}

/*
 * P0113's strand: the handlers of one connection, bound to a serial
 * executor over a pool of two, never run at once, though their completions
 * come from both directions of a socket pair at the same time.
 */
#define IO_STRAND_ROUNDS	200

struct io_strand {
	struct exec_io *io;
	struct exec_executor *strand;
	int fd[2];
	struct exec_io_op op[2];
	struct exec_handler h[2];
	char buf[2][1];
	atomic_t inside;
	atomic_t overlaps;
	atomic_t done;
	atomic_t wrong;
	atomic_t cancelled;
};

static void io_strand_fn(struct io_strand *s, int side, long result)
{
	int i;

	if (!exec_running_in_this_thread(s->strand))
		exec_test_count(&s->wrong);
	if (atomic_inc_return(&s->inside) != 1)
		exec_test_count(&s->overlaps);
	for (i = 0; i < 2000; i++)
		cpu_relax();
	atomic_dec(&s->inside);
	/* The last receives, cancelled by the destroy at the end. */
	if (result == -ECANCELED) {
		exec_test_count(&s->cancelled);
		return;
	}
	if (result != 1) {
		exec_test_count(&s->wrong);
		return;
	}
	/* Echo one byte back while rounds are left; always receive again. */
	if (exec_test_count(&s->done) < 2 * IO_STRAND_ROUNDS &&
	    write(s->fd[side], "x", 1) != 1)
		exec_test_count(&s->wrong);
	if (exec_io_recv(s->io, &s->op[side], s->fd[side], s->buf[side], 1, 0,
			 &s->h[side]))
		exec_test_count(&s->wrong);
}

static void io_strand_fn0(void *arg, long result)
{
	io_strand_fn(arg, 0, result);
}

static void io_strand_fn1(void *arg, long result)
{
	io_strand_fn(arg, 1, result);
}

static void io_strand_one(struct kunit *test, bool epoll)
{
	struct io_strand *s = kzalloc(sizeof(*s), GFP_KERNEL);
	struct exec_serial *serial;
	struct io_env env;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	io_env_init(test, &env, epoll);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&serial, env.ex), 0);
	s->io = env.io;
	s->strand = exec_serial_executor(serial);
	KUNIT_ASSERT_EQ(test, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC,
					 0, s->fd), 0);
	KUNIT_EXPECT_EQ(test, exec_bind_executor(&s->h[0], s->strand,
						 io_strand_fn0, s), 0);
	KUNIT_EXPECT_EQ(test, exec_bind_executor(&s->h[1], s->strand,
						 io_strand_fn1, s), 0);
	for (i = 0; i < 2; i++) {
		exec_io_op_init(&s->op[i]);
		KUNIT_EXPECT_EQ(test, exec_io_recv(env.io, &s->op[i],
						   s->fd[i], s->buf[i], 1, 0,
						   &s->h[i]), 0);
	}
	/* Both directions at once. */
	KUNIT_EXPECT_EQ(test, write(s->fd[0], "x", 1), 1);
	KUNIT_EXPECT_EQ(test, write(s->fd[1], "x", 1), 1);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&s->done,
							 2 * IO_STRAND_ROUNDS,
							 EXEC_TEST_TIMEOUT_MS));
	/* Both receives are armed again, until the destroy cancels them. */
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, exec_io_pending(env.io), 2UL);
	KUNIT_EXPECT_EQ(test, exec_io_destroy(env.io), 2L);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->overlaps), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->wrong), 0);
	/* The handlers' outstanding work is released once they have run. */
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&s->cancelled, 2,
							 EXEC_TEST_TIMEOUT_MS));
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, exec_handler_unbind(&s->h[0]), 0);
	KUNIT_EXPECT_EQ(test, exec_handler_unbind(&s->h[1]), 0);
	io_wait_unused(test, s->strand);
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(serial), 0L);
	io_wait_unused(test, env.ex);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(env.pool), 0L);
	close(s->fd[0]);
	close(s->fd[1]);
	kfree(s);
}

static void io_strand(struct kunit *test)
{
	io_strand_one(test, false);
	io_strand_one(test, true);
}

/*
 * The context's executor: items from another thread run on the context's
 * own thread, in order; a handler bound to it runs there too; destroy
 * refuses while something uses it, and from that thread.
 */
#define IO_CX_ITEMS	100

struct io_cx {
	struct exec_executor *cx;
	struct exec_io *io;
	pthread_t thread;		/* of the first item */
	unsigned int next;		/* touched by the items only */
	atomic_t ran;
	atomic_t wrong;
	long destroy_ret;
	atomic_t destroyed;
};

static void io_cx_check(struct io_cx *c)
{
	if (!exec_running_in_this_thread(c->cx) ||
	    !pthread_equal(pthread_self(), c->thread))
		exec_test_count(&c->wrong);
}

static void io_cx_item(void *arg)
{
	struct io_cx *c = arg;

	if (!c->next)
		c->thread = pthread_self();
	io_cx_check(c);
	c->next++;
	exec_test_count(&c->ran);
}

static void io_cx_handler(void *arg, long result)
{
	struct io_cx *c = arg;

	io_cx_check(c);
	if (result != 1)
		exec_test_count(&c->wrong);
	exec_test_count(&c->ran);
}

static void io_cx_destroy_item(void *arg)
{
	struct io_cx *c = arg;

	c->destroy_ret = exec_io_destroy(c->io);
	exec_test_count(&c->destroyed);
}

static void io_context_executor_one(struct kunit *test, bool epoll)
{
	struct io_cx *c = kzalloc(sizeof(*c), GFP_KERNEL);
	struct exec_serial *serial;
	struct exec_handler h;
	struct exec_io_op op;
	struct io_env env;
	int sv[2], i;
	char buf[1];

	KUNIT_ASSERT_NOT_NULL(test, c);
	io_env_init(test, &env, epoll);
	c->io = env.io;
	c->cx = exec_io_executor(env.io);
	KUNIT_ASSERT_NOT_NULL(test, c->cx);
	KUNIT_EXPECT_FALSE(test, exec_running_in_this_thread(c->cx));
	for (i = 0; i < IO_CX_ITEMS; i++)
		KUNIT_EXPECT_EQ(test, exec_submit_fn(c->cx, io_cx_item, c), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&c->ran, IO_CX_ITEMS,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, READ_ONCE(c->next), IO_CX_ITEMS);
	KUNIT_EXPECT_FALSE(test, pthread_equal(c->thread, pthread_self()));

	/* A handler bound to it runs on the same thread. */
	KUNIT_ASSERT_EQ(test, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC,
					 0, sv), 0);
	exec_io_op_init(&op);
	KUNIT_EXPECT_EQ(test, exec_bind_executor(&h, c->cx, io_cx_handler, c),
			0);
	KUNIT_EXPECT_EQ(test, exec_io_recv(env.io, &op, sv[0], buf, 1, 0, &h),
			0);
	KUNIT_EXPECT_EQ(test, write(sv[1], "x", 1), 1);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&c->ran,
							 IO_CX_ITEMS + 1,
							 EXEC_TEST_TIMEOUT_MS));

	/* Not while a handler is bound to it, nor a serial executor. */
	KUNIT_EXPECT_EQ(test, exec_io_destroy(env.io), -EBUSY);
	KUNIT_EXPECT_EQ(test, exec_handler_unbind(&h), 0);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&serial, c->cx), 0);
	KUNIT_EXPECT_EQ(test, exec_io_destroy(env.io), -EBUSY);
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(serial), 0L);
	/* Not from its own thread. */
	KUNIT_EXPECT_EQ(test, exec_submit_fn(c->cx, io_cx_destroy_item, c), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&c->destroyed, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, c->destroy_ret, (long)-EDEADLK);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->wrong), 0);
	io_wait_unused(test, c->cx);
	io_env_fini(test, &env);
	close(sv[0]);
	close(sv[1]);
	kfree(c);
}

static void io_context_executor(struct kunit *test)
{
	io_context_executor_one(test, false);
	io_context_executor_one(test, true);
}

/*
 * exec_current_executor() in an item and a bound handler of a context's
 * executor, and in an item of a pool of contexts: the executor of the
 * context that runs it, which the pool handed the item to.
 */
struct io_cur {
	struct exec_io_pool *pool;
	struct exec_executor *seen;
	struct exec_executor *own;
	atomic_t ran;
};

static void io_cur_item(void *arg)
{
	struct io_cur *c = arg;

	c->seen = exec_current_executor();
	c->own = c->pool ? exec_io_executor(exec_io_pool_context(c->pool)) :
			   NULL;
	exec_test_count(&c->ran);
}

static void io_cur_handler(void *arg, long result)
{
	io_cur_item(arg);
}

static void io_current_executor_one(struct kunit *test, bool epoll)
{
	struct exec_io_attr attr = { .force_epoll = epoll };
	struct exec_executor *cx;
	struct exec_handler h;
	struct exec_io_op op;
	struct io_cur c = { 0 };
	struct io_env env;
	int sv[2];
	char buf[1];

	io_env_init(test, &env, epoll);
	cx = exec_io_executor(env.io);
	KUNIT_EXPECT_EQ(test, exec_submit_fn(cx, io_cur_item, &c), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_wait_atomic_ge(&c.ran, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_PTR_EQ(test, c.seen, cx);

	KUNIT_ASSERT_EQ(test, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC,
					 0, sv), 0);
	exec_io_op_init(&op);
	KUNIT_EXPECT_EQ(test, exec_bind_executor(&h, cx, io_cur_handler, &c),
			0);
	/* Before the operation starts: it publishes what we wrote. */
	c.seen = NULL;
	KUNIT_EXPECT_EQ(test, exec_io_recv(env.io, &op, sv[0], buf, 1, 0, &h),
			0);
	KUNIT_EXPECT_EQ(test, write(sv[1], "x", 1), 1);
	KUNIT_ASSERT_TRUE(test, exec_test_wait_atomic_ge(&c.ran, 2,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_PTR_EQ(test, c.seen, cx);
	KUNIT_EXPECT_EQ(test, exec_handler_unbind(&h), 0);
	io_wait_unused(test, cx);
	io_env_fini(test, &env);
	close(sv[0]);
	close(sv[1]);

	KUNIT_ASSERT_EQ(test, exec_io_pool_create(&c.pool, 2, &attr), 0);
	c.seen = NULL;
	KUNIT_EXPECT_EQ(test, exec_submit_fn(exec_io_pool_executor(c.pool),
					     io_cur_item, &c), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_wait_atomic_ge(&c.ran, 3,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_NOT_NULL(test, c.seen);
	KUNIT_EXPECT_PTR_EQ(test, c.seen, c.own);
	KUNIT_EXPECT_NULL(test, exec_current_executor());
	KUNIT_EXPECT_EQ(test, exec_io_pool_destroy(c.pool), 0L);
}

static void io_current_executor(struct kunit *test)
{
	io_current_executor_one(test, false);
	io_current_executor_one(test, true);
}

/*
 * Receives into a group of buffers: the data lands in a buffer of the
 * group that the handler owns until it gives it back; with every buffer
 * out, data comes as -ENOBUFS; destroy waits for the buffers.
 */
#define IO_BUFS		4
#define IO_BUF_SIZE	64

static void io_recv_buf_one(struct kunit *test, bool epoll)
{
	struct exec_handler h[IO_BUFS + 1];
	struct io_rec r[IO_BUFS + 1];
	struct exec_io_bufs *bufs;
	void *got[IO_BUFS];
	int sv[IO_BUFS + 1][2], i, j;
	struct io_env env;

	io_env_init(test, &env, epoll);
	KUNIT_EXPECT_EQ(test, exec_io_bufs_create(env.io, &bufs, 3, 64),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_io_bufs_create(env.io, &bufs, 4, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_io_bufs_create(NULL, &bufs, 4, 64),
			-EINVAL);
	KUNIT_ASSERT_EQ(test, exec_io_bufs_create(env.io, &bufs, IO_BUFS,
						  IO_BUF_SIZE), 0);
	/* A context with a group is not destroyed before the group. */
	KUNIT_EXPECT_EQ(test, exec_io_destroy(env.io), (long)-EBUSY);
	for (i = 0; i <= IO_BUFS; i++) {
		KUNIT_ASSERT_EQ(test, socketpair(AF_UNIX,
						 SOCK_STREAM | SOCK_CLOEXEC,
						 0, sv[i]), 0);
		io_rec_init(&r[i], &h[i], env.ex);
		KUNIT_EXPECT_EQ(test, exec_io_recv_buf(env.io, &r[i].op,
						       sv[i][0], bufs, 0,
						       &h[i]), 0);
	}
	/* Waiting receives hold no buffer: all of them may wait at once. */
	KUNIT_EXPECT_EQ(test, exec_io_bufs_destroy(bufs), -EBUSY);
	for (i = 0; i < IO_BUFS; i++) {
		KUNIT_EXPECT_EQ(test, write(sv[i][1], "data", 4), 4);
		KUNIT_EXPECT_EQ(test, io_rec_wait(test, &r[i]), 4L);
		got[i] = exec_io_op_buf(&r[i].op);
		KUNIT_ASSERT_NOT_NULL(test, got[i]);
		KUNIT_EXPECT_EQ(test, memcmp(got[i], "data", 4), 0);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_PTR_NE(test, got[i], got[j]);
	}
	/* Every buffer is out: the last receive's data gets none. */
	KUNIT_EXPECT_EQ(test, write(sv[IO_BUFS][1], "more", 4), 4);
	KUNIT_EXPECT_EQ(test, io_rec_wait(test, &r[IO_BUFS]), (long)-ENOBUFS);
	KUNIT_EXPECT_NULL(test, exec_io_op_buf(&r[IO_BUFS].op));
	for (i = 0; i <= IO_BUFS; i++)
		io_rec_once(test, &r[i]);
	KUNIT_EXPECT_EQ(test, exec_io_bufs_destroy(bufs), -EBUSY);
	exec_io_buf_put(bufs, got[0]);
	/* Given back, a buffer takes the data that was left. */
	io_rec_init(&r[0], &h[0], env.ex);
	KUNIT_EXPECT_EQ(test, exec_io_recv_buf(env.io, &r[0].op,
					       sv[IO_BUFS][0], bufs, 0, &h[0]),
			0);
	KUNIT_EXPECT_EQ(test, io_rec_wait(test, &r[0]), 4L);
	KUNIT_ASSERT_NOT_NULL(test, exec_io_op_buf(&r[0].op));
	KUNIT_EXPECT_EQ(test, memcmp(exec_io_op_buf(&r[0].op), "more", 4), 0);
	exec_io_buf_put(bufs, exec_io_op_buf(&r[0].op));
	/* End of stream: 0 and no buffer. */
	io_rec_init(&r[1], &h[1], env.ex);
	KUNIT_EXPECT_EQ(test, exec_io_recv_buf(env.io, &r[1].op, sv[1][0],
					       bufs, 0, &h[1]), 0);
	close(sv[1][1]);
	KUNIT_EXPECT_EQ(test, io_rec_wait(test, &r[1]), 0L);
	KUNIT_EXPECT_NULL(test, exec_io_op_buf(&r[1].op));
	for (i = 1; i < IO_BUFS; i++)
		exec_io_buf_put(bufs, got[i]);
	KUNIT_EXPECT_EQ(test, exec_io_bufs_destroy(bufs), 0);
	io_env_fini(test, &env);
	for (i = 0; i <= IO_BUFS; i++) {
		close(sv[i][0]);
		if (i != 1)
			close(sv[i][1]);
	}
}

static void io_recv_buf(struct kunit *test)
{
	io_recv_buf_one(test, false);
	io_recv_buf_one(test, true);
	/* io_uring where the context picks, as the receive starts. */
	exec_io_test_set_no_buf_ring(true);
	io_recv_buf_one(test, false);
	exec_io_test_set_no_buf_ring(false);
}

/* Bad input gets an error, never a crash or a lost operation. */
static void io_bad_input_one(struct kunit *test, bool epoll)
{
	struct exec_io_attr bad = { .entries = 3 };
	struct exec_handler h, none = { 0 };
	struct exec_io *io2;
	struct io_rec r, r2;
	struct io_env env;
	char buf[4];
	int sv[2];

	KUNIT_EXPECT_EQ(test, exec_io_create(NULL, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_io_create(&io2, &bad), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_io_destroy(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_io_shutdown(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_io_cancel(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_io_cancel_token(NULL, NULL), -EINVAL);
	KUNIT_EXPECT_NULL(test, exec_io_backend(NULL));
	io_env_init(test, &env, epoll);
	KUNIT_ASSERT_EQ(test, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC,
					 0, sv), 0);
	io_rec_init(&r, &h, env.ex);
	KUNIT_EXPECT_EQ(test, exec_io_recv(NULL, &r.op, sv[0], buf, 4, 0, &h),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_io_recv(env.io, NULL, sv[0], buf, 4, 0, &h),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_io_recv(env.io, &r.op, sv[0], buf, 4, 0,
					   NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_io_recv(env.io, &r.op, sv[0], buf, 4, 0,
					   &none), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_io_recv(env.io, &r.op, -1, buf, 4, 0, &h),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_io_recv(env.io, &r.op, sv[0], NULL, 4, 0,
					   &h), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_io_readv(env.io, &r.op, sv[0], NULL, 1, 0,
					    &h), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_io_connect(env.io, &r.op, sv[0], NULL, 0,
					      &h), -EINVAL);
	/* An operation that was never initialised is refused. */
	memset(&r2.op, 0, sizeof(r2.op));
	KUNIT_EXPECT_EQ(test, exec_io_recv(env.io, &r2.op, sv[0], buf, 4, 0,
					   &h), -EINVAL);
	/* Double start: refused; the first still completes, once. */
	KUNIT_EXPECT_EQ(test, exec_io_recv(env.io, &r.op, sv[0], buf, 4, 0,
					   &h), 0);
	KUNIT_EXPECT_EQ(test, exec_io_recv(env.io, &r.op, sv[0], buf, 4, 0,
					   &h), -EALREADY);
	KUNIT_EXPECT_EQ(test, exec_io_timeout(env.io, &r.op, 1, &h),
			-EALREADY);
	KUNIT_EXPECT_EQ(test, write(sv[1], "ab", 2), 2);
	KUNIT_EXPECT_EQ(test, io_rec_wait(test, &r), 2L);
	io_rec_once(test, &r);
	KUNIT_EXPECT_EQ(test, exec_io_pending(env.io), 0UL);

	/* After shutdown: -ESHUTDOWN. */
	io_rec_init(&r, &h, env.ex);
	KUNIT_EXPECT_EQ(test, exec_io_shutdown(env.io), 0L);
	KUNIT_EXPECT_EQ(test, exec_io_recv(env.io, &r.op, sv[0], buf, 4, 0,
					   &h), -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, exec_io_timeout(env.io, &r.op, 1, &h),
			-ESHUTDOWN);
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&r.calls), 0);
	close(sv[0]);
	close(sv[1]);
	io_env_fini(test, &env);
}

static void io_bad_input(struct kunit *test)
{
	io_bad_input_one(test, false);
	io_bad_input_one(test, true);
}

/*
 * A batch defers the submission: on io_uring, a timeout of 1 ns started in
 * a batch does not complete before the batch ends.
 */
static void io_batch(struct kunit *test)
{
	struct exec_handler h[8];
	struct io_rec r[8];
	struct io_env env;
	int i;

	io_env_init(test, &env, false);
	if (strcmp(exec_io_backend(env.io), "io_uring")) {
		io_env_fini(test, &env);
		kunit_skip(test, "the epoll backend does not batch");
	}
	/* Asleep, the context's thread takes nothing before it is woken. */
	exec_io_test_wait_asleep(env.io);
	exec_io_batch_begin(env.io);
	exec_io_batch_begin(env.io);
	for (i = 0; i < 8; i++) {
		io_rec_init(&r[i], &h[i], env.ex);
		KUNIT_EXPECT_EQ(test, exec_io_timeout(env.io, &r[i].op, 1,
						      &h[i]), 0);
	}
	KUNIT_EXPECT_EQ(test, exec_io_batch_end(env.io), 0);
	msleep(20);
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&r[i].calls), 0);
	KUNIT_EXPECT_EQ(test, exec_io_batch_end(env.io), 0);
	for (i = 0; i < 8; i++) {
		KUNIT_EXPECT_EQ(test, io_rec_wait(test, &r[i]), 0L);
		io_rec_once(test, &r[i]);
	}
	io_env_fini(test, &env);
}

/*
 * Cancellation racing completion: the data arrives just before or just
 * after the cancellation is asked for.  Every start completes exactly once, with the byte or with
 * -ECANCELED, and a byte a cancelled receive did not take is still there.
 */
#define IO_RACE_ROUNDS	1000

static void io_cancel_race_one(struct kunit *test, bool epoll)
{
	struct exec_handler h;
	struct io_rec r;
	struct io_env env;
	int sv[2], i, got = 0, cancelled = 0, lost = 0;
	char buf[1], c;

	io_env_init(test, &env, epoll);
	KUNIT_ASSERT_EQ(test, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC,
					 0, sv), 0);
	io_rec_init(&r, &h, env.ex);
	for (i = 0; i < IO_RACE_ROUNDS; i++) {
		KUNIT_ASSERT_EQ(test, exec_io_recv(env.io, &r.op, sv[0], buf, 1,
						   0, &h), 0);
		/* Both orders: the completion or the cancellation first. */
		if (i & 1)
			exec_io_cancel(&r.op);
		KUNIT_ASSERT_EQ(test, write(sv[1], "x", 1), 1);
		if (!(i & 1))
			exec_io_cancel(&r.op);
		KUNIT_ASSERT_TRUE(test, exec_test_wait_atomic_ge(&r.calls,
						i + 1, EXEC_TEST_TIMEOUT_MS));
		if (READ_ONCE(r.result) == 1) {
			got++;
		} else if (READ_ONCE(r.result) == -ECANCELED) {
			cancelled++;
			if (recv(sv[0], &c, 1, MSG_DONTWAIT) != 1)
				lost++;
		}
	}
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r.calls), IO_RACE_ROUNDS);
	KUNIT_EXPECT_EQ(test, got + cancelled, IO_RACE_ROUNDS);
	KUNIT_EXPECT_EQ(test, lost, 0);
	KUNIT_EXPECT_EQ(test, exec_io_pending(env.io), 0UL);
	kunit_info(test, "%s: %d received, %d cancelled",
		   exec_io_backend(env.io), got, cancelled);
	close(sv[0]);
	close(sv[1]);
	io_env_fini(test, &env);
}

static void io_cancel_race(struct kunit *test)
{
	io_cancel_race_one(test, false);
	io_cancel_race_one(test, true);
}

/* A latch counted down by the handlers waits for a set of operations. */
struct io_latched {
	struct exec_latch *latch;
	atomic_t ok;
};

static void io_latched_fn(void *arg, long result)
{
	struct io_latched *l = arg;

	if (result == 0)
		exec_test_count(&l->ok);
	exec_latch_count_down(l->latch);
}

static void io_latch_one(struct kunit *test, bool epoll)
{
	struct exec_handler h;
	struct exec_io_op ops[16];
	struct exec_latch latch;
	struct io_latched l = { .latch = &latch };
	struct io_env env;
	int i;

	io_env_init(test, &env, epoll);
	atomic_set(&l.ok, 0);
	KUNIT_ASSERT_EQ(test, exec_latch_init(&latch, ARRAY_SIZE(ops), NULL,
					      NULL, NULL), 0);
	exec_handler_init(&h, io_latched_fn, &l);
	for (i = 0; i < (int)ARRAY_SIZE(ops); i++) {
		exec_io_op_init(&ops[i]);
		KUNIT_EXPECT_EQ(test, exec_io_timeout(env.io, &ops[i],
						      (u64)(i + 1) * 1000000ULL,
						      &h), 0);
	}
	KUNIT_EXPECT_EQ(test, exec_latch_wait(&latch,
					      EXEC_TEST_TIMEOUT_MS * 1000000ULL),
			0);
	KUNIT_EXPECT_EQ(test, atomic_read(&l.ok), (int)ARRAY_SIZE(ops));
	io_env_fini(test, &env);
}

static void io_latch(struct kunit *test)
{
	io_latch_one(test, false);
	io_latch_one(test, true);
}

/*
 * Multishot accept: one call per connection, in order and one at a time,
 * while the operation stays pending; a cancellation ends it with one last
 * call, -ECANCELED.
 */
#define IO_MULTI_CONNS	20

struct io_multi {
	atomic_t calls;
	atomic_t inside;
	atomic_t overlaps;
	int fds[IO_MULTI_CONNS + 1];
	long last;
	atomic_t ended;
};

static void io_multi_fn(void *arg, long result)
{
	struct io_multi *m = arg;
	int i, n;

	if (atomic_inc_return(&m->inside) != 1)
		exec_test_count(&m->overlaps);
	for (i = 0; i < 1000; i++)
		cpu_relax();
	n = atomic_read(&m->calls);
	if (result >= 0 && n < IO_MULTI_CONNS)
		m->fds[n] = (int)result;
	else if (result >= 0)
		close((int)result);
	atomic_dec(&m->inside);
	if (result < 0) {
		WRITE_ONCE(m->last, result);
		exec_test_count(&m->ended);
	}
	exec_test_count(&m->calls);
}

static void io_accept_multishot_one(struct kunit *test, bool epoll)
{
	struct io_multi *m = kzalloc(sizeof(*m), GFP_KERNEL);
	int cfd[IO_MULTI_CONNS], lfd, i, j;
	struct sockaddr_in sin;
	struct exec_io_op op;
	struct exec_handler h;
	struct io_env env;

	KUNIT_ASSERT_NOT_NULL(test, m);
	io_env_init(test, &env, epoll);
	lfd = io_listener(test, &sin);
	exec_io_op_init(&op);
	exec_handler_init(&h, io_multi_fn, m);
	KUNIT_EXPECT_EQ(test, exec_io_accept_multishot(env.io, &op, lfd, &h),
			0);
	KUNIT_EXPECT_EQ(test, exec_io_accept_multishot(env.io, &op, lfd, &h),
			-EALREADY);
	KUNIT_EXPECT_EQ(test, exec_io_accept(env.io, &op, lfd, &h), -EALREADY);
	for (i = 0; i < IO_MULTI_CONNS; i++) {
		cfd[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		KUNIT_ASSERT_GE(test, cfd[i], 0);
		KUNIT_ASSERT_EQ(test, connect(cfd[i], (struct sockaddr *)&sin,
					      sizeof(sin)), 0);
	}
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&m->calls,
							 IO_MULTI_CONNS,
							 EXEC_TEST_TIMEOUT_MS));
	/* Still pending, and no last call yet. */
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&m->calls), IO_MULTI_CONNS);
	KUNIT_EXPECT_EQ(test, atomic_read(&m->ended), 0);
	KUNIT_EXPECT_EQ(test, exec_io_pending(env.io), 1UL);
	for (i = 0; i < IO_MULTI_CONNS; i++) {
		KUNIT_EXPECT_GE(test, m->fds[i], 0);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE(test, m->fds[i], m->fds[j]);
	}
	KUNIT_EXPECT_EQ(test, exec_io_cancel(&op), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&m->ended, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, READ_ONCE(m->last), (long)-ECANCELED);
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&m->calls), IO_MULTI_CONNS + 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&m->ended), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&m->overlaps), 0);
	KUNIT_EXPECT_EQ(test, exec_io_cancel(&op), -EALREADY);
	for (i = 0; i < IO_MULTI_CONNS; i++) {
		close(m->fds[i]);
		close(cfd[i]);
	}
	/* Idle again: it starts anew, and destroy ends it. */
	atomic_set(&m->calls, 0);
	atomic_set(&m->ended, 0);
	KUNIT_EXPECT_EQ(test, exec_io_accept_multishot(env.io, &op, lfd, &h),
			0);
	KUNIT_EXPECT_EQ(test, exec_io_destroy(env.io), 1L);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&m->ended, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, READ_ONCE(m->last), (long)-ECANCELED);
	KUNIT_EXPECT_EQ(test, atomic_read(&m->calls), 1);
	io_wait_unused(test, env.ex);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(env.pool), 0L);
	close(lfd);
	kfree(m);
}

static void io_accept_multishot(struct kunit *test)
{
	io_accept_multishot_one(test, false);
	io_accept_multishot_one(test, true);
}

/* Holds the context's thread until released. */
struct io_hold {
	atomic_t held;
	bool release;
};

static void io_hold_fn(void *arg)
{
	struct io_hold *hd = arg;

	exec_test_count(&hd->held);
	while (!READ_ONCE(hd->release))
		usleep_range(100, 200);
}

/*
 * A socket for a multishot accept and a byte for a receive, taken by the
 * context's thread in one pass (it was held while both came): the accept
 * is queued while it stays pending, the receive completes and is started
 * again, and a cancellation by token then walks the pending list.
 * Queuing completions through the pending list's own link once made that
 * list a ring here, and the walk never ended (a stop of examples/httpd.c
 * on SIGTERM hung).
 */
static void io_multishot_and_receive_in_one_pass_one(struct kunit *test,
						     bool epoll)
{
	struct io_multi *m = kzalloc(sizeof(*m), GFP_KERNEL);
	struct exec_cancel_token tok = EXEC_CANCEL_TOKEN_INIT;
	struct exec_handler ha, hr;
	struct exec_io_op accept_op;
	struct io_hold hold = { 0 };
	struct sockaddr_in sin;
	struct io_env env;
	struct io_rec r;
	int lfd, cfd, sv[2];
	char buf[1];

	KUNIT_ASSERT_NOT_NULL(test, m);
	io_env_init(test, &env, epoll);
	lfd = io_listener(test, &sin);
	KUNIT_ASSERT_EQ(test, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC,
					 0, sv), 0);
	exec_io_op_init(&accept_op);
	exec_io_op_set_token(&accept_op, &tok);
	exec_handler_init(&ha, io_multi_fn, m);
	KUNIT_EXPECT_EQ(test, exec_io_accept_multishot(env.io, &accept_op, lfd,
						       &ha), 0);
	io_rec_init(&r, &hr, env.ex);
	exec_io_op_set_token(&r.op, &tok);
	KUNIT_EXPECT_EQ(test, exec_io_recv(env.io, &r.op, sv[0], buf, 1, 0,
					   &hr), 0);
	KUNIT_EXPECT_EQ(test, exec_submit_fn(exec_io_executor(env.io),
					     io_hold_fn, &hold), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&hold.held, 1,
							 EXEC_TEST_TIMEOUT_MS));
	cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	KUNIT_ASSERT_GE(test, cfd, 0);
	KUNIT_ASSERT_EQ(test, connect(cfd, (struct sockaddr *)&sin,
				      sizeof(sin)), 0);
	KUNIT_EXPECT_EQ(test, write(sv[1], "x", 1), 1);
	msleep(EXEC_TEST_SETTLE_MS);
	WRITE_ONCE(hold.release, true);
	KUNIT_EXPECT_EQ(test, io_rec_wait(test, &r), 1L);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&m->calls, 1,
							 EXEC_TEST_TIMEOUT_MS));
	/* The receive again, then the walk: it ends, and cancels both. */
	KUNIT_EXPECT_EQ(test, exec_io_recv(env.io, &r.op, sv[0], buf, 1, 0,
					   &hr), 0);
	KUNIT_EXPECT_EQ(test, exec_io_cancel_token(env.io, &tok), 2L);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&m->ended, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, READ_ONCE(m->last), (long)-ECANCELED);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&r.calls, 2,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, READ_ONCE(r.result), (long)-ECANCELED);
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r.calls), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&m->calls), 2);
	io_env_fini(test, &env);
	close(m->fds[0]);
	close(cfd);
	close(lfd);
	close(sv[0]);
	close(sv[1]);
	kfree(m);
}

static void io_multishot_and_receive_in_one_pass(struct kunit *test)
{
	io_multishot_and_receive_in_one_pass_one(test, false);
	io_multishot_and_receive_in_one_pass_one(test, true);
}

/*
 * One pass of the allocation sweep: an I/O context is created, a recv
 * completes on it (the epoll backend's descriptor table and entry), and a
 * multishot accept starts and is cancelled, with the @n-th allocation of
 * the library failing.  Returns whether that failure happened.
 */
static bool io_alloc_fault_pass(struct kunit *test, struct exec_executor *ex,
				bool epoll, int n)
{
	struct exec_io_attr attr = { .force_epoll = epoll, .executor = ex };
	struct exec_handler hr, hm;
	struct io_multi *m = kzalloc(sizeof(*m), GFP_KERNEL);
	struct sockaddr_in sin;
	struct exec_io_op mop;
	struct io_rec rcv;
	struct exec_io *io;
	int sv[2], lfd, ret;
	bool fired, on_epoll;
	char buf[8];

	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_EQ(test, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
					 sv), 0);
	lfd = io_listener(test, &sin);
	exec_fault_inject_alloc(n);
	ret = exec_io_create(&io, &attr);
	if (ret) {
		KUNIT_EXPECT_EQ(test, ret, -ENOMEM);
		goto out_inject;
	}
	on_epoll = !strcmp(exec_io_backend(io), "epoll");
	io_rec_init(&rcv, &hr, ex);
	ret = exec_io_recv(io, &rcv.op, sv[0], buf, sizeof(buf), 0, &hr);
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (!ret) {
		KUNIT_EXPECT_EQ(test, write(sv[1], "pong", 4), 4);
		/* The epoll backend's entry for @sv[0] may be what failed. */
		ret = io_rec_wait(test, &rcv);
		if (ret != -ENOMEM || !on_epoll)
			KUNIT_EXPECT_EQ(test, ret, 4);
	}
	exec_io_op_init(&mop);
	exec_handler_init(&hm, io_multi_fn, m);
	ret = exec_io_accept_multishot(io, &mop, lfd, &hm);
	if (ret) {
		KUNIT_EXPECT_EQ(test, ret, -ENOMEM);
	} else {
		/* Pending, or ended by a failure of the epoll entry. */
		ret = exec_io_cancel(&mop);
		KUNIT_EXPECT_TRUE(test, !ret || (on_epoll && ret == -EALREADY));
		/* Its one call, the last: @calls is what it touches last. */
		KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&m->calls, 1,
							EXEC_TEST_TIMEOUT_MS));
		KUNIT_EXPECT_EQ(test, atomic_read(&m->ended), 1);
		KUNIT_EXPECT_EQ(test, READ_ONCE(m->last),
				ret ? (long)-ENOMEM : (long)-ECANCELED);
	}
	/* What failed left the context usable: it ends with nothing. */
	KUNIT_EXPECT_EQ(test, exec_io_destroy(io), 0L);
	io_wait_unused(test, ex);
out_inject:
	fired = exec_fault_alloc_fired();
	exec_fault_inject_alloc(-1);
	close(lfd);
	close(sv[0]);
	close(sv[1]);
	kfree(m);
	return fired;
}

/*
 * Allocation failure at every site of an I/O context, each failed in
 * turn: -ENOMEM, the context still usable, and nothing leaked (the ASan
 * run's LeakSanitizer).
 */
static void io_alloc_fault_one(struct kunit *test, bool epoll)
{
	struct exec_thread_pool_attr pattr = { .nr_threads = 1 };
	struct exec_thread_pool *pool;
	int n, failed = 0;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &pattr), 0);
	for (n = 0; n < 32; n++) {
		if (!io_alloc_fault_pass(test, exec_thread_pool_executor(pool),
					 epoll, n))
			break;
		failed++;
	}
	KUNIT_EXPECT_LT(test, n, 32);
	/* The context itself, and the multishot accept's state at least. */
	KUNIT_EXPECT_GE(test, failed, 2);
	kunit_info(test, "I/O context (%s): %d allocations failed in turn",
		   epoll ? "epoll forced" : "the process's backend", failed);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

static void io_alloc_fault(struct kunit *test)
{
	io_alloc_fault_one(test, false);
	io_alloc_fault_one(test, true);
}

/* --- pools of contexts ---------------------------------------------------- */

#define IO_POOL_ITEMS	64

struct io_pl {
	struct exec_io_pool *pool;
	struct exec_executor *ex;
	pthread_t threads[2];		/* the pool's threads, as items saw them */
	atomic_t per_thread[2];		/* items from outside, per thread */
	atomic_t ran;
	atomic_t wrong;
	pthread_t started_on;		/* the thread that started the receive */
	struct exec_io *started_io;
	struct exec_io_op op;
	struct exec_handler h;
	int fd;
	char buf[1];
	atomic_t handled;
	atomic_t local_ran;
	struct exec_timer timer;
	atomic_t timed;
	long destroy_ret;
	atomic_t destroyed;
};

/* Which of the pool's two threads the caller is; -1 for neither. */
static int io_pl_thread(struct io_pl *p)
{
	int i;

	for (i = 0; i < 2; i++)
		if (pthread_equal(pthread_self(), p->threads[i]))
			return i;
	return -1;
}

static void io_pl_learn(void *arg)
{
	struct io_pl *p = arg;
	struct exec_io *io = exec_io_pool_context(p->pool);
	int i;

	/* On a pool thread: its own context, every time. */
	if (!exec_running_in_this_thread(p->ex) ||
	    io != exec_io_pool_context(p->pool))
		exec_test_count(&p->wrong);
	for (i = 0; i < 2; i++)
		if (io == exec_io_pool_get(p->pool, i))
			p->threads[i] = pthread_self();
	exec_test_count(&p->ran);
}

static void io_pl_item(void *arg)
{
	struct io_pl *p = arg;
	int i = io_pl_thread(p);

	if (i < 0 || !exec_running_in_this_thread(p->ex))
		exec_test_count(&p->wrong);
	else
		exec_test_count(&p->per_thread[i]);
	exec_test_count(&p->ran);
}

static void io_pl_local(void *arg)
{
	struct io_pl *p = arg;

	if (!pthread_equal(pthread_self(), p->started_on))
		exec_test_count(&p->wrong);
	exec_test_count(&p->local_ran);
}

static void io_pl_handler(void *arg, long result)
{
	struct io_pl *p = arg;

	/* No hop: the thread that started it, which took the completion. */
	if (result != 1 || !pthread_equal(pthread_self(), p->started_on) ||
	    !exec_running_in_this_thread(p->ex) ||
	    exec_io_pool_context(p->pool) != p->started_io)
		exec_test_count(&p->wrong);
	/* What it submits stays on its thread too. */
	if (exec_submit_fn(p->ex, io_pl_local, p))
		exec_test_count(&p->wrong);
	exec_test_count(&p->handled);
}

static void io_pl_start(void *arg)
{
	struct io_pl *p = arg;

	p->started_on = pthread_self();
	p->started_io = exec_io_pool_context(p->pool);
	if (exec_io_recv(p->started_io, &p->op, p->fd, p->buf, 1, 0, &p->h))
		exec_test_count(&p->wrong);
}

static void io_pl_timed(struct exec_work *work)
{
	struct io_pl *p = container_of(work, struct io_pl, timer.work);

	if (io_pl_thread(p) < 0)
		exec_test_count(&p->wrong);
	exec_test_count(&p->timed);
}

static void io_pl_destroy_item(void *arg)
{
	struct io_pl *p = arg;

	p->destroy_ret = exec_io_pool_destroy(p->pool);
	exec_test_count(&p->destroyed);
}

static void io_pool_one(struct kunit *test, bool epoll)
{
	struct exec_io_attr attr = { .force_epoll = epoll };
	struct io_pl *p = kzalloc(sizeof(*p), GFP_KERNEL);
	struct exec_serial *serial;
	struct exec_handler h;
	struct io_rec rec;
	int sv[2], i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, exec_io_pool_create(&p->pool, 2, &attr), 0);
	p->ex = exec_io_pool_executor(p->pool);
	KUNIT_ASSERT_NOT_NULL(test, p->ex);
	KUNIT_EXPECT_STREQ(test, exec_executor_kind(p->ex), "io_pool");
	KUNIT_EXPECT_EQ(test, exec_io_pool_size(p->pool), 2U);
	KUNIT_ASSERT_NOT_NULL(test, exec_io_pool_get(p->pool, 1));
	KUNIT_EXPECT_PTR_NE(test, exec_io_pool_get(p->pool, 0),
			    exec_io_pool_get(p->pool, 1));
	KUNIT_EXPECT_NULL(test, exec_io_pool_get(p->pool, 2));
	if (epoll)
		KUNIT_EXPECT_STREQ(test,
				   exec_io_backend(exec_io_pool_get(p->pool, 0)),
				   "epoll");
	/* From outside, the contexts in turn; the pool owns them. */
	KUNIT_EXPECT_PTR_NE(test, exec_io_pool_context(p->pool),
			    exec_io_pool_context(p->pool));
	KUNIT_EXPECT_EQ(test, exec_io_destroy(exec_io_pool_get(p->pool, 0)),
			(long)-EBUSY);
	KUNIT_EXPECT_FALSE(test, exec_running_in_this_thread(p->ex));

	/* Learn each thread from an item submitted on its own context. */
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test,
				exec_submit_fn(exec_io_executor(exec_io_pool_get(p->pool, i)),
					       io_pl_learn, p), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&p->ran, 2,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_FALSE(test, pthread_equal(p->threads[0], p->threads[1]));

	/* Items from outside: every one on a pool thread, both threads used. */
	for (i = 0; i < IO_POOL_ITEMS; i++)
		KUNIT_EXPECT_EQ(test, exec_submit_fn(p->ex, io_pl_item, p), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&p->ran,
							 IO_POOL_ITEMS + 2,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&p->per_thread[0]) +
			atomic_read(&p->per_thread[1]), IO_POOL_ITEMS);
	KUNIT_EXPECT_GT(test, atomic_read(&p->per_thread[0]), 0);
	KUNIT_EXPECT_GT(test, atomic_read(&p->per_thread[1]), 0);

	/*
	 * A receive started on a pool thread, its handler bound to the pool:
	 * the handler, and what it submits, run on that thread.
	 */
	KUNIT_ASSERT_EQ(test, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC,
					 0, sv), 0);
	p->fd = sv[0];
	exec_io_op_init(&p->op);
	KUNIT_EXPECT_EQ(test, exec_bind_executor(&p->h, p->ex, io_pl_handler,
						 p), 0);
	KUNIT_EXPECT_EQ(test, exec_submit_fn(p->ex, io_pl_start, p), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&p->ran,
							 IO_POOL_ITEMS + 2,
							 EXEC_TEST_TIMEOUT_MS));
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, exec_io_pool_pending(p->pool), 1UL);
	/* Not while a handler is bound to its executor. */
	KUNIT_EXPECT_EQ(test, exec_io_pool_destroy(p->pool), (long)-EBUSY);
	KUNIT_EXPECT_EQ(test, write(sv[1], "x", 1), 1);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&p->local_ran, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&p->handled), 1);
	KUNIT_EXPECT_EQ(test, exec_handler_unbind(&p->h), 0);

	/* A timed item comes due on a pool thread. */
	exec_timer_init(&p->timer, io_pl_timed, NULL);
	KUNIT_EXPECT_EQ(test, exec_submit_after(p->ex, &p->timer, 1000000), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&p->timed, 1,
							 EXEC_TEST_TIMEOUT_MS));

	/* Not while a serial executor is over it, nor from its own thread. */
	KUNIT_ASSERT_EQ(test, exec_serial_create(&serial, p->ex), 0);
	KUNIT_EXPECT_EQ(test, exec_io_pool_destroy(p->pool), (long)-EBUSY);
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(serial), 0L);
	KUNIT_EXPECT_EQ(test, exec_submit_fn(p->ex, io_pl_destroy_item, p), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&p->destroyed, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, p->destroy_ret, (long)-EDEADLK);

	/* A receive still pending is cancelled by the destroy, and counted. */
	io_rec_init(&rec, &h, NULL);
	KUNIT_EXPECT_EQ(test, exec_io_recv(exec_io_pool_context(p->pool),
					   &rec.op, sv[0], p->buf, 1, 0, &h),
			0);
	io_wait_unused(test, p->ex);
	KUNIT_EXPECT_EQ(test, exec_io_pool_destroy(p->pool), 1L);
	KUNIT_EXPECT_EQ(test, io_rec_wait(test, &rec), (long)-ECANCELED);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->wrong), 0);
	close(sv[0]);
	close(sv[1]);
	kfree(p);
}

static void io_pool(struct kunit *test)
{
	struct exec_io_pool *pool = (void *)1;

	io_pool_one(test, false);
	io_pool_one(test, true);

	/* Bad input. */
	KUNIT_EXPECT_EQ(test, exec_io_pool_create(NULL, 1, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_io_pool_create(&pool, 1025, NULL), -EINVAL);
	KUNIT_EXPECT_NULL(test, pool);
	KUNIT_EXPECT_EQ(test, exec_io_pool_destroy(NULL), (long)-EINVAL);
	KUNIT_EXPECT_NULL(test, exec_io_pool_executor(NULL));
	KUNIT_EXPECT_NULL(test, exec_io_pool_context(NULL));
	KUNIT_EXPECT_NULL(test, exec_io_pool_get(NULL, 0));
	KUNIT_EXPECT_EQ(test, exec_io_pool_size(NULL), 0U);
	KUNIT_EXPECT_EQ(test, exec_io_pool_pending(NULL), 0UL);
	KUNIT_EXPECT_EQ(test, exec_io_pool_cancel_token(NULL, NULL),
			(long)-EINVAL);
}

/* What a multishot receive delivered. */
struct io_rm {
	struct exec_io_op op;
	struct exec_io_bufs *bufs;
	char data[128];
	atomic_t len;			/* of @data */
	atomic_t pieces;
	atomic_t inside;
	atomic_t overlaps;
	atomic_t wrong;			/* a piece too big, a last call with a buffer */
	bool hold;			/* keep the buffers (@held) */
	void *held[IO_BUFS];
	unsigned int nr_held;
	long last;
	atomic_t ended;
};

static void io_rm_fn(void *arg, long result)
{
	struct io_rm *m = arg;
	void *buf = exec_io_op_buf(&m->op);
	int len = atomic_read(&m->len);

	if (atomic_inc_return(&m->inside) != 1)
		exec_test_count(&m->overlaps);
	if (result <= 0) {
		if (buf)
			exec_test_count(&m->wrong);
		m->last = result;
		atomic_dec(&m->inside);
		exec_test_count(&m->ended);
		return;
	}
	if (!buf || result > 8 || len + result > (long)sizeof(m->data)) {
		exec_test_count(&m->wrong);
	} else {
		memcpy(m->data + len, buf, (size_t)result);
		atomic_set(&m->len, len + (int)result);
	}
	if (m->hold && buf && m->nr_held < IO_BUFS)
		m->held[m->nr_held++] = buf;
	else if (buf)
		exec_io_buf_put(m->bufs, buf);
	atomic_dec(&m->inside);
	exec_test_count(&m->pieces);
}

/* Starts @m's receive on @fd, as a fresh operation. */
static int io_rm_start(struct io_rm *m, struct exec_io *io, int fd,
		       struct exec_handler *h)
{
	atomic_set(&m->ended, 0);
	m->last = 1;
	return exec_io_recv_multishot(io, &m->op, fd, m->bufs, 0, h);
}

static void io_recv_multishot_one(struct kunit *test, bool epoll)
{
	static const char more[] = "abcdefghijklmnopqrstuvwxyz0123";
	struct exec_cancel_token tok = EXEC_CANCEL_TOKEN_INIT;
	struct exec_io_bufs *other;
	struct exec_handler h;
	struct io_env env, env2;
	struct io_rm *m = kzalloc(sizeof(*m), GFP_KERNEL);
	unsigned int i;
	int sv[2];

	KUNIT_ASSERT_NOT_NULL(test, m);
	io_env_init(test, &env, epoll);
	KUNIT_ASSERT_EQ(test, exec_io_bufs_create(env.io, &m->bufs, IO_BUFS, 8),
			0);
	exec_io_op_init(&m->op);
	exec_handler_init(&h, io_rm_fn, m);
	h.ex = env.ex;
	KUNIT_ASSERT_EQ(test, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC,
					 0, sv), 0);

	/* Bad input. */
	KUNIT_EXPECT_EQ(test, exec_io_recv_multishot(env.io, &m->op, sv[0],
						     NULL, 0, &h), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_io_recv_multishot(env.io, &m->op, -1,
						     m->bufs, 0, &h), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_io_recv_multishot(env.io, &m->op, sv[0],
						     m->bufs, MSG_WAITALL, &h),
			-EINVAL);
	io_env_init(test, &env2, epoll);
	KUNIT_ASSERT_EQ(test, exec_io_bufs_create(env2.io, &other, 1, 8), 0);
	KUNIT_EXPECT_EQ(test, exec_io_recv_multishot(env.io, &m->op, sv[0],
						     other, 0, &h), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_io_bufs_destroy(other), 0);
	io_env_fini(test, &env2);
	exec_cancel_request(&tok);
	exec_io_op_set_token(&m->op, &tok);
	KUNIT_EXPECT_EQ(test, io_rm_start(m, env.io, sv[0], &h), -ECANCELED);
	exec_io_op_set_token(&m->op, NULL);

	/* Every piece, in order, in buffers of the group; one start. */
	KUNIT_ASSERT_EQ(test, io_rm_start(m, env.io, sv[0], &h), 0);
	KUNIT_EXPECT_EQ(test, io_rm_start(m, env.io, sv[0], &h), -EALREADY);
	KUNIT_EXPECT_EQ(test, exec_io_bufs_destroy(m->bufs), -EBUSY);
	KUNIT_EXPECT_EQ(test, write(sv[1], "hello", 5), 5);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&m->len, 5,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, write(sv[1], more, 30), 30);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&m->len, 35,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, memcmp(m->data, "hello", 5), 0);
	KUNIT_EXPECT_EQ(test, memcmp(m->data + 5, more, 30), 0);
	KUNIT_EXPECT_GE(test, atomic_read(&m->pieces), 5);
	KUNIT_EXPECT_EQ(test, exec_io_pending(env.io), 1UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&m->ended), 0);

	/* End of stream: the last call, 0, once; then it may start again. */
	close(sv[1]);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&m->ended, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, m->last, 0L);
	close(sv[0]);

	/* Cancelled: -ECANCELED, once. */
	KUNIT_ASSERT_EQ(test, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC,
					 0, sv), 0);
	KUNIT_ASSERT_EQ(test, io_rm_start(m, env.io, sv[0], &h), 0);
	KUNIT_EXPECT_EQ(test, exec_io_cancel(&m->op), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&m->ended, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, m->last, (long)-ECANCELED);

	/*
	 * Every buffer kept by the handler: -ENOBUFS once data finds none,
	 * after the pieces that had one; given back, the rest of the data
	 * comes to a new start, nothing lost.
	 */
	atomic_set(&m->len, 0);
	m->hold = true;
	KUNIT_ASSERT_EQ(test, io_rm_start(m, env.io, sv[0], &h), 0);
	for (i = 0; i <= IO_BUFS; i++) {
		KUNIT_EXPECT_EQ(test, write(sv[1], more + 6 * i, 6), 6);
		KUNIT_EXPECT_TRUE(test,
				  exec_test_wait_atomic_ge(&m->len,
							   6 * (int)min(i + 1, IO_BUFS),
							   EXEC_TEST_TIMEOUT_MS));
	}
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&m->ended, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, m->last, (long)-ENOBUFS);
	KUNIT_EXPECT_EQ(test, atomic_read(&m->len), 6 * IO_BUFS);
	m->hold = false;
	for (i = 0; i < m->nr_held; i++)
		exec_io_buf_put(m->bufs, m->held[i]);
	m->nr_held = 0;
	KUNIT_ASSERT_EQ(test, io_rm_start(m, env.io, sv[0], &h), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&m->len,
							 6 * (IO_BUFS + 1),
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, memcmp(m->data, more, 6 * (IO_BUFS + 1)), 0);
	/* A pending one is cancelled by the destroy; its buffers go back. */
	KUNIT_EXPECT_EQ(test, exec_io_shutdown(env.io), 1L);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&m->ended, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, m->last, (long)-ECANCELED);
	KUNIT_EXPECT_EQ(test, exec_io_bufs_destroy(m->bufs), 0);
	io_env_fini(test, &env);
	KUNIT_EXPECT_EQ(test, atomic_read(&m->overlaps), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&m->wrong), 0);
	close(sv[0]);
	close(sv[1]);
	kfree(m);
}

static void io_recv_multishot(struct kunit *test)
{
	io_recv_multishot_one(test, false);
	io_recv_multishot_one(test, true);
	/* Where the kernel has no rings: a receive started after each piece. */
	exec_io_test_set_no_buf_ring(true);
	io_recv_multishot_one(test, false);
	exec_io_test_set_no_buf_ring(false);
	exec_io_test_set_no_defer_taskrun(true);
	io_recv_multishot_one(test, false);
	exec_io_test_set_no_defer_taskrun(false);
}

/*
 * A handler that says it is done, then takes a while to return: its unit
 * of outstanding work is still held when the owner, who saw it done,
 * destroys the context.
 */
struct io_late {
	struct exec_io_op op;
	struct exec_handler h;
	atomic_t seen;
	char buf[1];
};

static void io_late_fn(void *arg, long result)
{
	struct io_late *l = arg;

	exec_test_count(&l->seen);
	msleep(EXEC_TEST_SETTLE_MS);
}

/* Receives one byte with @l's handler bound to @ex, and waits until seen. */
static void io_late_recv(struct kunit *test, struct io_late *l,
			 struct exec_io *io, struct exec_executor *ex)
{
	int sv[2];

	KUNIT_ASSERT_EQ(test, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC,
					 0, sv), 0);
	atomic_set(&l->seen, 0);
	exec_io_op_init(&l->op);
	KUNIT_EXPECT_EQ(test, exec_bind_executor(&l->h, ex, io_late_fn, l), 0);
	KUNIT_EXPECT_EQ(test, exec_io_recv(io, &l->op, sv[0], l->buf, 1, 0,
					   &l->h), 0);
	KUNIT_EXPECT_EQ(test, write(sv[1], "x", 1), 1);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&l->seen, 1,
							 EXEC_TEST_TIMEOUT_MS));
	/* The binding goes; the handler's unit stays until it returns. */
	KUNIT_EXPECT_EQ(test, exec_handler_unbind(&l->h), 0);
	close(sv[0]);
	close(sv[1]);
}

static void io_destroy_after_handler_one(struct kunit *test, bool epoll)
{
	struct exec_io_attr attr = { .force_epoll = epoll };
	struct exec_io_pool *pool;
	struct io_late l;
	struct exec_io *io;

	KUNIT_ASSERT_EQ(test, exec_io_create(&io, &attr), 0);
	io_late_recv(test, &l, io, exec_io_executor(io));
	KUNIT_EXPECT_EQ(test, exec_io_destroy(io), 0L);

	KUNIT_ASSERT_EQ(test, exec_io_pool_create(&pool, 2, &attr), 0);
	io_late_recv(test, &l, exec_io_pool_get(pool, 1),
		     exec_io_pool_executor(pool));
	KUNIT_EXPECT_EQ(test, exec_io_pool_destroy(pool), 0L);
	KUNIT_ASSERT_EQ(test, exec_io_pool_create(&pool, 2, &attr), 0);
	io_late_recv(test, &l, exec_io_pool_get(pool, 0),
		     exec_io_executor(exec_io_pool_get(pool, 0)));
	KUNIT_EXPECT_EQ(test, exec_io_pool_destroy(pool), 0L);
}

static void io_destroy_after_handler(struct kunit *test)
{
	io_destroy_after_handler_one(test, false);
	io_destroy_after_handler_one(test, true);
}

static struct kunit_case exec_io_cases[] = {
	KUNIT_CASE(io_sockets),
	KUNIT_CASE(io_accept_multishot),
	KUNIT_CASE(io_multishot_and_receive_in_one_pass),
	KUNIT_CASE(io_files),
	KUNIT_CASE(io_poll_timeout),
	KUNIT_CASE(io_cancel),
	KUNIT_CASE(io_cancel_token),
	KUNIT_CASE(io_cancel_race),
	KUNIT_CASE(io_latch),
	KUNIT_CASE(io_outstanding),
	KUNIT_CASE(io_strand),
	KUNIT_CASE(io_context_executor),
	KUNIT_CASE(io_current_executor),
	KUNIT_CASE(io_pool),
	KUNIT_CASE(io_destroy_after_handler),
	KUNIT_CASE(io_recv_buf),
	KUNIT_CASE(io_recv_multishot),
	KUNIT_CASE(io_bad_input),
	KUNIT_CASE(io_batch),
	KUNIT_CASE(io_alloc_fault),
	{}
};

static struct kunit_suite exec_io_suite = {
	.name = "exec-io",
	.test_cases = exec_io_cases,
};

kunit_test_suites(&exec_io_suite);
