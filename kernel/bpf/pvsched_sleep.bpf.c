// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_pvsched_sleep: a BPF pvsched driver for the tests of which callbacks
 * may sleep. pvsched-bpf loads its register and unregister programs as
 * sleepable ("load sleep"), which the kernel accepts: they run in process
 * context, and the sleepable trampoline's might_fault() checks that on a
 * debug kernel. "load sleep-notify" makes notify_event sleepable instead,
 * which the kernel must refuse: it runs in atomic context.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

SEC("struct_ops/pvsched_sleep_reg")
int BPF_PROG(pvsched_sleep_reg, struct pid *pid)
{
	return 0;
}

SEC("struct_ops/pvsched_sleep_unreg")
void BPF_PROG(pvsched_sleep_unreg, struct pid *pid)
{
}

SEC("struct_ops/pvsched_sleep_notify_event")
void BPF_PROG(pvsched_sleep_notify_event, const struct pvsched_vcpu_snapshot *snap,
	      struct pid *pid,
	      __u32 event)
{
}

SEC(".struct_ops")
struct pvsched_vcpu_ops pvsched_sleep_ops = {
	.pvsched_vcpu_register		= (void *)pvsched_sleep_reg,
	.pvsched_vcpu_unregister	= (void *)pvsched_sleep_unreg,
	.pvsched_vcpu_notify_event	= (void *)pvsched_sleep_notify_event,
	.events				= PVSCHED_VCPU_VMENTER |
					  PVSCHED_VCPU_VMEXIT,
	.name				= "bpf_pvsched_sleep",
};
