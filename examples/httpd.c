// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * httpd: a small HTTP/1.1 server on libexec-user's asynchronous I/O
 * operations (<exec/io.h>), the public API only.
 *
 *   httpd [-p PORT] [-w WORKERS] [-s] [-r ROOT] [-t HEADER_TIMEOUT_MS]
 *         [-m MAX_HEADER_BYTES] [-c MAX_CONNECTIONS]
 *
 * Listens on 127.0.0.1:PORT (0, the default, picks a free port) and prints
 * "listening on 127.0.0.1:PORT" once it accepts.  GET / answers a fixed
 * small body; GET /files/NAME a regular file of ROOT (no '/' and no
 * leading '.' in NAME, not a symbolic link, which could lead out of ROOT;
 * no percent-decoding), read with exec_io_read(); anything else 404.
 * Keep-alive as HTTP/1.1 says (Connection: close, and HTTP/1.0 without
 * keep-alive, end it), pipelined requests in order.  A malformed request
 * gets 400, headers longer than MAX_HEADER_BYTES (default 8192) 431, and
 * both close the connection; a connection that has not sent a complete
 * request head HEADER_TIMEOUT_MS (default 5000) after the previous
 * response (or its accept) is closed.
 *
 * At most MAX_CONNECTIONS are open at once; one accepted past them gets a
 * 503 and the close at once.  The default is what the process's limit of
 * open files allows (raised to its hard limit at start) with one file per
 * connection and a reserve, so that the server never runs out of fds: a
 * flood of clients that send nothing, or a byte at a time, holds at most
 * that many connections, each for HEADER_TIMEOUT_MS, and the clients past
 * it are told so rather than left in the listen queue.
 *
 * Connections come from one multishot accept (exec_io_accept_multishot()),
 * whose handler calls never overlap.  A connection's handlers never run at
 * once, so its state needs no lock, in one of two ways:
 *
 *   default  a pool of WORKERS (default 2) I/O contexts, each with its
 *            thread (exec_io_pool_create()); every connection lives on
 *            one of them, in turn, and its handlers are bound to that
 *            context's executor (exec_io_executor()): they run on the
 *            thread that took their completions, one thread per
 *            connection, no hop between threads.
 *   -s       one I/O context, and a serial executor per connection over a
 *            pool of WORKERS threads (P0113's strand example): a
 *            completion is taken by the context's thread and run by a
 *            worker.
 *
 * A connection's requests come through one multishot receive
 * (exec_io_recv_multishot()) into the buffers of its context's group,
 * each piece copied to the connection's own buffer and given back at
 * once.  One that does not fit waits in its group buffer until the
 * requests before it are answered; with HELD_MAX pieces waiting, the
 * multishot receive is cancelled, and single receives into the
 * connection's buffer go on once it has room, so that a client that
 * sends far ahead waits for TCP's window, as with single receives.  So
 * they do when the receive ends early otherwise (every buffer of the
 * group out, or the stop).  At end of stream the requests received are
 * still answered.
 *
 * On a context's thread a response goes out with exec_io_send() (header
 * and small body in one buffer; exec_io_writev() for a file), in the
 * thread's next system call together with every other connection's; on a
 * strand it is first written with a non-blocking sendmsg(), and only what
 * does not fit goes through exec_io_send().
 *
 * SIGTERM or SIGINT: the accept and every receive that waits for a new
 * request are cancelled through one cancellation token, so the server
 * stops accepting, finishes the requests in flight (their responses are
 * sent), closes each connection after its response, and exits 0.
 *
 * SIGUSR1: prints the bytes of the heap in use ("# heap in use: N bytes"),
 * which scripts/check-httpd.sh compares before and after 10,000
 * connections: a leak shows there, where the process's RSS also keeps the
 * allocator's high-water mark of connections alive at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <exec/exec.h>
#include <exec/io.h>

#include "http_parse.h"

