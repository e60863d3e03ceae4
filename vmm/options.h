/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MINIVMM_OPTIONS_H
#define MINIVMM_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "kvm-abi.h"

#define MINIVMM_VERSION		"0.1"
#define MINIVMM_MAX_VCPUS	64
#define MINIVMM_MAX_SWITCHES	16
#define MINIVMM_MAX_SECONDS	86400.0
#define MINIVMM_MAX_REBOOTS	1000

/*
 * The timer payload's LAPIC timer: KVM's APIC bus runs at 1 GHz and the
 * payload divides by 1, so a period of N us is an initial count of
 * N * 1000, which must fit in the 32-bit TMICT register.
 */
#define MINIVMM_TIMER_COUNT_PER_US	1000ULL
#define MINIVMM_DEFAULT_PERIOD_US	1000ULL
#define MINIVMM_MAX_PERIOD_US		(0xffffffffULL / MINIVMM_TIMER_COUNT_PER_US)

/* The latency payload: its default period, its samples per vCPU. */
#define MINIVMM_LAT_PERIOD_US		500ULL
#define MINIVMM_LAT_MAX_SAMPLES		65536ULL

/* --vcpu-fifo: a SCHED_FIFO priority. */
#define MINIVMM_MAX_FIFO_PRIO		99

/* The boost payload's busy loop, run boosted once per iteration. */
#define MINIVMM_DEFAULT_BUSY_LOOPS	10000ULL
#define MINIVMM_MAX_BUSY_LOOPS		1000000000ULL

/* The toggle payload's --touch: MiB of guest memory to fault in. */
#define MINIVMM_MAX_TOUCH_MIB		1024ULL

/* --wait: how the irq payload waits for a tick. */
enum irq_wait {
	IRQ_WAIT_UNSET,			/* not given: halt, for irq */
	IRQ_WAIT_HALT,			/* "sti; hlt" */
	IRQ_WAIT_SPIN,			/* spin with interrupts on */
};

/* --boost: when the latency payload raises PVSCHED_GUEST_BOOST. */
enum lat_boost {
	LAT_BOOST_NONE,			/* never */
	LAT_BOOST_WAIT,			/* around each wait */
	LAT_BOOST_HOLD,			/* for the whole run */
};

/* Exit statuses (documented in --help and README.md). */
#define EXIT_OK			0
#define EXIT_USAGE		1	/* bad command line */
#define EXIT_NO_PVSCHED		2	/* the kernel has no pvsched support */
#define EXIT_FAILED		3	/* any other failure */
#define EXIT_SIGNAL_BASE	128	/* + the signal that stopped us */

struct pvsched_switch {
	double at;			/* seconds after the vCPUs started */
	char name[PVSCHED_OPS_NAME_SIZE];	/* "" unassigns */
};

struct options {
	const char *kernel;		/* --kernel: boot this bzImage */
	const char *initrd;		/* --initrd, NULL: none */
	const char *append;		/* --append, NULL: not given */
	unsigned long long mem_mib;	/* --mem, 0: not given */
	unsigned int reboots;		/* --reboots: guest reboots to restart */
	bool reboots_set;		/* --reboots given, maybe 0 */
	bool payload_set;		/* --payload given */
	bool no_pvsched;		/* --no-pvsched: plain KVM */
	bool no_area;			/* --no-area: no shared areas */
	bool refuse_areas;		/* --refuse-areas: #GP for them */
	bool pvsched_set;		/* --pvsched given, maybe empty */
	char pvsched[PVSCHED_OPS_NAME_SIZE];
	unsigned int nr_vcpus;
	const char *payload;		/* a name, or a path if it has a '/' */
	unsigned long long iterations;	/* 0: not given */
	double seconds;			/* 0: not given */
	unsigned long long period_us;	/* --period-us, 0: not given */
	unsigned long long busy_loops;	/* --busy-loops, 0: not given */
	enum irq_wait wait;		/* --wait */
	bool boost_irq;			/* --boost-irq */
	enum lat_boost boost;		/* --boost */
	unsigned int vcpu_fifo;		/* --vcpu-fifo, 0: not given */
	bool latency_samples;		/* --latency-samples */
	unsigned long long touch_mib;	/* --touch, 0: not given */
	struct pvsched_switch switches[MINIVMM_MAX_SWITCHES];
	unsigned int nr_switches;	/* sorted by time */
	bool list_drivers;
	bool json;
};

enum options_action {
	OPTIONS_RUN,
	OPTIONS_HELP,
	OPTIONS_VERSION,
	OPTIONS_ERROR,
};

enum options_action options__parse(struct options *opts, int argc,
				   char *argv[], FILE *err);
void options__usage(FILE *f);

int options__parse_count(const char *s, unsigned long long max,
			 unsigned long long *out);
int options__parse_reboots(const char *s, unsigned int *out);
int options__parse_seconds(const char *s, double *out);
int options__parse_name(const char *s, char name[PVSCHED_OPS_NAME_SIZE]);
int options__parse_switch(const char *s, struct pvsched_switch *sw);
int options__parse_wait(const char *s, enum irq_wait *out);
const char *options__wait_name(enum irq_wait wait);
int options__parse_boost(const char *s, enum lat_boost *out);
const char *options__boost_name(enum lat_boost boost);

#endif /* MINIVMM_OPTIONS_H */
