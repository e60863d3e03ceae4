// SPDX-License-Identifier: GPL-2.0
/*
 * Negative controls for the tests: two variants of bpf_pvsched_boost that
 * the verifier must refuse, each in a struct_ops map of its own, which
 * pvsched-bpf loads one at a time ("load boost-unchecked", "load
 * boost-write"). They show that notify_event's snapshot of the vCPU's
 * area is typed, may be NULL (its CFI stub marks it __nullable) and is
 * read-only to BPF:
 *  - bpf_pvsched_unchecked reads snap->guest_flags without testing the
 *    snapshot for NULL: "invalid mem access 'trusted_ptr_or_null_'";
 *  - bpf_pvsched_badwrite tests it, then writes snap->guest_flags, casting
 *    its const away: "pvsched: no write access to kernel objects".
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "pvsched_boost_policy.h"

char _license[] SEC("license") = "GPL";

/* bpf_pvsched_boost's notify_event without "if (!snap) return;". */
SEC("struct_ops/pvsched_unchecked_notify_event")
void BPF_PROG(pvsched_unchecked_notify_event, const struct pvsched_vcpu_snapshot *snap,
	      struct pid *pid, __u32 event)
{
	if (snap->guest_flags & PVSCHED_GUEST_BOOST)
		bpf_pvsched_vcpu_boost(pid);
	else
		bpf_pvsched_vcpu_unboost(pid);
}

/* A driver that would take the guest's request as handled. */
SEC("struct_ops/pvsched_badwrite_notify_event")
void BPF_PROG(pvsched_badwrite_notify_event, const struct pvsched_vcpu_snapshot *snap,
	      struct pid *pid, __u32 event)
{
	if (!snap)
		return;
	if (snap->guest_flags & PVSCHED_GUEST_BOOST) {
		((struct pvsched_vcpu_snapshot *)snap)->guest_flags = 0;
		bpf_pvsched_vcpu_boost(pid);
	}
}

SEC(".struct_ops")
struct pvsched_vcpu_ops pvsched_unchecked_ops = {
	.pvsched_vcpu_notify_event	= (void *)pvsched_unchecked_notify_event,
	.events				= PVSCHED_VCPU_VMEXIT |
					  PVSCHED_VCPU_HALT |
					  PVSCHED_VCPU_INTR_INJ,
	.flags				= PVSCHED_OPS_BOOST,
	.name				= "bpf_pvsched_unchecked",
};

SEC(".struct_ops")
struct pvsched_vcpu_ops pvsched_badwrite_ops = {
	.pvsched_vcpu_notify_event	= (void *)pvsched_badwrite_notify_event,
	.events				= PVSCHED_VCPU_VMEXIT |
					  PVSCHED_VCPU_HALT |
					  PVSCHED_VCPU_INTR_INJ,
	.flags				= PVSCHED_OPS_BOOST,
	.name				= "bpf_pvsched_badwrite",
};
