/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pvsched ioctls of include/uapi/linux/kvm.h in the pvsched series,
 * for the in-VM tests, which build against the distribution's headers.
 */
#ifndef PVSCHED_ABI_H
#define PVSCHED_ABI_H

#include <linux/kvm.h>
#include <linux/types.h>

#ifndef KVM_CAP_PVSCHED
#define KVM_CAP_PVSCHED 249
#endif

#ifndef KVM_GET_PVSCHED_OPS
struct kvm_pvsched_ops {
	__u8 ops_name[32]; /* NUL-terminated pvsched driver name */
};

#define KVM_GET_PVSCHED_OPS	_IOR(KVMIO,  0xe4, struct kvm_pvsched_ops)
#define KVM_REPLACE_PVSCHED_OPS	_IOWR(KVMIO, 0xe5, struct kvm_pvsched_ops)
#endif

#ifndef KVM_SET_PVSCHED_AREA
#define KVM_CAP_PVSCHED_AREA 250

struct kvm_pvsched_area {
	__u64 gpa;
	__u64 flags;
};

#define KVM_SET_PVSCHED_AREA	_IOW(KVMIO,  0xe6, struct kvm_pvsched_area)
#endif

#endif /* PVSCHED_ABI_H */
