// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Asynchronous I/O operations (<exec/io.h>), userspace only, and their
 * io_uring backend; the epoll backend is user/io_epoll.c.
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
 * Where handlers run.  A handler bound to a pool runs there: the
 * completion wakes the context's thread first, then a worker (unless one
 * is awake), one hop more than a handler bound to the context's executor:
 * a loop executor that the thread drives between its waits
 * (exec_io_run_items()), so the handler runs on the thread that took the
 * completion.  examples/httpd.c gives each of its threads a context of
 * its own, and its connections' handlers run there.
 *
 * Exactly once.  An operation's state goes IDLE -> PENDING (start, with
 * cmpxchg(), so a second start fails with -EALREADY) -> QUEUED (under the
 * lock, by whoever decides its completion: the thread on its CQE, or a
 * failed start) -> IDLE (just before its handler is called, so the handler
 * may start it again).  A cancellation is an IORING_OP_ASYNC_CANCEL of the
 * operation: the kernel then ends the operation with one CQE, -ECANCELED
 * or its result, which completes it as any other; the cancel's own CQE is
 * skipped on success and ignored otherwise.
 *
 * Outstanding work.  A start counts one unit on the handler's executor
 * (exec_on_work_started()); the item that runs the handler releases it
 * after the handler has returned, so a loop scheduler's run() does not see
 * 0 between an operation and the one its handler starts.
 */
#include "io_internal.h"

#include <poll.h>
#include <unistd.h>

/* The user_data of the CQEs of cancellations, which are skipped. */
#define EXEC_IO_DATA_CANCEL	0ULL

/* What a deferred operation asks of the context's thread (@backend[1]). */
#define EXEC_URING_START	0x1UL
#define EXEC_URING_CANCEL	0x2UL

#define EXEC_IO_DEFAULT_ENTRIES	256U
#define EXEC_IO_MAX_ENTRIES	4096U

/*
 * The calling thread's batch: its context, how deep it is nested, and
 * whether it left SQEs to submit.  Only then does its end touch the
 * context: a handler that started nothing on it lets its owner destroy it
 * as soon as the handler's effects are seen.
 */
/* The context whose thread the calling thread is, if any. */
static __thread struct exec_io *exec_io_self;
static __thread struct exec_io *exec_io_batch_io;
static __thread unsigned int exec_io_batch_depth;
static __thread bool exec_io_batch_queued;

/* Links @op at the head of @io's pending list; @io->lock held. */
static void exec_io_link(struct exec_io *io, struct exec_io_op *op)
{
	struct exec_io_bufs *bufs = exec_io_op_bufs(op);

	op->prev = NULL;
	op->next = io->pending;
	if (io->pending)
		io->pending->prev = op;
	io->pending = op;
	WRITE_ONCE(io->nr_pending, io->nr_pending + 1);
	if (bufs)
		bufs->users++;
}

/* Unlinks @op from @io's pending list; @io->lock held. */
static void exec_io_unlink(struct exec_io *io, struct exec_io_op *op)
{
	struct exec_io_bufs *bufs = exec_io_op_bufs(op);

	if (op->prev)
		op->prev->next = op->next;
	else
		io->pending = op->next;
	if (op->next)
		op->next->prev = op->prev;
	op->prev = NULL;
	op->next = NULL;
	WRITE_ONCE(io->nr_pending, io->nr_pending - 1);
	if (bufs)
		bufs->users--;
	if (!io->nr_pending && !io->nr_multi && io->dying)
		pthread_cond_broadcast(&io->idle);
}

/* Runs the handler of a completed operation, on its executor. */
static void exec_io_op_run(struct exec_work *work)
{
	struct exec_io_op *op = container_of(work, struct exec_io_op, work);
	struct exec_executor *ex = op->ex;
	struct exec_io *io = op->io;
	exec_result_fn fn = op->handler.fn;
	void *arg = op->handler.arg;
	long res = op->result;

	/*
	 * Release: pairs with the cmpxchg() of the next start, which must
	 * see this run's reads of @op done.  From here the handler (or
	 * anybody) may start @op again, or free it.
	 */
	smp_store_release(&op->state, EXEC_IO_OP_IDLE);
	exec_io_batch_begin(io);
	fn(arg, res);
	exec_io_batch_end(io);
	exec_on_work_finished(ex);
}

/* The executor dropped the handler's item: call it here, cancelled. */
static void exec_io_op_drop(struct exec_work *work)
{
	struct exec_io_op *op = container_of(work, struct exec_io_op, work);

	op->result = -ECANCELED;
	exec_io_op_run(work);
}

/* Queues the handler of @op, whose completion has been decided. */
static void exec_io_queue(struct exec_io_op *op)
{
	/* Waits for room on a bounded executor: completions are not lost. */
	if (exec_submit(op->ex, &op->work))
		op->work.discard(&op->work);
}

/* Queues @op's item once @io->lock is dropped (exec_io_unlock()). */
static void exec_io_queue_later(struct exec_io *io, struct exec_io_op *op)
{
	/*
	 * Linked through the item, not through @next: a multishot operation
	 * handed a result is queued while it stays on the pending list, and
	 * a link through @next made the list a ring when another operation
	 * completed in the same section (exec_io_cancel_token() then walked
	 * it for ever).  The item is free for it: not queued until
	 * exec_io_unlock() queues it.
	 */
	op->work.next = NULL;
	if (io->done_tail)
		io->done_tail->work.next = &op->work;
	else
		io->done = op;
	io->done_tail = op;
}

