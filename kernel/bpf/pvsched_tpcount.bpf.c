// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_pvsched_tpcount: what bpf_pvsched_count counts, counted without
 * pvsched by tp_btf programs on KVM's own tracepoints, on a kernel where no
 * pvsched driver is assigned: the baseline for bpf_pvsched_count's cost.
 * Its maps (see pvsched_bpf_tpcount.h) and counting code are
 * pvsched_count.bpf.c's (pvsched_bpf_count_prog.h), so that only the way
 * the programs are invoked differs. The counted thread is the current one, the vCPU thread on all
 * four tracepoints, by the struct pid that KVM passes to pvsched drivers:
 * vcpu->pid is the thread_pid of the thread that runs KVM_RUN. Tracepoints
 * fire for every VM on the host, not only for those of one VMM.
 *
 *   VMENTER   kvm_entry, in the vendor's vcpu_run; on VMX, not when the
 *             guest state is invalid and KVM emulates instead of entering
 *   VMEXIT    kvm_exit, likewise; on VMX, not when VMLAUNCH/VMRESUME fails
 *   INTR_INJ  kvm_inj_virq, a new interrupt (not a reinjection). KVM has
 *             no tracepoint for NMI injection, so NMIs are not counted, nor
 *             KVM_INTERRUPT's interrupts (no in-kernel irqchip), which KVM
 *             delivers as reinjections
 *   HALT      kvm_vcpu_wakeup that waited: a halt that slept, counted when
 *             it ends; not the other blocks, e.g. waiting for a SIPI
 *
 * reg and unreg stay 0: no task registers.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "pvsched_bpf_tpcount.h"
#include "pvsched_bpf_count_prog.h"

char _license[] SEC("license") = "GPL";

/* bpf_pvsched_count's notify_event, for the current (vCPU) thread. */
static void count_event(__u32 event)
{
	struct pid *pid = bpf_get_current_task_btf()->thread_pid;
	struct pvsched_bpf_counts *c = task_counts(pid);

	if (c)
		count_events(c, event);
}

SEC("tp_btf/kvm_entry")
int BPF_PROG(pvsched_tpcount_entry, struct kvm_vcpu *vcpu,
	     bool force_immediate_exit)
{
	count_event(PVSCHED_VCPU_VMENTER);
	return 0;
}

SEC("tp_btf/kvm_exit")
int BPF_PROG(pvsched_tpcount_exit, struct kvm_vcpu *vcpu, u32 isa)
{
	count_event(PVSCHED_VCPU_VMEXIT);
	return 0;
}

/* pvsched raises INTR_INJ for new injections only, not for reinjections. */
SEC("tp_btf/kvm_inj_virq")
int BPF_PROG(pvsched_tpcount_inj_virq, unsigned int vector, bool soft,
	     bool reinjected)
{
	if (!reinjected)
		count_event(PVSCHED_VCPU_INTR_INJ);
	return 0;
}

/* @waited: the halt slept, where pvsched raises HALT, once per halt. */
SEC("tp_btf/kvm_vcpu_wakeup")
int BPF_PROG(pvsched_tpcount_wakeup, __u64 ns, bool waited, bool valid)
{
	if (waited)
		count_event(PVSCHED_VCPU_HALT);
	return 0;
}
