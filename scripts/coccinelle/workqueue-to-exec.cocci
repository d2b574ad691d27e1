// SPDX-License-Identifier: GPL-2.0 OR MIT
/// Converts a driver's workqueue use to exec's API (include/exec/):
/// work_struct and delayed_work to exec_work and exec_timer, a driver's own
/// workqueue to a thread pool whose attributes follow the workqueue's flags,
/// and the calls on them (Documentation/migration.rst has the table).
///
/// What it cannot convert, it leaves as it is and names on stdout, one
/// "file:line: exec-migrate: ..." line a site; scripts/coccinelle/
/// workqueue-to-exec.sh runs it and lists whatever workqueue use is left.
///
/// Confidence: Moderate: types and calls are converted one for one, but
/// what differs (Documentation/migration.rst) needs a reading of the driver.
/// Options: --no-includes
//
// Rule order: the calls first, while the code still has its workqueue
// types, then the types.

virtual patch

@initialize:python@
@@
import re

# The executor each plain item is queued on, by the item's key (its member
# name, or the expression of a global item), as the queue_work() calls
# name it: cancel_work_sync() and flush_work() need it, and the workqueue
# API does not.
item_exec = {}
item_conflict = set()

def note(p, msg):
	print("%s:%s: exec-migrate: %s (in %s())" %
	      (p[0].file, p[0].line, msg, p[0].current_element))

# Expressions inside macro arguments come with spaces around "->",
# "." and "&": compare them without.
def tight(x):
	x = re.sub(r"\s*(->|\.)\s*", r"\1", x.strip())
	return re.sub(r"^&\s*", "&", x)

# "&b->fld" or "&b.fld" -> (b, fld); "&global" -> ("", global).
def split_item(w):
	w = tight(w)
	m = re.match(r"^&\s*(.*?)\s*(->|\.)\s*(\w+)$", w)
	if m:
		return m.group(1), m.group(2), m.group(3)
	return "", "", w

# @wrap turns the queue's expression into its executor's, "%s" for it.  A
# queue reached through the item's own base ("d->wq" for "&d->work") is
# kept relative to it, so that "&dev->work" elsewhere finds "dev->wq", and
# "&sample.work" finds "sample.wq".
def record(wrap, e, w):
	base, arrow, key = split_item(w)
	e = tight(e)
	if base and e.startswith(base + arrow):
		e = "\x00" + e[len(base + arrow):]
	ex = (wrap, e)
	old = item_exec.get(key)
	if old is not None and old != ex:
		item_conflict.add(key)
	item_exec[key] = ex

def executor_for(w):
	base, arrow, key = split_item(w)
	if key in item_conflict or key not in item_exec:
		return None
	wrap, e = item_exec[key]
	if e.startswith("\x00"):
		if not base:
			return None
		e = base + arrow + e[1:]
	return wrap % e

// --- what is not converted -------------------------------------------------

@ordered@
position p;
expression E0;
@@
(
alloc_ordered_workqueue@p(...)
|
alloc_workqueue@p(E0, <+... __WQ_ORDERED ...+>, ...)
)

@script:python@
p << ordered.p;
@@
note(p, "ordered workqueue not converted: an ordered executor is a serial executor (exec_serial_create()) over a pool, two handles where the driver keeps one")

@noequiv@
position p;
expression E0, E;
@@
(
alloc_workqueue@p(E0, E, ...)
)

@script:python@
p << noequiv.p;
E << noequiv.E;
@@
for flag, why in (("WQ_MEM_RECLAIM", "no rescuer: the pool's workers are started at creation and stay"),
		  ("WQ_CPU_INTENSIVE", "no equivalent: a pool does not count its items against concurrency"),
		  ("WQ_POWER_EFFICIENT", "no equivalent"),
		  ("WQ_SYSFS", "no sysfs attributes; statistics are in debugfs (stats.h)")):
	if flag in E:
		note(p, "%s: %s" % (flag, why))

@leftover@
position p;
identifier f = {drain_workqueue, queue_work_on,
		queue_delayed_work_on, mod_delayed_work_on, schedule_work_on,
		schedule_delayed_work_on, flush_scheduled_work, work_busy,
		current_work, current_is_workqueue_rescuer,
		workqueue_set_max_active, alloc_workqueue_attrs,
		apply_workqueue_attrs, INIT_WORK_ONSTACK,
		INIT_DELAYED_WORK_ONSTACK, INIT_DEFERRABLE_WORK,
		DECLARE_WORK, DECLARE_DELAYED_WORK, queue_rcu_work,
		cancel_work, flush_rcu_work};
