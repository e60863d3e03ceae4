// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "latency.h"
#include "tap.h"
#include "util.h"

#define GHZ	1000000ULL	/* tsc_khz of a 1 GHz TSC: 1 tick = 1 ns */

static struct latency_stats st;

static void test_ns(void)
{
	ok(latency__ns(2000, 2 * GHZ) == 1000, "2000 ticks at 2 GHz: 1000 ns");
	ok(latency__ns(3, 2 * GHZ) == 1, "1.5 ns rounded down");
	ok(latency__ns(0xffffffff, GHZ) == 0xffffffffULL,
	   "a saturated sample at 1 GHz: 4294967295 ns");
	ok(latency__ns(0xffffffff, 3 * GHZ) == 1431655765ULL,
	   "a saturated sample at 3 GHz: no overflow");
	ok(latency__ns(0xffffffff, 1) == 4294967295000000ULL,
	   "a saturated sample of a 1 kHz TSC: no overflow");
	ok(latency__ns(1000, 0) == 0, "unknown TSC frequency: 0");
}

static void test_buckets(void)
{
	unsigned int i;
	bool rising = true;

	ok(latency__bucket_le(0) == 1000 && latency__bucket_le(1) == 1122 &&
	   latency__bucket_le(10) == 3162 && latency__bucket_le(19) == 8913,
	   "the first decade: 1000, 1122, .. 3162, .. 8913 ns");
	ok(latency__bucket_le(20) == 10000 && latency__bucket_le(40) == 100000 &&
	   latency__bucket_le(60) == 1000000 && latency__bucket_le(61) == 1122000,
	   "a decade up: times 10, exactly");
	ok(latency__bucket_le(LATENCY_MAX_BUCKETS - 1) == 891300000000000000ULL,
	   "the last bound: 8.913e17 ns");
	for (i = 1; i < LATENCY_MAX_BUCKETS; i++)
		rising = rising && latency__bucket_le(i) > latency__bucket_le(i - 1);
	ok(rising, "%d strictly rising bounds", LATENCY_MAX_BUCKETS);
	ok(latency__bucket(0) == 0 && latency__bucket(999) == 0 &&
	   latency__bucket(1000) == 0, "0 to 1000 ns: bucket 0 (le 1 us)");
	ok(latency__bucket(1001) == 1 && latency__bucket(1122) == 1 &&
	   latency__bucket(1123) == 2, "edges: a bound is inclusive");
	ok(latency__bucket(8913) == 19 && latency__bucket(8914) == 20 &&
	   latency__bucket(10000) == 20 && latency__bucket(10001) == 21,
	   "edges across a decade");
	ok(latency__bucket(4294967295ULL) == 133 &&
	   latency__bucket_le(133) == 4467000000ULL,
	   "4294967295 ns: bucket 133, le 4467000000");
	ok(latency__bucket(~0ULL) == LATENCY_MAX_BUCKETS - 1,
	   "beyond the last bound: the last bucket");
}

static void test_percentile(void)
{
	static unsigned long long v[1000];
	unsigned long long one = 42, ties[] = { 5, 5, 5, 7 };
	unsigned int i;

	for (i = 0; i < 1000; i++)
		v[i] = i + 1;
	ok(latency__percentile(&one, 1, 500) == 42 &&
	   latency__percentile(&one, 1, 990) == 42 &&
	   latency__percentile(&one, 1, 999) == 42 &&
	   latency__percentile(&one, 1, 0) == 42,
	   "1 sample: every percentile is it");
	ok(latency__percentile(v, 10, 500) == 5 &&
	   latency__percentile(v, 10, 990) == 10 &&
	   latency__percentile(v, 10, 999) == 10,
	   "1..10: p50 5, p99 10, p99.9 10 (nearest rank, rounded up)");
	ok(latency__percentile(v, 100, 500) == 50 &&
	   latency__percentile(v, 100, 990) == 99 &&
	   latency__percentile(v, 100, 999) == 100,
	   "1..100: p50 50, p99 99, p99.9 100");
	ok(latency__percentile(v, 1000, 500) == 500 &&
	   latency__percentile(v, 1000, 990) == 990 &&
	   latency__percentile(v, 1000, 999) == 999 &&
	   latency__percentile(v, 1000, 1000) == 1000,
	   "1..1000: p50 500, p99 990, p99.9 999, p100 1000");
	ok(latency__percentile(v, 1001, 999) == 1000,
	   "1..1001: p99.9 is rank ceil(999.999) = 1000");
	ok(latency__percentile(ties, 4, 500) == 5 &&
	   latency__percentile(ties, 4, 750) == 5 &&
	   latency__percentile(ties, 4, 751) == 7 &&
	   latency__percentile(ties, 4, 990) == 7,
	   "ties: 5 5 5 7");
}

