// SPDX-License-Identifier: GPL-2.0
/*
 * The pvsched ABI of a kernel built without it (PARAVIRT_SCHED_KVM=n or
 * PARAVIRT_SCHED_HOST=n), booted by make series-check: KVM must not
 * offer the capabilities, and the ioctls must fail as ioctls KVM does not
 * know: ENOTTY for the VM ioctls, and for the vCPU one whatever an
 * unknown vCPU ioctl gets (EINVAL on x86), so that a VMM falls back
 * cleanly. A kselftest_harness.h program; exit status 0 iff every test
 * passed. Without KVM every test fails: there is nothing to check.
 *
 * On a kernel with pvsched every test fails: that is its negative
 * control.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "pvsched_abi.h"

#define AREA_GPA	0x1000

/* No such vCPU ioctl: what KVM answers to one it does not know. */
#define KVM_UNKNOWN_VCPU_IOCTL	_IOW(KVMIO, 0xff, struct kvm_pvsched_area)

/* The ioctl's errno, 0 if it succeeded. */
static int ioctl_errno(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? errno : 0;
}

/* A VM with one vCPU and memory at the area's address. */
FIXTURE(absent) {
	int kvm, vm, vcpu;
};

FIXTURE_SETUP(absent)
{
	struct kvm_userspace_memory_region region = {
		.memory_size = 2 * AREA_GPA,
	};
	void *mem;

	self->kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->kvm)
		TH_LOG("no KVM to test: /dev/kvm: %s", strerror(errno));
	self->vm = ioctl(self->kvm, KVM_CREATE_VM, 0);
	ASSERT_LE(0, self->vm)
		TH_LOG("KVM_CREATE_VM: %s", strerror(errno));
	self->vcpu = ioctl(self->vm, KVM_CREATE_VCPU, 0);
	ASSERT_LE(0, self->vcpu)
		TH_LOG("KVM_CREATE_VCPU: %s", strerror(errno));
	/* Memory at the area's address: with pvsched, the ioctl succeeds. */
	mem = mmap(NULL, region.memory_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, mem);
	region.userspace_addr = (unsigned long)mem;
	ASSERT_EQ(0, ioctl(self->vm, KVM_SET_USER_MEMORY_REGION, &region))
		TH_LOG("KVM_SET_USER_MEMORY_REGION: %s", strerror(errno));
}

FIXTURE_TEARDOWN(absent)
{
}

TEST_F(absent, no_cap_pvsched)
{
	EXPECT_EQ(0, ioctl(self->kvm, KVM_CHECK_EXTENSION, KVM_CAP_PVSCHED));
}

TEST_F(absent, no_cap_pvsched_area)
{
	EXPECT_EQ(0, ioctl(self->kvm, KVM_CHECK_EXTENSION,
			   KVM_CAP_PVSCHED_AREA));
}

TEST_F(absent, get_ops_enotty)
{
	struct kvm_pvsched_ops ops = { .ops_name = "pvsched_nop" };

	EXPECT_EQ(ENOTTY, ioctl_errno(self->vm, KVM_GET_PVSCHED_OPS, &ops));
	EXPECT_STREQ("pvsched_nop", (char *)ops.ops_name)
		TH_LOG("the buffer is untouched");
}

TEST_F(absent, replace_ops_enotty)
{
	struct kvm_pvsched_ops ops = { .ops_name = "pvsched_nop" };

	EXPECT_EQ(ENOTTY,
		  ioctl_errno(self->vm, KVM_REPLACE_PVSCHED_OPS, &ops));
}

TEST_F(absent, set_area_unknown)
{
	struct kvm_pvsched_area area = { .gpa = AREA_GPA };
	int unknown, r;

	unknown = ioctl_errno(self->vcpu, KVM_UNKNOWN_VCPU_IOCTL, &area);
	r = ioctl_errno(self->vcpu, KVM_SET_PVSCHED_AREA, &area);
	EXPECT_NE(0, r);
	EXPECT_EQ(unknown, r)
		TH_LOG("KVM_SET_PVSCHED_AREA fails as an unknown vCPU ioctl does (%s, unknown: %s)",
		       strerror(r), strerror(unknown));
}

TEST_HARNESS_MAIN
