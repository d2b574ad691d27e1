/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A libexec loop executor run by a libuv loop: a uv_poll_t on the loop's
 * descriptor (exec_loop_fd()) that runs what is ready
 * (exec_loop_run_ready()) when it is readable.  Header only.
 *
 *	struct exec_uv adapter;
 *	exec_uv_start(uv_loop, &adapter, loop);	// items run in uv_run()
 *	...
 *	exec_uv_close(&adapter, NULL);	// before exec_loop_destroy(loop)
 *
 * A loop scheduler the same way: exec_uv_start_scheduler(uv_loop,
 * &adapter, ls), the loop's thread one more thread of the scheduler.
 */
#ifndef EXEC_UV_H
#define EXEC_UV_H

#include <uv.h>
#include <exec/loop.h>
#include <exec/loop_scheduler.h>
#include <exec/user.h>

struct exec_uv {
	uv_poll_t poll;
	struct exec_loop *loop;			/* or: */
	struct exec_loop_scheduler *ls;
};

static void exec_uv_ready(uv_poll_t *poll, int status, int events)
{
	struct exec_uv *adapter = (struct exec_uv *)poll->data;

	if (adapter->ls)
		exec_loop_scheduler_run_ready(adapter->ls);
	else
		exec_loop_run_ready(adapter->loop);
}

static inline int exec_uv_start_fd(uv_loop_t *uv_loop,
				   struct exec_uv *adapter, int fd)
{
	int ret;

	if (fd < 0)
		return fd;
	ret = uv_poll_init(uv_loop, &adapter->poll, fd);
	if (ret)
		return ret;
	adapter->poll.data = adapter;
	ret = uv_poll_start(&adapter->poll, UV_READABLE, exec_uv_ready);
	if (ret)
		uv_close((uv_handle_t *)&adapter->poll, NULL);
	return ret;
}

/* Starts watching; 0 or a negative errno (libuv's are errno values). */
static inline int exec_uv_start(uv_loop_t *uv_loop, struct exec_uv *adapter,
				struct exec_loop *loop)
{
	adapter->loop = loop;
	adapter->ls = NULL;
	return exec_uv_start_fd(uv_loop, adapter, exec_loop_fd(loop));
}

/* The same for a loop scheduler. */
static inline int exec_uv_start_scheduler(uv_loop_t *uv_loop,
					  struct exec_uv *adapter,
					  struct exec_loop_scheduler *ls)
{
	adapter->loop = NULL;
	adapter->ls = ls;
	return exec_uv_start_fd(uv_loop, adapter, exec_loop_scheduler_fd(ls));
}

/*
 * Stops watching at once (the descriptor leaves libuv's poll set);
 * @adapter's memory is free once @cb has run in a later uv_run().
 */
static inline void exec_uv_close(struct exec_uv *adapter, uv_close_cb cb)
{
	uv_close((uv_handle_t *)&adapter->poll, cb);
}

#endif /* EXEC_UV_H */
