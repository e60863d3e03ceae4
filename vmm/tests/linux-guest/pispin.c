// SPDX-License-Identifier: GPL-2.0
/*
 * pispin HOLDER_CPU WAITER_CPU PRIO SECONDS: priority inheritance across
 * CPUs. A normal (SCHED_OTHER) thread on HOLDER_CPU takes a
 * PTHREAD_PRIO_INHERIT mutex and spins for SECONDS of wall time holding
 * it; after a tenth of that, the main thread, SCHED_FIFO PRIO on
 * WAITER_CPU, blocks on the mutex, which boosts the holder to PRIO while
 * it runs: rt_mutex_setprio() on a running task, which no context switch
 * follows. Its last line on stdout:
 *
 *   pispin: holder on cpu H, waiter FIFO P on cpu W, waited N ms
 *
 * One line on stderr and status 1 if a CPU, the priority or a pthread
 * call is refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock;
static volatile int held;
static double seconds;
static int holder_cpu;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int pin(int cpu, const char *who)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "pispin: %s: CPU %d: %s\n", who, cpu,
			strerror(errno));
		return -1;
	}
	return 0;
}

static void *holder(void *unused)
{
	volatile unsigned long spins = 0;
	double end;

	(void)unused;
	if (pin(holder_cpu, "holder"))
		exit(1);
	pthread_mutex_lock(&lock);
	held = 1;
	end = now() + seconds;
	while (now() < end)
		spins++;
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(int argc, char **argv)
{
	struct sched_param sp = { 0 };
	pthread_mutexattr_t attr;
	pthread_t t;
	double t0;
	int cpu, err;

	if (argc != 5) {
		fprintf(stderr,
			"usage: pispin HOLDER_CPU WAITER_CPU PRIO SECONDS\n");
		return 1;
	}
	holder_cpu = atoi(argv[1]);
	cpu = atoi(argv[2]);
	sp.sched_priority = atoi(argv[3]);
	seconds = atof(argv[4]);
	pthread_mutexattr_init(&attr);
	err = pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_INHERIT);
	if (!err)
		err = pthread_mutex_init(&lock, &attr);
	if (!err)
		err = pthread_create(&t, NULL, holder, NULL);
	if (err) {
		fprintf(stderr, "pispin: pthread: %s\n", strerror(err));
		return 1;
	}
	if (pin(cpu, "waiter"))
		return 1;
	while (!held)
		usleep(1000);
	usleep(seconds * 1e5);
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr, "pispin: SCHED_FIFO %d: %s\n",
			sp.sched_priority, strerror(errno));
		return 1;
	}
	t0 = now();
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
	printf("pispin: holder on cpu %d, waiter FIFO %d on cpu %d, waited %.0f ms\n",
	       holder_cpu, sp.sched_priority, cpu, (now() - t0) * 1e3);
	pthread_join(t, NULL);
	return 0;
}
