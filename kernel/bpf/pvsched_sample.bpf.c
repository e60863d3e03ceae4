// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_pvsched_ops: the RFC's sample BPF pvsched driver. It logs its
 * callbacks to the trace buffer (/sys/kernel/debug/tracing/trace_pipe).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

static __always_inline int vcpu_tid(struct pid *pid)
{
	return pid->numbers[0].nr;
}

SEC("struct_ops/pvsched_vcpu_reg")
int BPF_PROG(pvsched_vcpu_reg, struct pid *pid)
{
	bpf_printk("pvsched_vcpu_reg: tid %d", vcpu_tid(pid));
	return 0;
}

SEC("struct_ops/pvsched_vcpu_unreg")
void BPF_PROG(pvsched_vcpu_unreg, struct pid *pid)
{
	bpf_printk("pvsched_vcpu_unreg: tid %d", vcpu_tid(pid));
}

SEC("struct_ops/pvsched_vcpu_notify_event")
void BPF_PROG(pvsched_vcpu_notify_event, const struct pvsched_vcpu_snapshot *snap,
	      struct pid *pid,
	      __u32 event)
{
	bpf_printk("pvsched_vcpu_notify: tid %d event %u", vcpu_tid(pid), event);
}

SEC(".struct_ops")
struct pvsched_vcpu_ops pvsched_ops = {
	.pvsched_vcpu_register		= (void *)pvsched_vcpu_reg,
	.pvsched_vcpu_unregister	= (void *)pvsched_vcpu_unreg,
	.pvsched_vcpu_notify_event	= (void *)pvsched_vcpu_notify_event,
	.events				= PVSCHED_VCPU_VMEXIT | PVSCHED_VCPU_HALT,
	.name				= "bpf_pvsched_ops",
};