/* Makes sure the item of a multishot @op runs; @io->lock held. */
static void exec_io_multi_kick(struct exec_io *io, struct exec_io_op *op)
{
	struct exec_io_multi *m = op->backend[2];

	if (!m->running && (m->count || m->ended)) {
		m->running = true;
		exec_io_queue_later(io, op);
	}
}

/* Doubles the ring of results of @m; 0 or -ENOMEM. */
static int exec_io_multi_grow(struct exec_io_multi *m)
{
	unsigned int i, cap = m->cap ? m->cap * 2 : 16;
	struct exec_io_multi_res *q;

	q = exec_io_alloc(cap * sizeof(*q));
	if (!q)
		return -ENOMEM;
	for (i = 0; i < m->count; i++)
		q[i] = m->q[(m->head + i) % m->cap];
	free(m->q);
	m->q = q;
	m->head = 0;
	m->cap = cap;
	return 0;
}

/**
 * exec_io_multi_push_locked - hand a result to a multishot operation
 * @io: the context; its lock held
 * @op: the operation, PENDING
 * @res: an accepted socket, or the bytes received
 * @buf: the buffer that holds them; NULL for a socket
 *
 * Without memory to queue it, a socket is closed: the peer sees the
 * connection reset, as at a full backlog.  A receive's buffers queue in
 * their group's array, with no allocation: its data is never dropped.
 */
void exec_io_multi_push_locked(struct exec_io *io, struct exec_io_op *op,
			       long res, void *buf)
{
	struct exec_io_multi *m = op->backend[2];
	struct exec_io_bufs *bufs = m->bufs;
	int bid;

	m->armed_any = true;
	if (!bufs && m->count == m->cap && exec_io_multi_grow(m)) {
		close((int)res);
		return;
	}
	if (bufs) {
		bid = (int)(((char *)buf - bufs->base) / bufs->size);
		bufs->queued[bid].len = (unsigned int)res;
		bufs->queued[bid].next = -1;
		if (m->count)
			bufs->queued[m->last].next = bid;
		else
			m->first = bid;
		m->last = bid;
	} else {
		m->q[(m->head + m->count) % m->cap] =
			(struct exec_io_multi_res){ .res = res };
	}
	m->count++;
	exec_io_multi_kick(io, op);
}

/* Takes the oldest queued result of @m; @io->lock held, @m->count > 0. */
static struct exec_io_multi_res exec_io_multi_pop(struct exec_io_multi *m)
{
	struct exec_io_bufs *bufs = m->bufs;
	struct exec_io_multi_res r;

	m->count--;
	if (bufs) {
		r.res = bufs->queued[m->first].len;
		r.buf = exec_io_bufs_addr(bufs, m->first);
		m->first = bufs->queued[m->first].next;
		return r;
	}
	r = m->q[m->head];
	m->head = (m->head + 1) % m->cap;
	return r;
}

/*
 * Ends a multishot operation: its last call follows the queued results,
 * with @res if that is an error or a receive's end of stream (0), else
 * with -ECANCELED.
 */
static void exec_io_multi_end_locked(struct exec_io *io,
				     struct exec_io_op *op, long res)
{
	struct exec_io_multi *m = op->backend[2];

	exec_io_unlink(io, op);
	WRITE_ONCE(op->state, EXEC_IO_OP_QUEUED);
	m->ended = true;
	m->final = res < 0 || (!res && m->bufs) ? res : -ECANCELED;
	exec_io_multi_kick(io, op);
}

/*
 * The item of a multishot operation: one call of the handler per queued
 * result, in order, then the last call once it has ended.  Only one run
 * of the item at a time (@running), so the calls never overlap; each
 * call's buffer is in @op->buf (exec_io_op_buf()) during it.
 */
static void exec_io_multi_run(struct exec_work *work)
{
	struct exec_io_op *op = container_of(work, struct exec_io_op, work);
	struct exec_io_multi *m = op->backend[2];
	struct exec_executor *ex = op->ex;
	struct exec_io *io = op->io;
	exec_result_fn fn = op->handler.fn;
	void *arg = op->handler.arg;
	struct exec_io_multi_res r;
	long res;

	for (;;) {
		pthread_mutex_lock(&io->lock);
		if (m->count) {
			r = exec_io_multi_pop(m);
			pthread_mutex_unlock(&io->lock);
			op->buf = r.buf;
			exec_io_batch_begin(io);
			fn(arg, r.res);
			exec_io_batch_end(io);
			continue;
		}
		if (!m->ended) {
			m->running = false;
			pthread_mutex_unlock(&io->lock);
			return;
		}
		break;
	}
	/* The last call: from here @io may be destroyed, @op restarted. */
	res = m->final;
	op->backend[2] = NULL;
	io->nr_multi--;
	if (!io->nr_pending && !io->nr_multi && io->dying)
		pthread_cond_broadcast(&io->idle);
	pthread_mutex_unlock(&io->lock);
	free(m->q);
	free(m);
	op->buf = NULL;
	exec_work_init_discard(&op->work, exec_io_op_run, exec_io_op_drop);
	/* Pairs with the cmpxchg() of the next start. */
	smp_store_release(&op->state, EXEC_IO_OP_IDLE);
	exec_io_batch_begin(io);
	fn(arg, res);
	exec_io_batch_end(io);
	exec_on_work_finished(ex);
}

