// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The io_uring backend of the I/O contexts (<exec/io.h>), one of the two
 * behind struct exec_io_ops (user/io/io_internal.h); the public functions
 * and what the backends share are user/io/io.c, the epoll backend is
 * user/io/epoll.c.
 *
 * Design.  A context owns one ring and one thread, and only that thread
 * enters the ring.  It fills the SQ (under the context's mutex), submits
 * it with the wait for the next CQE (io_uring_submit_and_wait(): one
 * system call per turn), and for each CQE removes the operation from the
 * pending list and queues the operation's own work item on the handler's
 * executor.  An operation that the thread's own handlers start (a handler
 * bound to the context's executor, exec_io_executor(), runs on this
 * thread) goes straight into the SQ.  Any other thread
 * leaves its starts and cancellations on the context's @deferred list and
 * wakes the thread with a message to its ring (exec_uring_wake()) if it
 * sleeps.  Nothing is allocated per operation.
 *
 * Why one submitter.  The kernel completes a socket operation that had to
 * wait in task work of the task that submitted it.  Rings are set up with
 * IORING_SETUP_SINGLE_ISSUER and IORING_SETUP_DEFER_TASKRUN where the
 * kernel has them (6.1): the ring is created disabled and enabled by the
 * context's thread, its only issuer, and its task work waits until that
 * thread asks for events (each turn does); the softirq that makes a
 * socket ready only links the work and wakes a thread that waits.  Where
 * the kernel has not, IORING_SETUP_COOP_TASKRUN (5.19), so that task work
 * waits for the task's next system call instead of interrupting it (an
 * interrupt per completion, and the socket lock fought over with the
 * softirq that delivered the data: examples/httpd.c served 50,000-60,000
 * requests/s so, 95,000-109,000 without).  Either is only safe when the
 * submitter is a thread that soon enters the kernel again, which the
 * context's thread does, and a pool worker parked on a futex does not.
 * What the kernel takes from the issuer only, the registration of a
 * group's buffer ring, the thread does for the caller
 * (exec_io_on_thread()).
 *
 * Cancellation.  A cancellation is an IORING_OP_ASYNC_CANCEL of the
 * operation: the kernel then ends the operation with one CQE, -ECANCELED
 * or its result, which completes it as any other; the cancel's own CQE is
 * skipped on success and ignored otherwise.
 */
#include "io_internal.h"

#include <poll.h>
#include <unistd.h>

/* The user_data of the CQEs of cancellations, which are skipped. */
#define EXEC_IO_DATA_CANCEL	0ULL

/* What a deferred operation asks of the context's thread (@backend[1]). */
#define EXEC_URING_START	0x1UL
#define EXEC_URING_CANCEL	0x2UL

/* Whether the calling thread is @io's own, the one that enters its ring. */
static bool exec_uring_own(const struct exec_io *io)
{
	return exec_io_current() == io;
}

/*
 * Submits the SQ; @io->lock held, on the context's thread.  What the
 * kernel refuses (-EBUSY, -EAGAIN, -ENOMEM) stays queued, and the thread
 * submits it again after its next completion.
 */
static void exec_uring_submit(struct exec_io *io)
{
	int ret = io_uring_submit(&io->ring);

	io->retry = ret < 0;
	io->unsubmitted = io_uring_sq_ready(&io->ring) != 0;
}

/* Wakes the context's thread if it waits for a CQE; @io->lock held. */
static void exec_uring_kick(struct exec_io *io)
{
	if (!io->sleeping)
		return;
	io->sleeping = false;
	exec_uring_wake(&io->ring);
}

/*
 * The backend's flush, at the end of a batch: the context's thread submits
 * before it next waits, so there is nothing to do but make sure it wakes.
 */
static void exec_uring_flush(struct exec_io *io)
{
	if (!exec_uring_own(io) && io->deferred)
		exec_uring_kick(io);
}

/*
 * An SQE of @io's ring; @io->lock held, on the context's thread.  NULL if
 * the SQ stays full.
 */
static struct io_uring_sqe *exec_uring_sqe(struct exec_io *io)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&io->ring);

	if (likely(sqe))
		return sqe;
	exec_uring_submit(io);
	return io_uring_get_sqe(&io->ring);
}

