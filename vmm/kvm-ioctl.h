/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KVM ioctl wrappers, in two tiers as the KVM selftests' kvm_util.h has
 * them (__vm_ioctl() and vm_ioctl()), on /dev/kvm, the VM and a vCPU:
 *
 *   __kvm_sys_ioctl(kvm, cmd, arg)
 *   __kvm_vm_ioctl(kvm, cmd, arg)
 *   __kvm_cpu_ioctl(cpu, cmd, arg)
 *	The raw tier: ioctl()'s result, errno intact, nothing printed. For
 *	callers that look at the errno or the value themselves: capability
 *	probes, the pvsched ioctls, messages with more context, KVM_RUN.
 *
 *   kvm_sys_ioctl(kvm, cmd, arg)
 *   kvm_vm_ioctl(kvm, cmd, arg)
 *   kvm_cpu_ioctl(cpu, cmd, arg)
 *	The reporting tier: ioctl()'s value (>= 0) on success; on failure one
 *	line on stderr, "minivmm: CMD: <strerror>" ("minivmm: vcpuN: CMD:
 *	..." for a vCPU's), CMD named by its macro (#cmd), and -errno, with
 *	errno kept.
 *
 *   kvm_ioctl_error(cmd)
 *   kvm_cpu_ioctl_error(cpu, cmd)
 *	That line and -errno, for a raw call that the caller found failed
 *	(KVM_CREATE_VCPU, a VM ioctl on behalf of a vCPU; KVM_RUN).
 *
 *   kvm_ioctl_name(cmd)
 *	"CMD", for a message of its own about a raw call.
 *
 * The raw tier's result is ioctl()'s: -1 and errno on failure. Everything
 * above it gives 0 (or a value) or -errno; which exit status a failure
 * becomes is main.c's business alone.
 */
#ifndef MINIVMM_KVM_IOCTL_H
#define MINIVMM_KVM_IOCTL_H

#include <sys/ioctl.h>

struct kvm_cpu;

/*
 * "KVM_SET_SREGS" for KVM_SET_SREGS, which must be defined. Each macro
 * below applies # to its own cmd: passed on to another macro, cmd would
 * be expanded first, to _IOW(...).
 */
#define kvm_ioctl_name(cmd)	((void)(cmd), #cmd)

#define __kvm_sys_ioctl(kvm, cmd, arg)	ioctl((kvm)->sys_fd, cmd, arg)
#define __kvm_vm_ioctl(kvm, cmd, arg)	ioctl((kvm)->vm_fd, cmd, arg)
#define __kvm_cpu_ioctl(cpu, cmd, arg)	ioctl((cpu)->fd, cmd, arg)

int kvm__ioctl_error(const char *name);
int kvm_cpu__ioctl_error(const struct kvm_cpu *cpu, const char *name);

#define kvm_ioctl_error(cmd) \
	kvm__ioctl_error(((void)(cmd), #cmd))
#define kvm_cpu_ioctl_error(cpu, cmd) \
	kvm_cpu__ioctl_error(cpu, ((void)(cmd), #cmd))

/* @raw's value if >= 0, else @on_error's (evaluated only then). */
#define _kvm_ioctl(raw, on_error)					\
({									\
	int __ret = (raw);						\
									\
	__ret < 0 ? (on_error) : __ret;					\
})

#define kvm_sys_ioctl(kvm, cmd, arg)					\
	_kvm_ioctl(__kvm_sys_ioctl(kvm, cmd, arg), kvm__ioctl_error(#cmd))
#define kvm_vm_ioctl(kvm, cmd, arg)					\
	_kvm_ioctl(__kvm_vm_ioctl(kvm, cmd, arg), kvm__ioctl_error(#cmd))
#define kvm_cpu_ioctl(cpu, cmd, arg)					\
	_kvm_ioctl(__kvm_cpu_ioctl(cpu, cmd, arg),			\
		   kvm_cpu__ioctl_error(cpu, #cmd))

#endif /* MINIVMM_KVM_IOCTL_H */
