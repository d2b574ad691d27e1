// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * demo - a small server-shaped program on libexec-user
 *
 * A thread pool does the work.  Each client session owns a serial executor
 * over the pool, so the requests of one session are handled one at a time
 * and in the order they arrived, while different sessions run in parallel.
 * Handling a request folds it into the session's state, which only gives the
 * expected value if the requests ran in order.  Each handled request posts
 * its reply to a loop executor that the main thread drives with
 * exec_loop_run(); the reply that completes the run calls
 * exec_loop_make_loop_exit().
 *
 * Everything that a check depends on is printed, and the program exits 0
 * only if every check held:
 *   - each request ran on its session's serial executor, on a pool worker,
 *     after the session's "open" closure, in submission order;
 *   - each reply ran on the main thread, in order within its session;
 *   - each session's final state matches the state computed sequentially;
 *   - each session's state, read back through a future spawned on the
 *     session's serial executor (so it runs after every request), matches;
 *   - the pool, joined (P0113), ran out of work and discarded nothing;
 *   - tearing down discarded nothing.
 *
 * Usage: demo [SESSIONS [REQUESTS_PER_SESSION]]
 */
#include <exec/exec.h>
#include <exec/user.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

#define DEMO_WORKERS		4U
#define DEMO_SESSIONS		8U
#define DEMO_REQUESTS		2000U
#define DEMO_MAX_SESSIONS	1000U
#define DEMO_MAX_REQUESTS	1000000U

struct server;
struct session;

/**
 * struct request - one request of a client session, and its reply
 * @work: handles the request; runs on the session's serial executor
 * @reply: delivers the reply; runs on the main thread's loop executor
 * @session: the session the request belongs to
 * @seq: position of the request in its session
 * @result: the session's state after the request, set by @work
 */
struct request {
	struct exec_work work;
	struct exec_work reply;
	struct session *session;
	unsigned int seq;
	uint64_t result;
};

/**
 * struct session - a client session
 * @server: the server
 * @id: session number
 * @serial: the session's serial executor
 * @requests: its requests
 * @opened: set by the session's first item, a closure
 * @next_seq: the sequence number the next request must have
 * @state: fold of the requests handled so far
 * @errors: checks of the serial items that failed
 * @handled: requests handled
 * @replies: replies delivered to the main thread
 * @next_reply: the sequence number the next reply must have
 * @reply_errors: checks of the reply items that failed
 *
 * @opened to @handled are touched only by the session's serial items, which
 * never run concurrently and each of which happens before the next, so they
 * need no lock.  @replies to @reply_errors are touched only by the main
 * thread.
 */
struct session {
	struct server *server;
	unsigned int id;
	struct exec_serial *serial;
	struct request *requests;

	bool opened;
	unsigned int next_seq;
	uint64_t state;
	unsigned int errors;
	unsigned int handled;

	unsigned int replies;
	unsigned int next_reply;
	unsigned int reply_errors;
};

/**
 * struct server - the whole program's state
 * @pool: the thread pool
 * @loop: the loop executor the main thread drives
 * @main_thread: the thread that runs exec_loop_run()
 * @sessions: the client sessions
 * @nr_sessions: number of sessions
 * @nr_requests: requests per session
 * @replies: replies delivered so far (main thread only)
 * @submit_errors: failed submissions, from any thread
 */
struct server {
	struct exec_thread_pool *pool;
	struct exec_loop *loop;
	pthread_t main_thread;
	struct session *sessions;
	unsigned int nr_sessions;
	unsigned int nr_requests;
	unsigned long replies;
	unsigned long submit_errors;
};

/* The request handler's work: a fold that depends on the order of requests. */
static uint64_t fold(uint64_t state, unsigned int session, unsigned int seq)
{
	state ^= ((uint64_t)session << 32) | seq;
	state *= 0x100000001b3ULL;
	return state ^ (state >> 29);
}

static uint64_t initial_state(unsigned int session)
{
	return 0xcbf29ce484222325ULL + session;
}