#define BODY		"Hello, world!\n"
#define MAX_FILE	(1U << 20)
#define MAX_WORKERS	64
#define RX_BUFS		512	/* receive buffers per context */
#define RX_BUF_SIZE	2048
#define HELD_MAX	4	/* pieces a connection may leave waiting */
#define FD_RESERVE	64	/* fds kept for other than connections */

struct server {
	bool strands;			/* -s */
	struct exec_thread_pool *pool;	/* -s only */
	struct exec_executor *ex;	/* the pool's, -s only */
	struct exec_io_pool *ios;	/* WORKERS contexts, or one with -s */
	unsigned int next_io;		/* by the accept handler only */
	struct exec_io *io;		/* the first context, the accept's */
	struct exec_io_bufs *bufs[MAX_WORKERS];	/* each context's group */
	int lfd;
	int root;			/* ROOT's directory fd */
	unsigned int header_timeout_ms;
	size_t max_header;
	unsigned long max_conns;	/* -c */
	struct exec_cancel_token stop;	/* requested on SIGTERM */
	struct exec_io_op accept_op;
	struct exec_handler accept_h;
	pthread_mutex_t lock;
	pthread_cond_t idle;
	unsigned long nr_conns;		/* under @lock */
	bool accepting;			/* under @lock */
};

/*
 * One connection.  Every field is touched only by handlers on @ex (and by
 * the accept handler before the first start).
 */
struct conn {
	struct server *srv;
	struct exec_io *io;		/* its context */
	struct exec_executor *ex;	/* where its handlers run */
	struct exec_serial *strand;	/* -s: the serial executor of @ex */
	int fd;
	char *buf;			/* the request head(s) received */
	size_t len;			/* bytes in @buf */
	struct exec_io_bufs *bufs;	/* its context's receive buffers */
	struct exec_io_op rxm;		/* the multishot receive */
	struct exec_handler rxm_h;
	bool rx_multi;			/* @rxm is pending */
	struct held_piece {		/* pieces that did not fit in @buf yet */
		char *buf;		/* a buffer of @bufs */
		size_t off;
		size_t len;
	} *held;
	unsigned int nr_held;
	unsigned int held_cap;		/* the size of @held */
	bool eof;			/* the peer will send no more */
	bool responding;		/* a request is being answered */
	struct exec_io_op rx;		/* a single receive, once @rxm ended */
	struct exec_handler rx_h;
	struct exec_io_op tx;
	struct exec_handler tx_h;
	struct exec_io_op tmo;
	struct exec_handler tmo_h;
	struct exec_io_op file;
	struct exec_handler file_h;
	bool tmo_armed;
	uint64_t deadline;			/* of the request head; 0: none */
	unsigned int pending;		/* operations started, not completed */
	bool closing;
	bool unbound;			/* handlers unbound by conn_free() */
	bool keep_alive;
	char head[256];			/* a response's header, and a small body */
	struct iovec iov[2];
	struct iovec out[2];		/* the unsent part, for a writev */
	char *body;			/* a file's content, or NULL */
	size_t body_len;
	size_t sent;			/* of the response */
	size_t total;			/* its length */
	size_t consumed;		/* request bytes it answers */
	int file_fd;
};

_Static_assert(sizeof(((struct conn *)0)->head) >= HTTP_HEAD_MAX,
	       "a response header fits in struct conn's head");

/*
 * The clock of the header timeouts, read once per request: the coarse
 * clock's tick (a few milliseconds) is nothing against a timeout of
 * seconds, and it reads no hardware counter.
 */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void conn_close(struct conn *c);
static void conn_read(struct conn *c);
static void conn_process(struct conn *c);

