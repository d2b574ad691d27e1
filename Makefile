# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Userspace build of libexec-user.  The kernel module is built by Kbuild from
# the same core/ sources.
#
#   make                 the static and shared libraries
#   make demo            build and run examples/demo.c
#   make check           the whole test command (see README.md)
#   make coverage        gcov's line and branch coverage of core/ and user/
#                        by the userspace suites (Documentation/testing.rst)
#   make coverage-kernel the same of core/ and kernel/ by the KUnit suites in
#                        QEMU, on a gcov test kernel (kernel/kernel.mk)
#   make install         headers, libraries, pkg-config and CMake files, man
#                        pages
#   make uninstall       remove what `make install` put in place
#   make install-dkms    the kernel module's sources and dkms.conf, in DKMSDIR
#   make man             the section-3 man pages, from the kernel-doc comments
#   make htmldocs        the HTML documentation (Sphinx), in $(O)/htmldocs
#
# Variables: O (output directory, default build), CC, CPPFLAGS, CFLAGS,
# LDFLAGS (used as given, e.g. from dpkg-buildflags, after the project's own
# flags), SAN (sanitizer flags, e.g. SAN=-fsanitize=thread together with
# O=build-tsan), PREFIX, LIBDIR, INCLUDEDIR, PKGCONFIGDIR, CMAKEDIR, MANDIR,
# DESTDIR, KERNEL_DOC (the kernel's scripts/kernel-doc), SPHINXBUILD,
# SPHINXOPTS.

VERSION_MAJOR := 0
VERSION_MINOR := 1
VERSION_PATCH := 0
VERSION := $(VERSION_MAJOR).$(VERSION_MINOR).$(VERSION_PATCH)

CC ?= cc
CXX ?= c++
O ?= build
SAN ?=
CPPFLAGS ?=
CFLAGS ?= -O2 -g
LDFLAGS ?=
WARN := -Wall -Wextra -Wno-unused-parameter -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Werror=implicit-function-declaration
CPPFLAGS_LIB = -Iinclude -Icore -Iuser/include -D_GNU_SOURCE $(CPPFLAGS)
ALL_CFLAGS = -std=gnu11 -fPIC -pthread $(WARN) $(CFLAGS) $(SAN)
# The library's own objects: only what the public headers declare (see
# EXEC_BEGIN_DECLS in include/exec/types.h) has default visibility.
LIB_CFLAGS := -fvisibility=hidden
OBJCOPY ?= objcopy
LDLIBS_LIB := -luring -lpthread

CORE_SRC := $(wildcard core/*.c)
# user/: the userspace platform; user/io/: the userspace-only facilities on
# descriptors (I/O contexts, loops driven by other event loops).
USER_SRC := $(wildcard user/*.c) $(wildcard user/io/*.c)
LIB_OBJ := $(patsubst %.c,$(O)/%.o,$(CORE_SRC) $(USER_SRC))
PUBLIC_HDR := $(wildcard include/exec/*.h)

LIB_A := $(O)/libexec-user.a
LIB_SO := $(O)/libexec-user.so.$(VERSION)
SONAME := libexec-user.so.$(VERSION_MAJOR)
LIB_MAP := user/libexec-user.map
LIB_EXPORTS := $(O)/libexec-user.exports
PC_FILE := $(O)/exec-user.pc

PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
MANDIR ?= $(PREFIX)/share/man
DESTDIR ?=

.DEFAULT_GOAL := all

all: $(LIB_A) $(LIB_SO)

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_LIB) $(ALL_CFLAGS) $(LIB_CFLAGS) -MMD -MP -c -o $@ $<

# The static library is one object, linked from all of them, in which every
# hidden symbol (everything but the public API) has been made local: an
# application linking it statically sees the same names as with the shared
# library.  The tests, which use internals, link $(LIB_OBJ) instead.
LIB_A_OBJ := $(O)/libexec-user.o

$(LIB_A_OBJ): $(LIB_OBJ)
	$(CC) -r -nostdlib -o $@ $^
	$(OBJCOPY) --localize-hidden $@

$(LIB_A): $(LIB_A_OBJ)
	@rm -f $@
	ar rcs $@ $^

# Only the names in the version script leave the shared library, each with
# the version node of the release that added it; everything else is local.
# They must be the names that the sources mark with EXPORT_SYMBOL_GPL() (the
# kernel module's exports), listed here for check-abi.
$(LIB_EXPORTS): $(CORE_SRC) $(USER_SRC) Makefile
	@mkdir -p $(dir $@)
	@sed -n 's/^[[:space:]]*EXPORT_SYMBOL\(_GPL\)\{0,1\}([[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\)[[:space:]]*);.*/\2/p' \
		$(CORE_SRC) $(USER_SRC) /dev/null | LC_ALL=C sort -u > $@

$(LIB_SO): $(LIB_OBJ) $(LIB_MAP)
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=$(LIB_MAP) \
		-Wl,--no-undefined $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(LIB_OBJ) \
		$(LDLIBS_LIB)
	ln -sf $(notdir $@) $(O)/$(SONAME)
	ln -sf $(SONAME) $(O)/libexec-user.so

-include $(LIB_OBJ:.o=.d)

# pkg-config file; regenerated every time, as it depends on the variables.
# Directories under $(PREFIX) are written relative to ${prefix}.
PC_LIBDIR = $(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))
PC_INCLUDEDIR = $(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))

