/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MINIVMM_UTIL_H
#define MINIVMM_UTIL_H

#include <stdio.h>
#include <string.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define pr_err(fmt, ...) \
	fprintf(stderr, "minivmm: " fmt "\n", ##__VA_ARGS__)

/* "EINVAL" for EINVAL (needs _GNU_SOURCE, glibc 2.32). */
static inline const char *errno_name(int err)
{
	const char *name = strerrorname_np(err);

	return name ? name : "unknown errno";
}

#endif /* MINIVMM_UTIL_H */
