// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The kernel's slab caches in userspace (kmem_cache_create() and the rest,
 * declared in exec_platform.h), for the objects the core makes by the
 * thousand: a strand per connection.
 *
 * A cache carves its objects from chunks of whole pages, each object its
 * size rounded up to its alignment, with no header of its own.  Freed
 * objects stay with the cache.  Each thread keeps a magazine of them per
 * cache, a small stack that allocation and free use without a lock, as the
 * kernel's per-CPU freelists are used with interrupts off; a thread whose
 * magazine is empty takes a batch from the cache's depot, and one whose
 * magazine is full gives half of it back, under the cache's lock, so that
 * a strand made on one thread and destroyed on another crosses the depot
 * once a batch.  The magazines live in a per-thread record that a thread
 * makes at its first use of a cache; its pthread key's destructor empties
 * it into the depots at thread exit, as user/closures.c hands a thread's
 * ring on.  A thread whose record cannot be made, and a cache beyond the
 * EXEC_SLAB_SLOTS that have magazines, use the depot alone.
 *
 * Under AddressSanitizer each object is a block of malloc()'s instead, as
 * before there were caches here: ASan's allocator keeps a freed block in
 * quarantine, so that a use after free of a strand is caught even after
 * later strands were made, and LeakSanitizer reports a strand never
 * destroyed, which a chunk still reachable from its cache would hide.
 */
#include <sys/mman.h>

#include "platform.h"

#if defined(__SANITIZE_ADDRESS__)
#define EXEC_SLAB_ASAN	1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EXEC_SLAB_ASAN	1
#endif
#endif

#ifdef EXEC_SLAB_ASAN
#define EXEC_SLAB_MALLOC	1
#else
#define EXEC_SLAB_MALLOC	0
#endif

#define EXEC_SLAB_PAGE		4096UL
#define EXEC_SLAB_CHUNK		(64 * 1024UL)
/* A chunk holds at least this many objects: larger ones get larger chunks. */
#define EXEC_SLAB_CHUNK_OBJS	8UL
/* Objects a magazine holds, and those moved to or from the depot at once. */
#define EXEC_SLAB_MAG		32U
#define EXEC_SLAB_BATCH		(EXEC_SLAB_MAG / 2)
/* Caches with magazines at a time; the core has one. */
#define EXEC_SLAB_SLOTS		8

/* The start of each chunk, before its first object. */
struct exec_slab_chunk {
	struct exec_slab_chunk *next;
};

/**
 * struct kmem_cache - a slab cache
 * @lock: guards the fields marked L
 * @head: L: the depot, the last freed first, linked through each object's
 *	first word
 * @nr_free: L: objects in the depot
 * @carve: L: the newest chunk's first object not yet handed out
 * @carve_end: L: the end of that chunk
 * @chunks: L: every chunk, newest first
 * @nr_objs: L: objects carved from the chunks
 * @next: G (exec_slab_mutex): the next cache of exec_slab_caches
 * @slot: I: its magazine's index in each thread's record, or -1 for none
 * @nr_malloc: A: ASan builds: objects from malloc() not yet freed; a count
 *	that kmem_cache_destroy() reads, ordered by its caller's contract
 * @size: I: an object's size, zeroed by kmem_cache_zalloc()
 * @align: I: the objects' alignment
 * @stride: I: @size rounded up to the objects' alignment
 * @offset: I: the first object's offset in a chunk
 * @chunk_size: I: a chunk's size, whole pages
 * @name: I: for the warning of kmem_cache_destroy()
 */
struct kmem_cache {
	spinlock_t lock;
	void *head;
	unsigned long nr_free;
	char *carve;
	char *carve_end;
	struct exec_slab_chunk *chunks;
	unsigned long nr_objs;
	struct kmem_cache *next;
	int slot;
	atomic_t nr_malloc;
	size_t size;
	size_t align;
	size_t stride;
	size_t offset;
	size_t chunk_size;
	const char *name;
};

/* A thread's free objects of one cache, the newest on top. */
struct exec_slab_mag {
	unsigned int count;
	void *objs[EXEC_SLAB_MAG];
};