/* Frees a connection once its handlers have let go of everything. */
static void conn_free(void *arg)
{
	struct conn *c = arg;
	struct server *srv = c->srv;

	if (!c->unbound) {
		exec_handler_unbind(&c->rxm_h);
		exec_handler_unbind(&c->rx_h);
		exec_handler_unbind(&c->tx_h);
		exec_handler_unbind(&c->tmo_h);
		exec_handler_unbind(&c->file_h);
		c->unbound = true;
	}
	/*
	 * The last handler's unit of outstanding work is released just after
	 * it returns: until then the strand refuses to go (-EBUSY).  Try
	 * again later, from the pool.
	 */
	if (c->strand && exec_serial_destroy(c->strand) == -EBUSY) {
		sched_yield();
		if (exec_post_fn(srv->ex, conn_free, c))
			abort();
		return;
	}
	while (c->nr_held)
		exec_io_buf_put(c->bufs, c->held[--c->nr_held].buf);
	free(c->held);
	free(c->buf);
	free(c->body);
	free(c);
	pthread_mutex_lock(&srv->lock);
	if (!--srv->nr_conns)
		pthread_cond_broadcast(&srv->idle);
	pthread_mutex_unlock(&srv->lock);
}

/* An operation of @c completed: the last one of a closing connection frees. */
static void conn_done(struct conn *c)
{
	c->pending--;
	if (c->closing && !c->pending) {
		close(c->fd);
		if (c->file_fd >= 0)
			close(c->file_fd);
		/*
		 * Not inside the handler, whose operation and binding are
		 * parts of @c; not on the strand, whose destroy waits for us.
		 */
		if (exec_post_fn(c->strand ? c->srv->ex : c->ex, conn_free, c))
			abort();
	}
}

static void conn_close(struct conn *c)
{
	if (c->closing)
		return;
	c->closing = true;
	exec_io_cancel(&c->rxm);
	exec_io_cancel(&c->rx);
	exec_io_cancel(&c->tx);
	exec_io_cancel(&c->tmo);
	exec_io_cancel(&c->file);
	/* Stands for the caller's own operation, done by conn_done(). */
	c->pending++;
	conn_done(c);
}

/* Starts an operation of @c; on failure closes the connection. */
static bool conn_started(struct conn *c, int ret)
{
	if (ret) {
		conn_close(c);
		return false;
	}
	c->pending++;
	return true;
}

/*
 * The header timeout: one timeout per connection, re-armed for what is
 * left when the deadline moved meanwhile, so a request costs no timer
 * operation of its own.
 */
static void conn_arm_timeout(struct conn *c)
{
	uint64_t now;

	if (c->tmo_armed || !c->deadline || c->closing)
		return;
	now = now_ns();
	if (conn_started(c, exec_io_timeout(c->io, &c->tmo,
					    c->deadline > now ?
					    c->deadline - now : 0,
					    &c->tmo_h)))
		c->tmo_armed = true;
}

static void conn_on_timeout(void *arg, long res)
{
	struct conn *c = arg;

	c->tmo_armed = false;
	if (res == 0 && c->deadline && now_ns() >= c->deadline) {
		/* No complete request head in time. */
		conn_close(c);
	} else {
		conn_arm_timeout(c);
	}
	conn_done(c);
}

/* Receives more of a request; only a first byte waits under the token. */
static void conn_read(struct conn *c)
{
	struct server *srv = c->srv;

	if (c->len >= srv->max_header) {
		conn_close(c);
		return;
	}
	/*
	 * The multishot receive brings what comes.  Held pieces need no
	 * receive: they are moved in whenever @buf has room.
	 */
	if (c->rx_multi)
		return;
	if (c->eof) {
		conn_close(c);
		return;
	}
	exec_io_op_set_token(&c->rx, c->len ? NULL : &srv->stop);
	conn_started(c, exec_io_recv(c->io, &c->rx, c->fd, c->buf + c->len,
				     srv->max_header - c->len, 0, &c->rx_h));
}

static void conn_on_recv(void *arg, long res)
{
	struct conn *c = arg;

	if (c->closing || res <= 0) {
		conn_close(c);
	} else {
		c->len += (size_t)res;
		conn_process(c);
	}
	conn_done(c);
}

