/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the libFuzzer targets of fuzz/ share: an invariant that does not
 * hold is one line "fuzz: invariant: FILE:LINE: what" on fd 2 (not
 * through stderr's FILE, which a target may silence) and an abort(),
 * which libFuzzer reports as a crash and saves the input of.
 */
#ifndef MINIVMM_FUZZ_H
#define MINIVMM_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CHECK(cond, fmt, ...)					\
	do {								\
		if (!(cond)) {						\
			dprintf(2, "fuzz: invariant: %s:%d: " fmt "\n",	\
				__FILE__, __LINE__, ##__VA_ARGS__);	\
			abort();					\
		}							\
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* MINIVMM_FUZZ_H */
