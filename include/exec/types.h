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

#ifdef __cplusplus
#define EXEC_BEGIN_DECLS extern "C" {
#define EXEC_END_DECLS }
#else
#define EXEC_BEGIN_DECLS
#define EXEC_END_DECLS
#endif

#endif /* EXEC_TYPES_H */
