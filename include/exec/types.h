/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Basic types for the public headers.
 *
 * The same public headers are compiled by Kbuild into the kernel module and
 * by the userspace Makefile into libexec-user; this is the one place where
 * the two worlds differ in what they include.
 */
#ifndef EXEC_TYPES_H
#define EXEC_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/stddef.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#endif

/*
 * Around the declarations of every public header.  In userspace they also
 * give the public API default visibility: libexec-user is compiled with
 * -fvisibility=hidden, so that everything else stays inside the library.
 */
#ifdef __KERNEL__
#define EXEC_VISIBILITY_PUSH
#define EXEC_VISIBILITY_POP
#else
#define EXEC_VISIBILITY_PUSH	_Pragma("GCC visibility push(default)")
#define EXEC_VISIBILITY_POP	_Pragma("GCC visibility pop")
#endif

#ifdef __cplusplus
#define EXEC_BEGIN_DECLS extern "C" { EXEC_VISIBILITY_PUSH
#define EXEC_END_DECLS EXEC_VISIBILITY_POP }
#else
#define EXEC_BEGIN_DECLS EXEC_VISIBILITY_PUSH
#define EXEC_END_DECLS EXEC_VISIBILITY_POP
#endif

#endif /* EXEC_TYPES_H */