/**
 * exec_io_complete_locked - decide @op's completion, with @io->lock held
 * @io: the context
 * @op: a PENDING operation of @io
 * @res: its result
 *
 * The handler is queued by exec_io_unlock(), after the lock is dropped:
 * an inline executor would run it in the submitter, which could then
 * start an operation on @io.  A multishot accept ends with @res (a
 * negative errno).
 */
void exec_io_complete_locked(struct exec_io *io, struct exec_io_op *op,
			     long res)
{
	/* A multishot operation ends rather than completes. */
	if (exec_io_op_multi(op)) {
		exec_io_multi_end_locked(io, op, res);
		return;
	}
	exec_io_unlink(io, op);
	op->result = res;
	WRITE_ONCE(op->state, EXEC_IO_OP_QUEUED);
	exec_io_queue_later(io, op);
}

/**
 * exec_io_unlock - drop @io->lock, then queue what was completed under it
 * @io: the context
 */
void exec_io_unlock(struct exec_io *io)
{
	struct exec_io_op *op = io->done, *next;

	io->done = NULL;
	io->done_tail = NULL;
	pthread_mutex_unlock(&io->lock);
	for (; op; op = next) {
		/* The handler may run, and free @op, at once. */
		next = op->work.next ? container_of(op->work.next,
						    struct exec_io_op, work) :
				       NULL;
		exec_io_queue(op);
	}
}

/**
 * exec_io_complete - decide @op's completion and queue its handler
 * @io: the context
 * @op: a PENDING operation of @io
 * @res: its result
 */
void exec_io_complete(struct exec_io *io, struct exec_io_op *op, long res)
{
	pthread_mutex_lock(&io->lock);
	exec_io_complete_locked(io, op, res);
	exec_io_unlock(io);
}

/**
 * exec_io_batching - whether the calling thread batches starts on @io
 * @io: the context
 */
bool exec_io_batching(const struct exec_io *io)
{
	return exec_io_batch_depth && exec_io_batch_io == io;
}

void exec_io_op_init(struct exec_io_op *op)
{
	memset(op, 0, sizeof(*op));
	exec_work_init_discard(&op->work, exec_io_op_run, exec_io_op_drop);
	op->fd = -1;
}
EXPORT_SYMBOL_GPL(exec_io_op_init);

void exec_io_op_set_token(struct exec_io_op *op, struct exec_cancel_token *tok)
{
	if (op)
		op->token = tok;
}
EXPORT_SYMBOL_GPL(exec_io_op_set_token);

/*
 * Claims @op for a start: the arguments common to every operation, then
 * the state, so that a second start of a pending operation changes none of
 * its fields.  0, -EINVAL or -EALREADY.
 */
static int exec_io_claim(struct exec_io *io, struct exec_io_op *op,
			 const struct exec_handler *h)
{
	if (!io || !op || !h || !h->fn)
		return -EINVAL;
	if (op->work.func != exec_io_op_run &&
	    op->work.func != exec_io_multi_run)
		return -EINVAL;
	/* Fully ordered: pairs with the release in exec_io_op_run(). */
	if (cmpxchg(&op->state, EXEC_IO_OP_IDLE, EXEC_IO_OP_PENDING) !=
	    EXEC_IO_OP_IDLE)
		return -EALREADY;
	return 0;
}

/*
 * The rest of a start, once claimed and filled in: outstanding work, the
 * pending list, then the backend's start, under the lock.
 */
static int exec_io_start(struct exec_io *io, struct exec_io_op *op,
			 const struct exec_handler *h)
{
	struct exec_executor *ex;
	int ret;

	if (exec_cancel_requested(op->token)) {
		ret = -ECANCELED;
		goto idle;
	}
	ex = exec_handler_executor(h, io->ex);
	if (!ex)
		ex = exec_default_executor();
	if (!ex) {
		ret = -EINVAL;
		goto idle;
	}
	op->handler = *h;
	op->ex = ex;
	/* Read without the lock by exec_io_cancel(). */
	WRITE_ONCE(op->io, io);
	op->cancel = false;
	exec_on_work_started(ex);

	pthread_mutex_lock(&io->lock);
	if (io->dying) {
		ret = -ESHUTDOWN;
		goto unlock;
	}
	exec_io_link(io, op);
	if (exec_io_op_multi(op))
		io->nr_multi++;
	ret = io->ops->start(io, op);
	if (ret) {
		if (exec_io_op_multi(op))
			io->nr_multi--;
		exec_io_unlink(io, op);
		goto unlock;
	}
	exec_io_unlock(io);
	return 0;

unlock:
	pthread_mutex_unlock(&io->lock);
	exec_on_work_finished(ex);
idle:
	/* Pairs with the cmpxchg() of the next start, as in exec_io_op_run(). */
	smp_store_release(&op->state, EXEC_IO_OP_IDLE);
	return ret;
}

int exec_io_accept(struct exec_io *io, struct exec_io_op *op, int fd,
		   const struct exec_handler *h)
{
	int ret;

	if (fd < 0)
		return -EINVAL;
	ret = exec_io_claim(io, op, h);
	if (ret)
		return ret;
	op->opcode = EXEC_IO_ACCEPT;
	op->fd = fd;
	return exec_io_start(io, op, h);
}
EXPORT_SYMBOL_GPL(exec_io_accept);

/*
 * Starts multishot @op, claimed and filled in but for its state of
 * results: the buffers of @bufs for a receive, else a ring of sockets.
 */
