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
 *
 * A loop scheduler the same way: exec_glib_scheduler_source_new(ls), the
 * context's thread one more thread of the scheduler.
 */
#ifndef EXEC_GLIB_H
#define EXEC_GLIB_H

#include <glib.h>
#include <exec/loop.h>
#include <exec/loop_scheduler.h>
#include <exec/user.h>

struct exec_glib_source {
	GSource source;
	struct exec_loop *loop;			/* or: */
	struct exec_loop_scheduler *ls;
	gpointer tag;				/* the descriptor's */
	gboolean dispatching;			/* the items run */
	gboolean muted;				/* by a nested dispatch */
};

/*
 * No prepare or check: GLib dispatches a source whose fd polled ready.
 *
 * The source may recurse (g_source_set_can_recurse()): GLib would
 * otherwise block it around every dispatch, taking its descriptor out of
 * the context's poll set and putting it back, and each of those writes
 * the context's own wake-up descriptor: the first before the items run,
 * the second after, and the next iteration then polls and reads for
 * nothing.  Blocked it only needs to be in a nested iteration of the
 * context that an item runs; there the descriptor, readable until the
 * items are done, would have the nested loop spin, so the nested
 * dispatch mutes it and the outer one, leaving, listens again.
 */
static gboolean exec_glib_dispatch(GSource *source, GSourceFunc callback,
				   gpointer data)
{
	struct exec_glib_source *src = (struct exec_glib_source *)source;

	if (src->dispatching) {
		if (!src->muted) {
			src->muted = TRUE;
			g_source_modify_unix_fd(source, src->tag, 0);
		}
		return G_SOURCE_CONTINUE;
	}
	src->dispatching = TRUE;
	if (src->ls)
		exec_loop_scheduler_run_ready(src->ls);
	else
		exec_loop_run_ready(src->loop);
	src->dispatching = FALSE;
	if (src->muted) {
		src->muted = FALSE;
		g_source_modify_unix_fd(source, src->tag, G_IO_IN);
	}
	return G_SOURCE_CONTINUE;
}

static GSourceFuncs exec_glib_source_funcs = {
	NULL, NULL, exec_glib_dispatch, NULL, NULL, NULL
};

/*
 * A new source for @loop, not attached; NULL if @loop cannot give a
 * descriptor (exec_loop_fd()).
 */
static inline GSource *exec_glib_source_new_fd(int fd)
{
	struct exec_glib_source *src;

	if (fd < 0)
		return NULL;
	src = (struct exec_glib_source *)
		g_source_new(&exec_glib_source_funcs, sizeof(*src));
	src->tag = g_source_add_unix_fd(&src->source, fd, G_IO_IN);
	g_source_set_can_recurse(&src->source, TRUE);
	g_source_set_name(&src->source, "libexec loop");
	return &src->source;
}

static inline GSource *exec_glib_source_new(struct exec_loop *loop)
{
	GSource *src = exec_glib_source_new_fd(exec_loop_fd(loop));

	if (src)
		((struct exec_glib_source *)src)->loop = loop;
	return src;
}

/* The same for a loop scheduler (exec_loop_scheduler_fd()). */
static inline GSource *
exec_glib_scheduler_source_new(struct exec_loop_scheduler *ls)
{
	GSource *src = exec_glib_source_new_fd(exec_loop_scheduler_fd(ls));

	if (src)
		((struct exec_glib_source *)src)->ls = ls;
	return src;
}

#endif /* EXEC_GLIB_H */
