/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace view of the bpf_pvsched_count driver's counts map.
 *
 * The loader (pvsched-bpf) pins two maps:
 *  - PVSCHED_BPF_COUNT_SLOTS_MAP, a BPF_MAP_TYPE_ARRAY of
 *    PVSCHED_BPF_COUNT_SLOTS struct pvsched_bpf_slot. The first event of
 *    thread id T claims slot T % PVSCHED_BPF_COUNT_SLOTS if it is free
 *    (tid 0); a claimed slot keeps its owner until the loader's "reset".
 *    Counting into a slot is an inlined array access, the cheapest a BPF
 *    driver gets on the VM entry/exit path.
 *  - PVSCHED_BPF_COUNT_MAP, a BPF_MAP_TYPE_HASH keyed by thread id (__u32)
 *    with struct pvsched_bpf_counts values, for the threads whose slot
 *    another thread owns.
 * So the counts of thread T are in slot T % PVSCHED_BPF_COUNT_SLOTS if its
 * tid is T, else in the hash map under T, if anywhere; never in both.
 * Counts stay after unregister; the loader's "reset" clears both maps.
 */
#ifndef PVSCHED_BPF_COUNT_H
#define PVSCHED_BPF_COUNT_H

#define PVSCHED_BPF_COUNT_NAME	"bpf_pvsched_count"
#define PVSCHED_BPF_PIN_DIR	"/sys/fs/bpf/pvsched"
#define PVSCHED_BPF_COUNT_MAP	PVSCHED_BPF_PIN_DIR "/" PVSCHED_BPF_COUNT_NAME "/counts"
#define PVSCHED_BPF_COUNT_SLOTS_MAP	PVSCHED_BPF_PIN_DIR "/" PVSCHED_BPF_COUNT_NAME "/slots"
#define PVSCHED_BPF_COUNT_MAX_TASKS	1024	/* hash map entries */
#define PVSCHED_BPF_COUNT_SLOTS		1024	/* a power of two */

struct pvsched_bpf_counts {
	__u64 reg;
	__u64 unreg;
	__u64 vmenter;
	__u64 vmexit;
	__u64 halt;
	__u64 intr_inj;
};

struct pvsched_bpf_slot {
	__u32 tid;		/* owner, 0 while free */
	__u32 pad;
	struct pvsched_bpf_counts counts;
};

static inline __u32 pvsched_bpf_count_slot(__u32 tid)
{
	return tid & (PVSCHED_BPF_COUNT_SLOTS - 1);
}

#endif /* PVSCHED_BPF_COUNT_H */