/**
 * struct exec_slab_thread - one thread's magazines
 * @next: G (exec_slab_mutex): the next record of exec_slab_threads
 * @pprev: G (exec_slab_mutex): the pointer to this record in that list
 * @mags: O: per slot, the magazine of the cache in exec_slab_slots[], its
 *	thread's; others touch it under exec_slab_mutex only when that thread
 *	cannot be using it (a cache being destroyed, an exiting thread, a
 *	thread left behind by fork())
 */
struct exec_slab_thread {
	struct exec_slab_thread *next;
	struct exec_slab_thread **pprev;
	struct exec_slab_mag mags[EXEC_SLAB_SLOTS];
};

/*
 * Guards the lists of caches and of threads' records (the fields marked
 * G (exec_slab_mutex)); taken before any cache's lock.
 */
static DEFINE_MUTEX(exec_slab_mutex);
static struct kmem_cache *exec_slab_slots[EXEC_SLAB_SLOTS];	/* G */
static struct kmem_cache *exec_slab_caches;			/* G */
static struct exec_slab_thread *exec_slab_threads;		/* G */

static __thread struct exec_slab_thread *exec_slab_self
	__attribute__((tls_model("initial-exec")));
static pthread_key_t exec_slab_key;
static pthread_once_t exec_slab_once = PTHREAD_ONCE_INIT;
static bool exec_slab_key_ok;

static void *exec_slab_link(void *obj)
{
	return *(void **)obj;
}

static void exec_slab_set_link(void *obj, void *next)
{
	*(void **)obj = next;
}

/*
 * Puts @n objects in the depot, the last on top: what a magazine gives back
 * is in the order it would have been used.  The cache's lock is held.
 */
static void exec_slab_put(struct kmem_cache *cache, void **objs,
			  unsigned int n)
{
	unsigned int i;

	lockdep_assert_held(&cache->lock);
	for (i = 0; i < n; i++) {
		exec_slab_set_link(objs[i], cache->head);
		cache->head = objs[i];
	}
	cache->nr_free += n;
}

/*
 * Takes up to @n objects, the depot's top first, then new ones from the
 * newest chunk; the cache's lock is held.  Returns how many it took.
 */
static unsigned int exec_slab_take(struct kmem_cache *cache, void **objs,
				   unsigned int n)
{
	unsigned int i = 0;

	lockdep_assert_held(&cache->lock);
	for (; i < n && cache->head; i++) {
		objs[i] = cache->head;
		cache->head = exec_slab_link(objs[i]);
		cache->nr_free--;
	}
	for (; i < n && cache->carve_end - cache->carve >=
		       (ptrdiff_t)cache->stride; i++) {
		objs[i] = cache->carve;
		cache->carve += cache->stride;
		cache->nr_objs++;
	}
	return i;
}

/*
 * Populated at once: one system call rather than a fault per page as its
 * objects are carved, at the cost of a chunk's pages counting before its
 * objects are used (Documentation/benchmarks.rst).
 */
static struct exec_slab_chunk *exec_slab_chunk_new(struct kmem_cache *cache)
{
	void *chunk = mmap(NULL, cache->chunk_size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	return chunk == MAP_FAILED ? NULL : chunk;
}

/*
 * Makes @chunk the one objects are carved from; the cache's lock is held.
 * What is left of the one before (another thread added a chunk meanwhile)
 * goes to the depot.
 */
static void exec_slab_chunk_add(struct kmem_cache *cache,
				struct exec_slab_chunk *chunk)
{
	void *obj;