/* Moves what fits of the held pieces into @buf, oldest first. */
static void conn_fill(struct conn *c)
{
	size_t room, n;

	while (c->nr_held) {
		room = c->srv->max_header - c->len;
		n = c->held[0].len < room ? c->held[0].len : room;
		if (!n)
			return;
		memcpy(c->buf + c->len, c->held[0].buf + c->held[0].off, n);
		c->len += n;
		c->held[0].off += n;
		c->held[0].len -= n;
		if (c->held[0].len)
			return;
		exec_io_buf_put(c->bufs, c->held[0].buf);
		memmove(c->held, c->held + 1, --c->nr_held * sizeof(*c->held));
	}
}

/* Keeps a piece; false without memory for it. */
static bool conn_hold(struct conn *c, char *buf, size_t len)
{
	struct held_piece *held;
	unsigned int cap;

	if (c->nr_held == c->held_cap) {
		cap = c->held_cap ? 2 * c->held_cap : HELD_MAX;
		held = realloc(c->held, cap * sizeof(*held));
		if (!held)
			return false;
		c->held = held;
		c->held_cap = cap;
	}
	c->held[c->nr_held].buf = buf;
	c->held[c->nr_held].off = 0;
	c->held[c->nr_held++].len = len;
	return true;
}

/*
 * A piece of the stream, or (@res <= 0) the end of the multishot
 * receive: 0 at end of stream, or the error that ended it early.
 */
static void conn_on_piece(void *arg, long res)
{
	struct conn *c = arg;
	char *buf = exec_io_op_buf(&c->rxm);

	if (res <= 0) {
		c->rx_multi = false;
		/*
		 * End of stream: answer what came.  Every buffer out, the
		 * stop, or too much held: single receives go on.
		 */
		c->eof = !res;
		if (!c->closing && (res == 0 || res == -ENOBUFS ||
				    res == -ECANCELED)) {
			if (!c->responding)
				conn_process(c);
		} else {
			conn_close(c);
		}
		conn_done(c);
		return;
	}
	if (c->closing || !conn_hold(c, buf, (size_t)res)) {
		exec_io_buf_put(c->bufs, buf);
		conn_close(c);
		return;
	}
	/* A client far ahead of its answers: let TCP's window hold it. */
	if (c->nr_held == HELD_MAX)
		exec_io_cancel(&c->rxm);
	conn_fill(c);
	if (!c->responding)
		conn_process(c);
}

/* The response is out: next request, or the end. */
static void conn_response_done(struct conn *c)
{
	c->responding = false;
	free(c->body);
	c->body = NULL;
	memmove(c->buf, c->buf + c->consumed, c->len - c->consumed);
	c->len -= c->consumed;
	conn_fill(c);
	if (!c->keep_alive) {
		conn_close(c);
		return;
	}
	c->deadline = now_ns() + c->srv->header_timeout_ms * 1000000ULL;
	conn_arm_timeout(c);
	conn_process(c);
}

/* Fills @out with what is left to send of the response; returns its count. */
static int conn_unsent(const struct conn *c, struct iovec *out)
{
	size_t off = c->sent;
	int i, n = 0;

	for (i = 0; i < 2; i++) {
		if (off >= c->iov[i].iov_len) {
			off -= c->iov[i].iov_len;
			continue;
		}
		out[n].iov_base = (char *)c->iov[i].iov_base + off;
		out[n].iov_len = c->iov[i].iov_len - off;
		n++;
		off = 0;
	}
	return n;
}

/*
 * Sends what is left of the response.  On a context's thread, with an
 * operation: it goes out with the thread's next wait, together with every
 * other connection's, one system call for all.  On a strand, directly
 * while the socket takes it, as the context's thread would only hand the
 * completion over to a worker again.
 */
