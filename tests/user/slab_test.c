// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Userspace only: the slab caches of user/slab.c, which the kernel build
 * takes from the kernel.  Objects are distinct, aligned, zeroed and packed
 * at their size; freed ones are reused, from the same thread, another
 * thread, or after the thread that cached them exited; threads allocating
 * and freeing at once never share an object; a cache destroyed with
 * objects outstanding warns; and the core's fault point still fails a
 * strand's allocation.
 *
 * Under AddressSanitizer each object is a malloc() block (user/slab.c), so
 * the cases about packing and reuse are skipped there.
 */
#include <kunit/test.h>
#include <exec/exec.h>
#include <exec/user.h>

#include "internal.h"
#include "exec_test.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define SLAB_MALLOC	true
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLAB_MALLOC	true
#endif
#endif
#ifndef SLAB_MALLOC
#define SLAB_MALLOC	false
#endif

/*
 * As tests/user/fork_test.c: a child of a TSan or ASan process does
 * nothing (the sanitizer's allocator may be locked by another thread at
 * the fork, and an ASan build's objects are malloc()'s).
 */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SLAB_FORK_CHILD_RUNS	false
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define SLAB_FORK_CHILD_RUNS	false
#endif
#endif
#ifndef SLAB_FORK_CHILD_RUNS
#define SLAB_FORK_CHILD_RUNS	true
#endif

/* 100 bytes of fields: a 128-byte object, on a line of its own. */
struct slab_obj {
	unsigned long owner;
	unsigned long seq;
	char payload[84];
} __aligned(64);

#define SLAB_NR			64
#define SLAB_THREADS		4
#define SLAB_ROUNDS		20000
#define SLAB_LIVE		48

static bool slab_obj_is_zero(const struct slab_obj *obj)
{
	const unsigned char *p = (const unsigned char *)obj;
	size_t i;

	for (i = 0; i < sizeof(*obj); i++)
		if (p[i])
			return false;
	return true;
}

static int slab_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void *const *)a;
	uintptr_t y = (uintptr_t)*(void *const *)b;

	return x < y ? -1 : x > y;
}

/* The warnings of kmem_cache_destroy() about the caches made here. */
struct slab_log {
	pthread_mutex_t lock;
	char msg[256];
	int count;
};

static struct slab_log slab_log = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void slab_log_fn(int level, const char *msg, void *arg)
{
	struct slab_log *log = arg;

	if (!strstr(msg, "kmem_cache_destroy slab_obj:"))
		return;
	pthread_mutex_lock(&log->lock);
	snprintf(log->msg, sizeof(log->msg), "%s", msg);
	log->count++;
	pthread_mutex_unlock(&log->lock);
}

static int slab_log_count(void)
{
	int n;

	pthread_mutex_lock(&slab_log.lock);
	n = slab_log.count;
	pthread_mutex_unlock(&slab_log.lock);
	return n;
}

static struct kmem_cache *slab_create(struct kunit *test)
{
	struct kmem_cache *cache = KMEM_CACHE(slab_obj, 0);

	KUNIT_ASSERT_NOT_NULL(test, cache);
	slab_log.count = 0;
	exec_user_set_log(slab_log_fn, &slab_log);
	return cache;
}

/* Destroys @cache, which should have nothing outstanding. */
static void slab_destroy(struct kunit *test, struct kmem_cache *cache)
{
	kmem_cache_destroy(cache);
	exec_user_set_log(NULL, NULL);
	KUNIT_EXPECT_EQ(test, slab_log_count(), 0);
}

