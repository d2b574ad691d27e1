// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * seccomp-run: run a command with io_uring's system calls refused, as a
 * container runtime's seccomp profile refuses them.
 *
 *   seccomp-run ERRNO COMMAND [ARG...]
 *
 * io_uring_setup(), io_uring_enter() and io_uring_register() fail with the
 * errno named (EPERM, ENOSYS, ...); everything else is allowed.  For
 * scripts/check-hostile.sh.
 */
#define _GNU_SOURCE
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

#define SR_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The errno value whose name is @name, or 0. */
static int sr_errno(const char *name)
{
	const char *n;
	int e;

	for (e = 1; e < 4096; e++) {
		n = strerrorname_np(e);
		if (n && !strcmp(n, name))
			return e;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int err = argc < 3 ? 0 : sr_errno(argv[1]);

	if (!err) {
		fprintf(stderr, "usage: seccomp-run ERRNO COMMAND [ARG...]\n");
		return 2;
	}

	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SR_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_enter, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_register, 1,
			 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (err & 0xffff)),
	};
	struct sock_fprog prog = {
		.len = SR_ARRAY_SIZE(filter),
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