static int exec_io_start_multi(struct exec_io *io, struct exec_io_op *op,
			       struct exec_io_bufs *bufs,
			       const struct exec_handler *h)
{
	struct exec_io_multi *m;
	int ret;

	/* One allocation per start, none per result but an accept's growth. */
	m = exec_io_zalloc(sizeof(*m));
	if (!m) {
		/* Pairs with the cmpxchg() of the next start. */
		smp_store_release(&op->state, EXEC_IO_OP_IDLE);
		return -ENOMEM;
	}
	m->bufs = bufs;
	op->backend[2] = m;
	op->buf = NULL;
	exec_work_init_discard(&op->work, exec_io_multi_run,
			       exec_io_multi_run);
	ret = exec_io_start(io, op, h);
	if (!ret)
		return 0;
	op->backend[2] = NULL;
	exec_work_init_discard(&op->work, exec_io_op_run, exec_io_op_drop);
	free(m);
	return ret;
}

int exec_io_accept_multishot(struct exec_io *io, struct exec_io_op *op,
			     int fd, const struct exec_handler *h)
{
	int ret;

	if (fd < 0)
		return -EINVAL;
	ret = exec_io_claim(io, op, h);
	if (ret)
		return ret;
	op->opcode = EXEC_IO_ACCEPT_MULTI;
	op->fd = fd;
	return exec_io_start_multi(io, op, NULL, h);
}
EXPORT_SYMBOL_GPL(exec_io_accept_multishot);

int exec_io_connect(struct exec_io *io, struct exec_io_op *op, int fd,
		    const struct sockaddr *addr, socklen_t addrlen,
		    const struct exec_handler *h)
{
	int ret;

	if (fd < 0 || !addr || !addrlen)
		return -EINVAL;
	ret = exec_io_claim(io, op, h);
	if (ret)
		return ret;
	op->opcode = EXEC_IO_CONNECT;
	op->fd = fd;
	op->buf = (void *)addr;
	op->len = addrlen;
	return exec_io_start(io, op, h);
}
EXPORT_SYMBOL_GPL(exec_io_connect);

/* The start of the operations with a buffer or an iovec array. */
static int exec_io_start_buf(struct exec_io *io, struct exec_io_op *op,
			     int opcode, int fd, const void *buf, size_t len,
			     unsigned int flags, u64 off,
			     const struct exec_handler *h)
{
	int ret;

	if (fd < 0 || (!buf && len))
		return -EINVAL;
	ret = exec_io_claim(io, op, h);
	if (ret)
		return ret;
	op->opcode = opcode;
	op->fd = fd;
	op->buf = (void *)buf;
	op->len = len;
	op->flags = flags;
	op->off = off;
	return exec_io_start(io, op, h);
}

int exec_io_recv(struct exec_io *io, struct exec_io_op *op, int fd,
		 void *buf, size_t len, int flags,
		 const struct exec_handler *h)
{
	return exec_io_start_buf(io, op, EXEC_IO_RECV, fd, buf, len,
				 (unsigned int)flags, 0, h);
}
EXPORT_SYMBOL_GPL(exec_io_recv);

/* --- groups of receive buffers ------------------------------------------- */

#define EXEC_IO_BUFS_MAX	32768U
#define EXEC_IO_BUF_SIZE_MAX	(16U << 20)

/**
 * exec_io_bufs_take - pick a buffer of a group that the context picks from
 * @bufs: the group (no io_uring ring)
 *
 * Return: the buffer's id, counted as out until exec_io_bufs_give(); -1 if
 * every buffer is out.
 */
int exec_io_bufs_take(struct exec_io_bufs *bufs)
{
	int bid = -1;

	pthread_mutex_lock(&bufs->lock);
	if (bufs->nr_free) {
		bid = bufs->free[--bufs->nr_free];
		bufs->out++;
	}
	pthread_mutex_unlock(&bufs->lock);
	return bid;
}

/**
 * exec_io_bufs_give - give buffer @bid back, to the kernel's ring or the ids
 * @bufs: the group
 * @bid: a buffer that is out
 */
void exec_io_bufs_give(struct exec_io_bufs *bufs, int bid)
{
	pthread_mutex_lock(&bufs->lock);
	bufs->out--;
	if (bufs->br) {
		io_uring_buf_ring_add(bufs->br, exec_io_bufs_addr(bufs, bid),
				      bufs->size, (unsigned short)bid,
				      io_uring_buf_ring_mask(bufs->count), 0);
		io_uring_buf_ring_advance(bufs->br, 1);
	} else {
		bufs->free[bufs->nr_free++] = (unsigned short)bid;
	}
	pthread_mutex_unlock(&bufs->lock);
}

