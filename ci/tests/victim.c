// SPDX-License-Identifier: GPL-2.0
/*
 * victim - a nice-0 busy loop that measures what the tasks beside it leave
 * it: the adversary suite's probe (adversary.sh).
 *
 *   victim SECONDS
 *
 * Spins for SECONDS of CLOCK_MONOTONIC (a decimal above 0, at most 3600),
 * reading the clock in a tight loop: a gap between two reads is time the
 * task did not run, a wait. Then prints one line
 *
 *   victim: seconds=S cpu=C share=P max_wait_us=W waits_1ms=N
 *
 * S the wall time of the loop, C the task's CPU time in it (getrusage(),
 * which the kernel derives from the scheduler's runtime: the test kernels
 * have no POSIX CPU clocks), P = 100 * C / S (percent, two decimals), W
 * the longest wait and N the waits of 1 ms or more, and exits 0. A bad
 * argument: the usage on stderr, exit 1. Pin it with taskset, and give it
 * the nice value to measure (it changes neither).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include "seconds.h"

#define VICTIM_MAX_SECONDS	3600.0
#define NSEC_PER_SEC		1000000000LL
#define WAIT_COUNTED_NS		1000000LL

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* The process's CPU time, user and system; it has one thread. */
static long long cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * NSEC_PER_SEC +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
}

int main(int argc, char **argv)
{
	long long start, end, prev, t, gap, max_gap = 0, cpu0, cpu;
	unsigned long long waits = 0;
	double seconds;

	if (argc != 2 || parse_seconds(argv[1], VICTIM_MAX_SECONDS, &seconds)) {
		fprintf(stderr,
			"usage: victim SECONDS (a decimal in (0, %g])\n",
			VICTIM_MAX_SECONDS);
		return 1;
	}

	cpu0 = cpu_ns();
	start = prev = now_ns();
	end = start + (long long)(seconds * NSEC_PER_SEC);
	do {
		t = now_ns();
		gap = t - prev;
		if (gap > max_gap)
			max_gap = gap;
		if (gap >= WAIT_COUNTED_NS)
			waits++;
		prev = t;
	} while (t < end);
	cpu = cpu_ns() - cpu0;

	printf("victim: seconds=%.3f cpu=%.3f share=%.2f max_wait_us=%lld waits_1ms=%llu\n",
	       (double)(t - start) / NSEC_PER_SEC, (double)cpu / NSEC_PER_SEC,
	       100.0 * cpu / (t - start), max_gap / 1000, waits);
	return 0;
}
