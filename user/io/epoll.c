// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The epoll backend of the I/O contexts (<exec/io.h>), the other one
 * behind struct exec_io_ops (user/io/io_internal.h): the same operations
 * where the library does not use io_uring (EXEC_BACKEND=futex, or io_uring
 * unavailable).
 *
 * A start tries the system call at once, non-blocking (MSG_DONTWAIT for
 * recv and send, and for reads and writes at the current position of a
 * socket, done as recvmsg() and sendmsg(); O_NONBLOCK set on the
 * descriptor for the others), without
 * the context's lock; if it would block, the operation waits on its
 * descriptor's entry: a list of waiters and one EPOLLONESHOT registration
 * for the union of the events they want.  The context's thread sleeps in
 * epoll_wait(); when a descriptor is ready it takes the waiters the events
 * concern, tries each again outside the lock, and completes it or puts it
 * back.  Reads and writes of regular files never wait: they run in the
 * starting thread.  Timeouts are a list, whose earliest deadline bounds the
 * thread's epoll_wait(); an eventfd wakes the thread for an earlier one and
 * for the stop.
 *
 * Exactly once: an operation is on a wait list (@backend[1] set) or in the
 * hands of one thread that is trying it; under the lock, a cancellation
 * completes a waiting operation itself, and otherwise leaves @cancel for
 * the trying thread, which completes it with -ECANCELED if its try would
 * have blocked.
 */
#include "io_internal.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* A connect whose first call said EINPROGRESS: later tries ask SO_ERROR. */
#define EXEC_EP_CONNECTING	(1U << 31)

#define EXEC_EP_EVENTS		64

/**
 * struct exec_io_fdent - a descriptor that operations wait for
 * @fd: the descriptor
 * @waiters: L: the operations waiting, linked through @backend[0], FIFO
 * @armed: L: the events of its EPOLLONESHOT registration; 0 once it has
 *	fired or when there is none
 * @registered: L: epoll knows the descriptor (EPOLL_CTL_ADD was done and
 *	no DEL since); a stale true, for a descriptor closed meanwhile, is
 *	corrected by the ENOENT of EPOLL_CTL_MOD
 */
struct exec_io_fdent {
	int fd;
	struct exec_io_op *waiters;
	u32 armed;
	bool registered;
};

/**
 * struct exec_io_epoll - the epoll backend's state of a context
 * @epfd: the epoll instance
 * @evfd: the eventfd that wakes the thread
 * @fds: L: the descriptor entries, indexed by fd, created on first wait
 *	and kept until the context is destroyed
 * @nr_fds: L: the size of @fds
 * @timeouts: L: the pending timeouts, linked through @backend[0]
 * @sleep_until: L: the deadline the thread's epoll_wait() ends at, U64_MAX
 *	for none; a timeout before it writes @evfd
 * @stop: A: the thread must return; set before @evfd is written
 */
struct exec_io_epoll {
	int epfd;
	int evfd;
	struct exec_io_fdent **fds;
	unsigned int nr_fds;
	struct exec_io_op *timeouts;
	u64 sleep_until;
	bool stop;
};

static inline struct exec_io_op *exec_ep_next(struct exec_io_op *op)
{
	return op->backend[0];
}

/* The epoll events @op waits for. */
static u32 exec_ep_wants(const struct exec_io_op *op)
{
	u32 ev = 0;

	switch (op->opcode) {
	case EXEC_IO_ACCEPT:
	case EXEC_IO_ACCEPT_MULTI:
	case EXEC_IO_RECV:
	case EXEC_IO_RECV_BUF:
	case EXEC_IO_RECV_MULTI:
	case EXEC_IO_READ:
	case EXEC_IO_READV:
		return EPOLLIN;
	case EXEC_IO_CONNECT:
	case EXEC_IO_SEND:
	case EXEC_IO_WRITE:
	case EXEC_IO_WRITEV:
		return EPOLLOUT;
	case EXEC_IO_POLL:
		if (op->flags & POLLIN)
			ev |= EPOLLIN;
		if (op->flags & POLLOUT)
			ev |= EPOLLOUT;
		if (op->flags & POLLPRI)
			ev |= EPOLLPRI;
		if (op->flags & POLLRDHUP)
			ev |= EPOLLRDHUP;
		return ev;
	}
	return 0;
}

