/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The latency payload's samples (TSC ticks past each timer deadline) as
 * statistics in ns: nearest-rank percentiles and a histogram of log-spaced
 * buckets. Pure functions of an array: no KVM, no I/O.
 */
#ifndef MINIVMM_LATENCY_H
#define MINIVMM_LATENCY_H

#include <linux/types.h>
#include <stddef.h>

/*
 * Histogram buckets: LATENCY_PER_DECADE per decade from 1 us, bucket i's
 * upper bound (inclusive) 1000 * 10^(i / 20) ns, rounded; bucket 0 also
 * takes everything below 1 us. LATENCY_MAX_BUCKETS reaches 8.9e17 ns,
 * beyond any 32-bit sample of a TSC of 1 kHz or more.
 */
#define LATENCY_PER_DECADE	20
#define LATENCY_MAX_BUCKETS	(LATENCY_PER_DECADE * 15)

struct latency_bucket {
	unsigned long long le_ns;	/* upper bound, inclusive */
	unsigned long long count;	/* samples in (previous le_ns, le_ns] */
};

struct latency_stats {
	unsigned long long samples;	/* 0: the rest is 0 too */
	unsigned long long min_ns;
	unsigned long long mean_ns;	/* rounded to the nearest ns */
	unsigned long long p50_ns;
	unsigned long long p99_ns;
	unsigned long long p999_ns;
	unsigned long long max_ns;
	/* From 1 us up to the bucket that holds max_ns, empty ones too. */
	unsigned int nr_buckets;
	struct latency_bucket hist[LATENCY_MAX_BUCKETS];
	/* The samples as the guest stored them, for --latency-samples. */
	const __u32 *ticks;
	unsigned long long tsc_khz;
};

unsigned long long latency__ns(__u32 ticks, unsigned long long tsc_khz);
unsigned long long latency__bucket_le(unsigned int i);
unsigned int latency__bucket(unsigned long long ns);
unsigned long long latency__percentile(const unsigned long long *sorted,
				       size_t n, unsigned int permille);
int latency__stats(const __u32 *ticks, size_t n, unsigned long long tsc_khz,
		   struct latency_stats *st);

#endif /* MINIVMM_LATENCY_H */
