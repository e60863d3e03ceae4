// SPDX-License-Identifier: GPL-2.0
/*
 * rtspin CPU PRIO SECONDS [SLEEP_MS]: spin on CPU as a SCHED_FIFO task of
 * priority PRIO (as "taskset -c CPU chrt -f PRIO" on a busy loop would:
 * Debian's static busybox has no chrt) for SECONDS of wall time, then exit
 * 0. With SLEEP_MS, spin 1 ms at a time and sleep SLEEP_MS in between, as
 * a periodic real-time task would. Its last line on stdout:
 *
 *   rtspin: cpu CPU, FIFO PRIO, N spins
 *   rtspin: cpu CPU, FIFO PRIO, N spins, M sleeps	(with SLEEP_MS)
 *
 * One line on stderr and status 1 if the CPU or the priority is refused.
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
	unsigned long sleeps = 0;
	cpu_set_t set;
	struct timespec nap = { 0 };
	double end, burst;
	long sleep_ms = 0;
	int cpu;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: rtspin CPU PRIO SECONDS [SLEEP_MS]\n");
		return 1;
	}
	if (argc == 5)
		sleep_ms = atol(argv[4]);
	nap.tv_sec = sleep_ms / 1000;
	nap.tv_nsec = sleep_ms % 1000 * 1000000;
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
	while (now() < end) {
		if (!sleep_ms) {
			spins++;
			continue;
		}
		burst = now() + 0.001;
		while (now() < burst)
			spins++;
		nanosleep(&nap, NULL);
		sleeps++;
	}
	if (sleep_ms)
		printf("rtspin: cpu %d, FIFO %d, %lu spins, %lu sleeps\n", cpu,
		       sp.sched_priority, spins, sleeps);
	else
		printf("rtspin: cpu %d, FIFO %d, %lu spins\n", cpu,
		       sp.sched_priority, spins);
	return 0;
}
