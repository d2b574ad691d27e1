/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The userspace platform: the kernel API the shared core is written
 * against, mirrored on pthreads, futexes and GCC's __atomic builtins.
 *
 * Ordering: the kernel's value-returning atomics (xchg, cmpxchg,
 * atomic_*_return, test_and_set_bit) are fully ordered; here they are
 * __ATOMIC_SEQ_CST.  The kernel's void atomics (atomic_inc, set_bit) are
 * unordered; here they are relaxed, and smp_mb__{before,after}_atomic() are
 * real fences, as in the kernel.  READ_ONCE()/WRITE_ONCE() are relaxed atomic
 * accesses, so ThreadSanitizer sees them as atomics.
 *
 * Only the parts of the kernel API the core uses are here.
 */
#ifndef EXEC_USER_PLATFORM_H
#define EXEC_USER_PLATFORM_H

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <exec/context.h>
#include <exec/user.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

/* Compiler */
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define barrier()	__asm__ __volatile__("" ::: "memory")
#define __maybe_unused	__attribute__((__unused__))
/* glibc's <sys/cdefs.h> defines it too (and #undefs it first, as here). */
#undef __always_inline
#define __always_inline	inline __attribute__((__always_inline__))
#define SMP_CACHE_BYTES	64
#define ____cacheline_aligned	__aligned(SMP_CACHE_BYTES)
#define __aligned(x)	__attribute__((__aligned__(x)))
#define __section(s)	__attribute__((__section__(s)))
#define __printf(a, b)	__attribute__((__format__(__printf__, a, b)))
#define U64_MAX	UINT64_MAX
#define EXPORT_SYMBOL_GPL(sym)	extern __typeof__(sym) sym
#define EXPORT_SYMBOL(sym)	extern __typeof__(sym) sym
/* Internals for the tests: they link the static library, where all is seen. */
#define EXPORT_SYMBOL_FOR_TESTS(sym)	extern __typeof__(sym) sym

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define BUILD_BUG_ON(cond)	_Static_assert(!(cond), #cond)
#define min(a, b)	((a) < (b) ? (a) : (b))
#define max(a, b)	((a) > (b) ? (a) : (b))
#define min_t(t, a, b)	((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)	((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define clamp_t(t, v, lo, hi)	min_t(t, max_t(t, v, lo), hi)
#define NSEC_PER_USEC	1000L
#define NSEC_PER_MSEC	1000000L
#define NSEC_PER_SEC	1000000000L
static inline uint64_t div_u64(uint64_t dividend, uint32_t divisor)
{
	return dividend / divisor;
}

static inline int64_t div_s64(int64_t dividend, int32_t divisor)
{
	return dividend / divisor;
}

static inline uint64_t div64_u64(uint64_t dividend, uint64_t divisor)
{
	return dividend / divisor;
}

static inline uint64_t div_u64_rem(uint64_t dividend, uint32_t divisor,
				   uint32_t *remainder)
{
	*remainder = (uint32_t)(dividend % divisor);
	return dividend / divisor;
}

/*
 * The library's messages go to the application's callback
 * (exec_user_set_log() in user/log.c), never to stderr by themselves.
 */
__printf(2, 3) void exec_user_log(int level, const char *fmt, ...);

/* Diagnostics: a misuse is logged once and the caller fails cleanly. */
#define WARN_ON_ONCE(cond) ({						\
	static bool __warned;						\
	bool __c = !!(cond);						\
	if (unlikely(__c) &&						\
	    !__atomic_exchange_n(&__warned, true, __ATOMIC_RELAXED))	\
		exec_user_log(EXEC_USER_LOG_WARNING,	\
			      "WARNING at %s:%d %s(): %s",	\
			      __FILE__, __LINE__, __func__, #cond);	\
	unlikely(__c);							\
})
#define WARN_ON(cond)	WARN_ON_ONCE(cond)
/* A fatal error: the process ends, as the kernel's BUG() ends the task. */
#define BUG()	abort()
/* The kernel's printk levels that the core uses, to the log callback. */
#define pr_warn(fmt, ...)	\
	exec_user_log(EXEC_USER_LOG_WARNING, fmt, ##__VA_ARGS__)
#define might_sleep()	do { } while (0)
#define might_sleep_if(cond)	do { (void)(cond); } while (0)
/*
 * The lock is held, by somebody: userspace keeps no owner, so a caller that
 * forgot the lock is caught whenever nobody else held it at that moment.
 * Spinlocks only (spinlock_t, raw_spinlock_t), all the core asserts.
 */
#define lockdep_assert_held(l)						\
	((void)WARN_ON_ONCE(!__atomic_load_n(&(l)->locked, __ATOMIC_RELAXED)))

/*
 * The wait annotations of core/platform.h: userspace has no lock validator,
 * so nothing is recorded and nothing is checked.
 */
struct exec_lockdep {
};

#define exec_lockdep_init(ld, kind)	((void)(ld), (void)(kind))
#define exec_lockdep_free(ld, obj)	((void)(ld), kfree(obj))
#define exec_lockdep_run_begin(ld)	((void)(ld))
#define exec_lockdep_run_end(ld)	((void)(ld))
#define exec_lockdep_wait(ld)		((void)(ld))
#define EXEC_HAVE_LOCKDEP	0

/* A class per call site (exec_group_create()): nothing here either. */
struct lock_class_key {
};

struct exec_lockdep_site {
};

#define exec_lockdep_site_init(s, name, key)	((void)(s), (void)(key))
#define exec_lockdep_site_run_begin(s)		((void)(s))
#define exec_lockdep_site_run_end(s)		((void)(s))
#define exec_lockdep_site_wait(s)		((void)(s))

/* Once-only accesses and barriers */
#define READ_ONCE(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define smp_mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb()	__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb()	__atomic_thread_fence(__ATOMIC_RELEASE)
/*
 * A store and a full barrier, as one sequentially consistent exchange (which
 * ThreadSanitizer understands, where it ignores fences).
 */
#define smp_store_mb(x, v)	((void)__atomic_exchange_n(&(x), (v), __ATOMIC_SEQ_CST))
#define smp_mb__before_atomic()	smp_mb()
#define smp_mb__after_atomic()	smp_mb()

#define xchg(p, v)	__atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST)
#define cmpxchg(p, o, n) ({						\
	__typeof__(*(p)) __old = (o);					\
	__atomic_compare_exchange_n((p), &__old, (n), false,		\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);\
	__old;								\
})
#define try_cmpxchg(p, po, n)						\
	__atomic_compare_exchange_n((p), (po), (n), false,		\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)

