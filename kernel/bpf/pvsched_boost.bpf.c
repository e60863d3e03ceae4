// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_pvsched_boost: the policy of the pvsched_boost module as a BPF
 * driver. On every VM exit, halt, interrupt injection and wake-up it reads
 * the snapshot KVM takes of the vCPU's shared area, which the verifier
 * types and bounds-checks and which may be NULL, and asks the pvsched core for a boost of the vCPU
 * task while the guest flags a latency-critical section or runs a
 * real-time task, or to take an interrupt (PVSCHED_GUEST_BOOST_IRQ), for
 * its end otherwise (pvsched_boost_policy.h). The core applies it within its bounds, and
 * assigning the driver needs CAP_SYS_NICE (PVSCHED_OPS_BOOST).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "pvsched_boost_policy.h"

char _license[] SEC("license") = "GPL";

SEC("struct_ops/pvsched_boost_notify_event")
void BPF_PROG(pvsched_boost_notify_event, const struct pvsched_vcpu_snapshot *snap,
	      struct pid *pid, __u32 event)
{
	/* No snapshot this time: no news, keep what was asked. */
	if (!snap)
		return;
	boost_apply(snap, pid, event);
}

SEC(".struct_ops")
struct pvsched_vcpu_ops pvsched_boost_ops = {
	.pvsched_vcpu_notify_event	= (void *)pvsched_boost_notify_event,
	.events				= PVSCHED_VCPU_VMEXIT |
					  PVSCHED_VCPU_HALT |
					  PVSCHED_VCPU_INTR_INJ |
					  PVSCHED_VCPU_WAKEUP,
	/* Its VMEXIT depends on the snapshot alone: none that changes nothing. */
	.flags				= PVSCHED_OPS_BOOST |
					  PVSCHED_OPS_EXIT_CHANGES,
	.name				= "bpf_pvsched_boost",
};