/* Makes @fd non-blocking; 0 or a negative errno. */
static int exec_ep_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -errno;
	if (!(fl & O_NONBLOCK) && fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

static long exec_ep_ret(long ret)
{
	if (ret >= 0)
		return ret;
	return errno == EWOULDBLOCK ? -EAGAIN : -errno;
}

/*
 * A receive into a group: a buffer is picked only for data that is there,
 * and set in *@bufp; -ENOBUFS, as on io_uring, only once data has come and
 * none is free.
 */
static long exec_ep_recv_buf(struct exec_io_op *op, void **bufp)
{
	struct exec_io_bufs *bufs = exec_io_op_bufs(op);
	int bid = exec_io_bufs_take(bufs);
	ssize_t n;
	char peek;

	*bufp = NULL;
	if (bid < 0) {
		n = recv(op->fd, &peek, 1, MSG_PEEK | MSG_DONTWAIT);
		return n > 0 ? -ENOBUFS : exec_ep_ret(n);
	}
	n = recv(op->fd, exec_io_bufs_addr(bufs, bid), bufs->size,
		 (int)op->flags | MSG_DONTWAIT);
	if (n > 0) {
		*bufp = exec_io_bufs_addr(bufs, bid);
		return n;
	}
	exec_io_bufs_give(bufs, bid);
	return exec_ep_ret(n);
}

/*
 * A read or write at the current position, tried as on a socket: its
 * result, or -ENOTSOCK for any other descriptor, which the caller then
 * makes non-blocking.
 */
static long exec_ep_try_socket(struct exec_io_op *op)
{
	struct iovec one = { .iov_base = op->buf, .iov_len = op->len };
	struct msghdr msg = { 0 };

	if (op->opcode == EXEC_IO_READV || op->opcode == EXEC_IO_WRITEV) {
		msg.msg_iov = op->buf;
		msg.msg_iovlen = op->len;
	} else {
		msg.msg_iov = &one;
		msg.msg_iovlen = 1;
	}
	if (op->opcode == EXEC_IO_READ || op->opcode == EXEC_IO_READV)
		return exec_ep_ret(recvmsg(op->fd, &msg, MSG_DONTWAIT));
	/* No SIGPIPE from here: write(2) would raise it, as sendmsg() does. */
	return exec_ep_ret(sendmsg(op->fd, &msg, MSG_DONTWAIT));
}

/* A connect: started, or once started, its result; -EAGAIN meanwhile. */
static long exec_ep_connect(struct exec_io_op *op)
{
	socklen_t len;
	int ret, err;

	if (op->flags & EXEC_EP_CONNECTING) {
		len = sizeof(err);
		if (getsockopt(op->fd, SOL_SOCKET, SO_ERROR, &err, &len))
			return -errno;
		return err == EINPROGRESS ? -EAGAIN : -err;
	}
	ret = exec_ep_nonblock(op->fd);
	if (ret)
		return ret;
	if (!connect(op->fd, op->buf, (socklen_t)op->len))
		return 0;
	if (errno != EINPROGRESS)
		return -errno;
	op->flags |= EXEC_EP_CONNECTING;
	return -EAGAIN;
}

/* A poll, without waiting: the events there, or -EAGAIN if none. */
static long exec_ep_poll_now(struct exec_io_op *op)
{
	struct pollfd pfd;

	pfd.fd = op->fd;
	pfd.events = (short)op->flags;
	pfd.revents = 0;
	if (poll(&pfd, 1, 0) < 0)
		return -errno;
	if (pfd.revents & POLLNVAL)
		return -EBADF;
	return pfd.revents ? (long)(unsigned short)pfd.revents : -EAGAIN;
}

/* A read or write, at the current position or at @op->off. */
static long exec_ep_rw(struct exec_io_op *op)
{
	bool pos = op->off == (u64)-1;
	int ret;

	/*
	 * At the current position the descriptor may be a socket, which
	 * MSG_DONTWAIT makes non-blocking with no fcntl() per call.
	 */
	if (pos) {
		long n = exec_ep_try_socket(op);

		if (n != -ENOTSOCK)
			return n;
	}
	/* Other reads and writes: regular files ignore O_NONBLOCK. */
	ret = exec_ep_nonblock(op->fd);
	if (ret)
		return ret;
	switch (op->opcode) {
	case EXEC_IO_READ:
		return exec_ep_ret(pos ? read(op->fd, op->buf, op->len) :
				   pread(op->fd, op->buf, op->len,
					 (off_t)op->off));
	case EXEC_IO_WRITE:
		return exec_ep_ret(pos ? write(op->fd, op->buf, op->len) :
				   pwrite(op->fd, op->buf, op->len,
					  (off_t)op->off));
	case EXEC_IO_READV:
		return exec_ep_ret(pos ? readv(op->fd, op->buf, (int)op->len) :
				   preadv(op->fd, op->buf, (int)op->len,
					  (off_t)op->off));
	case EXEC_IO_WRITEV:
		return exec_ep_ret(pos ? writev(op->fd, op->buf,
						(int)op->len) :
				   pwritev(op->fd, op->buf, (int)op->len,
					   (off_t)op->off));
	}
	return -EINVAL;
}

/* One non-blocking try of @op: its result, or -EAGAIN to wait. */
static long exec_ep_try(struct exec_io_op *op)
{
	int ret;

	switch (op->opcode) {
	case EXEC_IO_ACCEPT:
	case EXEC_IO_ACCEPT_MULTI:
		ret = exec_ep_nonblock(op->fd);
		if (ret)
			return ret;
		return exec_ep_ret(accept4(op->fd, NULL, NULL, SOCK_CLOEXEC));
	case EXEC_IO_CONNECT:
		return exec_ep_connect(op);
	case EXEC_IO_RECV:
		return exec_ep_ret(recv(op->fd, op->buf, op->len,
					(int)op->flags | MSG_DONTWAIT));
	case EXEC_IO_SEND:
		return exec_ep_ret(send(op->fd, op->buf, op->len,
					(int)op->flags | MSG_DONTWAIT));
	case EXEC_IO_RECV_BUF:
		return exec_ep_recv_buf(op, &op->buf);
	case EXEC_IO_RECV_MULTI:
		/* Handed over by exec_ep_settle(), under the lock. */
		return exec_ep_recv_buf(op, &((struct exec_io_multi *)
					      op->backend[2])->armed);
	case EXEC_IO_POLL:
		return exec_ep_poll_now(op);
	case EXEC_IO_CLOSE:
		return close(op->fd) ? -errno : 0;
	}
	return exec_ep_rw(op);
}

/* @fd's entry, created if needed; NULL without memory.  Lock held. */
static struct exec_io_fdent *exec_ep_fdent(struct exec_io_epoll *ep, int fd)
{
	struct exec_io_fdent **fds, *fe;
	unsigned int n;

	if ((unsigned int)fd >= ep->nr_fds) {
		n = max_t(unsigned int, 64, ep->nr_fds);
		while (n <= (unsigned int)fd)
			n *= 2;
		fds = exec_io_realloc(ep->fds, n * sizeof(*fds));
		if (!fds)
			return NULL;
		memset(fds + ep->nr_fds, 0,
		       (n - ep->nr_fds) * sizeof(*fds));
		ep->fds = fds;
		ep->nr_fds = n;
	}
	fe = ep->fds[fd];
	if (!fe) {
		fe = exec_io_zalloc(sizeof(*fe));
		if (!fe)
			return NULL;
		fe->fd = fd;
		ep->fds[fd] = fe;
	}
	return fe;
}

/* Registers @fe for what its waiters want, if that changed.  Lock held. */
static int exec_ep_arm(struct exec_io_epoll *ep, struct exec_io_fdent *fe)
{
	struct epoll_event ev = { .data.ptr = fe };
	struct exec_io_op *op;
	u32 want = 0;
	int ret;

	for (op = fe->waiters; op; op = exec_ep_next(op))
		want |= exec_ep_wants(op);
	if (!want || (want & fe->armed) == want)
		return 0;
	want |= fe->armed;
	ev.events = want | EPOLLONESHOT;
	ret = epoll_ctl(ep->epfd, fe->registered ? EPOLL_CTL_MOD :
			EPOLL_CTL_ADD, fe->fd, &ev);
	/* A stale entry of a descriptor closed and reused, or the reverse. */
	if (ret && errno == ENOENT && fe->registered)
		ret = epoll_ctl(ep->epfd, EPOLL_CTL_ADD, fe->fd, &ev);
	else if (ret && errno == EEXIST && !fe->registered)
		ret = epoll_ctl(ep->epfd, EPOLL_CTL_MOD, fe->fd, &ev);
	if (ret)
		return -errno;
	fe->registered = true;
	fe->armed = want;
	return 0;
}

/* Forgets @fe's registration, whose descriptor may be closed next. */
static void exec_ep_disarm(struct exec_io_epoll *ep, struct exec_io_fdent *fe)
{
	if (fe->registered)
		epoll_ctl(ep->epfd, EPOLL_CTL_DEL, fe->fd, NULL);
	fe->registered = false;
	fe->armed = 0;
}

/* Puts @op on its descriptor's wait list and arms it.  Lock held. */
static int exec_ep_wait(struct exec_io *io, struct exec_io_op *op)
{
	struct exec_io_fdent *fe = exec_ep_fdent(io->ep, op->fd);
	struct exec_io_op **pp;
	int ret;

	if (!fe)
		return -ENOMEM;
	op->backend[0] = NULL;
	for (pp = &fe->waiters; *pp; pp = (struct exec_io_op **)&(*pp)->backend[0])
		;
	*pp = op;
	op->backend[1] = fe;
	ret = exec_ep_arm(io->ep, fe);
	if (ret) {
		*pp = NULL;
		op->backend[1] = NULL;
	}
	return ret;
}

/*
 * The outcome of a try of @op, which is on no list: complete it, or put it
 * on its wait list.  Lock held.
 */
static void exec_ep_settle(struct exec_io *io, struct exec_io_op *op,
			   long res)
{
	struct exec_io_multi *m = op->backend[2];

	/* A multishot operation hands its result over and waits for more. */
	if ((op->opcode == EXEC_IO_ACCEPT_MULTI && res >= 0) ||
	    (op->opcode == EXEC_IO_RECV_MULTI && res > 0)) {
		exec_io_multi_push_locked(io, op, res, m->armed);
		m->armed = NULL;
		res = io->dying ? -ECANCELED : -EAGAIN;
	}
	if (res == -EAGAIN && op->cancel)
		res = -ECANCELED;
	if (res == -EAGAIN) {
		res = exec_ep_wait(io, op);
		if (!res)
			return;
	}
	exec_io_complete_locked(io, op, res);
}

/* Wakes the thread. */
static void exec_ep_kick(struct exec_io_epoll *ep)
{
	u64 one = 1;

	/* Fails only when the counter is at its maximum: awake anyway. */
	if (write(ep->evfd, &one, sizeof(one)) < 0)
		return;
}

static int exec_ep_start(struct exec_io *io, struct exec_io_op *op)
{
	struct exec_io_epoll *ep = io->ep;
	long res;

	op->backend[0] = NULL;
	op->backend[1] = NULL;
	if (op->opcode == EXEC_IO_TIMEOUT) {
		if (!op->off) {
			exec_io_complete_locked(io, op, 0);
			return 0;
		}
		op->off += ktime_get_ns();
		op->backend[0] = ep->timeouts;
		op->backend[1] = ep;
		ep->timeouts = op;
		if (op->off < ep->sleep_until) {
			ep->sleep_until = op->off;
			exec_ep_kick(ep);
		}
		return 0;
	}
	op->flags &= ~EXEC_EP_CONNECTING;
	/*
	 * The try runs without the lock; @op is linked and PENDING, so a
	 * cancellation meanwhile only sets @cancel, and a destroy waits.
	 */
	pthread_mutex_unlock(&io->lock);
	res = exec_ep_try(op);
	pthread_mutex_lock(&io->lock);
	/* A close ends what the descriptor had registered. */
	if (op->opcode == EXEC_IO_CLOSE && (unsigned int)op->fd < ep->nr_fds &&
	    ep->fds[op->fd] && !ep->fds[op->fd]->waiters) {
		ep->fds[op->fd]->registered = false;
		ep->fds[op->fd]->armed = 0;
	}
	exec_ep_settle(io, op, res);
	return 0;
}

/* Takes @op off its list, where it waits; lock held. */
static void exec_ep_unwait(struct exec_io *io, struct exec_io_op *op)
{
	struct exec_io_epoll *ep = io->ep;
	struct exec_io_fdent *fe = op->backend[1];
	struct exec_io_op **pp;

	pp = fe == (void *)ep ? &ep->timeouts : &fe->waiters;
	for (; *pp; pp = (struct exec_io_op **)&(*pp)->backend[0]) {
		if (*pp == op) {
			*pp = exec_ep_next(op);
			break;
		}
	}
	op->backend[0] = NULL;
	op->backend[1] = NULL;
	/* Nobody waits for it: the user may close the descriptor now. */
	if (fe != (void *)ep && !fe->waiters)
		exec_ep_disarm(ep, fe);
}

static void exec_ep_cancel(struct exec_io *io, struct exec_io_op *op)
{
	/* Being tried by a thread: that thread sees @cancel. */
	if (!op->backend[1])
		return;
	exec_ep_unwait(io, op);
	exec_io_complete_locked(io, op, -ECANCELED);
}

static void exec_ep_flush(struct exec_io *io)
{
}

/* A descriptor is ready: try again the waiters that @events concern. */
static void exec_ep_ready(struct exec_io *io, struct exec_io_fdent *fe,
			  u32 events)
{
	struct exec_io_op *op, **pp, *taken = NULL, **tail = &taken;
	long res;

	pthread_mutex_lock(&io->lock);
	fe->armed = 0;
	for (pp = &fe->waiters; (op = *pp);) {
		if ((exec_ep_wants(op) & events) ||
		    (events & (EPOLLERR | EPOLLHUP))) {
			*pp = exec_ep_next(op);
			op->backend[0] = NULL;
			op->backend[1] = NULL;
			*tail = op;
			tail = (struct exec_io_op **)&op->backend[0];
		} else {
			pp = (struct exec_io_op **)&op->backend[0];
		}
	}
	/* The others wait on; the taken are re-armed as they fail again. */
	if (exec_ep_arm(io->ep, fe))
		WARN_ON_ONCE(fe->waiters);
	pthread_mutex_unlock(&io->lock);

	while ((op = taken)) {
		taken = exec_ep_next(op);
		op->backend[0] = NULL;
		res = exec_ep_try(op);
		pthread_mutex_lock(&io->lock);
		exec_ep_settle(io, op, res);
		exec_io_unlock(io);
	}
}

/* Completes the timeouts that are due; returns the next deadline. */
static u64 exec_ep_timeouts(struct exec_io *io)
{
	struct exec_io_epoll *ep = io->ep;
	struct exec_io_op *op, **pp;
	u64 now, next = U64_MAX;

	pthread_mutex_lock(&io->lock);
	now = ktime_get_ns();
	for (pp = &ep->timeouts; (op = *pp);) {
		if (op->off <= now) {
			*pp = exec_ep_next(op);
			op->backend[0] = NULL;
			op->backend[1] = NULL;
			exec_io_complete_locked(io, op, 0);
		} else {
			next = min(next, op->off);
			pp = (struct exec_io_op **)&op->backend[0];
		}
	}
	ep->sleep_until = next;
	exec_io_unlock(io);
	return next;
}

/*
 * Waits up to @ms for events.  Before it sleeps, the thread yields its CPU
 * once and then waits: a thread that is runnable on the same CPU, a
 * client on this machine say, runs first and may bring events, which
 * saves a sleep and a wake-up: the example server on epoll under wrk
 * slept far less often with the yield and served more requests
 * (Documentation/benchmarks.rst).  io_uring's thread does not
 * (exec_uring_turn()).
 */
static int exec_ep_poll(struct exec_io_epoll *ep, struct epoll_event *evs,
			int ms)
{
	int n = epoll_wait(ep->epfd, evs, EXEC_EP_EVENTS, 0);

	if (n || !ms)
		return n;
	sched_yield();
	return epoll_wait(ep->epfd, evs, EXEC_EP_EVENTS, ms);
}

static void *exec_ep_thread(void *arg)
{
	struct exec_io *io = arg;
	struct exec_io_epoll *ep = io->ep;
	struct epoll_event evs[EXEC_EP_EVENTS];
	u64 next, now, count;
	int i, n, ms;
	bool asleep;

	exec_io_thread_begin(io);
	for (;;) {
		next = exec_ep_timeouts(io);
		ms = -1;
		if (next != U64_MAX) {
			now = ktime_get_ns();
			/* Rounded up: never before the deadline. */
			ms = next <= now ? 0 :
			     (int)min_t(u64, (next - now + NSEC_PER_MSEC - 1) /
					NSEC_PER_MSEC, INT_MAX);
		}
		/* Items of the context's executor queued: only a look. */
		asleep = exec_loop_sleep_begin(io->loop);
		n = exec_ep_poll(ep, evs, asleep ? ms : 0);
		if (asleep)
			exec_loop_sleep_end(io->loop);
		for (i = 0; i < n; i++) {
			if (!evs[i].data.ptr) {
				if (read(ep->evfd, &count, sizeof(count)) < 0)
					continue;
				continue;
			}
			exec_ep_ready(io, evs[i].data.ptr, evs[i].events);
		}
		exec_io_run_items(io);
		/* Pairs with the release in exec_ep_stop(). */
		if (smp_load_acquire(&ep->stop))
			break;
	}
	exec_io_thread_end(io);
	return NULL;
}

static void exec_ep_wake(struct exec_io *io)
{
	exec_ep_kick(io->ep);
}

static void exec_ep_stop(struct exec_io *io)
{
	/* Pairs with the acquire in exec_ep_thread(). */
	smp_store_release(&io->ep->stop, true);
	exec_ep_kick(io->ep);
}

static void exec_ep_fini(struct exec_io *io)
{
	struct exec_io_epoll *ep = io->ep;
	unsigned int i;

	for (i = 0; i < ep->nr_fds; i++)
		free(ep->fds[i]);
	free(ep->fds);
	close(ep->evfd);
	close(ep->epfd);
	free(ep);
	io->ep = NULL;
}

/* Sets the backend up for @io; @entries bounds nothing here. */
static int exec_ep_init(struct exec_io *io, unsigned int entries)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	struct exec_io_epoll *ep = exec_io_zalloc(sizeof(*ep));
	int ret;

	if (!ep)
		return -ENOMEM;
	ep->sleep_until = U64_MAX;
	ep->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (ep->epfd < 0) {
		ret = -errno;
		goto free;
	}
	ep->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ep->evfd < 0) {
		ret = -errno;
		goto close_ep;
	}
	if (epoll_ctl(ep->epfd, EPOLL_CTL_ADD, ep->evfd, &ev)) {
		ret = -errno;
		goto close_ev;
	}
	io->ep = ep;
	return 0;
close_ev:
	close(ep->evfd);
close_ep:
	close(ep->epfd);
free:
	free(ep);
	return ret;
}

const struct exec_io_ops exec_io_epoll_ops = {
	.name = "epoll",
	.init = exec_ep_init,
	.start = exec_ep_start,
	.cancel = exec_ep_cancel,
	.flush = exec_ep_flush,
	.thread = exec_ep_thread,
	.wake = exec_ep_wake,
	.stop = exec_ep_stop,
	.fini = exec_ep_fini,
};