/*
 * The CPU the caller runs on, as a hint: it may have moved by the time the
 * caller looks (as with the kernel's raw_smp_processor_id() in preemptible
 * code).  sched_getcpu() is a vDSO call; 0 where it cannot tell.
 */
static inline int raw_smp_processor_id(void)
{
	int cpu = sched_getcpu();

	return cpu < 0 ? 0 : cpu;
}

/*
 * A worker between two items.  Userspace has no system freezer that a
 * thread could take part in (exec_thread_attr.freezable has no effect):
 * nothing to do.
 */
static inline void exec_thread_freeze_point(void)
{
}

/* Whether a system freeze is in progress: never, for a process's threads. */
static inline bool exec_freezer_active(void)
{
	return false;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	barrier();
#endif
}

void exec_user_yield(void);
/*
 * Userspace threads can be preempted anywhere: long waits give the CPU up.
 * Nothing asks a userspace thread to reschedule at a safe point, so loops
 * that do so in the kernel (need_resched()) never do here.
 */
#define cond_resched()	exec_user_yield()
#define need_resched()	false

/*
 * Whether another thread's few steps that a waiter spins for can be
 * preempted (see the kernel mirror): a userspace thread can be preempted
 * anywhere, so after a while even a wait in any context yields.
 */
#define EXEC_STEPS_PREEMPTIBLE	1

void exec_backoff_sleep(void);

/* atomic_t and atomic_long_t */
typedef struct { int counter; } atomic_t;
typedef struct { long counter; } atomic_long_t;
#define ATOMIC_INIT(i)	{ (i) }