	while (cache->carve_end - cache->carve >= (ptrdiff_t)cache->stride) {
		obj = cache->carve;
		cache->carve += cache->stride;
		cache->nr_objs++;
		exec_slab_put(cache, &obj, 1);
	}
	chunk->next = cache->chunks;
	cache->chunks = chunk;
	cache->carve = (char *)chunk + cache->offset;
	cache->carve_end = (char *)chunk + cache->chunk_size;
}

/* Gives a thread's magazines back; exec_slab_mutex is held. */
static void exec_slab_thread_drain(struct exec_slab_thread *t)
{
	struct exec_slab_mag *mag;
	struct kmem_cache *cache;
	int slot;

	for (slot = 0; slot < EXEC_SLAB_SLOTS; slot++) {
		mag = &t->mags[slot];
		if (!mag->count)
			continue;
		cache = exec_slab_slots[slot];
		spin_lock(&cache->lock);
		exec_slab_put(cache, mag->objs, mag->count);
		spin_unlock(&cache->lock);
		mag->count = 0;
	}
}

static void exec_slab_thread_unlink(struct exec_slab_thread *t)
{
	if (t->next)
		t->next->pprev = t->pprev;
	*t->pprev = t->next;
}

/* The key's destructor, at the exit of a thread that used a cache. */
static void exec_slab_thread_exit(void *arg)
{
	struct exec_slab_thread *t = arg;

	mutex_lock(&exec_slab_mutex);
	exec_slab_thread_drain(t);
	exec_slab_thread_unlink(t);
	mutex_unlock(&exec_slab_mutex);
	/* A later destructor that frees an object makes a new record. */
	exec_slab_self = NULL;
	free(t);
}

static void exec_slab_key_create(void)
{
	exec_slab_key_ok = !pthread_key_create(&exec_slab_key,
					       exec_slab_thread_exit);
}

/*
 * The caller's record, made at its first use.  NULL without memory or a
 * key, whose destructor alone would give its magazines back at its exit:
 * that thread then uses the depots alone.
 */
static struct exec_slab_thread *exec_slab_thread_new(void)
{
	struct exec_slab_thread *t;

	/* Also orders the key's creation before its use. */
	pthread_once(&exec_slab_once, exec_slab_key_create);
	if (!exec_slab_key_ok)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	if (pthread_setspecific(exec_slab_key, t)) {
		free(t);
		return NULL;
	}
	mutex_lock(&exec_slab_mutex);
	t->next = exec_slab_threads;
	if (t->next)
		t->next->pprev = &t->next;
	t->pprev = &exec_slab_threads;
	exec_slab_threads = t;
	mutex_unlock(&exec_slab_mutex);
	exec_slab_self = t;
	return t;
}

/* The caller's magazine of @cache, or NULL: use the depot. */
static inline struct exec_slab_mag *exec_slab_mag(struct kmem_cache *cache)
{
	struct exec_slab_thread *t = exec_slab_self;

	if (cache->slot < 0)
		return NULL;
	if (unlikely(!t)) {
		t = exec_slab_thread_new();
		if (!t)
			return NULL;
	}
	return &t->mags[cache->slot];
}

/*
 * An object from the depot or a new chunk, and a batch more for @mag, which
 * is empty.  @mag changes under the cache's lock, as in exec_slab_flush():
 * the fork handlers hold it, so that a child finds another thread's
 * magazine whole, each object in it once.
 */
static void *exec_slab_refill(struct kmem_cache *cache,
			      struct exec_slab_mag *mag)
{
	unsigned int n, want = mag ? EXEC_SLAB_BATCH : 1;
	struct exec_slab_chunk *chunk = NULL;
	void *objs[EXEC_SLAB_BATCH];

