// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The abstract executor: argument checks and the pending bit, shared by
 * every executor, and the record cache that every per-call item of the
 * core comes from.
 *
 * A record is the memory of one item the core makes per call: a closure
 * (an exec_work with a function and an argument around it), a group's
 * closure, a spawn, a handler's operation, a future.  Records are
 * allocated by submitters but finished by whichever thread ran them, so a
 * cache is, per size class, a ring of chunks in which the allocator walks
 * a cursor over slots in order, and a record is given back by clearing its
 * slot's own @in_use: freeing writes only the slot's own line(s), which its
 * runner has just read, and no line that others write.  Items run roughly
 * in the order they were submitted, so the slot under the cursor is
 * normally long done; the allocator looks at a few, and adds a chunk to the
 * ring when they are all still in use.  A record that lives long (a future
 * its owner keeps) only makes the cursor skip its slot.  As Asio's
 * per-thread recycling cache serves every kind of operation, one cache
 * serves every kind of record: a few size classes of one, two, four and
 * eight cache lines (the last for a future in a kernel whose wait queues
 * carry lockdep's maps), and the plain allocator for a record larger than
 * those, marked so that the same exec_record_free() frees it.
 *
 * The cache is the caller's own (exec_local_closures()): the CPU's in the
 * kernel, walked with interrupts off, the thread's in userspace.  So the
 * allocation takes no lock, and submitters on different CPUs or threads
 * never share a cursor or a slot's line.  A record belongs to no executor:
 * it may run on any, and memory lives as long as the library.  In
 * userspace a thread that exits leaves its rings on lists of orphans
 * (exec_closure_cache_exit()), where the next thread to need a ring of
 * that class takes it over, records still in flight and all.
 *
 * Allowed concurrently on one cache:
 *
 *                 alloc   free
 *   alloc          no      yes
 *   free           yes     yes
 *
 * alloc is serialised by the cache's locality (one CPU with interrupts off,
 * or one thread); free is exec_record_free(), from any thread.
 */
#include "internal.h"

/*
 * Slots the allocator looks at before it adds a chunk: workers finish
 * records slightly out of order, and one that is late should not cost a
 * chunk.
 */
#define EXEC_RECORD_SCAN	8
/* A chunk: its links in the first cache line, then its slots. */
#define EXEC_RECORD_CHUNK_BYTES	4096
/* exec_record::in_use: a slot of a ring, or a record of the allocator. */
#define EXEC_RECORD_SLOT	1UL
#define EXEC_RECORD_HEAP	2UL

/*
 * The head of a record, before what the caller asked for.  @in_use: set by
 * the cache's allocator; cleared with release by whoever finishes with the
 * record, once it has read what it needs.
 */
struct exec_record {
	unsigned long in_use;
	unsigned long payload[];
};

/*
 * @work first: the closure is the exec_work that its caller's executor
 * queues (the record's head is before it).
 */
struct exec_closure {
	struct exec_work work;
	exec_fn fn;
	exec_fn discard;
	void *arg;
};

/*
 * @next: the ring; owned by the cache's allocator
 * @next_orphan: L: exec_orphans_lock, in the first chunk of an orphaned ring
 * The slots follow, from the chunk's second cache line.
 */
struct exec_record_chunk {
	struct exec_record_chunk *next;
	struct exec_record_chunk *next_orphan;
};

/*
 * Rings of caches whose thread has exited, waiting for a new owner, per
 * class.  Raw: taken with interrupts off (exec_record_alloc()), even on
 * PREEMPT_RT.
 */
static DEFINE_RAW_SPINLOCK(exec_orphans_lock);
/* L: exec_orphans_lock; read without it only to skip the lock when empty */
static struct exec_record_chunk *exec_orphans[EXEC_RECORD_CLASSES];
/* A: slots of every cache, orphans included, for the tests */
static atomic_long_t exec_record_slots;

/* The bytes of one slot of @class: one, two, four, eight cache lines. */
#define EXEC_RECORD_SLOT_BYTES(class)	((size_t)EXEC_RECORD_LINE << (class))
/* Slots in a chunk of @class, after the line of its links. */
#define EXEC_RECORD_CHUNK_SLOTS(class)					\
	((EXEC_RECORD_CHUNK_BYTES - EXEC_RECORD_LINE) /			\
	 EXEC_RECORD_SLOT_BYTES(class))
/*
 * The class of a record of @size bytes (the caller's, without the head);
 * EXEC_RECORD_CLASSES for one that no slot holds.  A constant where @size
 * is.
 */
#define EXEC_RECORD_FITS(size, class)					\
	((size) + sizeof(struct exec_record) <= EXEC_RECORD_SLOT_BYTES(class))
#define EXEC_RECORD_CLASS(size)						\
	(EXEC_RECORD_FITS(size, 0) ? 0 :				\
	 EXEC_RECORD_FITS(size, 1) ? 1 :				\
	 EXEC_RECORD_FITS(size, 2) ? 2 :				\
	 EXEC_RECORD_FITS(size, 3) ? 3 : EXEC_RECORD_CLASSES)

static inline unsigned int exec_record_chunk_slots(unsigned int class)
{
	return EXEC_RECORD_CHUNK_SLOTS(class);
}

static inline struct exec_record *exec_record_slot(struct exec_record_chunk *ch,
						   unsigned int class,
						   unsigned int i)
{
	return (struct exec_record *)((char *)ch + EXEC_RECORD_LINE +
				      i * EXEC_RECORD_SLOT_BYTES(class));
}

/*
 * The table of an executor that runs its items on threads of its own, with
 * its dependents counted per kind (@nr_kind, A: instead of @deps.nr) and
 * what lockdep knows of it (exec_executor_lockdep_of()); the executors whose
 * items run on another's threads (a strand, a priority executor) use that
 * one's map, and their table is struct exec_dependents alone, a strand's
 * inside the strand.
 */