static void note_submit_error(struct server *server, const char *what,
			      int err)
{
	if (__atomic_fetch_add(&server->submit_errors, 1, __ATOMIC_RELAXED) == 0)
		fprintf(stderr, "demo: %s failed: %s\n", what, strerror(-err));
}

/* Runs on the session's serial executor: the session has been accepted. */
static void open_session(void *arg)
{
	struct session *s = arg;

	if (!exec_serial_running_in_this_thread(s->serial))
		s->errors++;
	s->opened = true;
	s->state = initial_state(s->id);
}

/* Runs on the main thread: deliver one reply. */
static void deliver_reply(struct exec_work *work)
{
	struct request *req = container_of(work, struct request, reply);
	struct session *s = req->session;
	struct server *server = s->server;

	if (!pthread_equal(pthread_self(), server->main_thread))
		s->reply_errors++;
	if (req->seq != s->next_reply)
		s->reply_errors++;
	s->next_reply = req->seq + 1;
	s->replies++;

	if (++server->replies ==
	    (unsigned long)server->nr_sessions * server->nr_requests)
		exec_loop_make_loop_exit(server->loop);
}

/* Runs on the session's serial executor, on a pool worker. */
static void handle_request(struct exec_work *work)
{
	struct request *req = container_of(work, struct request, work);
	struct session *s = req->session;
	struct server *server = s->server;
	int err;

	if (!s->opened || req->seq != s->next_seq ||
	    !exec_serial_running_in_this_thread(s->serial) ||
	    !exec_thread_pool_running_in_this_thread(server->pool))
		s->errors++;
	s->next_seq = req->seq + 1;
	s->state = fold(s->state, s->id, req->seq);
	s->handled++;
	req->result = s->state;

	/* Intrusive submission: never allocates, never sleeps. */
	err = exec_submit(exec_loop_executor(server->loop), &req->reply);
	if (err)
		note_submit_error(server, "posting a reply", err);
}

static void discard_request(struct exec_work *work)
{
	struct request *req = container_of(work, struct request, work);

	fprintf(stderr, "demo: request %u of session %u discarded\n",
		req->seq, req->session->id);
}

static int start_sessions(struct server *server)
{
	struct exec_executor *pool = exec_thread_pool_executor(server->pool);
	unsigned int i, seq;
	int err;

	server->sessions = calloc(server->nr_sessions, sizeof(*server->sessions));
	if (!server->sessions)
		return -ENOMEM;

	for (i = 0; i < server->nr_sessions; i++) {
		struct session *s = &server->sessions[i];

		s->server = server;
		s->id = i;
		s->requests = calloc(server->nr_requests, sizeof(*s->requests));
		if (!s->requests)
			return -ENOMEM;
		for (seq = 0; seq < server->nr_requests; seq++) {
			struct request *req = &s->requests[seq];

			exec_work_init_discard(&req->work, handle_request,
					       discard_request);
			exec_work_init(&req->reply, deliver_reply);
			req->session = s;
			req->seq = seq;
		}

		err = exec_serial_create(&s->serial, pool);
		if (err)
			return err;
		/* A closure first: items of any kind keep their order. */
		err = exec_submit_fn(exec_serial_executor(s->serial),
				     open_session, s);
		if (err)
			return err;
	}

	/* Requests arrive interleaved across sessions, as from many clients. */
	for (seq = 0; seq < server->nr_requests; seq++) {
		for (i = 0; i < server->nr_sessions; i++) {
			struct session *s = &server->sessions[i];

			err = exec_submit(exec_serial_executor(s->serial),
					  &s->requests[seq].work);
			if (err)
				return err;
		}
	}
	return 0;
}

/* Runs on the session's serial executor, after every request of it. */
static long audit_session(void *arg)
{
	struct session *s = arg;

	return (long)(s->state & LONG_MAX);
}

/*
 * Reads each session's state back through a future (P0113 use_future,
 * N4143 spawn_future); returns the number of sessions that disagreed.
 */