	for (;;) {
		spin_lock(&cache->lock);
		if (chunk)
			exec_slab_chunk_add(cache, chunk);
		n = exec_slab_take(cache, objs, want);
		/* In depot order: the object taken first on top. */
		while (mag && mag->count + 1 < n) {
			mag->objs[mag->count] = objs[n - 1 - mag->count];
			mag->count++;
		}
		spin_unlock(&cache->lock);
		/* A new chunk has objects: this is the second turn at most. */
		if (n || chunk)
			return n ? objs[0] : NULL;
		/* Made outside the lock, which the other threads spin on. */
		chunk = exec_slab_chunk_new(cache);
		if (!chunk)
			return NULL;
	}
}

/**
 * kmem_cache_zalloc - a zeroed object of a cache
 * @cache: the cache
 * @gfp: ignored; userspace has no atomic context
 *
 * Context: Any thread; not from a signal handler.
 * Return: the object, aligned as the cache was made to align its objects;
 * NULL without memory.
 */
void *kmem_cache_zalloc(struct kmem_cache *cache, gfp_t gfp)
{
	struct exec_slab_mag *mag;
	void *obj;

	if (EXEC_SLAB_MALLOC) {
		obj = exec_kzalloc_aligned(cache->size, cache->align, gfp);
		if (obj)
			atomic_inc(&cache->nr_malloc);
		return obj;
	}
	mag = exec_slab_mag(cache);
	if (likely(mag && mag->count)) {
		obj = mag->objs[--mag->count];
	} else {
		obj = exec_slab_refill(cache, mag);
		if (!obj)
			return NULL;
	}
	return memset(obj, 0, cache->size);
}

/*
 * Frees into a full magazine: its older half goes to the depot, under the
 * lock that the fork handlers hold (exec_slab_refill()).  Without a
 * magazine, @obj itself goes.
 */
static void exec_slab_flush(struct kmem_cache *cache,
			    struct exec_slab_mag *mag, void *obj)
{
	spin_lock(&cache->lock);
	if (!mag) {
		exec_slab_put(cache, &obj, 1);
	} else {
		exec_slab_put(cache, mag->objs, EXEC_SLAB_BATCH);
		memmove(mag->objs, mag->objs + EXEC_SLAB_BATCH,
			(EXEC_SLAB_MAG - EXEC_SLAB_BATCH) * sizeof(void *));
		mag->objs[EXEC_SLAB_MAG - EXEC_SLAB_BATCH] = obj;
		mag->count = EXEC_SLAB_MAG - EXEC_SLAB_BATCH + 1;
	}
	spin_unlock(&cache->lock);
}

/**
 * kmem_cache_free - give an object back to its cache
 * @cache: the cache that made it
 * @obj: the object, or NULL
 *
 * Context: Any thread, the one that allocated @obj or another; not from a
 * signal handler.
 */
void kmem_cache_free(struct kmem_cache *cache, void *obj)
{
	struct exec_slab_mag *mag;

	if (unlikely(!obj))
		return;
	if (EXEC_SLAB_MALLOC) {
		atomic_dec(&cache->nr_malloc);
		free(obj);
		return;
	}
	mag = exec_slab_mag(cache);
	if (likely(mag && mag->count < EXEC_SLAB_MAG)) {
		mag->objs[mag->count] = obj;
		/* A child forked now finds @obj counted only once stored. */
		barrier();
		mag->count++;
		return;
	}
	exec_slab_flush(cache, mag, obj);
}

/**
 * kmem_cache_create - make a slab cache
 * @name: its name, for its warnings; kept, not copied
 * @size: its objects' size
 * @align: their alignment, a power of two up to a page; 0 for a pointer's
 * @flags: ignored
 * @ctor: must be NULL: kmem_cache_zalloc() would zero what it made
 *
 * Context: Any thread; not from a signal handler.
 * Return: the cache; NULL without memory, or for a @ctor or an @align it
 * cannot keep (with a warning).
 */
struct kmem_cache *kmem_cache_create(const char *name, unsigned int size,
				     unsigned int align, unsigned long flags,
				     void (*ctor)(void *))
{
	struct kmem_cache *cache;
	size_t min_chunk;
	int slot;

	/* An object in the depot holds its link: a pointer, aligned. */
	align = max_t(unsigned int, align, __alignof__(void *));
	if (WARN_ON(ctor) || WARN_ON(align & (align - 1)) ||
	    WARN_ON(align > EXEC_SLAB_PAGE))
		return NULL;
	cache = calloc(1, sizeof(*cache));
	if (!cache)
		return NULL;
	spin_lock_init(&cache->lock);
	cache->name = name;
	cache->size = size;
	cache->align = align;
	cache->stride = (max_t(size_t, size, sizeof(void *)) + align - 1) &
			~(size_t)(align - 1);
	cache->offset = (sizeof(struct exec_slab_chunk) + align - 1) &
			~(size_t)(align - 1);
	min_chunk = cache->offset + cache->stride * EXEC_SLAB_CHUNK_OBJS;
	cache->chunk_size = max_t(size_t, EXEC_SLAB_CHUNK,
				  (min_chunk + EXEC_SLAB_PAGE - 1) &
				  ~(EXEC_SLAB_PAGE - 1));
	cache->slot = -1;
	mutex_lock(&exec_slab_mutex);
	for (slot = 0; slot < EXEC_SLAB_SLOTS; slot++) {
		if (!exec_slab_slots[slot]) {
			exec_slab_slots[slot] = cache;
			cache->slot = slot;
			break;
		}
	}
	cache->next = exec_slab_caches;
	exec_slab_caches = cache;
	mutex_unlock(&exec_slab_mutex);
	return cache;
}

/*
 * Takes @cache off the lists and empties every thread's magazine of it;
 * returns the objects those held.
 */
static unsigned long exec_slab_unlink(struct kmem_cache *cache)
{
	struct exec_slab_thread *t;
	struct kmem_cache **pp;
	unsigned long cached = 0;

	mutex_lock(&exec_slab_mutex);
	if (cache->slot >= 0) {
		for (t = exec_slab_threads; t; t = t->next) {
			cached += t->mags[cache->slot].count;
			t->mags[cache->slot].count = 0;
		}
		exec_slab_slots[cache->slot] = NULL;
	}
	for (pp = &exec_slab_caches; *pp != cache; pp = &(*pp)->next)
		;
	*pp = cache->next;
	mutex_unlock(&exec_slab_mutex);
	return cached;
}

/**
 * kmem_cache_destroy - free a slab cache and all its memory
 * @cache: the cache, or NULL
 *
 * Every object should have been freed: those still allocated are freed
 * with the rest, with a warning, as the kernel warns.
 *
 * Context: Any thread; not from a signal handler.  No other thread uses
 * @cache any more.
 */
void kmem_cache_destroy(struct kmem_cache *cache)
{
	struct exec_slab_chunk *chunk, *next;
	unsigned long in_use;

	if (!cache)
		return;
	in_use = atomic_read(&cache->nr_malloc) - exec_slab_unlink(cache);
	spin_lock(&cache->lock);
	in_use += cache->nr_objs - cache->nr_free;
	spin_unlock(&cache->lock);
	if (WARN_ON(in_use))
		pr_warn("%s %s: %lu objects still allocated", __func__,
			cache->name, in_use);
	for (chunk = cache->chunks; chunk; chunk = next) {
		next = chunk->next;
		munmap(chunk, cache->chunk_size);
	}
	free(cache);
}

/*
 * In the child, the records of the threads that stayed in the parent give
 * their magazines back and go; exec_slab_mutex and every cache's lock are
 * held.
 */
static void exec_slab_fork_child(void)
{
	struct exec_slab_thread *t, *next;
	struct kmem_cache *cache;
	int slot;

	for (t = exec_slab_threads; t; t = next) {
		next = t->next;
		if (t == exec_slab_self)
			continue;
		for (slot = 0; slot < EXEC_SLAB_SLOTS; slot++) {
			cache = exec_slab_slots[slot];
			if (cache)
				exec_slab_put(cache, t->mags[slot].objs,
					      t->mags[slot].count);
		}
		exec_slab_thread_unlink(t);
		free(t);
	}
}

/**
 * exec_user_slab_fork - the slab caches across fork()
 * @event: the step of the fork
 *
 * Every cache's lock is taken before the fork, so that no other thread
 * holds one in the child, where the magazines of the threads left behind
 * go back to the depots.
 *
 * Context: From the library's pthread_atfork() handlers (user/init.c).
 */
void exec_user_slab_fork(enum exec_fork_event event)
{
	struct kmem_cache *cache;

	if (event == EXEC_FORK_PREPARE) {
		mutex_lock(&exec_slab_mutex);
		for (cache = exec_slab_caches; cache; cache = cache->next)
			spin_lock(&cache->lock);
		return;
	}
	if (event == EXEC_FORK_CHILD)
		exec_slab_fork_child();
	for (cache = exec_slab_caches; cache; cache = cache->next)
		spin_unlock(&cache->lock);
	mutex_unlock(&exec_slab_mutex);
}
