// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_pvsched_count: a BPF pvsched driver counting its callbacks per vCPU
 * task in maps that userspace reads (see pvsched_bpf_count.h): a slot of
 * an array indexed by thread id, so that the common case costs an inlined
 * array access and no hash lookup, else a hash map entry.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "pvsched_bpf_count.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PVSCHED_BPF_COUNT_MAX_TASKS);
	__type(key, __u32);
	__type(value, struct pvsched_bpf_counts);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PVSCHED_BPF_COUNT_SLOTS);
	__type(key, __u32);
	__type(value, struct pvsched_bpf_slot);
} slots SEC(".maps");

/* The slow path, out of line so that the fast one stays short. */
static __noinline struct pvsched_bpf_counts *hash_counts(__u32 tid)
{
	struct pvsched_bpf_counts zero = {}, *c;

	c = bpf_map_lookup_elem(&counts, &tid);
	if (c)
		return c;
	/* Fails only when the map is full: the task is then not counted. */
	bpf_map_update_elem(&counts, &tid, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&counts, &tid);
}

static struct pvsched_bpf_counts *task_counts(struct pid *pid)
{
	__u32 tid = pid->numbers[0].nr;
	__u32 idx = pvsched_bpf_count_slot(tid);
	struct pvsched_bpf_slot *s;
	__u32 owner;

	/* A claimed slot keeps its owner, so counts never move. */
	s = bpf_map_lookup_elem(&slots, &idx);
	if (s) {
		owner = s->tid;
		if (!owner)
			owner = __sync_val_compare_and_swap(&s->tid, 0, tid) ?: tid;
		if (owner == tid)
			return &s->counts;
	}
	return hash_counts(tid);
}

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
void BPF_PROG(pvsched_count_notify_event, struct pvsched_vcpu_area *area,
	      struct pid *pid,
	      __u32 event)
{
	struct pvsched_bpf_counts *c = task_counts(pid);

	if (!c)
		return;
	if (event & PVSCHED_VCPU_VMENTER)
		__sync_fetch_and_add(&c->vmenter, 1);
	if (event & PVSCHED_VCPU_VMEXIT)
		__sync_fetch_and_add(&c->vmexit, 1);
	if (event & PVSCHED_VCPU_HALT)
		__sync_fetch_and_add(&c->halt, 1);
	if (event & PVSCHED_VCPU_INTR_INJ)
		__sync_fetch_and_add(&c->intr_inj, 1);
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