static unsigned long audit_sessions(struct server *server)
{
	unsigned long bad = 0;
	struct exec_future *fut;
	unsigned int i;
	long result;
	int err;

	for (i = 0; i < server->nr_sessions; i++) {
		struct session *s = &server->sessions[i];

		err = exec_spawn_future(&fut, exec_serial_executor(s->serial),
					audit_session, s);
		if (!err) {
			err = exec_future_wait(fut, 10ULL * 1000000000ULL,
					       &result);
			exec_future_put(fut);
		}
		if (err || result != (long)(s->state & LONG_MAX)) {
			fprintf(stderr, "demo: session %u: audit: %s\n", i,
				err ? strerror(-err) : "wrong state");
			bad++;
		}
	}
	return bad;
}

/*
 * Adds @ex's statistics into @sum; 1 if they could not be read or, for a
 * @drained executor, do not add up (it started and completed all it
 * accepted).
 */
static unsigned long add_stats(struct exec_stats *sum, const char *what,
			       struct exec_executor *ex, bool drained)
{
	struct exec_stats st;
	int err = exec_executor_stats(ex, &st);

	if (err) {
		fprintf(stderr, "demo: %s: exec_executor_stats: %s\n", what,
			strerror(-err));
		return 1;
	}
	sum->submitted += st.submitted;
	sum->started += st.started;
	sum->completed += st.completed;
	sum->discarded += st.discarded;
	sum->refused += st.refused;
	sum->wakeups += st.wakeups;
	sum->timers_armed += st.timers_armed;
	sum->nr_threads += st.nr_threads;
	if (st.max_wait_ns > sum->max_wait_ns)
		sum->max_wait_ns = st.max_wait_ns;
	if (st.max_run_ns > sum->max_run_ns)
		sum->max_run_ns = st.max_run_ns;
	if (drained &&
	    (st.started != st.submitted || st.completed != st.submitted)) {
		fprintf(stderr, "demo: %s: %llu submitted, %llu started, %llu completed\n",
			what, (unsigned long long)st.submitted,
			(unsigned long long)st.started,
			(unsigned long long)st.completed);
		return 1;
	}
	return 0;
}

static void print_stats(const char *what, const struct exec_stats *st)
{
	printf("%-16s %9llu %9llu %9llu %9llu %7llu %7llu %9.1f %9.1f\n",
	       what, (unsigned long long)st->submitted,
	       (unsigned long long)st->completed,
	       (unsigned long long)st->discarded,
	       (unsigned long long)st->refused,
	       (unsigned long long)st->wakeups,
	       (unsigned long long)st->timers_armed,
	       st->max_wait_ns / 1000.0, st->max_run_ns / 1000.0);
}

