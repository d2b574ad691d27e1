/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The I/O contexts of <exec/io.h>, userspace only: what the front end
 * (user/io/io.c: the public functions, the pending list, completions,
 * multishot results, groups of buffers, batches) shares with the two
 * backends behind struct exec_io_ops, io_uring (user/io/io_uring.c) and
 * epoll (user/io/epoll.c), and with the pools (user/io/pool.c).  A backend
 * reaches the other only through the front end, which picks one per
 * context (exec_io_create()).
 */
#ifndef EXEC_USER_IO_INTERNAL_H
#define EXEC_USER_IO_INTERNAL_H

#include "exec_platform.h"
#include "exec/io.h"
#include "extension.h"

#include <liburing.h>
#include <stdlib.h>

/*
 * The I/O contexts' allocations go through the core's fault point
 * (exec_fault_inject_alloc()), so that the allocation-failure sweep
 * (tests/user/io_test.c) fails each of them in turn.
 */
static inline void *exec_io_zalloc(size_t size)
{
	return exec_fault_alloc() ? NULL : calloc(1, size);
}

static inline void *exec_io_alloc(size_t size)
{
	return exec_fault_alloc() ? NULL : malloc(size);
}

static inline void *exec_io_realloc(void *p, size_t size)
{
	return exec_fault_alloc() ? NULL : realloc(p, size);
}

/* struct exec_io_op::state */
#define EXEC_IO_OP_IDLE		0UL	/* not started, or its handler runs */
#define EXEC_IO_OP_PENDING	1UL	/* started, completion not decided */
#define EXEC_IO_OP_QUEUED	2UL	/* completion decided, handler queued */

/* struct exec_io_op::opcode */
enum {
	EXEC_IO_ACCEPT,
	EXEC_IO_CONNECT,
	EXEC_IO_RECV,
	EXEC_IO_SEND,
	EXEC_IO_READ,
	EXEC_IO_WRITE,
	EXEC_IO_READV,
	EXEC_IO_WRITEV,
	EXEC_IO_POLL,
	EXEC_IO_CLOSE,
	EXEC_IO_TIMEOUT,
	EXEC_IO_ACCEPT_MULTI,
	EXEC_IO_RECV_BUF,
	EXEC_IO_RECV_MULTI,
};

/**
 * struct exec_io_bufs - a group of receive buffers (exec_io_bufs_create())
 * @io: its context
 * @base: the buffers, @count of @size bytes each
 * @count: a power of two
 * @size: of one buffer
 * @lock: guards the fields marked B
 * @free: B: ids of the buffers the context may pick (all but the io_uring
 *	ring's), @nr_free of them
 * @nr_free: B: their number
 * @out: B: buffers filled and not yet given back
 * @br: the io_uring provided-buffer ring the kernel picks from, or NULL
 *	(then the context picks from @free); its tail under @lock
 * @bgid: the ring's buffer group
 * @users: L(io): receives with the group that are pending
 * @queued: L(io): per buffer, while a multishot receive has it queued for
 *	its handler: the bytes in it and the next buffer in that queue (-1
 *	for none); a buffer is in one queue at most, so the group's array
 *	holds every queue of its receives, and queueing allocates nothing
 */
struct exec_io_bufs {
	struct exec_io *io;
	char *base;
	unsigned int count;
	unsigned int size;
	pthread_mutex_t lock;
	unsigned short *free;
	unsigned int nr_free;
	unsigned int out;
	struct io_uring_buf_ring *br;
	unsigned short bgid;
	unsigned long users;
	struct exec_io_queued {
		int next;
		unsigned int len;
	} *queued;
};

int exec_io_bufs_take(struct exec_io_bufs *bufs);
void exec_io_bufs_give(struct exec_io_bufs *bufs, int bid);

/* The address of buffer @bid of @bufs. */
static inline void *exec_io_bufs_addr(const struct exec_io_bufs *bufs,
				      int bid)
{
	return bufs->base + (size_t)bid * bufs->size;
}

/**
 * struct exec_io_multi_res - one result a multishot operation delivers
 * @res: an accepted socket, or a byte count
 * @buf: the buffer of a group that holds the bytes; NULL for a socket
 */
struct exec_io_multi_res {
	long res;
	void *buf;
};

/**
 * struct exec_io_multi - what a multishot operation has to deliver
 * @q: L: an accept's sockets not yet handed to the handler, a ring of
 *	@cap entries from @head
 * @head: L: the oldest
 * @cap: L: the ring's size, doubled when full
 * @first: L: a receive's oldest buffer not yet handed to the handler,
 *	queued through its group's @queued array
 * @last: L: its newest
 * @count: L: how many results are queued
 * @bufs: a receive's group of buffers; NULL for an accept
 * @armed: a receive's buffer that the context picked for its next try
 *	(a group without an io_uring ring, or epoll); L, or the trying
 *	thread's while the operation waits on no list
 * @polling: L: io_uring backend without a ring: no buffer was free at the
 *	last start, which waits for data with a poll instead of a receive
 * @running: L: the operation's item is queued or running; whoever sets it
 *	queues the item, the item clears it when it finds nothing to do
 * @ended: L: no more results will come; @final is the last call's result
 * @final: L: the last call's result: -ECANCELED or the error that ended
 *	it, 0 at a receive's end of stream
 * @armed_any: L: the kernel gave a result: a later -EINVAL is not the
 *	kernel lacking the multishot operation
 *
 * Allocated by the start, freed before the last call of the handler.
 */
