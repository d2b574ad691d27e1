# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The kernel modules; included by the top-level Makefile, whose O and
# SUBMAKE it uses.
#
#   make kernel-modules   exec.ko and exec_example.ko against KDIR, by
#                         default the headers of Debian's linux-headers-amd64
#   make check-kernel     the same and exec_test.ko (the test build: exec.ko
#                         then also exports the internals the suites use)
#                         against the test kernel built by
#                         scripts/kernel-build.sh, then the KUnit suites and
#                         the unload checks in QEMU (scripts/kunit-qemu.sh)
#   make check-kernel-hotplug
#                         the same modules on the same kernel, booted with 4
#                         CPUs to run the CPU hotplug suite alone
#   make check-kernel-lockdep
#                         the planted lockdep reports of
#                         kernel/tests/lockdep_test.c, one boot per case
#                         of the test kernel: each must show lockdep's
#                         report naming the pool's map
#   make exec-loop-module
#                         exec_loop.ko, the kernel's loop driver converted
#                         to exec (scripts/exec-loop.sh), against KDIR
#   make check-kernel-exec-loop
#                         the same against the test kernel, booted with the
#                         stock loop driver beside it: the checks of
#                         tests/guest/exec_loop_check.c on both
#   make check-kernel-kcsan
#                         the same on the KCSAN test kernel
#                         (scripts/kernel-config-kcsan), failing on any
#                         data race report
#   make coverage-kernel  (on demand, not in make check) the line and branch
#                         coverage of core/ and kernel/ by the KUnit suites,
#                         on the gcov test kernel
#                         (scripts/kernel-config-gcov), printed as make
#                         coverage prints the userspace suites'
#
# A driver author builds the same way by hand, in the source tree:
#
#   make -C /lib/modules/$(uname -r)/build M=$PWD
#
# Here each kernel gets a copy of the sources under $(O)/kernel/, so the
# source tree stays clean and the two builds do not overwrite each other's
# objects.  Any compiler or modpost warning fails the build.
#
# Variables: KDIR (kernel build directory), KERNEL_W (Kbuild's W=, default
# 1), TEST_KDIR (the test kernel's build directory), KUNIT_QEMU_ARGS (extra
# arguments of scripts/kunit-qemu.sh), STRESS_TASKS (exec_test.ko's
# stress_tasks, default 200000), FREEZE_ROUNDS (suspend freezes of the
# check-kernel boot, default 2; Documentation/lifecycle.rst).

# The build directory of the kernel linux-headers-amd64 points at.
DEBIAN_KVER := $(shell dpkg-query -W -f='$${Depends}' linux-headers-amd64 \
	2>/dev/null | sed -n 's/^linux-headers-\([^ ,]*\).*/\1/p')