struct exec_dependents_lockdep {
	struct exec_dependents deps;
	atomic_t nr_kind[EXEC_DEP_COUNT];
	struct exec_lockdep lockdep;
};

struct exec_dependents exec_static_dependents;

/*
 * Whether @ex's table is a struct exec_dependents_lockdep: made by
 * exec_executor_init() for an executor with threads of its own.
 */
static bool exec_executor_has_lockdep(const struct exec_executor *ex)
{
	return ex->dependents && ex->dependents != &exec_static_dependents &&
	       !ex->ops->context_executor;
}

/* @ex's dependents per kind; only for exec_executor_has_lockdep(@ex). */
static atomic_t *exec_executor_kinds(const struct exec_executor *ex)
{
	return container_of(ex->dependents, struct exec_dependents_lockdep,
			    deps)->nr_kind;
}

/*
 * Where a dependent of @kind is counted: per kind where @ex keeps the
 * kinds apart, else in the one count.
 */
static atomic_t *exec_executor_dep_count(struct exec_executor *ex,
					 enum exec_dep_kind kind)
{
	if (exec_executor_has_lockdep(ex))
		return &exec_executor_kinds(ex)[kind];
	return &ex->dependents->nr;
}

/* For the report: "<count> <name>" per kind (singular, plural). */
static const char *const exec_dep_names[EXEC_DEP_COUNT][2] = {
	[EXEC_DEP_SERIAL] = { "serial executor", "serial executors" },
	[EXEC_DEP_PRIORITY] = { "priority executor", "priority executors" },
	[EXEC_DEP_MANAGED_QUEUE] = { "managed queue", "managed queues" },
	[EXEC_DEP_DEFAULT] = { "default executor installation",
			       "default executor installations" },
	[EXEC_DEP_WORK] = { "work guard", "work guards" },
	[EXEC_DEP_CONTINUATION] = { "future continuation",
				    "future continuations" },
	[EXEC_DEP_GROUP_NOTIFY] = { "group notification",
				    "group notifications" },
	[EXEC_DEP_LATCH] = { "latch continuation", "latch continuations" },
	[EXEC_DEP_HANDLER] = { "bound handler", "bound handlers" },
};

/* Takes the slot under @ring's cursor if it is free; moves the cursor on. */
static struct exec_record *exec_record_take(struct exec_record_ring *ring,
					    unsigned int class)
{
	struct exec_record *r = exec_record_slot(ring->chunk, class,
						 ring->index);

	if (++ring->index == exec_record_chunk_slots(class)) {
		ring->index = 0;
		ring->chunk = ring->chunk->next;
	}
	/* Acquire: pairs with the release in exec_record_free(). */
	if (smp_load_acquire(&r->in_use))
		return NULL;
	r->in_use = EXEC_RECORD_SLOT;
	return r;
}

/* An empty ring takes over an orphaned one of its class, if there is one. */
static void exec_record_adopt(struct exec_record_ring *ring,
			      unsigned int class)
{
	struct exec_record_chunk *orphan;
	unsigned long flags;

	if (!READ_ONCE(exec_orphans[class]))
		return;
	raw_spin_lock_irqsave(&exec_orphans_lock, flags);
	orphan = exec_orphans[class];
	if (orphan) {
		WRITE_ONCE(exec_orphans[class], orphan->next_orphan);
		orphan->next_orphan = NULL;
	}
	raw_spin_unlock_irqrestore(&exec_orphans_lock, flags);
	ring->chunk = orphan;
	ring->index = 0;
}

/* A slot of @class from a new chunk, which joins the caller's ring. */
static struct exec_record *exec_record_grow(unsigned int class, gfp_t gfp)
{
	struct exec_record_ring *ring;
	struct exec_record_chunk *chunk;
	struct exec_record *r;
	unsigned long flags;

	chunk = exec_core_kzalloc_aligned(EXEC_RECORD_CHUNK_BYTES,
					  EXEC_RECORD_LINE, gfp);
	if (!chunk)
		return NULL;
	atomic_long_add(exec_record_chunk_slots(class), &exec_record_slots);
	r = exec_record_slot(chunk, class, 0);
	r->in_use = EXEC_RECORD_SLOT;

	/*
	 * Into the ring at the cursor, the slots it skipped coming later;
	 * the ring of the CPU this runs on now, which may not be the one
	 * that was full.
	 */
	local_irq_save(flags);
	ring = &exec_local_closures()->rings[class];
	if (ring->chunk) {
		chunk->next = ring->chunk->next;
		ring->chunk->next = chunk;
	} else {
		chunk->next = chunk;
	}
	ring->chunk = chunk;
	ring->index = 1;
	local_irq_restore(flags);
	return r;
}

/* A slot of @class from the caller's cache, or a new chunk's. */
static __always_inline struct exec_record *
exec_record_alloc_class(unsigned int class, gfp_t gfp)
{
	struct exec_record_ring *ring;
	struct exec_record *r = NULL;
	unsigned long flags;
	unsigned int i;

	/* Interrupts off: the kernel's cache is the CPU's. */
	local_irq_save(flags);
	ring = &exec_local_closures()->rings[class];
	if (unlikely(!ring->chunk))
		exec_record_adopt(ring, class);
	for (i = 0; ring->chunk && !r && i < EXEC_RECORD_SCAN; i++)
		r = exec_record_take(ring, class);
	local_irq_restore(flags);
	if (likely(r))
		return r;
	return exec_record_grow(class, gfp);
}

/* A record that no class holds: the allocator's, freed as such. */
static struct exec_record *exec_record_alloc_heap(size_t size, gfp_t gfp)
{
	struct exec_record *r;