@@
f@p(...)

@script:python@
p << leftover.p;
f << leftover.f;
@@
note(p, "%s(): no exec equivalent converted by this patch" % f)

// --- a driver's own workqueue ----------------------------------------------

@alloc depends on patch@
expression E, F, FL, M;
expression list ES;
@@
- E = alloc_workqueue(F, FL, M, ES);
+ {
+ 	char exec_name[TASK_COMM_LEN];
+ 	struct exec_thread_pool_attr exec_attr = {
+ 		.thread.name = exec_name,
+ 		.thread.nice = EXEC_NICE_MIN,
+ 		.no_spin = true,
+ 	};
+
+ 	exec_attr.per_cpu = !((FL) & WQ_UNBOUND);
+ 	if (!exec_attr.per_cpu) {
+ 		exec_attr.max_threads = min_t(unsigned int,
+ 					      (M) > 0 ? (M) : WQ_DFL_ACTIVE,
+ 					      EXEC_THREAD_POOL_MAX_THREADS);
+ 		exec_attr.concurrency = exec_attr.max_threads;
+ 		exec_attr.nr_threads = min(num_online_cpus(),
+ 					   exec_attr.max_threads);
+ 	}
+ 	exec_attr.thread.freezable = (FL) & WQ_FREEZABLE;
+ 	exec_attr.thread.set_nice = (FL) & WQ_HIGHPRI;
+ 	snprintf(exec_name, sizeof(exec_name), F, ES);
+ 	if (exec_thread_pool_create(&E, &exec_attr))
+ 		E = NULL;
+ }

@allocstmt@
position p;
expression E;
@@
E = alloc_workqueue@p(...);

@allocleft@
position p != allocstmt.p;
@@
alloc_workqueue@p(...)

@script:python@
p << allocleft.p;
@@
note(p, "alloc_workqueue() not in a statement \"x = alloc_workqueue(...);\": not converted")

@depends on patch@
expression E;
@@
(
- destroy_workqueue(E)
+ exec_thread_pool_destroy(E)
|
- flush_workqueue(E)
+ exec_executor_flush(exec_thread_pool_executor(E))
|
- drain_workqueue(E)
+ exec_executor_drain(exec_thread_pool_executor(E))
)

// --- where each plain item is queued ---------------------------------------

// The kernel's shared workqueues become the default executor (an unbound
// pool, neither freezable nor high-priority: the note says so).
@sysq@
identifier sw = {system_wq, system_highpri_wq, system_long_wq,
		 system_unbound_wq, system_freezable_wq,
		 system_power_efficient_wq,
		 system_freezable_power_efficient_wq};
expression W;
position p;
@@
(
queue_work@p(sw, W)
|
queue_delayed_work@p(sw, W, ...)
|
mod_delayed_work@p(sw, W, ...)
)

@script:python@
p << sysq.p;
sw << sysq.sw;
W << sysq.W;
@@
record("exec_default_executor()%s", "", W)
note(p, "%s: the default executor, an unbound pool shared by exec's users (not freezable, not high-priority)" % sw)

@depends on patch@
identifier sw = sysq.sw;
expression W, D;
@@
(
- queue_work(sw, W)
+ exec_submit(exec_default_executor(), W)
|
- queue_delayed_work(sw, W, D)
+ exec_submit_after(exec_default_executor(), W, jiffies_to_nsecs(D))
|
- mod_delayed_work(sw, W, D)
+ exec_timer_mod(exec_default_executor(), W, EXEC_CLOCK_MONOTONIC,
+ 	       exec_clock_now(EXEC_CLOCK_MONOTONIC) + jiffies_to_nsecs(D))
)

@queued@
expression E, W;
position p != sysq.p;
@@
queue_work@p(E, W)

@script:python@
E << queued.E;
W << queued.W;
@@
record("exec_thread_pool_executor(%s)", E, W)

@queued_default@
expression W;
@@
(
schedule_work(W)
|
schedule_delayed_work(W, ...)
)

@script:python@
W << queued_default.W;
@@
record("exec_default_executor()%s", "", W)

// --- submissions ------------------------------------------------------------

