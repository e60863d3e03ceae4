// SPDX-License-Identifier: GPL-2.0
/*
 * kvm-ioctl.h's two tiers, on fds that are not KVM's: -1 (EBADF) and a
 * pipe (FIONREAD succeeds). Nothing here opens /dev/kvm.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kvm-cpu.h"
#include "tap.h"

static char captured[1024];
static int saved_fd = -1;

/* stderr (unbuffered) into a file, until capture_end(). */
static void capture_begin(void)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/stderr", tap_tmpdir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	saved_fd = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	close(fd);
}

static void capture_end(void)
{
	char path[4200];
	ssize_t n = 0;
	int fd;

	dup2(saved_fd, STDERR_FILENO);
	close(saved_fd);
	snprintf(path, sizeof(path), "%s/stderr", tap_tmpdir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, captured, sizeof(captured) - 1);
		close(fd);
	}
	captured[n > 0 ? n : 0] = '\0';
}

void test_kvm_ioctl(void)
{
	struct kvm_cpuid2 cpuid = { .nent = 0 };
	struct kvm_sregs sregs;
	struct kvm_cpu cpu;
	struct kvm kvm;
	int ret, err, pipefd[2], avail = -1;

	diag("kvm-ioctl.h");
	kvm__init(&kvm);		/* sys_fd = vm_fd = -1 */
	memset(&cpu, 0, sizeof(cpu));
	memset(&sregs, 0, sizeof(sregs));
	cpu.fd = -1;
	cpu.id = 3;

	capture_begin();
	ret = __kvm_vm_ioctl(&kvm, KVM_CREATE_IRQCHIP, 0);
	err = errno;
	capture_end();
	ok(ret == -1 && err == EBADF && !*captured,
	   "raw tier: ioctl()'s -1, errno EBADF, nothing printed");

	capture_begin();
	ret = kvm_vm_ioctl(&kvm, KVM_CREATE_IRQCHIP, 0);
	err = errno;
	capture_end();
	ok(ret == -EBADF && err == EBADF &&
	   !strcmp(captured,
		   "minivmm: KVM_CREATE_IRQCHIP: Bad file descriptor\n"),
	   "kvm_vm_ioctl(): -EBADF, errno kept, one line naming the ioctl");

	capture_begin();
	ret = kvm_sys_ioctl(&kvm, KVM_GET_SUPPORTED_CPUID, &cpuid);
	capture_end();
	ok(ret == -EBADF &&
	   !strcmp(captured, "minivmm: KVM_GET_SUPPORTED_CPUID: "
		   "Bad file descriptor\n"),
	   "kvm_sys_ioctl(): the name is the macro's, not its _IOWR() value");

	capture_begin();
	ret = kvm_cpu_ioctl(&cpu, KVM_SET_SREGS, &sregs);
	err = errno;
	capture_end();
	ok(ret == -EBADF && err == EBADF &&
	   !strcmp(captured,
		   "minivmm: vcpu3: KVM_SET_SREGS: Bad file descriptor\n"),
	   "kvm_cpu_ioctl(): the vCPU, the ioctl, the errno");

	capture_begin();
	errno = EFAULT;
	ret = kvm_cpu_ioctl_error(&cpu, KVM_RUN);
	err = errno;
	capture_end();
	ok(ret == -EFAULT && err == EFAULT &&
	   !strcmp(captured, "minivmm: vcpu3: KVM_RUN: Bad address\n"),
	   "kvm_cpu_ioctl_error() after a raw call: errno as the call left it");

	capture_begin();
	errno = ENOMEM;
	ret = kvm_ioctl_error(KVM_CREATE_VM);
	capture_end();
	ok(ret == -ENOMEM &&
	   !strcmp(captured,
		   "minivmm: KVM_CREATE_VM: Cannot allocate memory\n"),
	   "kvm_ioctl_error(): one line, -errno");

	ok(!strcmp(kvm_ioctl_name(KVM_SET_PVSCHED_AREA),
		   "KVM_SET_PVSCHED_AREA"),
	   "kvm_ioctl_name(): the macro's name");

	if (pipe2(pipefd, O_CLOEXEC)) {
		ok(0, "pipe2: %s", strerror(errno));
		return;
	}
	if (write(pipefd[1], "abc", 3) != 3)
		diag("write to the pipe failed");
	kvm.vm_fd = pipefd[0];
	capture_begin();
	ret = kvm_vm_ioctl(&kvm, FIONREAD, &avail);
	capture_end();
	ok(ret == 0 && avail == 3 && !*captured,
	   "reporting tier, success: ioctl()'s value, nothing printed");
	close(pipefd[0]);
	close(pipefd[1]);
}