#define __EXEC_ATOMIC_OPS(pfx, type, T)					\
static inline T pfx##_read(const type *v)				\
{ return __atomic_load_n(&v->counter, __ATOMIC_RELAXED); }		\
static inline void pfx##_set(type *v, T i)				\
{ __atomic_store_n(&v->counter, i, __ATOMIC_RELAXED); }			\
static inline void pfx##_add(T i, type *v)				\
{ __atomic_fetch_add(&v->counter, i, __ATOMIC_RELAXED); }		\
static inline void pfx##_sub(T i, type *v)				\
{ __atomic_fetch_sub(&v->counter, i, __ATOMIC_RELAXED); }		\
static inline void pfx##_inc(type *v) { pfx##_add(1, v); }		\
static inline void pfx##_dec(type *v) { pfx##_sub(1, v); }		\
static inline T pfx##_add_return(T i, type *v)				\
{ return __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static inline T pfx##_sub_return(T i, type *v)				\
{ return __atomic_sub_fetch(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static inline T pfx##_inc_return(type *v) { return pfx##_add_return(1, v); } \
static inline T pfx##_dec_return(type *v) { return pfx##_sub_return(1, v); } \
static inline bool pfx##_dec_and_test(type *v)				\
{ return pfx##_sub_return(1, v) == 0; }					\
static inline T pfx##_fetch_add(T i, type *v)				\
{ return __atomic_fetch_add(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static inline T pfx##_fetch_or(T i, type *v)				\
{ return __atomic_fetch_or(&v->counter, i, __ATOMIC_SEQ_CST); }		\
static inline T pfx##_fetch_andnot(T i, type *v)			\
{ return __atomic_fetch_and(&v->counter, ~i, __ATOMIC_SEQ_CST); }	\
static inline T pfx##_xchg(type *v, T i)				\
{ return __atomic_exchange_n(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static inline T pfx##_cmpxchg(type *v, T o, T n)			\
{									\
	__atomic_compare_exchange_n(&v->counter, &o, n, false,		\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);\
	return o;							\
}									\
static inline bool pfx##_try_cmpxchg(type *v, T *o, T n)		\
{									\
	return __atomic_compare_exchange_n(&v->counter, o, n, false,	\
					   __ATOMIC_SEQ_CST,		\
					   __ATOMIC_SEQ_CST);		\
}									\
static inline T pfx##_read_acquire(const type *v)			\
{ return __atomic_load_n(&v->counter, __ATOMIC_ACQUIRE); }		\
static inline void pfx##_set_release(type *v, T i)			\
{ __atomic_store_n(&v->counter, i, __ATOMIC_RELEASE); }

__EXEC_ATOMIC_OPS(atomic, atomic_t, int)
__EXEC_ATOMIC_OPS(atomic_long, atomic_long_t, long)
#undef __EXEC_ATOMIC_OPS

/*
 * Bit operations on bitmaps of unsigned long words, as the kernel's: bit @nr
 * is bit (@nr % BITS_PER_LONG) of word @nr / BITS_PER_LONG.
 */
#define BIT(n)	(1UL << (n))
#define EXEC_BIT_WORD(nr)	((nr) / (8 * (long)sizeof(long)))
#define EXEC_BIT_MASK(nr)	(1UL << ((nr) % (8 * (long)sizeof(long))))

static inline bool test_and_set_bit(long nr, unsigned long *addr)
{
	return __atomic_fetch_or(&addr[EXEC_BIT_WORD(nr)], EXEC_BIT_MASK(nr),
				 __ATOMIC_SEQ_CST) & EXEC_BIT_MASK(nr);
}

static inline bool test_and_clear_bit(long nr, unsigned long *addr)
{
	return __atomic_fetch_and(&addr[EXEC_BIT_WORD(nr)],
				  ~EXEC_BIT_MASK(nr), __ATOMIC_SEQ_CST) &
	       EXEC_BIT_MASK(nr);
}

static inline void clear_bit(long nr, unsigned long *addr)
{
	__atomic_fetch_and(&addr[EXEC_BIT_WORD(nr)], ~EXEC_BIT_MASK(nr),
			   __ATOMIC_RELAXED);
}

static inline void clear_bit_unlock(long nr, unsigned long *addr)
{
	__atomic_fetch_and(&addr[EXEC_BIT_WORD(nr)], ~EXEC_BIT_MASK(nr),
			   __ATOMIC_RELEASE);
}

static inline void set_bit(long nr, unsigned long *addr)
{
	__atomic_fetch_or(&addr[EXEC_BIT_WORD(nr)], EXEC_BIT_MASK(nr),
			  __ATOMIC_RELAXED);
}

/* The non-atomic ones, for bitmaps nobody else writes at the same time. */
static inline void __set_bit(long nr, unsigned long *addr)
{
	addr[EXEC_BIT_WORD(nr)] |= EXEC_BIT_MASK(nr);
}

static inline void __clear_bit(long nr, unsigned long *addr)
{
	addr[EXEC_BIT_WORD(nr)] &= ~EXEC_BIT_MASK(nr);
}

static inline bool test_bit(long nr, const unsigned long *addr)
{
	return __atomic_load_n(&addr[EXEC_BIT_WORD(nr)], __ATOMIC_RELAXED) &
	       EXEC_BIT_MASK(nr);
}

/* Interrupts and preemption do not exist for userspace callers. */
#define local_irq_save(flags)	do { (flags) = 0; } while (0)
#define local_irq_restore(flags)	do { (void)(flags); } while (0)
#define preempt_disable()	do { } while (0)
#define preempt_enable()	do { } while (0)
#define in_task()	1

/*
 * spinlock_t: a short critical section (a few list operations, never a
 * blocking call).  A test-and-test-and-set lock: cheaper than a mutex when
 * uncontended and, since the holder may be preempted in userspace, a waiter
 * that has spun EXEC_USER_SPIN_TURNS times leaves its CPU a while.
 */
typedef struct { int locked; } spinlock_t;
#define __SPIN_LOCK_UNLOCKED(name)	{ 0 }
#define EXEC_USER_SPIN_TURNS	128

void exec_user_spin_wait(spinlock_t *lock);

static inline void spin_lock_init(spinlock_t *lock)
{
	lock->locked = 0;
}

static inline void spin_lock_destroy(spinlock_t *lock)
{
}

static inline bool spin_trylock(spinlock_t *lock)
{
	return !__atomic_load_n(&lock->locked, __ATOMIC_RELAXED) &&
	       !__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE);
}

static inline void spin_lock(spinlock_t *lock)
{
	if (unlikely(__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE)))
		exec_user_spin_wait(lock);
}

static inline void spin_unlock(spinlock_t *lock)
{
	__atomic_store_n(&lock->locked, 0, __ATOMIC_RELEASE);
}

#define spin_lock_irqsave(l, flags) \
	do { (flags) = 0; spin_lock(l); } while (0)
#define spin_unlock_irqrestore(l, flags) \
	do { (void)(flags); spin_unlock(l); } while (0)

/*
 * bit_spin_lock(): a lock in one bit of a word whose other bits the holder
 * may change (the kernel's, for objects too small for a spinlock_t); waits
 * as spin_lock() does.
 */
void exec_user_bit_spin_wait(int bitnum, unsigned long *addr);

static inline void bit_spin_lock(int bitnum, unsigned long *addr)
{
	if (unlikely(__atomic_fetch_or(&addr[EXEC_BIT_WORD(bitnum)],
				       EXEC_BIT_MASK(bitnum),
				       __ATOMIC_ACQUIRE) &
		     EXEC_BIT_MASK(bitnum)))
		exec_user_bit_spin_wait(bitnum, addr);
}

static inline void bit_spin_unlock(int bitnum, unsigned long *addr)
{
	clear_bit_unlock(bitnum, addr);
}

/*
 * The kernel's non-atomic unlock, for a word whose other bits only the
 * holder changes: a waiter's atomic set of the locked bit writes back
 * what it read, so a release store of the word loses nothing.
 */
static inline void __bit_spin_unlock(int bitnum, unsigned long *addr)
{
	unsigned long *word = &addr[EXEC_BIT_WORD(bitnum)];

	__atomic_store_n(word, __atomic_load_n(word, __ATOMIC_RELAXED) &
			 ~EXEC_BIT_MASK(bitnum), __ATOMIC_RELEASE);
}

/* The kernel's raw_spinlock_t (never sleeps, even on PREEMPT_RT) is the same. */
typedef spinlock_t raw_spinlock_t;
#define __RAW_SPIN_LOCK_UNLOCKED(name)	__SPIN_LOCK_UNLOCKED(name)
#define DEFINE_RAW_SPINLOCK(name) \
	raw_spinlock_t name = __RAW_SPIN_LOCK_UNLOCKED(name)
#define raw_spin_lock_init(l)	spin_lock_init(l)
#define raw_spin_lock_destroy(l)	spin_lock_destroy(l)
#define raw_spin_lock(l)	spin_lock(l)
#define raw_spin_unlock(l)	spin_unlock(l)
#define raw_spin_lock_irqsave(l, flags)	spin_lock_irqsave(l, flags)
#define raw_spin_unlock_irqrestore(l, flags)	spin_unlock_irqrestore(l, flags)

void exec_user_lock_init(pthread_mutex_t *m);

struct mutex { pthread_mutex_t m; };
#define DEFINE_MUTEX(name)	struct mutex name = { PTHREAD_MUTEX_INITIALIZER }
#define mutex_init(l)	exec_user_lock_init(&(l)->m)
#define mutex_destroy(l)	pthread_mutex_destroy(&(l)->m)
#define mutex_lock(l)	pthread_mutex_lock(&(l)->m)
#define mutex_unlock(l)	pthread_mutex_unlock(&(l)->m)

/*
 * wait_queue_head_t: wait_event()/wake_up_all() on a futex.  @seq changes on
 * every wake-up; a waiter sleeps only if it has not changed since it last
 * tested its condition, and only after announcing itself in @waiters, so a
 * waker that finds no waiter makes no system call.
 */
typedef struct {
	u32 seq;
	u32 waiters;
} wait_queue_head_t;

void exec_futex_wait(u32 *uaddr, u32 val);
void exec_futex_wake(u32 *uaddr, int nr);
void exec_futex_wait_until(u32 *uaddr, u32 val, bool realtime, u64 when);

#define DECLARE_WAIT_QUEUE_HEAD(name)	wait_queue_head_t name = { 0, 0 }

static inline void init_waitqueue_head(wait_queue_head_t *wq)
{
	wq->seq = 0;
	wq->waiters = 0;
}

/*
 * Orders the condition's store before the @seq increment, and the increment
 * before the read of @waiters; pairs with the waiter's increment of @waiters
 * before it re-tests the condition in wait_event().
 */
static inline void wake_up_all(wait_queue_head_t *wq)
{
	__atomic_add_fetch(&wq->seq, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&wq->waiters, __ATOMIC_SEQ_CST))
		exec_futex_wake(&wq->seq, INT_MAX);
}

#define wake_up(wq)	wake_up_all(wq)

/* Full barrier, then whether anyone waits (the kernel's contract). */
static inline bool wq_has_sleeper(wait_queue_head_t *wq)
{
	return __atomic_load_n(&wq->waiters, __ATOMIC_SEQ_CST) != 0;
}

#define wait_event(wq, cond) do {					\
	for (;;) {							\
		u32 __seq = __atomic_load_n(&(wq).seq, __ATOMIC_ACQUIRE);\
		if (cond)						\
			break;						\
		__atomic_add_fetch(&(wq).waiters, 1, __ATOMIC_SEQ_CST);	\
		if (!(cond))						\
			exec_futex_wait(&(wq).seq, __seq);		\
		__atomic_sub_fetch(&(wq).waiters, 1, __ATOMIC_SEQ_CST);	\
	}								\
} while (0)

/* ktime_t: a time in nanoseconds, as in <linux/ktime.h>. */
typedef s64 ktime_t;
#define KTIME_MAX	((ktime_t)INT64_MAX)
#define ns_to_ktime(ns)	((ktime_t)(ns))

/*
 * wait_event() bounded by a relative @timeout (a ktime_t): 0 once @cond
 * holds, -ETIME if the timeout passed first, as the kernel's
 * wait_event_hrtimeout() (which sleeps uninterruptibly).  KTIME_MAX, or a
 * timeout too large for the clock, means no timeout.  The same protocol on
 * @seq and @waiters as wait_event(), with a deadline on CLOCK_MONOTONIC.
 */
#define wait_event_hrtimeout(wq, cond, timeout) ({			\
	ktime_t __to = (timeout);					\
	u64 __now = ktime_get_ns();					\
	u64 __rel = __to > 0 ? (u64)__to : 0;				\
	u64 __end = __to == KTIME_MAX || __rel >= U64_MAX - __now ?	\
		    U64_MAX : __now + __rel;				\
	int __ret = 0;							\
	for (;;) {							\
		u32 __seq = __atomic_load_n(&(wq).seq, __ATOMIC_ACQUIRE);\
		if (cond)						\
			break;						\
		if (ktime_get_ns() >= __end) {				\
			__ret = -ETIME;					\
			break;						\
		}							\
		__atomic_add_fetch(&(wq).waiters, 1, __ATOMIC_SEQ_CST);	\
		if (!(cond)) {						\
			if (__end == U64_MAX)				\
				exec_futex_wait(&(wq).seq, __seq);	\
			else						\
				exec_futex_wait_until(&(wq).seq, __seq,	\
						      false, __end);	\
		}							\
		__atomic_sub_fetch(&(wq).waiters, 1, __ATOMIC_SEQ_CST);	\
	}								\
	__ret;								\
})

/* Bit searches and hashing (<linux/bitops.h>, <linux/hash.h>) */
static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

/* The smallest power of two >= @n (@n > 0), as <linux/log2.h>'s. */
static inline unsigned long roundup_pow_of_two(unsigned long n)
{
	return n <= 1 ? 1 : 1UL << (64 - __builtin_clzll(n - 1));
}

/* Index of the lowest set bit; undefined for 0, as in the kernel. */
static inline unsigned long __ffs64(u64 x)
{
	return (unsigned long)__builtin_ctzll(x);
}

/* Index of the lowest set bit; undefined for 0, as in the kernel. */
static inline unsigned long __ffs(unsigned long x)
{
	return (unsigned long)__builtin_ctzl(x);
}

#define BITS_PER_LONG	(8 * (int)sizeof(long))
#define BITS_TO_LONGS(nr)	(((nr) + BITS_PER_LONG - 1) / BITS_PER_LONG)

static inline u32 hash_ptr(const void *ptr, unsigned int bits)
{
	/* The kernel's GOLDEN_RATIO_64 multiplicative hash. */
	return (u32)(((u64)(uintptr_t)ptr * 0x61C8864680B583EBULL) >>
		     (64 - bits));
}

/*
 * wait_var_event()/wake_up_var(): a wait on a variable's condition, on one
 * of a few wait queues shared by hash of its address, as the kernel's, so
 * that an object made by the thousand holds no wait queue of its own.  The
 * waker orders its change of the condition before wake_up_var() with a
 * full barrier, as in the kernel.
 */
#define EXEC_VAR_WAIT_BITS	6
extern wait_queue_head_t exec_var_waitqueues[1 << EXEC_VAR_WAIT_BITS];

static inline wait_queue_head_t *__var_waitqueue(const void *var)
{
	return &exec_var_waitqueues[hash_ptr(var, EXEC_VAR_WAIT_BITS)];
}

#define wait_var_event(var, cond)	wait_event(*__var_waitqueue(var), cond)
#define wake_up_var(var)		wake_up_all(__var_waitqueue(var))

/* Memory */
typedef unsigned int gfp_t;
#define GFP_KERNEL	0U
#define GFP_ATOMIC	1U
#define GFP_NOWAIT	2U
#define __GFP_NOWARN	4U
/*
 * Like the kernel's slab caches, objects of a cache line or more start on a
 * cache line, so that ____cacheline_aligned members of a kmalloc()ed struct
 * are on lines of their own, as in the kernel; malloc() only promises 16.
 */
static inline void *exec_user_kmalloc(size_t size, bool zero)
{
	void *p;

	if (size < 64)
		return zero ? calloc(1, size) : malloc(size);
	p = aligned_alloc(64, (size + 63) & ~(size_t)63);
	if (p && zero)
		memset(p, 0, size);
	return p;
}

/* See the kernel mirror: an object aligned as its type asks, no more. */
static inline void *exec_kzalloc_aligned(size_t size, size_t align, gfp_t gfp)
{
	void *p;

	if (align <= __alignof__(max_align_t))
		return calloc(1, size);
	p = aligned_alloc(align, (size + align - 1) & ~(align - 1));
	if (p)
		memset(p, 0, size);
	return p;
}

/*
 * Slab caches (user/slab.c): each cache carves its objects, exactly their
 * size rounded up to their alignment, from chunks of whole pages, and keeps
 * the freed ones for reuse in a small magazine per thread, over a depot
 * that the threads share.  @gfp is ignored: userspace has no atomic context.
 * The core's fault point (exec_fault_alloc()) is its caller's, as in the
 * kernel, whose kmem_cache_zalloc() does not consult it either.
 */
struct kmem_cache;

struct kmem_cache *kmem_cache_create(const char *name, unsigned int size,
				     unsigned int align, unsigned long flags,
				     void (*ctor)(void *));
void *kmem_cache_zalloc(struct kmem_cache *cache, gfp_t gfp);
void kmem_cache_free(struct kmem_cache *cache, void *obj);
void kmem_cache_destroy(struct kmem_cache *cache);

#define KMEM_CACHE(s, flags)						\
	kmem_cache_create(#s, sizeof(struct s), __alignof__(struct s),	\
			  (flags), NULL)

static inline void *exec_user_kcalloc(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return exec_user_kmalloc(n * size, true);
}

#define kmalloc(size, gfp)	exec_user_kmalloc((size), false)
#define kzalloc(size, gfp)	exec_user_kmalloc((size), true)
static inline void *kmemdup(const void *src, size_t len, int gfp)
{
	void *p = exec_user_kmalloc(len, false);

	if (p)
		memcpy(p, src, len);
	return p;
}
#define kcalloc(n, size, gfp)	exec_user_kcalloc((n), (size))
/* Size of @p with @n of its flexible array @member, as <linux/overflow.h>. */
#define struct_size(p, member, n)	\
	(sizeof(*(p)) + (n) * sizeof((p)->member[0]))
#define kfree(p)	free(p)

/* Clock */
static inline u64 ktime_get_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

/* EXEC_CLOCK_MONOTONIC (0) or EXEC_CLOCK_REALTIME (1), in nanoseconds. */
static inline u64 exec_clock_read(unsigned int clock)
{
	struct timespec ts;

	clock_gettime(clock ? CLOCK_REALTIME : CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

/*
 * Nanoseconds for the calling thread's own short measures (how long it
 * spun, how long a park lasted): CLOCK_MONOTONIC, which the vDSO reads
 * without a system call.
 */
static inline u64 exec_clock_read_local(void)
{
	return exec_clock_read(0);
}

static inline void msleep(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static inline void usleep_range(unsigned long min_us, unsigned long max_us)
{
	struct timespec ts = { min_us / 1000000, (long)(min_us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * Threads.
 * @attr: while the thread starts, the attributes it applies to itself
 *	(exec_thread_start_attr()); NULL when there is nothing to apply
 * @started: set (release) once the thread has applied @attr, then woken
 *	as a futex; only used when @attr is set
 * @start_status: 0, or the negative errno with which applying @attr failed
 */
struct exec_thread_attr;

/* Its CPU time and the time at the previous exec_thread_blocked(). */
struct exec_thread_sample {
	u64 cpu_ns;
	u64 wall_ns;
};

struct exec_thread {
	pthread_t tid;
	pid_t sys_tid;
	int (*fn)(void *arg);
	void *arg;
	char name[16];
	const struct exec_thread_attr *attr;
	u32 started;
	int start_status;
};

int exec_thread_start(struct exec_thread *thread, int (*fn)(void *arg),
		      void *arg, const char *name);
void exec_thread_join(struct exec_thread *thread);

extern __thread void *exec_user_thread_self
	__attribute__((tls_model("initial-exec")));

static inline void *exec_thread_self_get(void)
{
	return exec_user_thread_self;
}

static inline void exec_thread_self_set(void *self)
{
	exec_user_thread_self = self;
}

unsigned int exec_online_cpus(void);
unsigned int exec_cpu_ids(void);

/*
 * struct exec_parker - one thread's sleep/wake point
 * @permit: 1 when an unpark() has not been consumed yet; also the futex word
 *	of the futex backend
 * @sleeping: EXEC_PARKER_* of core/platform.h: which sleep the owner is
 *	(about to be) in; an unpark() that finds 0 makes no system call
 * @ring: the owner's io_uring (io_uring backend), or NULL
 * @armed: per clock, the deadline of the timeout the owner has in @ring
 *	(exec_parker_sleep_until()), EXEC_TIME_NEVER if none; owner only
 *
 * See core/platform.h for the contract.
 */
struct exec_parker {
	u32 permit;
	u32 sleeping;
	void *ring;
	u64 armed[2];
};

int exec_parker_init(struct exec_parker *parker);
void exec_parker_destroy(struct exec_parker *parker);
void exec_parker_park(struct exec_parker *parker);
void exec_parker_sleep(struct exec_parker *parker);
void exec_parker_wake(struct exec_parker *parker, int sleeping);
void exec_parker_unpark(struct exec_parker *parker);
void exec_parker_sleep_until(struct exec_parker *parker, const u64 *when);
void exec_parker_park_until(struct exec_parker *parker, const u64 *when);

/*
 * The io_uring wakeup backend's waker (user/parker.c), which the I/O
 * contexts' io_uring backend (user/io/io_uring.c) wakes its thread with
 * too: exec_uring_wake() posts a CQE whose user_data is EXEC_WAKE_DATA
 * ("exec-wak" in ASCII) into @target, whose waiting thread only takes it
 * out of its CQ.  Any thread; one system call.
 */
#define EXEC_WAKE_DATA		0x657865632d77616bULL

struct io_uring;
void exec_uring_wake(struct io_uring *target);

/*
 * The platform's process-wide state across fork(): locks taken at
 * EXEC_FORK_PREPARE and released at the other two steps, and in the child
 * what belongs to the parent let go (user/parker.c, user/log.c; called by
 * the pthread_atfork() handlers of user/init.c).
 */
void exec_parker_fork(enum exec_fork_event event);
void exec_user_log_fork(enum exec_fork_event event);
void exec_user_slab_fork(enum exec_fork_event event);

/*
 * struct exec_clockev - a timer base's clock event device: one timerfd per
 * clock, and a thread asleep in poll() on them.  See user/clockev.c.
 * @handler: called by the thread when a programmed time has come
 * @when: L(the owner's lock): per clock, the programmed time, on the
 *	system clock; read locklessly by start() and exec_clockev_apply()
 * @seq: L(the owner's lock): per clock, bumped with a release by each
 *	program() that changes @when; read with an acquire by commit()
 * @applied: A: per clock, the @seq whose @when a commit has armed (a
 *	plain store: a late one only costs a later commit one more arm)
 * @committing: A: commits under way that may arm; stop() waits for none
 *	before it closes the timerfds (pairs as exec_clockev_apply() says)
 * @state: A: EXEC_CLOCKEV_IDLE, _RUNNING, _STOPPING, _STOPPED
 * @lock: serialises start and stop; lives until exec_clockev_fini()
 * @tfd: per clock, the timerfd; created by start()
 * @stop_fd: an eventfd that stop() writes to end the thread's poll()
 * @thread: the thread, started by the first arm
 */
struct exec_clockev {
	void (*handler)(struct exec_clockev *ce);
	u64 when[2];
	unsigned long seq[2];
	unsigned long applied[2];
	atomic_t committing;
	int state;
	pthread_mutex_t lock;
	int tfd[2];
	int stop_fd;
	struct exec_thread thread;
};

void exec_clockev_apply(struct exec_clockev *ce);

/*
 * program() only records the time here; the timerfd is armed by the
 * commit that follows the unlock of the owner's lock, since a system call
 * made under a userspace spinlock is a point where its holder can be
 * preempted (core/platform.h).  Nothing to arm: two loads.
 */
static inline bool exec_clockev_unarmed(const struct exec_clockev *ce,
					unsigned int clock)
{
	/* Pairs with the release in exec_clockev_program(). */
	return smp_load_acquire(&ce->seq[clock]) != READ_ONCE(ce->applied[clock]);
}

static inline void exec_clockev_commit(struct exec_clockev *ce)
{
	if (exec_clockev_unarmed(ce, 0) || exec_clockev_unarmed(ce, 1))
		exec_clockev_apply(ce);
}

/*
 * The clock event device is a thread here, which may take the wheel's early
 * cascades after it has handed due items over (core/timer.c).
 */
static inline bool exec_clockev_is_thread(void)
{
	return true;
}

/*
 * No timer here runs in the interrupted context of a CPU: a per-CPU pool
 * wakes other workers as any pool does (core/thread_pool.c).
 */
struct exec_cpu_timer {
	u64 (*fn)(struct exec_cpu_timer *t);
};

#define EXEC_HAVE_CPU_TIMER	0

static inline void exec_cpu_timer_init(struct exec_cpu_timer *t,
				       u64 (*fn)(struct exec_cpu_timer *t))
{
	t->fn = fn;
}

static inline void exec_cpu_timer_arm(struct exec_cpu_timer *t, u64 delay_ns)
{
}

static inline void exec_cpu_timer_cancel(struct exec_cpu_timer *t)
{
}

static inline bool exec_cpu_timer_pending(struct exec_cpu_timer *t)
{
	return false;
}

/*
 * No CPU hotplug notification reaches a process: a watch is never called,
 * and a per-CPU pool's workers keep the affinity the kernel leaves them
 * (Documentation/lifecycle.rst).
 */
struct exec_cpu_watch {
	void (*fn)(struct exec_cpu_watch *watch, unsigned int cpu, bool online);
};

#define EXEC_HAVE_CPU_WATCH	0

static inline void exec_cpus_hold(void)
{
}

static inline void exec_cpus_release(void)
{
}

static inline int exec_cpu_watch_add(struct exec_cpu_watch *watch)
{
	return 0;
}

static inline void exec_cpu_watch_remove(struct exec_cpu_watch *watch)
{
}

/* Never called: no watch is. */
static inline int exec_thread_set_cpu(struct exec_thread *thread, int cpu)
{
	return -EOPNOTSUPP;
}

#endif /* EXEC_USER_PLATFORM_H */