int exec_io_bufs_create(struct exec_io *io, struct exec_io_bufs **bufsp,
			unsigned int count, unsigned int size)
{
	struct exec_io_bufs *bufs;
	unsigned int i;
	int ret;

	if (!io || !bufsp || !count || count > EXEC_IO_BUFS_MAX ||
	    (count & (count - 1)) || !size || size > EXEC_IO_BUF_SIZE_MAX)
		return -EINVAL;
	*bufsp = NULL;
	bufs = exec_io_zalloc(sizeof(*bufs));
	if (!bufs)
		return -ENOMEM;
	bufs->io = io;
	bufs->count = count;
	bufs->size = size;
	pthread_mutex_init(&bufs->lock, NULL);
	ret = -ENOMEM;
	bufs->base = exec_io_alloc((size_t)count * size);
	if (!bufs->base)
		goto free_bufs;
	bufs->free = exec_io_alloc(count * sizeof(*bufs->free));
	if (!bufs->free)
		goto free_base;
	bufs->queued = exec_io_alloc(count * sizeof(*bufs->queued));
	if (!bufs->queued)
		goto free_free;

	/*
	 * Counted first, so that the context is not destroyed meanwhile;
	 * the backend's set-up runs without the lock, which the context's
	 * thread may need before it can run it (exec_io_on_thread()).
	 */
	pthread_mutex_lock(&io->lock);
	ret = -ESHUTDOWN;
	if (io->dying) {
		pthread_mutex_unlock(&io->lock);
		goto free_queued;
	}
	io->nr_bufs++;
	bufs->bgid = io->next_bgid++;
	pthread_mutex_unlock(&io->lock);
	ret = io->ops->bufs_init ? io->ops->bufs_init(io, bufs) : 0;
	if (ret)
		goto uncount;
	if (!bufs->br) {
		for (i = 0; i < count; i++)
			bufs->free[i] = (unsigned short)i;
		bufs->nr_free = count;
	}
	*bufsp = bufs;
	return 0;

uncount:
	pthread_mutex_lock(&io->lock);
	io->nr_bufs--;
	pthread_mutex_unlock(&io->lock);
free_queued:
	free(bufs->queued);
free_free:
	free(bufs->free);
free_base:
	free(bufs->base);
free_bufs:
	pthread_mutex_destroy(&bufs->lock);
	free(bufs);
	return ret;
}
EXPORT_SYMBOL_GPL(exec_io_bufs_create);

int exec_io_bufs_destroy(struct exec_io_bufs *bufs)
{
	struct exec_io *io;
	bool busy;

	if (!bufs)
		return -EINVAL;
	io = bufs->io;
	pthread_mutex_lock(&io->lock);
	pthread_mutex_lock(&bufs->lock);
	busy = bufs->users || bufs->out;
	pthread_mutex_unlock(&bufs->lock);
	pthread_mutex_unlock(&io->lock);
	if (busy)
		return -EBUSY;
	if (bufs->br)
		io->ops->bufs_fini(io, bufs);
	pthread_mutex_lock(&io->lock);
	io->nr_bufs--;
	pthread_mutex_unlock(&io->lock);
	free(bufs->br);
	free(bufs->queued);
	free(bufs->free);
	free(bufs->base);
	pthread_mutex_destroy(&bufs->lock);
	free(bufs);
	return 0;
}
EXPORT_SYMBOL_GPL(exec_io_bufs_destroy);

int exec_io_recv_buf(struct exec_io *io, struct exec_io_op *op, int fd,
		     struct exec_io_bufs *bufs, int flags,
		     const struct exec_handler *h)
{
	int ret;

	if (fd < 0 || !bufs || bufs->io != io)
		return -EINVAL;
	ret = exec_io_claim(io, op, h);
	if (ret)
		return ret;
	op->opcode = EXEC_IO_RECV_BUF;
	op->fd = fd;
	op->buf = NULL;
	op->len = bufs->size;
	op->flags = (unsigned int)flags;
	op->off = 0;
	op->backend[2] = bufs;
	return exec_io_start(io, op, h);
}
EXPORT_SYMBOL_GPL(exec_io_recv_buf);

int exec_io_recv_multishot(struct exec_io *io, struct exec_io_op *op, int fd,
			   struct exec_io_bufs *bufs, int flags,
			   const struct exec_handler *h)
{
	int ret;

	if (fd < 0 || !bufs || bufs->io != io || (flags & MSG_WAITALL))
		return -EINVAL;
	ret = exec_io_claim(io, op, h);
	if (ret)
		return ret;
	op->opcode = EXEC_IO_RECV_MULTI;
	op->fd = fd;
	op->len = bufs->size;
	op->flags = (unsigned int)flags;
	op->off = 0;
	return exec_io_start_multi(io, op, bufs, h);
}
EXPORT_SYMBOL_GPL(exec_io_recv_multishot);

void *exec_io_op_buf(const struct exec_io_op *op)
{
	return op && (op->opcode == EXEC_IO_RECV_BUF ||
		      op->opcode == EXEC_IO_RECV_MULTI) ? op->buf : NULL;
}
EXPORT_SYMBOL_GPL(exec_io_op_buf);

void exec_io_buf_put(struct exec_io_bufs *bufs, void *buf)
{
	size_t off;

	if (WARN_ON_ONCE(!bufs || (char *)buf < bufs->base))
		return;
	off = (size_t)((char *)buf - bufs->base);
	if (WARN_ON_ONCE(off % bufs->size ||
			 off / bufs->size >= bufs->count))
		return;
	exec_io_bufs_give(bufs, (int)(off / bufs->size));
}
EXPORT_SYMBOL_GPL(exec_io_buf_put);

int exec_io_send(struct exec_io *io, struct exec_io_op *op, int fd,
		 const void *buf, size_t len, int flags,
		 const struct exec_handler *h)
{
	return exec_io_start_buf(io, op, EXEC_IO_SEND, fd, buf, len,
				 (unsigned int)flags | MSG_NOSIGNAL, 0, h);
}
EXPORT_SYMBOL_GPL(exec_io_send);

int exec_io_read(struct exec_io *io, struct exec_io_op *op, int fd,
		 void *buf, size_t len, uint64_t off,
		 const struct exec_handler *h)
{
	return exec_io_start_buf(io, op, EXEC_IO_READ, fd, buf, len, 0, off,
				 h);
}
EXPORT_SYMBOL_GPL(exec_io_read);

