/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Serial executor (N3785 serial_executor; a strand): runs its items one at a
 * time, in submission order, on any underlying executor (another serial
 * executor included).  The completion of one item happens before the start of
 * the next.  It batches its own submissions to the underlying executor, so the
 * number of submissions the underlying executor sees is unspecified.  No
 * item runs in a submitter (but through exec_dispatch() or over the inline
 * executor).  When a bounded underlying executor has no room for a batch, a
 * submission that may not wait (exec_try_submit(), exec_post()) to an idle
 * serial executor gets -EAGAIN and its item back; exec_submit(), which never
 * waits here, is counted beyond the limit (Documentation/executors.rst).
 * A serial executor holds at most 2^27 items queued: a submission beyond
 * that gets -ENOSPC.
 */
#ifndef EXEC_SERIAL_H
#define EXEC_SERIAL_H

#include "executor.h"

EXEC_BEGIN_DECLS

/**
 * struct exec_serial - a serial executor
 * @opaque: the library's; neither read nor written by its user
 *
 * Its size is all a strand costs: made by exec_serial_create(), or in the
 * user's memory, as a driver embeds a work_struct, by exec_serial_init().
 */
struct exec_serial {
	unsigned long opaque[14 + 16 / sizeof(unsigned long)];
};

/**
 * exec_serial_create - create a serial executor
 * @serialp: where to store it
 * @underlying: the executor that runs it; must outlive it
 *
 * Until exec_serial_destroy() the serial executor depends on @underlying:
 * destroying @underlying fails with -EBUSY meanwhile.
 *
 * One allocation of sizeof(struct exec_serial), made for a connection's
 * life: what only some strands use is made by its first use: the record
 * of their timed items by the first one armed (exec_submit_at()), that of
 * their statistics beyond the counts of items by timing turned on or a
 * first discard or refusal (exec_executor_stats()).
 *
 * Context: Process context; may sleep.
 * Return: 0; -EINVAL for NULL arguments; -ENOMEM.
 */
int exec_serial_create(struct exec_serial **serialp,
		       struct exec_executor *underlying);

/**
 * exec_serial_init - set up a serial executor in the caller's memory
 * @serial: the memory, not in use by another serial executor
 * @underlying: the executor that runs it; must outlive it
 *
 * exec_serial_create() without an allocation: the strand is @serial.  It
 * is ended by exec_serial_destroy(), after which @serial may be freed or
 * set up again; that destroy also waits until @underlying no longer holds
 * the strand's runner (it takes it back where @underlying can cancel an
 * item, and otherwise waits for the run that holds it, which only lets
 * go).  What only some strands use is allocated by its first use, as for
 * exec_serial_create().
 *
 * Context: Any context.
 * Return: 0; -EINVAL for NULL arguments.
 */
int exec_serial_init(struct exec_serial *serial,
		     struct exec_executor *underlying);

/**
 * exec_serial_executor - the serial executor as an abstract executor
 * @serial: the serial executor
 *
 * A unit of outstanding work counted on it (exec_on_work_started(), a
 * work guard, and what takes one: a continuation, a group notification,
 * an I/O handler) is counted on the underlying executor too, as P0113's
 * strand forwards it to its inner executor: it holds a pool's join, a
 * loop scheduler's run.  So are timed items armed on it while they wait,
 * where the underlying executor counts its own timed items (a loop
 * scheduler, a managed queue, a strand over those; not a thread pool).
 *
 * Context: Any context.
 * Return: the executor.
 */
struct exec_executor *exec_serial_executor(struct exec_serial *serial);

/**
 * exec_serial_underlying - the executor given to exec_serial_create()
 * @serial: the serial executor
 *
 * Context: Any context.
 * Return: the underlying executor.
 */
struct exec_executor *exec_serial_underlying(struct exec_serial *serial);

/**
 * exec_serial_running_in_this_thread - whether the caller runs its item now
 * @serial: the serial executor
 *
 * Context: Any context.
 * Return: true if the calling thread is running an item of @serial.
 */
bool exec_serial_running_in_this_thread(const struct exec_serial *serial);

/**
 * exec_serial_destroy - destroy a serial executor
 * @serial: the serial executor
 *
 * Lets the item now running (if any) finish, then hands every item not yet
 * started to its discard callback (N3785: "finishes running any currently
 * executing closure, then destroys all remaining closures").
 *
 * Context: Process context; may sleep.
 * Return: the number of items discarded (>= 0); -EINVAL for NULL;
 * -EDEADLK when called from an item of @serial itself (nothing is done);
 * -EBUSY, with a warning and nothing done, while anything still depends on
 * @serial: a serial executor over it, its installation as the default
 * executor, a work guard or unit of outstanding work, a future
 * continuation, group notification or latch continuation registered on it,
 * or a handler bound to it (executor.h).  Timed items armed on it are no
 * dependents: they are discarded.
 */
long exec_serial_destroy(struct exec_serial *serial);

EXEC_END_DECLS

#endif /* EXEC_SERIAL_H */