static void conn_send(struct conn *c)
{
	struct iovec iov[2];
	struct msghdr msg = { .msg_iov = iov };
	ssize_t n;

	if (!c->strand && c->sent < c->total && conn_unsent(c, c->out) == 1) {
		conn_started(c, exec_io_send(c->io, &c->tx, c->fd,
					     c->out[0].iov_base,
					     c->out[0].iov_len, 0, &c->tx_h));
		return;
	}
	if (!c->strand && c->sent < c->total) {
		conn_started(c, exec_io_writev(c->io, &c->tx, c->fd, c->out,
					       conn_unsent(c, c->out),
					       (uint64_t)-1, &c->tx_h));
		return;
	}
	while (c->sent < c->total) {
		msg.msg_iovlen = (size_t)conn_unsent(c, iov);
		n = sendmsg(c->fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0) {
			c->sent += (size_t)n;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			/* Full: let the context wait for room. */
			conn_started(c, exec_io_send(c->io, &c->tx, c->fd,
						     iov[0].iov_base,
						     iov[0].iov_len, 0,
						     &c->tx_h));
			return;
		}
		conn_close(c);
		return;
	}
	conn_response_done(c);
}

static void conn_on_send(void *arg, long res)
{
	struct conn *c = arg;

	if (c->closing || res <= 0) {
		conn_close(c);
	} else {
		c->sent += (size_t)res;
		conn_send(c);
	}
	conn_done(c);
}

/* Sends a response: @close_after ends the connection after it. */
static void conn_respond(struct conn *c, int status, const char *reason,
			 const char *body, size_t len, bool close_after)
{
	c->responding = true;
	if (close_after)
		c->keep_alive = false;
	c->iov[0].iov_base = c->head;
	c->iov[0].iov_len = http_response_head(c->head, status, reason, len,
					       c->keep_alive);
	c->iov[1].iov_base = (void *)body;
	c->iov[1].iov_len = len;
	c->sent = 0;
	c->total = c->iov[0].iov_len + len;
	/* A small body goes in the header's buffer: one buffer to send. */
	if (len < sizeof(c->head) - c->iov[0].iov_len) {
		memcpy(c->head + c->iov[0].iov_len, body, len);
		c->iov[0].iov_len += len;
		c->iov[1].iov_len = 0;
	}
	conn_send(c);
}

static void conn_on_file(void *arg, long res)
{
	struct conn *c = arg;

	close(c->file_fd);
	c->file_fd = -1;
	if (c->closing) {
		conn_done(c);
		return;
	}
	if (res < 0 || (size_t)res != c->body_len)
		conn_respond(c, 500, "Internal Server Error", "", 0, true);
	else
		conn_respond(c, 200, "OK", c->body, c->body_len, false);
	conn_done(c);
}

/* GET /files/NAME: the file's content, read with exec_io_read(). */
static void conn_get_file(struct conn *c, const char *name)
{
	struct stat st;
	int fd;

	if (c->srv->root < 0 || !*name || *name == '.' || strchr(name, '/')) {
		conn_respond(c, 404, "Not Found", "", 0, false);
		return;
	}
	fd = openat(c->srv->root, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		conn_respond(c, 404, "Not Found", "", 0, false);
		return;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > MAX_FILE) {
		close(fd);
		conn_respond(c, 404, "Not Found", "", 0, false);
		return;
	}
	c->body_len = (size_t)st.st_size;
	c->body = malloc(c->body_len + 1);
	if (!c->body) {
		close(fd);
		conn_respond(c, 503, "Service Unavailable", "", 0, true);
		return;
	}
	c->file_fd = fd;
	conn_started(c, exec_io_read(c->io, &c->file, fd, c->body,
				     c->body_len, 0, &c->file_h));
}

/*
 * Answers the request at the head of @buf if it is complete
 * (examples/http_parse.h), else reads more.
 */
static void conn_process(struct conn *c)
{
	struct http_req req;
	enum http_verdict v;

	if (c->closing)
		return;
	v = http_parse(c->buf, c->len, c->srv->max_header, &req);
	if (v == HTTP_INCOMPLETE) {
		conn_read(c);
		return;
	}
	c->consumed = req.consumed;
	c->keep_alive = req.keep_alive;
	c->responding = true;
	/* A complete head, or the end: the timeout is for the next one. */
	c->deadline = 0;
	switch (v) {
	case HTTP_ROOT:
		conn_respond(c, 200, "OK", BODY, sizeof(BODY) - 1, false);
		break;
	case HTTP_FILE:
		conn_get_file(c, req.name);
		break;
	case HTTP_NOT_FOUND:
		conn_respond(c, 404, "Not Found", "", 0, false);
		break;
	case HTTP_NOT_ALLOWED:
		conn_respond(c, 405, "Method Not Allowed", "", 0, true);
		break;
	case HTTP_TOO_LARGE:
		conn_respond(c, 431, "Request Header Fields Too Large", "", 0,
			     true);
		break;
	default:
		conn_respond(c, 400, "Bad Request", "", 0, true);
		break;
	}
}

