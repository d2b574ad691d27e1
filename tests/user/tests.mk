# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The userspace build of the KUnit test suite; included by the top-level
# Makefile, whose O, LIB_OBJ, ALL_CFLAGS, CPPFLAGS_LIB, LDFLAGS and LDLIBS_LIB
# it uses.
#
#   make test-run                  build $(O)/exec-tests and run every suite
#   make test-run TEST_FILTER=GLOB run the suites (or "suite.case") matching
#
# The test files are the very ones Kbuild compiles into the kernel's KUnit
# module; tests/user puts the userspace <kunit/test.h> shim first on the
# include path, and tests/ gives them exec_test.h.

TEST_SRC := $(wildcard tests/*.c) tests/user/runner.c tests/user/thread_self.c \
	tests/user/managed_queue_log_test.c tests/user/io_test.c \
	tests/user/outstanding_io_test.c tests/user/fork_test.c \
	tests/user/timer_backlog_test.c tests/user/loop_fd_test.c \
	tests/user/slab_test.c tests/user/loop_scheduler_fd_test.c \
	tests/user/stats_show_test.c tests/user/library_exit_test.c \
	tests/user/clockev_test.c
TEST_OBJ := $(patsubst %.c,$(O)/%.o,$(TEST_SRC))
TEST_BIN := $(O)/exec-tests
CPPFLAGS_TEST = -Itests/user -Itests $(CPPFLAGS_LIB)
TEST_FILTER ?=

# A static pattern rule, so it wins over the library's $(O)/%.o rule.
$(TEST_OBJ): $(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_TEST) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# The library's objects rather than libexec-user.a: the tests use internals
# (the parker, fault injection, counters) that the archive keeps local.
$(TEST_BIN): $(TEST_OBJ) $(LIB_OBJ)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(TEST_OBJ) $(LIB_OBJ) $(LDLIBS_LIB)

test-build: $(TEST_BIN)

test-run: $(TEST_BIN)
	$(TEST_BIN) $(TEST_FILTER)

-include $(TEST_OBJ:.o=.d)

.PHONY: test-build test-run

# The model-based tester on demand (tests/model_test.c, which is also the
# exec-model suite of exec-tests):
#
#   make model-run MODEL_ARGS='--seconds 600'
MODEL_OBJ := $(O)/tests/user/model_main.o
MODEL_BIN := $(O)/exec-model
MODEL_ARGS ?=

$(MODEL_OBJ): $(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_TEST) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(MODEL_BIN): $(MODEL_OBJ) $(LIB_OBJ)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(MODEL_OBJ) $(LIB_OBJ) $(LDLIBS_LIB)

model-run: $(MODEL_BIN)
	$(MODEL_BIN) $(MODEL_ARGS)

-include $(MODEL_OBJ:.o=.d)

.PHONY: model-run

# Line and branch coverage of core/ and user/ by the userspace suites of
# make check (scripts/coverage.sh): a gcov build in $(COV_O), its table
# printed per file.
COV_O ?= build-cov
COV_MAKE = $(MAKE) --no-print-directory O=$(COV_O) \
	CFLAGS='-O1 -g --coverage -fprofile-update=atomic'

coverage:
	$(COV_MAKE) $(COV_O)/exec-tests $(COV_O)/demo >/dev/null
	scripts/coverage.sh $(COV_O) $(COV_O)/exec-tests $(COV_O)/demo

.PHONY: coverage
