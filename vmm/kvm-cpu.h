/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MINIVMM_KVM_CPU_H
#define MINIVMM_KVM_CPU_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

#include "kvm.h"

#define KVM_CPU_KICK_SIGNAL	SIGUSR1

enum kvm_cpu_state {
	KVM_CPU_RUNNING,
	KVM_CPU_DONE,		/* the guest sent DONE */
	KVM_CPU_GUEST_FAIL,	/* the guest sent FAIL */
	KVM_CPU_ERROR,		/* setup failed or a bad exit */
	KVM_CPU_STOPPED,	/* kicked out by the VMM */
	KVM_CPU_EXITED,		/* a Linux guest ended the run on this vCPU */
};

/*
 * The vCPU threads wait here, set up and their thread ids known, until
 * the main thread opens it: with --vcpu-fifo once it has made them
 * SCHED_FIFO; for a Linux guest once all are set up, so that no AP's
 * setup comes after vCPU 0 sends it INIT and SIPI.
 */
struct kvm_cpu_gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int arrived;		/* threads waiting */
	bool open;
};

/* Exits that reached userspace, by reason. */
struct kvm_cpu_exits {
	unsigned long long io;
	unsigned long long mmio;
	unsigned long long hlt;
	unsigned long long other;
};

struct kvm_cpu {
	struct kvm *kvm;
	unsigned int id;
	int fd;
	struct kvm_run *run;
	pthread_t thread;
	bool started;
	pid_t tid;			/* of the thread that runs KVM_RUN */

	/* Shared with the main thread. */
	const int *stop;		/* the VMM wants all vCPUs out */
	int *nr_running;		/* decremented on thread exit */
	struct kvm_cpu_gate *gate;	/* --vcpu-fifo, Linux; else NULL */

	enum kvm_cpu_state state;
	struct kvm_cpu_exits exits;
	unsigned long long work_writes;	/* MINIVMM_WORK_PORT writes */
	unsigned long long progress;	/* last PROGRESS(n) */
	unsigned long long done;	/* DONE(n) */
	unsigned long long dup_irqs;	/* sum of DUP_IRQS(n) */
	unsigned long long shadow_irqs;	/* sum of SHADOW_IRQS(n) */
	unsigned long long boost_seen;	/* sum of BOOST_SEEN(n) */
	unsigned long long fail_code;	/* FAIL(code) */
	/* CLOCK_MONOTONIC ns: before the first KVM_RUN, when the loop ended. */
	unsigned long long run_start_ns;
	unsigned long long run_end_ns;

	/*
	 * The pvsched area registered for this vCPU (0: none), and a copy of
	 * it read after the run, for the report. A Linux guest's, through
	 * MSR_KVM_PVSCHED, only ever written by the vCPU's thread.
	 */
	__u64 area_gpa;
	struct pvsched_vcpu_area area;

	/*
	 * A Linux guest's requests as the main thread sampled them from its
	 * area every main-loop tick (main thread only): what the guest asked
	 * for, which the area no longer shows once the guest moved on or
	 * unregistered it.
	 */
	struct {
		unsigned long long samples;	/* ticks with an area */
		__u32 flags;			/* guest_flags ORed */
		__u32 prio_max;			/* highest guest_prio */
	} guest_seen;
	/* The guest's, by the vCPU's thread: what KVM took. */
	unsigned int area_registrations;	/* gpa != 0 */
	unsigned int area_unregistrations;	/* gpa == 0 */
	unsigned int area_refusals;		/* --refuse-areas */
};

int kvm_cpu__init(struct kvm_cpu *cpu, struct kvm *kvm, unsigned int id);
int kvm_cpu__set_pvsched_area(struct kvm_cpu *cpu, __u64 gpa);
int kvm_cpu__set_guest_pvsched_msr(struct kvm_cpu *cpu, __u64 val);
int kvm_cpu__get_tsc_khz(struct kvm_cpu *cpu, unsigned long long *khz);
void kvm_cpu__gate_init(struct kvm_cpu_gate *gate);
void kvm_cpu__gate_wait(struct kvm_cpu_gate *gate, unsigned int n);
void kvm_cpu__gate_open(struct kvm_cpu_gate *gate);
void kvm_cpu__gate_destroy(struct kvm_cpu_gate *gate);
int kvm_cpu__set_fifo(struct kvm_cpu *cpu, unsigned int prio);
void kvm_cpu__read_pvsched_area(struct kvm_cpu *cpu);
void kvm_cpu__sample_guest_fields(struct kvm_cpu *cpu);
void kvm_cpu__dump(struct kvm_cpu *cpu);
enum kvm_cpu_state kvm_cpu__handle_exit(struct kvm_cpu *cpu);
void *kvm_cpu__thread(void *arg);
void kvm_cpu__kick(struct kvm_cpu *cpu);
int kvm_cpu__check(const struct kvm_cpu *cpu, unsigned long long iterations,
		   bool work_port);
unsigned long long kvm_cpu__run_ns(const struct kvm_cpu *cpu);
const char *kvm_cpu__state_name(enum kvm_cpu_state state);
void kvm_cpu__exit(struct kvm_cpu *cpu);

#endif /* MINIVMM_KVM_CPU_H */
