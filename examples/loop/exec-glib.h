/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A libexec loop executor run by a GLib main context: a GSource that
 * watches the loop's descriptor (exec_loop_fd()) and runs what is ready
 * (exec_loop_run_ready()) when it is readable.  Header only.
 *
 *	GSource *src = exec_glib_source_new(loop);
 *	g_source_attach(src, context);	// items now run on @context
 *	...
 *	g_source_destroy(src);		// before exec_loop_destroy(loop)
 *	g_source_unref(src);
 */
#ifndef EXEC_GLIB_H
#define EXEC_GLIB_H

#include <glib.h>
#include <exec/loop.h>
#include <exec/user.h>

struct exec_glib_source {
	GSource source;
	struct exec_loop *loop;
};

/* No prepare or check: GLib dispatches a source whose fd polled ready. */
static gboolean exec_glib_dispatch(GSource *source, GSourceFunc callback,
				   gpointer data)
{
	struct exec_glib_source *src = (struct exec_glib_source *)source;

	exec_loop_run_ready(src->loop);
	return G_SOURCE_CONTINUE;
}

static GSourceFuncs exec_glib_source_funcs = {
	NULL, NULL, exec_glib_dispatch, NULL, NULL, NULL
};

/*
 * A new source for @loop, not attached; NULL if @loop cannot give a
 * descriptor (exec_loop_fd()).
 */
static inline GSource *exec_glib_source_new(struct exec_loop *loop)
{
	struct exec_glib_source *src;
	int fd = exec_loop_fd(loop);

	if (fd < 0)
		return NULL;
	src = (struct exec_glib_source *)
		g_source_new(&exec_glib_source_funcs, sizeof(*src));
	src->loop = loop;
	g_source_add_unix_fd(&src->source, fd, G_IO_IN);
	g_source_set_name(&src->source, "libexec loop");
	return &src->source;
}

#endif /* EXEC_GLIB_H */