static void conn_start(void *arg)
{
	struct conn *c = arg;

	conn_arm_timeout(c);
	/* Under the token: the stop ends it, and single receives go on. */
	exec_io_op_set_token(&c->rxm, &c->srv->stop);
	if (conn_started(c, exec_io_recv_multishot(c->io, &c->rxm, c->fd,
						   c->bufs, 0, &c->rxm_h)))
		c->rx_multi = true;
}

static void server_accept(struct server *srv);

/*
 * A connection past the cap: the 503 goes into the new socket's empty send
 * buffer in one non-blocking send, the FIN after it; what the client sent
 * is read away first where it can be, since a close with unread bytes
 * resets the connection, and a reset may reach the client before it read
 * the 503.  A few reads at most: the accept waits meanwhile.
 */
static void conn_refuse(int fd)
{
	static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\n"
				   "Server: exec-httpd\r\n"
				   "Content-Length: 0\r\n"
				   "Connection: close\r\n\r\n";
	char sink[1024];
	int i;

	if (send(fd, busy, sizeof(busy) - 1, MSG_DONTWAIT | MSG_NOSIGNAL) > 0)
		shutdown(fd, SHUT_WR);
	for (i = 0; i < 8; i++)
		if (recv(fd, sink, sizeof(sink), MSG_DONTWAIT) <= 0)
			break;
	close(fd);
}

/* True when @srv holds its cap of connections. */
static bool server_full(struct server *srv)
{
	bool full;

	pthread_mutex_lock(&srv->lock);
	full = srv->nr_conns >= srv->max_conns;
	pthread_mutex_unlock(&srv->lock);
	return full;
}

/*
 * Where a new connection's handlers run: the executor of the next
 * context in turn, or (-s) a new serial executor over the pool.
 */
static int conn_place(struct server *srv, struct conn *c)
{
	unsigned int i;
	int ret;

	if (srv->strands) {
		c->io = srv->io;
		c->bufs = srv->bufs[0];
		ret = exec_serial_create(&c->strand, srv->ex);
		c->ex = ret ? NULL : exec_serial_executor(c->strand);
		return ret;
	}
	i = srv->next_io++ % exec_io_pool_size(srv->ios);
	c->io = exec_io_pool_get(srv->ios, i);
	c->bufs = srv->bufs[i];
	c->ex = exec_io_executor(c->io);
	return 0;
}

