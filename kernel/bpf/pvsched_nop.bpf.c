// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_pvsched_nop: a BPF pvsched driver that subscribes to every event and
 * does nothing, like the built-in pvsched_nop: what a BPF driver costs
 * before it does any work (the struct_ops trampoline and its entry and
 * exit), for `make bench`.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

SEC("struct_ops/pvsched_nop_reg")
int BPF_PROG(pvsched_nop_reg, struct pid *pid)
{
	return 0;
}

SEC("struct_ops/pvsched_nop_unreg")
void BPF_PROG(pvsched_nop_unreg, struct pid *pid)
{
}

SEC("struct_ops/pvsched_nop_notify_event")
void BPF_PROG(pvsched_nop_notify_event, const struct pvsched_vcpu_snapshot *snap,
	      struct pid *pid,
	      __u32 event)
{
}

SEC(".struct_ops")
struct pvsched_vcpu_ops pvsched_nop_ops = {
	.pvsched_vcpu_register		= (void *)pvsched_nop_reg,
	.pvsched_vcpu_unregister	= (void *)pvsched_nop_unreg,
	.pvsched_vcpu_notify_event	= (void *)pvsched_nop_notify_event,
	.events				= PVSCHED_VCPU_VMENTER |
					  PVSCHED_VCPU_VMEXIT |
					  PVSCHED_VCPU_HALT |
					  PVSCHED_VCPU_INTR_INJ,
	.name				= "bpf_pvsched_nop",
};
