/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A userspace stand-in for the kernel's <kunit/test.h>.
 *
 * The test files in tests/ are written once, against KUnit, and built both by
 * Kbuild into a kernel module and by tests/user/tests.mk into a userspace
 * program.  This header provides the subset of KUnit they use, with the same
 * names and the same meaning, so that they need no #ifdef.  The userspace
 * runner (tests/user/runner.c) prints KTAP version 1 as the kernel does.
 *
 * Differences from the kernel that a test author must know:
 *
 *  - KUNIT_ASSERT_*() abort the case with longjmp() when they fail on the
 *    thread running the case.  On any other thread (a worker of an executor
 *    under test) a failed assertion is recorded and the thread goes on, as an
 *    expectation would: unwinding a foreign thread is impossible here, and
 *    in the kernel it would kill the thread.  Tests only assert on the case's
 *    own thread.
 *  - Expectations may fail on any thread; the case's status is updated
 *    atomically.
 *  - Values are printed as long long, whatever their type.
 */
#ifndef EXEC_USER_KUNIT_TEST_H
#define EXEC_USER_KUNIT_TEST_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

enum kunit_status {
	KUNIT_SUCCESS,
	KUNIT_FAILURE,
	KUNIT_SKIPPED,
};

struct kunit_user_alloc;

/**
 * struct kunit - the state of one running test case
 * @priv: for the suite's init/exit and the case
 * @name: the case's name
 *
 * The remaining fields are the runner's; tests do not touch them.
 */
struct kunit {
	void *priv;
	const char *name;
	int status;
	char status_comment[256];
	jmp_buf *abort_env;
	struct kunit_user_alloc *allocs;
};

/**
 * struct kunit_case - one test case
 * @run_case: the function
 * @name: its name, as printed
 */
struct kunit_case {
	void (*run_case)(struct kunit *test);
	const char *name;
	/* private: set by the runner */
	int status;
};

#define KUNIT_CASE(test_name) { .run_case = test_name, .name = #test_name }

/**
 * struct kunit_suite - a set of cases
 * @name: the suite's name, as printed and as matched by the runner's filter
 * @suite_init: called once before the first case; non-zero fails them all
 * @suite_exit: called once after the last case
 * @init: called before each case; non-zero fails the case
 * @exit: called after each case, also when it failed or aborted
 * @test_cases: the cases, terminated by an empty entry
 */
struct kunit_suite {
	const char name[256];
	int (*suite_init)(struct kunit_suite *suite);
	void (*suite_exit)(struct kunit_suite *suite);
	int (*init)(struct kunit *test);
	void (*exit)(struct kunit *test);
	struct kunit_case *test_cases;
};

/* Registration: a constructor links each file's suites into the runner. */
struct kunit_user_registration {
	struct kunit_suite * const *suites;
	size_t nr;
	struct kunit_user_registration *next;
};

void kunit_user_register(struct kunit_user_registration *reg);

#define __KUNIT_USER_CAT2(a, b)	a##b
#define __KUNIT_USER_CAT(a, b)	__KUNIT_USER_CAT2(a, b)
#define __KUNIT_USER_ID(pfx)	__KUNIT_USER_CAT(pfx, __LINE__)

#define kunit_test_suites(...)						\
	static struct kunit_suite * const				\
	__KUNIT_USER_ID(__kunit_suites_)[] = { __VA_ARGS__ };		\
	static struct kunit_user_registration				\
	__KUNIT_USER_ID(__kunit_reg_) = {				\
		.suites = __KUNIT_USER_ID(__kunit_suites_),		\
		.nr = sizeof(__KUNIT_USER_ID(__kunit_suites_)) /	\
		      sizeof(__KUNIT_USER_ID(__kunit_suites_)[0]),	\
	};								\
	__attribute__((constructor)) static void			\
	__KUNIT_USER_ID(__kunit_ctor_)(void)				\
	{								\
		kunit_user_register(&__KUNIT_USER_ID(__kunit_reg_));	\
	}

#define kunit_test_suite(suite)	kunit_test_suites(&(suite))

/* Logging: one line, indented as the kernel indents a case's diagnostics. */
void kunit_user_log(struct kunit *test, const char *level, const char *fmt,
		    ...) __attribute__((format(printf, 3, 4)));

#define kunit_info(test, fmt, ...)	kunit_user_log(test, "", fmt, ##__VA_ARGS__)
#define kunit_warn(test, fmt, ...)	kunit_user_log(test, "", fmt, ##__VA_ARGS__)
#define kunit_err(test, fmt, ...)	kunit_user_log(test, "", fmt, ##__VA_ARGS__)
#define kunit_log(lvl, test, fmt, ...)	kunit_user_log(test, "", fmt, ##__VA_ARGS__)