	r = exec_core_kzalloc_aligned(sizeof(*r) + size, sizeof(long), gfp);
	if (r)
		r->in_use = EXEC_RECORD_HEAP;
	return r;
}

/* exec_record_alloc(), inlined where @size is a constant. */
static __always_inline void *exec_record_get(size_t size, gfp_t gfp)
{
	unsigned int class = EXEC_RECORD_CLASS(size);
	struct exec_record *r;

	if (unlikely(class == EXEC_RECORD_CLASSES))
		r = exec_record_alloc_heap(size, gfp);
	else
		r = exec_record_alloc_class(class, gfp);
	return likely(r) ? r->payload : NULL;
}

/**
 * exec_record_alloc - a record from the caller's cache
 * @size: its size; its alignment may not exceed a long's
 * @gfp: how to allocate a chunk if the cache needs one
 *
 * For every item the core makes per call (closures, a group's closures,
 * spawns, handler operations, futures): a warm cache hands out a slot
 * without allocating.  The record is not zeroed; exec_record_free() gives
 * it back, from any thread.
 *
 * Context: as @gfp allows.
 * Return: the record; NULL for lack of memory.
 */
void *exec_record_alloc(size_t size, gfp_t gfp)
{
	return exec_record_get(size, gfp);
}
EXPORT_SYMBOL_FOR_TESTS(exec_record_alloc);

/**
 * exec_record_zalloc - a zeroed record from the caller's cache
 * @size: as exec_record_alloc()
 * @gfp: as exec_record_alloc()
 *
 * Context: as @gfp allows.
 * Return: the record, zeroed; NULL for lack of memory.
 */
void *exec_record_zalloc(size_t size, gfp_t gfp)
{
	void *p = exec_record_alloc(size, gfp);

	if (p)
		memset(p, 0, size);
	return p;
}
EXPORT_SYMBOL_FOR_TESTS(exec_record_zalloc);

/**
 * exec_record_free - give a record back
 * @p: from exec_record_alloc() or exec_record_zalloc(); nothing reads it
 *	after this
 *
 * Context: Any context.
 */
void exec_record_free(void *p)
{
	struct exec_record *r = (struct exec_record *)
		((char *)p - offsetof(struct exec_record, payload));

	if (unlikely(r->in_use == EXEC_RECORD_HEAP)) {
		kfree(r);
		return;
	}
	/* Release: the reads of the record come first (exec_record_take()). */
	smp_store_release(&r->in_use, 0);
}
EXPORT_SYMBOL_FOR_TESTS(exec_record_free);

/**
 * exec_closure_cache_exit - a thread's cache goes with its thread
 * @cache: the cache, which no one allocates from any more
 *
 * Its rings, with any records still in flight, wait for the next thread
 * that needs one (exec_record_alloc()).
 *
 * Context: Any context; the userspace backend calls it at thread exit.
 */
void exec_closure_cache_exit(struct exec_closure_cache *cache)
{
	struct exec_record_chunk *chunk;
	unsigned long flags;
	unsigned int class;

	for (class = 0; class < EXEC_RECORD_CLASSES; class++) {
		chunk = cache->rings[class].chunk;
		if (!chunk)
			continue;
		cache->rings[class].chunk = NULL;
		cache->rings[class].index = 0;
		raw_spin_lock_irqsave(&exec_orphans_lock, flags);
		chunk->next_orphan = exec_orphans[class];
		WRITE_ONCE(exec_orphans[class], chunk);
		raw_spin_unlock_irqrestore(&exec_orphans_lock, flags);
	}
}

/* Frees a ring of @class, whose records have all been finished. */
static void exec_record_ring_free(struct exec_record_chunk *first,
				  unsigned int class)
{
	struct exec_record_chunk *chunk = first, *next;

	do {
		next = chunk->next;
		kfree(chunk);
		atomic_long_sub(exec_record_chunk_slots(class),
				&exec_record_slots);
		chunk = next;
	} while (chunk != first);
}

/**
 * exec_closure_cache_release - free a cache's memory
 * @cache: a cache no one allocates from, whose records have all finished
 *
 * Context: Process context.
 */
void exec_closure_cache_release(struct exec_closure_cache *cache)
{
	unsigned int class;

	for (class = 0; class < EXEC_RECORD_CLASSES; class++) {
		if (cache->rings[class].chunk)
			exec_record_ring_free(cache->rings[class].chunk,
					      class);
		cache->rings[class].chunk = NULL;
		cache->rings[class].index = 0;
	}
}

/**
 * exec_closure_orphans_release - free the rings of exited threads
 *
 * Context: Process context; every record has finished, and no thread
 * allocates records concurrently.
 */
void exec_closure_orphans_release(void)
{
	struct exec_record_chunk *ring;
	unsigned long flags;
	unsigned int class;

	for (class = 0; class < EXEC_RECORD_CLASSES; class++) {
		for (;;) {
			raw_spin_lock_irqsave(&exec_orphans_lock, flags);
			ring = exec_orphans[class];
			if (ring)
				WRITE_ONCE(exec_orphans[class],
					   ring->next_orphan);
			raw_spin_unlock_irqrestore(&exec_orphans_lock, flags);
			if (!ring)
				break;
			exec_record_ring_free(ring, class);
		}
	}
}

/**
 * exec_closures_fork - the closure caches across fork()
 * @event: the step of the fork
 *
 * The orphans' lock is taken before the fork, so that no thread that was
 * exiting holds it in the child.  The rings stay as they are: closures in
 * flight on the parent's executors stay in use in the child for good (a
 * ring skips them), and the caches of the parent's other threads are lost
 * with those threads.
 *
 * Context: Process context; from the pthread_atfork() handlers of the
 * userspace library (the kernel has no fork).
 */
