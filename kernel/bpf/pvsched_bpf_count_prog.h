/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The maps and the counting code of the BPF counting programs,
 * bpf_pvsched_count (a pvsched driver) and bpf_pvsched_tpcount (KVM's
 * tracepoints), so that the two differ only in how they are invoked.
 * Included once, after vmlinux.h and pvsched_bpf_count.h, by each of
 * their .bpf.c files: each object gets its own maps. A thread's counts
 * are a slot of an array indexed by thread id, so that the common case
 * costs an inlined array access and no hash lookup, else a hash map entry.
 */
#ifndef PVSCHED_BPF_COUNT_PROG_H
#define PVSCHED_BPF_COUNT_PROG_H

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

/* Count the events of @event (PVSCHED_VCPU_*) for the task. */
static __always_inline void count_events(struct pvsched_bpf_counts *c,
					 __u32 event)
{
	if (event & PVSCHED_VCPU_VMENTER)
		__sync_fetch_and_add(&c->vmenter, 1);
	if (event & PVSCHED_VCPU_VMEXIT)
		__sync_fetch_and_add(&c->vmexit, 1);
	if (event & PVSCHED_VCPU_HALT)
		__sync_fetch_and_add(&c->halt, 1);
	if (event & PVSCHED_VCPU_INTR_INJ)
		__sync_fetch_and_add(&c->intr_inj, 1);
}

#endif /* PVSCHED_BPF_COUNT_PROG_H */
