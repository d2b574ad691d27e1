/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Kernel-only internals of exec.ko: the platform's set-up and teardown,
 * called by kernel/module.c.
 */
#ifndef EXEC_KERNEL_H
#define EXEC_KERNEL_H

void exec_platform_init(void);
void exec_platform_exit(void);
void exec_stats_files_init(void);
void exec_stats_files_exit(void);
int exec_hotplug_init(void);
void exec_hotplug_exit(void);

#endif /* EXEC_KERNEL_H */
