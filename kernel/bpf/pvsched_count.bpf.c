// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_pvsched_count: a BPF pvsched driver counting its callbacks per vCPU
 * task in maps that userspace reads (see pvsched_bpf_count.h and, for
 * the maps and the counting code, pvsched_bpf_count_prog.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "pvsched_bpf_count.h"
#include "pvsched_bpf_count_prog.h"

char _license[] SEC("license") = "GPL";

SEC("struct_ops/pvsched_count_reg")
int BPF_PROG(pvsched_count_reg, struct pid *pid)
{
	struct pvsched_bpf_counts *c = task_counts(pid);

	if (c)
		__sync_fetch_and_add(&c->reg, 1);
	return 0;
}

SEC("struct_ops/pvsched_count_unreg")
void BPF_PROG(pvsched_count_unreg, struct pid *pid)
{
	struct pvsched_bpf_counts *c = task_counts(pid);

	if (c)
		__sync_fetch_and_add(&c->unreg, 1);
}

SEC("struct_ops/pvsched_count_notify_event")
void BPF_PROG(pvsched_count_notify_event, const struct pvsched_vcpu_snapshot *snap,
	      struct pid *pid,
	      __u32 event)
{
	struct pvsched_bpf_counts *c = task_counts(pid);

	if (c)
		count_events(c, event);
}

SEC(".struct_ops")
struct pvsched_vcpu_ops pvsched_count_ops = {
	.pvsched_vcpu_register		= (void *)pvsched_count_reg,
	.pvsched_vcpu_unregister	= (void *)pvsched_count_unreg,
	.pvsched_vcpu_notify_event	= (void *)pvsched_count_notify_event,
	.events				= PVSCHED_VCPU_VMENTER |
					  PVSCHED_VCPU_VMEXIT |
					  PVSCHED_VCPU_HALT |
					  PVSCHED_VCPU_INTR_INJ,
	.name				= PVSCHED_BPF_COUNT_NAME,
};