void exec_closures_fork(enum exec_fork_event event)
{
	if (event == EXEC_FORK_PREPARE)
		raw_spin_lock(&exec_orphans_lock);
	else
		raw_spin_unlock(&exec_orphans_lock);
}

static void exec_closure_free(struct exec_closure *c)
{
	exec_record_free(c);
}

static void exec_closure_run(struct exec_work *work)
{
	struct exec_closure *c = container_of(work, struct exec_closure, work);
	exec_fn fn = c->fn;
	void *arg = c->arg;

	/* Given back first: @fn may submit again and reuse it at once. */
	exec_closure_free(c);
	fn(arg);
}

/**
 * exec_work_symbol - the function an item stands for, for reports
 * @work: an item, pending or owned by the caller
 *
 * Context: Any context.
 * Return: a closure's own function, else the item's.
 */
const void *exec_work_symbol(const struct exec_work *work)
{
	if (work->func == exec_closure_run)
		return container_of(work, struct exec_closure, work)->fn;
	return work->func;
}

static void exec_closure_drop(struct exec_work *work)
{
	struct exec_closure *c = container_of(work, struct exec_closure, work);
	exec_fn discard = c->discard;
	void *arg = c->arg;

	exec_closure_free(c);
	if (discard)
		discard(arg);
}

int exec_executor_init(struct exec_executor *ex,
		       const struct exec_executor_ops *ops)
{
	BUILD_BUG_ON(offsetof(struct exec_closure, work) != 0);
	/* A closure is a slot of the first class, its pointer's line. */
	BUILD_BUG_ON(EXEC_RECORD_CLASS(sizeof(struct exec_closure)) != 0);
	BUILD_BUG_ON(EXEC_RECORD_CHUNK_SLOTS(0) != EXEC_CLOSURES_PER_CHUNK);
	BUILD_BUG_ON(EXEC_RECORD_CLASSES != 4);
	struct exec_dependents_lockdep *dl;

	might_sleep();
	if (!ex || !ops || !ops->submit)
		return -EINVAL;
	ex->ops = ops;
	ex->timers = NULL;
	ex->own.context = NULL;
	/*
	 * A map for the executors that run their items on threads of their
	 * own; one whose items run on another's (a strand) shares that one's
	 * (exec_executor_lockdep()): strands are made by the thousand, and
	 * lockdep has classes for a few thousand keys in all.
	 */
	if (ops->context_executor) {
		ex->dependents = kzalloc(sizeof(*ex->dependents), GFP_KERNEL);
		return ex->dependents ? 0 : -ENOMEM;
	}
	dl = kzalloc(sizeof(*dl), GFP_KERNEL);
	if (!dl)
		return -ENOMEM;
	exec_lockdep_init(&dl->lockdep, ops->kind ? ops->kind : "executor");
	ex->dependents = &dl->deps;
	return 0;
}
EXPORT_SYMBOL_GPL(exec_executor_init);

/*
 * The executor whose threads run the items of @ex: @ex itself, or for one
 * that shares another's execution context (a strand, a priority executor)
 * that one's, as exec_executor_context() finds it.
 */
static struct exec_executor *exec_executor_root(struct exec_executor *ex)
{
	struct exec_executor *next;

	while (ex->ops && ex->ops->context_executor) {
		next = ex->ops->context_executor(ex);
		if (!next)
			break;
		ex = next;
	}
	return ex;
}

/**
 * exec_executor_lockdep_of - the lockdep map the items of an executor run in
 * @ex: the executor, not NULL
 *
 * For exec_executor_lockdep(), which calls it only when the platform has a
 * lock validator.
 *
 * Context: Any context.
 * Return: the map of the executor whose threads run @ex's items, or NULL
 * when that one has none (not set up by exec_executor_init(), or a
 * library-wide one such as the inline executor).
 */
struct exec_lockdep *exec_executor_lockdep_of(struct exec_executor *ex)
{
	ex = exec_executor_root(ex);
	if (!exec_executor_has_lockdep(ex))
		return NULL;
	return &container_of(ex->dependents, struct exec_dependents_lockdep,
			     deps)->lockdep;
}

/**
 * exec_executor_lockdep_wait_of - tell lockdep the caller waits for items
 * @ex: the executor whose items are waited for, not NULL
 *
 * Takes and releases the map of the executor that runs @ex's items, as a
 * writer: a lock the caller holds, and that one of those items takes (a
 * recursive reader of the map is held around each run), closes a cycle
 * that lockdep reports the first time both orders have been seen, whether
 * or not they ever met in time.  Not from an item of that same executor:
 * there a wait for another of its items is legitimate on a pool of several
 * threads, and the map is already held (as a reader); lockdep would call
 * it recursive locking.
 *
 * Context: Process context, before a wait.
 */
void exec_executor_lockdep_wait_of(struct exec_executor *ex)
{
	struct exec_lockdep *ld = exec_executor_lockdep_of(ex);

	if (ld && !exec_running_in_this_thread(exec_executor_root(ex)))
		exec_lockdep_wait(ld);
}

/**
 * exec_executor_init_embedded - exec_executor_init() without an allocation
 * @ex: the executor
 * @ops: its operations
 * @deps: its table of dependents, zeroed, in the memory of the executor
 *	that embeds @ex (a strand: one allocation per connection)
 *
 * End it with exec_executor_fini_embedded().
 *
 * Context: Any context.
 */
void exec_executor_init_embedded(struct exec_executor *ex,
				 const struct exec_executor_ops *ops,
				 struct exec_dependents *deps)
{
	ex->dependents = deps;
	ex->ops = ops;
	ex->timers = NULL;
	ex->own.context = NULL;
}

/**
 * exec_executor_depend - count a dependent of an executor
 * @ex: the executor; one that counts nothing is left alone
 * @kind: what depends on it
 *
 * Called when the dependent takes its pointer to @ex, never per item.
 *
 * Context: Any context.
 */
