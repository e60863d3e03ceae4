/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace view of the bpf_pvsched_count driver's counts map.
 *
 * The loader (pvsched-bpf) pins the map at PVSCHED_BPF_COUNT_MAP. It is a
 * BPF_MAP_TYPE_HASH keyed by the vCPU task's thread id (__u32) whose values
 * are struct pvsched_bpf_counts. Entries stay after unregister; the loader's
 * "reset" command deletes them all.
 */
#ifndef PVSCHED_BPF_COUNT_H
#define PVSCHED_BPF_COUNT_H

#define PVSCHED_BPF_COUNT_NAME	"bpf_pvsched_count"
#define PVSCHED_BPF_PIN_DIR	"/sys/fs/bpf/pvsched"
#define PVSCHED_BPF_COUNT_MAP	PVSCHED_BPF_PIN_DIR "/" PVSCHED_BPF_COUNT_NAME "/counts"
#define PVSCHED_BPF_COUNT_MAX_TASKS	1024

struct pvsched_bpf_counts {
	__u64 reg;
	__u64 unreg;
	__u64 vmenter;
	__u64 vmexit;
	__u64 halt;
	__u64 intr_inj;
};

#endif /* PVSCHED_BPF_COUNT_H */
