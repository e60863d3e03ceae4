// SPDX-License-Identifier: GPL-2.0
/*
 * rtwake MODE [N]: wake-ups across CPUs, for the pending wake-up request
 * of the pvsched guest driver (wake_req in the area of the CPU a
 * real-time task is woken on from another CPU). A waiter blocks reading a
 * pipe; a waker writes a byte to it and waits for the waiter's answer on
 * a second pipe, N times (200 by default):
 *
 *   remote  the waiter SCHED_FIFO 50 on CPU 1, the waker normal on CPU 0:
 *           N wake-ups of a real-time task from another CPU, at most
 *           (none when the byte comes before the waiter blocked)
 *   normal  the waiter normal on CPU 1, the waker normal on CPU 0: remote
 *           wake-ups of normal tasks only
 *   local   the waiter SCHED_FIFO 50 and the waker both on CPU 1: local
 *           wake-ups only
 *   moved   once: a SCHED_FIFO 90 loop holds CPU 1 until the end (10 s
 *           at most); the waiter, SCHED_FIFO 50 on CPU 1 only, is woken
 *           there from CPU 0, cannot run behind the loop, and is moved
 *           to CPU 0 100 ms later, where it runs: a task that left
 *           before it ran. The loop spins until told to stop, not for a
 *           time: a vCPU that its host preempts sees time pass without
 *           running, and a timed loop could end before the move
 *
 * Its last line on stdout:
 *
 *   rtwake: MODE: N round trips, waiter on cpu W (POLICY), waker on cpu K
 *
 * with the CPUs each saw at its last wake-up (sched_getcpu()); for moved,
 * N is 1 and W the CPU the waiter ran on. One line on stderr and status 1
 * if a CPU, a priority or a pipe is refused, or a task sees another CPU
 * than it was given.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int pin(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(pid, sizeof(set), &set)) {
		fprintf(stderr, "rtwake: CPU %d: %s\n", cpu, strerror(errno));
		return -1;
	}
	return 0;
}

static int fifo(int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr, "rtwake: SCHED_FIFO %d: %s\n", prio,
			strerror(errno));
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

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int xread(int fd, char *c)
{
	ssize_t r;

	do
		r = read(fd, c, 1);
	while (r < 0 && errno == EINTR);
	return r == 1 ? 0 : -1;
}

static int xwrite(int fd, char c)
{
	ssize_t r;

	do
		r = write(fd, &c, 1);
	while (r < 0 && errno == EINTR);
	return r == 1 ? 0 : -1;
}

/*
 * The waiter, a child: on @cpu, SCHED_FIFO @prio (0: normal); answers
 * each byte of @in with the CPU it runs on, until 'q'. Its status: 0, or
 * 1 after a line on stderr.
 */
static int waiter(int cpu, int prio, int in, int out)
{
	char c;

	if (pin(0, cpu) || (prio && fifo(prio)))
		return 1;
	for (;;) {
		if (xread(in, &c)) {
			fprintf(stderr, "rtwake: waiter: read: %s\n",
				strerror(errno));
			return 1;
		}
		if (c == 'q')
			return 0;
		if (xwrite(out, (char)sched_getcpu())) {
			fprintf(stderr, "rtwake: waiter: write: %s\n",
				strerror(errno));
			return 1;
		}
	}
}

/*
 * A SCHED_FIFO 90 loop on @cpu, a child, until *@stop (or @ms): says on
 * @ready when it runs there as such.
 */
static int hog(int cpu, long ms, int ready, volatile int *stop)
{
	double end;

	if (pin(0, cpu) || fifo(90) || xwrite(ready, 'h'))
		return 1;
	end = now_ms() + ms;
	while (!*stop && now_ms() < end)
		;
	return 0;
}

static int reap(pid_t pid, const char *what)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "rtwake: the %s failed\n", what);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int wcpu, kcpu, prio, n = 200, i, to_w[2], to_k[2], ready[2];
	volatile int *stop;
	const char *mode;
	pid_t w, h = 0;
	char c = 0;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: rtwake remote|normal|local|moved [N]\n");
		return 1;
	}
	mode = argv[1];
	if (argc == 3)
		n = atoi(argv[2]);
	if (!strcmp(mode, "remote")) {
		wcpu = 1, kcpu = 0, prio = 50;
	} else if (!strcmp(mode, "normal")) {
		wcpu = 1, kcpu = 0, prio = 0;
	} else if (!strcmp(mode, "local")) {
		wcpu = 1, kcpu = 1, prio = 50;
	} else if (!strcmp(mode, "moved")) {
		wcpu = 1, kcpu = 0, prio = 50, n = 1;
	} else {
		fprintf(stderr, "rtwake: unknown mode %s\n", mode);
		return 1;
	}
	stop = mmap(NULL, sizeof(*stop), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (n < 1 || stop == MAP_FAILED || pipe(to_w) || pipe(to_k) ||
	    pipe(ready)) {
		fprintf(stderr, "rtwake: N %d, or pipe: %s\n", n,
			strerror(errno));
		return 1;
	}
	if (pin(0, kcpu))
		return 1;
	w = fork();
	if (w < 0) {
		fprintf(stderr, "rtwake: fork: %s\n", strerror(errno));
		return 1;
	}
	if (!w)
		_exit(waiter(wcpu, prio, to_w[0], to_k[1]));
	/* Let the waiter block in its first read. */
	nap_ms(100);

	if (!strcmp(mode, "moved")) {
		h = fork();
		if (!h)
			_exit(hog(wcpu, 10000, ready[1], stop));
		/* A loop that failed closes the last writer: EOF. */
		close(ready[1]);
		/* The waiter wakes on CPU 1, behind the loop ... */
		if (h < 0 || xread(ready[0], &c) || xwrite(to_w[1], 'w')) {
			fprintf(stderr, "rtwake: fork or write: %s\n",
				strerror(errno));
			*stop = 1;
			kill(w, SIGKILL);
			return 1;
		}
		nap_ms(100);
		/* ... and runs on CPU 0, once moved there. */
		if (pin(w, kcpu) || xread(to_k[0], &c))
			c = -1;
		*stop = 1;
		if (reap(h, "loop"))
			c = -1;
	} else {
		for (i = 0; i < n && c >= 0; i++)
			if (xwrite(to_w[1], 'w') || xread(to_k[0], &c))
				c = -1;
	}
	if (xwrite(to_w[1], 'q') || reap(w, "waiter") || c < 0)
		return 1;
	if (!strcmp(mode, "moved") ? c != kcpu : c != wcpu) {
		fprintf(stderr, "rtwake: the waiter ran on cpu %d\n", c);
		return 1;
	}
	if (sched_getcpu() != kcpu) {
		fprintf(stderr, "rtwake: the waker ran on cpu %d\n",
			sched_getcpu());
		return 1;
	}
	printf("rtwake: %s: %d round trips, waiter on cpu %d (%s), waker on cpu %d\n",
	       mode, n, c, prio ? "FIFO" : "normal", kcpu);
	return 0;
}
