// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * seccomp-run: run a command with io_uring's system calls refused, as a
 * container runtime's seccomp profile refuses them.
 *
 *   seccomp-run EPERM|ENOSYS COMMAND [ARG...]
 *
 * io_uring_setup(), io_uring_enter() and io_uring_register() fail with the
 * given errno; everything else is allowed.  For scripts/check-hostile.sh.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define SR_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SR_ARCH	AUDIT_ARCH_AARCH64
#else
#error "seccomp-run: unknown architecture"
#endif

#define SR_DENY(nr, err)						\
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1),		\
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((err) & 0xffff))

int main(int argc, char **argv)
{
	int err;

	if (argc < 3 || (strcmp(argv[1], "EPERM") && strcmp(argv[1], "ENOSYS"))) {
		fprintf(stderr, "usage: seccomp-run EPERM|ENOSYS COMMAND [ARG...]\n");
		return 2;
	}
	err = strcmp(argv[1], "EPERM") ? ENOSYS : EPERM;

	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SR_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		SR_DENY(__NR_io_uring_setup, err),
		SR_DENY(__NR_io_uring_enter, err),
		SR_DENY(__NR_io_uring_register, err),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof(filter) / sizeof(filter[0]),
		.filter = filter,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("seccomp-run: prctl");
		return 2;
	}
	execvp(argv[2], argv + 2);
	perror("seccomp-run: execvp");
	return 2;
}