/*
 * Leaves @what (EXEC_URING_START or EXEC_URING_CANCEL) of @op to the
 * context's thread; @io->lock held.  An operation is on the list once:
 * a cancellation of one whose start waits there is seen in @op->cancel.
 */
static void exec_uring_defer(struct exec_io *io, struct exec_io_op *op,
			     unsigned long what)
{
	unsigned long had = (unsigned long)op->backend[1];

	op->backend[1] = (void *)(had | what);
	if (had)
		return;
	op->backend[0] = NULL;
	if (io->deferred_tail)
		io->deferred_tail->backend[0] = op;
	else
		io->deferred = op;
	io->deferred_tail = op;
	/* A batch wakes the thread once, at its end (exec_uring_flush()). */
	if (exec_io_batch_defer(io))
		io->unsubmitted = true;
	else
		exec_uring_kick(io);
}

/* Takes @op off the deferred list, if it is on it; @io->lock held. */
static void exec_uring_undefer(struct exec_io *io, struct exec_io_op *op)
{
	struct exec_io_op *prev = NULL, *cur;

	if (!op->backend[1])
		return;
	for (cur = io->deferred; cur != op; cur = cur->backend[0])
		prev = cur;
	if (prev)
		prev->backend[0] = op->backend[0];
	else
		io->deferred = op->backend[0];
	if (io->deferred_tail == op)
		io->deferred_tail = prev;
	op->backend[0] = NULL;
	op->backend[1] = NULL;
}

/* Where the buffer the context picked for @op's next receive is kept. */
static void **exec_uring_armed(struct exec_io_op *op)
{
	if (op->opcode == EXEC_IO_RECV_MULTI)
		return &((struct exec_io_multi *)op->backend[2])->armed;
	return &op->buf;
}

/*
 * A receive into a group the context picks from takes its buffer now;
 * returns whether it has one (or needs none).
 */
static bool exec_uring_pick(struct exec_io_op *op)
{
	struct exec_io_bufs *bufs = exec_io_op_bufs(op);
	int bid;

	if (!bufs || bufs->br)
		return true;
	bid = exec_io_bufs_take(bufs);
	if (bid >= 0)
		*exec_uring_armed(op) = exec_io_bufs_addr(bufs, bid);
	/* A multishot receive without one waits for data first. */
	return bid >= 0 || op->opcode == EXEC_IO_RECV_MULTI;
}

/* Gives back the buffer exec_uring_pick() took for @op, if it took one. */
static void exec_uring_unpick(struct exec_io_op *op)
{
	struct exec_io_bufs *bufs = exec_io_op_bufs(op);

	if (bufs && *exec_uring_armed(op)) {
		exec_io_buf_put(bufs, *exec_uring_armed(op));
		*exec_uring_armed(op) = NULL;
	}
}

/* A receive into a group's buffer (EXEC_IO_RECV_BUF). */
static void exec_uring_prep_recv_buf(struct io_uring_sqe *sqe,
				     struct exec_io_op *op)
{
	struct exec_io_bufs *bufs = op->backend[2];

	if (!bufs->br) {
		io_uring_prep_recv(sqe, op->fd, op->buf, bufs->size,
				   (int)op->flags);
		return;
	}
	/* The kernel picks the buffer when data comes. */
	io_uring_prep_recv(sqe, op->fd, NULL, bufs->size, (int)op->flags);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = bufs->bgid;
}

/* A multishot receive into a group's buffers (EXEC_IO_RECV_MULTI). */
static void exec_uring_prep_recv_multi(struct exec_io *io,
				       struct io_uring_sqe *sqe,
				       struct exec_io_op *op)
{
	struct exec_io_bufs *bufs = exec_io_op_bufs(op);