struct exec_io_multi {
	struct exec_io_multi_res *q;
	unsigned int head;
	unsigned int cap;
	int first;
	int last;
	unsigned int count;
	struct exec_io_bufs *bufs;
	void *armed;
	bool polling;
	bool running;
	bool ended;
	long final;
	bool armed_any;
};

/* Whether @op is multishot: pending until its handler's last call. */
static inline bool exec_io_op_multi(const struct exec_io_op *op)
{
	return op->opcode == EXEC_IO_ACCEPT_MULTI ||
	       op->opcode == EXEC_IO_RECV_MULTI;
}

/* The group of buffers that @op receives into, or NULL. */
static inline struct exec_io_bufs *exec_io_op_bufs(const struct exec_io_op *op)
{
	if (op->opcode == EXEC_IO_RECV_BUF)
		return op->backend[2];
	if (op->opcode == EXEC_IO_RECV_MULTI)
		return ((struct exec_io_multi *)op->backend[2])->bufs;
	return NULL;
}

struct exec_io_epoll;

/**
 * struct exec_io_ops - a backend
 * @name: "io_uring" or "epoll"
 * @init: set the backend up for a new context, whose SQ (if it has one)
 *	has @entries entries; nothing else of the context runs yet.
 *	Return: 0, or a negative errno (then nothing is left to undo).
 * @started: wait until the context's thread, just created, has done what
 *	it sets up for itself; NULL if it sets nothing up.  Return: 0, or
 *	the error, after which the thread returns and the creation fails.
 * @start: start @op, whose state is PENDING and which is on the pending
 *	list; called with the context's lock held.  Return: 0, or a negative
 *	errno if nothing was started (the caller undoes the rest).
 * @cancel: ask for @op's cancellation; @op is PENDING and @op->cancel was
 *	just set; the lock is held
 * @flush: submit what batches left queued; the lock is held
 * @thread: the context's thread
 * @wake: end the thread's wait (for an item of the context's executor);
 *	any thread, no lock
 * @bufs_init: set a new group of receive buffers up for the backend (the
 *	io_uring ring), without the lock; NULL when the context picks
 * @bufs_fini: undo @bufs_init, without the lock, for a group with a ring
 * @stop: make the thread return; nothing is pending any more; no lock
 * @fini: free the backend's resources, after the thread has returned
 */
struct exec_io_ops {
	const char *name;
	int (*init)(struct exec_io *io, unsigned int entries);
	int (*started)(struct exec_io *io);
	int (*start)(struct exec_io *io, struct exec_io_op *op);
	void (*cancel)(struct exec_io *io, struct exec_io_op *op);
	void (*flush)(struct exec_io *io);
	void *(*thread)(void *arg);
	void (*wake)(struct exec_io *io);
	int (*bufs_init)(struct exec_io *io, struct exec_io_bufs *bufs);
	void (*bufs_fini)(struct exec_io *io, struct exec_io_bufs *bufs);
	void (*stop)(struct exec_io *io);
	void (*fini)(struct exec_io *io);
};

/**
 * struct exec_io - an I/O context
 * @lock: guards the fields marked L, the io_uring SQ and the epoll
 *	backend's descriptor table
 * @idle: signalled under @lock when @nr_pending falls to 0 while @dying
 * @ops: the backend; set at creation
 * @ex: where handlers without an executor run; set at creation
 * @pending: L: the pending operations (state PENDING), doubly linked
 * @nr_pending: L: their number; read without the lock by
 *	exec_io_pending() (READ_ONCE)
 * @done: L: operations completed under the lock, whose handlers
 *	exec_io_unlock() queues once it has dropped it; linked through
 *	their items' exec_work::next (a multishot accept is queued while it
 *	stays on @pending)
 * @done_tail: L: the last of them
 * @nr_multi: L: multishot operations whose last handler call has not
 *	begun; exec_io_destroy() waits for them too
 * @dying: L: exec_io_destroy() has begun; starts fail with -ESHUTDOWN
 * @unsubmitted: L: SQEs are queued that no io_uring_enter() took yet,
 *	submitted by the thread before it next waits
 * @retry: L: the kernel refused the last submission; the thread submits
 *	again after its next completion
 * @deferred: L: io_uring backend: operations whose start or cancellation
 *	a thread other than the context's own asked for, which the context's
 *	thread carries out (FIFO, linked through @backend[0], what to do in
 *	@backend[1])
 * @deferred_tail: L: the last of them
 * @sleeping: L: io_uring backend: the thread waits for a CQE, or is about
 *	to; whoever defers work to it wakes it (exec_uring_wake())
 * @stopping: L: io_uring backend: exec_io_destroy() tells the thread to
 *	return
 * @nr_bufs: L: groups of receive buffers not yet destroyed
 * @next_bgid: L: io_uring backend: the buffer group of the next ring
 * @no_multishot: L: the kernel refused a multishot accept (before 5.19):
 *	multishot accepts re-arm single accepts instead
 * @no_recv_multishot: L: the kernel refused a multishot receive (before
 *	6.0): multishot receives re-arm single receives instead
 * @defer_taskrun: io_uring backend: the ring has one issuer, the thread,
 *	and its completions are task work that the thread runs when it asks
 *	for events (IORING_SETUP_DEFER_TASKRUN, 6.1); set at creation
 * @started: L: the thread has enabled such a ring, or failed to
 * @start_ret: L: then, 0 or the error
 * @thread: the context's thread
 * @loop: the context's executor (exec_io_executor()): a loop executor
 *	whose items the thread runs between its waits (exec_io_run_items())
 * @ring: io_uring backend: the ring, which only the context's thread
 *	enters: it fills the SQ under @lock, submits it and reaps the CQ
 * @ep: epoll backend: its state
 * @pool: the pool that owns the context (user/io/pool.c), or NULL; set
 *	before the pool is returned to its creator, which is before anything
 *	can read it, and never changed
 */
