/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What the guest programs of the loop driver's checks share
 * (exec_loop_check.c, exec_loop_fio.c): a line of output written whole, and
 * a disk of a loop driver bound to a backing file.  Each program is one
 * static binary built from its own .c, which includes this.
 */
#ifndef EXEC_LOOP_GUEST_H
#define EXEC_LOOP_GUEST_H

#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* A loop driver: its loop-control device and its disks, less the number. */
struct loop_driver {
	const char *name;
	const char *control;
	const char *prefix;
};

/* One write a line, so that kernel messages cannot split it. */
static void line(const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (len > (int)sizeof(buf) - 2)
		len = sizeof(buf) - 2;
	buf[len++] = '\n';
	if (write(STDOUT_FILENO, buf, len) < 0)
		return;
}

/*
 * Takes a free disk of @drv (its number in *@nr, its path in @path, the
 * open loop-control in *@ctl) and binds it to @filefd with @block_size.
 * Returns the disk's descriptor, opened with @oflags, or -1 with errno
 * set and *@step naming what failed; what it opened then is closed but
 * *@ctl, which the caller closes (it is -1 if its open failed).
 */
static int loop_guest_bind(const struct loop_driver *drv, int filefd,
			   unsigned int block_size, int oflags, int *ctl,
			   int *nr, char *path, size_t size, const char **step)
{
	struct loop_config cfg;
	int dfd, err;

	*step = drv->control;
	*ctl = open(drv->control, O_RDWR | O_CLOEXEC);
	if (*ctl < 0)
		return -1;
	*step = "LOOP_CTL_GET_FREE";
	*nr = ioctl(*ctl, LOOP_CTL_GET_FREE);
	if (*nr < 0)
		return -1;
	snprintf(path, size, "%s%d", drv->prefix, *nr);
	*step = path;
	dfd = open(path, oflags | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	memset(&cfg, 0, sizeof(cfg));
	cfg.fd = filefd;
	cfg.block_size = block_size;
	*step = "LOOP_CONFIGURE";
	if (ioctl(dfd, LOOP_CONFIGURE, &cfg)) {
		err = errno;
		close(dfd);
		errno = err;
		return -1;
	}
	return dfd;
}

#endif /* EXEC_LOOP_GUEST_H */