int exec_io_write(struct exec_io *io, struct exec_io_op *op, int fd,
		  const void *buf, size_t len, uint64_t off,
		  const struct exec_handler *h)
{
	return exec_io_start_buf(io, op, EXEC_IO_WRITE, fd, buf, len, 0, off,
				 h);
}
EXPORT_SYMBOL_GPL(exec_io_write);

/* readv and writev: the vector checked, then started as a buffer. */
static int exec_io_start_vec(struct exec_io *io, struct exec_io_op *op,
			     int opcode, int fd, const struct iovec *iov,
			     int iovcnt, uint64_t off,
			     const struct exec_handler *h)
{
	if (!iov || iovcnt < 1 || iovcnt > IOV_MAX)
		return -EINVAL;
	return exec_io_start_buf(io, op, opcode, fd, iov, (size_t)iovcnt, 0,
				 off, h);
}

int exec_io_readv(struct exec_io *io, struct exec_io_op *op, int fd,
		  const struct iovec *iov, int iovcnt, uint64_t off,
		  const struct exec_handler *h)
{
	return exec_io_start_vec(io, op, EXEC_IO_READV, fd, iov, iovcnt, off,
				 h);
}
EXPORT_SYMBOL_GPL(exec_io_readv);

int exec_io_writev(struct exec_io *io, struct exec_io_op *op, int fd,
		   const struct iovec *iov, int iovcnt, uint64_t off,
		   const struct exec_handler *h)
{
	return exec_io_start_vec(io, op, EXEC_IO_WRITEV, fd, iov, iovcnt, off,
				 h);
}
EXPORT_SYMBOL_GPL(exec_io_writev);

int exec_io_poll(struct exec_io *io, struct exec_io_op *op, int fd,
		 unsigned int events, const struct exec_handler *h)
{
	return exec_io_start_buf(io, op, EXEC_IO_POLL, fd, NULL, 0, events,
				 0, h);
}
EXPORT_SYMBOL_GPL(exec_io_poll);

int exec_io_close(struct exec_io *io, struct exec_io_op *op, int fd,
		  const struct exec_handler *h)
{
	return exec_io_start_buf(io, op, EXEC_IO_CLOSE, fd, NULL, 0, 0, 0, h);
}
EXPORT_SYMBOL_GPL(exec_io_close);

int exec_io_timeout(struct exec_io *io, struct exec_io_op *op, uint64_t ns,
		    const struct exec_handler *h)
{
	int ret = exec_io_claim(io, op, h);

	if (ret)
		return ret;
	op->opcode = EXEC_IO_TIMEOUT;
	op->fd = -1;
	op->off = ns;
	op->ts[0] = (long long)(ns / NSEC_PER_SEC);
	op->ts[1] = (long long)(ns % NSEC_PER_SEC);
	return exec_io_start(io, op, h);
}
EXPORT_SYMBOL_GPL(exec_io_timeout);

/* Asks for @op's cancellation; @io->lock held.  0 or -EALREADY. */
static int exec_io_cancel_locked(struct exec_io *io, struct exec_io_op *op)
{
	/* Set to QUEUED only under the lock we hold. */
	if (READ_ONCE(op->state) != EXEC_IO_OP_PENDING || op->io != io)
		return -EALREADY;
	if (op->cancel)
		return 0;
	op->cancel = true;
	io->ops->cancel(io, op);
	return 0;
}

int exec_io_cancel(struct exec_io_op *op)
{
	struct exec_io *io;
	int ret;

	if (!op)
		return -EINVAL;
	/*
	 * @io is written by a start before its cmpxchg() to PENDING; an
	 * operation seen IDLE here was never started or has completed.
	 */
	if (smp_load_acquire(&op->state) != EXEC_IO_OP_PENDING)
		return -EALREADY;
	io = READ_ONCE(op->io);
	if (!io)
		return -EALREADY;
	pthread_mutex_lock(&io->lock);
	ret = exec_io_cancel_locked(io, op);
	exec_io_unlock(io);
	return ret;
}
EXPORT_SYMBOL_GPL(exec_io_cancel);

long exec_io_cancel_token(struct exec_io *io, struct exec_cancel_token *tok)
{
	struct exec_io_op *op, *next;
	long n = 0;

	if (!io || !tok)
		return -EINVAL;
	/* Starts after this fail; those before are on the list below. */
	exec_cancel_request(tok);
	pthread_mutex_lock(&io->lock);
	for (op = io->pending; op; op = next) {
		/* The backend may complete @op at once, unlinking it. */
		next = op->next;
		if (op->token == tok && !op->cancel &&
		    !exec_io_cancel_locked(io, op))
			n++;
	}
	exec_io_unlock(io);
	return n;
}
EXPORT_SYMBOL_GPL(exec_io_cancel_token);

void exec_io_batch_begin(struct exec_io *io)
{
	if (!io)
		return;
	if (!exec_io_batch_depth++)
		exec_io_batch_io = io;
}
EXPORT_SYMBOL_GPL(exec_io_batch_begin);

