# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The userspace benchmark, exec-bench (see Documentation/benchmarks.rst for
# what it measures).  Included by the top-level Makefile, which defines O, LIB_A,
# ALL_CFLAGS, CPPFLAGS_LIB and LDLIBS_LIB.
#
#   make bench           build $(O)/exec-bench and $(O)/exec-objcost
#   make bench-plot      run it and draw charts, in $(O)/bench-plot
#   make peer-asio       $(O)/peer-asio, timer_lateness, strand_churn and object_cost
#                        on Boost.Asio
#   make peer-tbb        $(O)/peer-tbb, the throughput workloads on oneTBB
#
# The benchmark includes only the public headers; CPPFLAGS_LIB's extra
# include directories are harmless to it.

# Listed by name: bench/ also holds stand-alone tools with a main() of their
# own (parker-wake.c), built by hand.
BENCH_SRC := bench/exec-bench.c bench/bench-throughput.c \
	bench/bench-latency.c bench/bench-timer.c bench/bench-idle.c \
	bench/bench-churn.c \
	bench/bench-raw.c bench/bench-refpool.c bench/bench-blocking.c \
	bench/bench-load.c bench/bench-mem.c \
	$(wildcard bench/common/*.c)
BENCH_HDR := bench/bench.h $(wildcard bench/common/*.h) \
	$(wildcard include/exec/*.h)
BENCH_BIN := $(O)/exec-bench
OBJCOST_BIN := $(O)/exec-objcost

# Wherever this fragment is included, it must not become the default goal.
bench_saved_goal := $(.DEFAULT_GOAL)

# Few, small sources: one compile-and-link command is simpler than objects.
$(BENCH_BIN): $(BENCH_SRC) $(BENCH_HDR) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_LIB) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(BENCH_SRC) \
		$(LIB_A) $(LDLIBS_LIB)

# What each object a request creates costs, on its own (exec-objcost.c).
$(OBJCOST_BIN): bench/exec-objcost.c bench/bench-mem.c $(BENCH_HDR) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_LIB) $(ALL_CFLAGS) $(LDFLAGS) -o $@ \
		bench/exec-objcost.c bench/bench-mem.c $(LIB_A) $(LDLIBS_LIB)

bench: $(BENCH_BIN) $(OBJCOST_BIN)

# make peer-asio: timer_lateness, strand_churn and object_cost on Boost.Asio
# (libboost-dev), the peer read against libexec's timed work, strands and the
# objects a request creates; on demand only, never by make check.
CXX ?= c++
PEER_ASIO := $(O)/peer-asio

$(PEER_ASIO): bench/peer-asio.cc bench/bench-load.c bench/bench-mem.c \
		bench/bench.h
	@mkdir -p $(O)/bench
	$(CC) $(CPPFLAGS_LIB) $(ALL_CFLAGS) -c -o $(O)/bench/peer-load.o \
		bench/bench-load.c
	$(CC) $(CPPFLAGS_LIB) $(ALL_CFLAGS) -c -o $(O)/bench/peer-mem.o \
		bench/bench-mem.c
	$(CXX) -std=c++14 -O2 -g -Wall -pthread $(LDFLAGS) -o $@ \
		bench/peer-asio.cc $(O)/bench/peer-load.o $(O)/bench/peer-mem.o

peer-asio: $(PEER_ASIO)

# make peer-tbb: post_throughput and serial_throughput on oneTBB
# (libtbb-dev); on demand only, as peer-asio.
PEER_TBB := $(O)/peer-tbb

$(PEER_TBB): bench/peer-tbb.cc bench/bench-load.c bench/bench.h
	@mkdir -p $(O)/bench
	$(CC) $(CPPFLAGS_LIB) $(ALL_CFLAGS) -c -o $(O)/bench/peer-load.o \
		bench/bench-load.c
	$(CXX) -std=c++17 -O2 -g -Wall -pthread $(LDFLAGS) -o $@ \
		bench/peer-tbb.cc $(O)/bench/peer-load.o -ltbb

peer-tbb: $(PEER_TBB)

# make bench-plot: exec-bench's workloads on libexec and on the references,
# interleaved, and SVG charts of them, in $(BENCH_PLOT_OUT); the sizes are
# scripts/bench-plot.sh's BENCH_PLOT_* variables (make bench-plot
# BENCH_PLOT_ROUNDS=3).  Debian's python3-matplotlib is for its own Python.
PYTHON3 ?= /usr/bin/python3
BENCH_PLOT_OUT := $(O)/bench-plot

bench-plot: $(BENCH_BIN)
	PYTHON3='$(PYTHON3)' scripts/bench-plot.sh $(BENCH_BIN) $(BENCH_PLOT_OUT)

# The same at tiny sizes, and the charts checked (make check).
check-bench-plot: $(BENCH_BIN)
	@$(CHECK_RUN) bench-plot '$(CHECK_RESULTS)' -- \
		env PYTHON3='$(PYTHON3)' scripts/check-bench-plot.sh \
		$(BENCH_BIN) $(O)/check-bench-plot

.PHONY: bench bench-plot peer-asio peer-tbb

# An empty value lets the next target defined become the default, as usual.
.DEFAULT_GOAL := $(bench_saved_goal)
