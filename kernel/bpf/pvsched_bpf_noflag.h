/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace view of what bpf_pvsched_noflag's kfunc calls returned.
 *
 * bpf_pvsched_noflag is bpf_pvsched_boost without PVSCHED_OPS_BOOST in the
 * flags of its struct_ops map: the pvsched core must refuse its boost and
 * unboost requests with -EPERM. The loader (pvsched-bpf) pins its one-entry
 * BPF_MAP_TYPE_ARRAY PVSCHED_BPF_NOFLAG_MAP (key 0) of
 * struct pvsched_bpf_noflag_results; the map stays until "unload".
 */
#ifndef PVSCHED_BPF_NOFLAG_H
#define PVSCHED_BPF_NOFLAG_H

#define PVSCHED_BPF_NOFLAG_NAME	"bpf_pvsched_noflag"
#define PVSCHED_BPF_NOFLAG_MAP	"/sys/fs/bpf/pvsched/" PVSCHED_BPF_NOFLAG_NAME "/results"

struct pvsched_bpf_noflag_results {
	__u64 calls;		/* bpf_pvsched_vcpu_{boost,unboost}() calls */
	__u64 eperm;		/* ... that returned -EPERM */
	__u64 other;		/* ... that returned anything else */
	__s64 last_other;	/* the last of those other values */
};

#endif /* PVSCHED_BPF_NOFLAG_H */
