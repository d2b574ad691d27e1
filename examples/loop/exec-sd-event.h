/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A libexec loop executor run by systemd's sd-event loop: an I/O event
 * source on the loop's descriptor (exec_loop_fd()) that runs what is
 * ready (exec_loop_run_ready()) when it is readable.  Header only.
 *
 *	sd_event_source *src;
 *	exec_sd_event_add(event, &src, loop);	// items run in sd_event_run()
 *	...
 *	sd_event_source_disable_unref(src);	// before exec_loop_destroy()
 *
 * A loop scheduler the same way: exec_sd_event_add_scheduler(event, &src,
 * ls), the other loop one more thread of the scheduler.
 */
#ifndef EXEC_SD_EVENT_H
#define EXEC_SD_EVENT_H

#include <sys/epoll.h>
#include <systemd/sd-event.h>
#include <exec/loop.h>
#include <exec/loop_scheduler.h>
#include <exec/user.h>

static int exec_sd_event_ready(sd_event_source *source, int fd,
			       uint32_t revents, void *userdata)
{
	long ret = exec_loop_run_ready((struct exec_loop *)userdata);

	/* -EBUSY left the descriptor readable: it comes back. */
	return ret < 0 && ret != -EBUSY ? (int)ret : 0;
}

static int exec_sd_event_ls_ready(sd_event_source *source, int fd,
				  uint32_t revents, void *userdata)
{
	long ret = exec_loop_scheduler_run_ready(
			(struct exec_loop_scheduler *)userdata);

	return ret < 0 && ret != -EBUSY ? (int)ret : 0;
}

/* Adds the source to @event; 0 or a negative errno. */
static inline int exec_sd_event_add(sd_event *event, sd_event_source **srcp,
				    struct exec_loop *loop)
{
	int fd = exec_loop_fd(loop);

	if (fd < 0)
		return fd;
	return sd_event_add_io(event, srcp, fd, EPOLLIN, exec_sd_event_ready,
			       loop);
}

/* The same for a loop scheduler; 0 or a negative errno. */
static inline int exec_sd_event_add_scheduler(sd_event *event,
					      sd_event_source **srcp,
					      struct exec_loop_scheduler *ls)
{
	int fd = exec_loop_scheduler_fd(ls);

	if (fd < 0)
		return fd;
	return sd_event_add_io(event, srcp, fd, EPOLLIN,
			       exec_sd_event_ls_ready, ls);
}

#endif /* EXEC_SD_EVENT_H */
