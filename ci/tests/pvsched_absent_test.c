// SPDX-License-Identifier: GPL-2.0
/*
 * The pvsched ABI of a kernel built without it (PARAVIRT_SCHED_KVM=n or
 * PARAVIRT_SCHED_HOST=n), booted by make series-check: KVM must not
 * offer the capabilities, and the ioctls must fail as ioctls KVM does not
 * know: ENOTTY for the VM ioctls, and for the vCPU one whatever an
 * unknown vCPU ioctl gets (EINVAL on x86), so that a VMM falls back
 * cleanly. KTAP on stdout; exit status 0 iff every check passed, 4 if KVM
 * itself is missing (nothing was checked).
 *
 * On a kernel with pvsched every check fails: that is its negative
 * control.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "pvsched_abi.h"

#define NR_CHECKS	5
#define AREA_GPA	0x1000

/* No such vCPU ioctl: what KVM answers to one it does not know. */
#define KVM_UNKNOWN_VCPU_IOCTL	_IOW(KVMIO, 0xff, struct kvm_pvsched_area)

static int nr_done, nr_failed;

static __attribute__((format(printf, 2, 3)))
void check(bool pass, const char *fmt, ...)
{
	va_list ap;

	nr_done++;
	nr_failed += !pass;
	printf("%sok %d ", pass ? "" : "not ", nr_done);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* The ioctl's errno, 0 if it succeeded. */
static int ioctl_errno(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? errno : 0;
}

int main(void)
{
	struct kvm_pvsched_ops ops = { .ops_name = "pvsched_nop" };
	struct kvm_pvsched_area area = { .gpa = AREA_GPA };
	struct kvm_userspace_memory_region region = {
		.memory_size = 2 * AREA_GPA,
	};
	int kvm, vm, vcpu, r, unknown;
	void *mem;

	printf("TAP version 13\n1..%d\n", NR_CHECKS);
	kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	vm = kvm < 0 ? -1 : ioctl(kvm, KVM_CREATE_VM, 0);
	vcpu = vm < 0 ? -1 : ioctl(vm, KVM_CREATE_VCPU, 0);
	/* Memory at the area's address: with pvsched, the ioctl succeeds. */
	mem = mmap(NULL, region.memory_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	region.userspace_addr = (unsigned long)mem;
	if (vcpu < 0 || mem == MAP_FAILED ||
	    ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region)) {
		printf("Bail out! no KVM to test: %s\n", strerror(errno));
		return 4;
	}

	r = ioctl(kvm, KVM_CHECK_EXTENSION, KVM_CAP_PVSCHED);
	check(r == 0, "KVM_CHECK_EXTENSION(KVM_CAP_PVSCHED) is 0 (%d)", r);
	r = ioctl(kvm, KVM_CHECK_EXTENSION, KVM_CAP_PVSCHED_AREA);
	check(r == 0, "KVM_CHECK_EXTENSION(KVM_CAP_PVSCHED_AREA) is 0 (%d)",
	      r);
	r = ioctl_errno(vm, KVM_GET_PVSCHED_OPS, &ops);
	check(r == ENOTTY && !strcmp((char *)ops.ops_name, "pvsched_nop"),
	      "KVM_GET_PVSCHED_OPS fails with ENOTTY (%s), buffer untouched",
	      strerror(r));
	r = ioctl_errno(vm, KVM_REPLACE_PVSCHED_OPS, &ops);
	check(r == ENOTTY, "KVM_REPLACE_PVSCHED_OPS fails with ENOTTY (%s)",
	      strerror(r));
	unknown = ioctl_errno(vcpu, KVM_UNKNOWN_VCPU_IOCTL, &area);
	r = ioctl_errno(vcpu, KVM_SET_PVSCHED_AREA, &area);
	check(r && r == unknown,
	      "KVM_SET_PVSCHED_AREA fails as an unknown vCPU ioctl does (%s, unknown: %s)",
	      strerror(r), strerror(unknown));

	printf("# Totals: pass:%d fail:%d skip:0\n", nr_done - nr_failed,
	       nr_failed);
	return nr_failed ? 1 : 0;
}