void exec_executor_depend(struct exec_executor *ex, enum exec_dep_kind kind)
{
	if (!ex || !ex->dependents)
		return;
	atomic_inc(exec_executor_dep_count(ex, kind));
}

/**
 * exec_executor_undepend - a dependent of an executor lets go of it
 * @ex: the executor
 * @kind: what depended on it, as given to exec_executor_depend()
 *
 * After this the dependent must not touch @ex: it may be destroyed at once.
 *
 * Context: Any context.
 */
void exec_executor_undepend(struct exec_executor *ex, enum exec_dep_kind kind)
{
	atomic_t *count;

	if (!ex || !ex->dependents)
		return;
	count = exec_executor_dep_count(ex, kind);
	/* Fully ordered: the dependent's last use of @ex comes first. */
	if (WARN_ON_ONCE(atomic_dec_return(count) < 0))
		atomic_inc(count);
}

/**
 * exec_executor_handover_begin - a continuation is being handed to @ex
 * @ex: the executor
 * @kind: what the continuation counted as until now
 *
 * From here until exec_executor_handover_end() the continuation is no
 * dependent of @ex, but a destroy of @ex waits for it to be submitted: its
 * owner may learn that it ran while the submitter still touches @ex.  The
 * same for a unit of outstanding work being released, whose release may
 * end a join or a run that the owner waits for.
 *
 * Context: Any context.
 */
void exec_executor_handover_begin(struct exec_executor *ex,
				  enum exec_dep_kind kind)
{
	if (!ex || !ex->dependents)
		return;
	/*
	 * Fully ordered, and before the kind's decrement: a destroy that
	 * reads the kind after the decrement reads @handover after it too.
	 */
	atomic_inc_return(&ex->dependents->handover);
	exec_executor_undepend(ex, kind);
}

/**
 * exec_executor_handover_end - the continuation is the executor's own
 * @ex: the executor, as given to exec_executor_handover_begin()
 *
 * The submitter's last access to @ex.
 *
 * Context: Any context.
 */
void exec_executor_handover_end(struct exec_executor *ex)
{
	if (!ex || !ex->dependents)
		return;
	/* Fully ordered: pairs with the acquire of the destroy's check. */
	atomic_dec_return(&ex->dependents->handover);
}

unsigned long exec_executor_dependents(const struct exec_executor *ex)
{
	unsigned long n = 0;
	unsigned int kind;

	if (!ex || !ex->dependents)
		return 0;
	if (!exec_executor_has_lockdep(ex))
		return max(atomic_read(&ex->dependents->nr), 0);
	for (kind = 0; kind < EXEC_DEP_COUNT; kind++)
		n += max(atomic_read(&exec_executor_kinds(ex)[kind]), 0);
	return n;
}
EXPORT_SYMBOL_GPL(exec_executor_dependents);

int exec_executor_check_unused(struct exec_executor *ex)
{
	char what[192];
	unsigned int kind;
	size_t len = 0;
	unsigned int spins = 0;
	unsigned long left;
	int nr;

	might_sleep();
	if (!ex || !ex->ops)
		return -EINVAL;
	for (;;) {
		left = exec_executor_dependents(ex);
		/*
		 * Then the hand-overs: one that began after the read of its
		 * kind shows here (pairs with the fully ordered increment in
		 * exec_executor_handover_begin()); acquire: its submitter's
		 * accesses to @ex happen before destroy's.
		 */
		smp_rmb();
		if (!ex->dependents ||
		    !atomic_read_acquire(&ex->dependents->handover))
			break;
		exec_backoff(&spins);
	}
	if (!left)
		return 0;
	what[0] = '\0';
	for (kind = 0; exec_executor_has_lockdep(ex) && kind < EXEC_DEP_COUNT;
	     kind++) {
		nr = atomic_read(&exec_executor_kinds(ex)[kind]);
		if (nr <= 0 || len >= sizeof(what))
			continue;
		len += snprintf(what + len, sizeof(what) - len, "%s%d %s",
				len ? ", " : "", nr,
				exec_dep_names[kind][nr != 1]);
	}
	if (!len)
		snprintf(what, sizeof(what),
			 "%lu dependents (serial executors, work guards, continuations, notifications or bound handlers)",
			 left);
	pr_warn("exec: %s executor %p not destroyed (-EBUSY): still used by %s\n",
		exec_executor_kind(ex), ex, what);
	WARN_ON_ONCE(1);
	return -EBUSY;
}
EXPORT_SYMBOL_GPL(exec_executor_check_unused);

void exec_executor_fini(struct exec_executor *ex)
{
	struct exec_dependents_lockdep *dl;

	if (!ex)
		return;
	exec_executor_context_release(ex);
	if (exec_executor_has_lockdep(ex)) {
		dl = container_of(ex->dependents,
				  struct exec_dependents_lockdep, deps);
		exec_lockdep_free(&dl->lockdep, dl);
	} else {
		kfree(ex->dependents);
	}
	ex->dependents = NULL;
}
EXPORT_SYMBOL_GPL(exec_executor_fini);

/**
 * exec_executor_fini_embedded - end what exec_executor_init_embedded() began
 * @ex: the executor, under the rules of exec_executor_fini()
 *
 * Such an executor shares another's execution context and has none of its
 * own to tear down; what it keeps in @ex->aux is its own to free.
 *
 * Context: Any context.
 */
void exec_executor_fini_embedded(struct exec_executor *ex)
{
	ex->dependents = NULL;
}

/**
 * exec_closures_allocated - how many record slots the caches hold
 *
 * For the tests, which check that closures and other records are reused.
 *
 * Context: Any context.
 * Return: the slots of every class allocated so far in every cache, free
 * or in use.
 */
