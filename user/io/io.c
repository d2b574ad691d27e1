// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Asynchronous I/O operations (<exec/io.h>), userspace only: the public
 * functions and what the two backends share, which they reach through
 * struct exec_io_ops (user/io/io_internal.h): io_uring (user/io/io_uring.c)
 * and epoll (user/io/epoll.c).  A context owns one thread, which waits for
 * completions in its backend; the pending operations are a list under the
 * context's lock, and each operation's handler runs from its own work
 * item, queued on the handler's executor.
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
 * may start it again).  A cancellation asks the backend (@cancel of
 * struct exec_io_ops), which ends the operation as any other: with
 * -ECANCELED, or with its result if that came first.
 *
 * Outstanding work.  A start counts one unit on the handler's executor
 * (exec_on_work_started()); the item that runs the handler releases it
 * after the handler has returned, so a loop scheduler's run() does not see
 * 0 between an operation and the one its handler starts.
 */
#include "io_internal.h"

#include <poll.h>
#include <unistd.h>

#define EXEC_IO_DEFAULT_ENTRIES	256U
#define EXEC_IO_MAX_ENTRIES	4096U

/* The calling thread's state, io_internal.h's. */
__thread struct exec_io *exec_io_self;
__thread struct exec_io *exec_io_batch_io;
__thread unsigned int exec_io_batch_depth;
__thread bool exec_io_batch_queued;

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

/**
 * exec_io_multi_end_locked - end a multishot operation
 * @io: the context; its lock held
 * @op: the operation, PENDING
 * @res: how it ended
 *
 * Its last call follows the queued results, with @res if that is an error
 * or a receive's end of stream (0), else with -ECANCELED.
 */
void exec_io_multi_end_locked(struct exec_io *io, struct exec_io_op *op,
			      long res)
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

/**
 * exec_io_on_thread - call @fn(@io, @arg) on @io's thread and wait for it
 * @io: the context
 * @fn: what to call
 * @arg: its argument
 *
 * For what the kernel takes only from a ring's single issuer (a
 * registration, IORING_SETUP_SINGLE_ISSUER): on the context's thread
 * itself, at once.  Without the context's lock: the thread takes it
 * before it runs items.
 *
 * Return: 0; -ENOMEM, having called nothing, if the item cannot be queued.
 */
int exec_io_on_thread(struct exec_io *io,
		      void (*fn)(struct exec_io *io, void *arg), void *arg)
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

/* --- contexts ------------------------------------------------------------ */

/* Sets @ops up for @io, which then uses it; 0 or a negative errno. */
static int exec_io_backend_init(struct exec_io *io,
				const struct exec_io_ops *ops,
				unsigned int entries)
{
	int ret = ops->init(io, entries);

	if (!ret)
		io->ops = ops;
	return ret;
}

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
		ret = exec_io_backend_init(io, &exec_io_uring_ops, entries);
		if (ret)
			exec_user_log(EXEC_USER_LOG_INFO,
				      "I/O context on epoll (no io_uring: %s)",
				      strerror(-ret));
	}
	if (ret)
		ret = exec_io_backend_init(io, &exec_io_epoll_ops, entries);
	if (ret)
		goto free;
	ret = exec_loop_create(&io->loop);
	if (ret)
		goto fini_backend;
	exec_loop_set_waker(io->loop, exec_io_wake, io);

	ret = -pthread_create(&io->thread, NULL, io->ops->thread, io);
	if (ret)
		goto destroy_loop;
	/* What the thread sets up for itself may fail: so does the creation. */
	ret = io->ops->started ? io->ops->started(io) : 0;
	if (ret) {
		pthread_join(io->thread, NULL);
		goto destroy_loop;
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