$(PC_FILE): exec-user.pc.in FORCE
	@mkdir -p $(dir $@)
	@sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(PC_LIBDIR)|g' \
	    -e 's|@INCLUDEDIR@|$(PC_INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' \
	    $< > $@

# CMake package files, for find_package(ExecUser CONFIG), installed in
# $(CMAKEDIR); they find the library from their own directory, and the
# headers through the relative path from LIBDIR to INCLUDEDIR.
CMAKEDIR ?= $(LIBDIR)/cmake/ExecUser
CMAKE_FILES := $(O)/cmake/ExecUserConfig.cmake \
	$(O)/cmake/ExecUserConfigVersion.cmake

$(O)/cmake/%.cmake: cmake/%.cmake.in FORCE
	@mkdir -p $(dir $@)
	@sed -e 's|@VERSION@|$(VERSION)|g' \
	    -e 's|@VERSION_MAJOR@|$(VERSION_MAJOR)|g' \
	    -e "s|@LIBDIR_TO_INCLUDEDIR@|$$(realpath -m --relative-to='$(LIBDIR)' '$(INCLUDEDIR)')|g" \
	    $< > $@

# --- man pages ---------------------------------------------------------------

# One section-3 page per function with a kernel-doc comment in the public
# headers, written by the kernel's own scripts/kernel-doc -man: the copy that
# Debian's linux-kbuild-* package installs with the kernel headers
# (linux-headers-amd64, which scripts/install-deps.sh installs), found
# through KDIR (kernel/kernel.mk).  $(MAN_LIST) names the pages.
KERNEL_DOC ?= $(firstword $(wildcard $(KDIR)/scripts/kernel-doc \
	/usr/lib/linux-kbuild-*/scripts/kernel-doc) kernel-doc)
MAN_OUT := $(O)/man
MAN_LIST := $(MAN_OUT)/pages

$(MAN_LIST): $(PUBLIC_HDR) scripts/man-pages.sh
	scripts/man-pages.sh '$(KERNEL_DOC)' $(VERSION) $(MAN_OUT) $(PUBLIC_HDR)

man: $(MAN_LIST)

# --- HTML documentation ------------------------------------------------------

# Documentation/*.rst, and the kernel-doc comments of the public headers
# through the kernel-doc directive of Documentation/sphinx/ (api.rst).
SPHINXBUILD ?= sphinx-build
SPHINXOPTS ?=
HTMLDOCS_OUT := $(O)/htmldocs

htmldocs:
	PYTHONDONTWRITEBYTECODE=1 $(SPHINXBUILD) -b html -q $(SPHINXOPTS) \
		-d $(HTMLDOCS_OUT)/doctrees -D kerneldoc_bin=$(KERNEL_DOC) \
		Documentation $(HTMLDOCS_OUT)/html
	@echo "htmldocs: $(HTMLDOCS_OUT)/html/index.html"

# --- installation ----------------------------------------------------------

install: all $(PC_FILE) $(CMAKE_FILES) $(MAN_LIST)
	install -d '$(DESTDIR)$(INCLUDEDIR)/exec' '$(DESTDIR)$(LIBDIR)' \
		'$(DESTDIR)$(PKGCONFIGDIR)' '$(DESTDIR)$(MANDIR)/man3' \
		'$(DESTDIR)$(CMAKEDIR)'
	install -m 0644 $(PUBLIC_HDR) '$(DESTDIR)$(INCLUDEDIR)/exec/'
	install -m 0644 $(LIB_A) '$(DESTDIR)$(LIBDIR)/'
	install -m 0755 $(LIB_SO) '$(DESTDIR)$(LIBDIR)/'
	ln -sf $(notdir $(LIB_SO)) '$(DESTDIR)$(LIBDIR)/$(SONAME)'
	ln -sf $(SONAME) '$(DESTDIR)$(LIBDIR)/libexec-user.so'
	install -m 0644 $(PC_FILE) '$(DESTDIR)$(PKGCONFIGDIR)/exec-user.pc'
	install -m 0644 $(CMAKE_FILES) '$(DESTDIR)$(CMAKEDIR)/'
	install -m 0644 $(MAN_OUT)/man3/*.3 '$(DESTDIR)$(MANDIR)/man3/'

uninstall: $(MAN_LIST)
	rm -f $(addprefix '$(DESTDIR)$(INCLUDEDIR)/exec/',$(notdir $(PUBLIC_HDR)))
	-rmdir '$(DESTDIR)$(INCLUDEDIR)/exec' 2>/dev/null
	rm -f '$(DESTDIR)$(LIBDIR)/libexec-user.a' \
	      '$(DESTDIR)$(LIBDIR)/$(notdir $(LIB_SO))' \
	      '$(DESTDIR)$(LIBDIR)/$(SONAME)' \
	      '$(DESTDIR)$(LIBDIR)/libexec-user.so' \
	      '$(DESTDIR)$(PKGCONFIGDIR)/exec-user.pc'
	rm -f $(addprefix '$(DESTDIR)$(CMAKEDIR)/',$(notdir $(CMAKE_FILES)))
	-rmdir '$(DESTDIR)$(CMAKEDIR)' '$(DESTDIR)$(dir $(CMAKEDIR))' 2>/dev/null
	while read -r page; do \
		rm -f '$(DESTDIR)$(MANDIR)/man3/'"$$page.3"; \
	done < $(MAN_LIST)

# The kernel module's sources with dkms.conf, as DKMS wants them in
# /usr/src/PACKAGE_NAME-PACKAGE_VERSION (the Debian package exec-dkms):
# exec.ko's alone, which is all that Kbuild builds there (it reads the
# version from the Makefile).
DKMSDIR ?= /usr/src/libexec-$(VERSION)
DKMS_SRC := dkms.conf Kbuild Makefile $(wildcard core/*.c core/*.h \
	include/exec/*.h include/trace/events/*.h kernel/*.c kernel/*.h kernel/include/*.h)

install-dkms:
	install -d '$(DESTDIR)$(DKMSDIR)'
	tar cf - $(DKMS_SRC) | tar xf - --no-same-owner -C '$(DESTDIR)$(DKMSDIR)'

# --- the demo --------------------------------------------------------------

# The demo sees only the public headers, as an application would.
$(O)/demo: examples/demo.c $(LIB_A) $(PUBLIC_HDR)
	$(CC) -Iinclude $(CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_A) \
		$(LDLIBS_LIB)

demo: $(O)/demo
	$(O)/demo

# The HTTP/1.1 server of examples/httpd.c, on the public API only.
$(O)/httpd: examples/httpd.c examples/http_parse.h $(LIB_A) $(PUBLIC_HDR)
	$(CC) -Iinclude $(CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_A) \
		$(LDLIBS_LIB)

httpd: $(O)/httpd

# --- a loop executor run by other event loops (examples/loop/) -------------
#
# tests/user/loop_adapter_test.c once per adapter, against Debian's GLib,
# libuv and libsystemd (scripts/install-deps.sh).

LA_glib := -DLA_GLIB glib-2.0
LA_uv := -DLA_UV libuv
LA_sd-event := -DLA_SD_EVENT libsystemd
LOOP_ADAPTERS := glib uv sd-event
LOOP_ADAPTER_BIN := $(addprefix $(O)/loop-adapter-,$(LOOP_ADAPTERS))

$(LOOP_ADAPTER_BIN): $(O)/loop-adapter-%: tests/user/loop_adapter_test.c \
		examples/loop/exec-%.h $(LIB_A) $(PUBLIC_HDR)
	$(CC) -Iinclude $(CPPFLAGS) $(ALL_CFLAGS) $(firstword $(LA_$*)) \
		$$(pkg-config --cflags $(lastword $(LA_$*))) $(LDFLAGS) -o $@ \
		$< $(LIB_A) $(LDLIBS_LIB) $$(pkg-config --libs $(lastword $(LA_$*)))

# wakeup_latency through GLib and libuv beside their own wake-ups.
$(O)/loop-wake: bench/loop-wake.c examples/loop/exec-glib.h \
		examples/loop/exec-uv.h $(LIB_A) $(PUBLIC_HDR)
	$(CC) -Iinclude $(CPPFLAGS) $(ALL_CFLAGS) \
		$$(pkg-config --cflags glib-2.0 libuv) $(LDFLAGS) -o $@ \
		$< $(LIB_A) $(LDLIBS_LIB) $$(pkg-config --libs glib-2.0 libuv)

loop-adapters: $(LOOP_ADAPTER_BIN)
	@for a in $(LOOP_ADAPTER_BIN); do $$a || exit 1; done

# --- the parker test (tests/user/parker_test.c, built here) ---------------

PARKER_SRC := tests/user/parker_test.c core/parker.c user/platform.c user/parker.c \
	user/log.c

$(O)/parker-test: $(PARKER_SRC)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_LIB) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(PARKER_SRC) \
		$(LDLIBS_LIB)

# --- make check ------------------------------------------------------------
#
# `make check` runs the sub-targets below in order and stops at the first one
# that fails (KEEP_GOING=1 runs them all).  Each sub-target records its counts
# in $(CHECK_RESULTS); the last line printed is the sum, "N passed, N failed".
# Further sub-targets (the kernel's KUnit run) are added to CHECK_TARGETS.

CHECK_TARGETS := check-build check-layout check-bench-plot check-abi check-user check-fallback \
	check-hostile check-parker check-demo check-loop-adapters check-httpd check-httpd-slow check-fuzz check-trace check-tsan check-asan check-install check-readme \
	check-headers check-man check-htmldocs check-buildflags check-kernel-debian \
	check-dkms check-deb check-kernel check-kernel-hotplug check-kernel-lockdep \
	check-kernel-exec-loop check-kernel-kcsan
KEEP_GOING ?=

CHECK_DIR = $(abspath $(O))/check
CHECK_RESULTS = $(CHECK_DIR)/results
CHECK_RUN = scripts/check.sh run
CHECK_RECORD = scripts/check.sh record

TSAN_O ?= build-tsan
ASAN_O ?= build-asan
TSAN_CC ?= $(CC)
ASAN_CC ?= $(CC)
TSAN_FLAGS := -fsanitize=thread
ASAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
SAN_CFLAGS ?= -O1 -g
SAN_STRESS_TASKS ?= 500000
TSAN_ENV := TSAN_OPTIONS='halt_on_error=1 second_deadlock_stack=1 history_size=4 suppressions=$(abspath tests/user/tsan.supp)'
ASAN_ENV := ASAN_OPTIONS='halt_on_error=1 detect_leaks=1 strict_string_checks=1' \
	UBSAN_OPTIONS='halt_on_error=1 print_stacktrace=1'

SUBMAKE := $(MAKE) --no-print-directory

check:
	@rm -rf '$(CHECK_DIR)'
	@mkdir -p '$(CHECK_DIR)'
	@status=0; \
	for t in $(CHECK_TARGETS); do \
		$(SUBMAKE) $$t || { status=1; \
			echo "=== $$t failed"; \
			[ -n "$(KEEP_GOING)" ] || break; }; \
	done; \
	scripts/check.sh summary '$(CHECK_RESULTS)' || status=1; \
	exit $$status

check-build:
	@$(CHECK_RUN) build '$(CHECK_RESULTS)' -- $(SUBMAKE) all $(O)/exec-longrun \
		$(O)/exec-model

# The shared library exports exactly the EXPORT_SYMBOL_GPL() names, each
# with the version node the version script gives it, and every function of
# the public headers is one of them; the static library defines no other
# global name; the version script only added nodes since the last release
# tag (v*), if there is one.
ABI_BASE_TAG = $(shell git describe --tags --abbrev=0 --match 'v[0-9]*' \
	2>/dev/null)
ABI_BASE_MAP = $(O)/libexec-user.map.$(ABI_BASE_TAG)

check-abi: all $(LIB_EXPORTS)
	@rm -f $(O)/libexec-user.map.v*
	@$(if $(ABI_BASE_TAG),git show '$(ABI_BASE_TAG):$(LIB_MAP)' \
		> '$(ABI_BASE_MAP)' 2>/dev/null || : > '$(ABI_BASE_MAP)')
	@$(CHECK_RUN) abi '$(CHECK_RESULTS)' -- \
		scripts/check-abi.sh --static $(LIB_A) \
		--exports $(LIB_EXPORTS) \
		$(if $(ABI_BASE_TAG),--baseline $(ABI_BASE_MAP)) \
		$(LIB_SO) $(LIB_MAP) $(SONAME) $(PUBLIC_HDR)

check-user:
	@$(CHECK_RUN) user '$(CHECK_RESULTS)' -- $(SUBMAKE) test-run
	@$(CHECK_RUN) user-hang-report '$(CHECK_RESULTS)' -- \
		scripts/check-hang-report.sh $(TEST_BIN)

check-fallback:
	@$(CHECK_RUN) user-futex '$(CHECK_RESULTS)' -- \
		env EXEC_BACKEND=futex $(SUBMAKE) test-run

check-parker: $(O)/parker-test
	@$(CHECK_RUN) parker-io_uring '$(CHECK_RESULTS)' -- \
		env EXEC_BACKEND=io_uring $(O)/parker-test
	@$(CHECK_RUN) parker-futex '$(CHECK_RESULTS)' -- \
		env EXEC_BACKEND=futex $(O)/parker-test

check-demo: $(O)/demo
	@$(CHECK_RUN) demo '$(CHECK_RESULTS)' -- $(O)/demo

check-loop-adapters: $(LOOP_ADAPTER_BIN)
	@status=0; for a in $(LOOP_ADAPTERS); do \
		$(CHECK_RUN) loop-$$a '$(CHECK_RESULTS)' -- \
			$(O)/loop-adapter-$$a || status=1; \
	done; exit $$status

# examples/httpd.c driven by curl and raw sockets, on both I/O backends,
# and with strands over a pool (-s).
check-httpd: $(O)/httpd
	@$(CHECK_RUN) httpd-io_uring '$(CHECK_RESULTS)' -- \
		env EXEC_BACKEND=io_uring scripts/check-httpd.sh $(O)/httpd
	@$(CHECK_RUN) httpd-epoll '$(CHECK_RESULTS)' -- \
		env EXEC_BACKEND=futex scripts/check-httpd.sh $(O)/httpd
	@$(CHECK_RUN) httpd-strands '$(CHECK_RESULTS)' -- \
		env EXEC_BACKEND=io_uring scripts/check-httpd.sh $(O)/httpd -s

# examples/httpd.c against 1,000 slow clients while wrk measures others,
# and its cap of connections (scripts/check-httpd-slow.sh), on both
# backends: 3 rounds of 2 s each way.
check-httpd-slow: $(O)/httpd
	@$(CHECK_RUN) httpd-slow-io_uring '$(CHECK_RESULTS)' -- \
		env EXEC_BACKEND=io_uring scripts/check-httpd-slow.sh \
		$(O)/httpd 3 2
	@$(CHECK_RUN) httpd-slow-epoll '$(CHECK_RESULTS)' -- \
		env EXEC_BACKEND=futex scripts/check-httpd-slow.sh \
		$(O)/httpd 3 2

# The USDT probes: in the libraries' ELF notes, gone with -DEXEC_NO_SDT,
# and firing under perf where the machine allows (scripts/check-trace.sh).
# The driver uses the shared library, at fixed addresses (no PIE), so that
# the function an event names can be checked.
$(O)/trace-driver: tests/user/trace_driver.c $(LIB_SO) $(PUBLIC_HDR)
	$(CC) -Iinclude $(CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -no-pie -o $@ $< \
		-L$(O) -lexec-user -lpthread

check-trace: all $(O)/trace-driver
	@$(CHECK_RUN) trace '$(CHECK_RESULTS)' -- \
		env CC='$(CC)' CPPFLAGS_LIB='$(CPPFLAGS_LIB)' \
		scripts/check-trace.sh $(LIB_SO) $(LIB_A) $(O)/trace-driver

TSAN_MAKE = $(SUBMAKE) O=$(TSAN_O) CC=$(TSAN_CC) CFLAGS='$(SAN_CFLAGS)' \
	SAN='$(TSAN_FLAGS)'
ASAN_MAKE = $(SUBMAKE) O=$(ASAN_O) CC=$(ASAN_CC) CFLAGS='$(SAN_CFLAGS)' \
	SAN='$(ASAN_FLAGS)'

check-tsan:
	@$(CHECK_RUN) tsan '$(CHECK_RESULTS)' -- \
		env $(TSAN_ENV) EXEC_STRESS_TASKS=$(SAN_STRESS_TASKS) \
		$(TSAN_MAKE) test-run
	@$(CHECK_RUN) tsan-demo '$(CHECK_RESULTS)' -- \
		env $(TSAN_ENV) $(TSAN_MAKE) demo
	@$(CHECK_RUN) tsan-loop-adapters '$(CHECK_RESULTS)' -- \
		env $(TSAN_ENV) $(TSAN_MAKE) loop-adapters

check-asan:
	@$(CHECK_RUN) asan-ubsan '$(CHECK_RESULTS)' -- \
		env $(ASAN_ENV) EXEC_STRESS_TASKS=$(SAN_STRESS_TASKS) \
		$(ASAN_MAKE) test-run
	@$(CHECK_RUN) asan-ubsan-demo '$(CHECK_RESULTS)' -- \
		env $(ASAN_ENV) $(ASAN_MAKE) demo
	@$(CHECK_RUN) asan-ubsan-loop-adapters '$(CHECK_RESULTS)' -- \
		env $(ASAN_ENV) $(ASAN_MAKE) loop-adapters

# Install into a staging directory and build tests/install/ against it with
# nothing but pkg-config, shared and static; read a man page there; then
# uninstall, which must leave no file.
STAGE = $(abspath $(O))/stage
STAGE_DIRS = DESTDIR=$(STAGE) PREFIX=$(PREFIX) LIBDIR=$(LIBDIR) \
	INCLUDEDIR=$(INCLUDEDIR) PKGCONFIGDIR=$(PKGCONFIGDIR) MANDIR=$(MANDIR)

check-install:
	@rm -rf '$(STAGE)'
	@$(CHECK_RUN) install '$(CHECK_RESULTS)' -- sh -c ' \
		$(SUBMAKE) install $(STAGE_DIRS) >/dev/null && \
		tests/install/run.sh $(STAGE) $(PKGCONFIGDIR) $(MANDIR) \
			$(abspath $(O))/consumer \
			$(SUBMAKE) -C $(CURDIR) uninstall $(STAGE_DIRS)'

# The layout rules that can be counted (scripts/check-layout.sh).
check-layout:
	@$(CHECK_RUN) layout '$(CHECK_RESULTS)' -- \
		scripts/check-layout.sh $(wildcard core/*.[ch] user/*.[ch] \
			user/io/*.[ch] kernel/*.[ch])

# The library example of README.md, exactly as written, built with its own
# cc commands against a staged install, and run.
check-readme:
	@rm -rf '$(STAGE)-readme'
	@$(CHECK_RUN) readme '$(CHECK_RESULTS)' -- sh -c ' \
		$(SUBMAKE) install DESTDIR=$(STAGE)-readme PREFIX=$(PREFIX) \
			LIBDIR=$(LIBDIR) INCLUDEDIR=$(INCLUDEDIR) \
			PKGCONFIGDIR=$(PKGCONFIGDIR) >/dev/null && \
		scripts/check-readme.sh README.md $(STAGE)-readme \
			$(PKGCONFIGDIR) $(abspath $(O))/readme'

# Every public header compiles on its own, as C99 and as C++.
check-headers:
	@$(CHECK_RUN) headers '$(CHECK_RESULTS)' -- \
		env CC='$(CC)' CXX='$(CXX)' scripts/check-headers.sh $(PUBLIC_HDR)

# The kernel-doc comments: no warning, one for every public function; the
# man pages made from them.
check-man:
	@$(CHECK_RUN) man '$(CHECK_RESULTS)' -- sh -c ' \
		$(SUBMAKE) man && \
		scripts/check-man.sh $(KERNEL_DOC) $(MAN_OUT) $(PUBLIC_HDR)'

# The HTML documentation, from scratch, with warnings as errors; the API
# reference has every public function.
check-htmldocs:
	@$(CHECK_RUN) htmldocs '$(CHECK_RESULTS)' -- \
		scripts/check-htmldocs.sh $(SPHINXBUILD) $(KERNEL_DOC) \
		$(O)/check-htmldocs $(PUBLIC_HDR)

# A build as a Debian package does it, with dpkg-buildflags' CPPFLAGS, CFLAGS
# and LDFLAGS in the environment: they reach every command line, and the
# hardening shows in the library.
BUILDFLAGS_O ?= build-buildflags

check-buildflags:
	@$(CHECK_RUN) buildflags '$(CHECK_RESULTS)' -- \
		env -u CPPFLAGS -u CFLAGS -u LDFLAGS -u MAKEFLAGS -u MFLAGS \
		scripts/check-buildflags.sh $(BUILDFLAGS_O)

# --- fragments owned by the test and benchmark suites ----------------------

-include tests/user/tests.mk
-include tests/fuzz/fuzz.mk
-include bench/bench.mk

# The suite with io_uring refused, one CPU, a tiny RLIMIT_MEMLOCK, ...
$(O)/seccomp-run: tests/user/seccomp_run.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $<

# The long runs, on demand (scripts/longrun.sh): the public API only.
$(O)/exec-longrun: tests/user/longrun.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Iinclude $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_A) \
		$(LDLIBS_LIB)

longrun: $(O)/exec-longrun

# Thread starts refused by RLIMIT_NPROC (scripts/check-hostile.sh).
$(O)/exec-nproc-test: tests/user/nproc_test.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Iinclude $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_A) \
		$(LDLIBS_LIB)

check-hostile: $(TEST_BIN) $(BENCH_BIN) $(O)/seccomp-run $(O)/exec-nproc-test
	@$(CHECK_RUN) hostile '$(CHECK_RESULTS)' -- \
		scripts/check-hostile.sh $(TEST_BIN) $(BENCH_BIN) \
		$(O)/seccomp-run $(O)/exec-nproc-test

include kernel/kernel.mk

# The modules, and exec_loop.ko (scripts/exec-loop.sh), build without a
# warning against Debian's own kernel headers,
# as a distribution user builds them.
check-kernel-debian:
	@$(CHECK_RUN) kernel-debian '$(CHECK_RESULTS)' -- \
		$(SUBMAKE) kernel-modules
	@$(CHECK_RUN) kernel-exports '$(CHECK_RESULTS)' -- \
		$(KERNEL_EXPORTS) $(KERNEL_RELEASE_OUT) $(PUBLIC_HDR)
	@$(CHECK_RUN) kernel-exec-loop-debian '$(CHECK_RESULTS)' -- \
		$(SUBMAKE) exec-loop-module

# DKMS builds exec.ko from dkms.conf against the same Debian headers, in
# temporary DKMS trees, and removes it again; it runs make as a user's DKMS
# does, without this make's flags.
check-dkms:
	@$(CHECK_RUN) dkms '$(CHECK_RESULTS)' -- \
		env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL scripts/check-dkms.sh \
		$(notdir $(patsubst %/build,%,$(KDIR))) $(VERSION) dkms.conf \
		$(KERNEL_SRC)

# The Debian packages of debian/: built from a copy of the tree, lintian
# clean, installed on this machine (root), the tests/install/ consumer built
# against them three ways and run, exec.ko built by DKMS from the installed
# sources, then purged with nothing left (scripts/check-deb.sh).
check-deb:
	@$(CHECK_RUN) deb '$(CHECK_RESULTS)' -- \
		env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL scripts/check-deb.sh \
		$(notdir $(patsubst %/build,%,$(KDIR))) $(VERSION)

clean:
	rm -rf $(O) build-*

FORCE:

.PHONY: all clean install install-dkms uninstall demo httpd loop-adapters man htmldocs FORCE \
	check $(CHECK_TARGETS)
