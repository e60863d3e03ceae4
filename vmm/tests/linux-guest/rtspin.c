// SPDX-License-Identifier: GPL-2.0
/*
 * rtspin CPU PRIO SECONDS: spin on CPU as a SCHED_FIFO task of priority
 * PRIO (as "taskset -c CPU chrt -f PRIO" on a busy loop would: Debian's
 * static busybox has no chrt) for SECONDS of wall time, then exit 0. One
 * line on stderr and status 1 if the CPU or the priority is refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct sched_param sp = { 0 };
	volatile unsigned long spins = 0;
	cpu_set_t set;
	double end;
	int cpu;

	if (argc != 4) {
		fprintf(stderr, "usage: rtspin CPU PRIO SECONDS\n");
		return 1;
	}
	cpu = atoi(argv[1]);
	sp.sched_priority = atoi(argv[2]);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "rtspin: CPU %d: %s\n", cpu, strerror(errno));
		return 1;
	}
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr, "rtspin: SCHED_FIFO %d: %s\n",
			sp.sched_priority, strerror(errno));
		return 1;
	}
	end = now() + atof(argv[3]);
	while (now() < end)
		spins++;
	printf("rtspin: cpu %d, FIFO %d, %lu spins\n", cpu, sp.sched_priority,
	       spins);
	return 0;
}