@depends on patch@
expression E, W, D;
@@
(
- queue_work(E, W);
+ exec_submit(exec_thread_pool_executor(E), W);
|
- schedule_work(W);
+ exec_default_submit(W);
|
- schedule_delayed_work(W, D);
+ exec_submit_after(exec_default_executor(), W, jiffies_to_nsecs(D));
|
- queue_delayed_work(E, W, D);
+ exec_submit_after(exec_thread_pool_executor(E), W, jiffies_to_nsecs(D));
|
- mod_delayed_work(E, W, D);
+ exec_timer_mod(exec_thread_pool_executor(E), W, EXEC_CLOCK_MONOTONIC,
+ 	       exec_clock_now(EXEC_CLOCK_MONOTONIC) + jiffies_to_nsecs(D));
)

// The same in an expression: the workqueue calls return true when they
// queued (or, mod_delayed_work(), moved) the item.
@depends on patch@
expression E, W, D;
@@
(
- queue_work(E, W)
+ (exec_submit(exec_thread_pool_executor(E), W) == 0)
|
- schedule_work(W)
+ (exec_default_submit(W) == 0)
|
- schedule_delayed_work(W, D)
+ (exec_submit_after(exec_default_executor(), W, jiffies_to_nsecs(D)) == 0)
|
- queue_delayed_work(E, W, D)
+ (exec_submit_after(exec_thread_pool_executor(E), W, jiffies_to_nsecs(D)) == 0)
|
- mod_delayed_work(E, W, D)
+ (exec_timer_mod(exec_thread_pool_executor(E), W, EXEC_CLOCK_MONOTONIC,
+ 		exec_clock_now(EXEC_CLOCK_MONOTONIC) + jiffies_to_nsecs(D)) > 0)
)

// --- cancel and flush of plain items: they need the executor ----------------

@sync@
expression W;
position p;
identifier f = {cancel_work_sync, cancel_work, flush_work};
@@
f@p(W)

@script:python syncex@
W << sync.W;
p << sync.p;
f << sync.f;
ex;
@@
s = executor_for(W)
if s is None:
	note(p, "%s(%s): the executor it was queued on is not known (no queue_work() of it, or several): not converted" % (f, W))
	cocci.include_match(False)
else:
	coccinelle.ex = cocci.make_expr(s)

@depends on patch@
expression W;
position sync.p;
expression syncex.ex;
@@
(
- cancel_work_sync@p(W)
+ (exec_work_cancel_sync(ex, W) == EXEC_CANCEL_REMOVED)
|
- cancel_work@p(W)
+ (exec_work_cancel(ex, W) == EXEC_CANCEL_REMOVED)
|
- flush_work@p(W)
+ (exec_work_flush(ex, W) > 0)
)

// --- items ------------------------------------------------------------------

@depends on patch@
expression W, F;
@@
(
- INIT_WORK(W, F)
+ exec_work_init(W, F)
|
- INIT_DELAYED_WORK(W, F)
+ exec_timer_init(W, F, NULL)
|
- work_pending(W)
+ exec_work_pending(W)
|
- delayed_work_pending(W)
+ exec_work_pending(&(W)->work)
|
- to_delayed_work(W)
+ container_of(W, struct exec_timer, work)
|
- cancel_delayed_work_sync(W)
+ (exec_timer_cancel_sync(W) > 0)
|
- cancel_delayed_work(W)
+ (exec_timer_cancel(W) > 0)
|
- flush_delayed_work(W)
+ (exec_timer_flush(W) > 0)
)

// Statement forms of the last rule: no comparison when nothing reads it.
@depends on patch@
expression W, X;
@@
(
- (exec_timer_cancel_sync(W) > 0);
+ exec_timer_cancel_sync(W);
|
- (exec_timer_cancel(W) > 0);
+ exec_timer_cancel(W);
|
- (exec_timer_flush(W) > 0);
+ exec_timer_flush(W);
|
- (exec_work_cancel_sync(X, W) == EXEC_CANCEL_REMOVED);
+ exec_work_cancel_sync(X, W);
|
- (exec_work_cancel(X, W) == EXEC_CANCEL_REMOVED);
+ exec_work_cancel(X, W);
|
- (exec_work_flush(X, W) > 0);
+ exec_work_flush(X, W);
)

// --- types ------------------------------------------------------------------

@depends on patch@
@@
- struct work_struct
+ struct exec_work

@depends on patch@
@@
- struct delayed_work
+ struct exec_timer

@depends on patch@
@@
- struct workqueue_struct
+ struct exec_thread_pool