int exec_io_batch_end(struct exec_io *io)
{
	int ret;

	if (!io || !exec_io_batch_depth)
		return 0;
	if (--exec_io_batch_depth)
		return 0;
	/* NULL if the context was destroyed inside the batch. */
	if (exec_io_batch_io != io)
		return 0;
	exec_io_batch_io = NULL;
	if (!exec_io_batch_queued)
		return 0;
	exec_io_batch_queued = false;
	pthread_mutex_lock(&io->lock);
	/* Another start or the thread may have submitted them already. */
	if (io->unsubmitted)
		io->ops->flush(io);
	ret = io->retry ? -EBUSY : 0;
	pthread_mutex_unlock(&io->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(exec_io_batch_end);

/* --- the context's executor -------------------------------------------- */

/* The loop's waker: ends the wait of the context's thread. */
static void exec_io_wake(void *arg)
{
	struct exec_io *io = arg;

	io->ops->wake(io);
}

/**
 * exec_io_thread_begin - the context's thread starts
 * @io: the context
 */
void exec_io_thread_begin(struct exec_io *io)
{
	exec_io_self = io;
}

/**
 * exec_io_thread_end - the context's thread returns
 * @io: the context
 *
 * It runs the items its executor still has: whatever the handlers of the
 * last completions submitted there.
 */
void exec_io_thread_end(struct exec_io *io)
{
	exec_io_run_items(io);
	exec_io_self = NULL;
}

/**
 * exec_io_run_items - run what is queued on the context's executor
 * @io: the context; on its thread, without its lock
 *
 * The items queued when it is called, handlers of the completions just
 * taken among them, and none queued later: the thread looks at the ring
 * again between two such runs.
 */
void exec_io_run_items(struct exec_io *io)
{
	exec_loop_run_queued_closures(io->loop);
}

struct exec_executor *exec_io_executor(struct exec_io *io)
{
	return io ? exec_loop_executor(io->loop) : NULL;
}
EXPORT_SYMBOL_GPL(exec_io_executor);

/* --- the io_uring backend ------------------------------------------------ */

/* Whether the calling thread is @io's own, the one that enters its ring. */
static bool exec_uring_own(const struct exec_io *io)
{
	return exec_io_self == io;
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
	if (exec_io_batching(io)) {
		io->unsubmitted = true;
		exec_io_batch_queued = true;
	} else {
		exec_uring_kick(io);
	}
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

/* A call that exec_io_on_thread() makes on the context's thread. */
struct exec_io_call {
	void (*fn)(struct exec_io *io, void *arg);
	struct exec_io *io;
	void *arg;
	struct exec_latch done;
};

static void exec_io_call_run(void *arg)
{
	struct exec_io_call *call = arg;

	call->fn(call->io, call->arg);
	exec_latch_count_down(&call->done);
}

/*
 * exec_io_on_thread - call @fn(@io, @arg) on @io's thread and wait for it
 *
 * For what the kernel takes only from a ring's single issuer (a
 * registration, IORING_SETUP_SINGLE_ISSUER): on the context's thread
 * itself, at once.  Without the context's lock: the thread takes it
 * before it runs items.  Returns -ENOMEM, having called nothing, if the
 * item cannot be queued.
 */
static int exec_io_on_thread(struct exec_io *io,
			     void (*fn)(struct exec_io *io, void *arg),
			     void *arg)
{
	struct exec_io_call call = { .fn = fn, .io = io, .arg = arg };

	if (exec_io_self == io) {
		fn(io, arg);
		return 0;
	}
	exec_latch_init(&call.done, 1, NULL, NULL, NULL);
	if (exec_post_fn(exec_loop_executor(io->loop), exec_io_call_run,
			 &call))
		return -ENOMEM;
	exec_latch_wait(&call.done, EXEC_TIME_NEVER);
	return 0;
}

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

static const struct exec_io_ops exec_io_uring_ops = {
	.name = "io_uring",
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
	io->ops = &exec_io_uring_ops;
	return 0;
}

/* --- contexts ------------------------------------------------------------ */

int exec_io_create(struct exec_io **iop, const struct exec_io_attr *attr)
{
	struct exec_io_attr def = { 0 };
	unsigned int entries;
	struct exec_io *io;
	int ret;

	if (!iop)
		return -EINVAL;
	*iop = NULL;
	if (!attr)
		attr = &def;
	entries = attr->entries ? attr->entries : EXEC_IO_DEFAULT_ENTRIES;
	if (entries > EXEC_IO_MAX_ENTRIES || (entries & (entries - 1)))
		return -EINVAL;
	io = exec_io_zalloc(sizeof(*io));
	if (!io)
		return -ENOMEM;
	pthread_mutex_init(&io->lock, NULL);
	pthread_cond_init(&io->idle, NULL);
	io->ex = attr->executor;

	/*
	 * io_uring where the parkers use it; the epoll backend where the
	 * process does not (EXEC_BACKEND=futex, or io_uring unavailable), or
	 * if this ring cannot be set up (fd or locked-memory limit).
	 */
	ret = -EOPNOTSUPP;
	if (!attr->force_epoll &&
	    !strcmp(exec_user_wakeup_backend(), "io_uring")) {
		ret = exec_uring_init(io, entries);
		if (ret)
			exec_user_log(EXEC_USER_LOG_INFO,
				      "I/O context on epoll (no io_uring: %s)",
				      strerror(-ret));
	}
	if (ret)
		ret = exec_io_epoll_init(io);
	if (ret)
		goto free;
	ret = exec_loop_create(&io->loop);
	if (ret)
		goto fini_backend;
	exec_loop_set_waker(io->loop, exec_io_wake, io);

	ret = -pthread_create(&io->thread, NULL, io->ops->thread, io);
	if (ret)
		goto destroy_loop;
	/*
	 * A ring of one issuer is enabled by its thread (which a kernel
	 * that set it up does): the creation fails if it could not be.
	 */
	if (io->defer_taskrun) {
		pthread_mutex_lock(&io->lock);
		while (!io->started)
			pthread_cond_wait(&io->idle, &io->lock);
		ret = io->start_ret;
		pthread_mutex_unlock(&io->lock);
		if (ret) {
			pthread_join(io->thread, NULL);
			goto destroy_loop;
		}
	}
	/* Only a name in ps and /proc: a failure does not matter. */
	pthread_setname_np(io->thread, "exec-io");
	*iop = io;
	return 0;
destroy_loop:
	exec_loop_destroy(io->loop);
fini_backend:
	io->ops->fini(io);
free:
	pthread_cond_destroy(&io->idle);
	pthread_mutex_destroy(&io->lock);
	free(io);
	return ret;
}
EXPORT_SYMBOL_GPL(exec_io_create);

long exec_io_shutdown(struct exec_io *io)
{
	struct exec_io_op *op, *next;
	long n = 0;

	if (!io)
		return -EINVAL;
	pthread_mutex_lock(&io->lock);
	io->dying = true;
	for (op = io->pending; op; op = next) {
		/* The backend may complete @op at once, unlinking it. */
		next = op->next;
		if (!op->cancel && !exec_io_cancel_locked(io, op))
			n++;
	}
	exec_io_unlock(io);
	return n;
}
EXPORT_SYMBOL_GPL(exec_io_shutdown);

/**
 * exec_io_busy - whether something keeps a context from being destroyed
 * @io: the context
 *
 * Return: -EBUSY while a serial executor, a work guard or a bound handler
 * uses its executor, or a group of receive buffers is not destroyed (one
 * may be a ring of it); else 0.
 */
int exec_io_busy(struct exec_io *io)
{
	int ret;

	if (exec_executor_check_unused(exec_loop_executor(io->loop)))
		return -EBUSY;
	pthread_mutex_lock(&io->lock);
	ret = io->nr_bufs ? -EBUSY : 0;
	pthread_mutex_unlock(&io->lock);
	return ret;
}

/**
 * exec_io_current - the context whose thread the caller is
 *
 * Return: that context, or NULL on any other thread.
 */
struct exec_io *exec_io_current(void)
{
	return exec_io_self;
}

static void exec_io_nothing(struct exec_io *io, void *arg)
{
}

/**
 * exec_io_settle - let the handlers that have returned finish their run
 * @ios: contexts, none of them the caller's own
 * @nr: how many
 *
 * A handler's unit of outstanding work is released just after it returns,
 * so whoever saw the last handler's effects could still find a context's
 * executor in use.  Its thread runs in order: an item queued now runs
 * after what the thread runs now, the release included.
 */
void exec_io_settle(struct exec_io *const *ios, unsigned int nr)
{
	unsigned int i;

	/* Without memory for the item, the check after says -EBUSY. */
	for (i = 0; i < nr; i++)
		exec_io_on_thread(ios[i], exec_io_nothing, NULL);
}

/**
 * exec_io_used - whether anything depends on a context's executor now
 * @io: the context
 *
 * Return: true if exec_io_busy() could refuse; without its warning.
 */
bool exec_io_used(struct exec_io *io)
{
	return exec_executor_dependents(exec_loop_executor(io->loop));
}

long exec_io_destroy(struct exec_io *io)
{
	long n;

	if (!io)
		return -EINVAL;
	/* Its thread would wait for itself. */
	if (exec_io_self == io)
		return -EDEADLK;
	/* A pool's context goes with its pool (exec_io_pool_destroy()). */
	if (io->pool)
		return -EBUSY;
	if (exec_io_used(io))
		exec_io_settle(&io, 1);
	n = exec_io_busy(io);
	if (n)
		return n;
	return exec_io_teardown(io);
}
EXPORT_SYMBOL_GPL(exec_io_destroy);

/**
 * exec_io_teardown - exec_io_destroy() once nothing keeps @io alive
 * @io: the context, not the caller's own, exec_io_busy() said 0
 *
 * Return: the number of operations exec_io_shutdown() cancelled.
 */
long exec_io_teardown(struct exec_io *io)
{
	long n;

	n = exec_io_shutdown(io);
	if (n < 0)
		return n;
	/* The thread decides the completions of what was cancelled. */
	pthread_mutex_lock(&io->lock);
	while (io->nr_pending || io->nr_multi)
		pthread_cond_wait(&io->idle, &io->lock);
	pthread_mutex_unlock(&io->lock);

	io->ops->stop(io);
	pthread_join(io->thread, NULL);
	/* What came after the thread's last run is discarded. */
	exec_loop_destroy(io->loop);
	io->ops->fini(io);
	/* A batch of this thread on @io ends without touching it. */
	if (exec_io_batch_io == io) {
		exec_io_batch_io = NULL;
		exec_io_batch_queued = false;
	}
	pthread_cond_destroy(&io->idle);
	pthread_mutex_destroy(&io->lock);
	free(io);
	return n;
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

const char *exec_io_backend(const struct exec_io *io)
{
	return io ? io->ops->name : NULL;
}
EXPORT_SYMBOL_GPL(exec_io_backend);

unsigned long exec_io_pending(const struct exec_io *io)
{
	return io ? READ_ONCE(io->nr_pending) : 0;
}
EXPORT_SYMBOL_GPL(exec_io_pending);
