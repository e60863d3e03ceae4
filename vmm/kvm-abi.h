/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <linux/kvm.h> plus the pvsched ABI, which the installed headers may lack.
 */
#ifndef MINIVMM_KVM_ABI_H
#define MINIVMM_KVM_ABI_H

#include <linux/kvm.h>

#ifndef KVM_CAP_PVSCHED
#define KVM_CAP_PVSCHED		239
#endif

#ifndef KVM_GET_PVSCHED_OPS
struct kvm_pvsched_ops {
	__u8 ops_name[32];	/* NUL-terminated; "" means no driver */
};

/* VM ioctls. REPLACE hands back the previous name in the same buffer. */
#define KVM_GET_PVSCHED_OPS	_IOR(KVMIO, 0xe4, struct kvm_pvsched_ops)
#define KVM_REPLACE_PVSCHED_OPS	_IOWR(KVMIO, 0xe5, struct kvm_pvsched_ops)
#endif

/* Bytes in a driver name buffer, the terminating NUL included. */
#define PVSCHED_OPS_NAME_SIZE \
	((int)sizeof(((struct kvm_pvsched_ops *)0)->ops_name))

#endif /* MINIVMM_KVM_ABI_H */