unsigned long exec_closures_allocated(void)
{
	return atomic_long_read(&exec_record_slots);
}
EXPORT_SYMBOL_FOR_TESTS(exec_closures_allocated);

/**
 * exec_work_discard - hand an item that will not run back to its owner
 * @work: the pending item
 *
 * Clears the pending bit, then calls the item's discard callback, if any.
 * Like a work function, the callback may free the item.  A timed item that
 * a cancel took back after it came due is not discarded: that cancel ended
 * it, and its callback is not called.
 *
 * Context: Any context the discard callback allows.
 * Return: whether the item was discarded, for the counts that destroys
 * return; false only for such a cancelled timed item.
 */
bool exec_work_discard(struct exec_work *work)
{
	exec_work_fn discard = work->discard;

	if (READ_ONCE(work->flags) & EXEC_WORK_TIMER)
		return exec_timer_discard(work);
	test_and_clear_bit(EXEC_WORK_PENDING_BIT, &work->flags);
	if (discard)
		discard(work);
	return true;
}

/* Starts left before an injected failure; negative: no injection. */
static atomic_t exec_fault_thread_starts = ATOMIC_INIT(-1);

/**
 * exec_fault_inject_thread_start - make a coming thread start fail
 * @after: thread starts that still succeed before the one that fails;
 *	negative turns injection off
 *
 * For the tests of the error paths that a failed thread start takes.
 *
 * Context: Any context.
 */
void exec_fault_inject_thread_start(int after)
{
	atomic_set(&exec_fault_thread_starts, after);
}
EXPORT_SYMBOL_FOR_TESTS(exec_fault_inject_thread_start);

/**
 * exec_fault_thread_start - whether this thread start is to fail
 *
 * Context: Any context.
 * Return: true for the start chosen by exec_fault_inject_thread_start().
 */
bool exec_fault_thread_start(void)
{
	if (likely(atomic_read(&exec_fault_thread_starts) < 0))
		return false;
	return atomic_dec_return(&exec_fault_thread_starts) == -1;
}

/* Allocations left before an injected failure; negative: no injection. */
static atomic_t exec_fault_allocs = ATOMIC_INIT(-1);
static atomic_t exec_fault_allocs_fired;

/**
 * exec_fault_inject_alloc - make a coming allocation of the core fail
 * @after: allocations that still succeed before the one that fails;
 *	negative turns injection off
 *
 * For the tests' sweeps over every allocation of an operation.
 *
 * Context: Any context.
 */
void exec_fault_inject_alloc(int after)
{
	atomic_set(&exec_fault_allocs_fired, 0);
	atomic_set(&exec_fault_allocs, after);
}
EXPORT_SYMBOL_FOR_TESTS(exec_fault_inject_alloc);

/**
 * exec_fault_alloc - whether this allocation is to fail
 *
 * Context: Any context.
 * Return: true for the allocation chosen by exec_fault_inject_alloc().
 */
bool exec_fault_alloc(void)
{
	if (likely(atomic_read(&exec_fault_allocs) < 0))
		return false;
	if (atomic_dec_return(&exec_fault_allocs) != -1)
		return false;
	atomic_set(&exec_fault_allocs_fired, 1);
	return true;
}
EXPORT_SYMBOL_FOR_TESTS(exec_fault_alloc);

/**
 * exec_fault_alloc_fired - whether the injected failure has happened
 *
 * Context: Any context.
 * Return: true once the allocation chosen by exec_fault_inject_alloc() has
 * failed.
 */
bool exec_fault_alloc_fired(void)
{
	return atomic_read(&exec_fault_allocs_fired);
}
EXPORT_SYMBOL_FOR_TESTS(exec_fault_alloc_fired);

int exec_submit_flags(struct exec_executor *ex, struct exec_work *work,
		      unsigned int flags)
{
	int ret;

	if (unlikely(!ex || !ex->ops || !work || !work->func))
		return -EINVAL;
	if (test_and_set_bit(EXEC_WORK_PENDING_BIT, &work->flags))
		return -EALREADY;
	exec_trace_work_queue(ex, work);
	ret = ex->ops->submit(ex, work, flags);
	if (unlikely(ret))
		clear_bit_unlock(EXEC_WORK_PENDING_BIT, &work->flags);
	return ret;
}
EXPORT_SYMBOL_GPL(exec_submit_flags);

int exec_submit(struct exec_executor *ex, struct exec_work *work)
{
	return exec_submit_flags(ex, work, 0);
}
EXPORT_SYMBOL_GPL(exec_submit);

int exec_try_submit(struct exec_executor *ex, struct exec_work *work)
{
	return exec_submit_flags(ex, work, EXEC_SUBMIT_NOWAIT);
}
EXPORT_SYMBOL_GPL(exec_try_submit);

static void exec_closure_set(struct exec_closure *c, exec_fn fn,
			     exec_fn discard, void *arg)
{
	c->work.func = exec_closure_run;
	c->work.discard = exec_closure_drop;
	c->work.flags = EXEC_WORK_CLOSURE;
	c->fn = fn;
	c->discard = discard;
	c->arg = arg;
}

/**
 * exec_closure_get - a closure around @fn(@arg) from the caller's cache
 * @fn: the function
 * @discard: called with @arg if the closure is dropped; may be NULL
 * @arg: the argument of both
 * @gfp: how to allocate a chunk if the cache needs one
 *
 * For executors with a submission function of their own (a priority
 * executor's levels): the caller submits the closure's item and, if that
 * fails, gives it back with exec_closure_put().
 *
 * Context: as @gfp allows.
 * Return: the closure's item, idle; NULL for lack of memory.
 */
