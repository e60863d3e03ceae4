/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SECONDS argument of the load programs (hog, victim): a plain decimal
 * above 0 and at most MAX, with no sign, exponent or hex.
 */
#ifndef CI_TESTS_SECONDS_H
#define CI_TESTS_SECONDS_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static inline int parse_seconds(const char *s, double max, double *out)
{
	char *end;
	double v;

	if (!*s || s[strspn(s, "0123456789.")])
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !(v > 0) || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

#endif /* CI_TESTS_SECONDS_H */
