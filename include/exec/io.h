/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Asynchronous I/O operations (P0113 "executors and asynchronous
 * operations"), userspace only: libexec-user has it, the kernel module does
 * not.  Not included by exec.h; include it explicitly.
 *
 * An I/O context (struct exec_io) runs operations on file descriptors:
 * accept, connect, recv, send, read, write, readv, writev, poll, close, and
 * a timeout.  An operation is started from any thread and completes by
 * running its handler (struct exec_handler, future.h) on the handler's
 * associated executor, bound with exec_bind_executor(), or on the context's
 * executor when none is bound.  The handler gets the result: a byte count
 * (or the new fd, the poll events, 0) or a negative errno value.
 *
 * Every operation completes exactly once.  While it is pending it counts
 * as one unit of outstanding work (executor.h) on the executor its handler
 * will run on, so a loop scheduler's run() does not return, and
 * exec_thread_pool_join() does not finish, while I/O is pending; a handler
 * bound to a serial or priority executor or a managed queue holds the
 * pool or scheduler beneath it so, through its unit.  The unit is released
 * after the handler returns.
 *
 * Cancellation: exec_io_cancel() cancels one operation, and
 * exec_io_cancel_token() every pending operation started with that
 * cancellation token (exec_io_op_set_token()).  An operation that the
 * cancellation catches completes with -ECANCELED; one that had already
 * finished completes with its result; it completes once either way.
 *
 * Backends: io_uring (one ring per context), or, where the library does not
 * use io_uring (exec_user_wakeup_backend() says "futex": forced by
 * EXEC_BACKEND=futex, or io_uring probed unavailable), epoll and
 * non-blocking system calls.  Both have the same API and behaviour; the
 * epoll backend puts a descriptor that it has to wait for in non-blocking
 * mode (O_NONBLOCK), and runs reads and writes of regular files at once, in
 * the thread that starts them.
 *
 * Operations are intrusive: the caller owns each struct exec_io_op and
 * keeps it alive, with the buffers and addresses passed to it, until its
 * handler has been called.  Starting one allocates nothing, but for the
 * epoll backend's entry for a descriptor, made the first time an operation
 * waits for it: without memory for it, the operation completes with
 * -ENOMEM.  An operation may be started again from its own handler.
 *
 * Errors of the start functions (the handler is not called then):
 *   -EINVAL     a NULL context, operation or handler function, a bad fd
 *   -EALREADY   the operation is already pending
 *   -ESHUTDOWN  the context is being destroyed
 *   -ECANCELED  its cancellation token was already requested
 *   -EBUSY      the kernel refused the submission for now (retry later)
 */
#ifndef EXEC_IO_H
#define EXEC_IO_H

#ifdef __KERNEL__
#error "exec/io.h is for userspace (libexec-user) only"
#endif

#include <sys/socket.h>
#include <sys/uio.h>

#include "types.h"
#include "executor.h"
#include "future.h"
#include "group.h"

EXEC_BEGIN_DECLS

struct exec_io;
struct exec_io_bufs;
struct exec_io_pool;

/**
 * struct exec_io_attr - how to create an I/O context
 * @executor: where handlers without an associated executor run; NULL for
 *	exec_default_executor()
 * @entries: submission queue size of the io_uring backend, a power of two
 *	up to 4096; 0 for 256.  More operations than this may be pending.
 * @force_epoll: use the epoll backend even when io_uring is available
 */
struct exec_io_attr {
	struct exec_executor *executor;
	unsigned int entries;
	bool force_epoll;
};

/**
 * struct exec_io_op - one asynchronous operation, owned by the caller
 * @work: private: the item that runs the handler on its executor
 * @handler: private: a copy of the handler given at start
 * @ex: private: the executor the handler runs on
 * @io: private: the context it was last started on
 * @token: the cancellation token of exec_io_op_set_token(), or NULL
 * @state: private: A: EXEC_IO_OP_* state, changed with cmpxchg()
 * @result: private: the result, written before the handler is queued
 * @prev: private: link in the context's pending list, under its lock
 * @next: private: as @prev
 * @opcode: private: what the operation does
 * @fd: private: its file descriptor
 * @flags: private: its flags (MSG_*, poll events)
 * @buf: private: its buffer, iovec array or address
 * @len: private: its length, iovec count or address length
 * @off: private: its file offset, or (u64)-1 for the current position
 * @ts: private: a timeout's duration, as the kernel reads it
 * @cancel: private: cancellation was asked for, under the context's lock
 * @backend: private: the backend's own state of the operation
 *
 * Initialise with exec_io_op_init() before first use.
 */
struct exec_io_op {
	struct exec_work work;
	struct exec_handler handler;
	struct exec_executor *ex;
	struct exec_io *io;
	struct exec_cancel_token *token;
	unsigned long state;
	long result;
	struct exec_io_op *prev;
	struct exec_io_op *next;
	int opcode;
	int fd;
	unsigned int flags;
	void *buf;
	size_t len;
	uint64_t off;
	long long ts[2];
	bool cancel;
	void *backend[3];
};

/**
 * exec_io_op_init - initialise an operation
 * @op: the operation; must not be pending
 *
 * Context: Any context.
 */
void exec_io_op_init(struct exec_io_op *op);

/**
 * exec_io_op_set_token - start the operation's next runs with a token
 * @op: the operation; must not be pending
 * @tok: the cancellation token, or NULL for none
 *
 * A start with a token that is already requested fails with -ECANCELED;
 * exec_io_cancel_token() cancels the pending operations that carry it.
 *
 * Context: Any context.
 */
void exec_io_op_set_token(struct exec_io_op *op, struct exec_cancel_token *tok);

/**
 * exec_io_create - create an I/O context
 * @io: where to store the context
 * @attr: its attributes, or NULL for the defaults
 *
 * Starts one thread, which waits for completions and queues their
 * handlers on their executors; handlers never run on it.
 *
 * Context: Process context; may sleep.
 * Return: 0; -EINVAL for a NULL @io or bad @attr; -ENOMEM; the error of
 * io_uring_setup() or epoll_create1(); -EAGAIN if no thread could be
 * started.
 */
int exec_io_create(struct exec_io **io, const struct exec_io_attr *attr);

/**
 * exec_io_executor - the executor whose items run on a context's thread
 * @io: the context
 *
 * Items submitted to it run on the context's own thread, in submission
 * order, between its waits for completions (a loop executor that the
 * thread drives).  A handler bound to it (exec_bind_executor()) runs on
 * the thread that took its completion, which wakes no other thread: the
 * way to serve connections without a hop between threads, as each thread
 * of examples/httpd.c does for its own connections, whose handlers then
 * never run at once.  Items must not block: they hold up every completion
 * of the context.  Timed items (exec_submit_after()) are handed to it by
 * the library's clock event thread.  Like a loop executor's (loop.h), it
 * keeps no count of outstanding work: the thread runs until
 * exec_io_destroy(), which waits for the pending operations itself.
 *
 * Context: Any context.
 * Return: the executor, valid until exec_io_destroy(); NULL for NULL.
 */
struct exec_executor *exec_io_executor(struct exec_io *io);

/**
 * exec_io_shutdown - refuse new operations and cancel the pending ones
 * @io: the context
 *
 * Starts fail with -ESHUTDOWN from then on.  Every pending operation is
 * cancelled as by exec_io_cancel(); the context keeps working until each
 * has completed.  A second call only cancels what is still pending.
 *
 * Context: Any context that may take a mutex.
 * Return: the number of operations whose cancellation was asked for;
 * -EINVAL for NULL.
 */
long exec_io_shutdown(struct exec_io *io);

/**
 * exec_io_destroy - shut a context down, wait for its operations, free it
 * @io: the context
 *
 * exec_io_shutdown(), then waits until every pending operation has been
 * handed to its executor (the handlers may run later, with -ECANCELED or
 * with their result), then stops the thread, which first runs what
 * exec_io_executor() has queued, and frees @io.  Items submitted to that
 * executor after that last run are discarded (their discard callbacks
 * run).
 *
 * A handler's unit of outstanding work is released just after it
 * returns; a destroy that finds the executor in use first waits for the
 * context's thread to finish what it runs now, so that whoever saw a
 * handler's effects may destroy at once.
 *
 * Context: Process context; may sleep; not on the context's own thread.
 * Nothing may start operations on @io meanwhile or later, handlers
 * included.
 * Return: the number of operations that exec_io_shutdown() cancelled;
 * -EBUSY, doing nothing, while something still uses exec_io_executor()
 * (a serial executor over it, a work guard); -EDEADLK on the context's
 * own thread; -EBUSY for a context of a pool (exec_io_pool_destroy());
 * -EINVAL for NULL.
 */
long exec_io_destroy(struct exec_io *io);

/**
 * exec_io_pool_create - a pool of I/O contexts, with one executor over them
 * @poolp: where the pool is returned; NULL on failure
 * @nr: contexts, each with its thread and its ring (or epoll set); 0 for
 *	one per online CPU; at most 1024
 * @attr: how each context is created (exec_io_create()), or NULL for the
 *	defaults
 *
 * The pool's executor (exec_io_pool_executor()) is a thread pool whose
 * workers are the contexts' threads, each asleep in its own ring between
 * turns.  A completion wakes the thread that took it, and a handler bound
 * to the pool's executor runs on that same thread, with the items it
 * runs before it next waits: no other thread is woken, nothing moves
 * between threads.  Start each operation on exec_io_pool_context().
 *
 * Context: Process context; may sleep.
 * Return: 0; -EINVAL for a NULL @poolp, @nr above 1024 or bad @attr;
 * -ENOMEM; an error of exec_io_create().
 */
int exec_io_pool_create(struct exec_io_pool **poolp, unsigned int nr,
			const struct exec_io_attr *attr);

/**
 * exec_io_pool_executor - the executor of a pool of I/O contexts
 * @pool: the pool
 *
 * An item submitted on one of the pool's threads runs on that thread, in
 * submission order with the others it queued there; one submitted from
 * anywhere else goes to the contexts in turn.  A queued item never moves
 * to another thread, so an item that runs long holds up its own thread's
 * completions and items only; items must not block.  Timed items
 * (exec_submit_after()) go to the contexts in turn when they come due.
 * It keeps no count of outstanding work, nor do the contexts it is built
 * on (exec_io_executor(), loops their threads run until their destroy):
 * nothing of them ends for lack of work.
 *
 * Context: Any context.
 * Return: the executor, valid until exec_io_pool_destroy(); NULL for NULL.
 */
struct exec_executor *exec_io_pool_executor(struct exec_io_pool *pool);

/**
 * exec_io_pool_context - the context to start an operation on
 * @pool: the pool
 *
 * On one of the pool's threads, that thread's own context: the
 * completion comes back to the thread that started the operation, which
 * is where the connection's state is warm.  Elsewhere, the contexts in
 * turn.  The context belongs to the pool: exec_io_destroy() refuses it.
 *
 * Context: Any context.
 * Return: the context; NULL for NULL.
 */
struct exec_io *exec_io_pool_context(struct exec_io_pool *pool);

/**
 * exec_io_pool_size - how many contexts a pool has
 * @pool: the pool
 *
 * Context: Any context.
 * Return: the number; 0 for NULL.
 */
unsigned int exec_io_pool_size(const struct exec_io_pool *pool);

/**
 * exec_io_pool_get - one context of a pool
 * @pool: the pool
 * @i: its index, below exec_io_pool_size()
 *
 * Context: Any context.
 * Return: the context; NULL for NULL or an index out of range.
 */
struct exec_io *exec_io_pool_get(struct exec_io_pool *pool, unsigned int i);

/**
 * exec_io_pool_cancel_token - exec_io_cancel_token() on every context
 * @pool: the pool
 * @tok: the token
 *
 * Context: Any context that may take a mutex.
 * Return: the number of operations whose cancellation was asked for;
 * -EINVAL for NULL.
 */
long exec_io_pool_cancel_token(struct exec_io_pool *pool,
			       struct exec_cancel_token *tok);

/**
 * exec_io_pool_pending - how many operations of a pool are pending
 * @pool: the pool
 *
 * Context: Any context; the answer may be stale.
 * Return: the sum of exec_io_pending() over its contexts; 0 for NULL.
 */
unsigned long exec_io_pool_pending(const struct exec_io_pool *pool);

/**
 * exec_io_pool_destroy - shut every context of a pool down and free it
 * @pool: the pool
 *
 * Discards the timed items armed on its executor, cancels the pending
 * operations of every context at once, then destroys each context as
 * exec_io_destroy() does, and frees @pool.  As there, the units of
 * outstanding work of handlers that have returned are waited for.
 *
 * Context: Process context; may sleep; not on one of the pool's threads.
 * Nothing outside the pool's threads may start operations on its
 * contexts or submit to its executor meanwhile or later.
 * Return: the number of operations cancelled plus timed items discarded;
 * -EBUSY, doing nothing, while something uses its executor or one of its
 * contexts' (a serial executor, a work guard, a bound handler) or a group
 * of receive buffers of a context is not destroyed; -EDEADLK on one of
 * its threads; -EINVAL for NULL.
 */
long exec_io_pool_destroy(struct exec_io_pool *pool);

/**
 * exec_io_backend - the backend of a context
 * @io: the context
 *
 * Context: Any context.
 * Return: "io_uring" or "epoll", a static string; NULL for NULL.
 */
const char *exec_io_backend(const struct exec_io *io);

/**
 * exec_io_pending - how many operations of a context are pending
 * @io: the context
 *
 * Context: Any context; the answer may be stale.
 * Return: started operations whose completion has not been queued yet; 0
 * for NULL.
 */
unsigned long exec_io_pending(const struct exec_io *io);

/**
 * exec_io_accept - accept one connection
 * @io: the context
 * @op: the operation
 * @fd: a listening socket
 * @h: the handler; called with the new socket (close-on-exec) or an error
 *
 * Context: Any context that may take a mutex.
 * Return: 0 if started; an error of the top of this file.
 */
int exec_io_accept(struct exec_io *io, struct exec_io_op *op, int fd,
		   const struct exec_handler *h);

/**
 * exec_io_accept_multishot - accept connections until cancelled
 * @io: the context
 * @op: the operation
 * @fd: a listening socket
 * @h: the handler; called with each new socket (close-on-exec), in order,
 *	one call at a time, while the operation stays pending; then once with
 *	a negative errno: -ECANCELED after exec_io_cancel() (or a token, or
 *	exec_io_shutdown()), or the error that ended it.  Only that last call
 *	makes the operation idle again.
 *
 * One multishot accept on io_uring where the kernel has it (5.19), else
 * an accept re-armed after each connection; on epoll, the listening
 * socket stays registered.  The operation is one unit of outstanding work
 * until its last call returns.  Allocates a small queue of sockets for the
 * operation (grown while the handler falls behind).
 *
 * Context: Any context that may take a mutex.
 * Return: 0 if started; -ENOMEM; an error of the top of this file.
 */
int exec_io_accept_multishot(struct exec_io *io, struct exec_io_op *op,
			     int fd, const struct exec_handler *h);

/**
 * exec_io_connect - connect a socket
 * @io: the context
 * @op: the operation
 * @fd: the socket
 * @addr: the address; kept by the caller until the handler runs
 * @addrlen: its length
 * @h: the handler; called with 0 or an error
 *
 * Context: Any context that may take a mutex.
 * Return: 0 if started; an error of the top of this file.
 */
int exec_io_connect(struct exec_io *io, struct exec_io_op *op, int fd,
		    const struct sockaddr *addr, socklen_t addrlen,
		    const struct exec_handler *h);

/**
 * exec_io_recv - receive from a socket
 * @io: the context
 * @op: the operation
 * @fd: the socket
 * @buf: where to receive
 * @len: its size
 * @flags: MSG_* flags of recv(2)
 * @h: the handler; called with the bytes received (0 at end of stream) or
 *	an error
 *
 * Context: Any context that may take a mutex.
 * Return: 0 if started; an error of the top of this file.
 */
int exec_io_recv(struct exec_io *io, struct exec_io_op *op, int fd,
		 void *buf, size_t len, int flags,
		 const struct exec_handler *h);

/**
 * exec_io_bufs_create - a group of receive buffers, picked as data comes
 * @io: the context whose receives pick from it (exec_io_recv_buf())
 * @bufsp: set to the group
 * @count: how many buffers, a power of two from 1 to 32768
 * @size: the size of each, 1 to 16 MiB
 *
 * A receive started with a group holds no buffer while it waits: the
 * buffer is picked when data comes, so that many idle connections need no
 * memory of their own.  On io_uring the group is a provided-buffer ring
 * (Linux 5.19) from which the kernel picks; where the kernel has none, the
 * context picks one as the receive starts.  On epoll, the context picks
 * one when the socket is readable.
 *
 * Context: Process context; may sleep: the io_uring ring is registered
 * by the context's thread (the ring's only issuer), which the caller
 * waits for unless it is that thread.
 * Return: 0; -EINVAL for NULL or an impossible @count or @size;
 * -ENOMEM; -ESHUTDOWN after exec_io_shutdown().
 */
int exec_io_bufs_create(struct exec_io *io, struct exec_io_bufs **bufsp,
			unsigned int count, unsigned int size);

/**
 * exec_io_bufs_destroy - free a group of receive buffers
 * @bufs: the group
 *
 * Context: Process context; may sleep: as exec_io_bufs_create(), the
 * context's thread removes the ring.
 * Return: 0; -EBUSY, doing nothing, while a receive with @bufs is pending
 * or a buffer has not been given back (exec_io_buf_put()); -EINVAL for
 * NULL.
 */
int exec_io_bufs_destroy(struct exec_io_bufs *bufs);

/**
 * exec_io_recv_buf - receive from a socket into a buffer of a group
 * @io: the context
 * @op: the operation
 * @fd: the socket
 * @bufs: the group, of @io
 * @flags: MSG_* flags of recv(2)
 * @h: the handler; called with the bytes received, in the buffer
 *	exec_io_op_buf() names, which is the caller's until exec_io_buf_put();
 *	0 at end of stream, -ENOBUFS if every buffer was taken when data
 *	came, or another error, all three with no buffer
 *
 * Context: Any context that may take a mutex.
 * Return: 0 if started; an error of the top of this file (-EINVAL also
 * for a group of another context; -ENOBUFS where the context picks the
 * buffer as the receive starts and none is free: then a start from
 * another thread than the context's completes with it instead).
 */
int exec_io_recv_buf(struct exec_io *io, struct exec_io_op *op, int fd,
		     struct exec_io_bufs *bufs, int flags,
		     const struct exec_handler *h);

/**
 * exec_io_recv_multishot - receive from a socket until the stream ends
 * @io: the context
 * @op: the operation
 * @fd: the socket
 * @bufs: the group, of @io, that each piece of data is received into
 * @flags: MSG_* flags of recv(2); not MSG_WAITALL
 * @h: the handler; called with each piece's byte count, in order, one
 *	call at a time, while the operation stays pending: during the call
 *	exec_io_op_buf() names the buffer that holds it, which is the
 *	caller's until exec_io_buf_put().  Then once with no buffer: 0 at end
 *	of stream, -ENOBUFS if every buffer was taken when data came,
 *	-ECANCELED after exec_io_cancel() (or a token, or exec_io_shutdown()),
 *	or the error that ended it.  Only that last call makes the operation
 *	idle again; data received before it is handed over first.
 *
 * One submission for the whole stream where the kernel has multishot
 * receives into provided-buffer rings (6.0): nothing is submitted per
 * piece of data.  Elsewhere a receive into the group is started again
 * after each piece; on epoll, the socket stays registered.  The operation
 * is one unit of outstanding work until its last call returns.  Allocates
 * a few bytes at the start; pieces wait for the handler in their buffers,
 * with nothing allocated, so that no data is ever dropped.
 *
 * Context: Any context that may take a mutex.
 * Return: 0 if started; -ENOMEM; an error of the top of this file (-EINVAL
 * also for a group of another context or MSG_WAITALL).
 */
int exec_io_recv_multishot(struct exec_io *io, struct exec_io_op *op, int fd,
			   struct exec_io_bufs *bufs, int flags,
			   const struct exec_handler *h);

/**
 * exec_io_op_buf - the buffer that an operation's last completion filled
 * @op: an operation of exec_io_recv_buf(), in or after its handler, or of
 *	exec_io_recv_multishot(), in its handler
 *
 * Context: Any context.
 * Return: the buffer, or NULL if the completion brought none (or @op is
 * not a receive into a group).
 */
void *exec_io_op_buf(const struct exec_io_op *op);

/**
 * exec_io_buf_put - give a buffer back to its group
 * @bufs: the group
 * @buf: a buffer that exec_io_op_buf() named
 *
 * Context: Any context that may take a mutex.
 */
void exec_io_buf_put(struct exec_io_bufs *bufs, void *buf);

/**
 * exec_io_send - send on a socket
 * @io: the context
 * @op: the operation
 * @fd: the socket
 * @buf: what to send
 * @len: its length
 * @flags: MSG_* flags of send(2); MSG_NOSIGNAL is always added
 * @h: the handler; called with the bytes sent (possibly fewer than @len)
 *	or an error
 *
 * Context: Any context that may take a mutex.
 * Return: 0 if started; an error of the top of this file.
 */
int exec_io_send(struct exec_io *io, struct exec_io_op *op, int fd,
		 const void *buf, size_t len, int flags,
		 const struct exec_handler *h);

/**
 * exec_io_read - read from a file descriptor
 * @io: the context
 * @op: the operation
 * @fd: the descriptor
 * @buf: where to read
 * @len: its size
 * @off: the file offset, or (uint64_t)-1 for the current position
 * @h: the handler; called with the bytes read (0 at end of file) or an
 *	error
 *
 * Context: Any context that may take a mutex.
 * Return: 0 if started; an error of the top of this file.
 */
int exec_io_read(struct exec_io *io, struct exec_io_op *op, int fd,
		 void *buf, size_t len, uint64_t off,
		 const struct exec_handler *h);

/**
 * exec_io_write - write to a file descriptor
 * @io: the context
 * @op: the operation
 * @fd: the descriptor
 * @buf: what to write
 * @len: its length
 * @off: the file offset, or (uint64_t)-1 for the current position
 * @h: the handler; called with the bytes written or an error
 *
 * Context: Any context that may take a mutex.
 * Return: 0 if started; an error of the top of this file.
 */
int exec_io_write(struct exec_io *io, struct exec_io_op *op, int fd,
		  const void *buf, size_t len, uint64_t off,
		  const struct exec_handler *h);

/**
 * exec_io_readv - read from a file descriptor into several buffers
 * @io: the context
 * @op: the operation
 * @fd: the descriptor
 * @iov: the buffers; the array is kept by the caller until the handler runs
 * @iovcnt: how many, 1 to IOV_MAX
 * @off: the file offset, or (uint64_t)-1 for the current position
 * @h: the handler; called with the bytes read or an error
 *
 * Context: Any context that may take a mutex.
 * Return: 0 if started; an error of the top of this file.
 */
int exec_io_readv(struct exec_io *io, struct exec_io_op *op, int fd,
		  const struct iovec *iov, int iovcnt, uint64_t off,
		  const struct exec_handler *h);

/**
 * exec_io_writev - write several buffers to a file descriptor
 * @io: the context
 * @op: the operation
 * @fd: the descriptor
 * @iov: the buffers; the array is kept by the caller until the handler runs
 * @iovcnt: how many, 1 to IOV_MAX
 * @off: the file offset, or (uint64_t)-1 for the current position
 * @h: the handler; called with the bytes written or an error
 *
 * Context: Any context that may take a mutex.
 * Return: 0 if started; an error of the top of this file.
 */
int exec_io_writev(struct exec_io *io, struct exec_io_op *op, int fd,
		   const struct iovec *iov, int iovcnt, uint64_t off,
		   const struct exec_handler *h);

/**
 * exec_io_poll - wait until a descriptor is ready
 * @io: the context
 * @op: the operation
 * @fd: the descriptor
 * @events: POLLIN, POLLOUT, ... as for poll(2)
 * @h: the handler; called with the events that are ready (POLLERR and
 *	POLLHUP included) or an error
 *
 * Context: Any context that may take a mutex.
 * Return: 0 if started; an error of the top of this file.
 */
int exec_io_poll(struct exec_io *io, struct exec_io_op *op, int fd,
		 unsigned int events, const struct exec_handler *h);

/**
 * exec_io_close - close a file descriptor
 * @io: the context
 * @op: the operation
 * @fd: the descriptor; no other operation on it may be pending
 * @h: the handler; called with 0 or an error of close(2)
 *
 * Context: Any context that may take a mutex.
 * Return: 0 if started; an error of the top of this file.
 */
int exec_io_close(struct exec_io *io, struct exec_io_op *op, int fd,
		  const struct exec_handler *h);

/**
 * exec_io_timeout - complete after a while
 * @io: the context
 * @op: the operation
 * @ns: the delay, in nanoseconds on the monotonic clock
 * @h: the handler; called with 0 once the delay has passed, or
 *	-ECANCELED
 *
 * Context: Any context that may take a mutex.
 * Return: 0 if started; an error of the top of this file.
 */
int exec_io_timeout(struct exec_io *io, struct exec_io_op *op, uint64_t ns,
		    const struct exec_handler *h);

/**
 * exec_io_cancel - cancel a pending operation
 * @op: the operation
 *
 * The operation completes once: with -ECANCELED if the cancellation
 * caught it, else with the result it already had.  Its handler may have
 * run before this returns.
 *
 * Context: Any context that may take a mutex.
 * Return: 0 if the operation was pending and cancellation was asked for;
 * -EALREADY if it was not pending (never started, or its completion is
 * already queued); -EINVAL for NULL.
 */
int exec_io_cancel(struct exec_io_op *op);

/**
 * exec_io_cancel_token - request a token and cancel the operations with it
 * @io: the context
 * @tok: the token
 *
 * Requests @tok (exec_cancel_request()) and cancels, as exec_io_cancel(),
 * every operation of @io that is pending with @tok.  Starting an operation
 * with @tok fails with -ECANCELED from then on.
 *
 * Context: Any context that may take a mutex.
 * Return: the number of operations cancelled; -EINVAL for NULL.
 */
long exec_io_cancel_token(struct exec_io *io, struct exec_cancel_token *tok);

/**
 * exec_io_batch_begin - defer the system calls of the operations started
 * @io: the context
 *
 * Until the matching exec_io_batch_end(), operations that the calling
 * thread starts on @io are queued without a system call; the end has them
 * all submitted together, with one system call: on the context's own
 * thread (a handler bound to exec_inline_executor()) the one in which it
 * next waits, elsewhere the one that wakes the context's thread, which
 * submits them (and may take them sooner if it is awake).  Handlers run
 * inside such a batch: the operations a handler starts cost one system
 * call together.  Batches nest; one context at a time per thread (a batch
 * on another context submits at once).  Does nothing on the epoll
 * backend.
 *
 * Context: Any context.
 */
void exec_io_batch_begin(struct exec_io *io);

/**
 * exec_io_batch_end - end a batch, submitting what it queued
 * @io: the context given to exec_io_batch_begin()
 *
 * Context: Any context that may take a mutex.
 * Return: 0; -EBUSY if the kernel refused the submission for now (the
 * operations stay queued, and the context submits them again after its
 * next completion).
 */
int exec_io_batch_end(struct exec_io *io);

EXEC_END_DECLS

#endif /* EXEC_IO_H */
