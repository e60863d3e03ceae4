/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace view of bpf_pvsched_tpcount: bpf_pvsched_count's counts, taken
 * by BPF programs on KVM's tracepoints instead of by a pvsched driver, as
 * the baseline of what counting these events costs without pvsched.
 *
 * Its maps are bpf_pvsched_count's, same types, sizes and layout (see
 * pvsched_bpf_count.h), pinned under their own name so that the two never
 * mix; reg and unreg stay 0. The loader also pins the link of each program,
 * at PVSCHED_BPF_PIN_DIR/bpf_pvsched_tpcount/TRACEPOINT: the programs stay
 * attached until "pvsched-bpf unload bpf_pvsched_tpcount" removes the pins.
 */
#ifndef PVSCHED_BPF_TPCOUNT_H
#define PVSCHED_BPF_TPCOUNT_H

#include "pvsched_bpf_count.h"

#define PVSCHED_BPF_TPCOUNT_NAME	"bpf_pvsched_tpcount"
#define PVSCHED_BPF_TPCOUNT_MAP		PVSCHED_BPF_PIN_DIR "/" PVSCHED_BPF_TPCOUNT_NAME "/counts"
#define PVSCHED_BPF_TPCOUNT_SLOTS_MAP	PVSCHED_BPF_PIN_DIR "/" PVSCHED_BPF_TPCOUNT_NAME "/slots"

#endif /* PVSCHED_BPF_TPCOUNT_H */
