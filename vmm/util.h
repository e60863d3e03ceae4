/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MINIVMM_UTIL_H
#define MINIVMM_UTIL_H

#include <stdio.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define pr_err(fmt, ...) \
	fprintf(stderr, "minivmm: " fmt "\n", ##__VA_ARGS__)

#endif /* MINIVMM_UTIL_H */