static void on_accept(void *arg, long res)
{
	struct server *srv = arg;
	struct exec_executor *sx;
	struct conn *c;
	int one = 1;

	/* A connection that came as the stop was asked for. */
	if (res >= 0 && exec_cancel_requested(&srv->stop)) {
		close((int)res);
		return;
	}
	/* The multishot accept's last call, after the stop. */
	if (res == -ECANCELED) {
		/* New connections are refused from now on. */
		close(srv->lfd);
		pthread_mutex_lock(&srv->lock);
		srv->accepting = false;
		pthread_cond_broadcast(&srv->idle);
		pthread_mutex_unlock(&srv->lock);
		return;
	}
	/* Only this handler counts connections up: the check holds. */
	if (res >= 0 && server_full(srv)) {
		conn_refuse((int)res);
		return;
	}
	if (res >= 0) {
		c = calloc(1, sizeof(*c));
		if (c)
			c->buf = malloc(srv->max_header + 1);
		if (!c || !c->buf || conn_place(srv, c)) {
			if (c)
				free(c->buf);
			free(c);
			close((int)res);
		} else {
			c->srv = srv;
			c->fd = (int)res;
			c->file_fd = -1;
			setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one,
				   sizeof(one));
			sx = c->ex;
			exec_io_op_init(&c->rxm);
			exec_io_op_init(&c->rx);
			exec_io_op_init(&c->tx);
			exec_io_op_init(&c->tmo);
			exec_io_op_init(&c->file);
			exec_bind_executor(&c->rxm_h, sx, conn_on_piece, c);
			exec_bind_executor(&c->rx_h, sx, conn_on_recv, c);
			exec_bind_executor(&c->tx_h, sx, conn_on_send, c);
			exec_bind_executor(&c->tmo_h, sx, conn_on_timeout, c);
			exec_bind_executor(&c->file_h, sx, conn_on_file, c);
			c->deadline = now_ns() +
				      srv->header_timeout_ms * 1000000ULL;
			pthread_mutex_lock(&srv->lock);
			srv->nr_conns++;
			pthread_mutex_unlock(&srv->lock);
			/* The connection's first steps, where it runs. */
			if (exec_submit_fn(sx, conn_start, c))
				abort();
		}
	}
	if (res >= 0)
		return;
	/*
	 * The multishot accept ended with an error, such as running out of
	 * fds or memory: give the connections a moment to close, and start
	 * it again.
	 */
	usleep(10000);
	server_accept(srv);
}

static void server_accept(struct server *srv)
{
	int ret = exec_io_accept_multishot(srv->io, &srv->accept_op, srv->lfd,
					   &srv->accept_h);

	if (ret) {
		/* -ECANCELED: the stop came first. */
		close(srv->lfd);
		pthread_mutex_lock(&srv->lock);
		srv->accepting = false;
		pthread_cond_broadcast(&srv->idle);
		pthread_mutex_unlock(&srv->lock);
	}
}

static const char usage_text[] =
	"usage: httpd [-p PORT] [-w WORKERS] [-s] [-r ROOT]\n"
	"             [-t HEADER_TIMEOUT_MS] [-m MAX_HEADER_BYTES]\n"
	"             [-c MAX_CONNECTIONS]\n";

static int print_usage(void)
{
	fputs(usage_text, stderr);
	return 2;
}

/*
 * Raises the limit of open files to its hard limit, and returns the
 * default cap of connections: that limit less a reserve, for two fds per
 * connection (its socket, and a file being read).
 */
static unsigned long default_max_conns(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 256;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 1UL << 20)
		rl.rlim_cur = 1UL << 20;
	if (rl.rlim_cur < 2 * FD_RESERVE)
		return 16;
	return (unsigned long)(rl.rlim_cur - FD_RESERVE) / 2;
}

