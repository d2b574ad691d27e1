// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The userspace side of the closure caches (core/executor.c): one per
 * thread, whose ring goes to the core's orphans when the thread exits.
 */
#include <pthread.h>

#include "platform.h"

/*
 * Each thread's closures (core/executor.c).  The key's destructor hands the
 * ring to the core at thread exit, for the next thread that needs one.
 * Without a key (pthread_key_create() failed: the process ran out of keys)
 * a thread's ring is not handed on at its exit but lost with it, so the
 * fallback costs memory: the ring each exiting thread grew.
 */
static __thread struct exec_closure_cache exec_thread_closures
	__attribute__((tls_model("initial-exec")));
static __thread bool exec_thread_closures_keyed
	__attribute__((tls_model("initial-exec")));
static pthread_key_t exec_closures_key;
static pthread_once_t exec_closures_once = PTHREAD_ONCE_INIT;
static bool exec_closures_key_ok;

static void exec_thread_closures_exit(void *cache)
{
	exec_closure_cache_exit(cache);
	/* A later destructor that submits a closure sets the key again. */
	exec_thread_closures_keyed = false;
}

static void exec_closures_key_create(void)
{
	exec_closures_key_ok = !pthread_key_create(&exec_closures_key,
						   exec_thread_closures_exit);
}

/**
 * exec_local_closures - the closure cache of the calling thread
 *
 * Context: Any thread; not from a signal handler.
 * Return: the cache.
 */
struct exec_closure_cache *exec_local_closures(void)
{
	if (unlikely(!exec_thread_closures_keyed)) {
		/* Also orders the key's creation before its use. */
		pthread_once(&exec_closures_once, exec_closures_key_create);
		if (exec_closures_key_ok)
			pthread_setspecific(exec_closures_key,
					    &exec_thread_closures);
		exec_thread_closures_keyed = true;
	}
	return &exec_thread_closures;
}

/**
 * exec_local_closures_release - free the caller's and exited threads' closures
 *
 * Context: Every closure has run, and no other thread allocates one.
 */
void exec_local_closures_release(void)
{
	exec_closure_cache_release(&exec_thread_closures);
	exec_closure_orphans_release();
}