	if (!bufs->br && *exec_uring_armed(op)) {
		io_uring_prep_recv(sqe, op->fd, *exec_uring_armed(op),
				   bufs->size, (int)op->flags);
		return;
	}
	if (!bufs->br) {
		/* No buffer free yet: wait until data is there. */
		((struct exec_io_multi *)op->backend[2])->polling = true;
		io_uring_prep_poll_add(sqe, op->fd, POLLIN);
		return;
	}
	if (io->no_recv_multishot) {
		io_uring_prep_recv(sqe, op->fd, NULL, bufs->size,
				   (int)op->flags);
	} else {
		/* The size is the ring's buffers': 0 here (6.0). */
		io_uring_prep_recv_multishot(sqe, op->fd, NULL, 0,
					     (int)op->flags);
	}
	/*
	 * A buffer is picked once data is there, not before: an empty ring
	 * ends it only when data finds no buffer (5.19).
	 */
	sqe->ioprio |= IORING_RECVSEND_POLL_FIRST;
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = bufs->bgid;
}

static int exec_uring_prep(struct exec_io *io, struct exec_io_op *op)
{
	struct io_uring_sqe *sqe;
	unsigned int len = (unsigned int)min_t(size_t, op->len, UINT_MAX);

	if (!exec_uring_pick(op))
		return -ENOBUFS;
	sqe = exec_uring_sqe(io);
	if (!sqe) {
		exec_uring_unpick(op);
		return -EBUSY;
	}
	switch (op->opcode) {
	case EXEC_IO_ACCEPT:
		io_uring_prep_accept(sqe, op->fd, NULL, NULL, SOCK_CLOEXEC);
		break;
	case EXEC_IO_ACCEPT_MULTI:
		if (io->no_multishot)
			io_uring_prep_accept(sqe, op->fd, NULL, NULL,
					     SOCK_CLOEXEC);
		else
			io_uring_prep_multishot_accept(sqe, op->fd, NULL, NULL,
						       SOCK_CLOEXEC);
		break;
	case EXEC_IO_CONNECT:
		io_uring_prep_connect(sqe, op->fd, op->buf, (socklen_t)op->len);
		break;
	case EXEC_IO_RECV:
		io_uring_prep_recv(sqe, op->fd, op->buf, op->len,
				   (int)op->flags);
		break;
	case EXEC_IO_SEND:
		io_uring_prep_send(sqe, op->fd, op->buf, op->len,
				   (int)op->flags);
		break;
	case EXEC_IO_RECV_BUF:
		exec_uring_prep_recv_buf(sqe, op);
		break;
	case EXEC_IO_RECV_MULTI:
		exec_uring_prep_recv_multi(io, sqe, op);
		break;
	case EXEC_IO_READ:
		io_uring_prep_read(sqe, op->fd, op->buf, len, op->off);
		break;
	case EXEC_IO_WRITE:
		io_uring_prep_write(sqe, op->fd, op->buf, len, op->off);
		break;
	case EXEC_IO_READV:
		io_uring_prep_readv(sqe, op->fd, op->buf, len, op->off);
		break;
	case EXEC_IO_WRITEV:
		io_uring_prep_writev(sqe, op->fd, op->buf, len, op->off);
		break;
	case EXEC_IO_POLL:
		io_uring_prep_poll_add(sqe, op->fd, op->flags);
		break;
	case EXEC_IO_CLOSE:
		io_uring_prep_close(sqe, op->fd);
		break;
	case EXEC_IO_TIMEOUT:
		/* The kernel reads @ts at submission; @op outlives that. */
		io_uring_prep_timeout(sqe, (struct __kernel_timespec *)op->ts,
				      0, 0);
		break;
	default:
		return -EINVAL;
	}
	io_uring_sqe_set_data(sqe, op);
	io->unsubmitted = true;
	return 0;
}

static int exec_uring_start(struct exec_io *io, struct exec_io_op *op)
{
	if (exec_uring_own(io))
		return exec_uring_prep(io, op);
	exec_uring_defer(io, op, EXEC_URING_START);
	return 0;
}

static void exec_uring_prep_cancel(struct exec_io *io, struct exec_io_op *op)
{
	struct io_uring_sqe *sqe = exec_uring_sqe(io);

	/*
	 * Without an SQE, the cancellation is lost; the operation still
	 * completes, with its result.  Only with the SQ full and the
	 * kernel refusing to take it.
	 */
	if (WARN_ON_ONCE(!sqe))
		return;
	io_uring_prep_cancel64(sqe, (u64)(uintptr_t)op, 0);
	io_uring_sqe_set_data64(sqe, EXEC_IO_DATA_CANCEL);
	sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
	io->unsubmitted = true;
}

