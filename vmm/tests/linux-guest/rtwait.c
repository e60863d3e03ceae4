// SPDX-License-Identifier: GPL-2.0
/*
 * rtwait FROM TO PRIO MS: block on CPU FROM as a SCHED_FIFO task of
 * priority PRIO (a nanosleep of MS ms); a child process moves it to CPU TO
 * (sched_setaffinity() of the parent) halfway through that sleep, so that
 * it wakes on TO and never runs on FROM again. Then exit 0. Its last line
 * on stdout:
 *
 *   rtwait: blocked on cpu FROM, woke on cpu TO, FIFO PRIO
 *
 * with the CPUs it saw (sched_getcpu()). One line on stderr and status 1
 * if a CPU or the priority is refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int pin(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(pid, sizeof(set), &set)) {
		fprintf(stderr, "rtwait: CPU %d: %s\n", cpu, strerror(errno));
		return -1;
	}
	return 0;
}

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int main(int argc, char **argv)
{
	struct sched_param sp = { 0 };
	int from, to, before, after, status;
	pid_t parent, child;
	long ms;

	if (argc != 5) {
		fprintf(stderr, "usage: rtwait FROM TO PRIO MS\n");
		return 1;
	}
	from = atoi(argv[1]);
	to = atoi(argv[2]);
	sp.sched_priority = atoi(argv[3]);
	ms = atol(argv[4]);
	parent = getpid();
	if (pin(0, from))
		return 1;
	child = fork();
	if (child < 0) {
		fprintf(stderr, "rtwait: fork: %s\n", strerror(errno));
		return 1;
	}
	if (!child) {
		/* A normal task, on whichever CPU: move the sleeper. */
		if (pin(0, to))
			_exit(1);
		nap_ms(ms / 2);
		_exit(pin(parent, to) ? 1 : 0);
	}
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr, "rtwait: SCHED_FIFO %d: %s\n",
			sp.sched_priority, strerror(errno));
		return 1;
	}
	before = sched_getcpu();
	nap_ms(ms);
	after = sched_getcpu();
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return 1;
	printf("rtwait: blocked on cpu %d, woke on cpu %d, FIFO %d\n", before,
	       after, sp.sched_priority);
	return 0;
}
