// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Thread attributes (include/exec/thread_attr.h).  Every executor that
 * starts threads checks its attributes here, once for both worlds, before it
 * allocates or starts anything; the backends' exec_thread_start_attr()
 * applies them and reports only what the system refuses.
 */
#include "internal.h"

/* Whether any of the first @nr_bits bits of @cpus names an online CPU. */
static bool exec_cpus_any_online(const unsigned long *cpus,
				 unsigned int nr_bits)
{
	unsigned int i, nr_words = BITS_TO_LONGS(nr_bits);
	unsigned long word;

	for (i = 0; i < nr_words; i++) {
		word = cpus[i];
		if (i == nr_words - 1 && nr_bits % BITS_PER_LONG)
			word &= (1UL << (nr_bits % BITS_PER_LONG)) - 1;
		while (word) {
			if (exec_cpu_online(i * BITS_PER_LONG + __ffs(word)))
				return true;
			word &= word - 1;
		}
	}
	return false;
}

/**
 * exec_thread_attr_check - check thread attributes before using them
 * @attr: the attributes; NULL for the defaults
 *
 * Context: Process context.
 * Return: 0; -EINVAL for a nice value outside [EXEC_NICE_MIN,
 * EXEC_NICE_MAX], a NULL @attr->cpus with a non-zero @attr->nr_cpu_bits, or
 * a CPU mask that names no online CPU (an empty one included); for a stack
 * size, what exec_thread_stack_check() says (-EINVAL below the userspace
 * minimum, -EOPNOTSUPP for any in the kernel).
 */
int exec_thread_attr_check(const struct exec_thread_attr *attr)
{
	if (!attr)
		return 0;
	if (attr->set_nice &&
	    (attr->nice < EXEC_NICE_MIN || attr->nice > EXEC_NICE_MAX))
		return -EINVAL;
	if (!attr->cpus && attr->nr_cpu_bits)
		return -EINVAL;
	if (attr->cpus && !exec_cpus_any_online(attr->cpus, attr->nr_cpu_bits))
		return -EINVAL;
	return exec_thread_stack_check(attr->stack_size);
}

/**
 * exec_thread_attr_dup - copy attributes for threads started later
 * @dst: the copy, to be released with exec_thread_attr_free()
 * @src: checked attributes (exec_thread_attr_check()); NULL for the defaults
 *
 * The name and the CPU mask are copied too, so @src and what it points to
 * need not outlive the call.
 *
 * Context: Process context; may sleep.
 * Return: 0 or -ENOMEM (and then @dst holds nothing to free).
 */
int exec_thread_attr_dup(struct exec_thread_attr *dst,
			 const struct exec_thread_attr *src)
{
	size_t len;
	char *name = NULL;
	unsigned long *cpus = NULL;

	memset(dst, 0, sizeof(*dst));
	if (!src)
		return 0;
	if (src->name) {
		len = strlen(src->name) + 1;
		name = kmalloc(len, GFP_KERNEL);
		if (!name)
			return -ENOMEM;
		memcpy(name, src->name, len);
	}
	if (src->cpus) {
		len = BITS_TO_LONGS(src->nr_cpu_bits) * sizeof(*cpus);
		cpus = kmalloc(len, GFP_KERNEL);
		if (!cpus) {
			kfree(name);
			return -ENOMEM;
		}
		memcpy(cpus, src->cpus, len);
	}
	*dst = *src;
	dst->name = name;
	dst->cpus = cpus;
	return 0;
}

/**
 * exec_thread_attr_free - release a copy made by exec_thread_attr_dup()
 * @attr: the copy
 *
 * Context: Process context.
 */
void exec_thread_attr_free(struct exec_thread_attr *attr)
{
	kfree((void *)attr->name);
	kfree((void *)attr->cpus);
	memset(attr, 0, sizeof(*attr));
}