static unsigned long long hist_total(const struct latency_stats *s)
{
	unsigned long long n = 0;
	unsigned int i;

	for (i = 0; i < s->nr_buckets; i++)
		n += s->hist[i].count;
	return n;
}

static int cmp_u64(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

static void test_latency_stats(void)
{
	static __u32 many[65536];
	static unsigned long long sorted[65536];
	__u32 one = 2000, sat = 0xffffffff, two[] = { 1, 2 };
	__u32 mixed[] = { 3000, 1000, 2000, 2000, 1122, 1123 };
	unsigned long long sum = 0;
	unsigned int i;
	bool zero = true;

	ok(!latency__stats(NULL, 0, GHZ, &st) && st.samples == 0 &&
	   st.nr_buckets == 0 && st.max_ns == 0 && st.mean_ns == 0,
	   "no samples: all 0, no buckets");
	ok(!latency__stats(&one, 1, 2 * GHZ, &st) && st.samples == 1 &&
	   st.min_ns == 1000 && st.mean_ns == 1000 && st.p50_ns == 1000 &&
	   st.p99_ns == 1000 && st.p999_ns == 1000 && st.max_ns == 1000 &&
	   st.nr_buckets == 1 && st.hist[0].le_ns == 1000 &&
	   st.hist[0].count == 1,
	   "1 sample of 2000 ticks at 2 GHz: 1000 ns everywhere, [[1000,1]]");
	ok(!latency__stats(two, 2, GHZ, &st) && st.mean_ns == 2 &&
	   st.min_ns == 1 && st.max_ns == 2 && st.p50_ns == 1,
	   "mean of 1 and 2 ns: 1.5 rounded to 2; p50 1");
	ok(!latency__stats(&sat, 1, GHZ, &st) && st.max_ns == 0xffffffffULL &&
	   st.nr_buckets == 134 && st.hist[133].le_ns == 4467000000ULL &&
	   st.hist[133].count == 1 && hist_total(&st) == 1,
	   "a saturated sample: 134 buckets from 1 us, the last one holds it");
	for (i = 0; i < 133; i++)
		zero = zero && !st.hist[i].count;
	ok(zero, "empty buckets below it are listed with 0");

	ok(!latency__stats(mixed, ARRAY_SIZE(mixed), GHZ, &st) &&
	   st.samples == 6 && st.min_ns == 1000 && st.max_ns == 3000 &&
	   st.mean_ns == 1708 && st.p50_ns == 1123 && st.p99_ns == 3000 &&
	   st.nr_buckets == 11 && st.hist[10].le_ns == 3162,
	   "unsorted with ties: min 1000, mean 1707.5 -> 1708, p50 1123 "
	   "(rank 3), max 3000, 11 buckets");
	ok(st.hist[0].count == 1 && st.hist[1].count == 1 &&
	   st.hist[2].count == 1 && st.hist[6].count == 0 &&
	   st.hist[7].count == 2 && st.hist[10].count == 1 &&
	   hist_total(&st) == 6,
	   "buckets: 1000 in le 1000, 1122 in le 1122, 1123 in le 1259, "
	   "2000 x2 in le 2239, 3000 in le 3162");

	srandom(1);
	for (i = 0; i < ARRAY_SIZE(many); i++) {
		many[i] = random() % 5000000;
		sorted[i] = many[i] / 2;	/* 2 GHz */
		sum += sorted[i];
	}
	qsort(sorted, ARRAY_SIZE(sorted), sizeof(sorted[0]), cmp_u64);
	ok(!latency__stats(many, ARRAY_SIZE(many), 2 * GHZ, &st) &&
	   st.samples == 65536 && st.min_ns == sorted[0] &&
	   st.max_ns == sorted[65535] && st.p50_ns == sorted[32767] &&
	   st.p99_ns == sorted[64880] && st.p999_ns == sorted[65470] &&
	   st.mean_ns == (sum + 32768) / 65536,
	   "65536 random samples: the same as a plain sort (ranks 32768, "
	   "64881, 65471)");
	ok(hist_total(&st) == 65536 &&
	   st.hist[st.nr_buckets - 1].count > 0 &&
	   st.hist[st.nr_buckets - 1].le_ns >= st.max_ns &&
	   (st.nr_buckets == 1 ||
	    st.hist[st.nr_buckets - 2].le_ns < st.max_ns),
	   "every sample in one bucket; the last holds max");
}

void test_latency(void)
{
	diag("latency");
	test_ns();
	test_buckets();
	test_percentile();
	test_latency_stats();
}