struct exec_work *exec_closure_get(exec_fn fn, exec_fn discard, void *arg,
				   gfp_t gfp)
{
	struct exec_closure *c = exec_record_get(sizeof(*c), gfp);

	if (unlikely(!c))
		return NULL;
	exec_closure_set(c, fn, discard, arg);
	return &c->work;
}

/**
 * exec_closure_put - give back a closure that was never accepted
 * @work: the item from exec_closure_get(), not pending
 *
 * Context: Any context.
 */
void exec_closure_put(struct exec_work *work)
{
	exec_closure_free(container_of(work, struct exec_closure, work));
}

/* exec_closure_submit(): hand the closure to exec_dispatch(), not submit. */
#define EXEC_CLOSURE_DISPATCH	(1U << 30)

/*
 * A closure around @fn(@arg), allocated with @gfp, submitted with @flags,
 * or dispatched with EXEC_CLOSURE_DISPATCH.
 */
static int exec_closure_submit(struct exec_executor *ex, exec_fn fn,
			       exec_fn discard, void *arg, unsigned int flags,
			       gfp_t gfp)
{
	struct exec_work *work;
	int ret;

	if (unlikely(!ex || !ex->ops || !fn))
		return -EINVAL;
	work = exec_closure_get(fn, discard, arg, gfp);
	if (unlikely(!work))
		return -ENOMEM;
	if (flags & EXEC_CLOSURE_DISPATCH) {
		ret = exec_dispatch(ex, work);
	} else {
		/*
		 * Nobody else can see the closure yet, so its pending bit
		 * needs no atomic test: a plain store, published with the
		 * item by the executor's queue (its full barrier).
		 */
		work->flags |= EXEC_WORK_PENDING;
		exec_trace_work_queue(ex, work);
		ret = ex->ops->submit(ex, work, flags);
	}
	if (unlikely(ret))
		exec_closure_put(work);
	return ret;
}

int exec_submit_fn_full(struct exec_executor *ex, exec_fn fn, exec_fn discard,
			void *arg, unsigned int flags)
{
	might_sleep_if(!(flags & EXEC_SUBMIT_NOWAIT));
	return exec_closure_submit(ex, fn, discard, arg, flags,
				   flags & EXEC_SUBMIT_NOWAIT ? GFP_ATOMIC :
								GFP_KERNEL);
}
EXPORT_SYMBOL_GPL(exec_submit_fn_full);

int exec_submit_fn(struct exec_executor *ex, exec_fn fn, void *arg)
{
	return exec_submit_fn_full(ex, fn, NULL, arg, 0);
}
EXPORT_SYMBOL_GPL(exec_submit_fn);

unsigned long exec_pending_count(struct exec_executor *ex)
{
	if (!ex || !ex->ops)
		return 0;
	return (ex->ops->pending ? ex->ops->pending(ex) : 0) +
	       exec_timers_armed(ex);
}
EXPORT_SYMBOL_GPL(exec_pending_count);

const char *exec_executor_kind(const struct exec_executor *ex)
{
	if (!ex || !ex->ops)
		return "null";
	return ex->ops->kind;
}
EXPORT_SYMBOL_GPL(exec_executor_kind);

/* Owner of the frames of items that dispatch runs in their caller. */
const char exec_dispatch_marker;

/* post and defer never wait for room: a full bounded executor says -EAGAIN. */
#define EXEC_POST_FLAGS		(EXEC_SUBMIT_POST | EXEC_SUBMIT_NOWAIT)
#define EXEC_DEFER_FLAGS	(EXEC_SUBMIT_DEFER | EXEC_SUBMIT_NOWAIT)

bool exec_running_in_this_thread(const struct exec_executor *ex)
{
	if (!ex || !ex->ops || !ex->ops->running_in_this_thread)
		return false;
	return ex->ops->running_in_this_thread(ex);
}
EXPORT_SYMBOL_GPL(exec_running_in_this_thread);

struct exec_executor *exec_current_executor(void)
{
	struct exec_frame *frame;

	/* The innermost frame around items: a strand's over its pool's. */
	for (frame = exec_thread_self_get(); frame; frame = frame->prev)
		if (frame->ex)
			return frame->ex;
	return NULL;
}
EXPORT_SYMBOL_GPL(exec_current_executor);

int exec_post(struct exec_executor *ex, struct exec_work *work)
{
	return exec_submit_flags(ex, work, EXEC_POST_FLAGS);
}
EXPORT_SYMBOL_GPL(exec_post);

int exec_defer(struct exec_executor *ex, struct exec_work *work)
{
	return exec_submit_flags(ex, work, EXEC_DEFER_FLAGS);
}
EXPORT_SYMBOL_GPL(exec_defer);

int exec_dispatch(struct exec_executor *ex, struct exec_work *work)
{
	struct exec_dispatch_frame df;
	int ret;

	if (unlikely(!ex || !ex->ops || !work || !work->func))
		return -EINVAL;
	/* Timed items are started only by their timer base. */
	if (READ_ONCE(work->flags) & (EXEC_WORK_TIMER | EXEC_WORK_PERIODIC))
		return exec_post(ex, work);
	if (test_and_set_bit(EXEC_WORK_PENDING_BIT, &work->flags))
		return -EALREADY;
	exec_trace_work_queue(ex, work);
	if (!ex->ops->dispatch && exec_running_in_this_thread(ex) &&
	    exec_dispatch_enter(&df, ex)) {
		exec_work_run(ex, work);
		exec_dispatch_leave(&df);
		return 0;
	}
	if (ex->ops->dispatch)
		ret = ex->ops->dispatch(ex, work);
	else
		ret = ex->ops->submit(ex, work, EXEC_POST_FLAGS);
	if (unlikely(ret))
		clear_bit_unlock(EXEC_WORK_PENDING_BIT, &work->flags);
	return ret;
}
EXPORT_SYMBOL_GPL(exec_dispatch);

