// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * exec-model: the model-based tester of tests/model_test.c, on demand.
 *
 *   exec-model [SEED [OPS]] [--threads N] [--rounds N] [--seconds S]
 *
 * Runs ROUNDS rounds (default 10) of OPS operations (default 2000) per
 * operator thread (default 3) with SEED (default 1).  With --seconds, runs
 * seeds SEED, SEED + 1, ... until S seconds have passed.  A failure prints
 * the seed, the thread and its operation index, and the command that
 * replays it; the exit status is then 1.
 */
#define EXEC_MODEL_DRIVER
#include "model_test.c"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long model_arg(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || end == s) {
		fprintf(stderr, "exec-model: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct model_cfg cfg = { .seed = 1, .threads = 3, .rounds = 10,
				 .ops = 2000 };
	unsigned long long seconds = 0, runs = 0, ops = 0;
	unsigned int positional = 0;
	struct model *m;
	u64 end;
	int i, ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			cfg.threads = model_arg(argv[++i], "thread count");
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			cfg.rounds = model_arg(argv[++i], "round count");
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = model_arg(argv[++i], "duration");
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			cfg.seed = model_arg(argv[++i], "seed");
		else if (!strcmp(argv[i], "--ops") && i + 1 < argc)
			cfg.ops = model_arg(argv[++i], "operation count");
		else if (argv[i][0] != '-' && positional == 0 && ++positional)
			cfg.seed = model_arg(argv[i], "seed");
		else if (argv[i][0] != '-' && positional == 1 && ++positional)
			cfg.ops = model_arg(argv[i], "operation count");
		else {
			fprintf(stderr,
				"usage: %s [SEED [OPS]] [--threads N] [--rounds N] [--seconds S]\n",
				argv[0]);
			return 2;
		}
	}
	if (!cfg.threads || cfg.threads > MODEL_THREADS_MAX || !cfg.rounds) {
		fprintf(stderr, "exec-model: 1 to %u threads, 1 round or more\n",
			MODEL_THREADS_MAX);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	end = model_now() + seconds * 1000000000ULL;
	do {
		m = calloc(1, sizeof(*m));
		if (!m)
			return 1;
		ret = model_run_cfg(m, &cfg);
		runs++;
		ops += m->nr_events;
		printf("seed %llu: %lu operations, %u threads, %u rounds: %s\n",
		       (unsigned long long)cfg.seed, m->nr_events, cfg.threads,
		       cfg.rounds, ret ? "FAILED" : "ok");
		if (ret) {
			if (ret == -EIO)
				printf("exec-model: %s\n", m->msg);
			else
				printf("exec-model: a round could not start: %d\n",
				       ret);
			printf("replay: exec-model --seed %llu --threads %u --rounds %u --ops %u\n",
			       (unsigned long long)cfg.seed, cfg.threads,
			       cfg.rounds, cfg.ops);
			free(m);
			return 1;
		}
		free(m);
		cfg.seed++;
	} while (seconds && model_now() < end);
	printf("exec-model: %llu seeds, %llu operations, no failure\n", runs,
	       ops);
	return 0;
}