struct exec_io {
	pthread_mutex_t lock;
	pthread_cond_t idle;
	const struct exec_io_ops *ops;
	struct exec_executor *ex;
	struct exec_io_op *pending;
	unsigned long nr_pending;
	struct exec_io_op *done;
	struct exec_io_op *done_tail;
	unsigned long nr_multi;
	bool dying;
	bool unsubmitted;
	bool retry;
	struct exec_io_op *deferred;
	struct exec_io_op *deferred_tail;
	bool sleeping;
	bool stopping;
	unsigned long nr_bufs;
	unsigned short next_bgid;
	bool no_multishot;
	bool no_recv_multishot;
	bool defer_taskrun;
	bool started;
	int start_ret;
	pthread_t thread;
	struct exec_loop *loop;
	struct io_uring ring;
	struct exec_io_epoll *ep;
	struct exec_io_pool *pool;
};

/* The backends: user/io/io_uring.c, user/io/epoll.c. */
extern const struct exec_io_ops exec_io_uring_ops;
extern const struct exec_io_ops exec_io_epoll_ops;

/*
 * The calling thread's state (user/io/io.c): @exec_io_self, the context
 * whose thread it is, if any; and its batch of starts
 * (exec_io_batch_begin()): its context, how deep it is nested, and
 * whether it left SQEs to submit.  Only then does its end touch the
 * context: a handler that started nothing on it lets its owner destroy it
 * as soon as the handler's effects are seen.  Hidden: the library's own.
 */
extern __thread struct exec_io *exec_io_self
	__attribute__((visibility("hidden")));
extern __thread struct exec_io *exec_io_batch_io
	__attribute__((visibility("hidden")));
extern __thread unsigned int exec_io_batch_depth
	__attribute__((visibility("hidden")));
extern __thread bool exec_io_batch_queued
	__attribute__((visibility("hidden")));

/* The context whose thread the caller is, or NULL on any other thread. */
static inline struct exec_io *exec_io_current(void)
{
	return exec_io_self;
}

/* Whether the calling thread batches starts on @io. */
static inline bool exec_io_batching(const struct exec_io *io)
{
	return exec_io_batch_io == io && exec_io_batch_depth;
}

/*
 * If the calling thread batches starts on @io, notes that the batch's end
 * must flush @io's backend (exec_io_batch_end()), and returns true.
 */
static inline bool exec_io_batch_defer(const struct exec_io *io)
{
	if (!exec_io_batching(io))
		return false;
	exec_io_batch_queued = true;
	return true;
}

int exec_io_on_thread(struct exec_io *io,
		      void (*fn)(struct exec_io *io, void *arg), void *arg);
void exec_io_complete(struct exec_io *io, struct exec_io_op *op, long res);
void exec_io_complete_locked(struct exec_io *io, struct exec_io_op *op,
			     long res);
void exec_io_unlock(struct exec_io *io);
void exec_io_multi_push_locked(struct exec_io *io, struct exec_io_op *op,
			       long res, void *buf);
void exec_io_multi_end_locked(struct exec_io *io, struct exec_io_op *op,
			      long res);
void exec_io_test_wait_asleep(struct exec_io *io);
void exec_io_test_set_no_buf_ring(bool on);
void exec_io_test_set_no_defer_taskrun(bool on);
void exec_io_thread_begin(struct exec_io *io);
void exec_io_thread_end(struct exec_io *io);
void exec_io_run_items(struct exec_io *io);
int exec_io_busy(struct exec_io *io);
bool exec_io_used(struct exec_io *io);
void exec_io_settle(struct exec_io *const *ios, unsigned int nr);
long exec_io_teardown(struct exec_io *io);

#endif /* EXEC_USER_IO_INTERNAL_H */
