# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The libFuzzer targets of tests/fuzz/; included by the top-level Makefile.
# They are built in their own output directory, $(FUZZ_O), with clang, the
# library's objects instrumented for coverage and with ASan and UBSan:
#
#   make fuzz-build      build $(FUZZ_O)/fuzz-TARGET for every target
#   make check-fuzz      each target on its corpus, then for FUZZ_SECONDS
#   scripts/fuzz-long.sh [SECONDS [TARGET...]]   long runs, on demand
#
# A target is tests/fuzz/TARGET_fuzz.c; its corpus, committed, is
# tests/fuzz/corpus/TARGET/ (inputs found by long runs that reach new code,
# and every input that once failed).

FUZZ_TARGETS := wheel http api
FUZZ_O ?= build-fuzz
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 20
FUZZ_SAN := -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_MAKE = $(SUBMAKE) O=$(FUZZ_O) CC=$(FUZZ_CC) CFLAGS='-O1 -g' \
	SAN='$(FUZZ_SAN)'
FUZZ_BIN := $(addprefix $(O)/fuzz-,$(FUZZ_TARGETS))

# The targets that drive the library link its objects (they use internals);
# the HTTP target only the server's parser.
$(O)/fuzz-wheel $(O)/fuzz-api: $(O)/fuzz-%: tests/fuzz/%_fuzz.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_TEST) -Itests/fuzz $(ALL_CFLAGS) -fsanitize=fuzzer \
		$(LDFLAGS) -o $@ $< $(LIB_OBJ) $(LDLIBS_LIB)

# The API target is the model tester's rounds.
$(O)/fuzz-api: tests/model_test.c tests/exec_test.h

$(O)/fuzz-http: tests/fuzz/http_fuzz.c examples/http_parse.h
	@mkdir -p $(dir $@)
	$(CC) -Iexamples -Itests/fuzz $(CPPFLAGS) $(ALL_CFLAGS) \
		-fsanitize=fuzzer $(LDFLAGS) -o $@ $<

fuzz-build: $(FUZZ_BIN)

check-fuzz:
	@$(FUZZ_MAKE) fuzz-build >/dev/null
	@status=0; for t in $(FUZZ_TARGETS); do \
		$(CHECK_RUN) fuzz-$$t '$(CHECK_RESULTS)' -- \
			scripts/fuzz-long.sh --check $(FUZZ_O) $(FUZZ_SECONDS) \
			$$t || status=1; \
	done; exit $$status

.PHONY: fuzz-build