int exec_post_fn(struct exec_executor *ex, exec_fn fn, void *arg)
{
	might_sleep();
	return exec_closure_submit(ex, fn, NULL, arg,
				   EXEC_POST_FLAGS | EXEC_SUBMIT_MAY_SLEEP,
				   GFP_KERNEL);
}
EXPORT_SYMBOL_GPL(exec_post_fn);

int exec_defer_fn(struct exec_executor *ex, exec_fn fn, void *arg)
{
	might_sleep();
	return exec_closure_submit(ex, fn, NULL, arg,
				   EXEC_DEFER_FLAGS | EXEC_SUBMIT_MAY_SLEEP,
				   GFP_KERNEL);
}
EXPORT_SYMBOL_GPL(exec_defer_fn);

int exec_dispatch_fn(struct exec_executor *ex, exec_fn fn, void *arg)
{
	struct exec_dispatch_frame df;

	might_sleep();
	if (unlikely(!ex || !ex->ops || !fn))
		return -EINVAL;
	/* The generic rule needs no item: call @fn right here. */
	if (!ex->ops->dispatch && exec_running_in_this_thread(ex) &&
	    exec_dispatch_enter(&df, ex)) {
		fn(arg);
		exec_dispatch_leave(&df);
		return 0;
	}
	/* A thread-per-task executor's dispatch is a post, which may sleep. */
	return exec_closure_submit(ex, fn, NULL, arg,
				   ex->ops->dispatch && !exec_tpt_is(ex) ?
				   EXEC_CLOSURE_DISPATCH :
				   EXEC_POST_FLAGS | EXEC_SUBMIT_MAY_SLEEP,
				   GFP_KERNEL);
}
EXPORT_SYMBOL_GPL(exec_dispatch_fn);

/**
 * exec_executor_work_started - count a unit of outstanding work, only that
 * @ex: the executor; one whose ops do not track outstanding work ignores it
 *
 * The unit without the dependent that exec_on_work_started() counts: for
 * an executor built on @ex forwarding its own units (P0113 strand:
 * "on_work_started() Effects: Calls inner_ex_.on_work_started()"), which
 * depends on @ex already for as long as it may hold any.
 *
 * Context: Any context.
 */
void exec_executor_work_started(struct exec_executor *ex)
{
	if (ex->ops->work_started)
		ex->ops->work_started(ex);
}

/**
 * exec_executor_work_finished - release a unit of exec_executor_work_started()
 * @ex: the executor
 *
 * Context: Any context; may wake the executor's threads.
 */
void exec_executor_work_finished(struct exec_executor *ex)
{
	if (ex->ops->work_finished)
		ex->ops->work_finished(ex);
}

void exec_on_work_started(struct exec_executor *ex)
{
	if (!ex || !ex->ops)
		return;
	exec_executor_depend(ex, EXEC_DEP_WORK);
	exec_executor_work_started(ex);
}
EXPORT_SYMBOL_GPL(exec_on_work_started);

/*
 * Releases a unit counted as a dependent of @kind.  The unit may be what
 * held a join or a run that another thread waits for, possibly through
 * executors built on @ex (which forward it), and whoever sees that end may
 * destroy @ex at once: so @ex stops counting it as a dependent first, and
 * a destroy meanwhile waits for the release to be over rather than refuse.
 */
static void exec_work_release(struct exec_executor *ex,
			       enum exec_dep_kind kind)
{
	exec_executor_handover_begin(ex, kind);
	exec_executor_work_finished(ex);
	exec_executor_handover_end(ex);
}

void exec_on_work_finished(struct exec_executor *ex)
{
	if (!ex || !ex->ops)
		return;
	exec_work_release(ex, EXEC_DEP_WORK);
}
EXPORT_SYMBOL_GPL(exec_on_work_finished);

/**
 * exec_work_guard_take - take a unit of outstanding work, as a dependent
 * @guard: the guard
 * @ex: the executor
 * @kind: what the guard stands for, in @ex's dependents
 *
 * Context: Any context.
 * Return: 0; -EINVAL for NULL arguments (the guard then holds nothing).
 */
int exec_work_guard_take(struct exec_work_guard *guard,
			 struct exec_executor *ex, enum exec_dep_kind kind)
{
	if (!guard)
		return -EINVAL;
	WRITE_ONCE(guard->ex, NULL);
	if (!ex || !ex->ops)
		return -EINVAL;
	exec_executor_depend(ex, kind);
	exec_executor_work_started(ex);
	/* Release: pairs with the acquire of exec_work_guard_owns(). */
	smp_store_release(&guard->ex, ex);
	return 0;
}

/**
 * exec_work_guard_drop - release a guard taken by exec_work_guard_take()
 * @guard: the guard
 * @kind: as given to exec_work_guard_take()
 *
 * Context: Any context.
 * Return: 0; -EALREADY if the guard held nothing; -EINVAL for NULL.
 */
int exec_work_guard_drop(struct exec_work_guard *guard,
			 enum exec_dep_kind kind)
{
	struct exec_executor *ex;

	if (!guard)
		return -EINVAL;
	ex = xchg(&guard->ex, NULL);
	if (!ex)
		return -EALREADY;
	if (kind != EXEC_DEP_NONE)
		exec_work_release(ex, kind);
	else
		exec_executor_work_finished(ex);
	return 0;
}

int exec_work_guard_init(struct exec_work_guard *guard,
			 struct exec_executor *ex)
{
	return exec_work_guard_take(guard, ex, EXEC_DEP_WORK);
}
EXPORT_SYMBOL_GPL(exec_work_guard_init);

int exec_work_guard_reset(struct exec_work_guard *guard)
{
	return exec_work_guard_drop(guard, EXEC_DEP_WORK);
}
EXPORT_SYMBOL_GPL(exec_work_guard_reset);