/* Memory released after the case's exit(), as the kernel's managed memory. */
void *kunit_kmalloc_array(struct kunit *test, size_t n, size_t size,
			  unsigned int gfp);
void kunit_kfree(struct kunit *test, const void *ptr);

static inline void *kunit_kmalloc(struct kunit *test, size_t size,
				  unsigned int gfp)
{
	return kunit_kmalloc_array(test, 1, size, gfp);
}

static inline void *kunit_kzalloc(struct kunit *test, size_t size,
				  unsigned int gfp)
{
	void *p = kunit_kmalloc_array(test, 1, size, gfp);

	if (p)
		memset(p, 0, size);
	return p;
}

static inline void *kunit_kcalloc(struct kunit *test, size_t n, size_t size,
				  unsigned int gfp)
{
	void *p = kunit_kmalloc_array(test, n, size, gfp);

	if (p)
		memset(p, 0, n * size);
	return p;
}

/* Failure reporting; called only from the macros below. */
enum kunit_user_kind {
	KUNIT_EXPECTATION,
	KUNIT_ASSERTION,
};

void kunit_user_fail_begin(struct kunit *test, const char *file, int line,
			   enum kunit_user_kind kind);
void kunit_user_fail_text(struct kunit *test, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void kunit_user_fail_end(struct kunit *test, enum kunit_user_kind kind);
void kunit_user_mark_skipped(struct kunit *test, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void kunit_user_abort(struct kunit *test);

#define __KUNIT_USER_MSG(test, fmt, ...) do {				\
	const char *__fmt = (fmt);					\
	if (__fmt)							\
		kunit_user_fail_text(test, fmt, ##__VA_ARGS__);		\
} while (0)

#define KUNIT_USER_FAIL(test, kind, fmt, ...) do {			\
	kunit_user_fail_begin(test, __FILE__, __LINE__, kind);		\
	__KUNIT_USER_MSG(test, fmt, ##__VA_ARGS__);			\
	kunit_user_fail_end(test, kind);				\
} while (0)

#define KUNIT_USER_BOOL(test, kind, cond, expected, fmt, ...) do {	\
	const bool __cond = (cond);					\
	if (__cond != (expected)) {					\
		kunit_user_fail_begin(test, __FILE__, __LINE__, kind);	\
		kunit_user_fail_text(test, "Expected %s to be %s, but is %s", \
				     #cond, (expected) ? "true" : "false", \
				     (expected) ? "false" : "true");	\
		__KUNIT_USER_MSG(test, fmt, ##__VA_ARGS__);		\
		kunit_user_fail_end(test, kind);			\
	}								\
} while (0)

#define KUNIT_USER_BINARY(test, kind, left, op, right, fmt, ...) do {	\
	const __typeof__(left) __left = (left);				\
	const __typeof__(right) __right = (right);			\
	if (!(__left op __right)) {					\
		kunit_user_fail_begin(test, __FILE__, __LINE__, kind);	\
		kunit_user_fail_text(test,				\
			"Expected %s %s %s, but\n        %s == %lld (0x%llx)\n        %s == %lld (0x%llx)", \
			#left, #op, #right,				\
			#left, (long long)__left,			\
			(unsigned long long)__left,			\
			#right, (long long)__right,			\
			(unsigned long long)__right);			\
		__KUNIT_USER_MSG(test, fmt, ##__VA_ARGS__);		\
		kunit_user_fail_end(test, kind);			\
	}								\
} while (0)

#define KUNIT_USER_PTR(test, kind, left, op, right, fmt, ...) do {	\
	const void *__left = (left);					\
	const void *__right = (right);					\
	if (!(__left op __right)) {					\
		kunit_user_fail_begin(test, __FILE__, __LINE__, kind);	\
		kunit_user_fail_text(test,				\
			"Expected %s %s %s, but\n        %s == %p\n        %s == %p", \
			#left, #op, #right, #left, __left,		\
			#right, __right);				\
		__KUNIT_USER_MSG(test, fmt, ##__VA_ARGS__);		\
		kunit_user_fail_end(test, kind);			\
	}								\
} while (0)

#define KUNIT_USER_STR(test, kind, left, op, right, fmt, ...) do {	\
	const char *__left = (left);					\
	const char *__right = (right);					\
	if (!(strcmp(__left, __right) op 0)) {				\
		kunit_user_fail_begin(test, __FILE__, __LINE__, kind);	\
		kunit_user_fail_text(test,				\
			"Expected %s %s %s, but\n        %s == \"%s\"\n        %s == \"%s\"", \
			#left, #op, #right, #left, __left,		\
			#right, __right);				\
		__KUNIT_USER_MSG(test, fmt, ##__VA_ARGS__);		\
		kunit_user_fail_end(test, kind);			\
	}								\
} while (0)

#define KUNIT_FAIL(test, fmt, ...)					\
	KUNIT_USER_FAIL(test, KUNIT_EXPECTATION, fmt, ##__VA_ARGS__)

#define kunit_mark_skipped(test, fmt, ...)				\
	kunit_user_mark_skipped(test, fmt, ##__VA_ARGS__)

/* Not a pass: the case is reported as skipped and counted as such. */
#define kunit_skip(test, fmt, ...) do {					\
	kunit_user_mark_skipped(test, fmt, ##__VA_ARGS__);		\
	kunit_user_abort(test);						\
} while (0)

/* Expectations */
#define KUNIT_EXPECT_TRUE_MSG(test, c, fmt, ...)			\
	KUNIT_USER_BOOL(test, KUNIT_EXPECTATION, c, true, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_FALSE_MSG(test, c, fmt, ...)			\
	KUNIT_USER_BOOL(test, KUNIT_EXPECTATION, c, false, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_EQ_MSG(test, l, r, fmt, ...)			\
	KUNIT_USER_BINARY(test, KUNIT_EXPECTATION, l, ==, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_NE_MSG(test, l, r, fmt, ...)			\
	KUNIT_USER_BINARY(test, KUNIT_EXPECTATION, l, !=, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_LT_MSG(test, l, r, fmt, ...)			\
	KUNIT_USER_BINARY(test, KUNIT_EXPECTATION, l, <, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_LE_MSG(test, l, r, fmt, ...)			\
	KUNIT_USER_BINARY(test, KUNIT_EXPECTATION, l, <=, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_GT_MSG(test, l, r, fmt, ...)			\
	KUNIT_USER_BINARY(test, KUNIT_EXPECTATION, l, >, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_GE_MSG(test, l, r, fmt, ...)			\
	KUNIT_USER_BINARY(test, KUNIT_EXPECTATION, l, >=, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_PTR_EQ_MSG(test, l, r, fmt, ...)			\
	KUNIT_USER_PTR(test, KUNIT_EXPECTATION, l, ==, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_PTR_NE_MSG(test, l, r, fmt, ...)			\
	KUNIT_USER_PTR(test, KUNIT_EXPECTATION, l, !=, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_NULL_MSG(test, p, fmt, ...)			\
	KUNIT_USER_PTR(test, KUNIT_EXPECTATION, p, ==, NULL, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_NOT_NULL_MSG(test, p, fmt, ...)			\
	KUNIT_USER_PTR(test, KUNIT_EXPECTATION, p, !=, NULL, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_STREQ_MSG(test, l, r, fmt, ...)			\
	KUNIT_USER_STR(test, KUNIT_EXPECTATION, l, ==, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_STRNEQ_MSG(test, l, r, fmt, ...)			\
	KUNIT_USER_STR(test, KUNIT_EXPECTATION, l, !=, r, fmt, ##__VA_ARGS__)

#define KUNIT_EXPECT_TRUE(test, c)	KUNIT_EXPECT_TRUE_MSG(test, c, NULL)
#define KUNIT_EXPECT_FALSE(test, c)	KUNIT_EXPECT_FALSE_MSG(test, c, NULL)
#define KUNIT_EXPECT_EQ(test, l, r)	KUNIT_EXPECT_EQ_MSG(test, l, r, NULL)
#define KUNIT_EXPECT_NE(test, l, r)	KUNIT_EXPECT_NE_MSG(test, l, r, NULL)
#define KUNIT_EXPECT_LT(test, l, r)	KUNIT_EXPECT_LT_MSG(test, l, r, NULL)
#define KUNIT_EXPECT_LE(test, l, r)	KUNIT_EXPECT_LE_MSG(test, l, r, NULL)
#define KUNIT_EXPECT_GT(test, l, r)	KUNIT_EXPECT_GT_MSG(test, l, r, NULL)
#define KUNIT_EXPECT_GE(test, l, r)	KUNIT_EXPECT_GE_MSG(test, l, r, NULL)
#define KUNIT_EXPECT_PTR_EQ(test, l, r)	KUNIT_EXPECT_PTR_EQ_MSG(test, l, r, NULL)
#define KUNIT_EXPECT_PTR_NE(test, l, r)	KUNIT_EXPECT_PTR_NE_MSG(test, l, r, NULL)
#define KUNIT_EXPECT_NULL(test, p)	KUNIT_EXPECT_NULL_MSG(test, p, NULL)
#define KUNIT_EXPECT_NOT_NULL(test, p)	KUNIT_EXPECT_NOT_NULL_MSG(test, p, NULL)
#define KUNIT_EXPECT_STREQ(test, l, r)	KUNIT_EXPECT_STREQ_MSG(test, l, r, NULL)
#define KUNIT_EXPECT_STRNEQ(test, l, r)	KUNIT_EXPECT_STRNEQ_MSG(test, l, r, NULL)

/* Assertions: as the expectations, but a failure ends the case. */
#define KUNIT_ASSERT_TRUE_MSG(test, c, fmt, ...)			\
	KUNIT_USER_BOOL(test, KUNIT_ASSERTION, c, true, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_FALSE_MSG(test, c, fmt, ...)			\
	KUNIT_USER_BOOL(test, KUNIT_ASSERTION, c, false, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_EQ_MSG(test, l, r, fmt, ...)			\
	KUNIT_USER_BINARY(test, KUNIT_ASSERTION, l, ==, r, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_NE_MSG(test, l, r, fmt, ...)			\
	KUNIT_USER_BINARY(test, KUNIT_ASSERTION, l, !=, r, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_LT_MSG(test, l, r, fmt, ...)			\
	KUNIT_USER_BINARY(test, KUNIT_ASSERTION, l, <, r, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_LE_MSG(test, l, r, fmt, ...)			\
	KUNIT_USER_BINARY(test, KUNIT_ASSERTION, l, <=, r, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_GT_MSG(test, l, r, fmt, ...)			\
	KUNIT_USER_BINARY(test, KUNIT_ASSERTION, l, >, r, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_GE_MSG(test, l, r, fmt, ...)			\
	KUNIT_USER_BINARY(test, KUNIT_ASSERTION, l, >=, r, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_PTR_EQ_MSG(test, l, r, fmt, ...)			\
	KUNIT_USER_PTR(test, KUNIT_ASSERTION, l, ==, r, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_PTR_NE_MSG(test, l, r, fmt, ...)			\
	KUNIT_USER_PTR(test, KUNIT_ASSERTION, l, !=, r, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_NULL_MSG(test, p, fmt, ...)			\
	KUNIT_USER_PTR(test, KUNIT_ASSERTION, p, ==, NULL, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_NOT_NULL_MSG(test, p, fmt, ...)			\
	KUNIT_USER_PTR(test, KUNIT_ASSERTION, p, !=, NULL, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_STREQ_MSG(test, l, r, fmt, ...)			\
	KUNIT_USER_STR(test, KUNIT_ASSERTION, l, ==, r, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_STRNEQ_MSG(test, l, r, fmt, ...)			\
	KUNIT_USER_STR(test, KUNIT_ASSERTION, l, !=, r, fmt, ##__VA_ARGS__)

#define KUNIT_ASSERT_TRUE(test, c)	KUNIT_ASSERT_TRUE_MSG(test, c, NULL)
#define KUNIT_ASSERT_FALSE(test, c)	KUNIT_ASSERT_FALSE_MSG(test, c, NULL)
#define KUNIT_ASSERT_EQ(test, l, r)	KUNIT_ASSERT_EQ_MSG(test, l, r, NULL)
#define KUNIT_ASSERT_NE(test, l, r)	KUNIT_ASSERT_NE_MSG(test, l, r, NULL)
#define KUNIT_ASSERT_LT(test, l, r)	KUNIT_ASSERT_LT_MSG(test, l, r, NULL)
#define KUNIT_ASSERT_LE(test, l, r)	KUNIT_ASSERT_LE_MSG(test, l, r, NULL)
#define KUNIT_ASSERT_GT(test, l, r)	KUNIT_ASSERT_GT_MSG(test, l, r, NULL)
#define KUNIT_ASSERT_GE(test, l, r)	KUNIT_ASSERT_GE_MSG(test, l, r, NULL)
#define KUNIT_ASSERT_PTR_EQ(test, l, r)	KUNIT_ASSERT_PTR_EQ_MSG(test, l, r, NULL)
#define KUNIT_ASSERT_PTR_NE(test, l, r)	KUNIT_ASSERT_PTR_NE_MSG(test, l, r, NULL)
#define KUNIT_ASSERT_NULL(test, p)	KUNIT_ASSERT_NULL_MSG(test, p, NULL)
#define KUNIT_ASSERT_NOT_NULL(test, p)	KUNIT_ASSERT_NOT_NULL_MSG(test, p, NULL)
#define KUNIT_ASSERT_STREQ(test, l, r)	KUNIT_ASSERT_STREQ_MSG(test, l, r, NULL)
#define KUNIT_ASSERT_STRNEQ(test, l, r)	KUNIT_ASSERT_STRNEQ_MSG(test, l, r, NULL)

#endif /* EXEC_USER_KUNIT_TEST_H */
