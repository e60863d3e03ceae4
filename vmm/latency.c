// SPDX-License-Identifier: GPL-2.0
/*
 * Latency statistics, see latency.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "latency.h"

/* 1000 * 10^(k / 20) for k = 0..19, rounded: one decade of bounds. */
static const unsigned int decade_ns[LATENCY_PER_DECADE] = {
	1000, 1122, 1259, 1413, 1585, 1778, 1995, 2239, 2512, 2818,
	3162, 3548, 3981, 4467, 5012, 5623, 6310, 7079, 7943, 8913,
};

/* TSC ticks in ns, rounded down; 0 if the frequency is unknown. */
unsigned long long latency__ns(__u32 ticks, unsigned long long tsc_khz)
{
	if (!tsc_khz)
		return 0;
	return (unsigned long long)ticks * 1000000ULL / tsc_khz;
}

/* Bucket @i's upper bound in ns; @i below LATENCY_MAX_BUCKETS. */
unsigned long long latency__bucket_le(unsigned int i)
{
	unsigned long long le = decade_ns[i % LATENCY_PER_DECADE];
	unsigned int d;

	for (d = 0; d < i / LATENCY_PER_DECADE; d++)
		le *= 10;
	return le;
}

/* The bucket of @ns: the first whose bound is at least @ns. */
unsigned int latency__bucket(unsigned long long ns)
{
	unsigned int i;

	for (i = 0; i < LATENCY_MAX_BUCKETS - 1; i++) {
		if (ns <= latency__bucket_le(i))
			break;
	}
	return i;
}

/*
 * The nearest-rank percentile of @n > 0 sorted values, @permille of 1000:
 * the value of rank ceil(permille * n / 1000), at least 1.
 */
unsigned long long latency__percentile(const unsigned long long *sorted,
				       size_t n, unsigned int permille)
{
	size_t rank = ((unsigned long long)permille * n + 999) / 1000;

	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

static int latency__cmp(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/*
 * The statistics of @n samples of TSC ticks, converted to ns with
 * @tsc_khz. No samples: all zero, no buckets. @ticks is kept (not copied)
 * for --latency-samples. -ENOMEM if the sorted copy cannot be allocated.
 */
int latency__stats(const __u32 *ticks, size_t n, unsigned long long tsc_khz,
		   struct latency_stats *st)
{
	unsigned long long *ns, sum = 0;
	unsigned int b = 0;
	size_t i;

	memset(st, 0, sizeof(*st));
	st->ticks = ticks;
	st->tsc_khz = tsc_khz;
	if (!n)
		return 0;
	ns = malloc(n * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		ns[i] = latency__ns(ticks[i], tsc_khz);
		sum += ns[i];
	}
	qsort(ns, n, sizeof(*ns), latency__cmp);
	st->samples = n;
	st->min_ns = ns[0];
	st->max_ns = ns[n - 1];
	st->mean_ns = (sum + n / 2) / n;
	st->p50_ns = latency__percentile(ns, n, 500);
	st->p99_ns = latency__percentile(ns, n, 990);
	st->p999_ns = latency__percentile(ns, n, 999);

	st->nr_buckets = latency__bucket(st->max_ns) + 1;
	for (b = 0; b < st->nr_buckets; b++)
		st->hist[b].le_ns = latency__bucket_le(b);
	for (i = 0, b = 0; i < n; i++) {
		while (b < st->nr_buckets - 1 && ns[i] > st->hist[b].le_ns)
			b++;
		st->hist[b].count++;
	}
	free(ns);
	return 0;
}
