/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <linux/kvm.h> plus the pvsched ABI, which the installed headers may lack,
 * and struct pvsched_vcpu_area of <linux/pvsched.h>, which they do lack.
 */
#ifndef MINIVMM_KVM_ABI_H
#define MINIVMM_KVM_ABI_H

#include <linux/kvm.h>

#ifndef KVM_CAP_PVSCHED
#define KVM_CAP_PVSCHED		249
#endif

#ifndef KVM_GET_PVSCHED_OPS
struct kvm_pvsched_ops {
	__u8 ops_name[32];	/* NUL-terminated; "" means no driver */
};

/* VM ioctls. REPLACE hands back the previous name in the same buffer. */
#define KVM_GET_PVSCHED_OPS	_IOR(KVMIO, 0xe4, struct kvm_pvsched_ops)
#define KVM_REPLACE_PVSCHED_OPS	_IOWR(KVMIO, 0xe5, struct kvm_pvsched_ops)
#endif

#ifndef KVM_CAP_PVSCHED_AREA
#define KVM_CAP_PVSCHED_AREA	250
#endif

#ifndef KVM_SET_PVSCHED_AREA
struct kvm_pvsched_area {
	__u64 gpa;	/* of a struct pvsched_vcpu_area, 0 for none */
	__u64 flags;	/* must be 0 */
};

/* vCPU ioctl, with KVM_CAP_PVSCHED_AREA. */
#define KVM_SET_PVSCHED_AREA	_IOW(KVMIO, 0xe6, struct kvm_pvsched_area)
#endif

/*
 * <asm/kvm_para.h>: a guest that finds KVM_FEATURE_PVSCHED in CPUID
 * 0x40000001 registers its vCPU's area itself with MSR_KVM_PVSCHED: the
 * area's GPA in bits 63:6, its version in bits 5:0, 0 for none.
 */
#define KVM_CPUID_FEATURES_LEAF	0x40000001
#ifndef KVM_FEATURE_PVSCHED
#define KVM_FEATURE_PVSCHED	18
#define MSR_KVM_PVSCHED		0x4b564d09
#define KVM_PVSCHED_VERSION_MASK	0x3fULL
#endif

/*
 * The per-vCPU area shared with the VM's pvsched driver, as
 * <linux/pvsched.h> has it (64 bytes, 64-aligned; flags and offsets in
 * ../guest-payload/minivmm-guest.h). KVM writes version and zeroes the
 * host fields at registration; the driver rewrites them on each boost
 * change; the guest writes guest_flags and guest_prio (both at once, as
 * guest_word, when both change: read them so); the guest's other vCPUs
 * raise wake_req, and this one clears its priority byte.
 */
struct pvsched_vcpu_area {
	__u32 version;		/* PVSCHED_AREA_VERSION */
	__u32 host_flags;	/* PVSCHED_HOST_* */
	union {			/* the guest stores both at once */
		struct {
			__u32 guest_flags;	/* PVSCHED_GUEST_* */
			__u32 guest_prio;	/* 0 normal, 1..99 RT */
		};
		__u64 guest_word;	/* read in one load */
	};
	__u64 boosted_ns;	/* CPU time the vCPU thread ran boosted */
	__u32 boosts;		/* boosts started */
	__u32 throttles;	/* boosts ended by the bounds */
	__u32 unboosts;		/* boosts ended at the driver's request */
	__u32 wake_req;		/* the guest's: PVSCHED_WAKE_* */
	__u8 reserved[24];
};

/* Bytes in a driver name buffer, the terminating NUL included. */
#define PVSCHED_OPS_NAME_SIZE \
	((int)sizeof(((struct kvm_pvsched_ops *)0)->ops_name))

#endif /* MINIVMM_KVM_ABI_H */