static void slab_objects_distinct_aligned_zeroed(struct kunit *test)
{
	struct kmem_cache *cache = slab_create(test);
	struct slab_obj *objs[SLAB_NR];
	int round, i;

	for (round = 0; round < 2; round++) {
		for (i = 0; i < SLAB_NR; i++) {
			objs[i] = kmem_cache_zalloc(cache, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, objs[i]);
			KUNIT_EXPECT_EQ(test, (uintptr_t)objs[i] % 64, 0);
			/* The second round's are the first's, dirtied. */
			KUNIT_EXPECT_TRUE(test, slab_obj_is_zero(objs[i]));
			memset(objs[i], 0xa5, sizeof(*objs[i]));
		}
		qsort(objs, SLAB_NR, sizeof(objs[0]), slab_cmp);
		for (i = 1; i < SLAB_NR; i++)
			KUNIT_EXPECT_GE(test, (char *)objs[i] - (char *)objs[i - 1],
					(long)sizeof(struct slab_obj));
		for (i = 0; i < SLAB_NR; i++)
			kmem_cache_free(cache, objs[i]);
	}
	/* Atomic allocations are allowed, and alike. */
	objs[0] = kmem_cache_zalloc(cache, GFP_ATOMIC);
	KUNIT_ASSERT_NOT_NULL(test, objs[0]);
	KUNIT_EXPECT_TRUE(test, slab_obj_is_zero(objs[0]));
	kmem_cache_free(cache, objs[0]);
	slab_destroy(test, cache);
}

