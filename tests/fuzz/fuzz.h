/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What the libFuzzer targets of tests/fuzz/ share: reading the fuzzer's
 * bytes as a stream of small numbers (zero once they run out, so that every
 * input is a valid program), and failing loudly.
 */
#ifndef EXEC_FUZZ_H
#define EXEC_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct fuzz_in {
	const uint8_t *p;
	size_t n;
};

static inline uint8_t fuzz_u8(struct fuzz_in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

/* @bytes bytes, little-endian, 1 to 8. */
static inline uint64_t fuzz_uint(struct fuzz_in *in, unsigned int bytes)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < bytes; i++)
		v |= (uint64_t)fuzz_u8(in) << (8 * i);
	return v;
}

/*
 * A number of any magnitude: one byte picks how many bits (0 to 63), the
 * following ones fill them, so that small and huge values are both a byte
 * or two of mutation away.
 */
static inline uint64_t fuzz_scaled(struct fuzz_in *in)
{
	unsigned int bits = fuzz_u8(in) % 64;

	return fuzz_uint(in, (bits + 7) / 8) & ((1ULL << bits) - 1);
}

/* libFuzzer's entry point, which each target defines. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Its set-up, called once before the inputs, which a target may define. */
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define fuzz_check(cond, fmt, ...)					\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: %s: " fmt "\n",		\
				__FILE__, __LINE__, #cond, ##__VA_ARGS__); \
			abort();					\
		}							\
	} while (0)

#endif /* EXEC_FUZZ_H */