static unsigned int parse_count(const char *arg, unsigned int max)
{
	char *end;
	unsigned long v = strtoul(arg, &end, 10);

	if (*end || !v || v > max) {
		fprintf(stderr, "demo: %s: expected a number from 1 to %u\n",
			arg, max);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = DEMO_WORKERS,
		.thread.name = "demo",
	};
	struct server server = {
		.nr_sessions = DEMO_SESSIONS,
		.nr_requests = DEMO_REQUESTS,
	};
	struct exec_stats pool_st = { 0 }, serial_st = { 0 }, loop_st = { 0 };
	unsigned long handled = 0, errors = 0;
	long discarded = 0, ret;
	unsigned int i;
	int err;

	if (argc > 1)
		server.nr_sessions = parse_count(argv[1], DEMO_MAX_SESSIONS);
	if (argc > 2)
		server.nr_requests = parse_count(argv[2], DEMO_MAX_REQUESTS);
	if (argc > 3) {
		fprintf(stderr, "usage: demo [SESSIONS [REQUESTS_PER_SESSION]]\n");
		return 2;
	}
	server.main_thread = pthread_self();
	/* Time the items too, for the statistics printed at the end. */
	exec_stats_set_timing(true);

	err = exec_thread_pool_create(&server.pool, &attr);
	if (err) {
		fprintf(stderr, "demo: exec_thread_pool_create: %s\n",
			strerror(-err));
		return 1;
	}
	err = exec_loop_create(&server.loop);
	if (err) {
		fprintf(stderr, "demo: exec_loop_create: %s\n", strerror(-err));
		return 1;
	}

	printf("demo: %u pool workers, %u sessions x %u requests, wakeup backend %s\n",
	       exec_thread_pool_size(server.pool), server.nr_sessions,
	       server.nr_requests, exec_user_wakeup_backend());

	err = start_sessions(&server);
	if (err) {
		fprintf(stderr, "demo: starting the sessions: %s\n",
			strerror(-err));
		return 1;
	}

	/* The main thread becomes the loop until the last reply. */
	err = exec_loop_run(server.loop);
	if (err) {
		fprintf(stderr, "demo: exec_loop_run: %s\n", strerror(-err));
		return 1;
	}

	errors += audit_sessions(&server);
	printf("demo: %u sessions audited through futures\n",
	       server.nr_sessions);

	for (i = 0; i < server.nr_sessions; i++) {
		/* Not drained: their audits may still be returning. */
		errors += add_stats(&serial_st, "session",
				    exec_serial_executor(server.sessions[i].serial),
				    false);
		ret = exec_serial_destroy(server.sessions[i].serial);
		if (ret < 0) {
			fprintf(stderr, "demo: exec_serial_destroy: %s\n",
				strerror((int)-ret));
			errors++;
		} else {
			discarded += ret;
		}
	}
	/* P0113 join: the pool runs out of work, then its workers exit. */
	err = exec_thread_pool_join(server.pool);
	if (err) {
		fprintf(stderr, "demo: exec_thread_pool_join: %s\n",
			strerror(-err));
		errors++;
	}
	errors += add_stats(&pool_st, "pool",
			    exec_thread_pool_executor(server.pool), true);
	ret = exec_thread_pool_destroy(server.pool);
	if (ret < 0) {
		fprintf(stderr, "demo: exec_thread_pool_destroy: %s\n",
			strerror((int)-ret));
		errors++;
	} else {
		discarded += ret;
	}
	errors += add_stats(&loop_st, "loop", exec_loop_executor(server.loop),
			    true);
	ret = exec_loop_destroy(server.loop);
	if (ret < 0) {
		fprintf(stderr, "demo: exec_loop_destroy: %s\n",
			strerror((int)-ret));
		errors++;
	} else {
		discarded += ret;
	}

	printf("session  handled  replies  in-order  final state\n");
	for (i = 0; i < server.nr_sessions; i++) {
		struct session *s = &server.sessions[i];
		uint64_t expect = initial_state(i);
		unsigned int seq;
		bool ok;

		for (seq = 0; seq < server.nr_requests; seq++)
			expect = fold(expect, i, seq);
		ok = !s->errors && !s->reply_errors &&
		     s->handled == server.nr_requests &&
		     s->replies == server.nr_requests && s->state == expect &&
		     s->requests[server.nr_requests - 1].result == expect;
		printf("%7u  %7u  %7u  %8s  %016llx%s\n", i, s->handled,
		       s->replies, ok ? "yes" : "NO",
		       (unsigned long long)s->state,
		       s->state == expect ? "" : " (wrong)");
		if (!ok)
			errors++;
		handled += s->handled;
		free(s->requests);
	}
	free(server.sessions);

	printf("%-16s %9s %9s %9s %9s %7s %7s %9s %9s\n", "executor",
	       "submitted", "completed", "discarded", "refused", "wakeups",
	       "timers", "wait(us)", "run(us)");
	print_stats("pool", &pool_st);
	print_stats("sessions (sum)", &serial_st);
	print_stats("loop", &loop_st);

	if (discarded)
		errors++;
	errors += server.submit_errors;
	printf("demo: %lu requests handled, %lu replies on the main thread, %ld discarded, %lu failed submissions\n",
	       handled, server.replies, discarded, server.submit_errors);
	if (errors) {
		printf("demo: FAILED (%lu checks did not hold)\n", errors);
		return 1;
	}
	printf("demo: all checks passed\n");
	return 0;
}