/* No header, no rounding beyond the alignment: 128 bytes apart. */
static void slab_objects_packed(struct kunit *test)
{
	struct kmem_cache *cache;
	struct slab_obj *objs[SLAB_NR];
	int i, apart = 0;

	if (SLAB_MALLOC)
		kunit_skip(test, "one malloc() block per object under ASan");
	cache = slab_create(test);
	for (i = 0; i < SLAB_NR; i++) {
		objs[i] = kmem_cache_zalloc(cache, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
	}
	qsort(objs, SLAB_NR, sizeof(objs[0]), slab_cmp);
	/* A new cache's first objects are one chunk's. */
	for (i = 1; i < SLAB_NR; i++)
		if ((char *)objs[i] - (char *)objs[i - 1] !=
		    (long)sizeof(struct slab_obj))
			apart++;
	KUNIT_EXPECT_EQ_MSG(test, apart, 0, "first gap %ld bytes",
			    (long)((char *)objs[1] - (char *)objs[0]));
	for (i = 0; i < SLAB_NR; i++)
		kmem_cache_free(cache, objs[i]);
	slab_destroy(test, cache);
}

static void slab_reuse_after_free(struct kunit *test)
{
	struct kmem_cache *cache;
	struct slab_obj *seen[SLAB_NR];
	struct slab_obj *obj, *again;
	int i, j, unseen = 0;

	if (SLAB_MALLOC)
		kunit_skip(test, "one malloc() block per object under ASan");
	cache = slab_create(test);
	obj = kmem_cache_zalloc(cache, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	kmem_cache_free(cache, obj);
	again = kmem_cache_zalloc(cache, GFP_KERNEL);
	KUNIT_EXPECT_PTR_EQ(test, again, obj);
	kmem_cache_free(cache, again);

	/* Many more lives than objects ever live: the same few serve. */
	for (i = 0; i < SLAB_NR; i++)
		seen[i] = kmem_cache_zalloc(cache, GFP_KERNEL);
	for (i = 0; i < SLAB_NR; i++)
		kmem_cache_free(cache, seen[i]);
	for (i = 0; i < 100 * SLAB_NR; i++) {
		obj = kmem_cache_zalloc(cache, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, obj);
		for (j = 0; j < SLAB_NR && seen[j] != obj; j++)
			;
		if (j == SLAB_NR)
			unseen++;
		kmem_cache_free(cache, obj);
	}
	KUNIT_EXPECT_EQ(test, unseen, 0);
	slab_destroy(test, cache);
}

struct slab_handoff {
	struct kmem_cache *cache;
	struct slab_obj *objs[SLAB_NR * 4];
	int nr;
	bool ok;
};

static int slab_free_all(void *arg)
{
	struct slab_handoff *h = arg;
	int i;

	h->ok = true;
	for (i = 0; i < h->nr; i++) {
		if (h->objs[i]->owner != 1 || h->objs[i]->seq != (unsigned long)i)
			h->ok = false;
		kmem_cache_free(h->cache, h->objs[i]);
	}
	return 0;
}

/* Made here, freed on another thread (that then exits), made here again. */
static void slab_free_on_other_thread(struct kunit *test)
{
	static struct slab_handoff h;
	struct exec_test_thread t;
	int i;

	h.cache = slab_create(test);
	h.nr = ARRAY_SIZE(h.objs);
	for (i = 0; i < h.nr; i++) {
		h.objs[i] = kmem_cache_zalloc(h.cache, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, h.objs[i]);
		h.objs[i]->owner = 1;
		h.objs[i]->seq = i;
	}
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&t, slab_free_all, &h,
						     "slab-free"), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_thread_join(&t,
						      EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_TRUE(test, h.ok);
	for (i = 0; i < h.nr; i++) {
		h.objs[i] = kmem_cache_zalloc(h.cache, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, h.objs[i]);
		KUNIT_EXPECT_TRUE(test, slab_obj_is_zero(h.objs[i]));
	}
	for (i = 0; i < h.nr; i++)
		kmem_cache_free(h.cache, h.objs[i]);
	slab_destroy(test, h.cache);
}

static int slab_alloc_free_few(void *arg)
{
	struct slab_handoff *h = arg;
	int i;

	for (i = 0; i < h->nr; i++)
		h->objs[i] = kmem_cache_zalloc(h->cache, GFP_KERNEL);
	for (i = 0; i < h->nr; i++)
		kmem_cache_free(h->cache, h->objs[i]);
	return 0;
}

/*
 * A thread that exits with freed objects in its magazine gives them back:
 * the next thread's allocations are those, not new ones.
 */
static void slab_thread_exit_gives_back(struct kunit *test)
{
	static struct slab_handoff h;
	struct slab_obj *objs[8];
	struct exec_test_thread t;
	int i, j;

	if (SLAB_MALLOC)
		kunit_skip(test, "one malloc() block per object under ASan");
	h.cache = slab_create(test);
	h.nr = ARRAY_SIZE(objs);
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&t, slab_alloc_free_few,
						     &h, "slab-exit"), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_thread_join(&t,
						      EXEC_TEST_TIMEOUT_MS));
	for (i = 0; i < h.nr; i++) {
		objs[i] = kmem_cache_zalloc(h.cache, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
		for (j = 0; j < h.nr && h.objs[j] != objs[i]; j++)
			;
		KUNIT_EXPECT_LT_MSG(test, j, h.nr, "object %d is new", i);
		if (j < h.nr)
			h.objs[j] = NULL;
	}
	for (i = 0; i < h.nr; i++)
		kmem_cache_free(h.cache, objs[i]);
	slab_destroy(test, h.cache);
}

/*
 * More caches than have magazines (user/slab.c keeps a few slots): the
 * others use their depots alone, and work alike.
 */
static void slab_many_caches(struct kunit *test)
{
	struct kmem_cache *caches[12];
	struct slab_obj *objs[ARRAY_SIZE(caches)][4];
	unsigned int c, i;

	slab_log.count = 0;
	exec_user_set_log(slab_log_fn, &slab_log);
	for (c = 0; c < ARRAY_SIZE(caches); c++) {
		caches[c] = KMEM_CACHE(slab_obj, 0);
		KUNIT_ASSERT_NOT_NULL(test, caches[c]);
	}
	for (c = 0; c < ARRAY_SIZE(caches); c++) {
		for (i = 0; i < ARRAY_SIZE(objs[c]); i++) {
			objs[c][i] = kmem_cache_zalloc(caches[c], GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, objs[c][i]);
			KUNIT_EXPECT_TRUE(test, slab_obj_is_zero(objs[c][i]));
			objs[c][i]->owner = c + 1;
			objs[c][i]->seq = i;
		}
	}
	for (c = 0; c < ARRAY_SIZE(caches); c++) {
		for (i = 0; i < ARRAY_SIZE(objs[c]); i++) {
			KUNIT_EXPECT_EQ(test, objs[c][i]->owner, c + 1UL);
			KUNIT_EXPECT_EQ(test, objs[c][i]->seq, (unsigned long)i);
			kmem_cache_free(caches[c], objs[c][i]);
		}
		kmem_cache_destroy(caches[c]);
	}
	exec_user_set_log(NULL, NULL);
	KUNIT_EXPECT_EQ(test, slab_log_count(), 0);
}

/* Objects one thread hands to another to free, with the stamp they bear. */
struct slab_letter {
	struct slab_obj *obj;
	unsigned long owner;
	unsigned long seq;
};

struct slab_stress {
	struct kmem_cache *cache;
	pthread_mutex_t lock;
	struct slab_letter box[64];	/* lock */
	int nr_box;			/* lock */
	atomic_t allocs;
	atomic_t frees;
	atomic_t bad;
};

struct slab_worker {
	struct slab_stress *s;
	unsigned long id;
	struct exec_test_thread t;
};

static void slab_check_free(struct slab_stress *s, struct slab_obj *obj,
			    unsigned long owner, unsigned long seq)
{
	if (obj->owner != owner || obj->seq != seq)
		atomic_inc(&s->bad);
	kmem_cache_free(s->cache, obj);
	atomic_inc(&s->frees);
}

/* Posts @obj for another thread, or frees it here when the box is full. */
static void slab_post(struct slab_stress *s, struct slab_obj *obj)
{
	struct slab_letter l = { obj, obj->owner, obj->seq };

	pthread_mutex_lock(&s->lock);
	if (s->nr_box < (int)ARRAY_SIZE(s->box)) {
		s->box[s->nr_box++] = l;
		obj = NULL;
	}
	pthread_mutex_unlock(&s->lock);
	if (obj)
		slab_check_free(s, obj, l.owner, l.seq);
}

/* Frees one object another thread posted, if any: false if none. */
static bool slab_collect(struct slab_stress *s)
{
	struct slab_letter l = { NULL };

	pthread_mutex_lock(&s->lock);
	if (s->nr_box)
		l = s->box[--s->nr_box];
	pthread_mutex_unlock(&s->lock);
	if (l.obj)
		slab_check_free(s, l.obj, l.owner, l.seq);
	return l.obj;
}

static int slab_stress_fn(void *arg)
{
	struct slab_worker *w = arg;
	struct slab_stress *s = w->s;
	struct slab_obj *live[SLAB_LIVE] = { NULL };
	unsigned long seq[SLAB_LIVE];
	unsigned int rng = w->id * 2654435761U + 1, k;
	unsigned long next = 1;
	int i;

	for (i = 0; i < SLAB_ROUNDS; i++) {
		rng = rng * 1103515245U + 12345U;
		k = (rng >> 8) % SLAB_LIVE;
		if (!live[k]) {
			live[k] = kmem_cache_zalloc(s->cache, GFP_KERNEL);
			if (!live[k] || !slab_obj_is_zero(live[k])) {
				atomic_inc(&s->bad);
				continue;
			}
			atomic_inc(&s->allocs);
			live[k]->owner = w->id;
			live[k]->seq = seq[k] = next++;
		} else if (live[k]->owner != w->id || live[k]->seq != seq[k]) {
			atomic_inc(&s->bad);
			live[k] = NULL;
		} else if (rng & 0x10000) {
			slab_post(s, live[k]);
			live[k] = NULL;
		} else {
			slab_check_free(s, live[k], w->id, seq[k]);
			live[k] = NULL;
		}
		if (!(rng & 0x60000))
			slab_collect(s);
	}
	for (k = 0; k < SLAB_LIVE; k++)
		if (live[k])
			slab_check_free(s, live[k], w->id, seq[k]);
	return 0;
}

/*
 * Threads allocate, stamp, check and free at once, a third of their
 * objects freed by another thread: no object is handed out twice while
 * live (its holder's stamp would change) and each is counted back.
 */
static void slab_threads_concurrent(struct kunit *test)
{
	static struct slab_stress s = { .lock = PTHREAD_MUTEX_INITIALIZER };
	static struct slab_worker w[SLAB_THREADS];
	int i;

	s.cache = slab_create(test);
	s.nr_box = 0;
	atomic_set(&s.allocs, 0);
	atomic_set(&s.frees, 0);
	atomic_set(&s.bad, 0);
	for (i = 0; i < SLAB_THREADS; i++) {
		w[i].s = &s;
		w[i].id = i + 1;
		KUNIT_ASSERT_EQ(test, exec_test_thread_start(&w[i].t,
					slab_stress_fn, &w[i], "slab-stress"),
				0);
	}
	for (i = 0; i < SLAB_THREADS; i++)
		KUNIT_ASSERT_TRUE(test, exec_test_thread_join(&w[i].t,
						EXEC_TEST_TIMEOUT_MS * 3));
	while (slab_collect(&s))
		;
	KUNIT_EXPECT_EQ(test, atomic_read(&s.bad), 0);
	KUNIT_EXPECT_GT(test, atomic_read(&s.allocs), SLAB_ROUNDS);
	KUNIT_EXPECT_EQ(test, atomic_read(&s.frees), atomic_read(&s.allocs));
	slab_destroy(test, s.cache);
}

/* As the kernel warns: the cache goes, with the objects still out. */
static void slab_destroy_outstanding_warns(struct kunit *test)
{
	struct kmem_cache *cache = slab_create(test);
	struct slab_obj *objs[3];
	int i;

	for (i = 0; i < 3; i++) {
		objs[i] = kmem_cache_zalloc(cache, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
	}
	kmem_cache_free(cache, objs[1]);
	kmem_cache_destroy(cache);
	exec_user_set_log(NULL, NULL);
	KUNIT_EXPECT_EQ(test, slab_log_count(), 1);
	pthread_mutex_lock(&slab_log.lock);
	KUNIT_EXPECT_TRUE_MSG(test, strstr(slab_log.msg, ": 2 objects") != NULL,
			      "%s", slab_log.msg);
	pthread_mutex_unlock(&slab_log.lock);
	/* Under ASan they are malloc()'s, left to LeakSanitizer: not here. */
	if (SLAB_MALLOC) {
		free(objs[0]);
		free(objs[2]);
	}
}

/*
 * The core's fault point comes before the strand's kmem_cache_zalloc(), as
 * in the kernel: the injected failure fails the strand, and nothing of
 * the cache is taken (the next strand made and destroyed, the cache
 * stays usable).
 */
static void slab_fault_fails_strand(struct kunit *test)
{
	struct exec_thread_pool *pool;
	struct exec_serial *s = NULL;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, NULL), 0);
	exec_fault_inject_alloc(0);
	KUNIT_EXPECT_EQ(test, exec_serial_create(&s,
				exec_thread_pool_executor(pool)), -ENOMEM);
	KUNIT_EXPECT_TRUE(test, exec_fault_alloc_fired());
	exec_fault_inject_alloc(-1);
	KUNIT_EXPECT_EQ(test, exec_serial_create(&s,
				exec_thread_pool_executor(pool)), 0);
	if (s)
		KUNIT_EXPECT_EQ(test, exec_serial_destroy(s), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
}

struct slab_churner {
	struct kmem_cache *cache;
	atomic_t stop;
	atomic_t rounds;
};

/* Beyond a magazine each round, so that the depot's lock is taken often. */
static int slab_churn_fn(void *arg)
{
	struct slab_churner *c = arg;
	struct slab_obj *objs[SLAB_NR];
	int i;

	while (!atomic_read_acquire(&c->stop)) {
		for (i = 0; i < SLAB_NR; i++)
			objs[i] = kmem_cache_zalloc(c->cache, GFP_KERNEL);
		for (i = 0; i < SLAB_NR; i++)
			kmem_cache_free(c->cache, objs[i]);
		atomic_inc(&c->rounds);
	}
	return 0;
}

/* The child's part: 0 if its objects are zeroed and distinct. */
static int slab_fork_child(struct kmem_cache *cache)
{
	struct slab_obj *objs[SLAB_NR * 2];
	int i;

	for (i = 0; i < (int)ARRAY_SIZE(objs); i++) {
		objs[i] = kmem_cache_zalloc(cache, GFP_KERNEL);
		if (!objs[i] || !slab_obj_is_zero(objs[i]))
			return 1;
		objs[i]->seq = i;
	}
	for (i = 0; i < (int)ARRAY_SIZE(objs); i++)
		if (objs[i]->seq != (unsigned long)i)
			return 2;
	for (i = 0; i < (int)ARRAY_SIZE(objs); i++)
		kmem_cache_free(cache, objs[i]);
	return 0;
}

/*
 * Forks while another thread allocates and frees beyond its magazine: no
 * child inherits the cache's lock held (the library's fork handlers take
 * it), and each child's cache works, the other thread's magazine given
 * back to the depot.
 */
static void slab_fork_while_churning(struct kunit *test)
{
	static struct slab_churner c;
	struct exec_test_thread t;
	int i, status;
	u64 deadline;
	pid_t pid;

	c.cache = slab_create(test);
	atomic_set(&c.stop, 0);
	atomic_set(&c.rounds, 0);
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&t, slab_churn_fn, &c,
						     "slab-churn"), 0);
	for (i = 0; i < 16; i++) {
		exec_test_wait_atomic_ge(&c.rounds, i * 8, EXEC_TEST_TIMEOUT_MS);
		fflush(NULL);
		pid = fork();
		if (!pid)
			_exit(SLAB_FORK_CHILD_RUNS ? slab_fork_child(c.cache) : 0);
		KUNIT_ASSERT_GT(test, pid, 0);
		deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
		while (waitpid(pid, &status, WNOHANG) != pid) {
			if (exec_test_expired(deadline)) {
				kill(pid, SIGKILL);
				waitpid(pid, &status, 0);
				KUNIT_FAIL(test, "child %d hung", (int)pid);
				break;
			}
			usleep(1000);
		}
		KUNIT_EXPECT_TRUE(test, WIFEXITED(status));
		KUNIT_EXPECT_EQ(test, WEXITSTATUS(status), 0);
	}
	atomic_set_release(&c.stop, 1);
	KUNIT_ASSERT_TRUE(test, exec_test_thread_join(&t,
						      EXEC_TEST_TIMEOUT_MS));
	slab_destroy(test, c.cache);
}

static struct kunit_case exec_slab_cases[] = {
	KUNIT_CASE(slab_objects_distinct_aligned_zeroed),
	KUNIT_CASE(slab_objects_packed),
	KUNIT_CASE(slab_reuse_after_free),
	KUNIT_CASE(slab_free_on_other_thread),
	KUNIT_CASE(slab_thread_exit_gives_back),
	KUNIT_CASE(slab_many_caches),
	KUNIT_CASE(slab_threads_concurrent),
	KUNIT_CASE(slab_fork_while_churning),
	KUNIT_CASE(slab_destroy_outstanding_warns),
	KUNIT_CASE(slab_fault_fails_strand),
	{}
};

static struct kunit_suite exec_slab_suite = {
	.name = "exec-slab",
	.test_cases = exec_slab_cases,
};

kunit_test_suites(&exec_slab_suite);