static void exec_uring_cancel(struct exec_io *io, struct exec_io_op *op)
{
	if (exec_uring_own(io))
		exec_uring_prep_cancel(io, op);
	else
		exec_uring_defer(io, op, EXEC_URING_CANCEL);
}

/*
 * The context's thread carries out what other threads deferred to it;
 * @io->lock held.  A start whose cancellation came first completes with
 * -ECANCELED without reaching the kernel; one that finds no SQE, with
 * -EBUSY, or no buffer to pick, with -ENOBUFS.
 */
static void exec_uring_run_deferred(struct exec_io *io)
{
	struct exec_io_op *op;
	unsigned long what;
	int err;

	while ((op = io->deferred)) {
		io->deferred = op->backend[0];
		if (!io->deferred)
			io->deferred_tail = NULL;
		what = (unsigned long)op->backend[1];
		op->backend[0] = NULL;
		op->backend[1] = NULL;
		if (!(what & EXEC_URING_START)) {
			exec_uring_prep_cancel(io, op);
			continue;
		}
		err = op->cancel ? -ECANCELED : exec_uring_prep(io, op);
		if (err)
			exec_io_complete_locked(io, op, err);
	}
}

/*
 * The CQE of an operation: translate and complete.  Under the lock, which
 * the start held after it wrote @op's fields: the kernel's ordering of
 * the SQE before its CQE is invisible to ThreadSanitizer.
 */
/*
 * The buffer that holds what a receive into a group got: the one the
 * kernel picked from the ring, or the one the context picked at the start
 * (*@armed); counted as out.  A buffer with nothing in it goes back at
 * once, and NULL is returned.
 */
static void *exec_uring_cqe_buf(struct exec_io_bufs *bufs, void **armed,
				long res, unsigned int flags)
{
	void *buf = *armed;

	*armed = NULL;
	if (bufs->br && (flags & IORING_CQE_F_BUFFER)) {
		buf = exec_io_bufs_addr(bufs, flags >> IORING_CQE_BUFFER_SHIFT);
		pthread_mutex_lock(&bufs->lock);
		bufs->out++;
		pthread_mutex_unlock(&bufs->lock);
	}
	if (res <= 0 && buf) {
		exec_io_buf_put(bufs, buf);
		buf = NULL;
	}
	return buf;
}

/*
 * A multishot receive that found no buffer: the kernel ended it with
 * -ENOBUFS, which it does when the ring is empty as it looks again after
 * a piece, data or not; or, without a ring, its poll says data is there.
 * Returns whether to start it again (it then waits for data before it
 * picks a buffer); else *@res is how it ends: -ENOBUFS when data waits
 * and every buffer is out, 0 at end of stream, or an error.
 */