KDIR ?= $(if $(DEBIAN_KVER),/lib/modules/$(DEBIAN_KVER)/build,$(firstword \
	$(wildcard /lib/modules/*/build)))
KERNEL_W ?= 1
STRESS_TASKS ?= 200000
KUNIT_QEMU_ARGS ?= --hold 500
# Suspend freezes init makes once the modules are loaded, each armed and
# checked by exec_test.ko (kernel/tests/freeze_test.c), each held about
# a second.
FREEZE_ROUNDS ?= 2
# The kernel reports the suites provoke on purpose: the WARN_ON_ONCE() of a
# destroy refused because something still depends on the executor
# (tests/lifetime_test.c and others), and the stall watchdog's stack dumps
# of the "wd-test" pool's stuck worker (tests/watchdog_test.c).
KUNIT_ALLOW := WARNING: .*exec_executor_check_unused|task:wd-test/

KERNEL_SRC := Kbuild Makefile $(wildcard core/*.c core/*.h include/exec/*.h \
	include/trace/events/*.h \
	kernel/*.c kernel/*.h kernel/include/*.h kernel/tests/*.c \
	kernel/tests/*.h kernel/tests/lockdep/*.[ch] tests/*.c tests/exec_test.h examples/kernel/*.c \
	examples/kernel/*.h examples/kernel/Kbuild)
KERNEL_OUT = $(abspath $(O))/kernel

# $(call exec_kbuild,kernel build dir,staging dir,make variables): copy the
# sources (with their times, so that only what changed is rebuilt; files
# deleted from the tree go from the copy too), build, and fail on any
# warning.  The example and the test module are built only on request
# (CONFIG_EXEC_EXAMPLE=m, CONFIG_EXEC_KUNIT_TEST=m; see Kbuild).
define exec_kbuild
	@test -d '$(1)' || { echo "no kernel build directory '$(1)'" >&2; \
		exit 1; }
	@mkdir -p '$(2)'
	@find '$(2)' \( -name '*.[ch]' -o -name Kbuild \) -type f -delete
	@tar cf - $(KERNEL_SRC) | tar xf - -C '$(2)'
	@{ $(MAKE) --no-print-directory -C '$(1)' M='$(2)' W=$(KERNEL_W) \
		$(3) modules 2>&1; echo $$? > '$(2)/build.status'; } | \
		tee '$(2)/build.log'; \
	status=$$(cat '$(2)/build.status'); \
	if grep -qiE '(^|[^a-z_])warning' '$(2)/build.log'; then \
		echo "kernel build: warnings (see $(2)/build.log)" >&2; \
		exit 1; \
	fi; exit $$status
endef

KERNEL_RELEASE_OUT = $(KERNEL_OUT)/$(notdir $(patsubst %/build,%,$(KDIR)))

kernel-modules:
	$(call exec_kbuild,$(KDIR),$(KERNEL_RELEASE_OUT),CONFIG_EXEC_EXAMPLE=m)

# exec.ko exports the public API of include/exec/ (in the EXEC namespace)
# and, in the test build only, the test hooks; its .modinfo has a version.
KERNEL_EXPORTS = scripts/check-kernel-exports.sh

# --- the test kernel ---------------------------------------------------------

TEST_KDIR ?=
TEST_KERNEL_OUT = $(KERNEL_OUT)/test

check-kernel:
	@kdir='$(TEST_KDIR)'; \
	if [ -z "$$kdir" ]; then \
		kdir=$$(scripts/kernel-build.sh --print-build-dir) || exit 1; \
	fi; \
	$(SUBMAKE) kernel-test-modules TEST_KDIR="$$kdir" && \
	$(CHECK_RUN) kernel-exports-test '$(CHECK_RESULTS)' -- \
		$(KERNEL_EXPORTS) --test $(TEST_KERNEL_OUT) $(PUBLIC_HDR) && \
	$(CHECK_RUN) kernel-kunit '$(CHECK_RESULTS)' -- \
		scripts/kunit-qemu.sh --kernel "$$kdir" $(KUNIT_QEMU_ARGS) \
		--trace-events --kmemleak --allow '$(KUNIT_ALLOW)' \
		--append 'EXEC_FREEZE=$(FREEZE_ROUNDS)' \
		$(TEST_KERNEL_OUT)/exec.ko \
		"$(TEST_KERNEL_OUT)/exec_test.ko stress_tasks=$(STRESS_TASKS)" \
		$(TEST_KERNEL_OUT)/exec_hotplug_test.ko \
		$(TEST_KERNEL_OUT)/exec_example.ko

kernel-test-modules:
	$(call exec_kbuild,$(TEST_KDIR),$(TEST_KERNEL_OUT),CONFIG_EXEC_EXAMPLE=m CONFIG_EXEC_KUNIT_TEST=m $(if $(EXEC_GCOV),EXEC_GCOV=$(EXEC_GCOV)))

# The CPU hotplug suite alone (exec_hotplug_test.ko), on 4 CPUs: it takes
# CPUs 1-3 offline and back while per-CPU pools run work from each.
# (check-kernel runs it too, on 2 CPUs.)  Its console log goes to a
# directory of its own.
HOTPLUG_LOG = $(abspath $(O))/kunit-hotplug/console.log

check-kernel-hotplug:
	@kdir='$(TEST_KDIR)'; \
	if [ -z "$$kdir" ]; then \
		kdir=$$(scripts/kernel-build.sh --print-build-dir) || exit 1; \
	fi; \
	$(SUBMAKE) kernel-test-modules TEST_KDIR="$$kdir" || exit 1; \
	EXEC_KUNIT_LOG='$(HOTPLUG_LOG)' \
	$(CHECK_RUN) kernel-hotplug-kunit '$(CHECK_RESULTS)' -- \
		scripts/kunit-qemu.sh --kernel "$$kdir" --smp 4 --kmemleak \
		$(TEST_KERNEL_OUT)/exec.ko $(TEST_KERNEL_OUT)/exec_hotplug_test.ko

# --- planted lockdep reports -------------------------------------------------
#
# Lockdep reports once, then turns itself off; so each planted case has a
# module and a boot of its own, with exec.ko and that module alone
# (kernel/tests/lockdep/), and the run fails unless lockdep's report of a
# circular dependency through the pool's map (a task group's, for
# group_wait) is in the log.  check-kernel
# checks the rest of the suite free of lockdep reports.

LOCKDEP_CASES = cancel_sync flush destroy timer_cancel_sync group_wait
LOCKDEP_LOG_DIR = $(abspath $(O))/kunit-lockdep

check-kernel-lockdep:
	@kdir='$(TEST_KDIR)'; \
	if [ -z "$$kdir" ]; then \
		kdir=$$(scripts/kernel-build.sh --print-build-dir) || exit 1; \
	fi; \
	$(SUBMAKE) kernel-test-modules TEST_KDIR="$$kdir" || exit 1; \
	status=0; \
	for case in $(LOCKDEP_CASES); do \
		EXEC_KUNIT_LOG='$(LOCKDEP_LOG_DIR)'/$$case/console.log \
		$(CHECK_RUN) kernel-lockdep-$$case '$(CHECK_RESULTS)' -- \
			scripts/kunit-qemu.sh --kernel "$$kdir" \
			$(KUNIT_QEMU_ARGS) --quiet \
			--expect 'possible circular locking dependency detected' \
			--expect '[(]exec-(thread_pool|group)[)]' \
			$(TEST_KERNEL_OUT)/exec.ko \
			$(TEST_KERNEL_OUT)/exec_lockdep_$$case.ko || \
			status=1; \
	done; \
	exit $$status

# --- the KCSAN test kernel ---------------------------------------------------
#
# KCSAN cannot be built with KASAN, so the data race detector has a kernel
# of its own (scripts/kernel-config-kcsan), cached next to the test kernel
# under the name "kcsan".  The modules, the console log and the KTAP
# results go to directories of their own, so that a run leaves those of
# check-kernel alone.  The KUnit run fails on any kernel report but a
# KCSAN one; kcsan-reports.sh judges those, as a result of its own: it
# fails on a race through the project's modules, lists one of the
# kernel's own code alone (tick_nohz_idle_stop_tick racing itself, say)
# without failing, and checks that KCSAN was on.

KCSAN_KDIR ?=
KCSAN_KERNEL_OUT = $(KERNEL_OUT)/kcsan
KCSAN_LOG = $(abspath $(O))/kunit-kcsan/console.log

check-kernel-kcsan:
	@kdir='$(KCSAN_KDIR)'; \
	if [ -z "$$kdir" ]; then \
		kdir=$$(scripts/kernel-build.sh --print-build-dir \
			--config scripts/kernel-config-kcsan --name kcsan) || \
			exit 1; \
	fi; \
	$(SUBMAKE) kernel-test-modules TEST_KDIR="$$kdir" \
		TEST_KERNEL_OUT='$(KCSAN_KERNEL_OUT)' || exit 1; \
	rm -f '$(KCSAN_LOG)'; status=0; \
	EXEC_KUNIT_LOG='$(KCSAN_LOG)' \
	$(CHECK_RUN) kernel-kcsan-kunit '$(CHECK_RESULTS)' -- \
		scripts/kunit-qemu.sh --kernel "$$kdir" $(KUNIT_QEMU_ARGS) \
		--allow '$(KUNIT_ALLOW)' --kcsan-elsewhere \
		$(KCSAN_KERNEL_OUT)/exec.ko \
		"$(KCSAN_KERNEL_OUT)/exec_test.ko stress_tasks=$(STRESS_TASKS)" \
		$(KCSAN_KERNEL_OUT)/exec_example.ko || status=1; \
	$(CHECK_RUN) kernel-kcsan-races '$(CHECK_RESULTS)' -- \
		scripts/kcsan-reports.sh '$(KCSAN_LOG)' || status=1; \
	exit $$status

# --- coverage of the modules by the KUnit suites ----------------------------
#
# The gcov test kernel (scripts/kernel-config-gcov: CONFIG_GCOV_KERNEL, no
# KASAN nor kmemleak), cached under the name "gcov"; the test modules built
# with gcov's counters (Kbuild's EXEC_GCOV=1) in a directory of their own;
# one boot with what check-kernel loads of KUnit (exec.ko, exec_test.ko and
# exec_hotplug_test.ko, the freeze rounds, the trace events), after which
# init prints the counters on the console (kunit-qemu.sh --gcov).
# scripts/kernel-coverage.sh writes them back beside the .gcno files and
# prints the table of make coverage for core/ and kernel/.  A failed KUnit
# run fails the target, after the table.

GCOV_KDIR ?=
GCOV_KERNEL_OUT = $(KERNEL_OUT)/gcov
GCOV_LOG = $(abspath $(O))/kunit-gcov/console.log

coverage-kernel:
	@kdir='$(GCOV_KDIR)'; \
	if [ -z "$$kdir" ]; then \
		kdir=$$(scripts/kernel-build.sh --print-build-dir \
			--config scripts/kernel-config-gcov --name gcov) || \
			exit 1; \
	fi; \
	$(SUBMAKE) kernel-test-modules TEST_KDIR="$$kdir" EXEC_GCOV=1 \
		TEST_KERNEL_OUT='$(GCOV_KERNEL_OUT)' > /dev/null || exit 1; \
	rm -f '$(GCOV_LOG)'; status=0; \
	EXEC_KUNIT_LOG='$(GCOV_LOG)' \
	scripts/kunit-qemu.sh --kernel "$$kdir" --quiet --gcov \
		$(KUNIT_QEMU_ARGS) --trace-events --allow '$(KUNIT_ALLOW)' \
		--append 'EXEC_FREEZE=$(FREEZE_ROUNDS)' \
		$(GCOV_KERNEL_OUT)/exec.ko \
		"$(GCOV_KERNEL_OUT)/exec_test.ko stress_tasks=$(STRESS_TASKS)" \
		$(GCOV_KERNEL_OUT)/exec_hotplug_test.ko || status=1; \
	scripts/kernel-coverage.sh '$(GCOV_KERNEL_OUT)' '$(GCOV_LOG)' || \
		status=1; \
	exit $$status

# --- the loop driver on exec ------------------------------------------------
#
# scripts/exec-loop.sh takes drivers/block/loop.c from Debian's
# linux-source-6.1 (the test kernel's tree, or the tarball), converts it
# with scripts/coccinelle/workqueue-to-exec.cocci, makes the edits that let
# it load beside the stock driver and builds exec_loop.ko; nothing of it is
# in the repository.  The check boots exec.ko, the stock loop.ko and
# exec_loop.ko, and init runs tests/guest/exec_loop_check.c (static) on
# both drivers, then unloads the modules: one boot, with kmemleak.  The
# same boot loads the semantic patch's own test, tests/coccinelle/
# wq_sample.c as written for workqueues and converted
# (scripts/coccinelle/build-sample.sh): each checks the workqueue API's
# promises as it loads and fails its load if one is broken.

EXEC_LOOP_OUT = $(abspath $(O))/exec-loop
EXEC_LOOP_LOG = $(abspath $(O))/kunit-exec-loop/console.log
EXEC_LOOP_TIMEOUT ?= 170

exec-loop-module: kernel-modules
	scripts/exec-loop.sh --kdir '$(KDIR)' \
		--symvers '$(KERNEL_RELEASE_OUT)/Module.symvers' \
		--out '$(EXEC_LOOP_OUT)/$(notdir $(KERNEL_RELEASE_OUT))'
	scripts/coccinelle/build-sample.sh --kdir '$(KDIR)' \
		--symvers '$(KERNEL_RELEASE_OUT)/Module.symvers' \
		--out '$(EXEC_LOOP_OUT)/$(notdir $(KERNEL_RELEASE_OUT))/sample'

check-kernel-exec-loop:
	@kdir='$(TEST_KDIR)'; \
	if [ -z "$$kdir" ]; then \
		kdir=$$(scripts/kernel-build.sh --print-build-dir) || exit 1; \
	fi; \
	out='$(EXEC_LOOP_OUT)/test'; \
	$(SUBMAKE) kernel-test-modules TEST_KDIR="$$kdir" || exit 1; \
	$(CHECK_RUN) kernel-exec-loop-build '$(CHECK_RESULTS)' -- \
		scripts/exec-loop.sh --kdir "$$kdir" \
		--symvers '$(TEST_KERNEL_OUT)/Module.symvers' --out "$$out" || \
		exit 1; \
	$(CHECK_RUN) kernel-wq-sample-build '$(CHECK_RESULTS)' -- \
		scripts/coccinelle/build-sample.sh --kdir "$$kdir" \
		--symvers '$(TEST_KERNEL_OUT)/Module.symvers' \
		--out "$$out/sample" || exit 1; \
	gcc -static -O2 -Wall -Wextra -Werror -pthread \
		-o "$$out/exec_loop_check" tests/guest/exec_loop_check.c || \
		exit 1; \
	EXEC_KUNIT_LOG='$(EXEC_LOOP_LOG)' \
	$(CHECK_RUN) kernel-exec-loop '$(CHECK_RESULTS)' -- \
		scripts/kunit-qemu.sh --kernel "$$kdir" --quiet --kmemleak \
		--timeout $(EXEC_LOOP_TIMEOUT) --run "$$out/exec_loop_check" \
		$(TEST_KERNEL_OUT)/exec.ko "$$out/sample/wq_sample.ko" \
		"$$out/sample/exec_wq_sample.ko" \
		"$$kdir/drivers/block/loop.ko" "$$out/exec_loop.ko"

.PHONY: kernel-modules check-kernel kernel-test-modules check-kernel-hotplug \
	check-kernel-kcsan check-kernel-lockdep exec-loop-module \
	check-kernel-exec-loop coverage-kernel
