/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MINIVMM_REPORT_H
#define MINIVMM_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "kvm-cpu.h"
#include "latency.h"
#include "options.h"
#include "stats.h"

enum switch_status {
	SWITCH_PENDING,		/* the run ended first */
	SWITCH_DONE,
	SWITCH_FAILED,
};

struct switch_result {
	enum switch_status status;
	double at;				/* when it was issued */
	char prev[PVSCHED_OPS_NAME_SIZE];	/* as KVM handed it back */
	int err;				/* -errno if it failed */
};

enum stats_reset {
	STATS_RESET_NOT_NEEDED,
	STATS_RESET_DONE,
	STATS_RESET_FAILED,
};

/* The vCPUs' pvsched areas. */
enum area_status {
	AREA_NOT_USED,		/* --no-pvsched: KVM not even asked */
	AREA_NOT_OFFERED,	/* no KVM_CAP_PVSCHED_AREA (Linux: no
				   MSR_KVM_PVSCHED to filter): run without */
	AREA_REGISTERED,	/* one per vCPU, KVM_SET_PVSCHED_AREA */
	AREA_BY_GUEST_MSR,	/* Linux: the guest registers its own,
				   with MSR_KVM_PVSCHED */
};

/* A Linux guest (--kernel): what it booted, how it ended. */
struct report_linux {
	const char *kernel;
	const char *initrd;		/* NULL: none */
	const char *cmdline;
	unsigned long long mem_mib;
	struct guest_exit exit;		/* reason GUEST_EXIT_NONE: it did not */
	unsigned long long unhandled_io;	/* port accesses nobody took */
	unsigned long long serial_tx;	/* bytes the guest sent to the UART */
	unsigned long long serial_rx;	/* bytes it got */
	/* Reboots that booted it again (--reboots): the rest is the last boot's. */
	unsigned int reboots;
};

struct report {
	const struct options *opts;
	const char *payload;		/* resolved path; NULL for Linux */
	const struct report_linux *linux_guest;	/* NULL for a payload */
	unsigned long long iterations;	/* target per vCPU, 0 with --seconds */
	unsigned long long period_us;	/* timer period, 0: payload without */
	unsigned long long busy_loops;	/* boost loop length, 0: payload without */
	enum irq_wait wait;		/* IRQ_WAIT_UNSET: payload without */
	bool boost_irq;			/* irq payload raises GUEST_BOOST_IRQ */
	enum lat_boost boost;		/* latency payload's --boost */
	unsigned long long tsc_khz;	/* latency: KVM_GET_TSC_KHZ, else 0 */
	double elapsed;			/* seconds the vCPUs ran */
	char initial[PVSCHED_OPS_NAME_SIZE];	/* when the VM was created */
	char final[PVSCHED_OPS_NAME_SIZE];	/* at the end */
	bool final_ok;
	enum stats_reset stats_reset;
	struct switch_result switches[MINIVMM_MAX_SWITCHES];
	enum area_status area;
	const struct kvm_cpu *cpus;
	const struct tid_stats *stats;	/* one per vCPU */
	const struct latency_stats *latency;	/* one per vCPU, or NULL */
	unsigned int nr_cpus;
	bool ok;			/* every vCPU passed its checks */
	int signal;			/* stopped by this signal, or 0 */
};

void report__json_string(FILE *f, const char *s);
void report__text(FILE *f, const struct report *r);
void report__json(FILE *f, const struct report *r);

#endif /* MINIVMM_REPORT_H */