static bool exec_uring_recv_starved(struct exec_io_op *op, long *res)
{
	struct exec_io_bufs *bufs = exec_io_op_bufs(op);
	bool avail;
	ssize_t n;
	char c;

	pthread_mutex_lock(&bufs->lock);
	avail = bufs->out < bufs->count;
	pthread_mutex_unlock(&bufs->lock);
	if (avail)
		return true;
	n = recv(op->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return true;
	*res = n > 0 ? -ENOBUFS : n ? -errno : 0;
	return false;
}

/*
 * A CQE of a multishot operation: a socket, or bytes in a buffer, and
 * unless IORING_CQE_F_MORE says more will come, the end, or a re-arm:
 * where the kernel lacks the multishot operation (-EINVAL before any
 * result), or ended it without an error, a new one is submitted while the
 * operation is not cancelled.  A receive's end of stream (0) ends it.
 */
static void exec_uring_multi_cqe(struct exec_io *io, struct exec_io_op *op,
				 long res, unsigned int flags)
{
	struct exec_io_multi *m = op->backend[2];
	bool recv = op->opcode == EXEC_IO_RECV_MULTI;
	bool *lacks = recv ? &io->no_recv_multishot : &io->no_multishot;
	bool more = recv ? res > 0 : res >= 0;
	void *buf = NULL;
	int ret;

	if (recv && m->polling) {
		/* Data or the end is there: pick a buffer for it, or end. */
		m->polling = false;
		more = res >= 0 && exec_uring_recv_starved(op, &res);
		goto rearm;
	}
	if (recv)
		buf = exec_uring_cqe_buf(m->bufs, &m->armed, res, flags);
	if (more)
		exec_io_multi_push_locked(io, op, res, buf);
	if (flags & IORING_CQE_F_MORE)
		return;
	if (res == -EINVAL && !m->armed_any && !*lacks) {
		*lacks = true;
		more = true;
	}
	if (recv && res == -ENOBUFS && m->bufs->br)
		more = exec_uring_recv_starved(op, &res);
rearm:
	if (more && !op->cancel && !io->dying) {
		ret = exec_uring_start(io, op);
		if (!ret)
			return;
		res = ret;
	} else if (more) {
		res = -ECANCELED;
	}
	exec_io_multi_end_locked(io, op, res);
}

static void exec_uring_cqe(struct exec_io *io, struct io_uring_cqe *cqe)
{
	struct exec_io_op *op = io_uring_cqe_get_data(cqe);
	long res = cqe->res;

	if (exec_io_op_multi(op)) {
		/* Its cancellation may wait while results come. */
		if (!(cqe->flags & IORING_CQE_F_MORE))
			exec_uring_undefer(io, op);
		exec_uring_multi_cqe(io, op, res, cqe->flags);
		return;
	}
	if (op->opcode == EXEC_IO_TIMEOUT && res == -ETIME)
		res = 0;
	if (op->opcode == EXEC_IO_RECV_BUF)
		op->buf = exec_uring_cqe_buf(op->backend[2], &op->buf, res,
					     cqe->flags);
	/* A cancellation deferred to us must not outlive the operation. */
	exec_uring_undefer(io, op);
	exec_io_complete_locked(io, op, res);
}

/*
 * One turn of the context's thread, entered and left with @io->lock held:
 * it submits the SQ with the wait for the next CQE, then completes all
 * the CQEs it finds under one hold of the lock.
 */
static void exec_uring_turn(struct exec_io *io)
{
	struct io_uring_cqe *cqe;
	unsigned int head, n;
	int ret;

	io->sleeping = true;
	pthread_mutex_unlock(&io->lock);

	/*
	 * Only this thread touches the SQ outside the lock, and only here;
	 * the starts of its own handlers were queued before.  It waits only
	 * while its executor has nothing queued.  -EINTR from a signal: look
	 * again.
	 */
	if (exec_loop_sleep_begin(io->loop)) {
		/*
		 * No yield before the wait, unlike exec_ep_poll(): here it
		 * gained little in requests/s and more than doubled the
		 * example server's tail latency under wrk
		 * (Documentation/benchmarks.rst): a yielding thread whose CPU
		 * the client keeps waits for the client's slice to end.
		 */
		ret = io_uring_submit_and_wait(&io->ring, 1);
		if (ret < 0 && ret != -EINTR)
			io_uring_wait_cqe(&io->ring, &cqe);
		exec_loop_sleep_end(io->loop);
	} else if (io->defer_taskrun) {
		/* Completions are task work that only a GETEVENTS runs. */
		ret = io_uring_submit_and_get_events(&io->ring);
	} else {
		ret = io_uring_submit(&io->ring);
	}

	pthread_mutex_lock(&io->lock);
	io->sleeping = false;
	io->retry = ret < 0 && ret != -EINTR;
	io->unsubmitted = io_uring_sq_ready(&io->ring) != 0;
	n = 0;
	io_uring_for_each_cqe(&io->ring, head, cqe) {
		n++;
		if (cqe->user_data != EXEC_IO_DATA_CANCEL &&
		    cqe->user_data != EXEC_WAKE_DATA)
			exec_uring_cqe(io, cqe);
	}
	io_uring_cq_advance(&io->ring, n);
}

/*
 * The context's thread: the ring's only submitter and the CQ's only
 * consumer.  Each turn it carries out what was deferred to it, submits
 * the SQ with the wait for the next CQE, then completes all the CQEs it
 * finds under one hold of the lock, queues their handlers after dropping
 * it, and runs what its executor has (exec_io_run_items()): a handler
 * bound to exec_io_executor() runs right there.
 */
static void *exec_uring_thread(void *arg)
{
	struct exec_io *io = arg;
	int ret = 0;

	/* A ring of one issuer: this thread, which enables it. */
	if (io->defer_taskrun)
		ret = io_uring_register(io->ring.ring_fd,
					IORING_REGISTER_ENABLE_RINGS, NULL, 0);
	pthread_mutex_lock(&io->lock);
	io->start_ret = ret;
	io->started = true;
	pthread_cond_broadcast(&io->idle);
	pthread_mutex_unlock(&io->lock);
	if (ret)
		return NULL;

	exec_io_thread_begin(io);
	pthread_mutex_lock(&io->lock);
	while (!io->stopping) {
		exec_uring_run_deferred(io);
		/* Handlers of what never started come first; they may defer. */
		if (!io->done)
			exec_uring_turn(io);
		exec_io_unlock(io);
		exec_io_run_items(io);
		pthread_mutex_lock(&io->lock);
	}
	pthread_mutex_unlock(&io->lock);
	exec_io_thread_end(io);
	return NULL;
}

static bool exec_io_test_no_buf_ring;
static bool exec_io_test_no_defer_taskrun;

/**
 * exec_io_test_set_no_defer_taskrun - new contexts as on a kernel before 6.1
 * @on: rings set up from now on without IORING_SETUP_DEFER_TASKRUN
 */
void exec_io_test_set_no_defer_taskrun(bool on)
{
	WRITE_ONCE(exec_io_test_no_defer_taskrun, on);
}
EXPORT_SYMBOL_FOR_TESTS(exec_io_test_set_no_defer_taskrun);

/**
 * exec_io_test_set_no_buf_ring - new groups as on a kernel without rings
 * @on: groups created from now on are the context's to pick from
 *
 * For the tests, which run on kernels that have provided-buffer rings.
 */
void exec_io_test_set_no_buf_ring(bool on)
{
	WRITE_ONCE(exec_io_test_no_buf_ring, on);
}
EXPORT_SYMBOL_FOR_TESTS(exec_io_test_set_no_buf_ring);

/* The registration of a buffer ring, where the ring's issuer runs. */
struct exec_uring_reg {
	struct io_uring_buf_reg reg;
	int ret;
};

static void exec_uring_register_br(struct exec_io *io, void *arg)
{
	struct exec_uring_reg *r = arg;

	r->ret = io_uring_register_buf_ring(&io->ring, &r->reg, 0);
}

static void exec_uring_unregister_br(struct exec_io *io, void *arg)
{
	struct exec_io_bufs *bufs = arg;

	io_uring_unregister_buf_ring(&io->ring, bufs->bgid);
}

/*
 * A group of buffers as a provided-buffer ring (5.19), from which the
 * kernel picks as data comes; registered by the context's thread, without
 * @io->lock.  Where the kernel has none, the group stays the context's to
 * pick from (0, no ring).
 */
static int exec_uring_bufs_init(struct exec_io *io, struct exec_io_bufs *bufs)
{
	struct exec_uring_reg r = { 0 };
	struct io_uring_buf_ring *br;
	unsigned int i;
	int ret;

	/* The tests' kernel without buffer rings. */
	if (READ_ONCE(exec_io_test_no_buf_ring))
		return 0;
	if (exec_fault_alloc() ||
	    posix_memalign((void **)&br, (size_t)sysconf(_SC_PAGESIZE),
			   bufs->count * sizeof(struct io_uring_buf)))
		return -ENOMEM;
	io_uring_buf_ring_init(br);
	r.reg.ring_addr = (unsigned long)br;
	r.reg.ring_entries = bufs->count;
	r.reg.bgid = bufs->bgid;
	ret = exec_io_on_thread(io, exec_uring_register_br, &r);
	if (!ret)
		ret = r.ret;
	if (ret) {
		free(br);
		return ret == -ENOMEM ? ret : 0;
	}
	for (i = 0; i < bufs->count; i++)
		io_uring_buf_ring_add(br, exec_io_bufs_addr(bufs, (int)i),
				      bufs->size, (unsigned short)i,
				      io_uring_buf_ring_mask(bufs->count),
				      (int)i);
	io_uring_buf_ring_advance(br, (int)bufs->count);
	bufs->br = br;
	return 0;
}

static void exec_uring_bufs_fini(struct exec_io *io, struct exec_io_bufs *bufs)
{
	/* Without memory to ask the thread, the ring stays until the end. */
	exec_io_on_thread(io, exec_uring_unregister_br, bufs);
}

static void exec_uring_wake_thread(struct exec_io *io)
{
	exec_uring_wake(&io->ring);
}

/* Nothing is pending any more: the thread returns. */
static void exec_uring_stop(struct exec_io *io)
{
	pthread_mutex_lock(&io->lock);
	io->stopping = true;
	exec_uring_kick(io);
	pthread_mutex_unlock(&io->lock);
}

static void exec_uring_fini(struct exec_io *io)
{
	io_uring_queue_exit(&io->ring);
}

static int exec_uring_init(struct exec_io *io, unsigned int entries)
{
	struct io_uring_params p = {
		.flags = IORING_SETUP_CQSIZE | IORING_SETUP_SINGLE_ISSUER |
			 IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_R_DISABLED,
		.cq_entries = entries * 4,
	};
	int ret;

	/* Enabled by the thread, which so becomes its single issuer. */
	ret = READ_ONCE(exec_io_test_no_defer_taskrun) ? -EINVAL :
	      io_uring_queue_init_params(entries, &io->ring, &p);
	io->defer_taskrun = !ret;
	if (ret == -EINVAL) {
		/* Before 6.1: task work waits for the thread's next call. */
		memset(&p, 0, sizeof(p));
		p.flags = IORING_SETUP_CQSIZE | IORING_SETUP_COOP_TASKRUN |
			  IORING_SETUP_TASKRUN_FLAG;
		p.cq_entries = entries * 4;
		ret = io_uring_queue_init_params(entries, &io->ring, &p);
	}
	if (ret == -EINVAL) {
		/* Before 5.19: task work interrupts the thread, as it may. */
		memset(&p, 0, sizeof(p));
		p.flags = IORING_SETUP_CQSIZE;
		p.cq_entries = entries * 4;
		ret = io_uring_queue_init_params(entries, &io->ring, &p);
	}
	if (ret < 0)
		return ret;
	/* Completions must not be dropped at a full CQ (5.5). */
	if (!(p.features & IORING_FEAT_NODROP)) {
		io_uring_queue_exit(&io->ring);
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * A ring of one issuer is enabled by its thread (which a kernel that set
 * it up does): the creation fails if it could not be.
 */
static int exec_uring_started(struct exec_io *io)
{
	int ret;

	if (!io->defer_taskrun)
		return 0;
	pthread_mutex_lock(&io->lock);
	while (!io->started)
		pthread_cond_wait(&io->idle, &io->lock);
	ret = io->start_ret;
	pthread_mutex_unlock(&io->lock);
	return ret;
}

/**
 * exec_io_test_wait_asleep - wait until a context's thread waits for a CQE
 * @io: a context on the io_uring backend
 *
 * For the tests: from then on, only a wake-up (a start or cancellation
 * from another thread, or the end of its batch) or a completion makes the
 * thread look at the context again.
 *
 * Context: Process context; sleeps.
 */
void exec_io_test_wait_asleep(struct exec_io *io)
{
	bool asleep;

	do {
		usleep_range(1000, 2000);
		pthread_mutex_lock(&io->lock);
		asleep = io->sleeping;
		pthread_mutex_unlock(&io->lock);
	} while (!asleep);
}
EXPORT_SYMBOL_FOR_TESTS(exec_io_test_wait_asleep);

const struct exec_io_ops exec_io_uring_ops = {
	.name = "io_uring",
	.init = exec_uring_init,
	.started = exec_uring_started,
	.start = exec_uring_start,
	.cancel = exec_uring_cancel,
	.flush = exec_uring_flush,
	.thread = exec_uring_thread,
	.wake = exec_uring_wake_thread,
	.bufs_init = exec_uring_bufs_init,
	.bufs_fini = exec_uring_bufs_fini,
	.stop = exec_uring_stop,
	.fini = exec_uring_fini,
};
