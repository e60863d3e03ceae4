// SPDX-License-Identifier: GPL-2.0
/*
 * hog - a busy loop: the host-side load of minivmm's latency benchmark,
 * a thread that competes with a vCPU thread for its CPU.
 *
 *   hog [SECONDS]
 *
 * Spins, counting iterations, until SIGTERM or SIGINT, or until SECONDS
 * (a decimal above 0, at most 86400) have elapsed; then prints one line
 *
 *   hog: pid=P iterations=N seconds=S.SSS rate=R
 *
 * (S on CLOCK_MONOTONIC from the first iteration to the last, R the
 * iterations per second, rounded) and exits 0. A bad argument: the usage
 * on stderr, exit 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "seconds.h"

#define HOG_MAX_SECONDS	86400.0

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: hog [SECONDS]\n"
		"Spin until SIGTERM or SIGINT, or SECONDS (0 < SECONDS <= %g), then print\n"
		"  hog: pid=P iterations=N seconds=S.SSS rate=R\n",
		HOG_MAX_SECONDS);
}

/* No SA_RESTART; SIGALRM ends the run like SIGTERM. */
static void signals_init(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
}

static int arm_timer(double seconds)
{
	struct itimerval it;

	memset(&it, 0, sizeof(it));
	it.it_value.tv_sec = (time_t)seconds;
	it.it_value.tv_usec = (suseconds_t)((seconds - it.it_value.tv_sec) *
					    1e6);
	if (!it.it_value.tv_sec && !it.it_value.tv_usec)
		it.it_value.tv_usec = 1;
	return setitimer(ITIMER_REAL, &it, NULL);
}

int main(int argc, char *argv[])
{
	unsigned long long iterations = 0;
	double seconds = 0, t0, t;

	if (argc == 2 && (!strcmp(argv[1], "-h") ||
			  !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc > 2) {
		fprintf(stderr, "hog: one argument at most\n");
		usage(stderr);
		return 1;
	}
	if (argc == 2 && parse_seconds(argv[1], HOG_MAX_SECONDS, &seconds)) {
		fprintf(stderr, "hog: '%s' is not a number of seconds in (0, %g]\n",
			argv[1], HOG_MAX_SECONDS);
		usage(stderr);
		return 1;
	}
	signals_init();
	if (seconds && arm_timer(seconds)) {
		perror("hog: setitimer");
		return 1;
	}
	t0 = now();
	while (!stop)
		iterations++;
	t = now() - t0;
	printf("hog: pid=%d iterations=%llu seconds=%.3f rate=%.0f\n",
	       (int)getpid(), iterations, t, t > 0 ? iterations / t : 0);
	return 0;
}