int main(int argc, char **argv)
{
	struct exec_thread_pool_attr pattr = { .nr_threads = 2 };
	struct server srv = {
		.root = -1,
		.header_timeout_ms = 5000,
		.max_header = 8192,
		.stop = EXEC_CANCEL_TOKEN_INIT,
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.idle = PTHREAD_COND_INITIALIZER,
	};
	struct exec_io_attr iattr = { 0 };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t slen = sizeof(sin);
	unsigned int port = 0;
	sigset_t sigs;
	unsigned long cap;
	unsigned int i;
	int opt, sig, one = 1;

	while ((opt = getopt(argc, argv, "p:w:sr:t:m:c:")) != -1) {
		switch (opt) {
		case 'p':
			port = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'w':
			pattr.nr_threads = (unsigned int)strtoul(optarg, NULL,
								10);
			break;
		case 's':
			srv.strands = true;
			break;
		case 'r':
			srv.root = open(optarg, O_RDONLY | O_DIRECTORY |
					O_CLOEXEC);
			if (srv.root < 0) {
				perror(optarg);
				return 1;
			}
			break;
		case 't':
			srv.header_timeout_ms =
				(unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'm':
			srv.max_header = strtoul(optarg, NULL, 10);
			break;
		case 'c':
			srv.max_conns = strtoul(optarg, NULL, 10);
			if (!srv.max_conns)
				return print_usage();
			break;
		default:
			return print_usage();
		}
	}
	if (port > 65535 || !pattr.nr_threads ||
	    pattr.nr_threads > MAX_WORKERS || srv.max_header < 64 ||
	    !srv.header_timeout_ms)
		return print_usage();
	cap = default_max_conns();
	if (!srv.max_conns)
		srv.max_conns = cap;

	/* Signals reach sigwait() below only: block them in every thread. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	srv.lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (srv.lfd < 0) {
		perror("socket");
		return 1;
	}
	setsockopt(srv.lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((unsigned short)port);
	if (bind(srv.lfd, (struct sockaddr *)&sin, sizeof(sin)) ||
	    listen(srv.lfd, 4096) ||
	    getsockname(srv.lfd, (struct sockaddr *)&sin, &slen)) {
		perror("bind/listen");
		return 1;
	}
	if (srv.strands) {
		if (exec_thread_pool_create(&srv.pool, &pattr)) {
			fprintf(stderr, "httpd: no thread pool\n");
			return 1;
		}
		srv.ex = exec_thread_pool_executor(srv.pool);
		iattr.executor = srv.ex;
	}
	if (exec_io_pool_create(&srv.ios, srv.strands ? 1 : pattr.nr_threads,
				&iattr)) {
		fprintf(stderr, "httpd: no I/O contexts\n");
		return 1;
	}
	srv.io = exec_io_pool_get(srv.ios, 0);
	for (i = 0; i < exec_io_pool_size(srv.ios); i++) {
		if (exec_io_bufs_create(exec_io_pool_get(srv.ios, i),
					&srv.bufs[i], RX_BUFS, RX_BUF_SIZE)) {
			fprintf(stderr, "httpd: no receive buffers\n");
			return 1;
		}
	}
	exec_io_op_init(&srv.accept_op);
	exec_io_op_set_token(&srv.accept_op, &srv.stop);
	/* On the pool with -s (the context's executor by default). */
	if (srv.strands)
		exec_handler_init(&srv.accept_h, on_accept, &srv);
	else
		exec_bind_executor(&srv.accept_h, exec_io_executor(srv.io),
				   on_accept, &srv);
	srv.accepting = true;
	server_accept(&srv);
	printf("listening on 127.0.0.1:%u (%s, %u workers%s, at most %lu connections)\n",
	       ntohs(sin.sin_port), exec_io_backend(srv.io),
	       pattr.nr_threads, srv.strands ? ", strands" : "",
	       srv.max_conns);
	fflush(stdout);

	do {
		if (sigwait(&sigs, &sig))
			return 1;
		if (sig == SIGUSR1) {
			struct mallinfo2 mi = mallinfo2();

			/* Every arena's chunks in use, and the mmap()ed. */
			printf("# heap in use: %zu bytes\n",
			       mi.uordblks + mi.hblkhd);
			fflush(stdout);
		}
	} while (sig != SIGTERM && sig != SIGINT);

	/*
	 * Stop: cancel the accept and every receive that waits for a new
	 * request; requests in flight are answered, then their connections
	 * close (their next receive is refused by the token).
	 */
	exec_io_pool_cancel_token(srv.ios, &srv.stop);
	pthread_mutex_lock(&srv.lock);
	while (srv.accepting || srv.nr_conns)
		pthread_cond_wait(&srv.idle, &srv.lock);
	pthread_mutex_unlock(&srv.lock);
	exec_handler_unbind(&srv.accept_h);
	for (i = 0; i < exec_io_pool_size(srv.ios); i++)
		if (exec_io_bufs_destroy(srv.bufs[i]))
			return 1;
	if (exec_io_pool_destroy(srv.ios) < 0)
		return 1;
	if (srv.strands) {
		exec_thread_pool_stop(srv.pool);
		exec_thread_pool_join(srv.pool);
		if (exec_thread_pool_destroy(srv.pool) < 0)
			return 1;
	}
	if (srv.root >= 0)
		close(srv.root);
	printf("stopped\n");
	return 0;
}
